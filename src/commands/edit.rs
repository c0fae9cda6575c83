//! The edit loop every writing command uses: read, parse, apply one change, render,
//! then either print a diff (`--dry-run`) or write atomically. If another program wrote
//! the file in between, it re-reads and re-applies instead of overwriting.

use std::path::Path;

use serde::Serialize;

use crate::clients::{Client, Location};
use crate::commands::Context;
use crate::commands::inventory::{display_path, read_document};
use crate::entry::{Dialect, Transport};
use crate::error::UserError;
use crate::formats::{ConfigDoc, Edit};
use crate::fs::{FsError, Source, write_atomic};
use crate::output::{redact, redact_text};
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
    /// Unified diff, with `--dry-run` (secret values redacted).
    pub diff: Option<String>,
    /// Where the previous bytes were kept.
    pub backup: Option<std::path::PathBuf>,
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
        let mut secrets = if dry_run {
            secret_values(client, document.doc.as_ref(), &location.key)
        } else {
            Vec::new()
        };
        let edit = change(document.doc.as_mut())?;
        if dry_run {
            secrets.extend(secret_values(client, document.doc.as_ref(), &location.key));
        }
        let created = !document.source.exists();
        if edit == Edit::Unchanged {
            return Ok(Outcome {
                action: Action::Unchanged,
                diff: None,
                backup: None,
                created: false,
            });
        }
        let text = document.doc.render();
        if let Some(before) = before {
            let source = &document.source;
            return Ok(Outcome {
                action: edit.into(),
                diff: Some(redact_text(
                    &unified_diff(
                        &display_path(ctx, &location.path),
                        &source.bytes_for(&before),
                        &source.bytes_for(&text),
                        source.exists(),
                    ),
                    &secrets,
                )),
                backup: None,
                created,
            });
        }
        match write_file(ctx, &document.source, &text) {
            Ok(change) => {
                return Ok(Outcome {
                    action: edit.into(),
                    diff: None,
                    backup: change.backup,
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
pub fn write_file(ctx: &Context, source: &Source, text: &str) -> Result<FileChange, FsError> {
    let created_dirs = crate::fs::missing_dirs(&source.path);
    let written = write_atomic(source, text, ctx.backups.as_deref())?;
    let change = FileChange {
        path: source.path.clone(),
        created: !source.exists(),
        backup: written.backup,
        after: Some(digest(&source.bytes_for(text))),
        created_dirs,
    };
    ctx.state.wrote(change.clone());
    Ok(change)
}

/// Take back a write of this run (a later write failed): restore the previous bytes, or
/// delete the file (and directories) the write created.
pub fn revert(ctx: &Context, change: &FileChange) -> anyhow::Result<()> {
    if change.created {
        return delete_file(ctx, &change.path, &change.created_dirs);
    }
    let backup = change.backup.as_deref().ok_or_else(|| {
        UserError::new(format!(
            "cannot restore `{}`: no backup was kept",
            display_path(ctx, &change.path)
        ))
    })?;
    let bytes = crate::fs::read_bytes(backup)
        .map_err(|e| UserError::new(e.to_string()))?
        .ok_or_else(|| UserError::new(format!("backup `{}` is gone", backup.display())))?;
    put_bytes(ctx, &change.path, &bytes)?;
    Ok(())
}

/// The env and header values of every entry under `key` that `list` would redact.
fn secret_values(client: &Client, doc: &dyn ConfigDoc, key: &[String]) -> Vec<String> {
    let dialect = Dialect::of(client);
    doc.servers(key)
        .unwrap_or_default()
        .iter()
        .filter_map(|(_, raw)| dialect.from_raw(raw).ok())
        .flat_map(|entry| match entry.transport {
            Transport::Stdio { env, .. } => env.into_values().collect::<Vec<_>>(),
            Transport::Remote { headers, .. } => headers.into_values().collect(),
        })
        .filter(|value| redact(value) != *value)
        .collect()
}

/// Put `bytes` back as the whole content of `path` (restore, undo), journaled like any
/// write. Returns `false` when the file already holds exactly these bytes.
pub fn put_bytes(ctx: &Context, path: &Path, bytes: &[u8]) -> anyhow::Result<bool> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        UserError::new(format!(
            "the saved version of `{}` is not UTF-8 text (byte {})",
            display_path(ctx, path),
            e.valid_up_to()
        ))
        .hint("mcpctl only writes text; restore this file by hand")
    })?;
    for _ in 0..ATTEMPTS {
        let mut source = crate::fs::read_source(path).map_err(|e| UserError::new(e.to_string()))?;
        if source.exists() && source.bytes_for(&source.text) == bytes {
            return Ok(false);
        }
        // The saved bytes carry their own BOM, if any.
        source.bom = false;
        match write_file(ctx, &source, text) {
            Ok(_) => return Ok(true),
            Err(FsError::Changed { .. }) => {}
            Err(e) => {
                return Err(UserError::new(e.to_string())
                    .hint("check that the directory is writable; the file was left as it was")
                    .into());
            }
        }
    }
    Err(UserError::new(format!(
        "`{}` kept changing while mcpctl tried to restore it",
        display_path(ctx, path)
    ))
    .hint("close the client that is rewriting it, then run the command again")
    .into())
}

/// Delete a file a command created (undo), keeping its bytes as a backup so that the
/// deletion can itself be undone; then the now-empty directories in `dirs`.
pub fn delete_file(ctx: &Context, path: &Path, dirs: &[std::path::PathBuf]) -> anyhow::Result<()> {
    let backup = match &ctx.backups {
        Some(backups) if path.exists() => Some(
            crate::fs::backup_now(path, backups)
                .map_err(|e| UserError::new(e.to_string()).hint("nothing was deleted"))?,
        ),
        _ => None,
    };
    crate::fs::remove_created(path, dirs).map_err(|e| UserError::new(e.to_string()))?;
    ctx.state.wrote(FileChange {
        path: path.to_path_buf(),
        created: false,
        backup,
        after: None,
        created_dirs: Vec::new(),
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
