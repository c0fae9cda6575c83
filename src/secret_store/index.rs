//! `secrets.json` in mcpctl's state directory: which secret names exist and where each
//! lives. It holds names, backends and provider commands, never a value, so losing or
//! sharing it leaks nothing. Read without a lock (a reader sees the old or the new file,
//! never half of one); changed under the file's lock and written atomically.

use std::path::Path;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::error::UserError;
use crate::fs;

/// The index file's name in the state directory.
pub const FILE: &str = "secrets.json";

/// Where a secret's value lives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "backend", rename_all = "snake_case")]
pub enum Backend {
    /// The OS keychain (service `mcpctl`, account = the secret's name).
    Keychain,
    /// Printed by this command when needed; mcpctl keeps only the command.
    Command { command: String },
}

impl Backend {
    /// How `secret list` names it.
    pub fn label(&self) -> &'static str {
        match self {
            Backend::Keychain => "keychain",
            Backend::Command { .. } => "command",
        }
    }
}

/// One secret the index knows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    #[serde(flatten)]
    pub backend: Backend,
    /// When it was last set (RFC 3339, UTC).
    pub time: String,
}

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Index {
    #[serde(default)]
    pub version: u32,
    #[serde(default)]
    pub secrets: IndexMap<String, Record>,
}

impl Index {
    pub fn get(&self, name: &str) -> Option<&Record> {
        self.secrets.get(name)
    }

    /// Record `name` as living in `backend`, now; names stay sorted.
    pub fn put(&mut self, name: &str, backend: Backend) {
        let time = crate::state::rfc3339(std::time::SystemTime::now());
        self.secrets
            .insert(name.to_owned(), Record { backend, time });
        self.secrets.sort_keys();
    }

    pub fn remove(&mut self, name: &str) {
        self.secrets.shift_remove(name);
    }

    /// Parse the file's text; an empty file is an empty index.
    pub fn parse(text: &str, path: &Path) -> anyhow::Result<Index> {
        if text.trim().is_empty() {
            return Ok(Index::default());
        }
        serde_json::from_str(text).map_err(|e| {
            UserError::new(format!(
                "{}:{}:{}: not mcpctl's secret index: {e}",
                path.display(),
                e.line(),
                e.column()
            ))
            .hint("the index holds only names and commands, no values: move it aside and set the secrets again with `mcpctl secret set`")
            .into()
        })
    }

    /// The index on disk; empty when there is none.
    pub fn read(path: &Path) -> anyhow::Result<Index> {
        match fs::read_bytes(path).map_err(|e| UserError::new(e.to_string()))? {
            Some(bytes) => Index::parse(&String::from_utf8_lossy(&bytes), path),
            None => Ok(Index::default()),
        }
    }

    /// Read, change and write the index under its lock (`root`: the state directory).
    pub fn update(path: &Path, root: &Path, change: impl FnOnce(&mut Index)) -> anyhow::Result<()> {
        let io = |e: fs::FsError| {
            anyhow::Error::from(
                UserError::new(e.to_string())
                    .hint("check that mcpctl's state directory is writable (MCPCTL_STATE_DIR)"),
            )
        };
        std::fs::create_dir_all(root).map_err(|e| {
            UserError::new(format!("cannot create {}: {e}", root.display()))
                .hint("check that mcpctl's state directory is writable (MCPCTL_STATE_DIR)")
        })?;
        let lock = fs::lock::acquire(path, root).map_err(io)?;
        let source = lock.read(path).map_err(io)?;
        let mut index = Index::parse(&source.text, path)?;
        change(&mut index);
        index.version = 1;
        let mut text = serde_json::to_string_pretty(&index)?;
        text.push('\n');
        fs::write_atomic(&lock, &source, &text, None).map_err(io)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_names_backends_and_commands_only() {
        let mut index = Index::default();
        index.put("zeta", Backend::Keychain);
        index.put(
            "alpha",
            Backend::Command {
                command: "pass show alpha".to_owned(),
            },
        );
        let text = serde_json::to_string(&index).unwrap_or_default();
        assert!(
            text.contains(r#""alpha":{"backend":"command","command":"pass show alpha""#),
            "{text}"
        );
        assert!(text.contains(r#""zeta":{"backend":"keychain""#), "{text}");
        let back = Index::parse(&text, Path::new("secrets.json")).ok();
        assert_eq!(
            back.as_ref()
                .map(|i| i.secrets.keys().cloned().collect::<Vec<_>>()),
            Some(vec!["alpha".to_owned(), "zeta".to_owned()])
        );
    }

    #[test]
    fn a_damaged_index_names_its_file_and_position() {
        let error = Index::parse("{\"secrets\": [", Path::new("/s/secrets.json"))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(error.starts_with("/s/secrets.json:1:"), "{error}");
    }
}
