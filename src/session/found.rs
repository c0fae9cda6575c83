//! One configured server as `list`, `doctor` and the engines see it ([`Found`]), and a file
//! that could not be read ([`Broken`]). `inventory` collects them; `loads` marks what each
//! client will not load.

use std::path::PathBuf;

use crate::clients::loading::Gate;
use crate::clients::{Client, Scope};
use crate::entry::{Dialect, EntryError, ServerEntry};
use crate::formats::{Position, RawEntry};
use crate::policy::Block;
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
    pub not_loaded: Option<NotLoaded>,
}

/// Why a client does not load an entry although it is there. Its `Display` is the reason
/// `list` and `doctor` show.
#[derive(Debug, Clone)]
pub enum NotLoaded {
    /// The client refuses the whole file, so it loads none of its servers (a failure,
    /// not a choice the user made): why, as said after `file rejected: `.
    Rejected(String),
    /// A settings list keeps it out (Gemini CLI `mcp.excluded`, `mcp.allowed`).
    Gated(Gate),
    /// A client that merges several user files reads a later one, `file`, that defines
    /// the server too.
    Overridden {
        file: String,
        name: String,
        client: String,
    },
    /// An administrator's file has exclusive control of the client's servers.
    Exclusive { file: PathBuf, client: String },
    /// The client starts no server in this folder until the user trusts it (Gemini CLI's
    /// folder trust): `how` says how.
    Untrusted {
        folder: PathBuf,
        client: String,
        how: String,
        /// Only the project's own servers wait (Copilot CLI); the user's load anywhere.
        project_only: bool,
    },
    /// The client skips the whole file the server is in (a system file that is not
    /// root's alone), `why`.
    Skipped {
        file: PathBuf,
        why: String,
        client: String,
    },
    /// A server of the same name in the client's settings takes precedence (over an
    /// extension's).
    Shadowed { name: String, client: String },
    /// An administrator's policy keeps it out.
    Policy { block: Block, client: String },
}

impl NotLoaded {
    /// Whether the client rejects the whole file: a failure, not a choice the user made.
    pub fn is_rejection(&self) -> bool {
        matches!(self, NotLoaded::Rejected(_))
    }

    /// The policy rule that keeps the entry out.
    pub fn policy(&self) -> Option<&Block> {
        match self {
            NotLoaded::Policy { block, .. } => Some(block),
            _ => None,
        }
    }

    /// The kind of reason, for a table (`--json` has all of it).
    pub fn tag(&self) -> &'static str {
        match self {
            NotLoaded::Rejected(_) => "file rejected",
            NotLoaded::Gated(gate) => gate.tag(),
            NotLoaded::Overridden { .. } => "overridden",
            NotLoaded::Exclusive { .. }
            | NotLoaded::Shadowed { .. }
            | NotLoaded::Skipped { .. } => "not loaded",
            NotLoaded::Untrusted { .. } => "untrusted folder",
            NotLoaded::Policy { block, .. } => block.word(),
        }
    }
}

impl std::fmt::Display for NotLoaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotLoaded::Rejected(why) => write!(f, "file rejected: {why}"),
            NotLoaded::Gated(gate) => gate.fmt(f),
            NotLoaded::Overridden { file, name, client } => write!(
                f,
                "overridden: `{file}` defines `{name}` too, and {client} reads it later"
            ),
            NotLoaded::Exclusive { file, client } => write!(
                f,
                "not loaded: `{}` has exclusive control of {client}'s servers",
                file.display()
            ),
            NotLoaded::Untrusted {
                folder,
                client,
                how,
                project_only,
            } => write!(
                f,
                "untrusted folder: {client} starts no {} in `{}` until the folder is trusted; {how}",
                if *project_only {
                    "server of the project's files"
                } else {
                    "server"
                },
                folder.display()
            ),
            NotLoaded::Skipped { file, why, client } => write!(
                f,
                "not loaded: {client} skips `{}` because {why}",
                file.display()
            ),
            NotLoaded::Shadowed { name, client } => write!(
                f,
                "not loaded: a server named `{name}` in {client}'s settings takes precedence"
            ),
            NotLoaded::Policy { block, client } => f.write_str(&block.reason(client)),
        }
    }
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
