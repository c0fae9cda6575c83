//! What `disable` remembers so that `enable` can give the exact bytes back:
//! `{state}/disabled.json` holds the parked entries (their bytes and where they were) and,
//! for native switches, the value a switched field or list had before mcpctl touched it.
//!
//! The file is written like a client file (lock, atomic swap, backup, journal), so `undo`
//! takes a `disable` back as a whole: the client file and this record together.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::clients::Scope;
use crate::error::UserError;
use crate::session::Context;
use crate::session::edit;
use crate::state::EntryKey;

const FILE: &str = "disabled.json";

/// The whole store.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Store {
    #[serde(default)]
    pub parked: Vec<Parked>,
    #[serde(default)]
    pub switched: Vec<Memory>,
    /// Files a native switch created (Gemini CLI's enablement file, Copilot CLI's
    /// `settings.json`): `enable` deletes one once it is empty again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub created: Vec<CreatedFile>,
}

/// A file mcpctl created to switch a server, and the directories it created for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreatedFile {
    /// The file's identity (`fs::identity`).
    pub path: PathBuf,
    /// Deepest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dirs: Vec<PathBuf>,
}

/// An entry `disable` cut out of its file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parked {
    /// The entry (real file path, servers key, name).
    pub entry: EntryKey,
    pub client: String,
    pub scope: Scope,
    /// The file as the command named it (may be a symlink).
    pub path: PathBuf,
    /// When it was parked (RFC 3339, UTC).
    pub time: String,
    /// The entry as it read (for `list`, and to recognise it when it comes back).
    pub raw: Value,
    pub splice: Splice,
    /// The entries around it when it was parked, so `enable` puts it back between the
    /// same ones when its exact place is gone (an older record has none).
    #[serde(default)]
    pub neighbours: Neighbours,
}

/// The names of the entries before a parked one and after it, each nearest first.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Neighbours {
    pub before: Vec<String>,
    pub after: Vec<String>,
}

/// How to undo the cut: in the text left after parking, `inserted` (usually empty) at
/// `offset` becomes `removed` again. `before`/`after` are the bytes around the cut, to
/// find the place again when the file changed meanwhile; `digest` is the digest of the
/// whole text left after parking (`journal::digest`; unchanged file: splice at `offset`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Splice {
    pub offset: usize,
    pub removed: String,
    pub inserted: String,
    pub before: String,
    pub after: String,
    pub digest: String,
}

/// A native switch or tool filter mcpctl changed: what was there before (`None`: the
/// field or list did not exist), so turning it back restores that.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    /// The file and object that hold the field (the entry, or the list's parent).
    pub path: PathBuf,
    pub at: Vec<String>,
    /// The field (`enabled`, `disabledMcpServers`, a lower-cased name, `disabled_tools`).
    pub field: String,
    pub before: Option<Value>,
    /// The object at `at` did not exist either (mcpctl created it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created_parent: bool,
    /// How many more objects above `at` mcpctl created with it (a project file's servers
    /// map made for `--here`): they go too once empty again.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub created_above: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Store {
    pub fn parked(&self, key: &EntryKey) -> Option<&Parked> {
        self.parked.iter().find(|p| p.entry == *key)
    }

    pub fn memory(&self, path: &std::path::Path, at: &[String], field: &str) -> Option<&Memory> {
        self.switched
            .iter()
            .find(|m| m.path == path && m.at == at && m.field == field)
    }

    /// Remember `memory` unless one for the same field exists (the first `before` is the
    /// original one).
    pub fn remember(&mut self, memory: Memory) {
        if self
            .memory(&memory.path, &memory.at, &memory.field)
            .is_none()
        {
            self.switched.push(memory);
        }
    }

    /// The record that mcpctl created the file `path` (its identity), if it did.
    pub fn created(&self, path: &std::path::Path) -> Option<&CreatedFile> {
        self.created.iter().find(|c| c.path == path)
    }

    /// Remember that mcpctl created `file` (once).
    pub fn remember_created(&mut self, file: CreatedFile) {
        if self.created(&file.path).is_none() {
            self.created.push(file);
        }
    }

    pub fn forget_created(&mut self, path: &std::path::Path) {
        self.created.retain(|c| c.path != path);
    }

    pub fn forget(&mut self, path: &std::path::Path, at: &[String], field: &str) {
        self.switched
            .retain(|m| !(m.path == path && m.at == at && m.field == field));
    }
}

fn path(ctx: &Context) -> Option<PathBuf> {
    ctx.state.root().map(|root| root.join(FILE))
}

fn parse(path: &std::path::Path, text: &str) -> anyhow::Result<Store> {
    if text.trim().is_empty() {
        return Ok(Store::default());
    }
    serde_json::from_str(text).map_err(|e| {
        UserError::new(format!(
            "cannot read mcpctl's record of disabled servers `{}` at {}:{}: {e}",
            crate::output::file(path),
            e.line(),
            e.column()
        ))
        .hint("it holds parked entries' bytes: fix it by hand or restore it (`mcpctl backups`); mcpctl will not overwrite it")
        .into()
    })
}

/// The store as it is now (empty without a state directory).
pub fn load(ctx: &Context) -> anyhow::Result<Store> {
    let Some(path) = path(ctx) else {
        return Ok(Store::default());
    };
    let source = crate::fs::read_source(&path).map_err(|e| UserError::new(e.to_string()))?;
    parse(&path, &source.text)
}

/// Change the store under its lock and write it (journaled, so `undo` reverts it with the
/// client file). Nothing is written when `change` leaves it equal, or with `dry_run`.
pub fn update<T>(
    ctx: &Context,
    dry_run: bool,
    change: impl FnOnce(&mut Store) -> T,
) -> anyhow::Result<T> {
    let Some(path) = path(ctx) else {
        return Err(
            UserError::new("no state directory to keep disabled servers in")
                .hint("set HOME, or MCPCTL_STATE_DIR to a writable directory")
                .into(),
        );
    };
    if dry_run {
        let mut store = load(ctx)?;
        return Ok(change(&mut store));
    }
    let lock = edit::lock(ctx, &path)?;
    let source = lock
        .read(&path)
        .map_err(|e| UserError::new(e.to_string()))?;
    let before = parse(&path, &source.text)?;
    let mut store = before.clone();
    let out = change(&mut store);
    if store != before {
        let mut text = serde_json::to_string_pretty(&store)?;
        text.push('\n');
        if let Err(e) = edit::write_file(ctx, &lock, &source, &text) {
            return Err(UserError::new(e.to_string())
                .hint("check that mcpctl's state directory is writable (MCPCTL_STATE_DIR)")
                .into());
        }
    }
    Ok(out)
}
