//! Intents: what a running command is about to write, made durable before the first
//! file changes, so a crash (`kill -9`, power loss) between a write and the journal
//! record never leaves a change `undo` cannot see.
//!
//! A command's intent is `intents/{id}.json` in the state directory: JSON lines in the
//! journal record's own shape, appended and never rewritten. Before each client file
//! changes, a line listing every file so far (each with its digest before and after) is
//! appended and synced (`fdatasync`): the one fsync the record costs. A line cut short by
//! a crash is for a file that had not changed yet, and the line before it still parses.
//! The command holds an advisory lock on the file while it runs. At the end
//! (`State::finish`) the final record (backups, ledger changes, the command's label) is
//! appended *without* an fsync and the file is renamed into `journal/`: if a crash loses
//! that line or the rename, the synced lines before it still say which files the
//! command was writing, and whoever reads the record settles it against the files
//! (`settle`). An intent whose lock is free belongs to a command that died: the next
//! mcpctl run moves it into the journal, settled to what did change (each file's digest
//! now says whether its write happened), so `undo` reverts the interrupted command — not
//! the one before it.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::journal::{Entry, FileChange, matches};

pub const DIR: &str = "intents";

/// The intent of this process's command, while it runs.
#[derive(Debug)]
pub struct Intent {
    path: PathBuf,
    /// Locked for as long as the command runs; opened for appending.
    file: File,
    pub entry: Entry,
}

impl Intent {
    /// Create and lock the intent file for a command with journal id `id`, about to write
    /// `first` (the first file).
    pub fn create(root: &Path, id: &str, entry: Entry, first: &Path) -> std::io::Result<Intent> {
        let dir = root.join(DIR);
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!("{id}.json"));
        // Created under a name `dead` never reads and locked before it takes its real
        // name: an unlocked `{id}.json` is always a dead command's, never one that has
        // not locked yet (a concurrent run's recovery deleted those).
        let fresh = dir.join(format!("{id}{FRESH}"));
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create_new(true)
            .open(&fresh)?;
        crate::fault::step_at("intent-created", &fresh)?;
        file.lock()?;
        #[expect(
            clippy::disallowed_methods,
            reason = "mcpctl's own intent takes its name once it is locked"
        )]
        std::fs::rename(&fresh, &path)?;
        let mut intent = Intent { path, file, entry };
        intent.entry.pending = true;
        intent.save()?;
        // The name must be durable too, before the first client file changes; on the
        // client file's own file system its journal commits it with that file's
        // directory fsync, which comes before the change can be seen after a crash.
        if !crate::fs::same_file_system(&dir, first) {
            crate::fs::sync_dir_of(&intent.path);
        }
        Ok(intent)
    }

    /// Add a file about to be written (a file already listed keeps its first `before`).
    pub fn add(&mut self, change: &FileChange) -> std::io::Result<()> {
        match self.entry.files.iter_mut().find(|f| f.path == change.path) {
            Some(existing) => {
                if existing.after == change.after {
                    return Ok(());
                }
                // The version it leaves now is this command's too, should the next write
                // not happen (see `happened`).
                if let Some(left) = existing.after.take()
                    && !existing.wrote.contains(&left)
                {
                    existing.wrote.push(left);
                }
                existing.after.clone_from(&change.after);
            }
            None => self.entry.files.push(change.clone()),
        }
        self.save()
    }

    /// Change what the intent says of its files (`State::rebase`: a backup it names was
    /// kept again without a secret), durably, as a new line.
    pub fn rebase(&mut self, change: &dyn Fn(&mut FileChange) -> bool) -> std::io::Result<()> {
        let mut changed = false;
        for file in &mut self.entry.files {
            changed |= change(file);
        }
        if changed { self.save() } else { Ok(()) }
    }

    /// Append the intent as it is now and make it durable.
    fn save(&mut self) -> std::io::Result<()> {
        self.append(&self.entry.clone())?;
        self.file.sync_data()?;
        crate::fault::step_at("intent", &self.path)
    }

    fn append(&mut self, entry: &Entry) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(entry).map_err(std::io::Error::other)?;
        line.push(b'\n');
        self.file.write_all(&line)
    }

    /// The command finished: its final journal record is appended, not synced (see the
    /// module note). Then `into_journal` moves the file; in between the record is
    /// complete but still an intent, which the next run journals as it is.
    pub fn finish(&mut self, record: &Entry) -> std::io::Result<()> {
        // `State::save` passes a final record already; a copy (30,000 ledger changes for
        // an `apply` of 10,000 servers into three files) only for one that is not.
        if record.pending {
            let mut record = record.clone();
            record.pending = false;
            self.append(&record)?;
        } else {
            self.append(record)?;
        }
        crate::fault::step_at("journal", &self.path)
    }

    /// Move the finished intent to `journaled` (a rename: the synced lines in it keep
    /// their durability). No fsync: a lost rename leaves an intent the next run journals.
    pub fn into_journal(self, journaled: &Path) -> std::io::Result<()> {
        if let Some(dir) = journaled.parent() {
            std::fs::create_dir_all(dir)?;
        }
        #[expect(
            clippy::disallowed_methods,
            reason = "mcpctl's own journal record moves from intents/ to journal/"
        )]
        std::fs::rename(&self.path, journaled)?;
        crate::fault::step_at("journaled", journaled)
    }

    /// The command wrote nothing after all: the intent goes.
    pub fn done(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// What became of one dead command.
pub struct Recovered {
    pub id: String,
    /// Its journal record, with only the files whose write happened (or that changed since);
    /// `None` when nothing of it reached a file.
    pub record: Option<Entry>,
    pub path: PathBuf,
    /// It got as far as its final record: the file is the journal record as it is.
    pub finished: bool,
}

/// The suffix of an intent file between its creation and its lock.
const FRESH: &str = ".json.new";

/// A fresh intent nobody holds, whose creator (the pid its id ends with) is gone or
/// which nobody has touched for a minute, was left by a command that died between
/// creating and locking it: it holds nothing (no client file changed before the lock).
fn drop_orphan(path: &Path) {
    let Ok(file) = OpenOptions::new().read(true).write(true).open(path) else {
        return;
    };
    let stale = file
        .metadata()
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age > std::time::Duration::from_secs(60));
    let creator = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(FRESH))
        .and_then(|id| id.rsplit_once('-'))
        .and_then(|(_, pid)| pid.parse::<u32>().ok());
    let gone = creator.is_some_and(|pid| !process_exists(pid));
    if (stale || gone) && file.try_lock().is_ok() {
        let _ = std::fs::remove_file(path);
    }
}

/// Whether a process with this pid exists (a reused pid only keeps an orphan longer).
#[cfg(unix)]
fn process_exists(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    // SAFETY: signal 0 only checks for existence and permission.
    let result = unsafe { libc::kill(pid, 0) };
    result == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Whether a process with this pid exists: one that can be opened and has not exited.
/// A pid Windows knows nothing of makes `OpenProcess` fail with `ERROR_INVALID_PARAMETER`;
/// any other failure (access denied) counts as running.
#[cfg(windows)]
fn process_exists(pid: u32) -> bool {
    use windows_sys::Win32::Foundation::{
        CloseHandle, ERROR_INVALID_PARAMETER, GetLastError, STILL_ACTIVE,
    };
    use windows_sys::Win32::System::Threading::{
        GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
    };
    // SAFETY: OpenProcess takes plain values; the handle it returns is closed below.
    let handle = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if handle.is_null() {
        // SAFETY: reads this thread's last error, set by the failed call above.
        return unsafe { GetLastError() } != ERROR_INVALID_PARAMETER;
    }
    let mut code = 0u32;
    // SAFETY: `handle` is an open process handle and `code` a valid u32 to write.
    let read = unsafe { GetExitCodeProcess(handle, &raw mut code) };
    // SAFETY: `handle` was opened above and is closed once.
    unsafe { CloseHandle(handle) };
    read == 0 || code == STILL_ACTIVE.cast_unsigned()
}

#[cfg(not(any(unix, windows)))]
fn process_exists(_pid: u32) -> bool {
    true
}

/// The intents in `root` whose command is no longer running, each with the journal
/// record it comes down to. Intents of running commands are left alone.
pub fn dead(root: &Path, backups: Option<&Path>) -> Vec<Recovered> {
    let Ok(entries) = std::fs::read_dir(root.join(DIR)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.to_str().is_some_and(|p| p.ends_with(FRESH)) {
            drop_orphan(&path);
            continue;
        }
        let Some(id) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".json"))
            .map(str::to_owned)
        else {
            continue;
        };
        let Ok(file) = OpenOptions::new().read(true).write(true).open(&path) else {
            continue;
        };
        if file.try_lock().is_err() {
            continue;
        }
        let entry = crate::fs::read_bytes(&path)
            .ok()
            .flatten()
            .and_then(|bytes| Entry::parse(&bytes));
        let finished = entry.as_ref().is_some_and(|e| !e.pending);
        let record = entry.and_then(|entry| settled(entry, backups));
        out.push(Recovered {
            id,
            record,
            path,
            finished,
        });
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// `file` as the journal should record it if its intended write happened, or someone
/// changed it since (then `undo` refuses it); `None` when it is still as it was before.
pub fn happened(file: &FileChange, backups: Option<&Path>) -> Option<FileChange> {
    let now = crate::fs::read_bytes(&file.path).ok().flatten();
    let untouched = match (&file.before, &now) {
        (Some(before), Some(bytes)) => matches(before, bytes),
        (None, None) => true,
        _ => false,
    };
    if untouched {
        return None;
    }
    let mut file = file.clone();
    // Its last intended write did not happen, an earlier one of the same command did: the
    // file is as the command left it then (not changed by anyone else since).
    if let Some(bytes) = &now
        && !file
            .after
            .as_ref()
            .is_some_and(|after| matches(after, bytes))
        && let Some(left) = file.wrote.iter().find(|w| matches(w, bytes))
    {
        file.after = Some(left.clone());
    }
    file.wrote.clear();
    if file.backup.is_none()
        && let (Some(before), Some(backups)) = (&file.before, backups)
    {
        file.backup = crate::fs::backups_of(backups, &file.path)
            .into_iter()
            .find(|b| b.digest == *before)
            .map(|b| b.path);
    }
    Some(file)
}

/// A record as the journal should keep it: a finished one as it is; one that ends with an
/// intent line (its command died, or a crash lost its final line) with only the files
/// whose write happened (or that someone changed since), each with the backup of its
/// version before; `None` when nothing of it reached a file.
pub fn settled(entry: Entry, backups: Option<&Path>) -> Option<Entry> {
    if entry.pending {
        settle(entry, backups)
    } else {
        Some(entry)
    }
}

/// Keep the files whose write happened (or that someone changed since), each with the
/// backup of its version before.
fn settle(mut entry: Entry, backups: Option<&Path>) -> Option<Entry> {
    entry.pending = false;
    entry.files = entry
        .files
        .iter()
        .filter_map(|f| happened(f, backups))
        .collect();
    if entry.files.is_empty() {
        return None;
    }
    entry.command = format!("{} (interrupted)", entry.command);
    entry.interrupted = true;
    Some(entry)
}
