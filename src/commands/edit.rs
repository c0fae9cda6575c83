//! The edit loop every writing command uses: lock the file, read, parse, apply one
//! change, render, then either print a diff (`--dry-run`) or write atomically. Other
//! mcpctl processes wait for the lock; if another program wrote the file in between, it
//! re-reads and re-applies instead of overwriting.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::clients::{Client, Location};
use crate::commands::Context;
use crate::commands::inventory::{display_path, read_document};
use crate::error::UserError;
use crate::formats::{ConfigDoc, Edit};
use crate::fs::{self, FsError, write_atomic};

/// How long mcpctl keeps starting over while another program keeps rewriting the file
/// (each attempt is milliseconds; a client rewrites its file a few times a second at most).
const RETRY_FOR: Duration = Duration::from_secs(10);

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
    let lock = match (&ctx.state, dry_run) {
        (_, true) => None,
        (Some(state), false) => Some(fs::lock::acquire(&location.path, state).map_err(|e| {
            UserError::new(e.to_string()).hint(
                "another mcpctl is writing this file; wait for it, or end it if it hangs",
            )
        })?),
        (None, false) => {
            return Err(UserError::new(format!(
                "no state directory to lock `{}` in",
                display_path(ctx, &location.path)
            ))
            .hint("set HOME, or MCPCTL_STATE_DIR to a writable directory")
            .into());
        }
    };
    let started = Instant::now();
    for attempt in 0u64.. {
        if attempt > 0 {
            if started.elapsed() > RETRY_FOR {
                break;
            }
            // Out of step with a writer that rewrites the file periodically.
            std::thread::sleep(Duration::from_micros(500 * (attempt % 7)));
        }
        let mut document = read_document(ctx, client, &location.path)?;
        let before = dry_run.then(|| document.doc.render().into_owned());
        let edit = change(document.doc.as_mut())?;
        if edit == Edit::Unchanged {
            return Ok(Outcome {
                action: Action::Unchanged,
                diff: None,
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
            });
        }
        let Some(lock) = &lock else {
            break;
        };
        match write_atomic(lock, &document.source, &text, ctx.backups.as_deref()) {
            Ok(_) => {
                return Ok(Outcome {
                    action: edit.into(),
                    diff: None,
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

fn unified_diff(label: &str, old: &[u8], new: &[u8], existed: bool) -> String {
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

/// `path` relative to the home directory, for reports.
pub fn shown(ctx: &Context, path: &Path) -> String {
    display_path(ctx, path)
}
