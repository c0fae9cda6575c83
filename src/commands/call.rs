//! `mcpctl call NAME TOOL [--arg K=V]... [--args JSON]`: start one configured server as
//! `doctor` does, check the tool exists and type the arguments by its input schema, call
//! it, and print its text content (`--json`: the whole result, `structuredContent`
//! included). Exit 1 when the tool reports `isError`, 2 on usage or protocol errors.

use serde_json::{Map, Value};

use crate::cli::CallArgs;
use crate::doctor::probe::{exchange, failed, resolve};
use crate::error::{ExitStatus, UserError};
use crate::handshake::{ProbeError, ToolCall, clean_text, printable_lines};
use crate::output::{Block, Paint, Printer, Report};
use crate::session::Context;

pub fn run(args: CallArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let call = tool_call(&args)?;
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
    let probe = exchange(printer, &resolved, Some(&call));
    if let Some(failure @ (ProbeError::UnknownTool { .. } | ProbeError::BadArgument { .. })) =
        &probe.failure
    {
        return Err(UserError::new(clean_text(&failure.to_string()))
            .hint(format!(
                "`mcpctl tools {} -c {}` lists the tools and their parameters",
                resolved.name, resolved.client
            ))
            .into());
    }
    let Some(result) = probe
        .call_result
        .as_ref()
        .filter(|_| probe.failure.is_none())
    else {
        return Err(failed(&resolved, &probe, "call"));
    };
    printer.emit(&CallReport {
        result: result.clone(),
        tool: clean_text(&call.tool),
    })
}

/// The tool's result (`--json`: exactly as the server sent it).
struct CallReport {
    result: Value,
    /// The tool called (printable).
    tool: String,
}

impl CallReport {
    /// The tool said the call failed (`isError`): exit 1.
    fn is_error(&self) -> bool {
        self.result.get("isError").and_then(Value::as_bool) == Some(true)
    }
}

impl Report for CallReport {
    fn json(&self) -> serde_json::Result<Value> {
        Ok(self.result.clone())
    }

    fn human(&self, _paint: Paint) -> Vec<Block> {
        let mut blocks: Vec<Block> = content(&self.result).into_iter().map(Block::Line).collect();
        if self.is_error() {
            blocks.push(Block::Warning(format!(
                "`{}` reported an error (isError)",
                self.tool
            )));
        }
        blocks
    }

    fn status(&self) -> ExitStatus {
        if self.is_error() {
            ExitStatus::Problems
        } else {
            ExitStatus::Success
        }
    }
}

/// The call as the flags describe it; malformed flags are usage errors.
fn tool_call(args: &CallArgs) -> anyhow::Result<ToolCall> {
    let json = match &args.args_json {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => map,
            Ok(_) => {
                return Err(UserError::new("--args must be a JSON object")
                    .hint(r#"for example --args '{"path": "/tmp", "depth": 2}'"#)
                    .into());
            }
            Err(error) => {
                return Err(UserError::new(format!(
                    "--args is not valid JSON: {error} (line {}, column {})",
                    error.line(),
                    error.column()
                ))
                .hint(r#"quote it for your shell: --args '{"key": "value"}'"#)
                .into());
            }
        },
    };
    let mut pairs = Vec::with_capacity(args.args.len());
    for arg in &args.args {
        match arg.split_once('=') {
            Some((key, value)) if !key.is_empty() => {
                pairs.push((key.to_owned(), value.to_owned()));
            }
            _ => {
                return Err(UserError::new(format!("--arg `{arg}` is not KEY=VALUE"))
                    .hint("for example --arg path=/tmp --arg depth=2")
                    .into());
            }
        }
    }
    Ok(ToolCall {
        tool: args.tool.clone(),
        args: pairs,
        json,
    })
}

/// The content blocks a person can read, a line each: text as is, other blocks named;
/// with no text at all, `structuredContent` as JSON.
fn content(result: &Value) -> Vec<String> {
    let blocks = result
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut lines = Vec::new();
    for block in blocks {
        let text = |key: &str| block.get(key).and_then(Value::as_str);
        let line = match text("type") {
            Some("text") => text("text").map(printable_lines),
            Some(kind @ ("image" | "audio")) => Some(format!(
                "[{kind}: {}, {} bytes of base64]",
                clean_text(text("mimeType").unwrap_or("unknown type")),
                text("data").map_or(0, str::len)
            )),
            Some("resource") => {
                let resource = block.get("resource");
                let field = |key: &str| resource.and_then(|r| r.get(key)).and_then(Value::as_str);
                field("text").map(printable_lines).or_else(|| {
                    Some(format!(
                        "[resource: {}]",
                        clean_text(field("uri").unwrap_or("(no uri)"))
                    ))
                })
            }
            Some("resource_link") => Some(format!(
                "[link: {}]",
                clean_text(text("uri").unwrap_or("(no uri)"))
            )),
            Some(other) => Some(format!("[{} content]", clean_text(other))),
            None => None,
        };
        lines.extend(line);
    }
    if lines.is_empty()
        && let Some(structured) = result.get("structuredContent")
        && let Ok(text) = serde_json::to_string_pretty(structured)
    {
        lines.push(printable_lines(&text));
    }
    lines
}
