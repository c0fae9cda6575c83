//! Intents: what a running command is about to write, made durable before the first
//! file changes, so a crash (`kill -9`, power loss) between a write and the journal
//! record never leaves a change `undo` cannot see.
//!
//! A command's intent is `intents/{id}.json` in the state directory, in the journal
//! record's own shape, with each file's digest before and after. The command holds an
//! advisory lock on it while it runs; at the end (`State::finish`) the journal record is
//! written under the same id and the intent is removed. An intent whose lock is free
//! belongs to a command that died: the next mcpctl run turns it into a journal record
//! of what did change (each file's digest now says whether its write happened), so
//! `undo` reverts the interrupted command — not the one before it.

use std::fs::{File, OpenOptions};
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

use super::journal::{Entry, FileChange, matches};

pub const DIR: &str = "intents";

/// The intent of this process's command, while it runs.
#[derive(Debug)]
pub struct Intent {
    path: PathBuf,
    /// Locked for as long as the command runs.
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
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)?;
        file.lock()?;
        let mut intent = Intent { path, file, entry };
        intent.save()?;
        // The name must be durable too, before the first client file changes; on the
        // client file's own file system its journal commits it before that change.
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
                existing.after.clone_from(&change.after);
            }
            None => self.entry.files.push(change.clone()),
        }
        self.save()
    }

    fn save(&mut self) -> std::io::Result<()> {
        let text = serde_json::to_vec(&self.entry).map_err(std::io::Error::other)?;
        self.file.set_len(0)?;
        self.file.rewind()?;
        self.file.write_all(&text)?;
        self.file.sync_data()?;
        crate::fault::step_at("intent", &self.path)
    }

    /// The command finished: its final journal record (`text`) replaces the intent, which
    /// moves to `journaled`. On failure the intent stays (recovered by the next run).
    pub fn finish_as(mut self, text: &str, journaled: &Path) -> std::io::Result<()> {
        self.file.set_len(0)?;
        self.file.rewind()?;
        self.file.write_all(text.as_bytes())?;
        self.file.sync_data()?;
        crate::fault::step_at("journal", journaled)?;
        if let Some(dir) = journaled.parent() {
            std::fs::create_dir_all(dir)?;
        }
        #[expect(
            clippy::disallowed_methods,
            reason = "mcpctl's own journal record moves from intents/ to journal/"
        )]
        std::fs::rename(&self.path, journaled)
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
        let record = crate::fs::read_bytes(&path)
            .ok()
            .flatten()
            .and_then(|bytes| serde_json::from_slice::<Entry>(&bytes).ok())
            .and_then(|entry| settle(entry, backups));
        out.push(Recovered { id, record, path });
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
    if file.backup.is_none()
        && let (Some(before), Some(backups)) = (&file.before, backups)
    {
        file.backup = crate::fs::backups_of(backups, &file.path)
            .into_iter()
            .find(|b| b.digest.as_deref() == Some(before.as_str()))
            .map(|b| b.path);
    }
    Some(file)
}

/// Keep the files whose write happened (or that someone changed since), each with the
/// backup of its version before.
fn settle(mut entry: Entry, backups: Option<&Path>) -> Option<Entry> {
    entry.files = entry
        .files
        .iter()
        .filter_map(|f| happened(f, backups))
        .collect();
    if entry.files.is_empty() {
        return None;
    }
    entry.command = format!("{} (interrupted)", entry.command);
    Some(entry)
}
