//! `mcpctl doctor`: static checks on every configured server, then (unless `--no-spawn`)
//! a real MCP handshake with each, in parallel, each with its own deadline.
//!
//! It only starts what the user's own config files say, and says so before it does.
//! Static checks never start anything; the handshake lives in `handshake`.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use serde::Serialize;

use crate::check::{self, Finding, Severity, Target};
use crate::cli::DoctorArgs;
use crate::clients::{Client, Scope};
use crate::error::ExitStatus;
use crate::fs;
use crate::handshake::{self, Launch, Probe, ProbeOptions, ProbeWarning, Status as ProbeStatus};
use crate::output::{Block, Paint, Printer, Report, Style};
use crate::session::inventory::{Found, Inventory, collect_all, display_path};
use crate::session::probe::{
    DoctorResult, Status, as_started_by, entry_options, probe_options, static_checks,
};
use crate::session::{Context, targets};
use crate::trust::TrustRule;

/// Files larger than this are not linted by doctor (run `mcpctl check --user` for them).
const LINT_MAX_BYTES: u64 = 4 << 20;
/// Lines of stderr shown under a failed server in the human report.
const STDERR_LINES: usize = 8;

#[derive(Debug, Default, Serialize)]
struct Summary {
    ok: usize,
    warn: usize,
    fail: usize,
    skipped: usize,
}

/// What one client's tool definitions cost, over the servers that answered.
#[derive(Debug, Serialize)]
struct ClientTokens {
    client: String,
    tokens: usize,
    /// Servers counted (an entry identical to one already counted, or shadowed by the
    /// same name in another scope, is counted once).
    servers: usize,
}

/// One entry's verdict in each client that has it (`doctor` starts a server once per
/// distinct environment however many clients list it, and judges it per client).
#[derive(Debug, Serialize)]
struct Shared {
    name: String,
    clients: Vec<ClientVerdict>,
}

#[derive(Debug, Serialize)]
struct ClientVerdict {
    client: String,
    status: Status,
    /// Why not ok, in short (the result's `error` has all of it).
    reason: Option<String>,
}

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
    let Inventory {
        found,
        broken,
        exclusive,
    } = collect_all(ctx, &clients, name.as_deref());
    let parked = parked_results(ctx, &clients, name.as_deref());
    if let Some(name) = &name
        && found.is_empty()
        && broken.is_empty()
        && parked.is_empty()
    {
        return Err(targets::no_server_named(ctx, &clients, name));
    }
    // One result per entry, a few hundred bytes each: sized once (growing by doubling
    // held two copies at 100k entries).
    let mut results: Vec<DoctorResult> = Vec::with_capacity(found.len() + broken.len());
    let env = &options.parent_env;
    let trust = TrustRule::new(&ctx.platform, &ctx.project, trust_project);
    let mut to_probe: Vec<(usize, Launch, ProbeOptions)> = Vec::new();
    let lint = lint_files(ctx, &found);
    // Read once: the clients' switch files and mcpctl's record of parked entries.
    let switches = crate::toggle::Probe::new(ctx).ok();
    // Indexed once: scanning every entry (or finding) per entry is quadratic, and files
    // with tens of thousands of entries exist.
    let mut scopes_of: HashMap<(&str, &str), Vec<Scope>> = HashMap::new();
    // A read-only source's server is not the same entry as a file's of that name (Claude
    // Code namespaces plugin servers; Gemini CLI already marks the extension's not loaded).
    for f in found.iter().filter(|f| f.origin.is_none()) {
        scopes_of
            .entry((f.client.id.as_str(), f.name.as_str()))
            .or_default()
            .push(f.scope);
    }
    let mut lint_of: HashMap<(&str, &Path, &str), Vec<&Finding>> = HashMap::new();
    // Findings about the whole file (a comment Claude Code rejects): one row per file.
    let mut whole_file: Vec<((&str, &Path), Vec<&Finding>)> = Vec::new();
    for (linted, finding) in &lint {
        let linted = &found[*linted];
        let file = (linted.client.id.as_str(), linted.path.as_path());
        match finding.server.as_deref() {
            Some(server) => lint_of
                .entry((file.0, file.1, server))
                .or_default()
                .push(finding),
            None => match whole_file.iter_mut().find(|(f, _)| *f == file) {
                Some((_, findings)) => findings.push(finding),
                None => whole_file.push((file, vec![finding])),
            },
        }
    }
    for (index, f) in found.iter().enumerate() {
        let scopes = scopes_of
            .get(&(f.client.id.as_str(), f.name.as_str()))
            .map_or(&[][..], Vec::as_slice);
        let (mut result, transport) = static_checks(ctx, env, &trust, switches.as_ref(), f, scopes);
        let findings = lint_of
            .get(&(f.client.id.as_str(), f.path.as_path(), f.name.as_str()))
            .map_or(&[][..], Vec::as_slice);
        add_lint_findings(&mut result, findings);
        if let (Some(t), false) = (transport, no_spawn) {
            // Each server starts with the environment its client would give it; with
            // `--as`, as that client would start it, capabilities included.
            let mut probe_options = entry_options(&options, f);
            let launch = as_started_by(
                as_client.unwrap_or(f.client),
                t,
                &mut probe_options,
                as_client.is_some(),
            );
            to_probe.push((index, launch, probe_options));
        }
        results.push(result);
    }
    for b in &broken {
        let mut result = DoctorResult::empty(
            &b.client.id,
            Scope::User,
            String::new(),
            display_path(ctx, &b.path),
        );
        result.record("config", Status::Fail, format!("{:#}", b.error));
        results.push(result);
    }
    for ((client, path), findings) in &whole_file {
        let mut result =
            DoctorResult::empty(client, Scope::User, String::new(), display_path(ctx, path));
        add_lint_findings(&mut result, findings);
        if !result.checks.is_empty() {
            results.push(result);
        }
    }
    results.extend(parked);
    for (client, ex) in &exclusive {
        printer.stream(&[Block::Warning(format!(
            "{} loads only the servers in `{}`: {}",
            client.name,
            ex.file.display(),
            ex.manage
        ))]);
    }

    let width = label_width(&results);
    let human = Rows {
        width,
        no_spawn,
        columns: printer.width(),
    };
    // Rows of servers that are not started are known now; the others follow as each
    // server finishes, so one slow server hides nothing (and a CI log shows verdicts).
    let mut probed = vec![false; results.len()];
    for (index, _, _) in &to_probe {
        probed[*index] = true;
    }
    let mut streamed = false;
    if !to_probe.is_empty() {
        streamed = true;
        let mut ids: Vec<&str> = Vec::new();
        for (i, _, _) in &to_probe {
            let id = found[*i].client.id.as_str();
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        let sources = if to_probe.iter().any(|(i, _, _)| found[*i].origin.is_some()) {
            " and in the plugins, extensions and managed files your clients load"
        } else {
            ""
        };
        // The count is of the rows that follow; the ones not started say why.
        for r in &results {
            if !ids.contains(&r.client.as_str()) {
                ids.push(&r.client);
            }
        }
        let started = if to_probe.len() == results.len() {
            String::new()
        } else {
            format!(", starting {}", to_probe.len())
        };
        printer.stream(&[Block::Note(format!(
            "checking {} server{} in {} client{} ({}){started} — this starts the commands and contacts the URLs in your config files{sources}",
            results.len(),
            plural(results.len()),
            ids.len(),
            plural(ids.len()),
            ids.join(", ")
        ))]);
        let paint = printer.painter();
        for (index, result) in results.iter().enumerate() {
            if !probed[index] {
                printer.stream(&human.row(result, paint));
            }
        }
        let total = to_probe.len();
        let launches: Vec<(Launch, ProbeOptions)> = to_probe
            .iter()
            .map(|(_, t, o)| (t.clone(), o.clone()))
            .collect();
        // A redrawn count on a terminal only: in a log the rows are the progress.
        let counting = printer.stderr_tty;
        if counting {
            printer.progress(&format!("[0/{total}] starting…"));
        }
        // More servers at once than cores made healthy servers time out on a busy machine.
        let jobs = jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(4, usize::from))
            .max(1);
        let busy = jobs.min(total);
        let merged = Mutex::new(Merged {
            results: &mut results,
            printer: &mut *printer,
            done: vec![false; total],
            count: 0,
        });
        let probes = handshake::probe_many(launches, jobs, |i, probe| {
            let Ok(mut merged) = merged.lock() else {
                return;
            };
            let (index, launch, _) = &to_probe[i];
            merge_probe(
                &mut merged.results[*index],
                as_client.unwrap_or(found[*index].client),
                launch,
                probe.clone(),
                busy,
            );
            merged.done[i] = true;
            merged.count += 1;
            let row = human.row(&merged.results[*index], paint);
            let count = merged.count;
            let printer = &mut *merged.printer;
            if counting {
                printer.progress_done();
            }
            printer.stream(&row);
            if counting && count < total {
                printer.progress(&format!("[{count}/{total}] checked"));
            }
        });
        let Merged {
            results: merged_results,
            printer: merged_printer,
            done,
            ..
        } = merged
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        merged_printer.progress_done();
        // A probe whose thread died reported nothing yet: fold in what probe_many says.
        for ((i, probe), (index, launch, _)) in probes.into_iter().enumerate().zip(&to_probe) {
            if !done[i] {
                merge_probe(
                    &mut merged_results[*index],
                    as_client.unwrap_or(found[*index].client),
                    launch,
                    probe,
                    busy,
                );
                let row = human.row(&merged_results[*index], paint);
                merged_printer.stream(&row);
            }
        }
    }
    remember_tokens(ctx, printer, &found, &results, &to_probe);
    let tokens = client_tokens(&results, &to_probe);
    let (handshakes, shared) = shared_verdicts(&results, &to_probe);

    let mut summary = Summary::default();
    for r in &results {
        match r.status {
            Status::Ok => summary.ok += 1,
            Status::Warn => summary.warn += 1,
            Status::Fail => summary.fail += 1,
            Status::Skipped => summary.skipped += 1,
        }
    }
    printer.emit(&DoctorReport {
        results,
        tokens,
        token_method: handshake::tools::TOKEN_METHOD,
        handshakes,
        shared,
        summary,
        strict,
        rows: (!streamed).then_some(human),
        clients: clients.len(),
    })
}

/// The shared state of the probe threads: the results, and stdout for their rows.
struct Merged<'r, 'p> {
    results: &'r mut Vec<DoctorResult>,
    printer: &'p mut Printer,
    /// Which probes have been folded in.
    done: Vec<bool>,
    count: usize,
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

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Entries `mcpctl disable` parked (cut out of their file): skipped, with the way back.
fn parked_results(ctx: &Context, clients: &[&Client], name: Option<&str>) -> Vec<DoctorResult> {
    let Ok(store) = crate::toggle::store::load(ctx) else {
        return Vec::new();
    };
    store
        .parked
        .iter()
        .filter(|p| clients.iter().any(|c| c.id == p.client))
        .filter(|p| name.is_none_or(|n| n == p.entry.name))
        .map(|p| {
            let message = format!(
                "parked by `mcpctl disable` (not in the file, so not started); `mcpctl enable {} -c {}` puts it back",
                p.entry.name, p.client
            );
            let mut result = DoctorResult::empty(
                &p.client,
                p.scope,
                p.entry.name.clone(),
                display_path(ctx, &p.path),
            );
            result.record("enabled", Status::Skipped, message);
            result
        })
        .collect()
}

/// `check`'s rules over each user/project file (small ones: the lint tree holds the whole
/// file); each finding with the index in `found` of an entry of its file (for its client
/// and path, not copied per finding).
fn lint_files(ctx: &Context, found: &[Found<'_>]) -> Vec<(usize, Finding)> {
    let mut seen: Vec<(&str, &Path)> = Vec::new();
    let mut out = Vec::new();
    for (index, f) in found.iter().enumerate() {
        let key = (f.client.id.as_str(), f.path.as_path());
        if f.origin.is_some()
            || !matches!(f.scope, Scope::User | Scope::Project)
            || seen.contains(&key)
        {
            continue;
        }
        seen.push(key);
        if std::fs::metadata(&f.path).map_or(true, |m| m.len() > LINT_MAX_BYTES) {
            continue;
        }
        let Ok(source) = fs::read_source(&f.path) else {
            continue;
        };
        let target = Target {
            client: f.client,
            scope: f.scope,
            os: ctx.platform.os,
            // Its own `policy` check says what a policy blocks.
            policy: &[],
        };
        for finding in check::check_text(
            &display_path(ctx, &f.path),
            &source.text,
            source.bom,
            &target,
        ) {
            out.push((index, finding));
        }
    }
    out
}

/// Attach the lint findings about this entry: errors fail it (the client ignores or
/// rejects what is written), warnings warn; notes are left to `mcpctl check`.
fn add_lint_findings(result: &mut DoctorResult, findings: &[&Finding]) {
    if result.status == Status::Skipped {
        return;
    }
    for finding in findings {
        let status = match finding.severity {
            Severity::Error => Status::Fail,
            Severity::Warning => Status::Warn,
            Severity::Info => continue,
        };
        let message = format!(
            "{} (check {}, line {})",
            finding.message, finding.code, finding.line
        );
        result.record("config", status, message);
    }
}

/// Keep what was measured for `profiles` (a cache: failing to save it is only a warning).
fn remember_tokens(
    ctx: &Context,
    printer: &Printer,
    found: &[Found<'_>],
    results: &[DoctorResult],
    probed: &[(usize, Launch, ProbeOptions)],
) {
    let measured: Vec<_> = probed
        .iter()
        .filter_map(|(index, _, _)| {
            let result = &results[*index];
            let entry = found[*index].entry.as_ref().ok()?;
            Some((entry, result.tokens?, result.tools?))
        })
        .collect();
    if let Err(e) = ctx.state.remember_tokens(&measured) {
        printer.warn(&format!("could not remember the token estimates: {e}"));
    }
}

/// Per client, the sum of the token estimates of the servers that answered; an entry
/// started the same way as one counted, or with the same name (another scope), adds
/// nothing.
fn client_tokens(
    results: &[DoctorResult],
    probed: &[(usize, Launch, ProbeOptions)],
) -> Vec<ClientTokens> {
    let mut totals: Vec<ClientTokens> = Vec::new();
    let mut counted: Vec<(&str, &str, &Launch)> = Vec::new();
    for (index, launch, _) in probed {
        let result = &results[*index];
        // A server the client cannot use (it fails there) costs that client nothing.
        let (Some(tokens), false) = (result.tokens, result.status == Status::Fail) else {
            continue;
        };
        let client = result.client.as_str();
        let duplicate = counted
            .iter()
            .any(|(c, n, l)| *c == client && (*n == result.name || *l == launch));
        if duplicate {
            continue;
        }
        counted.push((client, &result.name, launch));
        match totals.iter_mut().find(|t| t.client == client) {
            Some(total) => {
                total.tokens += tokens;
                total.servers += 1;
            }
            None => totals.push(ClientTokens {
                client: client.to_owned(),
                tokens,
                servers: 1,
            }),
        }
    }
    totals
}

/// How many distinct handshakes the probes make (identical plan, limit, environment,
/// capabilities), and for each entry (name and target) more than one client has, the
/// verdict per client.
fn shared_verdicts(
    results: &[DoctorResult],
    probed: &[(usize, Launch, ProbeOptions)],
) -> (usize, Vec<Shared>) {
    let mut firsts: Vec<usize> = Vec::new();
    for (i, (_, launch, options)) in probed.iter().enumerate() {
        let seen = firsts.iter().any(|&f| {
            let (_, l, o) = &probed[f];
            handshake::same_probe((l, o), (launch, options))
        });
        if !seen {
            firsts.push(i);
        }
    }
    // The same entry in several clients, whichever handshakes served it.
    let mut entries: Vec<Vec<&DoctorResult>> = Vec::new();
    let mut slot: HashMap<(&str, &str), usize> = HashMap::new();
    for (index, _, _) in probed {
        let r = &results[*index];
        match slot.get(&(r.name.as_str(), r.target.as_str())) {
            Some(&at) => entries[at].push(r),
            None => {
                slot.insert((&r.name, &r.target), entries.len());
                entries.push(vec![r]);
            }
        }
    }
    let shared = entries
        .iter()
        .filter_map(|rows| {
            let first = rows.first()?;
            if rows.iter().all(|r| r.client == first.client) {
                return None;
            }
            Some(Shared {
                name: first.name.clone(),
                clients: rows
                    .iter()
                    .map(|r| ClientVerdict {
                        client: r.client.clone(),
                        status: r.status,
                        reason: r
                            .error
                            .as_deref()
                            .map(|e| e.split(':').next().unwrap_or(e).trim().to_owned()),
                    })
                    .collect(),
            })
        })
        .collect();
    (firsts.len(), shared)
}

/// Fold a probe into the result. `busy`: how many servers were probed at once.
fn merge_probe(
    result: &mut DoctorResult,
    client: &Client,
    launch: &Launch,
    probe: Probe,
    busy: usize,
) {
    let fell_back = probe.warnings.contains(&ProbeWarning::FellBackToSse);
    let era_mismatch = probe
        .protocol_era
        .filter(|_| probe.failure.is_none())
        .and_then(|era| crate::loads::era_mismatch(client, era, &probe.supported_versions));
    let (status, message) = match (&probe.status, &probe.failure) {
        _ if era_mismatch.is_some() => (Status::Fail, era_mismatch.clone().unwrap_or_default()),
        (ProbeStatus::Fail, Some(f @ handshake::ProbeError::Timeout { .. }))
            if probe.stderr_tail.is_empty() && launcher(&result.target).is_some() =>
        {
            (
                Status::Fail,
                format!(
                    "{f}; `{}` said nothing: it may be downloading the package or waiting for its registry (run it once by hand, or raise --timeout)",
                    launcher(&result.target).unwrap_or_default()
                ),
            )
        }
        (ProbeStatus::Warn, _) if fell_back && !client.fields.sse_fallback => (
            Status::Fail,
            format!(
                "`{}` serves only legacy SSE, and {} does not fall back to it (it reports \"MCP endpoint not found\"); set the entry's transport to `sse`",
                result.target, client.name
            ),
        ),
        (ProbeStatus::Fail, Some(f @ handshake::ProbeError::Timeout { .. })) if busy > 1 => (
            Status::Fail,
            format!(
                "{f}; {} other server{} started at the same time: if it passes alone \
                 (`mcpctl doctor {}`), lower --jobs",
                busy - 1,
                plural(busy - 1),
                result.name
            ),
        ),
        (ProbeStatus::Fail, Some(f)) => (Status::Fail, f.to_string()),
        (ProbeStatus::Fail, None) => (Status::Fail, "handshake failed".to_owned()),
        (ProbeStatus::Warn, _) => (
            Status::Warn,
            probe
                .warnings
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        ),
        (ProbeStatus::Ok, _) => (
            Status::Ok,
            "initialize, notifications/initialized and tools/list succeeded".to_owned(),
        ),
    };
    result.record("handshake", status, message);
    if let Some(version) = &probe.protocol_version
        && version != handshake::PROTOCOL_VERSION
        && probe.failure.is_none()
    {
        result.record(
            "protocol",
            Status::Ok,
            format!(
                "speaks protocol {version}, older than mcpctl's {} (clients accept it)",
                handshake::PROTOCOL_VERSION
            ),
        );
    }
    result.server_name = probe.server_name;
    result.server_version = probe.server_version;
    result.protocol_era = probe.protocol_era;
    result.protocol_version = probe.protocol_version;
    result.tools = probe.tools;
    result.tokens = probe.tokens;
    result.tool_names = probe.tool_names;
    result.capabilities = probe.capabilities;
    result.instructions_chars = probe.instructions_chars;
    if status == Status::Fail {
        result.started = Some(started(launch, &result.target));
    }
    result.elapsed_ms = Some(probe.elapsed_ms);
    result.phases = probe.phases;
    result.stderr_tail = probe.stderr_tail;
}

/// What was started, for a failure report: the resolved program with the entry's
/// arguments as written (`target` minus its command), or the URL as written.
fn started(launch: &Launch, target: &str) -> String {
    match launch {
        Launch::Stdio { program, .. } => {
            let args = target.split_once(' ').map_or("", |(_, rest)| rest);
            format!("{} {args}", program.display())
                .trim_end()
                .to_owned()
        }
        Launch::Remote { .. } => target.to_owned(),
    }
}

/// The package launcher a command line starts with (`npx`, `uvx`, `pnpm dlx`, `bunx`,
/// `pipx run`, `yarn dlx`), which may spend minutes downloading before the server runs.
fn launcher(target: &str) -> Option<String> {
    let mut words = target.split_whitespace();
    let command = words.next()?;
    let stem = command
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(command)
        .trim_end_matches(".cmd")
        .trim_end_matches(".exe");
    let second = words.next().unwrap_or("");
    match (stem, second) {
        ("npx" | "uvx" | "bunx" | "pnpx", _) => Some(stem.to_owned()),
        ("pnpm" | "yarn", "dlx") | ("pipx", "run") => Some(format!("{stem} {second}")),
        _ => None,
    }
}

impl Report for DoctorReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(self)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        if self.results.is_empty() {
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

/// The mark and colour of a verdict.
fn mark_of(status: Status) -> (&'static str, Style) {
    match status {
        Status::Ok => ("✔", Style::Ok),
        Status::Warn => ("⚠", Style::Warn),
        Status::Fail => ("✘", Style::Fail),
        Status::Skipped => ("-", Style::Dim),
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
struct Rows {
    /// Labels are padded to this width.
    width: usize,
    no_spawn: bool,
    /// The terminal's width (`None`: do not wrap).
    columns: Option<usize>,
}

impl Rows {
    /// The verdict line for one server, and under a failure the telling lines of its
    /// stderr.
    fn row(&self, r: &DoctorResult, paint: Paint) -> Vec<Block> {
        let (mark, style) = mark_of(r.status);
        let label = if r.name.is_empty() {
            format!("{} ({})", r.client, r.path)
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
                .map(|c| c.message.clone())
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
