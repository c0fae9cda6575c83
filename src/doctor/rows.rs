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

/// What a server that answered the handshake said: its name and version, the protocol,
/// its tools and what they cost, how long it took (and until when a sign-in holds).
fn handshake_summary(r: &DoctorResult) -> String {
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
            .map(|n| format!(" ≈ {} tokens", crate::output::thousands(n)))
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
    // Wrapped, a line breaks between parts only (never `57` / `ms`): each
    // part's spaces, and the one before `·`, are no-break spaces until printed.
    parts
        .iter()
        .map(|p| p.replace(' ', "\u{a0}"))
        .collect::<Vec<_>>()
        .join("\u{a0}· ")
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

    /// What one server's row says, before it is laid out (rows that say the same are
    /// printed as one, see `group`).
    pub(crate) fn piece(&self, r: &DoctorResult, paint: Paint) -> Piece {
        let label = if r.name.is_empty() {
            format!("{} ({})", r.client, paint.path(&r.path))
        } else {
            label_of(r)
        };
        let detail = match r.status {
            Status::Ok if r.server_name.is_some() => handshake_summary(r),
            Status::Ok => format!(
                "{} · static checks passed{}",
                r.target,
                if self.no_spawn {
                    " (not started: --no-spawn)"
                } else {
                    ""
                }
            ),
            // One finding per line (joined with `;` they read as one sentence). A
            // warning does not hide the handshake: what the server answered comes first.
            _ => (r.status == Status::Warn && r.server_name.is_some())
                .then(|| handshake_summary(r))
                .into_iter()
                .chain(
                    r.checks
                        .iter()
                        .filter(|c| c.status == r.status)
                        .map(|c| paint.text(&c.message))
                        .fold(Vec::<String>::new(), |mut said, message| {
                            // The same finding twice (two checks that see it) is said once.
                            if !said.contains(&message) {
                                said.push(message);
                            }
                            said
                        }),
                )
                .collect::<Vec<_>>()
                .join("\n"),
        };
        // What changed in each tool's description since the lock (sanitized as made).
        let mut extra = Vec::new();
        for changed in r.lock.iter().flat_map(|l| &l.changes.changed) {
            for line in changed.description_diff.iter().flat_map(|d| d.lines()) {
                let style = match line.chars().next() {
                    Some('+') if !line.starts_with("+++") => Style::Ok,
                    Some('-') if !line.starts_with("---") => Style::Fail,
                    _ => Style::Dim,
                };
                extra.push(Block::Line(paint.paint(style, &format!("    {line}"))));
            }
        }
        let stderr = if r.status == Status::Fail && !r.stderr_tail.is_empty() {
            handshake::stderr_excerpt(&r.stderr_tail, STDERR_LINES)
        } else {
            Vec::new()
        };
        Piece {
            name: r.name.clone(),
            label,
            client: format!("{}{}", r.client, scope_suffix(r.scope)),
            status: r.status,
            detail,
            stderr,
            extra,
        }
    }

    /// The row of servers that say the same (`group`): one label for all, the detail
    /// and the stderr tail once.
    pub(crate) fn render(&self, same: &[Piece], paint: Paint) -> Vec<Block> {
        let Some(first) = same.first() else {
            return Vec::new();
        };
        let (mark, style) = mark_of(first.status);
        let label = match same {
            [one] => one.label.clone(),
            _ if same
                .iter()
                .all(|p| p.name == first.name && !p.name.is_empty()) =>
            {
                format!(
                    "{} in {} clients ({})",
                    first.name,
                    same.len(),
                    same.iter()
                        .map(|p| p.client.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
            _ => same
                .iter()
                .map(|p| p.label.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        };
        let detail = &first.detail;
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
        // A label wider than the column (a file's row names its path) goes on a line of
        // its own, so no line is wider than the terminal.
        let own_line = label.chars().count() > width;
        let mut text = if own_line {
            let label = match self.columns {
                Some(columns) => {
                    crate::output::wrap(&label, columns.saturating_sub(2).max(30)).join("\n  ")
                }
                None => label,
            };
            format!("{} {label}", paint.paint(style, mark))
        } else {
            format!(
                "{} {label:<width$}  {}",
                paint.paint(style, mark),
                lines.first().map_or("", String::as_str)
            )
        };
        for line in lines.iter().skip(usize::from(!own_line)) {
            text.push('\n');
            text.push_str(&" ".repeat(indent));
            text.push_str(line);
        }
        // `57 ms` is kept together by a no-break space while wrapping; printed, a space.
        let text = text.replace('\u{a0}', " ");
        let mut blocks = vec![Block::Line(text.trim_end().to_owned())];
        blocks.extend(first.extra.iter().cloned());
        for line in &first.stderr {
            blocks.push(Block::Line(
                paint.paint(Style::Dim, &format!("    │ {line}")),
            ));
        }
        blocks
    }
}

/// One server's row, laid out by `Rows::render`.
#[derive(Debug, Clone)]
pub(crate) struct Piece {
    pub(crate) name: String,
    label: String,
    /// The client (and scope) alone, for a row of several clients.
    client: String,
    pub(crate) status: Status,
    detail: String,
    stderr: Vec<String>,
    extra: Vec<Block>,
}

impl Piece {
    /// The same failure, worded and told (stderr) alike: one row says it for both.
    fn same_failure(&self, other: &Piece) -> bool {
        self.status == Status::Fail
            && other.status == Status::Fail
            && self.detail == other.detail
            && self.stderr == other.stderr
            && self.extra.is_empty()
            && other.extra.is_empty()
    }
}

/// `pieces` in order, identical failures together (`✘ filesystem in 6 clients (…)`),
/// each group where its first piece was.
pub(crate) fn group(pieces: Vec<Piece>) -> Vec<Vec<Piece>> {
    let mut groups: Vec<Vec<Piece>> = Vec::new();
    for piece in pieces {
        match groups
            .iter_mut()
            .find(|g| g.first().is_some_and(|f| f.same_failure(&piece)))
        {
            Some(group) => group.push(piece),
            None => groups.push(vec![piece]),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_text(blocks: &[Block]) -> String {
        blocks
            .iter()
            .map(|b| match b {
                Block::Line(text) => text.clone(),
                other => format!("{other:?}"),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Issue 40: a wrapped ok row split `· 57 ms` so that `ms` stood alone on a line; it
    /// breaks between parts only, and no line is wider than the terminal.
    #[test]
    fn an_ok_row_wraps_between_parts_never_inside_one() {
        let mut r = DoctorResult::empty(
            "cursor",
            Scope::User,
            "memory".to_owned(),
            std::path::PathBuf::from("/x"),
        );
        r.server_name = Some("memory-server".to_owned());
        r.server_version = Some("2025.8.4".to_owned());
        r.protocol_version = Some("2025-06-18".to_owned());
        r.tools = Some(9);
        r.tokens = Some(1234);
        r.elapsed_ms = Some(57);
        // Narrower than label + 30 columns, rows do not fit anyway (the detail keeps 30).
        for columns in 48..100 {
            let rows = Rows::new(std::slice::from_ref(&r), false, Some(columns));
            let text = block_text(&rows.render(&[rows.piece(&r, Paint::none())], Paint::none()));
            for line in text.lines() {
                assert!(line.chars().count() <= columns, "{columns}: {text}");
                // `ms` always after its number, `≈` always before its count.
                let words: Vec<&str> = line.split_whitespace().collect();
                for (i, word) in words.iter().enumerate() {
                    if *word == "ms" {
                        assert!(i > 0 && words[i - 1] == "57", "{columns}: {text}");
                    }
                    if *word == "≈" {
                        assert_eq!(words.get(i + 1), Some(&"1,234"), "{columns}: {text}");
                    }
                }
            }
            assert!(text.contains("57 ms") && !text.contains('\u{a0}'), "{text}");
        }
    }
}
