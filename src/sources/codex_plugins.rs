//! `codex-plugins`: Codex plugins. Codex loads the plugins its user `config.toml` names
//! (`[plugins."name@marketplace"]`, `enabled` defaulting to true) from its plugin cache,
//! `<cache>/<marketplace>/<name>/<version>` (the `local` version when present, else the
//! greatest). The manifest (`.codex-plugin/plugin.json`, or `.claude-plugin/plugin.json`)
//! may name the servers file (`"mcpServers": "./path.json"`) or hold them inline; else
//! `<root>/.mcp.json` (a flat map or wrapped in `mcpServers`). `type` is dropped and a
//! relative `cwd` is taken from the plugin folder, as Codex does. Each server's
//! `[plugins."x".mcp_servers."y"] enabled` (default true) switches it; the table holds
//! only on/off and tool policy, never how to start it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Chooser, Env, Origin, SourceEntry, SourceRead, json, manage_text};
use crate::clients::ReadOnlySource;

const MANIFESTS: [&str; 2] = [".codex-plugin/plugin.json", ".claude-plugin/plugin.json"];

pub(super) fn read(source: &ReadOnlySource, cache: &Path, env: &Env<'_>, out: &mut SourceRead) {
    let Some(config_path) = source
        .settings
        .first()
        .and_then(|t| source.settings_path(t, env.platform, env.project).ok())
    else {
        return;
    };
    let config: Value = match std::fs::read_to_string(&config_path) {
        Ok(text) => match toml::from_str(&text) {
            Ok(value) => value,
            // The client's own file: its parse errors are reported where the file is read
            // as the client's config.
            Err(_) => return,
        },
        Err(_) => return,
    };
    let Some(plugins) = config.get("plugins").and_then(Value::as_object) else {
        return;
    };
    for (id, settings) in plugins {
        let Some((name, marketplace)) = id.split_once('@') else {
            continue;
        };
        let plugin_on = settings.get("enabled").and_then(Value::as_bool) != Some(false);
        let Some(root) = active_root(&cache.join(marketplace).join(name)) else {
            continue;
        };
        let manage = manage_text(source, id);
        for (server, mut raw, file) in servers_of(&root, out) {
            normalize(&mut raw, &root);
            let server_on = settings
                .get("mcp_servers")
                .and_then(|m| m.get(&server))
                .and_then(|s| s.get("enabled"))
                .and_then(Value::as_bool)
                != Some(false);
            out.entries.push(SourceEntry {
                name: server,
                raw,
                origin: Origin {
                    kind: "plugin",
                    name: id.clone(),
                    file,
                    enabled: plugin_on && server_on,
                    chosen_by: Chooser::User,
                    manage: manage.clone(),
                },
            });
        }
    }
}

/// The version folder Codex uses: `local` when present, else the greatest name.
fn active_root(base: &Path) -> Option<PathBuf> {
    let mut versions: Vec<String> = std::fs::read_dir(base)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|v| {
            !v.is_empty()
                && v != "."
                && v != ".."
                && v.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'))
        })
        .collect();
    versions.sort_unstable();
    let version = if versions.iter().any(|v| v == "local") {
        "local".to_owned()
    } else {
        versions.pop()?
    };
    Some(base.join(version))
}

fn servers_of(root: &Path, out: &mut SourceRead) -> Vec<(String, Value, PathBuf)> {
    let manifest = MANIFESTS.iter().map(|m| root.join(m)).find(|p| p.is_file());
    let Some(manifest) = manifest else {
        // Codex does not load a plugin without a manifest.
        return Vec::new();
    };
    let declared = match json::read(&manifest) {
        Ok(value) => value.and_then(|v| v.get("mcpServers").cloned()),
        Err(message) => {
            out.broken.push((manifest, message));
            return Vec::new();
        }
    };
    let (file, value) = match declared {
        Some(Value::Object(inline)) => (manifest, Value::Object(inline)),
        Some(Value::String(rel)) => {
            let Some(rel) = rel.strip_prefix("./") else {
                // Codex takes only `./...` paths inside the plugin.
                return Vec::new();
            };
            let path = root.join(rel);
            match json::read(&path) {
                Ok(Some(value)) => (path, value),
                Ok(None) => return Vec::new(),
                Err(message) => {
                    out.broken.push((path, message));
                    return Vec::new();
                }
            }
        }
        _ => {
            let path = root.join(".mcp.json");
            match json::read(&path) {
                Ok(Some(value)) => (path, value),
                Ok(None) => return Vec::new(),
                Err(message) => {
                    out.broken.push((path, message));
                    return Vec::new();
                }
            }
        }
    };
    json::servers_map(&value)
        .into_iter()
        .map(|(name, raw)| (name, raw, file.clone()))
        .collect()
}

/// What Codex does to a plugin's entry before reading it as its own: no `type`, and a
/// relative `cwd` under the plugin folder.
fn normalize(raw: &mut Value, root: &Path) {
    let Some(map) = raw.as_object_mut() else {
        return;
    };
    map.shift_remove("type");
    if let Some(Value::String(cwd)) = map.get("cwd")
        && !Path::new(cwd).is_absolute()
    {
        let joined = root.join(cwd).to_string_lossy().into_owned();
        map.insert("cwd".to_owned(), Value::String(joined));
    }
}
