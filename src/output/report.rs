//! How a command's result reaches the user: the command builds a report value and returns
//! it; `Printer::emit` prints it. One place decides between `--json` and the human form, so
//! a command never branches on `printer.json` (`check` once, with its reason written there)
//! and every command's errors look the same.
//!
//! The pattern every command follows (`check` and `plan` show formats besides text,
//! `apply` wraps `plan`'s report with its outcome, `doctor` streams its rows):
//!
//! 1. Do the work and collect the result in a struct (rows, outcomes, errors that belong to
//!    one row or file). Keep `anyhow::Error`s as `ErrorText::of(&error)` so their `hint:`
//!    survives; never re-wrap them with `anyhow!("{e}")`.
//! 2. `impl Report` for it: `json` is the documented `--json` shape (derive `Serialize` on
//!    the row type and return `serde_json::to_value(&self.rows)`); `human` returns blocks
//!    (`Table`, `Line`, `Raw` for diffs on stdout; `Note`, `Warning`, `Error` on stderr),
//!    painting cells with the `Paint` it is given; `status` is the exit status.
//! 3. End `run` with `printer.emit(&report)`.
//!
//! Paths stay paths until printing (`--json` shows them absolute, a person sees `~/…` under
//! the home directory): a row holds a `PathBuf` (`#[serde(serialize_with =
//! "output::path_json")]`) that `human` shows with `paint.path`, a diff's header goes
//! through `paint.diff`, and a message built anywhere below names its file with
//! `output::file(path)`, which the printer shows either way. Nothing else decides.
//!
//! With `--json`, stdout holds only the JSON; `Warning`, `Error` and `Aside` blocks still go
//! to stderr (a script sees why a row is missing), `Note`s and the human data do not.
//! Progress lines for long work stay direct `Printer::progress` calls: they are not part of
//! the result. A command whose rows take long to come (`doctor`) may print each row as it
//! is known with `Printer::stream` and leave the rows out of its report's human form.

use std::path::Path;

use serde_json::Value;

use crate::error::ExitStatus;

use super::Style;

/// A command's result, printable as JSON or for a person.
pub trait Report {
    /// What `--json` prints: the command's documented JSON shape.
    fn json(&self) -> serde_json::Result<Value>;
    /// The human form, in order.
    fn human(&self, paint: Paint<'_>) -> Vec<Block>;
    /// The exit status the result means.
    fn status(&self) -> ExitStatus;
}

/// One piece of human output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// An aligned table on stdout. Cells may be painted; widths ignore the colour codes.
    Table {
        header: Vec<&'static str>,
        rows: Vec<Vec<String>>,
    },
    /// One line on stdout.
    Line(String),
    /// Text on stdout exactly as given (diffs, generated documents).
    Raw(String),
    /// A note on stderr, hidden by `--quiet` and `--json`.
    Note(String),
    /// A note on stderr that goes with machine-readable output too (a `--fix` diff beside
    /// `--format json`), hidden by `--quiet`.
    Aside(String),
    /// `warning: ...` on stderr, also with `--json`.
    Warning(String),
    /// `error:` / `caused by:` / `hint:` on stderr, also with `--json`.
    Error(ErrorText),
}

impl Block {
    /// A table of `items`, one row each, its cells from `cells`.
    pub fn table<T>(
        header: Vec<&'static str>,
        items: &[T],
        cells: impl Fn(&T) -> Vec<String>,
    ) -> Block {
        Block::Table {
            header,
            rows: items.iter().map(cells).collect(),
        }
    }

    /// Whether the block goes to stderr even with `--json`.
    pub fn is_diagnostic(&self) -> bool {
        matches!(self, Block::Warning(_) | Block::Error(_) | Block::Aside(_))
    }
}

/// An error as every command shows it: the message, the causes it does not already say,
/// and the first hint in its chain (`error::UserError`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorText {
    pub message: String,
    pub causes: Vec<String>,
    pub hint: Option<String>,
}

impl ErrorText {
    /// The error with its chain and hint.
    pub fn of(error: &anyhow::Error) -> ErrorText {
        let message = error.to_string();
        let mut causes: Vec<String> = Vec::new();
        for cause in error.chain().skip(1) {
            let cause = cause.to_string();
            if !message.contains(&cause) && !causes.iter().any(|c| c.contains(&cause)) {
                causes.push(cause);
            }
        }
        ErrorText {
            message,
            causes,
            hint: crate::error::hint_of(error).map(str::to_owned),
        }
    }

    /// The same error about one thing: `cursor: cannot parse ...`.
    pub fn about(subject: &str, error: &anyhow::Error) -> ErrorText {
        let mut text = ErrorText::of(error);
        text.message = format!("{subject}: {}", text.message);
        text
    }
}

/// Colours text for stdout when colour is on (a terminal without `NO_COLOR`, or
/// `--color always`), and shows paths: `~/…` for a path under the home directory when a
/// person reads the output, absolute under `--json` (a script cannot open `~/…`).
#[derive(Debug, Clone, Copy)]
pub struct Paint<'h> {
    pub(super) enabled: bool,
    /// The home directory whose paths are shown as `~/…`; `None`: every path absolute.
    pub(super) home: Option<&'h Path>,
}

impl Paint<'_> {
    /// No colour, paths absolute (tests, `--json`).
    pub fn none() -> Paint<'static> {
        Paint {
            enabled: false,
            home: None,
        }
    }

    /// The same colours with paths shown against `home` (a painter kept while the
    /// printer is borrowed again: `doctor`'s streamed rows).
    pub fn with_home<'a>(self, home: Option<&'a Path>) -> Paint<'a> {
        Paint {
            enabled: self.enabled,
            home,
        }
    }

    pub fn paint(self, style: Style, text: &str) -> String {
        super::paint(self.enabled, style, text)
    }

    /// `path` as this output shows it: `~/x` under the home directory, else absolute.
    pub fn path(self, path: &Path) -> String {
        if let Some(home) = self.home
            && let Ok(rest) = path.strip_prefix(home)
        {
            return super::tilde(rest);
        }
        path.display().to_string()
    }

    /// A message (an error, a note) with the files it names (`output::file`) shown as
    /// [`Paint::path`] shows a path: before its width is measured or it is wrapped.
    pub fn text(self, text: &str) -> String {
        super::shown_files(self.home, text).into_owned()
    }

    /// Unified diffs (one or several, one after the other) with the paths of their
    /// headers (`--- a/PATH`, `+++ b/PATH` before an `@@` line) shown as [`Paint::path`]
    /// shows them; the lines of the files are left as they are.
    pub fn diff(self, diff: &str) -> String {
        if self.home.is_none() {
            return diff.to_owned();
        }
        let lines: Vec<&str> = diff.split_inclusive('\n').collect();
        let header = |at: usize| {
            lines[at].starts_with("--- ")
                && lines.get(at + 1).is_some_and(|l| l.starts_with("+++ "))
                && lines.get(at + 2).is_some_and(|l| l.starts_with("@@"))
        };
        let mut out = String::with_capacity(diff.len());
        let mut at = 0;
        while at < lines.len() {
            if !header(at) {
                out.push_str(lines[at]);
                at += 1;
                continue;
            }
            for (line, side) in [(lines[at], "a/"), (lines[at + 1], "b/")] {
                let (sign, label) = line.split_at(4);
                let text = label.trim_end_matches(['\n', '\r']);
                out.push_str(sign);
                match text.strip_prefix(side) {
                    Some(path) => {
                        out.push_str(side);
                        out.push_str(&self.path(Path::new(path)));
                    }
                    None => out.push_str(text),
                }
                out.push_str(&label[text.len()..]);
            }
            at += 2;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::UserError;

    #[test]
    fn paint_shows_paths_and_diff_headers_under_home_as_home_relative() {
        // The tilde takes this system's separator (`~\x.json` on Windows).
        let s = std::path::MAIN_SEPARATOR;
        let paint = Paint::none().with_home(Some(Path::new("/home/me")));
        assert_eq!(
            paint.path(&Path::new("/home/me").join(".cursor").join("mcp.json")),
            format!("~{s}.cursor{s}mcp.json")
        );
        assert_eq!(paint.path(Path::new("/etc/x")), "/etc/x");
        assert_eq!(Paint::none().path(Path::new("/home/me/x")), "/home/me/x");
        // The header only: a removed line that looks like one stays as it is.
        let diff = "--- a//home/me/x.json\n+++ b//home/me/x.json\n@@ -1 +1 @@\n--- a//home/me/y\n+\"/home/me/z\"\n";
        assert_eq!(
            paint.diff(diff),
            format!(
                "--- a/~{s}x.json\n+++ b/~{s}x.json\n@@ -1 +1 @@\n--- a//home/me/y\n+\"/home/me/z\"\n"
            )
        );
        let new = "--- /dev/null\n+++ b//home/me/x\n@@ -0,0 +1 @@\n+{}\n";
        assert_eq!(
            paint.diff(new),
            format!("--- /dev/null\n+++ b/~{s}x\n@@ -0,0 +1 @@\n+{{}}\n")
        );
        assert_eq!(Paint::none().diff(diff), diff);
    }

    #[test]
    fn error_text_keeps_the_hint_and_new_causes() {
        let error = anyhow::Error::from(UserError::new("cannot parse `x`").hint("fix it"))
            .context("cursor failed");
        let text = ErrorText::of(&error);
        assert_eq!(text.message, "cursor failed");
        assert_eq!(text.causes, ["cannot parse `x`"]);
        assert_eq!(text.hint.as_deref(), Some("fix it"));
        let about = ErrorText::about("cursor", &anyhow::Error::from(UserError::new("bad")));
        assert_eq!(about.message, "cursor: bad");
    }
}
