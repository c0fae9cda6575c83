//! How one server's verdict reads as a row: its mark, its `client/name` label padded so
//! rows printed one at a time line up, the detail, and under a failure the telling
//! lines of its stderr.

use crate::clients::Scope;
use crate::doctor::probe::{DoctorResult, Status};
use crate::handshake;
use crate::output::{Block, Paint, Style};

/// Lines of stderr shown under a failed server in the human report.
const STDERR_LINES: usize = 8;

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The mark and colour of a verdict.
pub(crate) fn mark_of(status: Status) -> (&'static str, Style) {
    match status {
        Status::Ok => ("✔", Style::Ok),
        Status::Warn => ("⚠", Style::Warn),
        Status::Fail => ("✘", Style::Fail),
        Status::Skipped => ("-", Style::Dim),
    }
}

/// `client/name`, with the read-only source it comes from.
fn label_of(r: &DoctorResult) -> String {
    match &r.origin {
        Some(o) => format!(
            "{}/{} [read-only: {} {}]",
            r.client,
            r.name,
            o["kind"].as_str().unwrap_or_default(),
            o["name"].as_str().unwrap_or_default()
        ),
        // `doctor URL`: an endpoint of no client.
        None if r.client.is_empty() => r.name.clone(),
        None => format!("{}/{}{}", r.client, r.name, scope_suffix(r.scope)),
    }
}

/// ` (project)`, ` (local)`: the scope of a row, unless it is the user's own file.
fn scope_suffix(scope: Scope) -> String {
    if scope == Scope::User {
        String::new()
    } else {
        format!(" ({})", scope.as_str())
    }
}

/// Width of the widest row label, so rows printed one at a time still line up.
fn label_width(results: &[DoctorResult]) -> usize {
    results
        .iter()
        .map(|r| label_of(r).chars().count())
        .max()
        .unwrap_or(0)
}

/// How one server's row looks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rows {
    /// Labels are padded to this width.
    width: usize,
    no_spawn: bool,
    /// The terminal's width (`None`: do not wrap).
    columns: Option<usize>,
}

impl Rows {
    /// Rows for `results`, labels padded to the widest of them.
    pub(crate) fn new(results: &[DoctorResult], no_spawn: bool, columns: Option<usize>) -> Rows {
        Rows {
            width: label_width(results),
            no_spawn,
            columns,
        }
    }

    /// The verdict line for one server, and under a failure the telling lines of its
    /// stderr.
    pub(crate) fn row(&self, r: &DoctorResult, paint: Paint) -> Vec<Block> {
        let (mark, style) = mark_of(r.status);
        let label = if r.name.is_empty() {
            format!("{} ({})", r.client, paint.path(&r.path))
        } else {
            label_of(r)
        };
        let detail = match r.status {
            Status::Ok if r.server_name.is_some() => {
                let mut parts = vec![format!(
                    "{}{}",
                    r.server_name.clone().unwrap_or_default(),
                    r.server_version
                        .as_ref()
                        .map(|v| format!(" {v}"))
                        .unwrap_or_default()
                )];
                parts.extend(r.protocol_version.as_ref().map(|v| match r.protocol_era {
                    Some(era) => format!("{era} {v}"),
                    None => v.clone(),
                }));
                if let Some(t) = r.tools {
                    let cost = r
                        .tokens
                        .map(|n| format!(" ≈ {n} tokens"))
                        .unwrap_or_default();
                    parts.push(format!("{t} tool{}{cost}", plural(t)));
                }
                if let Some(ms) = r.elapsed_ms {
                    parts.push(format!("{ms} ms"));
                }
                // Through the bridge with mcpctl's sign-in: until when the token holds.
                if let Some(signed) = r
                    .checks
                    .iter()
                    .find(|c| c.check == "sign-in" && c.status == Status::Ok)
                {
                    parts.push(match signed.message.split_once("; the ") {
                        Some((_, expiry)) => format!("signed in, {expiry}"),
                        None => "signed in".to_owned(),
                    });
                }
                parts.join(" · ")
            }
            Status::Ok => format!(
                "{} · static checks passed{}",
                r.target,
                if self.no_spawn {
                    " (not started: --no-spawn)"
                } else {
                    ""
                }
            ),
            // One finding per line (joined with `;` they read as one sentence).
            _ => r
                .checks
                .iter()
                .filter(|c| c.status == r.status)
                .map(|c| paint.text(&c.message))
                .collect::<Vec<_>>()
                .join("\n"),
        };
        let width = self.width;
        // Each finding starts under the first and wraps within the terminal.
        let indent = width + 4;
        let fit = self.columns.map(|c| c.saturating_sub(indent).max(30));
        let mut lines: Vec<String> = Vec::new();
        for finding in detail.lines() {
            match fit {
                Some(fit) => lines.extend(crate::output::wrap(finding, fit)),
                None => lines.push(finding.to_owned()),
            }
        }
        let mut text = format!(
            "{} {label:<width$}  {}",
            paint.paint(style, mark),
            lines.first().map_or("", String::as_str)
        );
        for line in lines.iter().skip(1) {
            text.push('\n');
            text.push_str(&" ".repeat(indent));
            text.push_str(line);
        }
        let mut blocks = vec![Block::Line(text.trim_end().to_owned())];
        // What changed in each tool's description since the lock (sanitized as made).
        for changed in r.lock.iter().flat_map(|l| &l.changes.changed) {
            for line in changed.description_diff.iter().flat_map(|d| d.lines()) {
                let style = match line.chars().next() {
                    Some('+') if !line.starts_with("+++") => Style::Ok,
                    Some('-') if !line.starts_with("---") => Style::Fail,
                    _ => Style::Dim,
                };
                blocks.push(Block::Line(paint.paint(style, &format!("    {line}"))));
            }
        }
        if r.status == Status::Fail && !r.stderr_tail.is_empty() {
            for line in &handshake::stderr_excerpt(&r.stderr_tail, STDERR_LINES) {
                blocks.push(Block::Line(
                    paint.paint(Style::Dim, &format!("    │ {line}")),
                ));
            }
        }
        blocks
    }
}
