//! Everything mcpctl prints goes through `Printer`: data to stdout (human tables or
//! `--json`), diagnostics to stderr, colour only on a terminal without `NO_COLOR`, and
//! secrets redacted. Commands return a `Report` and `Printer::emit` prints it (see
//! `report` for the pattern a new command follows).
#![expect(clippy::print_stderr, reason = "the one module that prints")]

mod report;

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use report::{Block, ErrorText, Paint, Report};

use crate::error::ExitStatus;

/// When to use colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

pub use crate::secrets::{redact, redact_map, redact_raw, redact_text};

/// A terminal style.
#[derive(Debug, Clone, Copy)]
pub enum Style {
    Ok,
    Warn,
    Fail,
    Dim,
    Bold,
}

impl Style {
    fn code(self) -> &'static str {
        match self {
            Style::Ok => "32",
            Style::Warn => "33",
            Style::Fail => "31",
            Style::Dim => "2",
            Style::Bold => "1",
        }
    }
}

/// Prints data and diagnostics.
#[derive(Debug)]
pub struct Printer {
    pub json: bool,
    pub quiet: bool,
    color_out: bool,
    color_err: bool,
    /// stdout went away (`| head`): stop writing, exit 0.
    broken_pipe: bool,
    /// stderr is a terminal: progress may be drawn.
    pub stderr_tty: bool,
    /// Columns to fit output into: `COLUMNS`, else the terminal's width; `None` in a pipe.
    width: Option<usize>,
    /// `list --show-secrets`: print secrets as they are.
    reveal: bool,
    /// Values mcpctl passed to a server (`hide`): hidden wherever they appear.
    hidden: crate::secrets::Redactor,
    /// The values behind `hidden`.
    hidden_values: Vec<String>,
    /// The home directory: paths under it are shown as `~/…` to a person, never under
    /// `--json`.
    home: Option<PathBuf>,
    /// The command is a `--dry-run`: its JSON says so (`"dry_run": true`), so a script
    /// cannot take "would add" for "added".
    dry_run: bool,
    /// Something printed for a person said to run `` `mcpctl …` `` (see `said_mcpctl`).
    said_mcpctl: std::cell::Cell<bool>,
}

/// `"dry_run": true` in a report's JSON object, or in each object of its array of rows.
fn mark_dry_run(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            map.insert("dry_run".to_owned(), serde_json::Value::Bool(true));
        }
        serde_json::Value::Array(rows) => {
            for row in rows {
                if let serde_json::Value::Object(map) = row {
                    map.insert("dry_run".to_owned(), serde_json::Value::Bool(true));
                }
            }
        }
        _ => {}
    }
}

/// Narrowest a wrapped column gets, however little room is left.
const MIN_WRAP: usize = 20;

/// The width of the terminal on stdout, if it is one.
pub fn terminal_width() -> Option<usize> {
    console::Term::stdout()
        .size_checked()
        .map(|(_, columns)| usize::from(columns))
}

impl Printer {
    pub fn new(json: bool, quiet: bool, color: ColorWhen, no_color_env: bool) -> Printer {
        let stdout_tty = io::stdout().is_terminal();
        let stderr_tty = io::stderr().is_terminal();
        let allow = |tty: bool| match color {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => tty && !no_color_env,
        };
        Printer {
            json,
            quiet,
            color_out: allow(stdout_tty),
            color_err: allow(stderr_tty),
            broken_pipe: false,
            stderr_tty,
            width: None,
            reveal: false,
            hidden: crate::secrets::Redactor::default(),
            hidden_values: Vec::new(),
            home: None,
            dry_run: false,
            said_mcpctl: std::cell::Cell::new(false),
        }
    }

    /// Whether a line printed for a person told them to run `` `mcpctl …` `` (a hint,
    /// a note): where `mcpctl` is not on PATH, the caller says how to run it instead.
    pub fn said_mcpctl(&self) -> bool {
        self.said_mcpctl.get()
    }

    /// Show the files messages name (`file`) and report rows' paths (`Paint::path`) under
    /// `home` as `~/…` (not under `--json`). A relative or empty home shortens nothing.
    /// The command writes nothing (`--dry-run`): every JSON object it prints says
    /// `"dry_run": true`, the report's or each of its rows.
    pub fn set_dry_run(&mut self, dry_run: bool) {
        self.dry_run = dry_run;
    }

    pub fn set_home(&mut self, home: Option<PathBuf>) {
        self.home = home.filter(|h| h.is_absolute());
    }

    /// The home directory paths are shown relative to: `None` under `--json`.
    pub fn shown_home(&self) -> Option<&Path> {
        self.home.as_deref().filter(|_| !self.json)
    }

    /// Print secrets as they are from now on (`list --show-secrets`); everything else
    /// printed has them replaced (`secrets::scrub`).
    pub fn reveal_secrets(&mut self) {
        self.reveal = true;
    }

    /// Hide `values` wherever they appear in what is printed from now on, `--json`
    /// included: the values mcpctl passed to a server (env and header values, secrets
    /// from the store, secret arguments), which the server may repeat in its stderr, its
    /// tool list, its errors or its results. Text a server sends carries no name beside
    /// the value, so `secrets::scrub` alone cannot tell it is one.
    pub fn hide(&mut self, values: Vec<String>) {
        if values.is_empty() {
            return;
        }
        let mut all = self.hidden_values.clone();
        all.extend(values);
        all.sort_unstable();
        all.dedup();
        self.hidden = crate::secrets::Redactor::new(&all);
        self.hidden_values = all;
    }

    /// `text` as it may be printed: the files it names shown (`shown_files`), secrets
    /// scrubbed unless revealed.
    fn safe<'t>(&self, text: &'t str) -> std::borrow::Cow<'t, str> {
        use std::borrow::Cow;
        if !self.json && text.contains("`mcpctl ") {
            self.said_mcpctl.set(true);
        }
        if self.reveal {
            return shown_files(self.shown_home(), text);
        }
        // The known values first, whole: `scrub` may take a part of one.
        let text = self.hidden.apply(text);
        let text = match text {
            Cow::Borrowed(text) => shown_files(self.shown_home(), text),
            Cow::Owned(text) => Cow::Owned(shown_files(self.shown_home(), &text).into_owned()),
        };
        match text {
            Cow::Borrowed(text) => crate::secrets::scrub(text),
            Cow::Owned(text) => Cow::Owned(crate::secrets::scrub(&text).into_owned()),
        }
    }

    fn out(&mut self, text: &str) {
        if self.broken_pipe {
            return;
        }
        let text = self.safe(text);
        self.write_out(&text);
    }

    /// Write text already made safe to stdout.
    fn write_out(&mut self, text: &str) {
        if self.broken_pipe || text.is_empty() {
            return;
        }
        let mut stdout = io::stdout().lock();
        if let Err(e) = stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
            && e.kind() == io::ErrorKind::BrokenPipe
        {
            self.broken_pipe = true;
        }
    }

    /// Colour `text` for stdout.
    pub fn paint(&self, style: Style, text: &str) -> String {
        paint(self.color_out, style, text)
    }

    /// Colour `text` for stderr.
    pub fn paint_err(&self, style: Style, text: &str) -> String {
        paint(self.color_err, style, text)
    }

    /// One line of data on stdout.
    pub fn line(&mut self, text: &str) {
        let mut s = String::with_capacity(text.len() + 1);
        s.push_str(text);
        s.push('\n');
        self.out(&s);
    }

    /// Raw text on stdout (diffs).
    pub fn raw(&mut self, text: &str) {
        self.out(text);
    }

    /// A value as pretty JSON on stdout.
    pub fn json_value<T: Serialize>(&mut self, value: &T) -> anyhow::Result<()> {
        let mut text = serde_json::to_string_pretty(value)?;
        text.push('\n');
        self.out(&text);
        Ok(())
    }

    /// An aligned table on stdout. Cells may contain ANSI colour; widths ignore it.
    pub fn table(&mut self, header: &[&str], rows: &[Vec<String>]) {
        // Secrets go before the widths are measured, so columns stay aligned.
        let rows: Vec<Vec<String>> = rows
            .iter()
            .map(|row| row.iter().map(|c| self.safe(c).into_owned()).collect())
            .collect();
        let rows = &rows;
        let columns = header.len();
        let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
        for row in rows {
            for (i, cell) in row.iter().enumerate().take(columns) {
                widths[i] = widths[i].max(visible_width(cell));
            }
        }
        // The last column (commands, URLs, messages) wraps to fit the terminal; the
        // others are short (ids, names) and keep their width.
        let indent: usize = widths
            .iter()
            .take(columns.saturating_sub(1))
            .map(|w| w + 2)
            .sum();
        let last_width = self.width.map(|w| w.saturating_sub(indent).max(MIN_WRAP));
        let render = |cells: &[String]| {
            let mut line = String::new();
            for (i, cell) in cells.iter().enumerate().take(columns) {
                if i + 1 < columns {
                    line.push_str(cell);
                    line.push_str(&" ".repeat(widths[i] - visible_width(cell) + 2));
                    continue;
                }
                let pieces = match last_width {
                    Some(w) => wrap(cell, w),
                    None => vec![cell.clone()],
                };
                for (n, piece) in pieces.iter().enumerate() {
                    if n > 0 {
                        line = line.trim_end().to_owned();
                        line.push('\n');
                        line.push_str(&" ".repeat(indent));
                    }
                    line.push_str(piece);
                }
            }
            line.trim_end().to_owned()
        };
        let header_cells: Vec<String> = header.iter().map(|h| self.paint(Style::Bold, h)).collect();
        let mut text = render(&header_cells);
        text.push('\n');
        for row in rows {
            text.push_str(&render(row));
            text.push('\n');
        }
        self.out(&text);
    }

    /// The columns output is fitted into (`None`: not wrapped, as in a pipe).
    pub fn width(&self) -> Option<usize> {
        self.width
    }

    /// A diagnostic line on stderr (`warning: ...`).
    pub fn warn(&self, message: &str) {
        eprintln!(
            "{} {}",
            self.paint_err(Style::Warn, "warning:"),
            self.safe(message)
        );
    }

    /// A note on stderr, unless `--quiet`.
    pub fn note(&self, message: &str) {
        if !self.quiet {
            eprintln!("{}", self.safe(message));
        }
    }

    /// What the person must see to go on (a URL to open, a prompt): on stderr, also
    /// with `--quiet` and `--json`.
    pub fn ask(&self, message: &str) {
        eprintln!("{}", self.safe(message));
    }

    /// A long note (a banner) on stderr, unless `--quiet`, wrapped at spaces to the
    /// terminal's width.
    pub fn note_wrapped(&self, message: &str) {
        match self.width {
            Some(width) => {
                self.note(&wrap(&shown_files(self.shown_home(), message), width).join("\n"))
            }
            None => self.note(message),
        }
    }

    /// Fit tables and notes into `columns` characters (`None`: never wrap).
    pub fn set_width(&mut self, columns: Option<usize>) {
        self.width = columns.map(|c| c.max(MIN_WRAP));
    }

    /// Render an error chain: `error:`, `caused by:`, then `hint:`.
    pub fn error(&self, error: &anyhow::Error) {
        self.error_text(&ErrorText::of(error));
    }

    fn error_text(&self, error: &ErrorText) {
        if self.json {
            self.error_json(error, None);
            return;
        }
        let mut text = format!(
            "{} {}",
            self.paint_err(Style::Fail, "error:"),
            error.message
        );
        for cause in &error.causes {
            text.push_str(&format!("\n  caused by: {cause}"));
        }
        if let Some(hint) = &error.hint {
            text.push_str(&format!(
                "\n\n{} {hint}",
                self.paint_err(Style::Bold, "hint:")
            ));
        }
        eprintln!("{}", self.safe(&text));
    }

    /// An error under `--json`: one JSON object on stderr (stdout keeps only a report's
    /// JSON, so a script piping it into `jq` never parses an error as a result):
    /// `{"error": {"message", "hint", "causes", "usage"}}`, `usage` only for a command
    /// line clap could not read.
    fn error_json(&self, error: &ErrorText, usage: Option<&str>) {
        let mut object = serde_json::json!({
            "message": self.safe(&error.message),
            "hint": error.hint.as_deref().map(|h| self.safe(h)),
            "causes": error.causes.iter().map(|c| self.safe(c)).collect::<Vec<_>>(),
        });
        if let Some(usage) = usage {
            object["usage"] = serde_json::Value::String(usage.to_owned());
        }
        eprintln!("{}", serde_json::json!({ "error": object }));
    }

    /// A command line clap could not read (`e`, rendered without colour): its own text,
    /// or under `--json` the JSON error with the usage line. The exit code is the
    /// caller's (2).
    pub fn usage_error(&self, e: &clap::Error) {
        if !self.json {
            let _ = e.print();
            return;
        }
        let rendered = e.render().to_string();
        let mut message = String::new();
        let mut tips = Vec::new();
        let mut usage = None;
        for line in rendered.lines().map(str::trim) {
            if let Some(rest) = line.strip_prefix("error: ") {
                message = rest.to_owned();
            } else if let Some(rest) = line.strip_prefix("tip: ") {
                tips.push(rest.to_owned());
            } else if let Some(rest) = line.strip_prefix("Usage: ") {
                usage = Some(rest.to_owned());
            }
        }
        if message.is_empty() {
            message = rendered
                .lines()
                .next()
                .unwrap_or_default()
                .trim()
                .to_owned();
        }
        tips.push("`--help` says more".to_owned());
        let error = ErrorText {
            message,
            causes: Vec::new(),
            hint: Some(tips.join("; ")),
        };
        self.error_json(&error, usage.as_deref());
    }

    /// The painter for stdout, handed to `Report::human`.
    pub fn painter(&self) -> Paint<'_> {
        Paint {
            enabled: self.color_out,
            home: self.shown_home(),
        }
    }

    /// Print a command's report: its JSON with `--json` (warnings and errors still on
    /// stderr), its human blocks otherwise. Returns the report's exit status.
    pub fn emit(&mut self, report: &dyn Report) -> anyhow::Result<ExitStatus> {
        let blocks = report.human(if self.json {
            Paint::none()
        } else {
            self.painter()
        });
        // Lines and raw text in a row go to stdout in one write, each made safe as
        // `line` and `raw` make it (an apply prints a line per entry: a write each was
        // 30,000 system calls for 10,000 servers in three files); before any other
        // block, what came before it is written.
        let mut pending = String::with_capacity(if self.json {
            0
        } else {
            blocks
                .iter()
                .map(|b| match b {
                    Block::Line(line) => line.len() + 1,
                    Block::Raw(text) => text.len(),
                    _ => 0,
                })
                .sum()
        });
        for block in &blocks {
            if self.json && !block.is_diagnostic() {
                continue;
            }
            match block {
                Block::Line(line) => {
                    let mut s = String::with_capacity(line.len() + 1);
                    s.push_str(line);
                    s.push('\n');
                    pending.push_str(&self.safe(&s));
                }
                Block::Raw(text) => pending.push_str(&self.safe(text)),
                other => {
                    self.write_out(&pending);
                    pending.clear();
                    self.block(other);
                }
            }
        }
        self.write_out(&pending);
        if self.json {
            let mut value = report.json()?;
            if self.dry_run {
                mark_dry_run(&mut value);
            }
            self.json_value(&value)?;
        }
        Ok(report.status())
    }

    /// Print part of a result as soon as it is known (a `doctor` row as each server
    /// finishes), by `emit`'s rules: with `--json` only the diagnostics, since the JSON
    /// document comes whole from the final report's `emit`. Long notes wrap to the
    /// terminal.
    pub fn stream(&mut self, blocks: &[Block]) {
        for block in blocks {
            match block {
                _ if self.json && !block.is_diagnostic() => {}
                Block::Note(note) => self.note_wrapped(note),
                other => self.block(other),
            }
        }
    }

    /// Print one block where it belongs.
    pub fn block(&mut self, block: &Block) {
        match block {
            Block::Table { header, rows } => self.table(header, rows),
            Block::Line(line) => self.line(line),
            Block::Raw(text) => self.raw(text),
            Block::Note(note) | Block::Aside(note) => self.note(note),
            Block::Warning(warning) => self.warn(warning),
            Block::Error(error) => self.error_text(error),
        }
    }

    /// Progress on stderr: a line redrawn in place on a terminal, plain lines in a log
    /// (CI), nothing with `--quiet` or `--json`.
    pub fn progress(&self, text: &str) {
        if self.quiet || self.json {
            return;
        }
        let text = self.safe(text);
        if self.stderr_tty {
            eprint!("\r\x1b[2K{text}");
            let _ = io::stderr().flush();
        } else {
            eprintln!("{text}");
        }
    }

    /// Clear the progress line.
    pub fn progress_done(&self) {
        if self.stderr_tty && !self.quiet {
            eprint!("\r\x1b[2K");
            let _ = io::stderr().flush();
        }
    }
}

/// A path as `--json` writes it (`#[serde(serialize_with = "output::path_json")]`):
/// absolute, never `~/…`.
pub fn path_json<S: serde::Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(&path.display())
}

/// [`path_json`] of an optional path (`null` without one).
pub fn option_path_json<S: serde::Serializer>(
    path: &Option<PathBuf>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match path {
        Some(path) => serializer.collect_str(&path.display()),
        None => serializer.serialize_none(),
    }
}

/// Where a message names a file: the path between these two noncharacters (Unicode's own
/// for internal use), absolute. The printer shows it as `~/…` under the home directory to
/// a person and absolute under `--json` ([`shown_files`]); nothing else is marked.
const FILE_START: char = '\u{FDD0}';
const FILE_END: char = '\u{FDD1}';

/// `path` as a message names a file (`format!("cannot restore `{}`", output::file(p))`):
/// the code that builds the message says which file, the printer how it is shown.
/// A line on stderr from below the commands, where no `Printer` is at hand: a wait the
/// user should know about (another program is writing a file). Files it names
/// ([`file`]) are shown absolute, secrets scrubbed.
pub fn notice(message: &str) {
    eprintln!("{}", crate::secrets::scrub(&shown_files(None, message)));
}

pub fn file(path: &Path) -> String {
    format!("{FILE_START}{}{FILE_END}", path.display())
}

/// `text` with the files it names ([`file`]) shown as a person or a script reads them:
/// `~/x` for a file under `home`, else absolute (`home` is `None` under `--json`).
pub fn shown_files<'t>(home: Option<&Path>, text: &'t str) -> std::borrow::Cow<'t, str> {
    if !text.contains(FILE_START) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(FILE_START) {
        out.push_str(&rest[..start]);
        let after = &rest[start + FILE_START.len_utf8()..];
        let end = after.find(FILE_END).unwrap_or(after.len());
        let path = Path::new(&after[..end]);
        match home.map(|home| path.strip_prefix(home)) {
            Some(Ok(under)) => out.push_str(&tilde(under)),
            _ => out.push_str(&after[..end]),
        }
        rest = after[end..].strip_prefix(FILE_END).unwrap_or(&after[end..]);
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// A path under the home directory as a person reads it: `~` and the rest with this
/// system's separator (`~/.cursor/mcp.json`; on Windows `~\AppData\Roaming\…`, whose
/// paths are joined with `\`), never a mix.
pub(crate) fn tilde(under: &Path) -> String {
    format!("~{}{}", std::path::MAIN_SEPARATOR, under.display())
}

/// `text` broken at spaces into lines of at most `width` visible characters; a word
/// longer than that (a path, a URL) is cut. ANSI colour codes take no room.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let mut word = word.to_owned();
        loop {
            let used = visible_width(&line);
            let needed = visible_width(&word) + usize::from(used > 0);
            if used + needed <= width {
                if used > 0 {
                    line.push(' ');
                }
                line.push_str(&word);
                break;
            }
            if used > 0 {
                lines.push(std::mem::take(&mut line));
                continue;
            }
            // A word wider than a whole line: cut it.
            let (head, tail) = split_visible(&word, width);
            lines.push(head);
            word = tail;
        }
    }
    lines.push(line);
    lines
}

/// `text` split after `at` visible characters (escape codes stay with the head).
fn split_visible(text: &str, at: usize) -> (String, String) {
    let mut seen = 0;
    let mut in_escape = false;
    for (i, c) in text.char_indices() {
        match (in_escape, c) {
            (false, '\x1b') => in_escape = true,
            (true, 'm') => in_escape = false,
            (true, _) => {}
            (false, _) => {
                if seen == at {
                    return (text[..i].to_owned(), text[i..].to_owned());
                }
                seen += 1;
            }
        }
    }
    (text.to_owned(), String::new())
}

fn paint(enabled: bool, style: Style, text: &str) -> String {
    if enabled {
        format!("\x1b[{}m{text}\x1b[0m", style.code())
    } else {
        text.to_owned()
    }
}

/// Width of a cell without ANSI escapes.
fn visible_width(text: &str) -> usize {
    let mut width = 0;
    let mut in_escape = false;
    for c in text.chars() {
        match (in_escape, c) {
            (false, '\x1b') => in_escape = true,
            (true, 'm') => in_escape = false,
            (true, _) => {}
            (false, _) => width += 1,
        }
    }
    width
}

/// `1234567` as `1,234,567`: token counts and sizes in text output.
#[must_use]
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secrets::REDACTED;

    #[test]
    fn a_file_a_message_names_is_home_relative_for_a_person_and_absolute_for_json() {
        let home = Path::new("/home/me");
        let cursor = home.join(".cursor").join("mcp.json");
        let text = format!(
            "cannot restore `{}`; `/home/me/x` is not marked",
            file(&cursor)
        );
        // The tilde takes this system's separator (`~\.cursor\mcp.json` on Windows).
        let s = std::path::MAIN_SEPARATOR;
        assert_eq!(
            shown_files(Some(home), &text),
            format!("cannot restore `~{s}.cursor{s}mcp.json`; `/home/me/x` is not marked")
        );
        assert_eq!(
            shown_files(None, &text),
            format!(
                "cannot restore `{}`; `/home/me/x` is not marked",
                cursor.display()
            )
        );
        let beside = file(Path::new("/home/meow/x"));
        assert_eq!(shown_files(Some(home), &beside), "/home/meow/x");
    }

    /// Issue 37 item 7: a path under home is shown with one separator style, the one
    /// this system joins paths with (Windows showed `~/AppData\Roaming\…`).
    #[test]
    fn a_home_relative_path_has_one_separator_style() {
        let home = std::env::temp_dir().join("me");
        let path = home.join("AppData").join("Roaming").join("x.json");
        let s = std::path::MAIN_SEPARATOR;
        let want = format!("~{s}AppData{s}Roaming{s}x.json");
        assert_eq!(shown_files(Some(&home), &file(&path)), want);
        let paint = report::Paint::none().with_home(Some(&home));
        assert_eq!(paint.path(&path), want);
    }

    #[test]
    fn redaction_keeps_references_and_hides_values() {
        assert_eq!(redact("ghp_abcdef"), REDACTED);
        assert_eq!(redact("${GITHUB_TOKEN}"), "${GITHUB_TOKEN}");
        assert_eq!(redact("${env:X}"), "${env:X}");
        assert_eq!(redact("{env:X}"), "{env:X}");
        assert_eq!(redact("Bearer ${TOKEN}"), "Bearer ${TOKEN}");
        assert_eq!(redact("Bearer abc"), REDACTED);
        assert_eq!(redact("$HOME"), "$HOME");
        assert_eq!(redact("${A}${B}x"), REDACTED);
    }

    #[test]
    fn text_redaction_hides_quoted_values_only() {
        let diff = "+  \"GITHUB_TOKEN\": \"ghp_x\",\n+  token = 'ghp_x'\n   \"ghp_xy\": 1";
        assert_eq!(
            redact_text(diff, &["ghp_x".to_owned()]),
            "+  \"GITHUB_TOKEN\": \"<redacted>\",\n+  token = '<redacted>'\n   \"ghp_xy\": 1"
        );
    }

    #[test]
    fn wrap_breaks_at_spaces_and_cuts_long_words() {
        assert_eq!(wrap("a bb ccc dddd", 6), ["a bb", "ccc", "dddd"]);
        assert_eq!(wrap("/a/very/long/path", 6), ["/a/ver", "y/long", "/path"]);
        assert_eq!(wrap("short", 80), ["short"]);
        for line in wrap(&"word ".repeat(50), 80) {
            assert!(line.chars().count() <= 80, "{line}");
        }
    }

    #[test]
    fn visible_width_ignores_ansi() {
        assert_eq!(visible_width("\x1b[32mok\x1b[0m"), 2);
    }
}
