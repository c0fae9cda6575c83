//! `gemini-extensions`: Gemini CLI extensions. Each folder of the extensions directory
//! holds `gemini-extension.json` (`name`, `version`, `mcpServers`), or, for a linked
//! extension, `.gemini-extension-install.json` with `type = "link"` and the `source`
//! folder that holds it. Strings may use `${extensionPath}`, `${workspacePath}`, `${/}` and
//! `${pathSeparator}`. An extension is enabled unless `extension-enablement.json` (the
//! `settings` file) has an override for its name whose path rule matches the project
//! directory with `!`: the last matching rule wins; `dir/*` also matches subfolders.
//! A server named like one in the user's `settings.json` is not loaded (settings win).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Chooser, Env, Origin, SourceEntry, SourceRead, json, manage_text, substitute};
use crate::clients::ReadOnlySource;
use crate::platform::Os;

const CONFIG: &str = "gemini-extension.json";
const INSTALL: &str = ".gemini-extension-install.json";

pub(super) fn read(source: &ReadOnlySource, dir: &Path, env: &Env<'_>, out: &mut SourceRead) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut folders: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    let enablement = source
        .settings
        .first()
        .and_then(|t| source.settings_path(t, env.platform, env.project).ok())
        .and_then(|path| match json::read(&path) {
            Ok(value) => value,
            Err(message) => {
                out.broken.push((path, message));
                None
            }
        });
    let separator = if env.platform.os == Os::Windows {
        "\\"
    } else {
        "/"
    };
    for folder in folders {
        let root = match json::read(&folder.join(INSTALL)) {
            Ok(Some(meta))
                if meta.get("type").and_then(Value::as_str) == Some("link")
                    && meta.get("source").and_then(Value::as_str).is_some() =>
            {
                PathBuf::from(meta["source"].as_str().unwrap_or_default())
            }
            _ => folder.clone(),
        };
        let file = root.join(CONFIG);
        let config = match json::read(&file) {
            Ok(Some(config)) => config,
            Ok(None) => continue,
            Err(message) => {
                out.broken.push((file, message));
                continue;
            }
        };
        let Some(name) = config.get("name").and_then(Value::as_str) else {
            continue;
        };
        let enabled = is_enabled(enablement.as_ref(), name, env.project);
        let manage = manage_text(source, name);
        let Some(servers) = config.get("mcpServers").and_then(Value::as_object) else {
            continue;
        };
        let vars = [
            ("extensionPath", root.to_string_lossy().into_owned()),
            ("workspacePath", env.project.to_string_lossy().into_owned()),
            ("/", separator.to_owned()),
            ("pathSeparator", separator.to_owned()),
        ];
        for (server, raw) in servers {
            if !raw.is_object() {
                continue;
            }
            let mut raw = raw.clone();
            substitute(&mut raw, &vars);
            out.entries.push(SourceEntry {
                name: server.clone(),
                raw,
                origin: Origin {
                    kind: "extension",
                    name: name.to_owned(),
                    file: file.clone(),
                    enabled,
                    chosen_by: Chooser::User,
                    manage: manage.clone(),
                },
            });
        }
    }
}

/// Gemini CLI's rule: enabled by default; each override `[!]path[*]` that matches the
/// directory (with `/` separators, a leading and a trailing `/`) sets it, the last wins.
fn is_enabled(enablement: Option<&Value>, name: &str, project: &Path) -> bool {
    let Some(rules) = enablement
        .and_then(|e| e.get(name))
        .and_then(|e| e.get("overrides"))
        .and_then(Value::as_array)
    else {
        return true;
    };
    let dir = slashed(&project.to_string_lossy());
    let mut enabled = true;
    for rule in rules.iter().filter_map(Value::as_str) {
        let (disable, rule) = match rule.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, rule),
        };
        let matches = match rule.strip_suffix('*') {
            Some(base) => {
                let base = base.strip_suffix('/').unwrap_or(base);
                dir == base || dir.starts_with(&format!("{base}/"))
            }
            None => dir == rule,
        };
        if matches {
            enabled = !disable;
        }
    }
    enabled
}

fn slashed(path: &str) -> String {
    let mut s = path.replace('\\', "/");
    if !s.starts_with('/') {
        s.insert(0, '/');
    }
    if !s.ends_with('/') {
        s.push('/');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enablement_follows_gemini_rules() {
        let file = serde_json::json!({
            "ext": {"overrides": ["!/home/u/*", "/home/u/work/app/"]},
            "other": {"overrides": ["!/home/u/work/*"]}
        });
        let at = |p: &str, n: &str| is_enabled(Some(&file), n, Path::new(p));
        assert!(!at("/home/u/work/lib", "ext"), "disabled below /home/u");
        assert!(at("/home/u/work/app", "ext"), "re-enabled exactly there");
        assert!(
            !at("/home/u/work/app/sub", "ext"),
            "no * on the enable rule"
        );
        assert!(at("/home/user2", "ext"), "/home/u/* is not /home/user2");
        assert!(!at("/home/u/work", "other"));
        assert!(at("/home/u", "other"));
        assert!(at("/anywhere", "missing"), "enabled by default");
    }
}
