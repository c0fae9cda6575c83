//! `mcpctl lock`: record what each server's tools are now in `mcpctl.lock` (beside the
//! manifest in use, else in the state directory), from fresh handshakes made by doctor's
//! engine under doctor's trust rules. `doctor` then reports a server whose tools changed.
//!
//! Which servers: the ones named; else the manifest's; else every server the clients
//! read have. A server that does not answer keeps its old record (said per server), and
//! a server no longer configured is dropped only when the whole set was locked.

use std::path::PathBuf;

use serde::Serialize;

use crate::cli::{LockArgs, ManifestArgs};
use crate::doctor::probe::{DoctorResult, Status, probe_options};
use crate::doctor::{self, Request, plural};
use crate::error::{ExitStatus, UserError};
use crate::handshake::clean_text;
use crate::lock::{Changes, Lock, LockedServer};
use crate::manifest::Manifest;
use crate::output::{Block, Paint, Printer, Report, Style};
use crate::session::{Context, edit, targets};

/// What happened to one server's record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Outcome {
    /// Locked for the first time.
    Added,
    /// Its tools changed since the record: the record is replaced.
    Updated,
    Unchanged,
    /// Not started or did not answer: its old record (if any) is kept.
    Failed,
    /// Not started because every client that has it has it switched off or does not load
    /// it (nothing is wrong with it): its old record (if any) is kept, and the run does
    /// not fail.
    Skipped,
    /// No longer configured (or no longer in the manifest): its record is removed.
    Dropped,
}

#[derive(Debug, Serialize)]
struct Row {
    name: String,
    outcome: Outcome,
    /// The client whose entry was started.
    client: Option<String>,
    server_name: Option<String>,
    server_version: Option<String>,
    tools: Option<usize>,
    tokens: Option<usize>,
    /// What changed since the old record (`updated`).
    #[serde(skip_serializing_if = "Option::is_none")]
    changes: Option<Changes>,
    /// Why it failed, or a note (another client's entry lists other tools).
    reason: Option<String>,
    /// `failed`: whether an old record was kept.
    kept: bool,
}

#[derive(Debug, Serialize)]
struct LockReport {
    #[serde(serialize_with = "crate::output::path_json")]
    file: PathBuf,
    /// Whether the file was written (it is not when nothing changed).
    written: bool,
    /// Servers the file has a record of.
    records: usize,
    servers: Vec<Row>,
}

pub fn run(args: LockArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let LockArgs {
        names,
        clients,
        timeout,
        jobs,
        trust_project,
        manifest,
    } = args;
    let options = probe_options(ctx, timeout)?;
    let manifest = in_use(ctx, manifest)?;
    let Some(file) = crate::lock::path_for(
        manifest.as_ref().map(|m| m.path.as_path()),
        ctx.state.root(),
    ) else {
        return Err(UserError::new("no state directory to keep mcpctl.lock in")
            .hint("set HOME, or MCPCTL_STATE_DIR to a writable directory, or use a manifest")
            .into());
    };
    if let Some(m) = &manifest {
        printer.note(&format!(
            "locking the servers of the manifest `{}`",
            crate::output::file(&m.path)
        ));
    }
    let old = match Lock::read(&file) {
        Ok(old) => old,
        Err(error) => {
            printer.warn(&format!("{error}; it is written anew"));
            None
        }
    };
    let narrowed = !names.is_empty() || !clients.is_empty();
    let clients = if clients.is_empty() {
        targets::detected_to_read(ctx)
    } else {
        targets::by_ids(ctx, &clients)?
    };
    // As doctor: one client named is the client the servers are started as.
    let as_client = match clients.as_slice() {
        [one] => Some(*one),
        _ => None,
    };
    let mut checkup = doctor::gather(
        ctx,
        &Request {
            clients: &clients,
            names: &[],
            no_spawn: false,
            trust_project,
            as_client,
            // Each entry as its client starts it, its capabilities declared: a server
            // may list other tools to each, kept as a profile of its record.
            own_capabilities: true,
            options: &options,
        },
    )?;
    let found: Vec<String> = checkup.names().into_iter().map(str::to_owned).collect();
    let wanted = wanted(ctx, &clients, names, manifest.as_ref(), found)?;
    checkup.retain(|name| wanted.iter().any(|w| w == name));
    printer.hide(checkup.passed_secrets());
    let starting = checkup.starting();
    if starting > 0 {
        printer.note(&format!(
            "starting {starting} server{} to lock their tools — this starts the commands and contacts the URLs in your config files",
            plural(starting)
        ));
    }
    let jobs = jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(4, usize::from))
        .max(1);
    let started = checkup.started();
    let declared = checkup.declared();
    checkup.probe(jobs, |_, _| {});
    let finished = checkup.finish(ctx, printer);
    let results = &finished.results;

    let mut lock = old.clone().unwrap_or_else(Lock::new);
    let mut rows = Vec::new();
    for name in &wanted {
        let (row, record) = lock_one(name, results, &started, &declared, old.as_ref());
        if let Some(record) = record {
            lock.servers.insert(name.clone(), record);
        }
        rows.push(row);
    }
    // The whole set was locked: a record of a server no longer there goes.
    if !narrowed {
        rows.extend(drop_gone(&mut lock, &wanted, manifest.is_some()));
    }
    let written = write(ctx, &file, &lock.to_text())?;
    printer.emit(&LockReport {
        file,
        written,
        records: lock.servers.len(),
        servers: rows,
    })
}

/// The manifest in use, if any (`--manifest`, else `./mcpctl.toml`, else the user
/// manifest, when it exists): its servers are the ones locked, beside it.
fn in_use(ctx: &Context, manifest: Option<PathBuf>) -> anyhow::Result<Option<Manifest>> {
    let located = crate::manifest::locate(manifest.as_deref(), &ctx.project, &ctx.platform)?;
    if manifest.is_none() && !located.is_file() {
        return Ok(None);
    }
    crate::manifest::plan::load(
        ctx,
        &ManifestArgs {
            manifest,
            profile: None,
            trust_project: false,
        },
    )
    .map(Some)
}

/// The servers to lock, sorted: the ones named (each must be the manifest's, or
/// configured), else the manifest's, else every one `found`.
fn wanted(
    ctx: &Context,
    clients: &[&crate::clients::Client],
    names: Vec<String>,
    manifest: Option<&Manifest>,
    found: Vec<String>,
) -> anyhow::Result<Vec<String>> {
    for name in &names {
        match manifest {
            Some(m) if !m.servers.contains_key(name) => {
                return Err(UserError::new(format!(
                    "the manifest `{}` has no server `{name}`",
                    crate::output::file(&m.path)
                ))
                .hint("name one of its [servers.NAME]")
                .into());
            }
            None if !found.contains(name) => {
                return Err(targets::no_server_named(ctx, clients, name));
            }
            _ => {}
        }
    }
    let mut wanted: Vec<String> = if !names.is_empty() {
        names
    } else if let Some(m) = manifest {
        m.servers.keys().cloned().collect()
    } else {
        found
    };
    wanted.sort();
    wanted.dedup();
    Ok(wanted)
}

/// Remove the records of servers not `wanted` (no longer configured, or no longer in
/// the manifest), with a row for each.
fn drop_gone(lock: &mut Lock, wanted: &[String], manifest: bool) -> Vec<Row> {
    let gone: Vec<String> = lock
        .servers
        .keys()
        .filter(|name| !wanted.contains(name))
        .cloned()
        .collect();
    gone.into_iter()
        .map(|name| {
            lock.servers.remove(&name);
            Row {
                name,
                outcome: Outcome::Dropped,
                client: None,
                server_name: None,
                server_version: None,
                tools: None,
                tokens: None,
                changes: None,
                reason: Some(if manifest {
                    "no longer in the manifest".to_owned()
                } else {
                    "no longer configured in the clients read".to_owned()
                }),
                kept: false,
            }
        })
        .collect()
}

/// Write the lock, atomically and journaled (`undo` puts the previous one back), unless
/// it already holds `text`; whether it was written.
fn write(ctx: &Context, file: &std::path::Path, text: &str) -> anyhow::Result<bool> {
    if std::fs::read(file).ok().as_deref() == Some(text.as_bytes()) {
        return Ok(false);
    }
    ctx.state.lock()?;
    let guard = edit::lock(ctx, file)?;
    let source = guard
        .read(file)
        .map_err(|e| UserError::new(e.to_string()))?;
    edit::write_file(ctx, &guard, &source, text).map_err(|e| {
        UserError::new(e.to_string()).hint("nothing else was changed; run `mcpctl lock` again")
    })?;
    Ok(true)
}

/// The row and the new record (`None`: keep what the lock has) of the server `name`:
/// what it listed to mcpctl's own capabilities (else to the first client that started
/// it), and, as profiles, what it listed to clients declaring other capabilities
/// (`declared`, by index in `results`) where that differs.
fn lock_one(
    name: &str,
    results: &[DoctorResult],
    started: &[usize],
    declared: &std::collections::HashMap<usize, Option<serde_json::Value>>,
    old: Option<&Lock>,
) -> (Row, Option<LockedServer>) {
    let profile = |i: usize| crate::lock::profile_of(declared.get(&i).and_then(Option::as_ref));
    let old = old.and_then(|l| l.server(name));
    let rows: Vec<(usize, &DoctorResult)> = results
        .iter()
        .enumerate()
        .filter(|(_, r)| r.name == name)
        .collect();
    let mut answered: Vec<(usize, &DoctorResult)> = rows
        .iter()
        .filter(|(i, r)| {
            started.contains(i)
                && (r.tools.is_some() || (r.server_name.is_some() && r.status != Status::Fail))
        })
        .copied()
        .collect();
    // mcpctl's own capabilities first: the record's own list.
    answered.sort_by_key(|(i, _)| profile(*i) != crate::lock::OWN_PROFILE);
    let mut row = Row {
        name: name.to_owned(),
        outcome: Outcome::Failed,
        client: None,
        server_name: None,
        server_version: None,
        tools: None,
        tokens: None,
        changes: None,
        reason: None,
        kept: old.is_some(),
    };
    let Some(&(first_index, first)) = answered.first() else {
        // Why not: the first started entry's failure, else why none was started.
        let started_row = rows.iter().find(|(i, _)| started.contains(i));
        row.reason = Some(match (started_row, rows.first()) {
            (Some((_, r)), _) => r
                .error
                .clone()
                .unwrap_or_else(|| "the handshake failed".to_owned()),
            (None, Some((_, r))) => r
                .checks
                .iter()
                .filter(|c| matches!(c.status, Status::Fail | Status::Skipped))
                .map(|c| c.message.clone())
                .collect::<Vec<_>>()
                .join("; "),
            (None, None) => "configured in none of the clients read (`mcpctl apply` installs the manifest's servers)".to_owned(),
        });
        row.client = started_row.or(rows.first()).map(|(_, r)| r.client.clone());
        // Switched off, or not loaded by its client: nothing to fix, so not a failure (a
        // project server not approved yet is: `--trust-project` locks it).
        let off = |r: &DoctorResult| {
            r.status == Status::Skipped
                && r.checks.iter().any(|c| {
                    c.status == Status::Skipped
                        && matches!(c.check, "enabled" | "loaded" | "policy" | "entry")
                })
        };
        if started_row.is_none() && !rows.is_empty() && rows.iter().all(|(_, r)| off(r)) {
            row.outcome = Outcome::Skipped;
        }
        return (row, None);
    };
    let mut record = LockedServer::of(
        first.server_name.clone(),
        first.server_version.clone(),
        &first.tool_definitions,
    );
    let own = profile(first_index);
    record.declared = (own != crate::lock::OWN_PROFILE).then(|| own.clone());
    // The same name in another client listing other tools: a profile of its own when it
    // declared other capabilities, else said, not hidden.
    let mut differs: Vec<&str> = Vec::new();
    for &(i, r) in answered.iter().skip(1) {
        let listed = LockedServer::of(
            r.server_name.clone(),
            r.server_version.clone(),
            &r.tool_definitions,
        );
        if profile(i) == own {
            if listed.tools != record.tools {
                differs.push(r.client.as_str());
            }
        } else {
            record.add_profile(profile(i), vec![r.client.clone()], &listed);
        }
    }
    row.client = Some(first.client.clone());
    row.server_name.clone_from(&record.server_name);
    row.server_version.clone_from(&record.server_version);
    row.tools = Some(record.tools.len());
    row.tokens = Some(record.tokens);
    row.kept = false;
    row.outcome = match old {
        None => Outcome::Added,
        Some(old) if *old == record => Outcome::Unchanged,
        Some(old) => {
            let changes = old.changes(&record);
            row.changes = (!changes.is_empty()).then_some(changes);
            Outcome::Updated
        }
    };
    if !differs.is_empty() {
        row.reason = Some(format!(
            "{}'s entry lists other tools than {}'s; locked {}'s",
            differs.join(", "),
            first.client,
            first.client
        ));
    }
    (row, Some(record))
}

impl Report for LockReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(self)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        let width = self
            .servers
            .iter()
            .map(|r| r.name.chars().count())
            .max()
            .unwrap_or(0);
        let mut blocks = Vec::new();
        for row in &self.servers {
            let (mark, style) = match row.outcome {
                Outcome::Added | Outcome::Updated | Outcome::Unchanged => ("✔", Style::Ok),
                Outcome::Failed => ("✘", Style::Fail),
                Outcome::Skipped | Outcome::Dropped => ("-", Style::Dim),
            };
            let detail = match row.outcome {
                Outcome::Skipped => format!(
                    "skipped: {}; {}",
                    clean_text(row.reason.as_deref().unwrap_or_default()),
                    if row.kept {
                        "its old record is kept"
                    } else {
                        "it has no record"
                    }
                ),
                Outcome::Failed => format!(
                    "not locked: {}; {}",
                    clean_text(row.reason.as_deref().unwrap_or_default()),
                    if row.kept {
                        "its old record is kept"
                    } else {
                        "it has no record"
                    }
                ),
                Outcome::Dropped => {
                    format!("dropped: {}", row.reason.as_deref().unwrap_or_default())
                }
                outcome => {
                    let what = match outcome {
                        Outcome::Added => "locked".to_owned(),
                        Outcome::Unchanged => "unchanged".to_owned(),
                        _ => format!(
                            "updated ({})",
                            row.changes.as_ref().map_or_else(
                                || "server info, or what other clients are listed".to_owned(),
                                Changes::summary
                            )
                        ),
                    };
                    let mut parts = vec![what];
                    if let Some(server) = &row.server_name {
                        parts.push(clean_text(&format!(
                            "{server}{}",
                            row.server_version
                                .as_ref()
                                .map(|v| format!(" {v}"))
                                .unwrap_or_default()
                        )));
                    }
                    if let (Some(tools), Some(tokens)) = (row.tools, row.tokens) {
                        parts.push(format!("{tools} tool{} ≈ {tokens} tokens", plural(tools)));
                    }
                    if let Some(client) = &row.client {
                        parts.push(format!("from {client}"));
                    }
                    if let Some(reason) = &row.reason {
                        parts.push(reason.clone());
                    }
                    parts.join(" · ")
                }
            };
            blocks.push(Block::Line(format!(
                "{} {:<width$}  {}",
                paint.paint(style, mark),
                row.name,
                paint.text(&detail)
            )));
        }
        let locked = self.records;
        blocks.push(Block::Line(paint.text(&if self.written {
            format!(
                "wrote `{}` ({locked} server{})",
                crate::output::file(&self.file),
                plural(locked)
            )
        } else {
            format!(
                "`{}` is up to date ({locked} server{})",
                crate::output::file(&self.file),
                plural(locked)
            )
        })));
        blocks
    }

    fn status(&self) -> ExitStatus {
        if self.servers.iter().any(|r| r.outcome == Outcome::Failed) {
            ExitStatus::Problems
        } else {
            ExitStatus::Success
        }
    }
}
