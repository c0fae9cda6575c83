//! The safe fixes `--fix` applies, as pure functions of one raw entry: rename the URL key
//! to the client's spelling (MCP201), add a required remote `type` (MCP203), wrap a shim in
//! `cmd /c` for `--platform windows` (MCP301), unwrap `cmd /c` in a user file used on
//! macOS/Linux (MCP302).
//!
//! A fix never changes what the entry means to its client beyond the finding, never
//! touches another entry, and never runs on a file that does not parse; the bytes are
//! written by `commands::edit::apply` through `ConfigDoc::upsert`.

use serde_json::{Map, Value};

use crate::clients::{Client, DialectName, Scope, UntypedRemote};
use crate::entry;
use crate::platform::Os;

use super::Target;

const URL_KEYS: &[&str] = &["url", "serverUrl", "httpUrl"];

/// The entry with every safe fix applied, or `None` when nothing applies.
pub fn fix_entry(raw: &Value, target: &Target<'_>) -> Option<Value> {
    let Value::Object(map) = raw else { return None };
    let client = target.client;
    let mut out = map.clone();
    if !out.contains_key("command") {
        rename_url(&mut out, client);
        add_type(&mut out, client);
    } else {
        rewrap(&mut out, target);
    }
    (out != *map).then_some(Value::Object(out))
}

fn rename_url(map: &mut Map<String, Value>, client: &Client) {
    let f = &client.fields;
    let readable = |k: &str| {
        k == f.url_key
            || f.http_url_key.as_deref() == Some(k)
            || f.extra_keys.iter().flatten().any(|e| e == k)
    };
    let Some(found) = URL_KEYS.iter().copied().find(|k| map.contains_key(*k)) else {
        return;
    };
    if readable(found) || map.contains_key(&f.url_key) {
        return;
    }
    // Rebuild to keep the key where it was.
    *map = std::mem::take(map)
        .into_iter()
        .map(|(k, v)| {
            if k == found {
                (f.url_key.clone(), v)
            } else {
                (k, v)
            }
        })
        .collect();
}

fn add_type(map: &mut Map<String, Value>, client: &Client) {
    let f = &client.fields;
    if f.untyped_remote != UntypedRemote::None || map.contains_key("type") {
        return;
    }
    let Some(Value::String(url)) = map.get(&f.url_key) else {
        return;
    };
    let path = url
        .split(['?', '#'])
        .next()
        .unwrap_or(url)
        .trim_end_matches('/');
    let value = if path.ends_with("/sse") {
        &f.sse_type
    } else {
        &f.http_type
    };
    let Some(value) = value else { return };
    let mut typed = Map::new();
    typed.insert("type".to_owned(), Value::String(value.clone()));
    typed.extend(std::mem::take(map));
    *map = typed;
}

fn rewrap(map: &mut Map<String, Value>, target: &Target<'_>) {
    let client = target.client;
    if !client.fields.wrap_windows {
        return;
    }
    let strings = |v: Option<&Value>| -> Option<Vec<String>> {
        match v {
            None => Some(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| i.as_str().map(str::to_owned))
                .collect(),
            Some(_) => None,
        }
    };
    let (program, args) = match (client.dialect, map.get("command")) {
        (DialectName::Standard, Some(Value::String(c))) => match strings(map.get("args")) {
            Some(args) => (c.clone(), args),
            None => return,
        },
        (DialectName::CommandArray, Some(command @ Value::Array(_))) => {
            match strings(Some(command))
                .and_then(|mut all| (!all.is_empty()).then(|| (all.remove(0), all)))
            {
                Some(pair) => pair,
                None => return,
            }
        }
        _ => return,
    };
    let (new_program, new_args) = if target.os == Os::Windows && entry::needs_wrap(&program, &args)
    {
        entry::wrap(&program, &args)
    } else if target.os != Os::Windows
        && target.scope == Scope::User
        && entry::is_wrapped(&program, &args)
    {
        let (inner, rest, _) = entry::logical(&program, &args);
        (inner, rest)
    } else {
        return;
    };
    let list = |items: &[String]| Value::Array(items.iter().cloned().map(Value::String).collect());
    match client.dialect {
        DialectName::Standard => {
            map.insert("command".to_owned(), Value::String(new_program));
            // `insert` keeps an existing key's place; a new `args` goes right after `command`.
            if map.contains_key("args") {
                map.insert("args".to_owned(), list(&new_args));
            } else {
                *map = std::mem::take(map)
                    .into_iter()
                    .flat_map(|(k, v)| {
                        let after = (k == "command").then(|| ("args".to_owned(), list(&new_args)));
                        std::iter::once((k, v)).chain(after)
                    })
                    .collect();
            }
        }
        DialectName::CommandArray => {
            let mut all = vec![new_program];
            all.extend(new_args);
            map.insert("command".to_owned(), list(&all));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::ClientTable;
    use serde_json::json;

    fn fix(id: &str, os: Os, scope: Scope, raw: Value) -> Option<Value> {
        let table = ClientTable::builtin().unwrap();
        let target = Target {
            client: table.get(id).unwrap(),
            scope,
            os,
        };
        fix_entry(&raw, &target)
    }

    #[test]
    fn renames_url_for_windsurf_in_place() {
        let fixed = fix(
            "windsurf",
            Os::Linux,
            Scope::User,
            json!({"url": "https://x/mcp", "disabled": false}),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&fixed).unwrap(),
            r#"{"serverUrl":"https://x/mcp","disabled":false}"#
        );
        assert!(
            fix(
                "cursor",
                Os::Linux,
                Scope::User,
                json!({"url": "https://x"})
            )
            .is_none()
        );
    }

    #[test]
    fn adds_required_type() {
        let fixed = fix(
            "roo-code",
            Os::Linux,
            Scope::Project,
            json!({"url": "https://x/sse"}),
        )
        .unwrap();
        assert_eq!(fixed, json!({"type": "sse", "url": "https://x/sse"}));
        let fixed = fix(
            "vscode",
            Os::Linux,
            Scope::Project,
            json!({"url": "https://x/mcp"}),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&fixed).unwrap(),
            r#"{"type":"http","url":"https://x/mcp"}"#
        );
        assert!(fix("cline", Os::Linux, Scope::User, json!({"url": "https://x"})).is_none());
    }

    #[test]
    fn wraps_only_for_windows_and_unwraps_user_files_elsewhere() {
        let raw = json!({"command": "npx", "args": ["-y", "p@1"], "env": {}});
        assert_eq!(
            fix("cursor", Os::Windows, Scope::Project, raw.clone()).unwrap(),
            json!({"command": "cmd", "args": ["/c", "npx", "-y", "p@1"], "env": {}})
        );
        assert!(fix("cursor", Os::Linux, Scope::Project, raw).is_none());
        let wrapped = json!({"command": "cmd", "args": ["/c", "npx", "p@1"]});
        assert_eq!(
            fix("cursor", Os::Linux, Scope::User, wrapped.clone()).unwrap(),
            json!({"command": "npx", "args": ["p@1"]})
        );
        assert!(fix("cursor", Os::Linux, Scope::Project, wrapped).is_none());
        let no_args = json!({"command": "npx", "env": {}});
        assert_eq!(
            serde_json::to_string(&fix("cursor", Os::Windows, Scope::User, no_args).unwrap())
                .unwrap(),
            r#"{"command":"cmd","args":["/c","npx"],"env":{}}"#
        );
        assert_eq!(
            fix(
                "opencode",
                Os::Windows,
                Scope::Project,
                json!({"type": "local", "command": ["npx", "-y", "p@1"]})
            )
            .unwrap(),
            json!({"type": "local", "command": ["cmd", "/c", "npx", "-y", "p@1"]})
        );
    }
}
