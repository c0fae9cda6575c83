//! One configured server as `list`, `doctor` and the engines see it ([`Found`]), and a file
//! that could not be read ([`Broken`]). `inventory` collects them; `loads` marks what each
//! client will not load.

use std::path::PathBuf;

use crate::clients::{Client, Scope};
use crate::entry::{Dialect, EntryError, ServerEntry};
use crate::formats::{Position, RawEntry};
use crate::sources::Origin;

/// One configured server.
pub struct Found<'a> {
    pub client: &'a Client,
    pub scope: Scope,
    pub path: PathBuf,
    /// Where the servers map is in the file.
    pub key: Vec<String>,
    pub name: String,
    /// The entry as the file spells it.
    raw: RawEntry,
    /// The entry as a server, or why it does not read as one.
    entry: Result<ServerEntry, EntryError>,
    /// Where the entry's name is written, when the entry does not read as a server.
    position: Option<Position>,
    /// `None`: an entry in one of the client's config files, which mcpctl edits. `Some`: a
    /// read-only source (a plugin, an extension, an administrator's file), never edited.
    pub origin: Option<Box<Origin>>,
    /// Why the client does not load this entry although it is there (an administrator's
    /// file has exclusive control; the user's settings define the same name).
    pub not_loaded: Option<String>,
}

impl<'a> Found<'a> {
    /// An entry as `client` reads it; `position` is asked only for an entry that does not
    /// read as a server (a scan of the file each).
    pub fn new(
        client: &'a Client,
        scope: Scope,
        path: PathBuf,
        key: Vec<String>,
        name: String,
        raw: RawEntry,
        position: impl FnOnce(&str) -> Option<Position>,
    ) -> Self {
        let entry = Dialect::of(client).read_raw(&raw);
        let position = if entry.is_err() {
            position(&name)
        } else {
            None
        };
        Found {
            client,
            scope,
            path,
            key,
            name,
            raw,
            entry,
            position,
            origin: None,
            not_loaded: None,
        }
    }

    /// The entry as the file spells it (TOML tables as objects).
    pub fn raw(&self) -> &RawEntry {
        &self.raw
    }

    /// The entry as a server, or why it does not read as one.
    pub fn entry(&self) -> &Result<ServerEntry, EntryError> {
        &self.entry
    }

    /// Where the entry's name is written, when the entry does not read as a server.
    pub fn position(&self) -> Option<Position> {
        self.position
    }

    /// The entry as the file spells it and as a server, taken.
    pub fn into_parts(self) -> (RawEntry, Result<ServerEntry, EntryError>) {
        (self.raw, self.entry)
    }
}

/// A file that could not be read.
pub struct Broken<'a> {
    pub client: &'a Client,
    pub path: PathBuf,
    pub error: anyhow::Error,
}
