//! What each registry install used, so `outdated` can compare versions and `update` can
//! re-render with the same inputs and form: `registry.json` in the state directory, one
//! record per (file, servers key, entry name). The ownership ledger says whether the
//! entry is still there and still mcpctl's (`registry:NAME@VERSION` records); this file
//! adds what only a registry install has: the inputs and the form. Written atomically;
//! a concurrent writer makes it re-read and re-apply.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::inputs::Given;
use crate::fs::{self, FsError};

/// One registry-installed entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Install {
    /// The client file's identity (as the ledger keys it).
    pub path: PathBuf,
    /// The servers map's key path in that file.
    pub key: Vec<String>,
    /// The entry name (as `list` shows it).
    pub name: String,
    pub client: String,
    /// `user`, `project`, `local`.
    pub scope: String,
    /// Registry base URL, server name and pinned version.
    pub registry: String,
    pub server: String,
    pub version: String,
    /// `remote`, `npm`, `pypi`, `oci`, `nuget`.
    pub form: String,
    /// Values given on the command line or at a prompt (secrets only as references).
    pub inputs: Given,
}

impl Install {
    fn same_place(&self, other: &Install) -> bool {
        self.path == other.path && self.key == other.key && self.name == other.name
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    installs: Vec<Install>,
}

fn file_path(state: &Path) -> PathBuf {
    state.join("registry.json")
}

/// Every record; an unreadable or missing file is no records.
pub fn load(state: Option<&Path>) -> Vec<Install> {
    let Some(state) = state else {
        return Vec::new();
    };
    fs::read_source(&file_path(state))
        .ok()
        .and_then(|s| serde_json::from_str::<File>(&s.text).ok())
        .map(|f| f.installs)
        .unwrap_or_default()
}

/// Put `install` (replacing the record for the same file, key and name), dropping the
/// records `live` says are gone (entries removed or replaced since).
pub fn record(
    state: Option<&Path>,
    install: Install,
    live: &dyn Fn(&Install) -> bool,
) -> anyhow::Result<()> {
    change(state, &|installs| {
        installs.retain(|i| !i.same_place(&install) && live(i));
        installs.push(install.clone());
    })
}

fn change(state: Option<&Path>, apply: &dyn Fn(&mut Vec<Install>)) -> anyhow::Result<()> {
    let Some(state) = state else {
        return Ok(());
    };
    let path = file_path(state);
    let lock = fs::lock::acquire(&path, state)?;
    for _ in 0..5 {
        let source = lock.read(&path)?;
        let mut file: File = if source.text.trim().is_empty() {
            File::default()
        } else {
            serde_json::from_str(&source.text).map_err(|e| {
                crate::error::UserError::new(format!(
                    "`{}`:{}:{}: {e}",
                    path.display(),
                    e.line(),
                    e.column()
                ))
                .hint("mcpctl's record of registry installs is damaged; fix or delete the file")
            })?
        };
        apply(&mut file.installs);
        let text = serde_json::to_string_pretty(&file)? + "\n";
        match fs::write_atomic(&lock, &source, &text, None) {
            Ok(_) => return Ok(()),
            Err(FsError::Changed { .. }) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Err(crate::error::UserError::new(format!(
        "`{}` kept changing while mcpctl tried to record an install",
        path.display()
    ))
    .hint("another mcpctl is running; run the command again")
    .into())
}

/// The ledger's source for an install.
pub fn origin(resolved: &super::Resolved) -> crate::state::Origin {
    crate::state::Origin::registry(&resolved.item.server.name, &resolved.item.server.version)
}

/// Whether `latest` is newer than `installed`: numeric dotted parts compared as numbers;
/// anything else, when different.
pub fn newer(latest: &str, installed: &str) -> bool {
    let numbers = |v: &str| -> Option<Vec<u64>> {
        v.trim_start_matches('v')
            .split(['-', '+'])
            .next()?
            .split('.')
            .map(|p| p.parse().ok())
            .collect()
    };
    match (numbers(latest), numbers(installed)) {
        (Some(l), Some(i)) if l != i => l > i,
        _ => latest != installed,
    }
}
