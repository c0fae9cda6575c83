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
    let top = match step {
        Step::Undo => stacks.undo.last(),
        Step::Redo => stacks.redo.last(),
    };
    let Some(last) = top.and_then(|id| all.iter().find(|e| &e.id == id)).cloned() else {
        return Err(match step {
            Step::Undo if all.is_empty() => {
                UserError::new("nothing to undo: mcpctl has not written any file yet")
                    .hint("`mcpctl backups` lists older versions of files, and `mcpctl restore` puts one back")
            }
            Step::Undo => UserError::new(
                "nothing to undo: every command mcpctl still remembers is undone",
            )
            .hint("`mcpctl redo` re-applies the newest one; `mcpctl backups` lists older versions of files"),
            Step::Redo => UserError::new(
                "nothing to redo: no `mcpctl undo` since the last command that wrote files",
            )
            .hint("`mcpctl undo` takes back the last command; `mcpctl backups` lists older versions of files"),
        }
        .into());
    };
    let shown = journal::described(&last, &all).to_owned();
    let verb = match step {
        Step::Undo => "undo",
        Step::Redo => "redo",
    };
    // Refuse as a whole: every file must still be as the command left it.
    let mut changed = Vec::new();
    for file in &last.files {
        let now = crate::fs::read_bytes(&file.path).map_err(|e| UserError::new(e.to_string()))?;
        let same = match (&file.after, &now) {
            (Some(after), Some(bytes)) => journal::matches(after, bytes),
            (None, None) => true,
            _ => false,
        };
        if !same {
            changed.push(crate::output::file(&file.path));
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
        return Err(UserError::new(format!(
            "cannot {verb} `{shown}`: {} changed since mcpctl wrote {}",
            changed.join(", "),
            if changed.len() == 1 { "it" } else { "them" }
        ))
        .hint("nothing was reverted; pass `--force` to revert anyway (the current bytes are kept as a backup)")
        .into());
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
                "unchanged"
            }
        };
        rows.push(UndoRow {
            path: file.path.clone(),
            action,
        });
    }
    if !dry_run {
        for change in last.ledger.iter().rev() {
            ctx.state
                .change(change.entry.clone(), change.before.clone())?;
        }
    }
    let next = if dry_run {
        None
    } else {
        // What the next `undo` would take, now that this step is done.
        let mut after = stacks;
        match step {
            Step::Undo => {
                after.undo.pop();
            }
            Step::Redo => {
                after.redo.pop();
            }
        }
        after
            .undo
            .last()
            .and_then(|id| all.iter().find(|e| &e.id == id))
            .map(|e| journal::described(e, &all).to_owned())
    };
    printer.emit(&UndoReport {
        rows,
        step,
        command: shown,
        time: last.time,
        next,
        dry_run,
    })
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
        let (done, would) = match self.step {
            Step::Undo => ("undid", "undone"),
            Step::Redo => ("redid", "redone"),
        };
        blocks.push(Block::Note(if self.dry_run {
            format!(
                "dry run: `{}` ({}) would be {would}",
                self.command, self.time
            )
        } else {
            let then = match (self.step, &self.next) {
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
