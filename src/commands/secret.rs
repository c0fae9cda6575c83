//! `mcpctl secret set|list|get|rm`: the secret store (`crate::secret_store`) from the command
//! line. A value comes from a hidden prompt or stdin, never from argv (where `ps` and
//! shell history would see it), and is printed only by `get --reveal`.

use std::io::{IsTerminal, Read};

use serde::Serialize;

use crate::cli::{SecretCommand, SecretGetArgs, SecretNameArg, SecretSetArgs};
use crate::error::{ExitStatus, UserError};
use crate::output::{Block, Paint, Printer, Report};
use crate::secret_store::{Backend, Store, Value};
use crate::session::Context;

pub fn run(
    command: SecretCommand,
    ctx: &Context,
    printer: &mut Printer,
) -> anyhow::Result<ExitStatus> {
    let store = Store::new(
        &ctx.platform,
        ctx.state.root().map(std::path::Path::to_path_buf),
    );
    match command {
        SecretCommand::Set(args) => set(args, ctx, &store, printer),
        SecretCommand::List => list(&store, printer),
        SecretCommand::Get(args) => get(args, &store, printer),
        SecretCommand::Rm(args) => rm(args, &store, printer),
    }
}

/// One line of `secret list --json`.
#[derive(Debug, Serialize)]
struct Row {
    name: String,
    backend: &'static str,
    /// The provider command (backend `command`).
    #[serde(skip_serializing_if = "Option::is_none")]
    command: Option<String>,
    /// When it was last set (RFC 3339, UTC).
    time: String,
}

struct ListReport {
    rows: Vec<Row>,
}

impl Report for ListReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(&self.rows)
    }

    fn human(&self, _paint: Paint) -> Vec<Block> {
        if self.rows.is_empty() {
            return vec![Block::Note(
                "no secrets yet: mcpctl secret set NAME (the value is asked for, never typed on the command line)".to_owned(),
            )];
        }
        let rows = self
            .rows
            .iter()
            .map(|r| {
                vec![
                    r.name.clone(),
                    r.backend.to_owned(),
                    r.command.clone().unwrap_or_else(|| "-".to_owned()),
                    r.time.clone(),
                ]
            })
            .collect();
        vec![Block::Table {
            header: vec!["NAME", "BACKEND", "COMMAND", "SET"],
            rows,
        }]
    }

    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}

/// A one-line result (`set`, `rm`) or the revealed value (`get`).
struct Done {
    blocks: Vec<Block>,
    json: serde_json::Value,
}

impl Report for Done {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        Ok(self.json.clone())
    }

    fn human(&self, _paint: Paint) -> Vec<Block> {
        self.blocks.clone()
    }

    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}

fn list(store: &Store, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let rows = store
        .index()?
        .secrets
        .into_iter()
        .map(|(name, record)| Row {
            name,
            backend: record.backend.label(),
            command: match record.backend {
                Backend::Command { command } => Some(command),
                Backend::Keychain => None,
            },
            time: record.time,
        })
        .collect();
    printer.emit(&ListReport { rows })
}

fn set(
    args: SecretSetArgs,
    ctx: &Context,
    store: &Store,
    printer: &mut Printer,
) -> anyhow::Result<ExitStatus> {
    let SecretSetArgs { name, command } = args;
    crate::secret_store::check_name(&name)?;
    let (message, backend) = if let Some(command) = command {
        store.set_command(&name, &command)?;
        (
            format!(
                "secret `{name}` is resolved by running `{command}` when needed (its output is never stored)"
            ),
            "command",
        )
    } else {
        let value = read_value(&name, ctx)?;
        store.set_value(&name, &value)?;
        (
            format!("secret `{name}` kept in the OS keychain"),
            "keychain",
        )
    };
    printer.emit(&Done {
        blocks: vec![Block::Note(message)],
        json: serde_json::json!({ "name": name, "backend": backend, "action": "set" }),
    })
}

/// The value: a hidden prompt on a terminal, else all of stdin (one final newline off).
fn read_value(name: &str, ctx: &Context) -> anyhow::Result<Value> {
    let stdin = std::io::stdin();
    let text = if stdin.is_terminal() {
        if !ctx.interactive {
            return Err(UserError::new(format!(
                "no value for secret `{name}`: --no-input allows no prompt"
            ))
            .hint(format!(
                "pipe it in: `printf %s \"$TOKEN\" | mcpctl secret set {name}`, or keep a command: --command 'pass show {name}'"
            ))
            .into());
        }
        crate::picker::password(&format!("value of secret `{name}`"))?
    } else {
        let mut text = String::new();
        stdin.lock().read_to_string(&mut text).map_err(|e| {
            UserError::new(format!("cannot read the value of `{name}` from stdin: {e}"))
        })?;
        if text.ends_with('\n') {
            text.pop();
            if text.ends_with('\r') {
                text.pop();
            }
        }
        text
    };
    if text.is_empty() {
        return Err(
            UserError::new(format!("the value of secret `{name}` is empty"))
                .hint("give the value on stdin or at the prompt; nothing was stored")
                .into(),
        );
    }
    Ok(Value(text))
}

fn get(args: SecretGetArgs, store: &Store, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let SecretGetArgs { name, reveal } = args;
    crate::secret_store::check_name(&name)?;
    if !reveal {
        return Err(UserError::new(format!(
            "refusing to print secret `{name}` without --reveal"
        ))
        .hint(format!(
            "mcpctl secret get {name} --reveal (it is printed on stdout)"
        ))
        .into());
    }
    let value = store.resolve(&name)?;
    // The one place a value is meant to be printed: past the output's scrub.
    printer.reveal_secrets();
    printer.emit(&Done {
        json: serde_json::json!({ "name": name, "value": value.0 }),
        blocks: vec![Block::Line(value.0)],
    })
}

fn rm(args: SecretNameArg, store: &Store, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let SecretNameArg { name } = args;
    let backend = store.backend_of(&name);
    if !store.remove(&name)? {
        return Err(UserError::new(format!("secret `{name}` is not set"))
            .hint("mcpctl secret list shows the secrets mcpctl knows")
            .into());
    }
    let message = match backend {
        Some(Backend::Command { command }) => {
            format!("secret `{name}` forgotten (its password manager still has it: `{command}`)")
        }
        _ => format!("secret `{name}` removed from the OS keychain"),
    };
    printer.emit(&Done {
        blocks: vec![Block::Note(message)],
        json: serde_json::json!({ "name": name, "action": "removed" }),
    })
}
