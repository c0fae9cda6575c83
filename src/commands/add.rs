//! `mcpctl add`: build one canonical entry from the flags, then write it into each
//! target client's file in that client's dialect, reporting every file.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::cli::AddArgs;
use crate::clients::{Client, Fields, VarSyntax};
use crate::commands::Context;
use crate::commands::edit::{self, Action};
use crate::commands::targets;
use crate::entry::{self, Dialect, RemoteKind, ServerEntry, StringMap, Transport, spelling};
use crate::error::{ExitStatus, UserError};
use crate::formats::Edit;
use crate::output::{Printer, redact_raw};
use crate::platform::Os;
use crate::state::{Origin, ledger};
use crate::vars;

/// One row of the `add`/`remove` report.
#[derive(Debug, Serialize)]
pub struct FileReport {
    pub client: String,
    pub path: String,
    pub action: Action,
    pub error: Option<String>,
    #[serde(skip)]
    pub hint: Option<String>,
    #[serde(skip)]
    pub diff: Option<String>,
}

pub fn run(args: AddArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let AddArgs {
        name,
        targets: target_args,
        scope,
        env,
        headers,
        cwd,
        url,
        transport,
        from_json,
        force,
        dry_run,
        no_wrap,
        command,
    } = args;
    entry::validate_name(&name)
        .map_err(|m| UserError::new(m).hint("pick a short name such as `github`"))?;
    let (name, entry) = build_entry(
        name,
        &env,
        &headers,
        cwd,
        url,
        transport,
        from_json.as_deref(),
        command,
    )?;
    let clients = targets::choose(ctx, &target_args, "add", &|_| true)?;
    let mut reports = Vec::new();
    for client in clients {
        if client.fields.strict_names && !entry::name_is_portable(&name) {
            printer.warn(&format!(
                "{} may reject the server name `{name}`: it accepts letters, digits, `-` and `_`",
                client.name
            ));
        }
        let result = add_to(ctx, client, scope, &name, &entry, force, dry_run, no_wrap).map(
            |(path, outcome, notes)| {
                for note in notes {
                    printer.warn(&note);
                }
                (path, outcome)
            },
        );
        reports.push(report(ctx, client, scope, result));
    }
    print_reports(printer, &reports, dry_run)
}

#[expect(
    clippy::too_many_arguments,
    reason = "one call site; the flags of `add`"
)]
fn add_to(
    ctx: &Context,
    client: &Client,
    scope: crate::clients::Scope,
    name: &str,
    entry: &ServerEntry,
    force: bool,
    dry_run: bool,
    no_wrap: bool,
) -> anyhow::Result<(String, edit::Outcome, Vec<String>)> {
    let location = targets::location(ctx, client, scope)?;
    let dialect = Dialect::of(client);
    let entry = for_platform(entry, ctx.platform.os, &client.fields, no_wrap);
    let (entry, mut notes) = for_client_vars(&entry, client);
    if let Transport::Stdio { command, args, .. } = &entry.transport
        && entry::is_wrapped(command, args)
    {
        let risky = entry::cmd_metachar_args(args);
        if !risky.is_empty() {
            notes.push(format!(
                "`cmd /c` re-reads {} for cmd.exe's special characters (& | < > ^ % ! \"), which can break or change the command; \
                 consider `node <path-to-the-package's-bin.js>` instead of the shim",
                risky.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ")
            ));
        }
    }
    // Fail early (before reading the file) when the client cannot take this entry.
    dialect.to_raw(&entry).map_err(|e| entry_error(e, client))?;
    let path = location.path.clone();
    // The entry as last written by the closure below (it may run again after a
    // concurrent write), for the ledger.
    let written: std::cell::RefCell<Option<Value>> = std::cell::RefCell::new(None);
    let outcome = edit::apply(ctx, client, &location, dry_run, &|doc| {
        let existing = doc
            .servers(&location.key)?
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, raw)| raw);
        let raw = match existing {
            None => dialect.to_raw(&entry).map_err(|e| entry_error(e, client))?,
            Some(old_raw) => {
                let old = dialect.from_raw(&old_raw);
                if old.as_ref().is_ok_and(|old| old.same_as(&entry)) {
                    return Ok(Edit::Unchanged);
                }
                if !force {
                    return Err(UserError::new(format!(
                        "`{name}` already exists in {} with different content\n  existing: {}\n  new:      {}",
                        client.name,
                        redact_raw(&old_raw),
                        redact_raw(&dialect.to_raw(&entry).map_err(|e| entry_error(e, client))?),
                    ))
                    .hint("pass `--force` to replace it (fields mcpctl does not manage are kept), or pick another name")
                    .into());
                }
                // Keep the client's own fields (autoApprove, timeout, ...) on replace.
                let mut merged = entry.clone();
                if let Ok(old) = old {
                    let mut extras = old.extras;
                    extras.extend(entry.extras.clone());
                    merged.extras = extras;
                }
                dialect
                    .to_raw(&merged)
                    .map_err(|e| entry_error(e, client))?
            }
        };
        let edit = doc.upsert(&location.key, name, &raw)?;
        *written.borrow_mut() = Some(raw);
        Ok(edit)
    })?;
    if !dry_run
        && matches!(outcome.action, Action::Added | Action::Updated)
        && let Some(fingerprint) = written
            .borrow()
            .as_ref()
            .and_then(|raw| ledger::fingerprint_raw(&dialect, raw))
    {
        ctx.state.record(
            edit::entry_key(&location, name),
            fingerprint,
            Origin::add(),
            outcome.created,
        )?;
    }
    Ok((edit::shown(ctx, &path), outcome, notes))
}

fn entry_error(e: entry::EntryError, client: &Client) -> anyhow::Error {
    let hint = match &e {
        entry::EntryError::Unsupported { hint: Some(h), .. } => h.clone(),
        entry::EntryError::Unsupported { .. } => format!(
            "{} supports: {}",
            client.name,
            client
                .fields
                .transports
                .iter()
                .map(|t| t.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => "fix the entry and run the command again".to_owned(),
    };
    UserError::new(e.to_string()).hint(hint).into()
}

/// Spell `${VAR}` references the way the client expands them (`${env:VAR}` for Cursor
/// and VS Code, `{env:VAR}` for OpenCode). Codex expands none; its dialect turns
/// whole-value references into pass-through fields (`env_vars`, `env_http_headers`,
/// `bearer_token_env_var`). Returns what cannot be said in the client's terms, as warnings.
fn for_client_vars(entry: &ServerEntry, client: &Client) -> (ServerEntry, Vec<String>) {
    let mut entry = entry.clone();
    let mut notes = Vec::new();
    let env_refs = |s: &str| {
        vars::references(s)
            .into_iter()
            .any(|r| r.syntax != vars::Syntax::Input)
    };
    let strings: Vec<String> = match &entry.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => std::iter::once(command)
            .chain(args)
            .chain(env.values())
            .chain(cwd)
            .cloned()
            .collect(),
        Transport::Remote { url, headers, .. } => std::iter::once(url)
            .chain(headers.values())
            .cloned()
            .collect(),
    };
    if !strings.iter().any(|s| env_refs(s)) {
        return (entry, notes);
    }
    let Some(syntax) = client.fields.var_syntax else {
        notes.push(format!(
            "mcpctl does not know whether {} expands `${{VAR}}` references; they are written as given",
            client.name
        ));
        return (entry, notes);
    };
    if syntax != VarSyntax::Codex {
        let respell = |s: &mut String| *s = vars::respell(s, syntax);
        match &mut entry.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                respell(command);
                args.iter_mut().for_each(respell);
                env.values_mut().for_each(respell);
                cwd.iter_mut().for_each(respell);
            }
            Transport::Remote { url, headers, .. } => {
                respell(url);
                headers.values_mut().for_each(respell);
            }
        }
        return (entry, notes);
    }
    // Codex: no expansion at all. The dialect turns whole-value references to a variable
    // (of the same name, for env) into pass-through fields; anything else stays literal.
    let passes = |s: &str| vars::sole_reference(s).is_some();
    let mut literal = Vec::new();
    match &entry.transport {
        Transport::Stdio {
            command, args, env, ..
        } => {
            literal.extend(
                env.iter()
                    .filter(|(k, v)| {
                        env_refs(v) && vars::sole_reference(v).as_deref() != Some(k.as_str())
                    })
                    .map(|(k, _)| format!("env `{k}`")),
            );
            literal.extend(
                std::iter::once(command)
                    .chain(args)
                    .filter(|s| env_refs(s))
                    .map(|s| format!("`{s}`")),
            );
        }
        Transport::Remote { url, headers, .. } => {
            literal.extend(
                headers
                    .iter()
                    .filter(|(k, v)| {
                        let bearer = k.eq_ignore_ascii_case("authorization")
                            && v.strip_prefix("Bearer ").is_some_and(passes);
                        env_refs(v) && !passes(v) && !bearer
                    })
                    .map(|(k, _)| format!("header `{k}`")),
            );
            if env_refs(url) {
                literal.push("the URL".to_owned());
            }
        }
    }
    if !literal.is_empty() {
        notes.push(format!(
            "Codex expands no variables: {} will hold the `${{...}}` text literally; use a whole-value reference to a variable of the same name instead",
            literal.join(", ")
        ));
    }
    (entry, notes)
}

/// Wrap npm-style shims as `cmd /c` for Windows targets that need it.
fn for_platform(entry: &ServerEntry, os: Os, fields: &Fields, no_wrap: bool) -> ServerEntry {
    let mut entry = entry.clone();
    if os == Os::Windows
        && fields.wrap_windows
        && !no_wrap
        && let Transport::Stdio { command, args, .. } = &mut entry.transport
    {
        let (c, a) = entry::wrap(command, args);
        *command = c;
        *args = a;
    }
    entry
}

pub fn report(
    ctx: &Context,
    client: &Client,
    scope: crate::clients::Scope,
    result: anyhow::Result<(String, edit::Outcome)>,
) -> FileReport {
    match result {
        Ok((path, outcome)) => FileReport {
            client: client.id.clone(),
            path,
            action: outcome.action,
            error: None,
            hint: None,
            diff: outcome.diff,
        },
        Err(error) => FileReport {
            client: client.id.clone(),
            path: client
                .location(scope, &ctx.platform, &ctx.project)
                .ok()
                .flatten()
                .map(|l| edit::shown(ctx, &l.path))
                .unwrap_or_default(),
            action: Action::Failed,
            error: Some(error.to_string()),
            hint: crate::error::hint_of(&error).map(str::to_owned),
            diff: None,
        },
    }
}

/// Print every file's outcome; exit 2 if any failed.
pub fn print_reports(
    printer: &mut Printer,
    reports: &[FileReport],
    dry_run: bool,
) -> anyhow::Result<ExitStatus> {
    let failed = reports.iter().any(|r| r.action == Action::Failed);
    if printer.json {
        printer.json_value(&reports)?;
    } else {
        for r in reports {
            if let Some(diff) = &r.diff {
                printer.raw(diff);
            }
        }
        for r in reports {
            let verb = match (r.action, dry_run) {
                (Action::Added, true) => "would add",
                (Action::Updated, true) => "would update",
                (Action::Removed, true) => "would remove",
                (Action::Added, false) => "added",
                (Action::Updated, false) => "updated",
                (Action::Removed, false) => "removed",
                (Action::Unchanged, _) => "unchanged",
                (Action::Failed, _) => "failed",
            };
            let style = match r.action {
                Action::Failed => crate::output::Style::Fail,
                Action::Unchanged => crate::output::Style::Dim,
                _ => crate::output::Style::Ok,
            };
            // Pad before painting: escape codes would count toward the width.
            let mut line = format!(
                "{} {:<16} {}",
                printer.paint(style, &format!("{verb:<12}")),
                r.client,
                r.path
            );
            if let Some(error) = &r.error {
                line = format!(
                    "{} {:<16} {error}",
                    printer.paint(style, &format!("{verb:<12}")),
                    r.client
                );
                if let Some(hint) = &r.hint {
                    line.push_str(&format!("\n{:29}hint: {hint}", ""));
                }
            }
            printer.line(&line);
        }
        if dry_run {
            printer.note("dry run: nothing was written");
        }
    }
    Ok(if failed {
        ExitStatus::Error
    } else {
        ExitStatus::Success
    })
}

fn parse_pairs(pairs: &[String], what: &str, separators: &[char]) -> anyhow::Result<StringMap> {
    let mut out = StringMap::new();
    for pair in pairs {
        let Some(at) = pair.find(separators) else {
            return Err(UserError::new(format!("`{pair}` is not KEY=VALUE"))
                .hint(format!("write the {what} as `--{what} KEY=VALUE`"))
                .into());
        };
        let key = pair[..at].trim();
        if key.is_empty() {
            return Err(UserError::new(format!("`{pair}` has an empty key"))
                .hint(format!("write the {what} as `--{what} KEY=VALUE`"))
                .into());
        }
        out.insert(key.to_owned(), pair[at + 1..].trim_start().to_owned());
    }
    Ok(out)
}

fn looks_like_entry(map: &Map<String, Value>) -> bool {
    spelling::looks_like_entry(map.keys().map(String::as_str))
}

/// The entry in a `--from-json` snippet, and its name.
fn entry_from_json(name: String, json: &str) -> anyhow::Result<(String, Value)> {
    let value: Value = serde_json::from_str(json).map_err(|e| {
        UserError::new(format!("`--from-json` is not valid JSON at {}:{}: {e}", e.line(), e.column()))
            .hint("quote the JSON for your shell, e.g. --from-json '{\"command\":\"npx\",\"args\":[\"-y\",\"pkg\"]}'")
    })?;
    let Value::Object(map) = &value else {
        return Err(UserError::new("`--from-json` must be a JSON object")
            .hint("pass the entry, or a `{\"mcpServers\":{...}}` snippet")
            .into());
    };
    if looks_like_entry(map) {
        return Ok((name, value));
    }
    let servers = spelling::SERVERS_KEYS
        .iter()
        .find_map(|k| map.get(*k).and_then(Value::as_object))
        .or_else(|| {
            map.values()
                .all(|v| v.as_object().is_some_and(looks_like_entry))
                .then_some(map)
        })
        .ok_or_else(|| {
            UserError::new("`--from-json` holds no server entry").hint(
                "pass `{\"command\":...}`, `{\"url\":...}` or a `{\"mcpServers\":{...}}` snippet",
            )
        })?;
    if let Some(entry) = servers.get(&name) {
        return Ok((name, entry.clone()));
    }
    match servers.iter().collect::<Vec<_>>().as_slice() {
        [(_, entry)] => Ok((name, (*entry).clone())),
        [] => Err(UserError::new("`--from-json` has an empty servers map")
            .hint("pass a snippet with one server")
            .into()),
        many => Err(UserError::new(format!(
            "`--from-json` has {} servers and none is named `{name}`",
            many.len()
        ))
        .hint(format!(
            "name one of: {}",
            many.iter()
                .map(|(k, _)| k.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .into()),
    }
}

#[expect(clippy::too_many_arguments, reason = "the flags that shape an entry")]
fn build_entry(
    name: String,
    env: &[String],
    headers: &[String],
    cwd: Option<String>,
    url: Option<String>,
    transport: Option<RemoteKind>,
    from_json: Option<&str>,
    command: Vec<String>,
) -> anyhow::Result<(String, ServerEntry)> {
    let env = parse_pairs(env, "env", &['='])?;
    let headers = parse_pairs(headers, "header", &['=', ':'])?;
    let how_many = usize::from(from_json.is_some())
        + usize::from(url.is_some())
        + usize::from(!command.is_empty());
    if how_many != 1 {
        return Err(UserError::new(if how_many == 0 {
            "say what to run"
        } else {
            "give only one of `-- COMMAND`, `--url` and `--from-json`"
        })
        .hint("`mcpctl add NAME -c ID -- npx -y PACKAGE`, `--url https://...`, or `--from-json '{...}'`")
        .into());
    }
    let (name, mut entry) = if let Some(json) = from_json {
        let (name, raw) = entry_from_json(name, json)?;
        let fields = Fields::default();
        let reader = Dialect {
            name: crate::clients::DialectName::Standard,
            fields: &fields,
            client: "--from-json",
            remote_hint: None,
        };
        let entry = reader.from_raw(&raw).map_err(|e| {
            UserError::new(format!("`--from-json`: {e}"))
                .hint("the entry needs `command` (and `args`) or `url`")
        })?;
        (name, entry)
    } else if let Some(url) = url {
        let entry = ServerEntry {
            transport: Transport::Remote {
                url,
                kind: transport.unwrap_or(RemoteKind::Http),
                headers: StringMap::new(),
            },
            extras: Map::new(),
        };
        (name, entry)
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
        (name, entry)
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
    Ok((name, entry))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_json_accepts_entry_and_snippets() {
        let (_, v) = entry_from_json("x".into(), r#"{"command":"npx","args":["-y","p"]}"#).unwrap();
        assert_eq!(v["command"], "npx");
        let (_, v) =
            entry_from_json("x".into(), r#"{"mcpServers":{"fs":{"command":"npx"}}}"#).unwrap();
        assert_eq!(v["command"], "npx");
        let (_, v) = entry_from_json(
            "b".into(),
            r#"{"servers":{"a":{"url":"u1"},"b":{"url":"u2"}}}"#,
        )
        .unwrap();
        assert_eq!(v["url"], "u2");
        assert!(
            entry_from_json(
                "c".into(),
                r#"{"servers":{"a":{"url":"u1"},"b":{"url":"u2"}}}"#
            )
            .is_err()
        );
        let (_, v) = entry_from_json("x".into(), r#"{"fs":{"command":"npx"}}"#).unwrap();
        assert_eq!(v["command"], "npx");
        assert!(entry_from_json("x".into(), "[1]").is_err());
        assert!(entry_from_json("x".into(), "{").is_err());
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
