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
    /// The digest of the bytes before the command (`None`: the file did not exist, or a
    /// record of an older mcpctl version).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// Directories the command created for the file, deepest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub created_dirs: Vec<PathBuf>,
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
    /// The file name of the record (sortable: a zero-padded nanosecond stamp first).
    #[serde(skip)]
    pub id: String,
    /// RFC 3339, UTC.
    pub time: String,
    /// `add github`, `apply`, `undo`, ...
    pub command: String,
    pub files: Vec<FileChange>,
    #[serde(default)]
    pub ledger: Vec<LedgerChange>,
    /// An intent's line (`intent`): what the command was about to write, not yet what it
    /// did; a record that ends with one is settled against the files when read.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
}

impl Entry {
    /// The record a journal or intent file holds: one JSON document (the shape older
    /// mcpctl versions wrote), or JSON lines of which the last one that parses counts
    /// (an intent appends a line per change; a line cut short by a crash is skipped).
    pub fn parse(bytes: &[u8]) -> Option<Entry> {
        if let Ok(entry) = serde_json::from_slice::<Entry>(bytes) {
            return Some(entry);
        }
        bytes
            .split(|b| *b == b'\n')
            .rev()
            .find_map(|line| serde_json::from_slice::<Entry>(line).ok())
    }
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
