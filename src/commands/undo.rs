//! `mcpctl undo` and `mcpctl redo`: revert every file the last writing command changed,
//! as a whole, and re-apply what an undo took back. A file that changed since (another
//! program or person wrote it) stops either before anything is reverted, unless `--force`.
//! Files the command created are deleted (and directories it created, when empty).
//!
//! Both are a step on the stacks the journal comes down to (`journal::stacks`): `undo`
//! twice undoes the last two commands, `redo` re-applies the newest undo, and any other
//! writing command empties the redo stack. Each step is journaled with a marker saying
//! which record it reverts.

use serde::Serialize;

use crate::cli::{RedoArgs, UndoArgs};
use crate::error::{ExitStatus, UserError};
use crate::output::{Block, Paint, Printer, Report};
use crate::session::{Context, edit};
use crate::state::{Reverts, journal};

/// What `undo` did to one file (`--json` item).
#[derive(Debug, Serialize)]
struct UndoRow {
    path: std::path::PathBuf,
    action: &'static str,
}

/// Which way a step goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Undo,
    Redo,
}

impl Step {
    fn verb(self) -> &'static str {
        match self {
            Step::Undo => "undo",
            Step::Redo => "redo",
        }
    }
}

pub fn run(args: UndoArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let UndoArgs { force, dry_run } = args;
    step(Step::Undo, force, dry_run, ctx, printer)
}

pub fn redo(args: RedoArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let RedoArgs { force, dry_run } = args;
    step(Step::Redo, force, dry_run, ctx, printer)
}

fn step(
    step: Step,
    force: bool,
    dry_run: bool,
    ctx: &Context,
    printer: &mut Printer,
) -> anyhow::Result<ExitStatus> {
    ctx.state.lock()?;
    let all = ctx.state.journal();
    let stacks = journal::stacks(&all);
    // An `undo` or `redo` that died half-way is finished by the same step again, and put
    // back by the other one: either way the files end as some command left them.
    if let Some((way, record)) = half_way_the_other_way(step, &stacks, &all) {
        return put_back(step, way, record, &all, force, dry_run, ctx, printer);
    }
    let top = match step {
        Step::Undo => stacks.undo.last(),
        Step::Redo => stacks.redo.last(),
    };
    let Some(last) = top.and_then(|id| all.iter().find(|e| &e.id == id)).cloned() else {
        return Err(nothing_to(step, &all));
    };
    let shown = journal::described(&last, &all).to_owned();
    let verb = step.verb();
    // Files an `undo` or `redo` of this record that died half-way reverted already: each
    // with that step's change (the backup of the version it replaced), carried into this
    // step's record so that it reverts the whole command in turn.
    let halves: Vec<&journal::Entry> = journal::half_steps(&all, &last.id).collect();
    let mut already: Vec<crate::state::FileChange> = Vec::new();
    // Refuse as a whole: every file must still be as the command left it.
    let mut changed = Vec::new();
    for file in &last.files {
        let now = crate::fs::read_bytes(&file.path).map_err(|e| UserError::new(e.to_string()))?;
        if !is(file.after.as_deref(), now.as_deref()) {
            match half_change(&halves, file, now.as_deref()) {
                Some(change) => {
                    already.push(change);
                    continue;
                }
                None => changed.push(crate::output::file(&file.path)),
            }
        }
        let kept = file
            .backup
            .as_ref()
            .is_some_and(|b| crate::fs::backup::at(b).verified_bytes().is_ok());
        if !file.created && !kept {
            return Err(UserError::new(format!(
                "cannot {verb} `{shown}`: the previous version of `{}` is no longer kept (or is damaged)",
                crate::output::file(&file.path)
            ))
            .hint("`mcpctl backups` lists the versions that are still kept")
            .into());
        }
    }
    if !changed.is_empty() && !force {
        return Err(changed_since(verb, &shown, &last, &all, &changed));
    }
    // Each file is written back only over the version the command left (`--force`: any),
    // also when another writer comes in between the check above and the write.
    fn expect(force: bool, file: &crate::state::FileChange) -> edit::Expect<'_> {
        if force {
            edit::Expect::Any
        } else {
            edit::Expect::Digest(file.after.as_deref())
        }
    }
    if !dry_run {
        ctx.state.set_reverts(match step {
            Step::Undo => Reverts::Undo(last.id.clone()),
            Step::Redo => Reverts::Redo(last.id.clone()),
        });
    }
    let mut rows = Vec::new();
    for file in &last.files {
        if already.iter().any(|c| c.path == file.path) {
            rows.push(UndoRow {
                path: file.path.clone(),
                action: if dry_run {
                    "done already"
                } else {
                    "done before"
                },
            });
            continue;
        }
        let action = if dry_run {
            if file.created {
                "would delete"
            } else {
                "would restore"
            }
        } else if file.created {
            edit::delete_file(ctx, &file.path, &file.created_dirs, expect(force, file))?;
            "deleted"
        } else {
            let backup = file.backup.as_deref().unwrap_or(std::path::Path::new(""));
            let bytes = crate::fs::backup::at(backup)
                .verified_bytes()
                .map_err(|e| UserError::new(e.to_string()))?;
            if edit::put_bytes(ctx, &file.path, &bytes, expect(force, file))? {
                "restored"
            } else {
                if file.before.is_some() && file.before == file.after {
                    // A change its backup's scrub made the same as what it left
                    // (`backups --scrub-secrets`): still a step the stacks must take.
                    ctx.state.kept(crate::state::FileChange {
                        backup: file.backup.clone(),
                        ..file.clone()
                    });
                }
                "unchanged"
            }
        };
        rows.push(UndoRow {
            path: file.path.clone(),
            action,
        });
    }
    if !dry_run {
        for change in already.iter().cloned() {
            ctx.state.wrote(change);
        }
        for change in last.ledger.iter().rev() {
            ctx.state
                .change(change.entry.clone(), change.before.clone())?;
        }
    }
    let next = (!dry_run).then(|| next_undo(step, stacks, &all)).flatten();
    printer.emit(&UndoReport {
        rows,
        step,
        command: shown,
        time: last.time,
        next,
        dry_run,
        finished: !already.is_empty(),
        put_back: None,
        interrupted: last.interrupted,
    })
}

/// The record an `undo` or `redo` that died half-way was reverting (`journal::dangling`)
/// and which way it went, when `step` goes the other way.
fn half_way_the_other_way<'a>(
    step: Step,
    stacks: &journal::Stacks,
    all: &'a [journal::Entry],
) -> Option<(Step, &'a journal::Entry)> {
    let target = journal::dangling(all)?;
    let way = if stacks.undo.last().map(String::as_str) == Some(target) {
        Step::Undo
    } else if stacks.redo.last().map(String::as_str) == Some(target) {
        Step::Redo
    } else {
        return None;
    };
    let record = all
        .iter()
        .find(|e| e.id == target)
        .filter(|_| way != step)?;
    // Nothing of it is reverted any more (a putting back that lost only its record):
    // the step goes its normal way.
    let reverted = record.files.iter().any(|f| {
        crate::fs::read_bytes(&f.path).map_or(true, |now| !is(f.after.as_deref(), now.as_deref()))
    });
    reverted.then_some((way, record))
}

/// The refusal of a step whose files (`changed`, as shown) changed since `record` wrote
/// them. `--force` is offered only when no other command mcpctl remembers wrote them
/// since: reverting over that one's write would lose what it wrote.
fn changed_since(
    verb: &str,
    shown: &str,
    record: &journal::Entry,
    all: &[journal::Entry],
    changed: &[String],
) -> anyhow::Error {
    let later = record.files.iter().find_map(|file| {
        let now = crate::fs::read_bytes(&file.path).ok().flatten()?;
        all.iter()
            .filter(|e| e.id != record.id)
            .find(|e| {
                e.files.iter().any(|f| {
                    f.path == file.path
                        && f.after.as_ref().is_some_and(|a| journal::matches(a, &now))
                })
            })
            .map(|e| journal::described(e, all).to_owned())
    });
    let error = UserError::new(format!(
        "cannot {verb} `{shown}`: {} changed since mcpctl wrote {}",
        changed.join(", "),
        if changed.len() == 1 { "it" } else { "them" }
    ));
    match later {
        Some(other) => error.hint(format!(
            "nothing was reverted; `{other}` wrote it since, and reverting over it would lose what it wrote: `mcpctl backups` and `mcpctl restore` reach any kept version"
        )),
        None => error.hint("nothing was reverted; pass `--force` to revert anyway (the current bytes are kept as a backup)"),
    }
    .into()
}

/// The command the next `undo` would take back, once this step is done.
fn next_undo(step: Step, mut stacks: journal::Stacks, all: &[journal::Entry]) -> Option<String> {
    match step {
        Step::Undo => stacks.undo.pop(),
        Step::Redo => stacks.redo.pop(),
    };
    stacks
        .undo
        .last()
        .and_then(|id| all.iter().find(|e| &e.id == id))
        .map(|e| journal::described(e, all).to_owned())
}

/// Why there is nothing to undo or redo, and what to do instead.
fn nothing_to(step: Step, all: &[journal::Entry]) -> anyhow::Error {
    match step {
        Step::Undo if all.is_empty() => {
            UserError::new("nothing to undo: mcpctl has not written any file yet")
                .hint("`mcpctl backups` lists older versions of files, and `mcpctl restore` puts one back")
        }
        Step::Undo => UserError::new(
            "nothing to undo: every command mcpctl still remembers is undone",
        )
        .hint("`mcpctl redo` re-applies the newest one; `mcpctl backups` lists older versions of files"),
        Step::Redo => match all.first().filter(|e| e.interrupted && !e.half_step()) {
            // What an interrupted command wrote is taken back, never re-applied.
            Some(newest) => UserError::new(format!(
                "nothing to redo: the last command, `{}`, was interrupted",
                newest.command
            ))
            .hint("`mcpctl undo` takes back what it wrote; or run it again to finish it"),
            None => UserError::new(
                "nothing to redo: no `mcpctl undo` since the last command that wrote files",
            )
            .hint("`mcpctl undo` takes back the last command; `mcpctl backups` lists older versions of files"),
        },
    }
    .into()
}

/// Whether the file's bytes `now` (`None`: no file) are the version `digest` names
/// (`None`: no file).
fn is(digest: Option<&str>, now: Option<&[u8]>) -> bool {
    match (digest, now) {
        (Some(digest), Some(bytes)) => journal::matches(digest, bytes),
        (None, None) => true,
        _ => false,
    }
}

/// The change of a half-way step (`halves`, newest first) that reverted `file` already:
/// the file is as the command found it (`before`), and that step names it.
fn half_change(
    halves: &[&journal::Entry],
    file: &crate::state::FileChange,
    now: Option<&[u8]>,
) -> Option<crate::state::FileChange> {
    let before = if file.created {
        None
    } else {
        Some(file.before.as_deref()?)
    };
    if !is(before, now) {
        return None;
    }
    halves
        .iter()
        .flat_map(|h| h.files.iter())
        .find(|c| c.path == file.path && c.after.as_deref() == before)
        .cloned()
}

/// The other way out of an `undo` or `redo` that died half-way while reverting `record`
/// (`way`): put back, as `record` left them, the files it had reverted already. The
/// stacks stay as they were before it (this step's record `rolls_back` it).
#[expect(
    clippy::too_many_arguments,
    reason = "the parts of one step, as `step` has them"
)]
fn put_back(
    step: Step,
    way: Step,
    record: &journal::Entry,
    all: &[journal::Entry],
    force: bool,
    dry_run: bool,
    ctx: &Context,
    printer: &mut Printer,
) -> anyhow::Result<ExitStatus> {
    let shown = journal::described(record, all).to_owned();
    let halves: Vec<&journal::Entry> = journal::half_steps(all, &record.id).collect();
    let verb = step.verb();
    // Per file: `None` as `record` left it; else the step's change that reverted it.
    let mut plan: Vec<(&crate::state::FileChange, Option<crate::state::FileChange>)> = Vec::new();
    let mut changed = Vec::new();
    for file in &record.files {
        let now = crate::fs::read_bytes(&file.path).map_err(|e| UserError::new(e.to_string()))?;
        if is(file.after.as_deref(), now.as_deref()) {
            plan.push((file, None));
            continue;
        }
        match half_change(&halves, file, now.as_deref()) {
            Some(change) => plan.push((file, Some(change))),
            None => changed.push(crate::output::file(&file.path)),
        }
    }
    if !changed.is_empty() {
        return Err(UserError::new(format!(
            "cannot {verb}: the interrupted {} of `{shown}` is to be put back, but {} changed since",
            way.verb(),
            changed.join(", ")
        ))
        .hint(format!(
            "nothing was written; `mcpctl {}` finishes the interrupted {} instead{}",
            way.verb(),
            way.verb(),
            if force { "" } else { " (`--force` there reverts anyway)" }
        ))
        .into());
    }
    if !dry_run {
        ctx.state.set_reverts(Reverts::RollBack(record.id.clone()));
    }
    let mut rows = Vec::new();
    for (file, reverted) in &plan {
        let Some(reverted) = reverted else {
            rows.push(UndoRow {
                path: file.path.clone(),
                action: "unchanged",
            });
            continue;
        };
        // Only over the version the half step left (the one the command found).
        let expect = edit::Expect::Digest(reverted.after.as_deref());
        let action = match &file.after {
            _ if dry_run => "would put back",
            None => {
                edit::delete_file(ctx, &file.path, &reverted.created_dirs, expect)?;
                "deleted"
            }
            Some(after) => {
                let bytes = kept_version(ctx, reverted, &file.path, after).ok_or_else(|| {
                    UserError::new(format!(
                        "cannot {verb}: the version of `{}` that `{shown}` left is no longer kept (or is damaged)",
                        crate::output::file(&file.path)
                    ))
                    .hint("`mcpctl backups` lists the versions that are still kept")
                })?;
                edit::put_bytes(ctx, &file.path, &bytes, expect)?;
                "put back"
            }
        };
        rows.push(UndoRow {
            path: file.path.clone(),
            action,
        });
    }
    printer.emit(&UndoReport {
        rows,
        step,
        command: shown,
        time: record.time.clone(),
        next: None,
        dry_run,
        finished: false,
        put_back: Some(way),
        interrupted: false,
    })
}

/// The bytes of `path` in the version with digest `after`: the backup the half step
/// kept of it, else any backup of the file with that digest.
fn kept_version(
    ctx: &Context,
    reverted: &crate::state::FileChange,
    path: &std::path::Path,
    after: &str,
) -> Option<Vec<u8>> {
    if let Some(backup) = &reverted.backup
        && let Ok(bytes) = crate::fs::backup::at(backup).verified_bytes()
        && journal::matches(after, &bytes)
    {
        return Some(bytes);
    }
    let backups = ctx.backups.as_deref()?;
    crate::fs::backups_of(backups, path)
        .into_iter()
        .filter(|b| b.digest == after)
        .find_map(|b| b.verified_bytes().ok())
}

/// What `undo` did, file by file.
struct UndoReport {
    rows: Vec<UndoRow>,
    step: Step,
    /// The command undone or re-applied, and when that record was written.
    command: String,
    time: String,
    /// The command a following `undo` would take back (after a step that wrote).
    next: Option<String>,
    dry_run: bool,
    /// An `undo`/`redo` of the same command died half-way, and this one finished it.
    finished: bool,
    /// This step put back what an interrupted step that way had reverted.
    put_back: Option<Step>,
    /// The command undone was itself interrupted (its undo is not redone).
    interrupted: bool,
}

impl Report for UndoReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(&self.rows)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        let mut blocks: Vec<Block> = self
            .rows
            .iter()
            .map(|row| Block::Line(format!("{:<14} {}", row.action, paint.path(&row.path))))
            .collect();
        if let Some(way) = self.put_back {
            let (then, again) = match way {
                Step::Undo => ("`mcpctl undo` takes it back", "undo"),
                Step::Redo => ("`mcpctl redo` re-applies it", "redo"),
            };
            blocks.push(Block::Note(if self.dry_run {
                format!(
                    "dry run: what the interrupted `{again}` of `{}` reverted would be put back",
                    self.command
                )
            } else {
                format!(
                    "put back what the interrupted `{again}` of `{}` ({}) had reverted: its files are as before it; {then}",
                    self.command, self.time
                )
            }));
            return blocks;
        }
        let (done, would) = match self.step {
            Step::Undo => ("undid", "undone"),
            Step::Redo => ("redid", "redone"),
        };
        if self.finished {
            blocks.push(Block::Note(format!(
                "an interrupted `{}` had reverted part of `{}` (\"done before\"); this one finished it",
                self.step.verb(),
                self.command
            )));
        }
        blocks.push(Block::Note(if self.dry_run {
            format!(
                "dry run: `{}` ({}) would be {would}",
                self.command, self.time
            )
        } else {
            let then = match (self.step, &self.next) {
                (Step::Undo, next) if self.interrupted => format!(
                    "it had been interrupted, so `mcpctl redo` does not re-apply it (run it again instead){}",
                    next.as_ref()
                        .map(|n| format!("; `mcpctl undo` again takes back `{n}`"))
                        .unwrap_or_default()
                ),
                (Step::Undo, Some(next)) => {
                    format!("`mcpctl redo` re-applies it; `mcpctl undo` again takes back `{next}`")
                }
                (Step::Undo, None) => "`mcpctl redo` re-applies it".to_owned(),
                (Step::Redo, _) => "`mcpctl undo` takes it back again".to_owned(),
            };
            format!("{done} `{}` ({}); {then}", self.command, self.time)
        }));
        blocks
    }

    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}
