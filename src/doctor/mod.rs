//! doctor's engine: every configured entry's static checks and lint findings (`gather`),
//! the handshakes in parallel with each verdict handed back as it is ready (`probe`),
//! and what is added up over the rows (`finish`). The verb parses flags and prints;
//! the handshake itself lives in `handshake`.

mod lint;
pub(crate) mod locked;
pub mod probe;
mod rows;
mod totals;
mod verdict;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

pub(crate) use rows::{Piece, Rows, group, mark_of, plural};
pub(crate) use totals::{ClientTokens, Shared, Summary};

use crate::check::Finding;
use crate::clients::loading::EraName;
use crate::clients::{Client, Scope};
use crate::doctor::probe::{DoctorResult, Status, as_started_by, entry_options, static_checks};
use crate::handshake::{self, Launch, Opening, ProbeOptions};
use crate::output::Printer;
use crate::session::inventory::{Found, Inventory, collect_all};
use crate::session::{Context, targets};
use crate::sources::Exclusive;
use crate::trust::TrustRule;

/// What doctor is asked to look at, and how.
pub(crate) struct Request<'a, 'c> {
    pub(crate) clients: &'a [&'c Client],
    /// Only servers of these names (none: every server).
    pub(crate) names: &'a [String],
    pub(crate) no_spawn: bool,
    pub(crate) trust_project: bool,
    /// `--as X`: every entry started and judged as X would start it.
    pub(crate) as_client: Option<&'c Client>,
    /// Each entry declares its own client's capabilities (where its row records them),
    /// as `budget --measure` measures each client's tools: without it, mcpctl's own.
    pub(crate) own_capabilities: bool,
    pub(crate) options: &'a ProbeOptions,
}

/// The entries found, their results so far, and the handshakes still to make.
pub(crate) struct Checkup<'c> {
    found: Vec<Found<'c>>,
    /// One per entry, unreadable file, file-wide finding and parked entry, in that order.
    pub(crate) results: Vec<DoctorResult>,
    /// The index in `results` (and `found`) of each entry to start, as it is started.
    to_probe: Vec<(usize, Launch, ProbeOptions)>,
    /// Clients whose servers an administrator's file controls exclusively.
    pub(crate) exclusive: Vec<(&'c Client, Exclusive)>,
    as_client: Option<&'c Client>,
    /// `mcpctl.lock` and where it was read, to compare each server's tools with.
    lock: Option<(std::path::PathBuf, crate::lock::Lock)>,
    /// With NAMEs: the files that could not be read (they may hold one), as warnings.
    pub(crate) unread: Vec<String>,
}

/// What doctor adds up once every verdict is in.
pub(crate) struct Finished {
    pub(crate) results: Vec<DoctorResult>,
    pub(crate) tokens: Vec<ClientTokens>,
    /// Distinct handshakes made (identical entries in several clients share one).
    pub(crate) handshakes: usize,
    pub(crate) shared: Vec<Shared>,
    pub(crate) summary: Summary,
}

/// The scopes each client's entry of a name is defined in. A read-only source's server is
/// not the same entry as a file's of that name (Claude Code namespaces plugin servers;
/// Gemini CLI already marks the extension's not loaded); nor is a project's override of
/// it (`enabled = false` or a tool filter alone, merged into the user's entry by the
/// client): no scope wins over the other.
fn scopes_of<'f>(found: &'f [Found<'_>]) -> HashMap<(&'f str, &'f str), Vec<Scope>> {
    let mut scopes_of: HashMap<(&str, &str), Vec<Scope>> = HashMap::new();
    for f in found
        .iter()
        .filter(|f| f.origin.is_none())
        .filter(|f| f.entry().is_ok() || !crate::entry::is_override(f.client, f.raw()))
    {
        scopes_of
            .entry((f.client.id.as_str(), f.name.as_str()))
            .or_default()
            .push(f.scope);
    }
    scopes_of
}
/// Every entry's static checks and lint findings; what is runnable is queued to start
/// (unless `no_spawn`). A name nothing has is an error.
pub(crate) fn gather<'c>(ctx: &Context, request: &Request<'_, 'c>) -> anyhow::Result<Checkup<'c>> {
    let Request {
        clients,
        names,
        no_spawn,
        trust_project,
        as_client,
        own_capabilities,
        options,
    } = *request;
    let one = match names {
        [one] => Some(one.as_str()),
        _ => None,
    };
    let Inventory {
        mut found,
        broken,
        exclusive,
    } = collect_all(ctx, clients, one);
    if !names.is_empty() {
        found.retain(|f| names.contains(&f.name));
    }
    let mut parked = lint::parked_results(ctx, clients, one);
    if !names.is_empty() {
        parked.retain(|p| names.contains(&p.name));
    }
    // A name nothing has is an error (a typo checks nothing); a file that cannot be read
    // may hold it, and is said on its own.
    for name in names {
        if !found.iter().any(|f| f.name == *name)
            && !parked.iter().any(|p| p.name == *name)
            && (broken.is_empty() || targets::closest_server(ctx, clients, name).is_some())
        {
            return Err(targets::no_server_named(ctx, clients, name));
        }
    }
    // With NAMEs, an unreadable file is no row of theirs: a warning says it may hold them.
    let (broken, unread) = if names.is_empty() {
        (broken, Vec::new())
    } else {
        (Vec::new(), broken)
    };
    let mut results: Vec<DoctorResult> = Vec::with_capacity(found.len() + broken.len());
    let env = &options.parent_env;
    let trust = TrustRule::new(&ctx.platform, &ctx.project, trust_project);
    let mut to_probe: Vec<(usize, Launch, ProbeOptions)> = Vec::new();
    let lint = lint::lint_files(ctx, &found);
    // Read once: the clients' switch files and mcpctl's record of parked entries.
    let switches = crate::toggle::Probe::new(ctx).ok();
    // Indexed once: scanning every entry (or finding) per entry is quadratic, and files
    // with tens of thousands of entries exist.
    let scopes_of = scopes_of(&found);
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
    // What is not an entry's row, in order: unreadable files, file-wide findings, parked
    // entries (few).
    let mut others: Vec<DoctorResult> = Vec::new();
    for b in &broken {
        let mut result =
            DoctorResult::empty(&b.client.id, Scope::User, String::new(), b.path.clone());
        result.record("config", Status::Fail, format!("{:#}", b.error));
        others.push(result);
    }
    for ((client, path), findings) in &whole_file {
        let mut result =
            DoctorResult::empty(client, Scope::User, String::new(), path.to_path_buf());
        lint::add_lint_findings(&mut result, findings);
        if !result.checks.is_empty() {
            others.push(result);
        }
    }
    others.extend(parked);
    for (index, f) in found.iter().enumerate() {
        let scopes = scopes_of
            .get(&(f.client.id.as_str(), f.name.as_str()))
            .map_or(&[][..], Vec::as_slice);
        let result = {
            let (mut result, transport) =
                static_checks(ctx, env, &trust, switches.as_ref(), f, scopes);
            let findings = lint_of
                .get(&(f.client.id.as_str(), f.path.as_path(), f.name.as_str()))
                .map_or(&[][..], Vec::as_slice);
            lint::add_lint_findings(&mut result, findings);
            if let (Some(t), false) = (transport, no_spawn) {
                // Each server starts with the environment its client would give it; with
                // `--as`, as that client would start it, capabilities included.
                let mut probe_options = entry_options(options, f);
                let judged_as = as_client.unwrap_or(f.client);
                let declare = as_client.is_some() || own_capabilities;
                let launch = as_started_by(judged_as, t, &mut probe_options, declare);
                // A client that speaks only the `initialize` era opens with it: before a
                // server is failed for naming only modern versions, that is tried too.
                if judged_as.loading.speaks(EraName::Modern) == Some(false) {
                    probe_options.opening = Opening::DiscoverThenInitialize;
                }
                to_probe.push((index, launch, probe_options));
            }
            result
        };
        results.push(result);
    }
    results.extend(others);
    let unread = unread
        .iter()
        .map(|b| {
            format!(
                "{:#}; not read, so it may hold {} too",
                b.error,
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect();
    Ok(Checkup {
        found,
        results,
        to_probe,
        exclusive,
        as_client,
        lock: None,
        unread,
    })
}

impl Checkup<'_> {
    /// Start only the entries `keep` says yes to (`budget --measure`: the unmeasured).
    pub(crate) fn keep_probes(&mut self, keep: impl Fn(&Found<'_>) -> bool) {
        let found = &self.found;
        self.to_probe.retain(|(index, _, _)| keep(&found[*index]));
    }

    /// How many of the servers to start have each name (a name started for several
    /// clients can fail alike in each: `doctor` then prints one row for them).
    pub(crate) fn starting_names(&self) -> HashMap<String, usize> {
        let mut names: HashMap<String, usize> = HashMap::new();
        for (index, _, _) in &self.to_probe {
            *names.entry(self.results[*index].name.clone()).or_default() += 1;
        }
        names
    }

    /// How many servers will be started.
    pub(crate) fn starting(&self) -> usize {
        self.to_probe.len()
    }

    /// What doctor says before it starts anything: how many rows follow, from which
    /// clients, and that it starts what the config files say.
    pub(crate) fn announcement(&self) -> String {
        let found = &self.found;
        let mut ids: Vec<&str> = Vec::new();
        for (i, _, _) in &self.to_probe {
            let id = found[*i].client.id.as_str();
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        let sources = if self
            .to_probe
            .iter()
            .any(|(i, _, _)| found[*i].origin.is_some())
        {
            " and in the plugins, extensions and managed files your clients load"
        } else {
            ""
        };
        // The count is of the rows that follow; the ones not started say why.
        for r in &self.results {
            if !ids.contains(&r.client.as_str()) {
                ids.push(&r.client);
            }
        }
        let started = if self.to_probe.len() == self.results.len() {
            String::new()
        } else {
            format!(", starting {}", self.to_probe.len())
        };
        format!(
            "checking {} server{} in {} client{} ({}){started} — this starts the commands and contacts the URLs in your config files{sources}",
            self.results.len(),
            plural(self.results.len()),
            ids.len(),
            plural(ids.len()),
            ids.join(", ")
        )
    }

    /// The values handed to the servers to start, which they may repeat
    /// (`Launch::passed_secrets`).
    pub(crate) fn passed_secrets(&self) -> Vec<String> {
        self.to_probe
            .iter()
            .flat_map(|(_, launch, options)| launch.passed_secrets(&options.parent_env))
            .collect()
    }

    /// The results whose verdict is known without starting anything.
    pub(crate) fn not_started(&self) -> impl Iterator<Item = &DoctorResult> {
        let mut probed = vec![false; self.results.len()];
        for (index, _, _) in &self.to_probe {
            probed[*index] = true;
        }
        self.results
            .iter()
            .zip(probed)
            .filter_map(|(r, probed)| (!probed).then_some(r))
    }

    /// Compare each server's tools with `lock` (read from `file`) as its verdict comes.
    pub(crate) fn compare_with(&mut self, file: std::path::PathBuf, lock: crate::lock::Lock) {
        self.lock = Some((file, lock));
    }

    /// Start only the entries `keep` (by name) wants; the others are not started.
    pub(crate) fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        let found = &self.found;
        self.to_probe.retain(|(i, _, _)| keep(&found[*i].name));
    }

    /// The names of the entries found, in order, each once.
    pub(crate) fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for f in &self.found {
            if !names.contains(&f.name.as_str()) {
                names.push(&f.name);
            }
        }
        names
    }

    /// The index in `results` of each entry started (after `probe`: its verdict).
    pub(crate) fn started(&self) -> Vec<usize> {
        self.to_probe.iter().map(|(i, _, _)| *i).collect()
    }

    /// The capabilities each entry started declares, by its index in `results` (`None`:
    /// mcpctl's own).
    pub(crate) fn declared(&self) -> HashMap<usize, Option<serde_json::Value>> {
        self.to_probe
            .iter()
            .map(|(i, _, options)| (*i, options.capabilities.clone()))
            .collect()
    }

    /// Start the queued servers, at most `jobs` at once, and fold each handshake into its
    /// result; `on_done(result, count)` runs as each verdict is ready (`count` of them so
    /// far), from the probe threads. They start in the order of the rows.
    pub(crate) fn probe(&mut self, jobs: usize, on_done: impl FnMut(&DoctorResult, usize) + Send) {
        let Checkup {
            found,
            results,
            to_probe,
            as_client,
            lock,
            ..
        } = self;
        let (found, to_probe, as_client, lock) = (&*found, &*to_probe, *as_client, &*lock);
        let busy = jobs.min(to_probe.len());
        let launches: Vec<(Launch, ProbeOptions)> = to_probe
            .iter()
            .map(|(_, t, o)| (t.clone(), o.clone()))
            .collect();
        let merged = Mutex::new(Merged {
            results,
            on_done,
            done: vec![false; to_probe.len()],
            count: 0,
        });
        let probes = handshake::probe_many(launches, jobs, |i, probe| {
            let Ok(mut merged) = merged.lock() else {
                return;
            };
            let (index, launch, options) = &to_probe[i];
            let merged = &mut *merged;
            verdict::merge_probe(
                &mut merged.results[*index],
                as_client.unwrap_or(found[*index].client),
                launch,
                probe.clone(),
                busy,
            );
            if let Some((file, lock)) = lock {
                locked::compare(
                    &mut merged.results[*index],
                    file,
                    lock,
                    options.capabilities.as_ref(),
                );
            }
            merged.done[i] = true;
            merged.count += 1;
            (merged.on_done)(&merged.results[*index], merged.count);
        });
        let mut merged = merged
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // A probe whose thread died reported nothing yet: fold in what probe_many says.
        for ((i, probe), (index, launch, options)) in probes.into_iter().enumerate().zip(to_probe) {
            if !merged.done[i] {
                verdict::merge_probe(
                    &mut merged.results[*index],
                    as_client.unwrap_or(found[*index].client),
                    launch,
                    probe,
                    busy,
                );
                if let Some((file, lock)) = lock {
                    locked::compare(
                        &mut merged.results[*index],
                        file,
                        lock,
                        options.capabilities.as_ref(),
                    );
                }
                merged.count += 1;
                (merged.on_done)(&merged.results[*index], merged.count);
            }
        }
    }

    /// Remember the token estimates for `profiles`, and add up the rows.
    pub(crate) fn finish(self, ctx: &Context, printer: &Printer) -> Finished {
        let Checkup {
            found,
            results,
            to_probe,
            ..
        } = self;
        totals::remember_tokens(ctx, printer, &found, &results, &to_probe);
        let tokens = totals::client_tokens(&results, &to_probe);
        let (handshakes, shared) = totals::shared_verdicts(&results, &to_probe);
        let mut summary = Summary::default();
        for r in &results {
            summary.count(r.status);
        }
        Finished {
            results,
            tokens,
            handshakes,
            shared,
            summary,
        }
    }
}

/// `mcpctl doctor URL`: an endpoint no config file names yet (MCP209's "does it also
/// serve Streamable HTTP?"), contacted once as doctor contacts a remote entry: the URL's
/// static checks (`prepare`), then the handshake, judged as `as_client` would judge it
/// when one is named. Nothing is started: a URL the user typed is only connected to,
/// so no trust rule holds it back (doctor's is for what project files start). The
/// transport is the URL's (`/sse`: legacy SSE, else Streamable HTTP).
pub(crate) fn probe_url(
    ctx: &Context,
    url: &str,
    options: &ProbeOptions,
    as_client: Option<&Client>,
) -> DoctorResult {
    let transport = crate::entry::Transport::Remote {
        url: url.to_owned(),
        kind: crate::entry::RemoteKind::of_url(url),
        headers: crate::entry::StringMap::new(),
    };
    let mut result = DoctorResult::empty("", Scope::User, url.to_owned(), ctx.platform.cwd.clone());
    let host = handshake::Host {
        target_os: ctx.platform.os,
        host_os: crate::platform::Os::host(),
        env: &options.parent_env,
        cwd: &ctx.platform.cwd,
        wrap_windows: false,
    };
    let prepared = handshake::prepare(&transport, &host);
    result.target = prepared.target;
    for finding in prepared.findings {
        let status = match finding.level {
            handshake::Level::Ok => Status::Ok,
            handshake::Level::Warn => Status::Warn,
            handshake::Level::Fail => Status::Fail,
        };
        result.record(finding.check, status, finding.message);
    }
    let Ok(launch) = prepared.launch else {
        return result;
    };
    let probe = handshake::probe_launch(&launch, options);
    match as_client {
        Some(client) => verdict::merge_probe(&mut result, client, &launch, probe, 1),
        None => url_verdict(&mut result, probe),
    }
    result
}

/// A URL's handshake judged by the protocol alone (no client to judge it as): the
/// failure, the warnings, or what succeeded, and what the server said of itself.
fn url_verdict(result: &mut DoctorResult, probe: handshake::Probe) {
    let (status, message) = match (&probe.status, &probe.failure) {
        (handshake::Status::Fail, Some(failure)) => (Status::Fail, failure.to_string()),
        (handshake::Status::Fail, None) => (Status::Fail, "handshake failed".to_owned()),
        (handshake::Status::Warn, _) => (
            Status::Warn,
            probe
                .warnings
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        ),
        (handshake::Status::Ok, _) => (
            Status::Ok,
            match probe.protocol_era {
                Some(handshake::Era::Modern) => "server/discover and tools/list succeeded",
                _ => "initialize, notifications/initialized and tools/list succeeded",
            }
            .to_owned(),
        ),
    };
    result.record("handshake", status, message);
    if status == Status::Fail {
        result.started = Some(result.target.clone());
    }
    verdict::take_findings(result, probe);
}

/// The shared state of the probe threads: the results, and who is told of each verdict.
struct Merged<'r, F> {
    results: &'r mut Vec<DoctorResult>,
    on_done: F,
    /// Which probes have been folded in.
    done: Vec<bool>,
    count: usize,
}
