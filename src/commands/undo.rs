//! `mcpctl undo`: revert every file the last writing command changed, as a whole. A file
//! that changed since (another program or person wrote it) stops the undo before anything
//! is reverted, unless `--force`. Files the command created are deleted (and directories
//! it created, when empty). The undo is journaled itself, so a second `undo` redoes.

use serde::Serialize;

use crate::cli::UndoArgs;
use crate::error::{ExitStatus, UserError};
use crate::output::{Block, Paint, Printer, Report};
use crate::session::inventory::display_path;
use crate::session::{Context, edit};
use crate::state::journal;

/// What `undo` did to one file (`--json` item).
#[derive(Debug, Serialize)]
struct UndoRow {
    path: std::path::PathBuf,
    action: &'static str,
    /// The path as the table shows it.
    #[serde(skip)]
    shown: String,
}

pub fn run(args: UndoArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let UndoArgs { force, dry_run } = args;
    ctx.state.lock()?;
    let Some(last) = ctx.state.journal().into_iter().next() else {
        return Err(UserError::new("nothing to undo: mcpctl has not written any file yet")
            .hint("`mcpctl backups` lists older versions of files, and `mcpctl restore` puts one back")
            .into());
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
            changed.push(display_path(ctx, &file.path));
        }
        let kept = file
            .backup
            .as_ref()
            .is_some_and(|b| crate::fs::backup::at(b).verified_bytes().is_ok());
        if !file.created && !kept {
            return Err(UserError::new(format!(
                "cannot undo `{}`: the previous version of `{}` is no longer kept (or is damaged)",
                last.command,
                display_path(ctx, &file.path)
            ))
            .hint("`mcpctl backups` lists the versions that are still kept")
            .into());
        }
    }
    if !changed.is_empty() && !force {
        return Err(UserError::new(format!(
            "cannot undo `{}`: {} changed since mcpctl wrote {}",
            last.command,
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
            shown: display_path(ctx, &file.path),
        });
    }
    if !dry_run {
        for change in last.ledger.iter().rev() {
            ctx.state
                .change(change.entry.clone(), change.before.clone())?;
        }
    }
    printer.emit(&UndoReport {
        rows,
        command: last.command,
        time: last.time,
        dry_run,
    })
}

/// What `undo` did, file by file.
struct UndoReport {
    rows: Vec<UndoRow>,
    /// The command undone, and when it ran.
    command: String,
    time: String,
    dry_run: bool,
}

impl Report for UndoReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(&self.rows)
    }

    fn human(&self, _paint: Paint) -> Vec<Block> {
        let mut blocks: Vec<Block> = self
            .rows
            .iter()
            .map(|row| Block::Line(format!("{:<14} {}", row.action, row.shown)))
            .collect();
        blocks.push(Block::Note(if self.dry_run {
            format!(
                "dry run: `{}` ({}) would be undone",
                self.command, self.time
            )
        } else {
            format!(
                "undid `{}` ({}); `mcpctl undo` again redoes it",
                self.command, self.time
            )
        }));
        blocks
    }

    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}
