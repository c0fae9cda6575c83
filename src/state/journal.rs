//! The journal: one record per command that wrote files, in `journal/` under the state
//! directory — which files it changed, where their previous bytes are, what it wrote, and
//! how the ledger changed — so that `undo` can revert the whole command.
//! This module only describes records; `state` reads and writes them.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::ledger::{EntryKey, Record};

/// One file a command changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    /// The path as the command named it (symlinks are written through).
    pub path: PathBuf,
    /// The command created the file (it did not exist before).
    pub created: bool,
    /// The previous bytes (`None` when created, or when no backup could be kept).
    pub backup: Option<PathBuf>,
    /// The digest of the bytes the command left (`digest`); `None` when it deleted the file.
    pub after: Option<String>,
    /// The digest of the bytes before the command (`None`: the file did not exist).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// Directories the command created for the file, deepest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub created_dirs: Vec<PathBuf>,
    /// The digests of the versions the command left the file in before `after` (it wrote
    /// the file more than once: an apply parking several entries). In an intent: a crash
    /// before the last write leaves the file in one of these, which is still the
    /// command's version, not another program's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wrote: Vec<String>,
}

/// One ledger record a command changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerChange {
    pub entry: EntryKey,
    pub before: Option<Record>,
    pub after: Option<Record>,
}

/// What one command did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The file name of the record (sortable: a zero-padded nanosecond stamp of when it was
    /// committed first, see `State::save`).
    #[serde(skip)]
    pub id: String,
    /// RFC 3339, UTC.
    pub time: String,
    /// `add github`, `apply`, `undo`, ...
    pub command: String,
    pub files: Vec<FileChange>,
    #[serde(default)]
    pub ledger: Vec<LedgerChange>,
    /// This record is an `undo` of the record with this id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<String>,
    /// This record is a `redo`: it reverted the `undo` record with this id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redoes: Option<String>,
    /// This record puts back what interrupted `undo`s or `redo`s of the record with this
    /// id had reverted (the state before them, which the stacks already describe).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolls_back: Option<String>,
    /// An intent's line (`intent`): what the command was about to write, not yet what it
    /// did; a record that ends with one is settled against the files when read.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
    /// The command died before its end (settled from its intent): the files listed are
    /// the ones whose write happened.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

impl Entry {
    /// The record a journal or intent file holds: one JSON document (a record `recover`
    /// wrote for a command that died), or JSON lines of which the last one that parses
    /// counts (an intent appends a line per change; a line cut short by a crash is skipped).
    /// An intent's lines each name the ledger changes new with them: a last line that is
    /// an intent's gets them all (a final record names every change itself).
    pub fn parse(bytes: &[u8]) -> Option<Entry> {
        if let Ok(entry) = serde_json::from_slice::<Entry>(bytes) {
            return Some(entry);
        }
        let mut lines: Vec<Entry> = bytes
            .split(|b| *b == b'\n')
            .filter_map(|line| serde_json::from_slice::<Entry>(line).ok())
            .collect();
        let mut last = lines.pop()?;
        if last.pending {
            let mine = std::mem::take(&mut last.ledger);
            let earlier = lines
                .into_iter()
                .fold(Vec::new(), |all, line| merged(all, line.ledger));
            last.ledger = merged(earlier, mine);
        }
        Some(last)
    }
}

/// `changes` merged into `into` by entry: a change of an entry already there keeps its
/// first `before` and takes the new `after` (one hash per change: an apply names
/// thousands).
pub fn merged(mut into: Vec<LedgerChange>, changes: Vec<LedgerChange>) -> Vec<LedgerChange> {
    if changes.is_empty() {
        return into;
    }
    let mut at: std::collections::HashMap<EntryKey, usize> = into
        .iter()
        .enumerate()
        .map(|(i, c)| (c.entry.clone(), i))
        .collect();
    for change in changes {
        match at.get(&change.entry) {
            Some(&i) => into[i].after = change.after,
            None => {
                at.insert(change.entry.clone(), into.len());
                into.push(change);
            }
        }
    }
    into
}

/// What `undo` and `redo` would take next, each a stack of record ids (top last).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Stacks {
    /// Commands `undo` reverts, the newest on top (a `redo` record counts as the command
    /// it re-applied).
    pub undo: Vec<String>,
    /// `undo` records `redo` reverts, the newest on top. Any other command empties it.
    pub redo: Vec<String>,
}

impl Entry {
    /// The record this one reverts: an `undo`'s command, a `redo`'s undo.
    pub fn reverts(&self) -> Option<&str> {
        self.undoes.as_deref().or(self.redoes.as_deref())
    }

    /// An `undo` or `redo` (or the putting back of one) that died half-way: it counts as
    /// neither done nor not done until the next `undo` or `redo` settles it (`dangling`).
    pub fn half_step(&self) -> bool {
        self.interrupted && (self.reverts().is_some() || self.rolls_back.is_some())
    }
}

/// The undo and redo stacks the journal (`newest_first`, as `State::journal` gives it)
/// comes down to, replayed from the oldest record: a command pushes onto the undo stack
/// and empties the redo stack; an undo moves its command from the undo stack to the redo
/// stack (as itself); a redo moves that undo back (as itself). An interrupted command's
/// undo is not redone (the command's half would come back: run it again instead). An
/// `undo` or `redo` that died half-way, and the record that put back what it reverted,
/// change neither stack (see `dangling`). Ids the journal pruned are simply not there.
pub fn stacks(newest_first: &[Entry]) -> Stacks {
    let mut stacks = Stacks::default();
    let interrupted: std::collections::HashSet<&str> = newest_first
        .iter()
        .filter(|e| e.interrupted)
        .map(|e| e.id.as_str())
        .collect();
    for entry in newest_first.iter().rev() {
        if entry.half_step() || entry.rolls_back.is_some() {
            continue;
        }
        if let Some(undone) = &entry.undoes {
            stacks.undo.retain(|id| id != undone);
            if !interrupted.contains(undone.as_str()) {
                stacks.redo.push(entry.id.clone());
            }
        } else if let Some(redone) = &entry.redoes {
            stacks.redo.retain(|id| id != redone);
            stacks.undo.push(entry.id.clone());
        } else {
            stacks.undo.push(entry.id.clone());
            stacks.redo.clear();
        }
    }
    stacks
}

/// The record an `undo` or `redo` that died half-way was reverting, when that half step
/// is the newest record (nothing else happened since): its files are part reverted, and
/// the next `undo` or `redo` either finishes it or puts them back (`commands::undo`).
pub fn dangling(newest_first: &[Entry]) -> Option<&str> {
    let newest = newest_first.first()?;
    if !newest.half_step() {
        return None;
    }
    newest.reverts().or(newest.rolls_back.as_deref())
}

/// The records of `undo`s and `redo`s that died half-way while reverting `target`,
/// newest first: their files are the ones already reverted.
pub fn half_steps<'a>(
    newest_first: &'a [Entry],
    target: &'a str,
) -> impl Iterator<Item = &'a Entry> {
    newest_first
        .iter()
        .filter(move |e| e.half_step() && e.reverts() == Some(target))
}

/// The command a record stands for, for messages: an undo or redo record names the
/// command it took back or re-applied (`add github`), as far as the journal still knows.
pub fn described<'a>(entry: &'a Entry, journal: &'a [Entry]) -> &'a str {
    let mut current = entry;
    for _ in 0..journal.len() {
        let Some(next) = current.undoes.as_ref().or(current.redoes.as_ref()) else {
            break;
        };
        match journal.iter().find(|e| &e.id == next) {
            Some(found) => current = found,
            None => break,
        }
    }
    &current.command
}

/// The digest of bytes as the journal records it (`fs::digest`, XXH3-128).
pub fn digest(bytes: &[u8]) -> String {
    crate::fs::digest(bytes)
}

/// Whether `bytes` are the version `recorded` names: an `xxh3:` digest, or the SHA-256
/// hex that journals of older mcpctl versions hold.
pub fn matches(recorded: &str, bytes: &[u8]) -> bool {
    if recorded.starts_with(crate::fs::DIGEST_PREFIX) {
        return crate::fs::digest(bytes) == recorded;
    }
    use sha2::{Digest, Sha256};
    let hex: String = Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    hex == recorded
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str, undoes: Option<&str>, redoes: Option<&str>) -> Entry {
        Entry {
            id: id.to_owned(),
            time: String::new(),
            command: format!("cmd {id}"),
            files: Vec::new(),
            ledger: Vec::new(),
            undoes: undoes.map(str::to_owned),
            redoes: redoes.map(str::to_owned),
            rolls_back: None,
            pending: false,
            interrupted: false,
        }
    }

    fn stacks_of(oldest_first: &[Entry]) -> (Vec<String>, Vec<String>) {
        let mut newest_first = oldest_first.to_vec();
        newest_first.reverse();
        let s = stacks(&newest_first);
        (s.undo, s.redo)
    }

    fn ids(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|&id| id.to_owned()).collect()
    }

    #[test]
    fn undo_and_redo_move_commands_between_the_two_stacks() {
        let a = record("1", None, None);
        let b = record("2", None, None);
        // Two undos take back b, then a.
        let ub = record("3", Some("2"), None);
        let ua = record("4", Some("1"), None);
        assert_eq!(
            stacks_of(&[a.clone(), b.clone()]),
            (ids(&["1", "2"]), ids(&[]))
        );
        assert_eq!(
            stacks_of(&[a.clone(), b.clone(), ub.clone()]),
            (ids(&["1"]), ids(&["3"]))
        );
        assert_eq!(
            stacks_of(&[a.clone(), b.clone(), ub.clone(), ua.clone()]),
            (ids(&[]), ids(&["3", "4"]))
        );
        // A redo re-applies a (the newest undo), and can itself be undone.
        let ra = record("5", None, Some("4"));
        let all = [a.clone(), b.clone(), ub.clone(), ua.clone(), ra.clone()];
        assert_eq!(stacks_of(&all), (ids(&["5"]), ids(&["3"])));
        assert_eq!(described(&ra, &all), "cmd 1");
        // A new command empties the redo stack.
        let c = record("6", None, None);
        assert_eq!(
            stacks_of(&[a, b, ub, ua, ra, c]),
            (ids(&["5", "6"]), ids(&[]))
        );
    }

    #[test]
    fn a_half_step_changes_no_stack_until_settled_and_an_interrupted_command_is_not_redone() {
        let a = record("1", None, None);
        let b = record("2", None, None);
        let mut half = record("3", Some("2"), None);
        half.interrupted = true;
        let all = [a.clone(), b.clone(), half.clone()];
        assert_eq!(stacks_of(&all), (ids(&["1", "2"]), ids(&[])));
        let newest_first: Vec<Entry> = all.iter().rev().cloned().collect();
        assert_eq!(dangling(&newest_first), Some("2"));
        assert_eq!(half_steps(&newest_first, "2").count(), 1);
        // Finished by an undo of the same command: b is undone.
        let finished = record("4", Some("2"), None);
        let done = [a.clone(), b.clone(), half.clone(), finished];
        assert_eq!(stacks_of(&done), (ids(&["1"]), ids(&["4"])));
        assert_eq!(
            dangling(&done.iter().rev().cloned().collect::<Vec<_>>()),
            None
        );
        // Or put back: as before the half step, and nothing dangles any more.
        let mut back = record("4", None, None);
        back.rolls_back = Some("2".to_owned());
        let put = [a.clone(), b.clone(), half, back];
        assert_eq!(stacks_of(&put), (ids(&["1", "2"]), ids(&[])));
        assert_eq!(
            dangling(&put.iter().rev().cloned().collect::<Vec<_>>()),
            None
        );
        // An interrupted command is undone, not redone.
        let mut c = record("5", None, None);
        c.interrupted = true;
        let uc = record("6", Some("5"), None);
        assert_eq!(stacks_of(&[a, b, c, uc]), (ids(&["1", "2"]), ids(&[])));
    }
}
