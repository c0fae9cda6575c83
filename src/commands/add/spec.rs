//! The entries `add` writes: built from its flags (`-- COMMAND`, a URL, `--env`,
//! `--header`, `--cwd`) or a `--from-json` snippet, one `Spec` a server, then written
//! into each target client's file.

use serde_json::{Map, Value};

use crate::clients::{Client, Scope, VarSyntax};
use crate::entry::{RemoteKind, ServerEntry, StringMap, Transport, snippet};
use crate::error::UserError;
use crate::output::Printer;
use crate::session::Context;
use crate::session::edit::EditReport;
use crate::session::write::{Flags, Provenance, add_to, parse_pairs, warn_unportable_name};
use crate::state::Origin;

/// The entry `add` writes, built from the flags or a snippet.
#[derive(Debug)]
pub(crate) struct Spec {
    pub name: String,
    pub entry: ServerEntry,
    /// VS Code `inputs` of the snippet.
    pub inputs: Vec<Value>,
    pub notes: Vec<String>,
}

pub(crate) fn build_entry(
    name: Option<String>,
    env: &[String],
    headers: &[String],
    cwd: Option<String>,
    remote: Option<(String, RemoteKind)>,
    from_json: Option<&str>,
    command: Vec<String>,
) -> anyhow::Result<Spec> {
    let env = parse_pairs(env, "env", &['='])?;
    let headers = parse_pairs(headers, "header", &['=', ':'])?;
    let how_many = usize::from(from_json.is_some())
        + usize::from(remote.is_some())
        + usize::from(!command.is_empty());
    if how_many != 1 {
        return Err(UserError::new(if how_many == 0 {
            "say what to run"
        } else {
            "give only one of `-- COMMAND`, a URL and `--from-json`"
        })
        .hint("`mcpctl add NAME -c ID -- npx -y PACKAGE`, `--url https://...`, or `--from-json '{...}'`")
        .into());
    }
    let named = || {
        name.clone().ok_or_else(|| {
            UserError::new("say the server's name").hint(
                "`mcpctl add NAME -c ID -- COMMAND...` (the name is the key in each client's file)",
            )
        })
    };
    let (name, mut entry, inputs, notes) = if let Some(json) = from_json {
        let snippet = snippet::entry_from_json(name.as_deref(), json)?;
        let entry = snippet::read_entry(&snippet.raw)?;
        (snippet.name, entry, snippet.inputs, snippet.notes)
    } else if let Some((url, kind)) = remote {
        let entry = ServerEntry {
            transport: Transport::Remote {
                url,
                kind,
                headers: StringMap::new(),
            },
            extras: Map::new(),
        };
        (named()?, entry, Vec::new(), Vec::new())
    } else {
        let mut parts = command.into_iter();
        let program = parts.next().unwrap_or_default();
        let entry = ServerEntry {
            transport: Transport::Stdio {
                command: program,
                args: parts.collect(),
                env: StringMap::new(),
                cwd: None,
            },
            extras: Map::new(),
        };
        (named()?, entry, Vec::new(), Vec::new())
    };
    match &mut entry.transport {
        Transport::Stdio { env: e, cwd: c, .. } => {
            if !headers.is_empty() {
                return Err(UserError::new("`--header` is for remote servers")
                    .hint("use `--env KEY=VALUE` for a local server")
                    .into());
            }
            e.extend(env);
            if cwd.is_some() {
                *c = cwd;
            }
        }
        Transport::Remote { headers: h, .. } => {
            if !env.is_empty() || cwd.is_some() {
                return Err(
                    UserError::new("`--env` and `--cwd` are for local (stdio) servers")
                        .hint("use `--header KEY=VALUE` for a remote server")
                        .into(),
                );
            }
            h.extend(headers);
        }
    }
    Ok(Spec {
        name,
        entry,
        inputs,
        notes,
    })
}

/// Write each spec into each target client's file in that client's dialect (VS Code
/// `inputs` kept for VS Code, a note per translated input for the others).
pub(crate) fn write_each(
    ctx: &Context,
    printer: &Printer,
    clients: &[&Client],
    scope: Scope,
    specs: &[Spec],
    flags: Flags,
) -> EditReport {
    let mut report = EditReport::new(flags.dry_run);
    let mut prompted_inputs: Vec<String> = Vec::new();
    for Spec {
        name,
        entry,
        inputs,
        ..
    } in specs
    {
        for client in clients.iter().copied() {
            warn_unportable_name(printer, client, name);
            let original = entry;
            let (entry, translated) = crate::entry::render::for_client_inputs(entry, client);
            for (id, variable) in translated {
                if !prompted_inputs.contains(&id) {
                    printer.warn(&input_note(&id, &variable, original, inputs));
                    prompted_inputs.push(id);
                }
            }
            let keep_inputs = if client.fields.var_syntax == Some(VarSyntax::Vscode) {
                inputs.as_slice()
            } else {
                &[]
            };
            let result = add_to(
                ctx,
                client,
                scope,
                name,
                &entry,
                keep_inputs,
                flags,
                &Provenance {
                    origin: Origin::add(),
                    guard: None,
                },
            )
            .map(|(path, outcome, notes, _)| {
                report.warnings.extend(notes);
                (path, outcome)
            });
            if result.is_ok()
                && let Some(note) = client.loading.starts_off_note(&client.name, scope)
            {
                report.warnings.push(note);
            }
            report.push(ctx, client, scope, result);
        }
    }
    report
}

/// Which variable to set for a translated VS Code input, with VS Code's own prompt: the
/// env key the prompt fed when it was that key's whole value (so the server gets it under
/// the name it reads, and Codex can pass it through by that name).
fn input_note(id: &str, variable: &str, entry: &ServerEntry, inputs: &[Value]) -> String {
    let prompt = inputs
        .iter()
        .find(|i| i.get("id").and_then(Value::as_str) == Some(id))
        .and_then(|i| i.get("description").and_then(Value::as_str))
        .map(|d| format!(" (VS Code asks: \"{d}\")"))
        .unwrap_or_default();
    let fed = matches!(&entry.transport, Transport::Stdio { env, .. } if env.get(variable).is_some_and(|v| *v == format!("${{input:{id}}}")));
    let named = if fed { " (the env key it feeds)" } else { "" };
    format!(
        "`${{input:{id}}}` is a VS Code prompt{prompt}; other clients get the variable {variable} instead{named}: set it in the environment the client starts from"
    )
}

#[cfg(test)]
mod tests {
    use crate::session::write::{parse_pairs, validate_url};

    #[test]
    fn urls_must_be_http_with_a_host() {
        assert!(validate_url("https://example.com/mcp").is_ok());
        assert!(validate_url("http://localhost:3000").is_ok());
        assert!(validate_url("${BASE}/mcp").is_ok());
        for bad in [
            "",
            "not-a-url",
            "file:///etc/passwd",
            "https://",
            "https://a b",
        ] {
            assert!(validate_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn pairs_need_a_key_and_separator() {
        assert_eq!(
            parse_pairs(&["A=b=c".into()], "env", &['=']).unwrap()["A"],
            "b=c"
        );
        assert_eq!(
            parse_pairs(&["Authorization: Bearer x".into()], "header", &['=', ':']).unwrap()["Authorization"],
            "Bearer x"
        );
        assert!(parse_pairs(&["nope".into()], "env", &['=']).is_err());
        assert!(parse_pairs(&["=v".into()], "env", &['=']).is_err());
    }
}
