//! The edit loop every writing command uses: lock the file, read, parse, apply one
//! change, render, then either print a diff (`--dry-run`) or write atomically. Other
//! mcpctl processes wait for the lock; if another program wrote the file in between, it
//! re-reads and re-applies instead of overwriting.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::clients::{Client, Location, Scope};
use crate::entry::{Dialect, Transport};
use crate::error::{ExitStatus, UserError};
use crate::formats::{ConfigDoc, Edit, ServersAt};
use crate::fs::{self, FileLock, FsError, Source, write_atomic_when};
use crate::output::{Block, Paint, Report, Style, redact, redact_text};
use crate::session::Context;
use crate::session::inventory::{Document, read_document};
use crate::state::{EntryKey, FileChange};

/// How long mcpctl keeps starting over while another program keeps rewriting the file
/// (each attempt is milliseconds; a client rewrites its file a few times a second at most).
const RETRY_FOR: Duration = Duration::from_secs(10);

/// Attempt numbers for a read-edit-write loop: the first at once, more while another
/// program keeps changing the file, for up to `RETRY_FOR`, each a little out of step with
/// a writer that rewrites the file periodically.
fn attempts() -> impl Iterator<Item = u64> {
    let started = Instant::now();
    (0u64..).take_while(move |attempt| {
        if *attempt > 0 {
            std::thread::sleep(Duration::from_micros(500 * (attempt % 7)));
        }
        *attempt == 0 || started.elapsed() < RETRY_FOR
    })
}

/// The one retry policy of every writing command: call `attempt` (read, decide, write)
/// until it is done (`Some`) or fails; `None` says another program wrote the file in
/// between, so it starts over from the new bytes, for up to `RETRY_FOR`. `verb` names the
/// command in the one "kept changing" error.
pub fn retry<T>(
    path: &Path,
    verb: &str,
    mut attempt: impl FnMut() -> anyhow::Result<Option<T>>,
) -> anyhow::Result<T> {
    for _ in attempts() {
        if let Some(done) = attempt()? {
            return Ok(done);
        }
    }
    Err(kept_changing(path, verb))
}

/// The error of a file that kept changing for the whole `RETRY_FOR`.
fn kept_changing(path: &Path, verb: &str) -> anyhow::Error {
    UserError::new(format!(
        "`{}` kept changing while mcpctl tried to {verb} it",
        crate::output::file(path)
    ))
    .hint("close the client that is rewriting it (e.g. Claude Code), then run the command again")
    .into()
}

/// A write that failed for another reason than a concurrent change, with what to do.
pub fn write_error(e: &FsError) -> anyhow::Error {
    let hint = e
        .hint()
        .unwrap_or("check that the directory is writable; the file was left as it was");
    UserError::new(e.to_string()).hint(hint).into()
}

/// Refuse to change an entry that runs inside the client (Goose's `builtin` and
/// `platform` extensions): it is the client's own, whatever `--force` says.
pub fn refuse_builtin(
    client: &Client,
    name: &str,
    raw: Option<&serde_json::Value>,
) -> anyhow::Result<()> {
    match raw {
        Some(raw) if crate::entry::is_builtin(raw) => Err(UserError::new(format!(
            "`{name}` is built into {} (`type: {}`); mcpctl never changes or removes it",
            client.name,
            raw.get("type")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("builtin")
        ))
        .hint(format!(
            "switch it on or off in {} itself, or pick another name for a server",
            client.name
        ))
        .into()),
        _ => Ok(()),
    }
}

/// Refuse to write into a file `client` rejects as a whole (`text`, as read): it loads
/// none of its servers, so an entry written there would not load either. The error names
/// the offending byte and the fix.
pub fn refuse_rejected(
    client: &Client,
    path: &Path,
    text: &str,
    force: bool,
) -> anyhow::Result<()> {
    let Some(r) = client.rejects(text) else {
        return Ok(());
    };
    let shown = crate::output::file(path);
    let hint = format!(
        "remove it: `mcpctl check --fix {shown}` does, and shows the diff (`--dry-run` shows it without writing){}",
        if force {
            "; or run the command again with `--force` to write into the file as it is"
        } else {
            ""
        }
    );
    Err(crate::session::inventory::file_error(
        path,
        Some(crate::formats::Position {
            line: r.line,
            column: r.column,
        }),
        format_args!(
            "{} rejects this file ({} at line {}, column {}), so it loads none of its servers; nothing was changed",
            client.name, r.what, r.line, r.column
        ),
    )
    .hint(hint)
    .into())
}

/// Take the lock every mcpctl process takes before it reads a file it will write (see
/// `fs::lock`). Take `state.lock()` first if both are needed, never the other way round.
pub fn lock(ctx: &Context, path: &Path) -> anyhow::Result<FileLock> {
    let Some(root) = ctx.state.root() else {
        return Err(UserError::new(format!(
            "no state directory to lock `{}` in",
            crate::output::file(path)
        ))
        .hint("set HOME, or MCPCTL_STATE_DIR to a writable directory")
        .into());
    };
    fs::lock::acquire(path, root).map_err(|e| {
        let hint = e.hint();
        let error = UserError::new(e.to_string());
        match hint {
            Some(hint) => error.hint(hint),
            None => error,
        }
        .into()
    })
}

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
    /// The directories created for it, deepest first.
    pub created_dirs: Vec<std::path::PathBuf>,
    /// The file was deleted (or would be): mcpctl had created it and it is empty again.
    pub deleted: bool,
    /// The file was written, but what was written could not be recorded in the ledger.
    pub unrecorded: Option<Unrecorded>,
}

/// Why a write that happened is not in mcpctl's ledger (issue 39 F16).
#[derive(Debug, Clone)]
pub struct Unrecorded {
    pub error: String,
    pub hint: Option<String>,
}

impl Unrecorded {
    pub fn of(error: &anyhow::Error) -> Unrecorded {
        Unrecorded {
            error: error.to_string(),
            hint: crate::error::hint_of(error).map(str::to_owned),
        }
    }
}

impl Outcome {
    /// Nothing was written.
    pub fn unchanged() -> Outcome {
        Outcome {
            action: Action::Unchanged,
            diff: None,
            backup: None,
            created: false,
            created_dirs: Vec::new(),
            deleted: false,
            unrecorded: None,
        }
    }
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
    apply_then_delete(ctx, client, location, dry_run, None, change)
}

/// `apply`, and when `delete_with` is given (mcpctl created the file, and these directories
/// for it) and nothing is left in the file after the change, delete it and the
/// directories instead of writing it.
pub fn apply_then_delete(
    ctx: &Context,
    client: &Client,
    location: &Location,
    dry_run: bool,
    delete_with: Option<&[std::path::PathBuf]>,
    change: &dyn Fn(&mut dyn ConfigDoc) -> anyhow::Result<Edit>,
) -> anyhow::Result<Outcome> {
    apply_from(ctx, client, location, dry_run, delete_with, None, change)
}

/// `apply_then_delete` starting from a document the caller already read (without the
/// lock) to decide what to do: a many-MB `~/.claude.json` is then parsed once, not twice.
/// This is as safe as reading under the lock: `write_file` only replaces the version whose
/// stamp (length, time, inode) the document was read with, so a stale document ends in
/// `FsError::Changed` and the next attempt reads afresh under the lock.
pub fn apply_from(
    ctx: &Context,
    client: &Client,
    location: &Location,
    dry_run: bool,
    delete_with: Option<&[std::path::PathBuf]>,
    mut first: Option<Document>,
    change: &dyn Fn(&mut dyn ConfigDoc) -> anyhow::Result<Edit>,
) -> anyhow::Result<Outcome> {
    let lock = if dry_run {
        None
    } else {
        Some(lock(ctx, &location.path)?)
    };
    for _ in attempts() {
        let mut document = match first.take() {
            Some(document) => document,
            None => read_document(ctx, client, &location.path)?,
        };
        if let crate::session::Rejected::Refuse { force } = ctx.rejected {
            refuse_rejected(client, &location.path, &document.doc.render(), force)?;
        }
        let before = dry_run.then(|| document.doc.render().into_owned());
        let mut secrets = if dry_run {
            secret_values(client, document.doc.as_ref(), location.at())
        } else {
            Vec::new()
        };
        let edit = change(document.doc.as_mut())
            .map_err(|e| crate::session::inventory::in_file(&location.path, e))?;
        if dry_run {
            secrets.extend(secret_values(client, document.doc.as_ref(), location.at()));
        }
        let created = !document.source.exists();
        if edit == Edit::Unchanged {
            return Ok(Outcome::unchanged());
        }
        if !ctx.write_empty && document.source.stamp.as_ref().is_some_and(|s| s.len() == 0) {
            return Err(UserError::new(format!(
                "`{}` is empty (0 bytes): not a {} document mcpctl can edit in place, and perhaps another program's save that has not finished; nothing was changed",
                location.path.display(),
                client.format.display_name()
            ))
            .hint("if the file really is empty, run the command again with `--force` to write it")
            .into());
        }
        let delete = delete_with.filter(|_| document.source.exists() && document.doc.is_blank());
        if let Some(before) = before {
            let text = if delete.is_some() {
                std::borrow::Cow::Borrowed("")
            } else {
                document.doc.render()
            };
            let source = &document.source;
            // A step of a plan: the next step (and the plan's diff) starts from here.
            if ctx.planned_text(&location.path).is_some() {
                ctx.plan_text(&location.path, Some(text.clone().into_owned()));
            }
            return Ok(Outcome {
                action: edit.into(),
                diff: Some(redact_text(
                    &unified_diff(
                        &location.path.display().to_string(),
                        &source.text_for(&before),
                        &source.text_for(&text),
                        source.exists(),
                    ),
                    &secrets,
                )),
                backup: None,
                created,
                created_dirs: Vec::new(),
                deleted: delete.is_some(),
                unrecorded: None,
            });
        }
        let Some(lock) = &lock else {
            break;
        };
        let written = match delete {
            Some(dirs) => delete_created(ctx, lock, &document.source, dirs),
            None => write_file(ctx, lock, &document.source, &document.doc.render()),
        };
        match written {
            Ok(change) => {
                return Ok(Outcome {
                    action: edit.into(),
                    diff: None,
                    backup: change.backup,
                    created,
                    created_dirs: change.created_dirs,
                    deleted: delete.is_some(),
                    unrecorded: None,
                });
            }
            Err(FsError::Changed { .. }) => {}
            Err(e) => return Err(write_error(&e)),
        }
    }
    Err(kept_changing(&location.path, "edit"))
}

/// Write `text` over `source` (atomically, with a backup) and journal the change, so
/// `undo` can revert it. Every writing command writes client files through here, holding
/// the file's `lock` since before it read `source`.
pub fn write_file(
    ctx: &Context,
    lock: &FileLock,
    source: &Source,
    text: &str,
) -> Result<FileChange, FsError> {
    crate::fs::refuse_foreign(&source.path)?;
    let created_dirs = crate::fs::missing_dirs(&source.path);
    let change = FileChange {
        path: source.path.clone(),
        created: !source.exists(),
        backup: None,
        after: None,
        before: source.digest.clone(),
        created_dirs,
        wrote: Vec::new(),
    };
    // Three things must be durable before the file changes, in no order among them: what
    // this command replaced before (its directories' fsyncs, left for later), the intent
    // naming the new bytes (their digest, then the record and its fdatasync) and the new
    // bytes themselves (the temp file and its fsync). `write_atomic_when` writes the temp
    // file and starts its writeback without waiting, then calls `ready` (the first two),
    // then fsyncs the temp: a journaling file system commits syncs in flight together,
    // so the intent's commit also carries the temp's allocation and the temp's fsync has
    // little left to wait for — about one sync wait for the three instead of two in a
    // row. Crash safety does not depend on that order: nothing anyone reads changes
    // before the swap, and the swap comes after both the intent's fdatasync and the
    // temp's fsync have returned. A crash before it leaves an intent whose file is still
    // the version before (recovery settles it to "nothing happened") and at most a
    // temp file nobody names (swept when stale). This file's own directory fsync is left
    // for later in turn (`State::sync_later`).
    let mut intended: Option<FileChange> = None;
    let written = write_atomic_when(lock, source, text, backups_for(ctx, source), true, || {
        ctx.state.sync_pending()?;
        let mut change = change.clone();
        change.after = Some(crate::fs::digest(&source.bytes_for(text)));
        ctx.state.intend(&change)?;
        intended = Some(change);
        Ok(())
    })?;
    let Some(mut change) = intended else {
        return Err(FsError::Write {
            path: source.path.clone(),
            source: std::io::Error::other("internal error: written without an intent"),
        });
    };
    change.backup = written.backup;
    if let Some(dir) = written.unsynced {
        ctx.state.sync_later(dir);
    }
    ctx.state.wrote(change.clone());
    Ok(change)
}

/// Where to keep the version `source` read before it changes: the backups, unless this
/// command wrote that version itself (an apply that parks eleven entries in one file
/// keeps one backup of it, the version before the command, not eleven).
fn backups_for<'a>(ctx: &'a Context, source: &Source) -> Option<&'a Path> {
    if ctx
        .state
        .wrote_version(&source.path, source.digest.as_deref())
    {
        return None;
    }
    ctx.backups.as_deref()
}

/// Delete a file mcpctl created and emptied again (`source`, read under `lock`), then the
/// directories it created for it that are empty; journaled, so `undo` brings it back.
fn delete_created(
    ctx: &Context,
    lock: &FileLock,
    source: &Source,
    dirs: &[std::path::PathBuf],
) -> Result<FileChange, FsError> {
    crate::fs::refuse_foreign(&source.path)?;
    let mut change = FileChange {
        path: source.path.clone(),
        created: false,
        backup: None,
        after: None,
        before: source.digest.clone(),
        created_dirs: Vec::new(),
        wrote: Vec::new(),
    };
    ctx.state.sync_pending()?;
    ctx.state.intend(&change)?;
    change.backup = crate::fs::delete_atomic(lock, source, backups_for(ctx, source))?.backup;
    crate::fs::remove_created(&source.path, dirs)?;
    ctx.state.wrote(change.clone());
    Ok(change)
}

/// Take back a write of this run (a later write failed): restore the previous bytes, or
/// delete the file (and directories) the write created — only if the file is still what
/// this run wrote. Another writer's version since (a concurrent `add`) is left as it is,
/// and the error names the file.
pub fn revert(ctx: &Context, change: &FileChange) -> anyhow::Result<()> {
    let expect = Expect::Digest(change.after.as_deref());
    if change.created {
        return delete_file(ctx, &change.path, &change.created_dirs, expect);
    }
    let backup = change.backup.as_deref().ok_or_else(|| {
        UserError::new(format!(
            "cannot restore `{}`: no backup was kept",
            crate::output::file(&change.path)
        ))
    })?;
    let bytes = crate::fs::backup::at(backup)
        .verified_bytes()
        .map_err(|e| UserError::new(e.to_string()))?;
    put_bytes(ctx, &change.path, &bytes, expect)?;
    Ok(())
}

/// What a write that takes something back (rollback, `restore`, `undo`) may replace.
#[derive(Debug, Clone, Copy)]
pub enum Expect<'a> {
    /// Whatever is there (`undo --force`).
    Any,
    /// Only this version (a digest; `None`: only no file at all).
    Digest(Option<&'a str>),
}

impl Expect<'_> {
    /// `Ok` when `source` is the version expected; else the error naming the file.
    fn check(self, path: &Path, source: &Source) -> anyhow::Result<()> {
        let Expect::Digest(expected) = self else {
            return Ok(());
        };
        let same = match (expected, source.digest.as_deref()) {
            (None, None) => true,
            (Some(expected), Some(now)) => {
                expected == now
                    || (!expected.starts_with(crate::fs::DIGEST_PREFIX)
                        && crate::fs::read_bytes(path)
                            .ok()
                            .flatten()
                            .is_some_and(|b| crate::state::journal::matches(expected, &b)))
            }
            _ => false,
        };
        if same {
            return Ok(());
        }
        Err(UserError::new(format!(
            "`{}` changed since mcpctl wrote it (another program, or another mcpctl, wrote it since); it was left as it is",
            crate::output::file(path)
        ))
        .hint("look at the file; `mcpctl backups` lists the versions kept, and `mcpctl restore` puts one back")
        .into())
    }
}

/// The env and header values of every entry at `at` that `list` would redact.
pub fn secret_values(client: &Client, doc: &dyn ConfigDoc, at: ServersAt<'_>) -> Vec<String> {
    let dialect = Dialect::of(client);
    doc.servers(at)
        .unwrap_or_default()
        .iter()
        .filter_map(|(_, raw)| dialect.read_raw(raw).ok())
        .flat_map(|entry| match entry.transport {
            Transport::Stdio { env, .. } => env.into_values().collect::<Vec<_>>(),
            Transport::Remote { headers, .. } => headers.into_values().collect(),
        })
        .filter(|value| redact(value) != *value)
        .collect()
}

/// Put `bytes` back as the whole content of `path` (restore, undo, rollback), journaled
/// like any write, under the file's lock from the read to the write, and only over the
/// version `expect` names. Returns `false` when the file already holds exactly these bytes.
pub fn put_bytes(
    ctx: &Context,
    path: &Path,
    bytes: &[u8],
    expect: Expect<'_>,
) -> anyhow::Result<bool> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        UserError::new(format!(
            "the saved version of `{}` is not UTF-8 text (byte {})",
            crate::output::file(path),
            e.valid_up_to()
        ))
        .hint("mcpctl only writes text; restore this file by hand")
    })?;
    let lock = lock(ctx, path)?;
    retry(path, "restore", || {
        let mut source = lock.read(path).map_err(|e| UserError::new(e.to_string()))?;
        if source.exists() && source.bytes_for(&source.text) == bytes {
            return Ok(Some(false));
        }
        expect.check(path, &source)?;
        // The saved bytes carry their own BOM, if any.
        source.bom = false;
        match write_file(ctx, &lock, &source, text) {
            Ok(_) => Ok(Some(true)),
            // Another program wrote it between the read and the swap: with a version to
            // expect, the next read says it is not that one any more.
            Err(FsError::Changed { .. }) => Ok(None),
            Err(e) => Err(write_error(&e)),
        }
    })
}

/// Delete a file a command created (undo, rollback), keeping its bytes as a backup so that
/// the deletion can itself be undone; then the now-empty directories in `dirs`. Only the
/// version `expect` names is deleted.
pub fn delete_file(
    ctx: &Context,
    path: &Path,
    dirs: &[std::path::PathBuf],
    expect: Expect<'_>,
) -> anyhow::Result<()> {
    let lock = lock(ctx, path)?;
    let source = lock.read(path).map_err(|e| UserError::new(e.to_string()))?;
    expect.check(path, &source)?;
    if !source.exists() {
        crate::fs::remove_created(path, dirs).map_err(|e| UserError::new(e.to_string()))?;
        return Ok(());
    }
    match delete_created(ctx, &lock, &source, dirs) {
        Ok(_) => Ok(()),
        Err(e) => {
            let hint = e.hint().unwrap_or("nothing was deleted");
            Err(UserError::new(e.to_string()).hint(hint).into())
        }
    }
}

/// The unified diff of a file's `old` and `new` texts, as `git diff` shows it: `a/`
/// and `b/` before `label`, or `/dev/null` for a file that did not exist.
pub fn unified_diff(label: &str, old: &str, new: &str, existed: bool) -> String {
    let from = if existed {
        format!("a/{label}")
    } else {
        "/dev/null".to_owned()
    };
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&from, &format!("b/{label}"))
        .to_string()
}

/// How the ledger names the entry `name` at `location`.
pub fn entry_key(location: &Location, name: &str) -> EntryKey {
    entry_key_at(&crate::fs::identity(&location.path), location, name)
}

/// `entry_key` with the file's identity already resolved (it costs system calls).
pub fn entry_key_at(identity: &std::path::Path, location: &Location, name: &str) -> EntryKey {
    EntryKey {
        path: identity.to_path_buf(),
        key: location.key.clone(),
        name: name.to_owned(),
    }
}

/// One row of a writing command's report (`add`, `remove`; the `--json` shape).
#[derive(Debug, Serialize)]
pub struct FileReport {
    pub client: String,
    /// Absolute; empty when the client has no file here.
    #[serde(serialize_with = "crate::output::path_json")]
    pub path: PathBuf,
    pub action: Action,
    pub error: Option<String>,
    /// Where the previous version of the file was kept.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::output::option_path_json"
    )]
    pub backup: Option<PathBuf>,
    /// The file was deleted: mcpctl had created it, and it held nothing else.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deleted: bool,
    /// The file was written; the entry could not be recorded in mcpctl's ledger (why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unrecorded: Option<String>,
    #[serde(skip)]
    pub unrecorded_hint: Option<String>,
    #[serde(skip)]
    pub hint: Option<String>,
    #[serde(skip)]
    pub diff: Option<String>,
}

/// What a writing command did to each target file, plus the warnings on the way.
#[derive(Debug)]
pub struct EditReport {
    pub files: Vec<FileReport>,
    pub dry_run: bool,
    /// Said before the outcome, also with `--json`.
    pub warnings: Vec<String>,
    /// Said before the outcome (`\`x\` was not found in any targeted client`).
    pub note: Option<String>,
}

impl EditReport {
    pub fn new(dry_run: bool) -> EditReport {
        EditReport {
            files: Vec::new(),
            dry_run,
            warnings: Vec::new(),
            note: None,
        }
    }

    /// Record one client's outcome: the file and what happened, or the error and its hint.
    pub fn push(
        &mut self,
        ctx: &Context,
        client: &Client,
        scope: Scope,
        result: anyhow::Result<(PathBuf, Outcome)>,
    ) {
        self.files.push(match result {
            Ok((path, outcome)) => FileReport {
                client: client.id.clone(),
                path,
                action: outcome.action,
                error: None,
                backup: outcome.backup,
                deleted: outcome.deleted,
                unrecorded: outcome.unrecorded.as_ref().map(|u| u.error.clone()),
                unrecorded_hint: outcome.unrecorded.and_then(|u| u.hint),
                hint: None,
                diff: outcome.diff,
            },
            Err(error) => FileReport {
                client: client.id.clone(),
                path: client
                    .location(scope, &ctx.platform, &ctx.project)
                    .ok()
                    .flatten()
                    .map(|l| l.path)
                    .unwrap_or_default(),
                action: Action::Failed,
                error: Some(error.to_string()),
                backup: None,
                deleted: false,
                unrecorded: None,
                unrecorded_hint: None,
                hint: crate::error::hint_of(&error).map(str::to_owned),
                diff: None,
            },
        });
    }
}

impl Report for EditReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(&self.files)
    }

    fn human(&self, paint: Paint) -> Vec<Block> {
        let mut blocks: Vec<Block> = self.warnings.iter().cloned().map(Block::Warning).collect();
        blocks.extend(self.note.iter().cloned().map(Block::Note));
        blocks.extend(
            self.files
                .iter()
                .filter_map(|r| r.diff.as_deref())
                .map(|diff| Block::Raw(paint.diff(diff))),
        );
        // A refusal that several clients share (the same entry differing the same way in
        // each, as when one argument changed everywhere) is said in full once; the later
        // rows say its first line and point up to it.
        let mut said: Vec<(&str, Option<&str>, &str)> = Vec::new();
        for r in &self.files {
            let verb = match (r.action, self.dry_run) {
                (Action::Added, true) => "would add",
                (Action::Updated, true) => "would update",
                (Action::Removed, true) => "would remove",
                (Action::Added, false) => "added",
                (Action::Updated, false) => "updated",
                (Action::Removed, false) => "removed",
                (Action::Unchanged, _) => "unchanged",
                (Action::Failed, _) => "failed",
            };
            let style = match r.action {
                Action::Failed => Style::Fail,
                Action::Unchanged => Style::Dim,
                _ => Style::Ok,
            };
            // Pad before painting: escape codes would count toward the width.
            let verb = paint.paint(style, &format!("{verb:<12}"));
            let line = match &r.error {
                None if r.deleted => format!(
                    "{verb} {:<16} {} (file deleted: mcpctl had created it)",
                    r.client,
                    paint.path(&r.path)
                ),
                None => format!("{verb} {:<16} {}", r.client, paint.path(&r.path)),
                Some(error) => {
                    let first = error.lines().next().unwrap_or_default();
                    let long = r.hint.is_some() || first.len() < error.len();
                    if long
                        && let Some((_, _, client)) = said
                            .iter()
                            .find(|(e, h, _)| *e == error && *h == r.hint.as_deref())
                    {
                        blocks.push(Block::Line(format!(
                            "{verb} {:<16} {} (as in {client}, above)",
                            r.client,
                            paint.text(first)
                        )));
                        continue;
                    }
                    said.push((error, r.hint.as_deref(), &r.client));
                    let mut line = format!("{verb} {:<16} {}", r.client, paint.text(error));
                    if let Some(hint) = &r.hint {
                        line.push_str(&format!("\n  hint: {}", paint.text(hint)));
                    }
                    line
                }
            };
            blocks.push(Block::Line(line));
            if let Some(error) = &r.unrecorded {
                // The write stands (issue 39 F16): say so, and what was not recorded.
                let mut hint = "the entry is in the file and the client loads it; mcpctl did not record that it wrote it, so it reads as hand-made (`apply`, `update` and `remove --all` leave it alone)".to_owned();
                if let Some(more) = &r.unrecorded_hint {
                    hint.push_str("; ");
                    hint.push_str(more);
                }
                blocks.push(Block::Warning(format!(
                    "not recorded: {}\n  hint: {}",
                    paint.text(error),
                    paint.text(&hint)
                )));
            }
        }
        let backups: Vec<String> = self
            .files
            .iter()
            .filter_map(|r| r.backup.as_deref())
            .map(|backup| paint.path(backup))
            .collect();
        if let Some(first) = backups.first() {
            let more = match backups.len() {
                1 => String::new(),
                n => format!(" (and {} more in the same directory)", n - 1),
            };
            blocks.push(Block::Note(paint.paint(
                Style::Dim,
                &format!("previous version kept in {first}{more}"),
            )));
        }
        if self.dry_run {
            blocks.push(Block::Note("dry run: nothing was written".to_owned()));
        }
        blocks
    }

    fn status(&self) -> ExitStatus {
        if self.files.iter().any(|r| r.action == Action::Failed) {
            ExitStatus::Error
        } else if self.files.iter().any(|r| r.unrecorded.is_some()) {
            ExitStatus::Unrecorded
        } else {
            ExitStatus::Success
        }
    }
}
