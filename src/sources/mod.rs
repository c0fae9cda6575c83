//! Read-only sources: servers a client loads that the user did not put in one of its
//! config files (Claude Code plugins, an administrator's `managed-mcp.json`, Gemini CLI
//! extensions, Continue's own config and folders). The client table says where each lives (`[[client.read_only]]`); one
//! module per kind reads it (Codex plugins too). `list` and `doctor` show these servers marked with their
//! origin; nothing here ever writes, and `add`/`remove` refuse to touch them.

mod claude_plugins;
mod codex_plugins;
mod continue_dev;
mod gemini_extensions;
mod json;
mod managed;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::clients::{Client, ReadOnlySource, SourceKind};
use crate::formats::RawEntry;
use crate::platform::Platform;

/// Who chose that the client loads a source's servers (the trust rule reads this).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Chooser {
    /// The user installed or enabled it (a plugin or extension in their own settings).
    User,
    /// Only a project's committed settings enable it: the repository author's choice.
    Project,
    /// An administrator deployed it to a system path.
    Admin,
}

/// Where a read-only server comes from.
#[derive(Debug, Clone, Serialize)]
pub struct Origin {
    /// `plugin`, `managed` or `extension`.
    pub kind: &'static str,
    /// The plugin id (`name@marketplace`), the extension name, or `managed-mcp.json`.
    pub name: String,
    /// The file the entry was read from (absolute).
    pub file: PathBuf,
    /// Whether the client loads it (a disabled plugin or extension: `false`).
    pub enabled: bool,
    pub chosen_by: Chooser,
    /// How a person changes it (`claude plugin disable x@y`).
    pub manage: String,
}

/// One server from a read-only source.
#[derive(Debug, Clone)]
pub struct SourceEntry {
    pub name: String,
    pub raw: RawEntry,
    pub origin: Origin,
}

/// A source file present on disk that takes exclusive control of a client's servers.
#[derive(Debug, Clone)]
pub struct Exclusive {
    pub file: PathBuf,
    /// What that means, for `list`/`doctor` and `add`/`remove`.
    pub manage: String,
}

/// Everything read from one client's read-only sources.
#[derive(Debug, Default)]
pub struct SourceRead {
    pub entries: Vec<SourceEntry>,
    /// Present when one of the sources takes exclusive control.
    pub exclusive: Option<Exclusive>,
    /// Files that exist but could not be read or parsed (message names the file).
    pub broken: Vec<(PathBuf, String)>,
    /// Files the client skips although they parse (a system file not root's alone): its
    /// entries are listed, not loaded, for this reason.
    pub skipped: Vec<(PathBuf, String)>,
}

/// Where to look, resolved once per run.
pub struct Env<'a> {
    pub platform: &'a Platform,
    pub project: &'a Path,
}

/// Read every read-only source of `client`.
#[must_use]
pub fn read(client: &Client, env: &Env<'_>) -> SourceRead {
    let mut out = SourceRead::default();
    for source in &client.read_only {
        let path = match source.path(env.platform) {
            Ok(Some(path)) => path,
            Ok(None) => continue,
            Err(e) => {
                out.broken.push((PathBuf::new(), e.to_string()));
                continue;
            }
        };
        match source.kind {
            SourceKind::ClaudePlugins => claude_plugins::read(source, &path, env, &mut out),
            SourceKind::ManagedFile => managed::read(source, &path, &mut out),
            SourceKind::GeminiExtensions => {
                gemini_extensions::read(source, &path, env, &mut out);
            }
            SourceKind::CodexPlugins => codex_plugins::read(source, &path, env, &mut out),
            SourceKind::Continue => continue_dev::read(source, &path, env, &mut out),
        }
    }
    // When a source takes exclusive control, the others are not loaded either.
    if let Some(exclusive) = &out.exclusive {
        let file = exclusive.file.clone();
        for entry in &mut out.entries {
            if entry.origin.file != file {
                entry.origin.enabled = false;
            }
        }
    }
    out
}

/// `manage` with `{origin}` filled in.
fn manage_text(source: &ReadOnlySource, origin: &str) -> String {
    source.manage.replace("{origin}", origin)
}

/// Replace `${NAME}` for each `(NAME, value)` in every string of `raw` (keys untouched):
/// the variables a client fills in from where the source lives (`${CLAUDE_PLUGIN_ROOT}`,
/// `${extensionPath}`); other references stay for the environment.
fn substitute(raw: &mut RawEntry, vars: &[(&str, String)]) {
    match raw {
        serde_json::Value::String(s) => {
            for (name, value) in vars {
                let pattern = format!("${{{name}}}");
                if s.contains(&pattern) {
                    *s = s.replace(&pattern, value);
                }
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                substitute(item, vars);
            }
        }
        serde_json::Value::Object(map) => {
            for (_, value) in map.iter_mut() {
                substitute(value, vars);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitute_fills_named_variables_and_leaves_others() {
        let mut raw = serde_json::json!({
            "command": "${ROOT}/bin/s",
            "args": ["--c", "${ROOT}/c.json", "${HOME}"],
            "env": {"K": "${ROOT}", "${ROOT}": "key untouched"}
        });
        substitute(&mut raw, &[("ROOT", "/p".to_owned())]);
        assert_eq!(raw["command"], "/p/bin/s");
        assert_eq!(raw["args"][1], "/p/c.json");
        assert_eq!(raw["args"][2], "${HOME}");
        assert_eq!(raw["env"]["K"], "/p");
        assert_eq!(raw["env"]["${ROOT}"], "key untouched");
    }
}
