//! Reading the JSON files sources are made of: strict JSON (the clients parse them with
//! `JSON.parse`), a leading BOM tolerated, errors naming the file and line:column.

use std::path::Path;

use serde_json::Value;

/// The file's value; `Ok(None)` when it does not exist.
pub(super) fn read(path: &Path) -> Result<Option<Value>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read `{}`: {e}", path.display())),
    };
    serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map(Some)
        .map_err(|e| {
            // serde_json's text ends with " at line L column C": said first, as
            // `PATH:LINE:COLUMN:` like every error about a file.
            let text = e.to_string();
            let message = text.split(" at line ").next().unwrap_or(&text);
            format!(
                "{}:{}:{}: not valid JSON: {message}",
                path.display(),
                e.line(),
                e.column()
            )
        })
}

/// A servers map: `{ "mcpServers": {...} }` or the flat `{ name: entry }` form (both occur
/// in plugins' `.mcp.json`), as name/entry pairs in file order.
pub(super) fn servers_map(value: &Value) -> Vec<(String, Value)> {
    let map = match value.get("mcpServers") {
        Some(Value::Object(inner)) => inner,
        _ => match value {
            Value::Object(flat) => flat,
            _ => return Vec::new(),
        },
    };
    map.iter()
        .filter(|(_, v)| v.is_object())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}
