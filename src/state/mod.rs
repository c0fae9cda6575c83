//! What mcpctl remembers between runs, in its state directory (design §8):
//! `backups/` (previous bytes of every file written, kept by `fs::write_atomic`),
//! `ledger.json` (the entries mcpctl wrote, see `ledger`) and `journal/` (one record per
//! writing command, see `journal`).
//!
//! A command talks to one `State` (in the `Context`): it asks whose an entry is
//! (`ownership`), says what it wrote (`record`, `forget`, `wrote`), and `lib::run` calls
//! `finish` once at the end, which merges this command's ledger changes into the file on
//! disk and appends the journal record — under the state lock, atomically, so concurrent
//! mcpctl runs never lose each other's records. A command that must see a stable world
//! from its first read to its last write (`apply`, `undo`) takes the lock first (`lock`).
//!
//! Losing the ledger makes mcpctl more careful, never less: a missing ledger has no
//! records, so every entry reads as hand-made. A ledger that does not parse is an error,
//! never silently replaced. This module never prints.

pub mod intent;
pub mod journal;
pub mod ledger;
pub mod tokens;

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::UserError;
use crate::fs;
pub use journal::{Entry as JournalEntry, FileChange, LedgerChange};
pub use ledger::{Created, EntryKey, Fingerprint, Ledger, Origin, Ownership, Record};

const LEDGER_FILE: &str = "ledger.json";
const JOURNAL_DIR: &str = "journal";
const LOCK_FILE: &str = "lock";
const TOKENS_FILE: &str = "tokens.json";
/// Journal records kept (oldest are pruned).
const JOURNAL_KEPT: usize = 50;

/// mcpctl's memory for one command.
#[derive(Debug)]
pub struct State {
    /// `None` when there is no state directory (no home): nothing is remembered, so
    /// every entry is hand-made and `undo` has nothing to undo.
    root: Option<PathBuf>,
    session: Mutex<Session>,
}

#[derive(Debug, Default)]
struct Session {
    /// The state lock, once taken (held until the process ends).
    lock: Option<File>,
    /// The ledger as read, with this command's changes applied.
    ledger: Option<Ledger>,
    changes: Vec<LedgerChange>,
    /// Where each entry's change is in `changes` (an apply records thousands); checked
    /// on use, so a stale position after `changes` is cleared is only a miss.
    change_at: HashMap<EntryKey, usize>,
    files: Vec<FileChange>,
    /// `add github`, ... (for the intent and the journal record).
    command: String,
    /// What this command is about to write, durable before the first write.
    intent: Option<intent::Intent>,
    /// Directories of client files this command replaced whose fsync is still to come
    /// (`sync_later`): before the next file changes, and before the command ends.
    unsynced: Vec<PathBuf>,
    /// `undo`/`redo`: the record this command reverts (`Reverts`), for its journal record.
    reverts: Option<Reverts>,
    /// When this command recorded its first entry (`rfc3339`): the time of all of them,
    /// formatted once (an apply records thousands).
    recorded_at: Option<String>,
    /// What the next write of a file will record (`expect`), named in the intent with
    /// that write; keyed by entry (its `path` is the file's identity).
    expected: HashMap<EntryKey, Option<Record>>,
    /// Files whose version before this command was scrubbed to the one it left
    /// (`rebase`): still this command's change, for `undo` to name.
    rebased: Vec<PathBuf>,
}

/// What an `undo` or a `redo` reverts: the journal record with this id; or what an
/// `undo`/`redo` that died half-way while reverting it had reverted (`RollBack`).
#[derive(Debug, Clone)]
pub enum Reverts {
    Undo(String),
    Redo(String),
    RollBack(String),
}

impl Reverts {
    /// The record's `(undoes, redoes, rolls_back)` fields.
    fn fields(reverts: Option<&Reverts>) -> (Option<String>, Option<String>, Option<String>) {
        match reverts {
            Some(Reverts::Undo(id)) => (Some(id.clone()), None, None),
            Some(Reverts::Redo(id)) => (None, Some(id.clone()), None),
            Some(Reverts::RollBack(id)) => (None, None, Some(id.clone())),
            None => (None, None, None),
        }
    }
}

impl State {
    pub fn new(root: Option<PathBuf>) -> State {
        State {
            root,
            session: Mutex::new(Session::default()),
        }
    }

    pub fn root(&self) -> Option<&Path> {
        self.root.as_deref()
    }

    /// Where `fs::write_atomic` keeps previous bytes.
    pub fn backups(&self) -> Option<PathBuf> {
        self.root.as_ref().map(|r| r.join("backups"))
    }

    fn session(&self) -> MutexGuard<'_, Session> {
        self.session.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Take the state lock for the rest of this command (blocks while another mcpctl
    /// holds it), and read the ledger afresh. Taking it twice is fine.
    ///
    /// This is the one switch-over point for locking: the lock file is
    /// `{state}/lock` (an advisory exclusive lock), taken by every writing command before
    /// it updates the ledger or journal.
    pub fn lock(&self) -> anyhow::Result<()> {
        let Some(root) = &self.root else {
            return Ok(());
        };
        let mut session = self.session();
        if session.lock.is_some() {
            return Ok(());
        }
        let file = fs::lock_exclusive(&root.join(LOCK_FILE)).map_err(|e| {
            UserError::new(e.to_string())
                .hint("check that mcpctl's state directory is writable (MCPCTL_STATE_DIR)")
        })?;
        session.lock = Some(file);
        if session.changes.is_empty() {
            session.ledger = None;
        }
        Ok(())
    }

    fn with_ledger<T>(&self, f: impl FnOnce(&mut Ledger) -> T) -> anyhow::Result<T> {
        let mut session = self.session();
        if session.ledger.is_none() {
            session.ledger = Some(self.read_ledger()?);
        }
        let ledger = session.ledger.get_or_insert_with(Ledger::default);
        Ok(f(ledger))
    }

    fn read_ledger(&self) -> anyhow::Result<Ledger> {
        let Some(root) = &self.root else {
            return Ok(Ledger::default());
        };
        let path = root.join(LEDGER_FILE);
        let Some(bytes) = fs::read_bytes(&path).map_err(|e| UserError::new(e.to_string()))? else {
            return Ok(Ledger::default());
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(Ledger::default());
        }
        serde_json::from_slice(&bytes).map(Ledger::indexed).map_err(|e| {
            // serde_json's text ends with " at line L column C": said first here instead.
            let text = e.to_string();
            let message = text.split(" at line ").next().unwrap_or(&text);
            UserError::new(format!(
                "{}:{}:{}: not mcpctl's ledger: {message}",
                path.display(),
                e.line(),
                e.column()
            ))
            .hint("mcpctl's ledger is damaged; move it aside and mcpctl treats every entry as hand-made (nothing is lost from client files)")
            .into()
        })
    }

    /// A copy of the ledger as this command sees it.
    #[cfg(test)]
    pub fn ledger(&self) -> anyhow::Result<Ledger> {
        self.with_ledger(|l| l.clone())
    }

    /// The records that match `keep` (without copying the whole ledger).
    pub fn records(&self, keep: &dyn Fn(&Record) -> bool) -> anyhow::Result<Vec<Record>> {
        self.with_ledger(|l| l.entries().iter().filter(|r| keep(r)).cloned().collect())
    }

    /// Whether mcpctl remembers writing entries into the file at `path` (so an empty read
    /// of it is a file being written, not an empty config; see `fs::read_settled`).
    pub fn wrote_into(&self, path: &Path) -> bool {
        if self.root.is_none() {
            return false;
        }
        let identity = fs::identity(path);
        self.with_ledger(|l| l.entries().iter().any(|r| r.entry.path == identity))
            .unwrap_or(false)
    }

    /// The record for one entry.
    pub fn lookup(&self, key: &EntryKey) -> anyhow::Result<Option<Record>> {
        self.with_ledger(|l| l.lookup(key).cloned())
    }

    /// Whose the entry at `key` is, given its current fingerprint.
    pub fn ownership(&self, key: &EntryKey, current: &Fingerprint) -> anyhow::Result<Ownership> {
        self.with_ledger(|l| l.ownership(key, current))
    }

    /// Remember that mcpctl wrote this entry (replacing an older record of it).
    pub fn record(
        &self,
        entry: EntryKey,
        fingerprint: Fingerprint,
        source: Origin,
        created: Created,
    ) -> anyhow::Result<()> {
        let time = self
            .session()
            .recorded_at
            .get_or_insert_with(|| rfc3339(SystemTime::now()))
            .clone();
        let record = Record {
            entry: entry.clone(),
            fingerprint,
            source,
            created,
            time,
        };
        self.change(entry, Some(record))
    }

    /// Say, before the write, what this command will record for an entry once the write
    /// of its file (`entry.path`) happened (`None`: forget it). `intend` names it in the
    /// intent with that write, so a kill after the write and before `record`/`forget`
    /// leaves the entry recorded by the next run's recovery, not recorded nowhere (read as
    /// hand-made from then on; issue 39 G13). The record itself is still `record`'s.
    pub fn expect(&self, entry: EntryKey, after: Option<Record>) {
        if self.root.is_some() {
            self.session().expected.insert(entry, after);
        }
    }

    /// [`State::expect`] of the record `record` would make.
    pub fn expect_record(
        &self,
        entry: EntryKey,
        fingerprint: Fingerprint,
        source: Origin,
        created: Created,
    ) {
        let time = self
            .session()
            .recorded_at
            .get_or_insert_with(|| rfc3339(SystemTime::now()))
            .clone();
        let record = Record {
            entry: entry.clone(),
            fingerprint,
            source,
            created,
            time,
        };
        self.expect(entry, Some(record));
    }

    /// The ledger changes an intent names with a write of `path`: every change this
    /// command recorded so far, and what it expects to record for `path` (each with the
    /// record before it, as this command reads the ledger). A ledger that cannot be read
    /// names none: the write goes ahead, and its record fails as it would have.
    fn intended_ledger(&self, path: &Path) -> Vec<LedgerChange> {
        let identity = fs::identity(path);
        let expected: Vec<(EntryKey, Option<Record>)> = {
            let mut session = self.session();
            let keys: Vec<EntryKey> = session
                .expected
                .keys()
                .filter(|k| k.path == identity)
                .cloned()
                .collect();
            keys.into_iter()
                .filter_map(|k| session.expected.remove_entry(&k))
                .collect()
        };
        let mut out = self.session().changes.clone();
        for (entry, after) in expected {
            let Ok(before) = self.lookup(&entry) else {
                return self.session().changes.clone();
            };
            if before != after {
                out.push(LedgerChange {
                    entry,
                    before,
                    after,
                });
            }
        }
        out
    }

    /// Forget an entry (mcpctl removed it, or it no longer exists).
    pub fn forget(&self, key: &EntryKey) -> anyhow::Result<()> {
        self.change(key.clone(), None)
    }

    /// Set one record (`None`: drop it), remembering the change for the journal.
    pub fn change(&self, entry: EntryKey, after: Option<Record>) -> anyhow::Result<()> {
        let before = self.with_ledger(|l| match &after {
            Some(record) => l.put(record.clone()),
            None => l.remove(&entry),
        })?;
        if before.is_none() && after.is_none() {
            return Ok(());
        }
        let mut session = self.session();
        let session = &mut *session;
        let next = session.changes.len();
        // One hash of the key for the look-up and the insert.
        let at = session.change_at.entry(entry);
        let key = at.key();
        let seen = match &at {
            std::collections::hash_map::Entry::Occupied(i) => Some(*i.get()),
            std::collections::hash_map::Entry::Vacant(_) => None,
        };
        match seen.and_then(|i| session.changes.get_mut(i).filter(|c| c.entry == *key)) {
            // Keep the first `before`: the journal reverts to the state before the command.
            Some(change) => change.after = after,
            None => {
                let entry = key.clone();
                at.insert_entry(next);
                session.changes.push(LedgerChange {
                    entry,
                    before,
                    after,
                });
            }
        }
        Ok(())
    }

    /// Mark this command as the `undo` or `redo` of a journal record (see
    /// `journal::stacks`), before it writes.
    pub fn set_reverts(&self, reverts: Reverts) {
        self.session().reverts = Some(reverts);
    }

    /// Name the running command (`add github`) for its intent and journal record.
    pub fn set_command(&self, command: &str) {
        command.clone_into(&mut self.session().command);
    }

    /// Say durably, before `change.path` is written, that this command is about to write
    /// it (see `intent`): a crash after the write then leaves a record `undo` finds.
    pub fn intend(&self, change: &FileChange) -> Result<(), fs::FsError> {
        let Some(root) = &self.root else {
            return Ok(());
        };
        let err = |source: std::io::Error| fs::FsError::Intent {
            dir: root.join(intent::DIR),
            source,
        };
        let ledger = self.intended_ledger(&change.path);
        let mut session = self.session();
        if let Some(intent) = &mut session.intent {
            return intent.add(change, ledger).map_err(err);
        }
        let now = SystemTime::now();
        let (undoes, redoes, rolls_back) = Reverts::fields(session.reverts.as_ref());
        let entry = JournalEntry {
            id: journal_id(now),
            time: rfc3339(now),
            command: session.command.clone(),
            files: vec![change.clone()],
            ledger,
            undoes,
            redoes,
            rolls_back,
            pending: true,
            interrupted: false,
        };
        let id = entry.id.clone();
        session.intent = Some(intent::Intent::create(root, &id, entry, &change.path).map_err(err)?);
        Ok(())
    }

    /// Leave the fsync of `dir` (a file in it was just replaced) for later: it is done
    /// before the next file changes (`sync_pending`) or, at the latest, beside the ledger's
    /// own fsync at the end (`finish`), so it costs no wait of its own.
    pub fn sync_later(&self, dir: PathBuf) {
        let mut session = self.session();
        if !session.unsynced.contains(&dir) {
            session.unsynced.push(dir);
        }
    }

    /// Make the replaced files' names durable now (see `sync_later`): what this command
    /// changed so far must be on the disk before it changes the next file (a parked
    /// record before the entry is cut from its file, an entry back in its file before
    /// its parked record goes).
    pub fn sync_pending(&self) -> Result<(), fs::FsError> {
        let dirs = std::mem::take(&mut self.session().unsynced);
        fs::sync_dirs(&dirs).map_err(|source| fs::FsError::Write {
            path: dirs.first().cloned().unwrap_or_default(),
            source,
        })
    }

    /// Turn the intents of commands that died into journal records (see `intent`), so
    /// the journal tells what they changed. Called once at the start of every run.
    pub fn recover(&self) -> anyhow::Result<()> {
        let Some(root) = self.root.clone() else {
            return Ok(());
        };
        for dead in intent::dead(&root, self.backups().as_deref()) {
            let journaled = root.join(JOURNAL_DIR).join(format!("{}.json", dead.id));
            if let Some(record) = dead.record.as_ref() {
                // It wrote its final record and died before the move, maybe before its
                // ledger changes were saved: they are saved now, and the file is the
                // journal record as it is. Or it died before its end: the changes its
                // intent named with the writes that happened are saved (issue 39 G13).
                if !record.ledger.is_empty() {
                    self.lock()?;
                    self.save_ledger(&root, &record.ledger, true)?
                        .map_err(|e| UserError::new(e.to_string()))?;
                }
            }
            if dead.finished && dead.record.is_some() && !journaled.exists() {
                let _ = std::fs::create_dir_all(root.join(JOURNAL_DIR));
                #[expect(
                    clippy::disallowed_methods,
                    reason = "mcpctl's own journal record moves from intents/ to journal/"
                )]
                if std::fs::rename(&dead.path, &journaled).is_ok() {
                    continue;
                }
            }
            if let Some(record) = dead.record.filter(|_| !journaled.exists()) {
                let mut text = serde_json::to_string_pretty(&record)?;
                text.push('\n');
                write_state_file(&root, &journaled, &text).map_err(|e| {
                    UserError::new(e.to_string()).hint(
                        "an interrupted mcpctl left a record of what it wrote; check that mcpctl's state directory is writable (MCPCTL_STATE_DIR)",
                    )
                })?;
            }
            let _ = std::fs::remove_file(&dead.path);
        }
        Ok(())
    }

    /// Remember that this command changed a file (for the journal and `undo`).
    pub fn wrote(&self, change: FileChange) {
        let mut session = self.session();
        match session.files.iter_mut().find(|c| c.path == change.path) {
            // The first backup is the state before the command; the last `after` is now.
            Some(existing) => {
                existing.after = change.after;
                existing.created_dirs.extend(change.created_dirs);
            }
            None => session.files.push(change),
        }
    }

    /// Remember a change that left `change.path` as it was (its `before` is its
    /// `after`): an `undo` of a command whose version before was scrubbed to the one it
    /// left (`rebase`) still journals the step, or the stacks would never move past it.
    pub fn kept(&self, change: FileChange) {
        let path = change.path.clone();
        self.wrote(change);
        let mut session = self.session();
        if !session.rebased.contains(&path) {
            session.rebased.push(path);
        }
    }

    /// Whether `path`'s current version (`digest`) is one this command wrote itself: a
    /// later write of the same file then keeps no backup of it (one per file per command:
    /// nobody else ever had that version, and `undo` goes back to the first).
    pub fn wrote_version(&self, path: &Path, digest: Option<&str>) -> bool {
        digest.is_some()
            && self
                .session()
                .files
                .iter()
                .any(|c| c.path == path && c.after.as_deref() == digest)
    }

    /// Every file this command changed so far (first backup, last digest), to take a
    /// failed command back whole.
    pub fn written(&self) -> Vec<FileChange> {
        self.session().files.clone()
    }

    /// The entry names this command recorded or forgot so far, in first-seen order (for
    /// the journal's label when the command line does not name one: `add --from-json`).
    pub fn names_changed(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for change in &self.session().changes {
            if seen.insert(change.entry.name.as_str()) {
                names.push(change.entry.name.clone());
            }
        }
        names
    }

    /// Save this command's ledger changes and its journal record. Called once, by
    /// `lib::run`, also after a failed command (the files it did write can be undone).
    /// First the directory fsyncs of the last files written (`sync_later`), then the
    /// save; both run even when the other fails.
    pub fn finish(&self, command: &str) -> anyhow::Result<()> {
        let unsynced = std::mem::take(&mut self.session().unsynced);
        let synced = fs::sync_dirs(&unsynced).map_err(|e| {
            UserError::new(format!(
                "cannot make the files written durable ({}): {e}",
                unsynced
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .into()
        });
        self.save(command).and(synced)
    }

    /// `finish` without the directory fsyncs: the ledger and the journal record.
    fn save(&self, command: &str) -> anyhow::Result<()> {
        let Some(root) = self.root.clone() else {
            return Ok(());
        };
        let (any_change, mut files, intended, reverts) = {
            let session = self.session();
            (
                !session.changes.is_empty(),
                session.files.clone(),
                session.intent.as_ref().map(|i| i.entry.files.clone()),
                session.reverts.clone(),
            )
        };
        // A write that failed after its file changed (a later step of it) is still a
        // change the journal must know about.
        for file in intended.unwrap_or_default() {
            if !files.iter().any(|f| f.path == file.path)
                && let Some(file) = intent::happened(&file, self.backups().as_deref())
            {
                files.push(file);
            }
        }
        // A file written back to the version it had (a failed command put back what it
        // wrote) and a record set back as it was are no change: a command that comes
        // down to none leaves no record for `undo` to take back.
        let rebased = std::mem::take(&mut self.session().rebased);
        files.retain(|f| f.before != f.after || rebased.contains(&f.path));
        if any_change {
            self.session().changes.retain(|c| c.before != c.after);
        }
        let any_change = any_change && !self.session().changes.is_empty();
        if !any_change && files.is_empty() {
            if let Some(intent) = self.session().intent.take() {
                intent.done();
            }
            return Ok(());
        }
        self.lock()?;
        // Taken, not copied (30,000 of them for a manifest of 10,000 servers in three
        // files): they are cleared below, and nothing reads them after `finish`.
        let changes = std::mem::take(&mut self.session().changes);
        let save_err = |e: fs::FsError| {
            UserError::new(e.to_string()).hint(
                "the client files were written; mcpctl could not remember it, so it will treat those entries as hand-made",
            )
        };
        let now = SystemTime::now();
        let mut intent = self.session().intent.take();
        let (undoes, redoes, rolls_back) = Reverts::fields(reverts.as_ref());
        let record = JournalEntry {
            // Named when it is committed (the state lock held), not when its first write
            // began: of two overlapping commands, the one that finished last is the newest
            // record, the one `undo` takes back first (its files are as it left them).
            id: journal_id(now),
            time: rfc3339(now),
            command: command.to_owned(),
            files,
            // The ledger changes are saved from here below.
            ledger: changes,
            pending: false,
            interrupted: false,
            undoes,
            redoes,
            rolls_back,
        };
        let dir = root.join(JOURNAL_DIR);
        let journaled = dir.join(format!("{}.json", record.id));
        let record_err = |source: std::io::Error| {
            save_err(fs::FsError::Write {
                path: journaled.clone(),
                source,
            })
        };
        // The final record goes into the intent first (appended, no fsync of its own:
        // see `intent`), so a crash while the ledger is saved leaves a record that names
        // the ledger changes too.
        if let Some(intent) = &mut intent {
            intent.finish(&record).map_err(record_err)?;
        }
        if !record.ledger.is_empty() {
            self.save_ledger(&root, &record.ledger, false)?
                .map_err(save_err)?;
        }
        match intent {
            // The intent becomes the journal record by a rename (if the rename is lost in
            // a crash, the intent is journaled by the next run instead).
            Some(intent) => intent.into_journal(&journaled).map_err(record_err)?,
            None => {
                let mut text = serde_json::to_string_pretty(&record)?;
                text.push('\n');
                write_state_file(&root, &journaled, &text).map_err(save_err)?;
            }
        }
        prune_journal(&dir);
        self.prune_backups(&root, &record.files);
        fs::lock::prune(&root);
        let mut session = self.session();
        session.changes.clear();
        session.files.clear();
        // The command is over: let the next mcpctl in.
        session.lock = None;
        Ok(())
    }

    /// Delete the backups of `files` (the ones this command wrote) that nothing needs any
    /// more (`fs::backup::prune`), the state lock held: what the journal records and the
    /// intents of running commands name is kept, so every command the journal remembers
    /// can still be undone.
    fn prune_backups(&self, root: &Path, files: &[FileChange]) {
        let Some(backups) = self.backups() else {
            return;
        };
        // Backups first, then intents, then the journal: a backup listed here was taken
        // after its command's intent named it, and an intent that becomes a journal
        // record meanwhile is read as one or the other.
        let over: Vec<Vec<fs::Backup>> = files
            .iter()
            .map(|file| fs::backups_of(&backups, &file.path))
            .filter(|kept| fs::backup::over_kept(kept.len()))
            .collect();
        if over.is_empty() {
            return;
        }
        let needed = Needed::read(root);
        for kept in &over {
            fs::backup::prune(
                kept,
                &|path| path.file_name().is_some_and(|n| needed.names.contains(n)),
                &needed.digests,
            );
        }
    }

    /// Merge `changes` into the ledger on disk (the state lock held). A `replay` (a dead
    /// command's changes) applies each only where the ledger still holds what that command
    /// saw before: a change saved already, or overtaken by a later command, is left. The
    /// outer error is a ledger that cannot be read; the inner one, a failed write.
    fn save_ledger(
        &self,
        root: &Path,
        changes: &[LedgerChange],
        replay: bool,
    ) -> anyhow::Result<Result<(), fs::FsError>> {
        // Re-read under the lock: another mcpctl may have recorded since we read.
        let mut ledger = self.read_ledger()?;
        let mut changed = false;
        for change in changes {
            if replay && ledger.lookup(&change.entry) != change.before.as_ref() {
                continue;
            }
            changed = true;
            match &change.after {
                Some(record) => {
                    ledger.put(record.clone());
                }
                None => {
                    ledger.remove(&change.entry);
                }
            }
        }
        if !changed {
            return Ok(Ok(()));
        }
        ledger.version = ledger::VERSION;
        ledger.sort();
        let mut text = serde_json::to_string_pretty(&ledger)?;
        text.push('\n');
        Ok(write_ledger(root, &text))
    }

    /// The last measured token cost of servers' tool definitions (empty when nothing
    /// was measured, or the cache is unreadable: it is only a cache).
    pub fn tokens(&self) -> tokens::Tokens {
        let Some(root) = &self.root else {
            return tokens::Tokens::default();
        };
        fs::read_bytes(&root.join(TOKENS_FILE))
            .ok()
            .flatten()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// Remember what `doctor` or `tools` measured: `(entry, tokens, each tool's tokens)` per
    /// server.
    /// Read and written under the cache file's own lock, so it never waits for a
    /// writing command's state lock, and concurrent runs keep each other's numbers.
    pub fn remember_tokens(&self, measured: &[tokens::Measurement<'_>]) -> Result<(), fs::FsError> {
        let Some(root) = &self.root else {
            return Ok(());
        };
        if measured.is_empty() {
            return Ok(());
        }
        let path = root.join(TOKENS_FILE);
        let lock = fs::lock::acquire(&path, root)?;
        let source = lock.read(&path)?;
        let mut cache: tokens::Tokens = serde_json::from_str(&source.text).unwrap_or_default();
        let time = rfc3339(SystemTime::now());
        for m in measured {
            cache.put_as(
                m.entry,
                m.declared,
                tokens::Measured {
                    tokens: m.tokens,
                    tools: m.per_tool.len(),
                    time: time.clone(),
                    per_tool: m.per_tool.clone(),
                },
            );
        }
        cache.version = 1;
        let mut text = serde_json::to_string_pretty(&cache).unwrap_or_default();
        text.push('\n');
        fs::write_atomic(&lock, &source, &text, None).map(|_| ())
    }

    /// Whether a backup (its file `name`, its `digest`) is named by what `rebase` cannot
    /// rewrite: the intent of another running command, or a journal record that still
    /// ends with an intent line (a command that died: settled when read).
    pub fn pinned(&self, name: &std::ffi::OsStr, digest: &str) -> bool {
        let Some(root) = &self.root else {
            return false;
        };
        let own = self
            .session()
            .intent
            .as_ref()
            .map(|i| format!("{}.json", i.entry.id));
        let name = name.to_string_lossy();
        let names = |bytes: &[u8]| {
            let text = String::from_utf8_lossy(bytes);
            text.contains(name.as_ref()) || text.contains(digest)
        };
        for dir in [intent::DIR, JOURNAL_DIR] {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
                continue;
            };
            for entry in entries.flatten() {
                let file = entry.file_name();
                if own.as_deref() == file.to_str() {
                    continue;
                }
                let Ok(Some(bytes)) = fs::read_bytes(&entry.path()) else {
                    continue;
                };
                let intent =
                    dir == intent::DIR || JournalEntry::parse(&bytes).is_none_or(|e| e.pending);
                if intent && names(&bytes) {
                    return true;
                }
            }
        }
        false
    }

    /// The version of `file` kept as `old` is kept as `new` from now on (the same
    /// version with a secret taken out, `backups --scrub-secrets`): every journal record,
    /// and this command's own record, that names `old` (by its path, or its digest as the
    /// version a command left or found) names `new`, and an entry's fingerprint in
    /// `fingerprints` (the entry as it was → as it is in `new`) is replaced, so `undo`
    /// restores `new` and takes its entries for mcpctl's. The state lock is held.
    pub fn rebase(
        &self,
        file: &Path,
        old: &fs::Backup,
        new: &fs::Backup,
        fingerprints: &[(Fingerprint, Fingerprint)],
    ) -> anyhow::Result<()> {
        let Some(root) = self.root.clone() else {
            return Ok(());
        };
        self.lock()?;
        let identity = fs::identity(file);
        let old_name = old.path.file_name().map(std::ffi::OsStr::to_os_string);
        let new_name = new.path.file_name().map(std::ffi::OsStr::to_os_string);
        let (Some(old_name), Some(new_name)) = (old_name, new_name) else {
            return Ok(());
        };
        let same = |path: &Path| path == file || fs::identity(path) == identity;
        let digest = |d: &mut Option<String>| {
            if d.as_deref() == Some(old.digest.as_str()) {
                *d = Some(new.digest.clone());
                true
            } else {
                false
            }
        };
        let change = |f: &mut FileChange| {
            if !same(&f.path) {
                return false;
            }
            let mut changed = false;
            if let Some(backup) = &mut f.backup
                && backup.file_name() == Some(old_name.as_os_str())
            {
                *backup = backup.with_file_name(&new_name);
                changed = true;
            }
            changed |= digest(&mut f.before);
            changed |= digest(&mut f.after);
            for w in &mut f.wrote {
                if *w == old.digest {
                    w.clone_from(&new.digest);
                    changed = true;
                }
            }
            changed
        };
        let print = |fp: &mut Fingerprint| {
            if let Some((_, to)) = fingerprints.iter().find(|(from, _)| from == fp) {
                *fp = to.clone();
                true
            } else {
                false
            }
        };
        let dir = root.join(JOURNAL_DIR);
        for id in journal_ids(&dir) {
            let path = dir.join(format!("{id}.json"));
            let Ok(Some(bytes)) = fs::read_bytes(&path) else {
                continue;
            };
            // A record that ends with an intent is `pinned`, never rewritten; a finished
            // one (its intent's lines, then the final record) becomes that record alone.
            let Some(mut record) = JournalEntry::parse(&bytes).filter(|e| !e.pending) else {
                continue;
            };
            let mut changed = false;
            for f in &mut record.files {
                changed |= change(f);
            }
            for c in &mut record.ledger {
                if !same(&c.entry.path) {
                    continue;
                }
                for r in [&mut c.before, &mut c.after].into_iter().flatten() {
                    changed |= print(&mut r.fingerprint);
                }
            }
            if changed {
                let mut text = serde_json::to_string_pretty(&record)?;
                text.push('\n');
                write_state_file(&root, &path, &text).map_err(|e| UserError::new(e.to_string()))?;
            }
        }
        let mut session = self.session();
        let session = &mut *session;
        for f in &mut session.files {
            if change(f) && !session.rebased.contains(&f.path) {
                session.rebased.push(f.path.clone());
            }
        }
        for c in &mut session.changes {
            if same(&c.entry.path) {
                for r in [&mut c.before, &mut c.after].into_iter().flatten() {
                    print(&mut r.fingerprint);
                }
            }
        }
        if let Some(intent) = &mut session.intent {
            intent
                .rebase(&change)
                .map_err(|e| UserError::new(format!("cannot update this command's intent: {e}")))?;
        }
        Ok(())
    }

    /// Journal records, newest first. Records that do not parse are skipped.
    pub fn journal(&self) -> Vec<JournalEntry> {
        let Some(root) = &self.root else {
            return Vec::new();
        };
        let mut ids = journal_ids(&root.join(JOURNAL_DIR));
        ids.reverse();
        let backups = self.backups();
        ids.into_iter()
            .filter_map(|id| {
                let bytes =
                    fs::read_bytes(&root.join(JOURNAL_DIR).join(format!("{id}.json"))).ok()??;
                // A record whose final line a crash lost ends with its intent: settled
                // to what did change (see `intent`).
                let mut entry = intent::settled(JournalEntry::parse(&bytes)?, backups.as_deref())?;
                entry.id = id;
                Some(entry)
            })
            .collect()
    }
}

/// The backups the journal and the intents in the state directory still name: by name
/// (a record's `backup`, wherever the state directory was then), or by the digest of the version before (a file whose backup a
/// record does not name, found again by its digest when the record is settled).
#[derive(Debug, Default)]
struct Needed {
    names: std::collections::HashSet<std::ffi::OsString>,
    digests: std::collections::HashSet<String>,
}

impl Needed {
    fn read(root: &Path) -> Needed {
        /// Only the files of a record (a record of an apply also holds thousands of
        /// ledger changes, skipped unread).
        #[derive(serde::Deserialize)]
        struct Files {
            #[serde(default)]
            files: Vec<FileChange>,
        }
        let mut needed = Needed::default();
        let mut add = |bytes: &[u8]| {
            let records: Vec<Files> = match serde_json::from_slice::<Files>(bytes) {
                Ok(record) => vec![record],
                // JSON lines (an intent, or a record that still ends with one): every
                // line, for an earlier one may name a file a later one lost.
                Err(_) => bytes
                    .split(|b| *b == b'\n')
                    .filter_map(|line| serde_json::from_slice::<Files>(line).ok())
                    .collect(),
            };
            for file in records.into_iter().flat_map(|r| r.files) {
                match file.backup {
                    Some(backup) => {
                        if let Some(name) = backup.file_name() {
                            needed.names.insert(name.to_owned());
                        }
                    }
                    None => {
                        if let Some(before) = file.before {
                            needed.digests.insert(before);
                        }
                    }
                }
            }
        };
        for dir in [intent::DIR, JOURNAL_DIR] {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
                continue;
            };
            for entry in entries.flatten() {
                if let Ok(Some(bytes)) = fs::read_bytes(&entry.path()) {
                    add(&bytes);
                }
            }
        }
        needed
    }
}

/// A journal record's id: a zero-padded nanosecond stamp (sortable), then the pid. A
/// command's record is stamped when it is committed; an intent (and the record recovered
/// from it) when its first write began.
fn journal_id(now: SystemTime) -> String {
    let nanos = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{nanos:020}-{}", std::process::id())
}

/// Replace the ledger (under its file lock, and the state lock): a temp file, fsynced,
/// renamed over it — and no directory fsync. The fsync is what keeps a crash from leaving
/// a torn ledger (every record read as hand-made, or a ledger that does not parse); the
/// rename needs none of its own: if a crash loses it, the ledger is the one before this
/// command (its entries read as hand-made: more careful, never less), and on one file
/// system with the journal the rename is committed before the journal record's move that
/// follows it.
fn write_ledger(root: &Path, text: &str) -> Result<(), fs::FsError> {
    let path = root.join(LEDGER_FILE);
    let lock = fs::lock::acquire(&path, root)?;
    let source = lock.read(&path)?;
    fs::write_own(&lock, &source, text)
}

/// Replace one of mcpctl's own files atomically (under its file lock, in `root`).
fn write_state_file(root: &Path, path: &Path, text: &str) -> Result<(), fs::FsError> {
    let lock = fs::lock::acquire(path, root)?;
    let source = lock.read(path)?;
    fs::write_atomic(&lock, &source, text, None).map(|_| ())
}

fn journal_ids(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut ids: Vec<String> = entries
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let id = name.strip_suffix(".json")?;
            id.starts_with(|c: char| c.is_ascii_digit())
                .then(|| id.to_owned())
        })
        .collect();
    ids.sort_unstable();
    ids
}

fn prune_journal(dir: &Path) {
    let ids = journal_ids(dir);
    let excess = ids.len().saturating_sub(JOURNAL_KEPT);
    for id in &ids[..excess] {
        let _ = fs::remove_created(&dir.join(format!("{id}.json")), &[]);
    }
}

/// `2026-12-01T13:45:07Z` for a time (UTC, whole seconds).
pub fn rfc3339(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rest = secs % 86_400;
    let date = crate::clients::Date::from_days(days);
    format!(
        "{date}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn key(name: &str) -> EntryKey {
        EntryKey {
            path: "/x/mcp.json".into(),
            key: vec!["mcpServers".into()],
            name: name.into(),
        }
    }

    fn fp(s: &str) -> Fingerprint {
        serde_json::from_value(serde_json::json!(s)).unwrap()
    }

    #[test]
    fn one_command_records_its_entries_at_one_time() {
        let dir = tempfile::tempdir().unwrap();
        let state = State::new(Some(dir.path().to_path_buf()));
        for name in ["a", "b", "c"] {
            state
                .record(key(name), fp("sha256:1"), Origin::add(), Created::default())
                .unwrap();
        }
        let ledger = state.ledger().unwrap();
        let times: Vec<&str> = ledger.entries().iter().map(|r| r.time.as_str()).collect();
        assert_eq!(times.len(), 3);
        assert!(times.iter().all(|t| *t == times[0]), "{times:?}");
        assert!(times[0].len() == 20 && times[0].ends_with('Z'), "{times:?}");
    }

    #[test]
    fn rfc3339_formats_utc() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(
            rfc3339(UNIX_EPOCH + Duration::from_secs(1_709_210_096)),
            "2024-02-29T12:34:56Z"
        );
    }

    #[test]
    fn concurrent_commands_keep_each_others_records() {
        let dir = tempfile::tempdir().unwrap();
        let one = State::new(Some(dir.path().to_path_buf()));
        let two = State::new(Some(dir.path().to_path_buf()));
        // Both read the (empty) ledger before either saves.
        assert!(one.lookup(&key("a")).unwrap().is_none());
        assert!(two.lookup(&key("b")).unwrap().is_none());
        one.record(key("a"), fp("sha256:a"), Origin::add(), Created::default())
            .unwrap();
        two.record(
            key("b"),
            fp("sha256:b"),
            Origin::copy(),
            Created::file(true),
        )
        .unwrap();
        one.finish("add a").unwrap();
        drop(one);
        two.finish("copy b").unwrap();
        let fresh = State::new(Some(dir.path().to_path_buf()));
        assert!(fresh.lookup(&key("a")).unwrap().is_some());
        assert!(fresh.lookup(&key("b")).unwrap().is_some());
        let journal = fresh.journal();
        assert_eq!(journal.len(), 2);
        assert_eq!(journal[0].command, "copy b");
        assert_eq!(journal[0].ledger[0].before, None);
    }

    #[test]
    #[expect(clippy::disallowed_methods, reason = "the test damages the ledger")]
    fn a_damaged_ledger_is_an_error_not_an_empty_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(LEDGER_FILE), "{\"entries\": [").unwrap();
        let state = State::new(Some(dir.path().to_path_buf()));
        let error = state.lookup(&key("a")).unwrap_err().to_string();
        assert!(
            error.contains("ledger.json:1:") && error.contains("not mcpctl's ledger"),
            "{error}"
        );
    }

    #[test]
    fn forget_then_record_journals_one_change_with_the_first_before() {
        let dir = tempfile::tempdir().unwrap();
        let state = State::new(Some(dir.path().to_path_buf()));
        state
            .record(key("a"), fp("sha256:1"), Origin::add(), Created::default())
            .unwrap();
        state.finish("add a").unwrap();
        let state = State::new(Some(dir.path().to_path_buf()));
        state.forget(&key("a")).unwrap();
        state
            .record(key("a"), fp("sha256:2"), Origin::add(), Created::default())
            .unwrap();
        state.finish("add a --force").unwrap();
        let last = &state.journal()[0];
        assert_eq!(last.ledger.len(), 1);
        assert_eq!(
            last.ledger[0].before.as_ref().unwrap().fingerprint,
            fp("sha256:1")
        );
        assert_eq!(
            last.ledger[0].after.as_ref().unwrap().fingerprint,
            fp("sha256:2")
        );
    }
}
