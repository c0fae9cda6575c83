//! `mcpctl secret set|list|get|rm`: the secret store (`crate::secret_store`) from the command
//! line. A value comes from a hidden prompt or stdin, never from argv (where `ps` and
//! shell history would see it), and is printed only by `get --reveal`.

use std::io::{IsTerminal, Read};

use serde::Serialize;

use crate::cli::{SecretAdoptArgs, SecretCommand, SecretGetArgs, SecretNameArg, SecretSetArgs};
use crate::error::{ExitStatus, UserError};
use crate::output::{Block, Paint, Printer, Report};
use crate::secret_store::{Backend, Store, Value};
use crate::session::{Context, adopt, inventory, targets};

pub fn run(
    command: SecretCommand,
    ctx: &Context,
    printer: &mut Printer,
) -> anyhow::Result<ExitStatus> {
    let store = ctx.secret_store();
    match command {
        SecretCommand::Set(args) => set(args, ctx, &store, printer),
        SecretCommand::List => list(&store, printer),
        SecretCommand::Get(args) => get(args, &store, printer),
        SecretCommand::Rm(args) => rm(args, ctx, &store, printer),
        SecretCommand::Adopt(args) => adopt_secrets(args, ctx, &store, printer),
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
        vec![Block::table(
            vec!["NAME", "BACKEND", "COMMAND", "SET"],
            &self.rows,
            |r| {
                vec![
                    r.name.clone(),
                    r.backend.to_owned(),
                    r.command.clone().unwrap_or_else(|| "-".to_owned()),
                    r.time.clone(),
                ]
            },
        )]
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

fn rm(
    args: SecretNameArg,
    ctx: &Context,
    store: &Store,
    printer: &mut Printer,
) -> anyhow::Result<ExitStatus> {
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
    let users = users_of(ctx, &name);
    if !users.is_empty() {
        printer.warn(&format!(
            "{} still name{} secret `{name}`: {}; {} cannot start until you run `mcpctl secret set {name}` (or remove {})",
            if users.len() == 1 { "an entry" } else { "entries" },
            if users.len() == 1 { "s" } else { "" },
            users.join(", "),
            if users.len() == 1 { "it" } else { "they" },
            if users.len() == 1 { "the entry" } else { "the entries" },
        ));
    }
    printer.emit(&Done {
        blocks: vec![Block::Note(message)],
        json: serde_json::json!({ "name": name, "action": "removed", "still_used_by": users }),
    })
}

/// The entries of the detected clients' files that name secret `name` (behind the
/// launcher or the bridge): `SERVER (CLIENT, FILE)`.
fn users_of(ctx: &Context, name: &str) -> Vec<String> {
    let clients = targets::detected(ctx);
    let (found, _) = inventory::collect(ctx, &clients, None);
    found
        .iter()
        .filter(|f| {
            f.entry().as_ref().is_ok_and(|e| {
                crate::entry::launcher::logical(&e.transport)
                    .is_some_and(|l| l.secrets.iter().any(|s| s.secret == name))
            })
        })
        .map(|f| {
            format!(
                "`{}` ({}, {})",
                f.name,
                f.client.id,
                crate::output::file(&f.path)
            )
        })
        .collect()
}

/// One literal secret `adopt` moved (`--json` item). Never the value.
#[derive(Debug, Serialize)]
struct AdoptRow {
    client: String,
    scope: &'static str,
    path: std::path::PathBuf,
    /// The server.
    name: String,
    /// The env variable or header.
    field: String,
    place: crate::secret_store::adopt::Place,
    secret: String,
    /// `moved`, `would move`.
    action: &'static str,
    #[serde(skip)]
    what: &'static str,
}

struct AdoptReport {
    rows: Vec<AdoptRow>,
    diffs: Vec<String>,
    dry_run: bool,
    /// The backups that still hold the values, and how to delete them.
    backups: Option<String>,
}

impl Report for AdoptReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(&self.rows)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        if self.rows.is_empty() {
            return vec![Block::Note(
                "no literal secrets in the client files: nothing to move".to_owned(),
            )];
        }
        let mut blocks: Vec<Block> = self
            .diffs
            .iter()
            .map(|diff| Block::Raw(paint.diff(diff)))
            .collect();
        blocks.push(Block::Table {
            header: vec![
                "CLIENT", "SCOPE", "SERVER", "FIELD", "SECRET", "FOUND", "FILE",
            ],
            rows: self
                .rows
                .iter()
                .map(|r| {
                    vec![
                        r.client.clone(),
                        r.scope.to_owned(),
                        r.name.clone(),
                        format!("{} {}", r.place.label(), r.field),
                        r.secret.clone(),
                        r.what.to_owned(),
                        paint.path(&r.path),
                    ]
                })
                .collect(),
        });
        blocks.push(Block::Note(if self.dry_run {
            "dry run: nothing was stored or written; run without --dry-run to move them".to_owned()
        } else {
            "moved into the OS keychain; the entries start through `mcpctl run`/`mcpctl bridge` (`mcpctl undo` puts the files back, the secrets stay)".to_owned()
        }));
        blocks.extend(self.backups.clone().map(Block::Note));
        blocks
    }

    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}

/// `secret adopt`: every literal secret of the targeted clients' files into the store,
/// each entry rewritten to name it (see `session::adopt`).
fn adopt_secrets(
    args: SecretAdoptArgs,
    ctx: &Context,
    store: &Store,
    printer: &mut Printer,
) -> anyhow::Result<ExitStatus> {
    let SecretAdoptArgs {
        name,
        clients,
        dry_run,
        yes,
    } = args;
    let clients = if clients.is_empty() {
        targets::detected(ctx)
    } else {
        targets::by_ids(ctx, &clients)?
    };
    let (found, broken) = inventory::collect(ctx, &clients, name.as_deref());
    for b in &broken {
        printer.warn(&format!("{:#} (its secrets stay where they are)", b.error));
    }
    let plan = adopt::plan_with_references(store, &adopt::Candidate::of_found(&found), &|var| {
        ctx.platform.lookup(var).is_none()
    });
    let adopt::Carried { rewritten, backups } = adopt::carry_out(
        ctx,
        store,
        &plan,
        dry_run,
        if yes {
            adopt::Scrubbing::Yes
        } else {
            adopt::Scrubbing::Ask
        },
    )?;
    let rows = plan
        .items
        .iter()
        .map(|i| AdoptRow {
            client: i.client.id.clone(),
            scope: i.scope.as_str(),
            path: i.path.clone(),
            name: i.server.clone(),
            field: i.field.clone(),
            place: i.place,
            secret: i.secret.clone(),
            action: if dry_run { "would move" } else { "moved" },
            what: i.what,
        })
        .collect();
    let diffs = rewritten
        .into_iter()
        .filter_map(|r| r.outcome.diff)
        .collect();
    printer.emit(&AdoptReport {
        rows,
        diffs,
        dry_run,
        backups,
    })
}
