//! `mcpctl doctor`: static checks on every configured server, then (unless `--no-spawn`)
//! a real MCP handshake with each, in parallel, each with its own deadline.
//!
//! It only starts what the user's own config files say, and says so before it does.
//! The verb reads the flags, hands them to the engine (`crate::doctor`) and prints
//! its rows as each verdict is ready; the handshake lives in `handshake`.

use serde::Serialize;

use crate::cli::DoctorArgs;
use crate::doctor::probe::{DoctorResult, Status, probe_options};
use crate::doctor::{
    self, ClientTokens, Request, Rows, Shared, Streamed, Summary, mark_of, plural,
};
use crate::error::ExitStatus;
use crate::handshake;
use crate::output::{Block, Paint, Printer, Report};
use crate::session::{Context, targets};

/// doctor's result: `--json` is the whole document; the human form is the rows (unless
/// they were streamed as each server finished), the token totals and the summary.
#[derive(Debug, Serialize)]
struct DoctorReport {
    results: Vec<DoctorResult>,
    /// Estimated tokens of tool definitions per client, with how they are estimated.
    tokens: Vec<ClientTokens>,
    token_method: &'static str,
    /// Distinct handshakes made (identical entries in several clients share one).
    handshakes: usize,
    /// Entries several clients share: a verdict per client.
    shared: Vec<Shared>,
    summary: Summary,
    /// Warnings fail the run (`--strict`).
    #[serde(skip)]
    strict: bool,
    /// How to print the rows, when they were not already streamed.
    #[serde(skip)]
    rows: Option<Rows>,
    /// Clients looked at, for "no servers configured".
    #[serde(skip)]
    clients: usize,
}

pub fn run(args: DoctorArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let DoctorArgs {
        name,
        clients,
        timeout,
        jobs,
        no_spawn,
        trust_project,
        strict,
        as_client,
    } = args;
    let options = probe_options(ctx, timeout)?;
    // `--as X`: every entry started and judged as X would start it.
    let as_client = match &as_client {
        Some(id) => targets::by_ids(ctx, std::slice::from_ref(id))?
            .first()
            .copied(),
        None => None,
    };
    let clients = match (clients.is_empty(), as_client) {
        (true, Some(client)) => vec![client],
        (true, None) => targets::detected_to_read(ctx),
        (false, _) => targets::by_ids(ctx, &clients)?,
    };
    // `--no-spawn` rows are printed as they are made and not kept: at 100,000 entries
    // the rows would not fit in memory beside the entries. Under `--json` each row is
    // written as its part of the one document.
    let stream_rows = no_spawn;
    let home = printer.shown_home().map(std::path::Path::to_path_buf);
    let paint = printer.painter().with_home(home.as_deref());
    let (columns, json) = (printer.width(), printer.json);
    let mut streamed_rows: Option<Rows> = None;
    let mut json_rows = JsonRows::default();
    let mut stream = |streamed: Streamed<'_>| match streamed {
        Streamed::Exclusive(client, ex) => exclusive_warning(printer, client, ex),
        Streamed::Row(result, _) if json => json_rows.row(printer, result),
        Streamed::Row(result, width) => {
            let rows = streamed_rows.get_or_insert_with(|| Rows::with_width(width, true, columns));
            printer.stream(&rows.row(result, paint));
        }
    };
    let mut checkup = doctor::gather(
        ctx,
        &Request {
            clients: &clients,
            name: name.as_deref(),
            no_spawn,
            trust_project,
            as_client,
            options: &options,
        },
        stream_rows.then_some(&mut stream as &mut dyn FnMut(Streamed<'_>)),
    )?;
    for (client, ex) in &checkup.exclusive {
        exclusive_warning(printer, client, ex);
    }

    let human = Rows::new(&checkup.results, no_spawn, printer.width());
    // Rows of servers that are not started are known now; the others follow as each
    // server finishes, so one slow server hides nothing (and a CI log shows verdicts).
    let total = checkup.starting();
    let streamed = total > 0 || stream_rows;
    if total > 0 {
        printer.stream(&[Block::Note(checkup.announcement())]);
        for result in checkup.not_started() {
            printer.stream(&human.row(result, paint));
        }
        // A redrawn count on a terminal only: in a log the rows are the progress.
        let counting = printer.stderr_tty;
        if counting {
            printer.progress(&format!("[0/{total}] starting…"));
        }
        // More servers at once than cores made healthy servers time out on a busy machine.
        let jobs = jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(4, usize::from))
            .max(1);
        let out = &mut *printer;
        checkup.probe(ctx, jobs, |result, count| {
            let row = human.row(result, paint);
            if counting {
                out.progress_done();
            }
            out.stream(&row);
            if counting && count < total {
                out.progress(&format!("[{count}/{total}] checked"));
            }
        });
        printer.progress_done();
    }
    let finished = checkup.finish(ctx, printer);
    let report = DoctorReport {
        results: finished.results,
        tokens: finished.tokens,
        token_method: handshake::tools::TOKEN_METHOD,
        handshakes: finished.handshakes,
        shared: finished.shared,
        summary: finished.summary,
        strict,
        rows: (!streamed).then_some(human),
        clients: clients.len(),
    };
    if json_rows.started {
        return json_rows.finish(printer, &report);
    }
    printer.emit(&report)
}

/// `--json` rows written as they are made: together with [`JsonRows::finish`], the
/// document `Printer::emit` prints for the whole report, byte for byte (serde_json's
/// pretty layout: the rows at a depth of two), without holding every row. Each piece is
/// scrubbed of secrets on its own, which finds what scrubbing the whole finds: every
/// pattern `secrets::scrub` looks for ends within the line or value it starts in, and
/// a piece ends with its row's closing brace.
#[derive(Default)]
struct JsonRows {
    /// A row was written (the document is open).
    started: bool,
    /// A row that could not be written.
    error: Option<serde_json::Error>,
}

impl JsonRows {
    fn row(&mut self, printer: &mut Printer, result: &DoctorResult) {
        match self.piece(result) {
            Ok(piece) => printer.raw(&piece),
            Err(error) => {
                self.error.get_or_insert(error);
            }
        }
    }

    /// The text of the document for `result`: what comes before it, then the row.
    fn piece(&mut self, result: &DoctorResult) -> serde_json::Result<String> {
        let text = serde_json::to_string_pretty(result)?;
        let mut piece = String::with_capacity(text.len() + text.len() / 4 + 32);
        piece.push_str(if self.started {
            ",\n"
        } else {
            "{\n  \"results\": [\n"
        });
        self.started = true;
        // A string holds no raw newline, so each one starts a line of the layout.
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                piece.push('\n');
            }
            piece.push_str("    ");
            piece.push_str(line);
        }
        Ok(piece)
    }

    /// The document after the rows, from the report (which holds none of them).
    fn rest(report: &DoctorReport) -> anyhow::Result<String> {
        let whole = serde_json::to_string_pretty(&report.json()?)?;
        let rest = whole
            .strip_prefix("{\n  \"results\": [],\n")
            .ok_or_else(|| {
                anyhow::anyhow!("internal error: doctor's JSON does not start with its results")
            })?;
        Ok(format!("\n  ],\n{rest}\n"))
    }

    /// The rest of the document and the report's exit status, as `Printer::emit` gives
    /// them.
    fn finish(self, printer: &mut Printer, report: &DoctorReport) -> anyhow::Result<ExitStatus> {
        if let Some(error) = self.error {
            return Err(error.into());
        }
        for block in report.human(Paint::none()) {
            if block.is_diagnostic() {
                printer.block(&block);
            }
        }
        printer.raw(&Self::rest(report)?);
        Ok(report.status())
    }
}

/// The warning that an administrator's file controls a client's servers.
fn exclusive_warning(
    printer: &mut Printer,
    client: &crate::clients::Client,
    ex: &crate::sources::Exclusive,
) {
    printer.stream(&[Block::Warning(format!(
        "{} loads only the servers in `{}`: {}",
        client.name,
        ex.file.display(),
        ex.manage
    ))]);
}

impl Report for DoctorReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(self)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        let s = &self.summary;
        if s.ok + s.warn + s.fail + s.skipped == 0 {
            return vec![Block::Note(format!(
                "no servers configured in {} client{}",
                self.clients,
                plural(self.clients)
            ))];
        }
        let mut blocks = Vec::new();
        if let Some(rows) = &self.rows {
            for result in &self.results {
                blocks.extend(rows.row(result, paint));
            }
        }
        for shared in &self.shared {
            let verdicts: Vec<String> = shared
                .clients
                .iter()
                .map(|v| {
                    let (mark, style) = mark_of(v.status);
                    let mut text = format!("{} {}", paint.paint(style, mark), v.client);
                    if let (Some(reason), Status::Fail | Status::Warn) = (&v.reason, v.status) {
                        text.push_str(&format!(": {reason}"));
                    }
                    text
                })
                .collect();
            blocks.push(Block::Line(format!(
                "{}: {}",
                shared.name,
                verdicts.join(" · ")
            )));
        }
        for total in &self.tokens {
            blocks.push(Block::Line(format!(
                "{}: tool definitions ≈ {} tokens over {} server{} ({})",
                total.client,
                total.tokens,
                total.servers,
                plural(total.servers),
                self.token_method
            )));
        }
        let s = &self.summary;
        let mut parts = vec![
            format!("{} failed", s.fail),
            format!("{} warning{}", s.warn, plural(s.warn)),
            format!("{} ok", s.ok),
        ];
        if s.skipped > 0 {
            parts.push(format!("{} skipped", s.skipped));
        }
        blocks.push(Block::Line(parts.join(", ")));
        blocks
    }

    fn status(&self) -> ExitStatus {
        let s = &self.summary;
        if s.fail > 0 || (self.strict && s.warn > 0) {
            ExitStatus::Problems
        } else {
            ExitStatus::Success
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::Scope;

    fn report(results: Vec<DoctorResult>) -> DoctorReport {
        let mut summary = Summary::default();
        for r in &results {
            summary.count(r.status);
        }
        DoctorReport {
            results,
            tokens: Vec::new(),
            token_method: handshake::tools::TOKEN_METHOD,
            handshakes: 0,
            shared: Vec::new(),
            summary,
            strict: false,
            rows: None,
            clients: 1,
        }
    }

    /// Rows with secrets in their targets and messages, in every spot a row has text.
    fn rows() -> Vec<DoctorResult> {
        let token = format!("ghp_{}", "a1".repeat(20));
        let targets = [
            format!("npx -y pkg --api-key sk-{}", "b2".repeat(12)),
            "https://user:hunter2@example.com/mcp".to_owned(),
            String::new(),
            format!("server --token {token}"),
        ];
        targets
            .into_iter()
            .enumerate()
            .map(|(i, target)| {
                let mut r = DoctorResult::empty(
                    "cursor",
                    Scope::User,
                    format!("s{i}"),
                    "~/.cursor/mcp.json".into(),
                );
                r.target = target;
                r.record(
                    "env",
                    if i == 2 { Status::Ok } else { Status::Fail },
                    format!("\"GITHUB_TOKEN\": \"{token}\" and Bearer {token}"),
                );
                r.tool_names = vec![format!("t{i}")];
                r
            })
            .collect()
    }

    /// The rows written one at a time and the rest after them are the document `emit`
    /// prints for the whole report, byte for byte; scrubbing each piece on its own hides
    /// what scrubbing the whole hides.
    #[test]
    fn json_rows_written_one_at_a_time_are_the_whole_document() {
        let whole = format!(
            "{}\n",
            serde_json::to_string_pretty(&report(rows()).json().unwrap()).unwrap()
        );
        let mut writer = JsonRows::default();
        let (mut text, mut scrubbed) = (String::new(), String::new());
        let mut summary_rows = report(Vec::new());
        for row in rows() {
            summary_rows.summary.count(row.status);
            let piece = writer.piece(&row).unwrap();
            scrubbed.push_str(&crate::secrets::scrub(&piece));
            text.push_str(&piece);
        }
        let rest = JsonRows::rest(&summary_rows).unwrap();
        scrubbed.push_str(&crate::secrets::scrub(&rest));
        text.push_str(&rest);
        assert_eq!(text, whole);
        let whole_scrubbed = crate::secrets::scrub(&whole);
        assert_ne!(whole_scrubbed, whole, "the rows hold secrets");
        assert_eq!(scrubbed, whole_scrubbed);
    }
}
