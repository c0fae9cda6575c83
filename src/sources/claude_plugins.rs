//! `claude-plugins`: Claude Code plugins. The registry (`installed_plugins.json`) maps
//! each plugin id (`name@marketplace`) to its installs (`installPath`, `scope`, and
//! `projectPath` for project/local installs; version 1 files hold one object, version 2 a
//! list). A plugin is loaded when the merged `enabledPlugins` of the settings files (in
//! table order, the last that mentions it wins) holds `true` for its id. Its servers come
//! from `<root>/.mcp.json` (a flat map or one wrapped in `mcpServers`), then
//! `.claude-plugin/plugin.json` `mcpServers` (an inline map, a path to such a file, or a
//! list of either), later ones winning; `${CLAUDE_PLUGIN_ROOT}` is the plugin directory.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Chooser, Env, Origin, SourceEntry, SourceRead, json, manage_text, substitute};
use crate::clients::ReadOnlySource;

/// Whether `enabledPlugins` turns a plugin on, and who decided.
struct Enablement {
    enabled: bool,
    chosen_by: Chooser,
}

pub(super) fn read(source: &ReadOnlySource, registry: &Path, env: &Env<'_>, out: &mut SourceRead) {
    let value = match json::read(registry) {
        Ok(Some(value)) => value,
        Ok(None) => return,
        Err(message) => {
            out.broken.push((registry.to_path_buf(), message));
            return;
        }
    };
    let Some(plugins) = value.get("plugins").and_then(Value::as_object) else {
        return;
    };
    let settings = settings_files(source, env);
    for (id, installs) in plugins {
        let Some(root) = install_root(installs, env) else {
            continue;
        };
        let state = enablement(id, &settings, out);
        let manage = manage_text(source, id);
        for (name, mut raw, file) in servers_of(&root, out) {
            substitute(
                &mut raw,
                &[("CLAUDE_PLUGIN_ROOT", root.to_string_lossy().into_owned())],
            );
            out.entries.push(SourceEntry {
                name,
                raw,
                origin: Origin {
                    kind: "plugin",
                    name: id.clone(),
                    file,
                    enabled: state.enabled,
                    chosen_by: state.chosen_by,
                    manage: manage.clone(),
                },
            });
        }
    }
}

/// The settings files in precedence order, each with who owns it: templates and
/// `*.local.json` (not committed) are the user's, other project files the project's.
fn settings_files(source: &ReadOnlySource, env: &Env<'_>) -> Vec<(PathBuf, Chooser)> {
    let mut user_files: Vec<PathBuf> = Vec::new();
    let mut out = Vec::new();
    for template in &source.settings {
        let Ok(path) = source.settings_path(template, env.platform, env.project) else {
            continue;
        };
        let owner = if template.contains('{')
            || template.ends_with(".local.json")
            || user_files.contains(&path)
        {
            user_files.push(path.clone());
            Chooser::User
        } else {
            Chooser::Project
        };
        out.push((path, owner));
    }
    out
}

fn enablement(id: &str, settings: &[(PathBuf, Chooser)], out: &mut SourceRead) -> Enablement {
    let mut state = Enablement {
        enabled: false,
        chosen_by: Chooser::User,
    };
    for (path, owner) in settings {
        let value = match json::read(path) {
            Ok(Some(value)) => value,
            Ok(None) => continue,
            Err(message) => {
                if !out.broken.iter().any(|(p, _)| p == path) {
                    out.broken.push((path.clone(), message));
                }
                continue;
            }
        };
        if let Some(flag) = value
            .get("enabledPlugins")
            .and_then(|m| m.get(id))
            .and_then(Value::as_bool)
        {
            state = Enablement {
                enabled: flag,
                chosen_by: *owner,
            };
        }
    }
    state
}

/// The directory of the install that applies here: a user install, or a project/local
/// install for this project directory (the project entry wins: it pins the version).
fn install_root(installs: &Value, env: &Env<'_>) -> Option<PathBuf> {
    let list: Vec<&Value> = match installs {
        Value::Array(items) => items.iter().collect(),
        Value::Object(_) => vec![installs],
        _ => return None,
    };
    let project = env.project.to_string_lossy();
    let path_of = |install: &Value| {
        let raw = install.get("installPath")?.as_str()?;
        Some(match raw.strip_prefix("~/") {
            Some(rest) => env.platform.home().ok()?.join(rest),
            None => PathBuf::from(raw),
        })
    };
    let for_project = list.iter().find(|i| {
        matches!(
            i.get("scope").and_then(Value::as_str),
            Some("project" | "local")
        ) && i
            .get("projectPath")
            .and_then(Value::as_str)
            .is_some_and(|p| same_dir(p, &project))
    });
    let for_user = list.iter().find(|i| {
        matches!(
            i.get("scope").and_then(Value::as_str),
            None | Some("user" | "managed")
        )
    });
    for_project.or(for_user).and_then(|i| path_of(i))
}

fn same_dir(a: &str, b: &str) -> bool {
    a.trim_end_matches(['/', '\\']) == b.trim_end_matches(['/', '\\'])
}

/// The plugin's servers with the file each came from; later definitions replace earlier
/// ones of the same name, as the client merges them.
fn servers_of(root: &Path, out: &mut SourceRead) -> Vec<(String, Value, PathBuf)> {
    let mut servers: Vec<(String, Value, PathBuf)> = Vec::new();
    let mut merge = |found: Vec<(String, Value)>, file: &Path| {
        for (name, raw) in found {
            servers.retain(|(n, _, _)| *n != name);
            servers.push((name, raw, file.to_path_buf()));
        }
    };
    let from_file = |rel: &str, out: &mut SourceRead| -> Option<(Vec<(String, Value)>, PathBuf)> {
        let path = root.join(rel.trim_start_matches("./"));
        match json::read(&path) {
            Ok(Some(value)) => Some((json::servers_map(&value), path)),
            Ok(None) => None,
            Err(message) => {
                out.broken.push((path, message));
                None
            }
        }
    };
    if let Some((found, path)) = from_file(".mcp.json", out) {
        merge(found, &path);
    }
    let manifest = root.join(".claude-plugin").join("plugin.json");
    let declared = match json::read(&manifest) {
        Ok(Some(value)) => value.get("mcpServers").cloned(),
        Ok(None) => None,
        Err(message) => {
            out.broken.push((manifest.clone(), message));
            None
        }
    };
    let specs = match declared {
        Some(Value::Array(items)) => items,
        Some(other) => vec![other],
        None => Vec::new(),
    };
    for spec in specs {
        match spec {
            // A bundle (`.mcpb`, `.dxt`) or a URL is unpacked by the client at run time.
            Value::String(rel) if is_bundle(&rel) => {}
            Value::String(rel) => {
                if let Some((found, path)) = from_file(&rel, out) {
                    merge(found, &path);
                }
            }
            Value::Object(map) => merge(
                map.into_iter().filter(|(_, v)| v.is_object()).collect(),
                &manifest,
            ),
            _ => {}
        }
    }
    servers
}

fn is_bundle(spec: &str) -> bool {
    let lower = spec.to_ascii_lowercase();
    lower.ends_with(".mcpb")
        || lower.ends_with(".dxt")
        || lower.starts_with("http://")
        || lower.starts_with("https://")
}
