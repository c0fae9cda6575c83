//! `--from-json` snippets: the text a README or a client's file gives (one entry, a
//! `mcpServers`/`servers` map, VS Code's `mcp` settings with `inputs`, JSON or JSONC)
//! turned into named entries, with the hint that fits a mangled or cut-off paste.
//! Reading the text (`-`, `@FILE`) is the caller's.

use serde_json::{Map, Value};

use super::{Dialect, ServerEntry, spelling};
use crate::clients::{DialectName, Fields};
use crate::error::UserError;

pub fn looks_like_entry(map: &Map<String, Value>) -> bool {
    spelling::looks_like_entry(map.keys().map(String::as_str))
}

/// What `--from-json` yields: the entry, its name, VS Code `inputs`, and notes.
#[derive(Debug)]
pub struct Snippet {
    pub name: String,
    pub raw: Value,
    pub inputs: Vec<Value>,
    pub notes: Vec<String>,
}

/// Shell quoting eats the quotes (`{command:npx}`, or `{command:` when it also split the
/// words); text that still has its quotes was quoted right, whatever else is wrong.
fn looks_shell_mangled(text: &str) -> bool {
    let text = text.trim();
    text.starts_with('{') && !text.contains('"')
}

/// Text with its quotes whose brackets never close: the copy stopped early.
fn looks_cut_off(text: &str) -> bool {
    let text = text.trim();
    text.matches('{').count() > text.matches('}').count()
        || text.matches('[').count() > text.matches(']').count()
}

/// The entry in a `--from-json` snippet (JSON or JSONC), and its name: `NAME` when given,
/// else the one server the snippet names.
pub fn entry_from_json(name: Option<&str>, json: &str) -> anyhow::Result<Snippet> {
    let json = json.trim_start_matches('\u{feff}');
    let value: Value = jsonc_parser::parse_to_serde_value::<Option<Value>>(json, &crate::formats::json_tree::client_jsonc())
        .map_err(|e| {
            let error = UserError::new(format!(
                "`--from-json` is not valid JSON at {}:{}: {}",
                e.line_display(),
                e.column_display(),
                e.kind()
            ));
            if looks_shell_mangled(json) {
                error.hint("the shell ate the quotes: wrap the JSON in single quotes, e.g. --from-json '{\"command\":\"npx\",\"args\":[\"-y\",\"pkg\"]}', or pass `--from-json @file.json`")
            } else if looks_cut_off(json) {
                error.hint("the JSON ends early: a bracket is never closed; copy the whole snippet (or save it and pass `--from-json @file.json`)")
            } else {
                error.hint("fix the JSON at that position, or pass it from a file with `--from-json @file.json`")
            }
        })?
        .unwrap_or(Value::Null);
    let Value::Object(map) = &value else {
        return Err(UserError::new("`--from-json` must be a JSON object")
            .hint("pass the entry, or a `{\"mcpServers\":{...}}` snippet")
            .into());
    };
    let need_name = || {
        UserError::new("the snippet is a single entry without a name")
            .hint("say the name: `mcpctl add NAME --from-json ...`")
    };
    if looks_like_entry(map) {
        let name = name.ok_or_else(need_name)?;
        let raw = value.clone();
        return Ok(Snippet {
            name: name.to_owned(),
            raw,
            inputs: Vec::new(),
            notes: Vec::new(),
        });
    }
    // VS Code's user settings nest the servers and inputs under `mcp`.
    let holder = map
        .get("mcp")
        .and_then(Value::as_object)
        .filter(|m| m.get("servers").is_some_and(Value::is_object))
        .unwrap_or(map);
    let inputs = holder
        .get("inputs")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let servers = spelling::SERVERS_KEYS
        .iter()
        .find_map(|k| holder.get(*k).and_then(Value::as_object))
        .or_else(|| {
            holder
                .values()
                .all(|v| v.as_object().is_some_and(looks_like_entry))
                .then_some(holder)
        })
        .ok_or_else(|| {
            UserError::new("`--from-json` holds no server entry").hint(
                "pass `{\"command\":...}`, `{\"url\":...}` or a `{\"mcpServers\":{...}}` snippet",
            )
        })?;
    let snippet = |name: &str, raw: &Value, notes: Vec<String>| Snippet {
        name: name.to_owned(),
        raw: raw.clone(),
        inputs: inputs.clone(),
        notes,
    };
    if let Some(name) = name
        && let Some(entry) = servers.get(name)
    {
        return Ok(snippet(name, entry, Vec::new()));
    }
    let names = || {
        servers
            .keys()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (servers.iter().collect::<Vec<_>>().as_slice(), name) {
        ([(own, entry)], Some(name)) => Ok(snippet(
            name,
            entry,
            vec![format!(
                "the snippet calls the server `{own}`; adding it as `{name}`"
            )],
        )),
        ([(own, entry)], None) => Ok(snippet(own, entry, Vec::new())),
        ([], _) => Err(UserError::new("`--from-json` has an empty servers map")
            .hint("pass a snippet with one server")
            .into()),
        (many, Some(name)) => Err(UserError::new(format!(
            "`--from-json` has {} servers and none is named `{name}`",
            many.len()
        ))
        .hint(format!("name one of: {}", names()))
        .into()),
        (many, None) => Err(ManyServers(many.iter().map(|(k, _)| (*k).clone()).collect()).into()),
    }
}

/// A snippet with several servers and no NAME: `add` adds each of them.
#[derive(Debug)]
pub struct ManyServers(pub Vec<String>);

impl std::fmt::Display for ManyServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`--from-json` has {} servers: {}",
            self.0.len(),
            self.0.join(", ")
        )
    }
}

impl std::error::Error for ManyServers {}

/// The canonical entry for a snippet's raw entry, read in the standard spelling.
pub fn read_entry(raw: &Value) -> Result<ServerEntry, UserError> {
    let fields = Fields::default();
    let reader = Dialect {
        name: DialectName::Standard,
        fields: &fields,
        client: "--from-json",
        remote_hint: None,
    };
    reader.read_raw(raw).map_err(|e| {
        UserError::new(format!("`--from-json`: {e}"))
            .hint("the entry needs `command` (and `args`) or `url`")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_json_accepts_entry_and_snippets() {
        let raw = |name: Option<&str>, json: &str| entry_from_json(name, json).unwrap().raw;
        assert_eq!(
            raw(Some("x"), r#"{"command":"npx","args":["-y","p"]}"#)["command"],
            "npx"
        );
        assert_eq!(
            raw(Some("x"), r#"{"mcpServers":{"fs":{"command":"npx"}}}"#)["command"],
            "npx"
        );
        let two = r#"{"servers":{"a":{"url":"u1"},"b":{"url":"u2"}}}"#;
        assert_eq!(raw(Some("b"), two)["url"], "u2");
        assert!(entry_from_json(Some("c"), two).is_err());
        assert!(entry_from_json(None, two).is_err());
        assert_eq!(
            raw(Some("x"), r#"{"fs":{"command":"npx"}}"#)["command"],
            "npx"
        );
        assert!(entry_from_json(Some("x"), "[1]").is_err());
        assert!(entry_from_json(Some("x"), "{").is_err());
        assert!(entry_from_json(None, r#"{"command":"npx"}"#).is_err());
        let one = entry_from_json(
            None,
            "{\n // a comment\n \"mcpServers\": {\"fs\": {\"command\": \"npx\",},},\n}",
        )
        .unwrap();
        assert_eq!(
            (one.name.as_str(), one.raw["command"].as_str()),
            ("fs", Some("npx"))
        );
        let renamed =
            entry_from_json(Some("files"), r#"{"mcpServers":{"fs":{"command":"npx"}}}"#).unwrap();
        assert_eq!(renamed.name, "files");
        assert!(renamed.notes[0].contains("`fs`"), "{:?}", renamed.notes);
        let vscode = entry_from_json(
            None,
            r#"{"mcp":{"inputs":[{"id":"tok","type":"promptString"}],"servers":{"gh":{"url":"https://x"}}}}"#,
        )
        .unwrap();
        assert_eq!((vscode.name.as_str(), vscode.inputs.len()), ("gh", 1));
    }

    #[test]
    fn only_shell_mangled_json_gets_the_quoting_hint() {
        let hint = |json: &str| {
            crate::error::hint_of(&entry_from_json(Some("x"), json).unwrap_err())
                .unwrap()
                .to_owned()
        };
        assert!(hint("{command:npx}").contains("single quotes"));
        assert!(!hint(r#"{"command": "npx" "args": []}"#).contains("single quotes"));
    }
}
