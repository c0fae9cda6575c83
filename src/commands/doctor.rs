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
    self, ClientTokens, Piece, Request, Rows, Shared, Summary, group, mark_of, plural,
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
    /// One client measured (`-c CLIENT` or `--as`) whose row records no capabilities:
    /// its servers were started declaring mcpctl's own (`null`: no fallback).
    capabilities_fallback: Option<String>,
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
    /// The terminal's width, to wrap the lines that are not rows.
    #[serde(skip)]
    columns: Option<usize>,
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
    // `doctor URL`: an endpoint no config file names (yet).
    let is_url = |n: &String| n.starts_with("http://") || n.starts_with("https://");
    match name.as_slice() {
        [url] if is_url(url) => {
            return url_report(ctx, printer, url, &options, as_client, strict);
        }
        several if several.iter().any(is_url) => {
            return Err(crate::error::UserError::new(
                "`doctor URL` takes one URL, and no server name beside it",
            )
            .hint("run `mcpctl doctor URL` once per endpoint")
            .into());
        }
        _ => {}
    }
    let clients = match (clients.is_empty(), as_client) {
        (true, Some(client)) => vec![client],
        (true, None) => targets::detected_to_read(ctx),
        (false, _) => targets::by_ids(ctx, &clients)?,
    };
    // `--as` defaults to `-c CLIENT` (as `--help` says): one named client is measured and
    // judged as it starts servers, its declared capabilities included.
    let named = as_client.is_some();
    let as_client = match (as_client, clients.as_slice()) {
        (None, [one]) => Some(*one),
        (as_client, _) => as_client,
    };
    // Asked for with `--as`, a client whose capabilities are not recorded is a warning;
    // implied by `-c`, the measurement is as near as mcpctl can get: a note, once for
    // the whole run (not per row), and in `--json`.
    let fallback = as_client.and_then(crate::doctor::probe::capability_fallback);
    if let Some(fallback) = fallback.as_ref().filter(|_| named) {
        printer.stream(&[Block::Warning(fallback.clone())]);
    }
    let mut checkup = doctor::gather(
        ctx,
        &Request {
            clients: &clients,
            names: &name,
            no_spawn,
            trust_project,
            as_client,
            own_capabilities: false,
            options: &options,
        },
    )?;
    // Each server's tools are compared with `mcpctl.lock`, if there is one.
    if !no_spawn {
        let explicit = ctx
            .platform
            .var("MCPCTL_MANIFEST")
            .map(std::path::PathBuf::from);
        let file = crate::manifest::lock_file(
            explicit.as_deref(),
            &ctx.project,
            &ctx.platform,
            ctx.state.root(),
        )
        .ok()
        .flatten();
        match file.map(|file| (crate::lock::Lock::read(&file), file)) {
            Some((Ok(Some(lock)), file)) => checkup.compare_with(file, lock),
            Some((Err(error), _)) => printer.stream(&[Block::Warning(format!(
                "{error}; tools not compared with it ({})",
                error.hint()
            ))]),
            _ => {}
        }
    }
    for warning in &checkup.unread {
        printer.stream(&[Block::Warning(warning.clone())]);
    }
    // What a server repeats of the secrets it was given is never printed.
    printer.hide(checkup.passed_secrets());
    for (client, ex) in &checkup.exclusive {
        printer.stream(&[Block::Warning(format!(
            "{} loads only the servers in `{}`: {}",
            client.name,
            ex.file.display(),
            ex.manage
        ))]);
    }

    if let (Some(client), false) = (as_client.filter(|_| !named), no_spawn)
        && checkup.starting() > 0
        && let Some(note) = implied_fallback(client)
    {
        printer.stream(&[Block::Note(note)]);
    }
    let human = Rows::new(&checkup.results, no_spawn, printer.width());
    // Rows of servers that are not started are known now; the others follow as each
    // server finishes, so one slow server hides nothing (and a CI log shows verdicts).
    let total = checkup.starting();
    let streamed = total > 0;
    // The painter outlives the printer's borrows below: it keeps its own home.
    let home = printer.shown_home().map(std::path::Path::to_path_buf);
    let paint = printer.painter().with_home(home.as_deref());
    if streamed {
        stream_rows(&mut checkup, &human, paint, printer, jobs);
    }
    let finished = checkup.finish(ctx, printer);
    let report = DoctorReport {
        results: finished.results,
        tokens: finished.tokens,
        token_method: handshake::tools::TOKEN_METHOD,
        capabilities_fallback: fallback,
        handshakes: finished.handshakes,
        shared: finished.shared,
        summary: finished.summary,
        strict,
        rows: (!streamed).then_some(human),
        clients: clients.len(),
        columns: printer.width(),
    };
    printer.emit(&report)
}

/// Print each row as its verdict comes: those of servers not started first, then each
/// server's as it finishes, so one slow server hides nothing (and a CI log shows
/// verdicts). A failure of a name started for several clients waits for the others:
/// the same failure in each is one row (`✘ filesystem in 6 clients (…)`).
fn stream_rows(
    checkup: &mut doctor::Checkup<'_>,
    human: &Rows,
    paint: Paint<'_>,
    printer: &mut Printer,
    jobs: Option<usize>,
) {
    let total = checkup.starting();
    printer.stream(&[Block::Note(checkup.announcement())]);
    let known: Vec<Piece> = checkup
        .not_started()
        .map(|r| human.piece(r, paint))
        .collect();
    for same in group(known) {
        printer.stream(&human.render(&same, paint));
    }
    // A failure of a name started for several clients waits for the others: the
    // same failure in each is one row (`✘ filesystem in 6 clients (…)`).
    let mut pending = checkup.starting_names();
    let mut held: Vec<Piece> = Vec::new();
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
    checkup.probe(jobs, |result, count| {
        let piece = human.piece(result, paint);
        let left = pending.get_mut(&piece.name).map_or(0, |n| {
            *n = n.saturating_sub(1);
            *n
        });
        let several = left > 0 || held.iter().any(|p| p.name == piece.name);
        let mut rows = Vec::new();
        if piece.status == Status::Fail && several {
            held.push(piece.clone());
        } else {
            rows.extend(human.render(std::slice::from_ref(&piece), paint));
        }
        if left == 0 {
            let (now, later): (Vec<Piece>, Vec<Piece>) =
                held.drain(..).partition(|p| p.name == piece.name);
            held = later;
            for same in group(now) {
                rows.extend(human.render(&same, paint));
            }
        }
        if rows.is_empty() {
            if counting && count < total {
                out.progress(&format!("[{count}/{total}] checked"));
            }
            return;
        }
        if counting {
            out.progress_done();
        }
        out.stream(&rows);
        if counting && count < total {
            out.progress(&format!("[{count}/{total}] checked"));
        }
    });
    printer.progress_done();
}

/// `doctor -c CLIENT` for a client whose row records no capabilities: its servers are
/// started declaring mcpctl's own, said in one line (`None`: the row records them).
fn implied_fallback(client: &crate::clients::Client) -> Option<String> {
    client.loading.capabilities.is_none().then(|| {
        format!(
            "{} (`{}`): its row records no capabilities it declares, so its servers are started declaring mcpctl's own; the tools {} is shown may differ",
            client.name, client.id, client.name
        )
    })
}

/// `doctor URL`: one row for the endpoint, contacted once; the same JSON document as
/// doctor's, with `client` empty.
fn url_report(
    ctx: &Context,
    printer: &mut Printer,
    url: &str,
    options: &handshake::ProbeOptions,
    as_client: Option<&crate::clients::Client>,
    strict: bool,
) -> anyhow::Result<ExitStatus> {
    printer.stream(&[Block::Note(format!(
        "connecting to `{url}` (named on the command line, in no config file)…"
    ))]);
    let result = doctor::probe_url(ctx, url, options, as_client);
    let mut summary = Summary::default();
    summary.count(result.status);
    let results = vec![result];
    let rows = Rows::new(&results, false, printer.width());
    let handshakes = usize::from(results[0].elapsed_ms.is_some());
    printer.emit(&DoctorReport {
        results,
        tokens: Vec::new(),
        token_method: handshake::tools::TOKEN_METHOD,
        capabilities_fallback: as_client.and_then(crate::doctor::probe::capability_fallback),
        handshakes,
        shared: Vec::new(),
        summary,
        strict,
        rows: Some(rows),
        clients: 1,
        columns: printer.width(),
    })
}

impl Report for DoctorReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(self)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        let s = &self.summary;
        if s.ok + s.warn + s.fail + s.skipped == 0 {
            return vec![Block::Note(if self.clients == 0 {
                "nothing to check: no client detected here (`mcpctl clients --all` lists every client mcpctl knows and where it looks)".to_owned()
            } else {
                format!(
                    "no servers configured in {} client{}",
                    self.clients,
                    plural(self.clients)
                )
            })];
        }
        let mut blocks = Vec::new();
        if let Some(rows) = &self.rows {
            let pieces = self.results.iter().map(|r| rows.piece(r, paint)).collect();
            for same in group(pieces) {
                blocks.extend(rows.render(&same, paint));
            }
        }
        for shared in &self.shared {
            // Every client alike: its row (`✘ NAME in N clients`) already says it.
            if shared.clients.iter().all(|v| {
                shared
                    .clients
                    .first()
                    .is_some_and(|f| f.status == v.status && f.reason == v.reason)
            }) {
                continue;
            }
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
            let line = format!("{}: {}", shared.name, verdicts.join(" · "));
            blocks.push(Block::Line(match self.columns {
                Some(columns) => {
                    crate::output::wrap(&line, columns.saturating_sub(2).max(30)).join("\n  ")
                }
                None => line,
            }));
        }
        for total in &self.tokens {
            blocks.push(Block::Line(format!(
                "{}: tool definitions ≈ {} tokens over {} server{}",
                total.client,
                total.tokens,
                total.servers,
                plural(total.servers),
            )));
        }
        // How tokens are estimated, once under the totals (not on every client's line).
        if !self.tokens.is_empty() {
            blocks.push(Block::Line(paint.paint(
                crate::output::Style::Dim,
                &format!("(tokens: {})", self.token_method),
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
