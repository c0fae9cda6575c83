//! `mcpctl tools NAME`: start (or connect to) one configured server exactly as `doctor`
//! does, read every page of `tools/list`, and show each tool's name, the first line of
//! its description, its parameters (required ones marked) and annotations, with the
//! estimated tokens the definitions add to a client's context.

use serde::Serialize;
use serde_json::Value;

use crate::cli::ToolsArgs;
use crate::doctor::probe::{exchange, failed, resolve};
use crate::error::ExitStatus;
use crate::handshake::{self, Era, clean_text, tools::TOKEN_METHOD};
use crate::output::{Block, Paint, Printer, Report, Style};
use crate::session::Context;

/// Longest description line shown, in characters.
const DESCRIPTION_CHARS: usize = 120;

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
    /// Whose capabilities were declared: the `--as` client's id, or `mcpctl` (its own).
    capabilities_of: String,
    /// `--as` named a client whose row records no capabilities, so mcpctl's own were
    /// declared and what that client receives may differ (`null`: no fallback).
    fallback: Option<String>,
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
        args.as_client.as_deref(),
    )?;
    // What the server repeats of the secrets it was given is never printed.
    printer.hide(resolved.launch.passed_secrets(&resolved.options.parent_env));
    let probe = exchange(printer, &resolved, None);
    if probe.failure.is_some() || probe.tools.is_none() {
        return Err(failed(&resolved, &probe, "list"));
    }
    let tokens = probe.tokens.unwrap_or(0);
    let mut warnings = Vec::new();
    if let Some(entry) = &resolved.entry {
        let per_tool = handshake::tools::per_tool_tokens(&probe.tool_definitions);
        let measured = crate::state::tokens::Measurement {
            entry,
            declared: resolved.options.capabilities.as_ref(),
            tokens,
            per_tool,
        };
        if let Err(e) = ctx.state.remember_tokens(&[measured]) {
            warnings.push(format!("could not remember the token estimate: {e}"));
        }
    }
    warnings.extend(probe.warnings.iter().map(|w| clean_text(&w.to_string())));
    warnings.extend(resolved.fallback.clone());
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
        capabilities_of: resolved
            .declared_as
            .clone()
            .unwrap_or_else(|| "mcpctl".to_owned()),
        fallback: resolved.fallback.clone(),
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
            crate::output::thousands(self.tokens)
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
