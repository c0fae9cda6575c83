//! `mcpctl tools NAME`: start (or connect to) one configured server exactly as `doctor`
//! does, read every page of `tools/list`, and show each tool's name, the first line of
//! its description, its parameters (required ones marked) and annotations, with the
//! estimated tokens the definitions add to a client's context.
//!
//! Also home of [`resolve`], which `call` shares: which entry a name means, made
//! runnable by doctor's own static checks.

use serde::Serialize;
use serde_json::Value;

use crate::cli::ToolsArgs;
use crate::clients::Scope;
use crate::commands::doctor;
use crate::commands::inventory::{Found, Inventory, collect_all, display_path};
use crate::commands::{Context, targets};
use crate::error::{ExitStatus, UserError};
use crate::handshake::{self, Era, Launch, Probe, ProbeOptions, clean_text, tools::TOKEN_METHOD};
use crate::output::{Block, Paint, Printer, Report, Style};

/// Longest description line shown, in characters.
const DESCRIPTION_CHARS: usize = 120;

/// The entry a command acts on, runnable here.
pub(crate) struct Resolved {
    pub(crate) client: String,
    pub(crate) name: String,
    pub(crate) launch: Launch,
    pub(crate) options: ProbeOptions,
    /// `options` with the entry's own startup timeout, if its client reads one (Codex
    /// `startup_timeout_sec`): what listing the tools may take, as the client allows.
    /// A `call` keeps `--timeout`, since the tool's own work comes on top.
    pub(crate) startup: ProbeOptions,
    /// The entry as its client reads it (the key of the remembered token estimate).
    pub(crate) entry: Option<crate::entry::ServerEntry>,
}

/// The entry `name` in `client` (or in the detected clients, which must agree on it),
/// from the scope the client uses, made runnable by doctor's static checks — including
/// its trust rule: a project entry the client has not approved is not started unless
/// `trust_project`.
pub(crate) fn resolve(
    ctx: &Context,
    name: &str,
    client: Option<&str>,
    timeout: f64,
    trust_project: bool,
) -> anyhow::Result<Resolved> {
    let options = doctor::probe_options(ctx, timeout)?;
    let clients = match client {
        Some(id) => targets::by_ids(ctx, &[id.to_owned()])?,
        None => targets::detected(ctx),
    };
    let Inventory { found, broken, .. } = collect_all(ctx, &clients, Some(name));
    // Per client: an entry the client loads over one it does not, the user's files over a
    // read-only source (plugin, extension), then the scope that wins (as the client
    // itself resolves a name).
    let rank = |f: &Found<'_>| {
        (
            f.not_loaded.is_none(),
            f.origin.as_ref().is_none_or(|o| o.enabled),
            f.origin.is_none(),
        )
    };
    let mut chosen: Vec<&Found<'_>> = Vec::new();
    for f in &found {
        let best = found
            .iter()
            .filter(|o| o.client.id == f.client.id)
            .map(rank)
            .max();
        if best != Some(rank(f)) {
            continue;
        }
        let wins = found
            .iter()
            .filter(|o| {
                o.client.id == f.client.id && rank(o) == rank(f) && o.scope != Scope::Legacy
            })
            .all(|o| o.scope <= f.scope);
        if wins && !chosen.iter().any(|c| c.client.id == f.client.id) {
            chosen.push(f);
        }
    }
    let Some(first) = chosen.first() else {
        return Err(match broken.first() {
            Some(b) => UserError::new(format!(
                "no server named `{name}` found: `{}` could not be read",
                display_path(ctx, &b.path)
            ))
            .hint(format!("{:#}", b.error))
            .into(),
            None => targets::no_server_named(ctx, &clients, name),
        });
    };
    let differs = chosen
        .iter()
        .any(|c| c.entry.as_ref().ok() != first.entry.as_ref().ok());
    if differs {
        let ids: Vec<&str> = chosen.iter().map(|c| c.client.id.as_str()).collect();
        return Err(UserError::new(format!(
            "`{name}` is configured differently in {}",
            ids.join(", ")
        ))
        .hint(format!("pick one with `-c {}`", ids[0]))
        .into());
    }
    let launch =
        doctor::runnable(ctx, &options, trust_project, first, &found).map_err(|reason| {
            UserError::new(format!(
                "`{name}` in {} cannot be started: {reason}",
                first.client.id
            ))
            .hint(format!(
                "`mcpctl doctor {name} -c {}` shows every check",
                first.client.id
            ))
        })?;
    Ok(Resolved {
        client: first.client.id.clone(),
        name: name.to_owned(),
        launch,
        startup: doctor::entry_options(&options, first),
        options,
        entry: first.entry.as_ref().ok().cloned(),
    })
}

/// Start the server, run the session (and `call`, if given), and say so while it runs.
pub(crate) fn exchange(
    printer: &Printer,
    resolved: &Resolved,
    call: Option<&handshake::ToolCall>,
) -> Probe {
    printer.progress(&format!(
        "starting `{}` from {}…",
        resolved.name, resolved.client
    ));
    let probe = match call {
        Some(call) => handshake::call_launch(&resolved.launch, &resolved.options, call),
        None => handshake::probe_launch(&resolved.launch, &resolved.startup),
    };
    printer.progress_done();
    probe
}

/// The error for a session that failed before it got what the command needs.
pub(crate) fn failed(resolved: &Resolved, probe: &Probe, what: &str) -> anyhow::Error {
    let reason = match (&probe.failure, probe.warnings.first()) {
        (Some(failure), _) => failure.to_string(),
        (None, Some(warning)) => warning.to_string(),
        (None, None) => format!("the server declares no tools, so there is nothing to {what}"),
    };
    let mut error = UserError::new(format!(
        "`{}` ({}): {}",
        resolved.name,
        resolved.client,
        clean_text(&reason)
    ));
    if let Some(last) = probe.stderr_tail.last() {
        error = error.hint(format!(
            "its stderr ends with: {} (`mcpctl doctor {} -c {}` shows more)",
            clean_text(last),
            resolved.name,
            resolved.client
        ));
    }
    error.into()
}

/// What `tools` shows (`--json`: every field but the warnings).
#[derive(Serialize)]
struct ToolsReport {
    client: String,
    name: String,
    server_name: Option<String>,
    server_version: Option<String>,
    protocol_era: Option<Era>,
    protocol_version: Option<String>,
    /// The tools exactly as the server listed them, every page.
    tools: Vec<Value>,
    tokens: usize,
    token_method: &'static str,
    /// What went wrong beside the listing (printable).
    #[serde(skip)]
    warnings: Vec<String>,
}

pub fn run(args: ToolsArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let resolved = resolve(
        ctx,
        &args.name,
        args.client.as_deref(),
        args.timeout,
        args.trust_project,
    )?;
    let probe = exchange(printer, &resolved, None);
    if probe.failure.is_some() || probe.tools.is_none() {
        return Err(failed(&resolved, &probe, "list"));
    }
    let tokens = probe.tokens.unwrap_or(0);
    let mut warnings = Vec::new();
    if let Some(entry) = &resolved.entry {
        let count = probe.tool_definitions.len();
        if let Err(e) = ctx.state.remember_tokens(&[(entry, tokens, count)]) {
            warnings.push(format!("could not remember the token estimate: {e}"));
        }
    }
    warnings.extend(probe.warnings.iter().map(|w| clean_text(&w.to_string())));
    printer.emit(&ToolsReport {
        client: resolved.client,
        name: resolved.name,
        server_name: probe.server_name,
        server_version: probe.server_version,
        protocol_era: probe.protocol_era,
        protocol_version: probe.protocol_version,
        tools: probe.tool_definitions,
        tokens,
        token_method: TOKEN_METHOD,
        warnings,
    })
}

impl Report for ToolsReport {
    fn json(&self) -> serde_json::Result<Value> {
        serde_json::to_value(self)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        let count = self.tools.len();
        let mut header = vec![format!(
            "{}{}",
            clean_text(self.server_name.as_deref().unwrap_or(&self.name)),
            self.server_version
                .as_deref()
                .map(|v| format!(" {}", clean_text(v)))
                .unwrap_or_default()
        )];
        if let (Some(era), Some(version)) = (self.protocol_era, &self.protocol_version) {
            header.push(format!("{era} {version}"));
        }
        header.push(format!(
            "{count} tool{} ≈ {} tokens",
            if count == 1 { "" } else { "s" },
            self.tokens
        ));
        let mut blocks = vec![Block::Line(paint.paint(Style::Bold, &header.join(" · ")))];
        for tool in &self.tools {
            blocks.push(Block::Line(String::new()));
            for (index, line) in describe(tool).into_iter().enumerate() {
                blocks.push(Block::Line(if index == 0 {
                    paint.paint(Style::Bold, &line)
                } else {
                    line
                }));
            }
        }
        blocks.extend(self.warnings.iter().cloned().map(Block::Warning));
        blocks.push(Block::Note(format!("\ntokens: {TOKEN_METHOD}")));
        blocks
    }

    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}

/// A tool as lines: `name [annotations] ≈ N tokens`, the description's first line, then
/// one line per parameter. Every server string is made printable.
fn describe(tool: &Value) -> Vec<String> {
    let name = clean_text(handshake::tools::name_of(tool));
    let mut first = name;
    let tags = annotations(tool);
    if !tags.is_empty() {
        first.push_str(&format!(" [{}]", tags.join(", ")));
    }
    first.push_str(&format!(
        " ≈ {} tokens",
        handshake::tools::estimate_tokens(std::slice::from_ref(tool))
    ));
    let mut lines = vec![first];
    if let Some(line) = tool
        .get("description")
        .and_then(Value::as_str)
        .and_then(|d| d.lines().map(str::trim).find(|l| !l.is_empty()))
    {
        lines.push(format!("  {}", cut(&clean_text(line), DESCRIPTION_CHARS)));
    }
    let schema = tool.get("inputSchema");
    let required: Vec<&str> = schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let properties = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    match properties {
        Some(properties) if !properties.is_empty() => {
            for (key, property) in properties {
                let mut line = format!("    {}: {}", clean_text(key), type_of(property));
                if required.contains(&key.as_str()) {
                    line.push_str(" (required)");
                }
                if let Some(text) = property
                    .get("description")
                    .and_then(Value::as_str)
                    .and_then(|d| d.lines().map(str::trim).find(|l| !l.is_empty()))
                {
                    line.push_str(&format!(" — {}", cut(&clean_text(text), DESCRIPTION_CHARS)));
                }
                lines.push(line);
            }
        }
        _ => lines.push("    (no parameters)".to_owned()),
    }
    lines
}

/// The hints a client shows about a tool: read-only, destructive, idempotent, open-world.
fn annotations(tool: &Value) -> Vec<&'static str> {
    let Some(annotations) = tool.get("annotations") else {
        return Vec::new();
    };
    let hint = |key: &str| annotations.get(key).and_then(Value::as_bool);
    let mut tags = Vec::new();
    if hint("readOnlyHint") == Some(true) {
        tags.push("read-only");
    }
    if hint("destructiveHint") == Some(true) {
        tags.push("destructive");
    }
    if hint("idempotentHint") == Some(true) {
        tags.push("idempotent");
    }
    if hint("openWorldHint") == Some(true) {
        tags.push("open-world");
    }
    tags
}

/// A property's JSON type(s), `any` when the schema does not say.
fn type_of(property: &Value) -> String {
    match property.get("type") {
        Some(Value::String(t)) => clean_text(t),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .map(clean_text)
            .collect::<Vec<_>>()
            .join(" | "),
        _ if property.get("enum").is_some() => "enum".to_owned(),
        _ => "any".to_owned(),
    }
}

fn cut(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(chars - 1).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_tool_is_described_with_parameters_and_annotations() {
        let tool = json!({
            "name": "add",
            "description": "\nAdd two integers.\nMore text.",
            "inputSchema": {"type": "object", "required": ["a"],
                "properties": {"a": {"type": "integer", "description": "first"},
                               "b": {"type": ["number", "null"]}}},
            "annotations": {"readOnlyHint": true, "destructiveHint": false}
        });
        let lines = describe(&tool);
        assert!(lines[0].starts_with("add [read-only] ≈ "), "{lines:?}");
        assert_eq!(lines[1], "  Add two integers.");
        assert_eq!(lines[2], "    a: integer (required) — first");
        assert_eq!(lines[3], "    b: number | null");
        let bare = describe(&json!({"name": "x", "inputSchema": {"type": "object"}}));
        assert_eq!(bare[1], "    (no parameters)");
    }

    #[test]
    fn server_text_cannot_reach_the_terminal_raw() {
        let tool = json!({"name": "evil\u{1b}[2J", "description": "ok\u{7}\r✔ fake"});
        let lines = describe(&tool);
        assert!(
            !lines
                .iter()
                .any(|l| l.contains('\u{1b}') || l.contains('\r') || l.contains('\u{7}')),
            "{lines:?}"
        );
        assert!(lines[0].starts_with("evil ≈ "), "{lines:?}");
        assert_eq!(lines[1], "  ok✔ fake");
    }
}
