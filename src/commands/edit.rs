//! The edit loop every writing command uses: read, parse, apply one change, render,
//! then either print a diff (`--dry-run`) or write atomically. If another program wrote
//! the file in between, it re-reads and re-applies instead of overwriting.

use std::path::Path;

use serde::Serialize;

use crate::clients::{Client, Location};
use crate::commands::Context;
use crate::commands::inventory::{display_path, read_document};
use crate::error::UserError;
use crate::formats::{ConfigDoc, Edit};
use crate::fs::{FsError, Source, write_atomic};
use crate::state::journal::digest;
use crate::state::{EntryKey, FileChange};

/// How often a concurrent writer may make mcpctl start over.
const ATTEMPTS: usize = 5;

/// What happened to one file, as `add`/`remove --json` report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Added,
    Updated,
    Removed,
    Unchanged,
    Failed,
}

impl From<Edit> for Action {
    fn from(edit: Edit) -> Action {
        match edit {
            Edit::Added => Action::Added,
            Edit::Updated => Action::Updated,
            Edit::Removed => Action::Removed,
            Edit::Unchanged => Action::Unchanged,
        }
    }
}

/// The result of one file edit.
pub struct Outcome {
    pub action: Action,
    /// Unified diff, with `--dry-run`.
    pub diff: Option<String>,
    /// The file did not exist before (it was created, or would be with `--dry-run`).
    pub created: bool,
}

/// Apply `change` to the document at `location`. `change` may be called more than once
/// (after a concurrent write) and must be a pure function of the document.
pub fn apply(
    ctx: &Context,
    client: &Client,
    location: &Location,
    dry_run: bool,
    change: &dyn Fn(&mut dyn ConfigDoc) -> anyhow::Result<Edit>,
) -> anyhow::Result<Outcome> {
    for _ in 0..ATTEMPTS {
        let mut document = read_document(ctx, client, &location.path)?;
        let before = dry_run.then(|| document.doc.render().into_owned());
        let edit = change(document.doc.as_mut())?;
        let created = !document.source.exists();
        if edit == Edit::Unchanged {
            return Ok(Outcome {
                action: Action::Unchanged,
                diff: None,
                created: false,
            });
        }
        let text = document.doc.render();
        if let Some(before) = before {
            let source = &document.source;
            return Ok(Outcome {
                action: edit.into(),
                diff: Some(unified_diff(
                    &display_path(ctx, &location.path),
                    &source.bytes_for(&before),
                    &source.bytes_for(&text),
                    source.exists(),
                )),
                created,
            });
        }
        match write_file(ctx, &document.source, &text) {
            Ok(()) => {
                return Ok(Outcome {
                    action: edit.into(),
                    diff: None,
                    created,
                });
            }
            Err(FsError::Changed { .. }) => {}
            Err(e) => {
                return Err(UserError::new(e.to_string())
                    .hint("check that the directory is writable; the file was left as it was")
                    .into());
            }
        }
    }
    Err(UserError::new(format!(
        "`{}` kept changing while mcpctl tried to edit it",
        display_path(ctx, &location.path)
    ))
    .hint("close the client that is rewriting it (e.g. Claude Code), then run the command again")
    .into())
}

/// Write `text` over `source` (atomically, with a backup) and journal the change, so
/// `undo` can revert it. Every writing command writes client files through here.
pub fn write_file(ctx: &Context, source: &Source, text: &str) -> Result<(), FsError> {
    let created_dirs = crate::fs::missing_dirs(&source.path);
    let written = write_atomic(source, text, ctx.backups.as_deref())?;
    ctx.state.wrote(FileChange {
        path: source.path.clone(),
        created: !source.exists(),
        backup: written.backup,
        after: Some(digest(&source.bytes_for(text))),
        created_dirs,
    });
    Ok(())
}

pub fn unified_diff(label: &str, old: &[u8], new: &[u8], existed: bool) -> String {
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    let from = if existed {
        format!("a/{label}")
    } else {
        "/dev/null".to_owned()
    };
    similar::TextDiff::from_lines(old.as_ref(), new.as_ref())
        .unified_diff()
        .context_radius(3)
        .header(&from, &format!("b/{label}"))
        .to_string()
}

/// How the ledger names the entry `name` at `location`.
pub fn entry_key(location: &Location, name: &str) -> EntryKey {
    EntryKey {
        path: crate::fs::identity(&location.path),
        key: location.key.clone(),
        name: name.to_owned(),
    }
}

/// `path` relative to the home directory, for reports.
pub fn shown(ctx: &Context, path: &Path) -> String {
    display_path(ctx, path)
}
