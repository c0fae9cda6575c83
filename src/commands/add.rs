//! `mcpctl add`: build one canonical entry from the flags, then write it into each
//! target client's file in that client's dialect, reporting every file.

use serde_json::{Map, Value};

use crate::check::{pattern_secret, secret_name};
use crate::cli::{AddArgs, TransportArg};
use crate::clients::{Client, Fields, Scope, VarSyntax};
use crate::entry::render::each_string;
use crate::entry::{self, Dialect, RemoteKind, ServerEntry, StringMap, Transport, spelling};
use crate::error::{ExitStatus, UserError};
use crate::output::{Printer, redact};
use crate::platform::Os;
use crate::session::Context;
use crate::session::edit::EditReport;
use crate::session::targets;
use crate::session::write::{
    Flags, Provenance, add_to, parse_pairs, refuse_reserved_name, validate_url,
    warn_unportable_name, with_secrets,
};
use crate::state::Origin;
use crate::vars;

/// Whether `flag` was typed on the command line (before any `--`), as opposed to set
/// from the environment (`MCPCTL_REGISTRY`, which the README suggests exporting).
fn typed(ctx: &Context, flag: &str) -> bool {
    let with_value = format!("{flag}=");
    ctx.argv
        .iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == flag || a.starts_with(&with_value))
}

pub fn run(args: AddArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let AddArgs {
        name,
        stray,
        targets: target_args,
        scope,
        global,
        env,
        headers,
        secrets,
        cwd,
        url,
        transport,
        from_json,
        force,
        dry_run,
        no_wrap,
        command,
        vars,
        package,
        remote,
        entry_name,
        registry,
    } = args;
    if !vars.is_empty()
        || package.is_some()
        || remote
        || entry_name.is_some()
        || (registry.registry.is_some() && typed(ctx, "--registry"))
    {
        return Err(UserError::new(
            "`--var`, `--package`, `--remote`, `--name` and `--registry` are for servers from the MCP Registry",
        )
        .hint(
            "name a registry server (`mcpctl add io.github.owner/server`), or drop those flags to add a server from a command, a URL or `--from-json`",
        )
        .into());
    }
    let scope = if global { Scope::User } else { scope };
    let url = positional_url(
        ctx,
        &stray,
        url,
        transport,
        from_json.is_some() || !command.is_empty(),
    )?;
    let kind = remote_kind(transport, url.as_deref())?;
    // `--dry-run` typed after `--` was almost always meant for mcpctl: writing would be
    // the harmful reading of it, so nothing is written (the diff shows the entry as the
    // server would get it).
    let dry_run = warn_flags_after_dashes(printer, &command) || dry_run;
    let snippet = from_json.as_deref().map(read_json_arg).transpose()?;
    let spec = build_entry(
        name,
        &env,
        &headers,
        cwd,
        url.map(|u| (u, kind)),
        snippet.as_deref(),
        command,
    )?;
    for note in &spec.notes {
        printer.warn(note);
    }
    let Spec {
        name,
        entry,
        inputs,
        ..
    } = spec;
    entry::validate_name(&name)
        .map_err(|m| UserError::new(m).hint("pick a short name such as `github`"))?;
    if let Transport::Remote { url, .. } = &entry.transport {
        validate_url(url)?;
    }
    warn_plaintext_secrets(printer, &entry);
    warn_missing_command(ctx, printer, &entry);
    let entry = with_secrets(ctx, printer, entry, &secrets)?;
    let clients = targets::choose(ctx, &target_args, "add", &|_| true)?;
    refuse_reserved_name(&clients, &name)?;
    let mut report = EditReport::new(dry_run);
    let mut prompted_inputs: Vec<String> = Vec::new();
    for client in clients {
        warn_unportable_name(printer, client, &name);
        let (entry, translated) = for_client_inputs(&entry, client);
        for id in translated {
            if !prompted_inputs.contains(&id) {
                printer.warn(&input_note(&id, &inputs));
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
            &name,
            &entry,
            keep_inputs,
            Flags {
                force,
                dry_run,
                no_wrap,
            },
            &Provenance {
                origin: Origin::add(),
                guard: None,
            },
        )
        .map(|(path, outcome, notes, _)| {
            report.warnings.extend(notes);
            (path, outcome)
        });
        report.push(ctx, client, scope, result);
    }
    printer.emit(&report)
}

/// Words after NAME that are neither flags nor after `--`: a URL, as `claude mcp add
/// --transport http NAME URL` takes it, or a command typed without `--` (an error that
/// shows the corrected line).
fn positional_url(
    ctx: &Context,
    stray: &[String],
    url: Option<String>,
    transport: Option<TransportArg>,
    other_source: bool,
) -> anyhow::Result<Option<String>> {
    if stray.is_empty() {
        return Ok(url);
    }
    if let [one] = stray
        && looks_like_url(one)
        && url.is_none()
        && !other_source
    {
        if transport.and_then(TransportArg::remote).is_some() {
            return Ok(Some(one.clone()));
        }
        let line = corrected_line(&ctx.argv, stray, &["--url".to_owned(), one.clone()], false);
        return Err(UserError::new(format!(
            "`{one}` looks like a remote server's URL, but no remote transport was given"
        ))
        .hint(format!(
            "write `{line}` (or `--transport http NAME URL`, as `claude mcp add` takes it)"
        ))
        .into());
    }
    let line = corrected_line(&ctx.argv, stray, stray, true);
    Err(UserError::new(format!(
        "unexpected `{}` after the server name",
        stray.join(" ")
    ))
    .hint(format!("put the server command after `--`: `{line}`"))
    .into())
}

/// The command line with the `stray` words (found from the right) replaced by
/// `replacement`, in their place or after `--` (added when missing).
fn corrected_line(
    argv: &[String],
    stray: &[String],
    replacement: &[String],
    after_dashes: bool,
) -> String {
    let words: Vec<&String> = argv.iter().skip(1).collect();
    let mut marked = vec![false; words.len()];
    let mut want = stray.iter().rev().peekable();
    for (i, word) in words.iter().enumerate().rev() {
        if want.peek() == Some(word) {
            marked[i] = true;
            want.next();
        }
    }
    let mut out: Vec<String> = vec!["mcpctl".to_owned()];
    let mut placed = false;
    for (i, word) in words.iter().enumerate() {
        if marked[i] {
            if !after_dashes && !placed {
                out.extend(replacement.iter().cloned());
                placed = true;
            }
            continue;
        }
        out.push((*word).clone());
        if after_dashes && *word == "--" && !placed {
            out.extend(replacement.iter().cloned());
            placed = true;
        }
    }
    if !placed {
        out.push("--".to_owned());
        out.extend(replacement.iter().cloned());
    }
    out.iter()
        .map(|w| shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A word as a POSIX shell would need it typed.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

fn looks_like_url(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The remote kind from `--transport` and whether a URL was given.
/// The remote transport: `--transport` when given, else what the URL names (`/sse` is the
/// legacy transport, as `check --fix` infers it too).
fn remote_kind(transport: Option<TransportArg>, url: Option<&str>) -> anyhow::Result<RemoteKind> {
    match (transport, url.is_some()) {
        (Some(TransportArg::Stdio), true) => Err(UserError::new(
            "`--transport stdio` runs a command, but a URL was given",
        )
        .hint("use `--transport http` (or `sse`) for a remote server")
        .into()),
        (Some(t), false) if t.remote().is_some() => Err(UserError::new(format!(
            "`--transport {}` needs the server's URL",
            if t == TransportArg::Http {
                "http"
            } else {
                "sse"
            }
        ))
        .hint("write `mcpctl add NAME -c ID --transport http https://example.com/mcp`")
        .into()),
        (t, _) => Ok(t
            .and_then(TransportArg::remote)
            .unwrap_or_else(|| url.map_or(RemoteKind::Http, RemoteKind::of_url))),
    }
}

/// Long flags of mcpctl's that servers commonly take as well.
const SERVER_FLAGS: &[&str] = &[
    "help", "version", "env", "header", "name", "cwd", "url", "var", "project", "quiet", "color",
    "json", "registry", "timeout",
];

/// `--dry-run` after `--` goes to the server: right, but rarely meant. True when
/// `--dry-run` is among them: the caller writes nothing.
fn warn_flags_after_dashes(printer: &Printer, command: &[String]) -> bool {
    use clap::CommandFactory;
    let cli = crate::cli::Cli::command();
    let ours: Vec<String> = cli
        .get_arguments()
        .chain(
            cli.find_subcommand("add")
                .into_iter()
                .flat_map(|c| c.get_arguments()),
        )
        .filter_map(|a| a.get_long())
        // Servers take these too (`docker run --env`, `--port`): no warning for them.
        .filter(|long| !SERVER_FLAGS.contains(long))
        .map(|long| format!("--{long}"))
        .collect();
    let mut dry_run = false;
    for word in command.iter().skip(1) {
        let flag = word.split('=').next().unwrap_or(word);
        if flag == "--dry-run" {
            dry_run = true;
            printer.warn(
                "`--dry-run` after `--` belongs to the server's command, but nothing is written while it is there: put it before `--` for mcpctl's dry run, or give the entry with `--from-json` if the server takes `--dry-run` itself",
            );
        } else if ours.iter().any(|o| o == flag) {
            printer.warn(&format!(
                "`{flag}` after `--` is passed to the server, not to mcpctl; put it before `--` if you meant mcpctl's"
            ));
        }
    }
    dry_run
}

/// A command that is not on PATH (a typo, a tool not installed yet) is still written (the
/// client may see another PATH), but said now rather than at the first `doctor`. Only
/// for this host's own platform, and not for paths or variable references.
fn warn_missing_command(ctx: &Context, printer: &Printer, entry: &ServerEntry) {
    let Transport::Stdio { command, .. } = &entry.transport else {
        return;
    };
    let plain = !command.is_empty()
        && !command.contains(['/', '\\', '$', '{', '%'])
        && ctx.platform.os == Os::host();
    if plain && !ctx.platform.on_path(command) {
        printer.warn(&format!(
            "`{command}` is not on PATH here: the entry is written, but a client with this PATH cannot start it; install it, or give its full path (`mcpctl doctor` checks again)"
        ));
    }
}

/// Literal secrets given with `-e`/`-H` end up in plain text in every client's file.
fn warn_plaintext_secrets(printer: &Printer, entry: &ServerEntry) {
    let (flag, separator, map) = match &entry.transport {
        Transport::Stdio { env, .. } => ("-e", "=", env),
        Transport::Remote { headers, .. } => ("-H", ": ", headers),
    };
    for (key, value) in map {
        let literal = !value.is_empty() && redact(value) != *value;
        if !literal || !(secret_name(key) || pattern_secret(value).is_some()) {
            continue;
        }
        let variable = vars::input_variable(key);
        let reference = if key.eq_ignore_ascii_case("authorization") {
            format!("Bearer ${{{variable}}}")
        } else {
            format!("${{{variable}}}")
        };
        printer.warn(&format!(
            "the value of `{key}` is written in plain text into each client's file; to keep it out, \
             export {variable} and pass `{flag} '{key}{separator}{reference}'` (mcpctl spells the reference for each client)"
        ));
    }
}

/// `--from-json` text: inline, `-` for stdin, or `@FILE`.
fn read_json_arg(arg: &str) -> anyhow::Result<String> {
    if arg == "-" {
        return std::io::read_to_string(std::io::stdin()).map_err(|e| {
            UserError::new(format!("cannot read `--from-json -` from stdin: {e}"))
                .hint("pipe the JSON in, e.g. `pbpaste | mcpctl add NAME --from-json -`")
                .into()
        });
    }
    if let Some(path) = arg.strip_prefix('@') {
        let source = crate::fs::read_source(std::path::Path::new(path))
            .map_err(|e| UserError::new(e.to_string()).hint("check the path after `@`"))?;
        if !source.exists() {
            return Err(UserError::new(format!("`{path}` does not exist"))
                .hint("give the file with the JSON snippet after `@`")
                .into());
        }
        return Ok(source.text);
    }
    Ok(arg.to_owned())
}

/// VS Code's `${input:id}` prompts exist only where `var_syntax = "vscode"`; elsewhere each
/// becomes a variable reference. Returns the entry and the ids translated.
fn for_client_inputs(entry: &ServerEntry, client: &Client) -> (ServerEntry, Vec<String>) {
    let mut entry = entry.clone();
    let mut ids = Vec::new();
    if client.fields.var_syntax != Some(VarSyntax::Vscode) {
        each_string(&mut entry, &mut |s| {
            let (text, found) = vars::inputs_to_env(s);
            *s = text;
            ids.extend(found);
        });
    }
    (entry, ids)
}

/// Which variable to set for a translated VS Code input, with VS Code's own prompt.
fn input_note(id: &str, inputs: &[Value]) -> String {
    let prompt = inputs
        .iter()
        .find(|i| i.get("id").and_then(Value::as_str) == Some(id))
        .and_then(|i| i.get("description").and_then(Value::as_str))
        .map(|d| format!(" (VS Code asks: \"{d}\")"))
        .unwrap_or_default();
    format!(
        "`${{input:{id}}}` is a VS Code prompt; other clients get a reference to the variable {}{prompt}: set it in the environment the client starts from",
        vars::input_variable(id)
    )
}

fn looks_like_entry(map: &Map<String, Value>) -> bool {
    spelling::looks_like_entry(map.keys().map(String::as_str))
}

/// What `--from-json` yields: the entry, its name, VS Code `inputs`, and notes.
#[derive(Debug)]
struct Snippet {
    name: String,
    raw: Value,
    inputs: Vec<Value>,
    notes: Vec<String>,
}

/// Shell quoting eats the quotes (`{command:npx}`, or `{command:` when it also split the
/// words); text that still has its quotes was quoted right, whatever else is wrong.
fn looks_shell_mangled(text: &str) -> bool {
    let text = text.trim();
    text.starts_with('{') && !text.contains('"')
}

/// Text with its quotes whose brackets never close: the copy stopped early.
fn looks_cut_off(text: &str) -> bool {
    let text = text.trim();
    text.matches('{').count() > text.matches('}').count()
        || text.matches('[').count() > text.matches(']').count()
}

/// The entry in a `--from-json` snippet (JSON or JSONC), and its name: `NAME` when given,
/// else the one server the snippet names.
fn entry_from_json(name: Option<&str>, json: &str) -> anyhow::Result<Snippet> {
    let json = json.trim_start_matches('\u{feff}');
    let value: Value = jsonc_parser::parse_to_serde_value::<Option<Value>>(json, &crate::formats::json_tree::client_jsonc())
        .map_err(|e| {
            let error = UserError::new(format!(
                "`--from-json` is not valid JSON at {}:{}: {}",
                e.line_display(),
                e.column_display(),
                e.kind()
            ));
            if looks_shell_mangled(json) {
                error.hint("the shell ate the quotes: wrap the JSON in single quotes, e.g. --from-json '{\"command\":\"npx\",\"args\":[\"-y\",\"pkg\"]}', or pass `--from-json @file.json`")
            } else if looks_cut_off(json) {
                error.hint("the JSON ends early: a bracket is never closed; copy the whole snippet (or save it and pass `--from-json @file.json`)")
            } else {
                error.hint("fix the JSON at that position, or pass it from a file with `--from-json @file.json`")
            }
        })?
        .unwrap_or(Value::Null);
    let Value::Object(map) = &value else {
        return Err(UserError::new("`--from-json` must be a JSON object")
            .hint("pass the entry, or a `{\"mcpServers\":{...}}` snippet")
            .into());
    };
    let need_name = || {
        UserError::new("the snippet is a single entry without a name")
            .hint("say the name: `mcpctl add NAME --from-json ...`")
    };
    if looks_like_entry(map) {
        let name = name.ok_or_else(need_name)?;
        let raw = value.clone();
        return Ok(Snippet {
            name: name.to_owned(),
            raw,
            inputs: Vec::new(),
            notes: Vec::new(),
        });
    }
    // VS Code's user settings nest the servers and inputs under `mcp`.
    let holder = map
        .get("mcp")
        .and_then(Value::as_object)
        .filter(|m| m.get("servers").is_some_and(Value::is_object))
        .unwrap_or(map);
    let inputs = holder
        .get("inputs")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let servers = spelling::SERVERS_KEYS
        .iter()
        .find_map(|k| holder.get(*k).and_then(Value::as_object))
        .or_else(|| {
            holder
                .values()
                .all(|v| v.as_object().is_some_and(looks_like_entry))
                .then_some(holder)
        })
        .ok_or_else(|| {
            UserError::new("`--from-json` holds no server entry").hint(
                "pass `{\"command\":...}`, `{\"url\":...}` or a `{\"mcpServers\":{...}}` snippet",
            )
        })?;
    let snippet = |name: &str, raw: &Value, notes: Vec<String>| Snippet {
        name: name.to_owned(),
        raw: raw.clone(),
        inputs: inputs.clone(),
        notes,
    };
    if let Some(name) = name
        && let Some(entry) = servers.get(name)
    {
        return Ok(snippet(name, entry, Vec::new()));
    }
    let names = || {
        servers
            .keys()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (servers.iter().collect::<Vec<_>>().as_slice(), name) {
        ([(own, entry)], Some(name)) => Ok(snippet(
            name,
            entry,
            vec![format!(
                "the snippet calls the server `{own}`; adding it as `{name}`"
            )],
        )),
        ([(own, entry)], None) => Ok(snippet(own, entry, Vec::new())),
        ([], _) => Err(UserError::new("`--from-json` has an empty servers map")
            .hint("pass a snippet with one server")
            .into()),
        (many, Some(name)) => Err(UserError::new(format!(
            "`--from-json` has {} servers and none is named `{name}`",
            many.len()
        ))
        .hint(format!("name one of: {}", names()))
        .into()),
        (many, None) => Err(UserError::new(format!(
            "`--from-json` has {} servers: {}",
            many.len(),
            names()
        ))
        .hint("say which one: `mcpctl add NAME --from-json ...`")
        .into()),
    }
}

/// The entry `add` writes, built from the flags or a snippet.
#[derive(Debug)]
struct Spec {
    name: String,
    entry: ServerEntry,
    /// VS Code `inputs` of the snippet.
    inputs: Vec<Value>,
    notes: Vec<String>,
}

fn build_entry(
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
        let snippet = entry_from_json(name.as_deref(), json)?;
        let fields = Fields::default();
        let reader = Dialect {
            name: crate::clients::DialectName::Standard,
            fields: &fields,
            client: "--from-json",
            remote_hint: None,
        };
        let entry = reader.from_raw(&snippet.raw).map_err(|e| {
            UserError::new(format!("`--from-json`: {e}"))
                .hint("the entry needs `command` (and `args`) or `url`")
        })?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_json_accepts_entry_and_snippets() {
        let raw = |name: Option<&str>, json: &str| entry_from_json(name, json).unwrap().raw;
        assert_eq!(
            raw(Some("x"), r#"{"command":"npx","args":["-y","p"]}"#)["command"],
            "npx"
        );
        assert_eq!(
            raw(Some("x"), r#"{"mcpServers":{"fs":{"command":"npx"}}}"#)["command"],
            "npx"
        );
        let two = r#"{"servers":{"a":{"url":"u1"},"b":{"url":"u2"}}}"#;
        assert_eq!(raw(Some("b"), two)["url"], "u2");
        assert!(entry_from_json(Some("c"), two).is_err());
        assert!(entry_from_json(None, two).is_err());
        assert_eq!(
            raw(Some("x"), r#"{"fs":{"command":"npx"}}"#)["command"],
            "npx"
        );
        assert!(entry_from_json(Some("x"), "[1]").is_err());
        assert!(entry_from_json(Some("x"), "{").is_err());
        assert!(entry_from_json(None, r#"{"command":"npx"}"#).is_err());
        let one = entry_from_json(
            None,
            "{\n // a comment\n \"mcpServers\": {\"fs\": {\"command\": \"npx\",},},\n}",
        )
        .unwrap();
        assert_eq!(
            (one.name.as_str(), one.raw["command"].as_str()),
            ("fs", Some("npx"))
        );
        let renamed =
            entry_from_json(Some("files"), r#"{"mcpServers":{"fs":{"command":"npx"}}}"#).unwrap();
        assert_eq!(renamed.name, "files");
        assert!(renamed.notes[0].contains("`fs`"), "{:?}", renamed.notes);
        let vscode = entry_from_json(
            None,
            r#"{"mcp":{"inputs":[{"id":"tok","type":"promptString"}],"servers":{"gh":{"url":"https://x"}}}}"#,
        )
        .unwrap();
        assert_eq!((vscode.name.as_str(), vscode.inputs.len()), ("gh", 1));
    }

    #[test]
    fn only_shell_mangled_json_gets_the_quoting_hint() {
        let hint = |json: &str| {
            crate::error::hint_of(&entry_from_json(Some("x"), json).unwrap_err())
                .unwrap()
                .to_owned()
        };
        assert!(hint("{command:npx}").contains("single quotes"));
        assert!(!hint(r#"{"command": "npx" "args": []}"#).contains("single quotes"));
    }

    #[test]
    fn corrected_line_moves_the_command_after_dashes() {
        let argv: Vec<String> = [
            "/x/mcpctl",
            "add",
            "plain",
            "-c",
            "cursor",
            "node",
            "server.js",
        ]
        .map(String::from)
        .to_vec();
        let stray = ["node".to_owned(), "server.js".to_owned()];
        assert_eq!(
            corrected_line(&argv, &stray, &stray, true),
            "mcpctl add plain -c cursor -- node server.js"
        );
        let argv: Vec<String> = ["mcpctl", "add", "docs", "https://x.dev/mcp", "-c", "a b"]
            .map(String::from)
            .to_vec();
        let stray = ["https://x.dev/mcp".to_owned()];
        assert_eq!(
            corrected_line(
                &argv,
                &stray,
                &["--url".to_owned(), stray[0].clone()],
                false
            ),
            "mcpctl add docs --url https://x.dev/mcp -c 'a b'"
        );
    }

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
