//! The manifest's TOML as `import` writes it: the top-level `clients` list, and one
//! `[servers.NAME]` table per imported server.

use serde_json::Value;
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table};

use crate::clients::Scope;
use crate::entry::{RemoteKind, StringMap, Transport};

use super::Variant;

/// A new manifest gets `clients`; an existing explicit list gains the clients imported
/// from (a server's own list may only narrow it).
pub(super) fn extend_clients(doc: &mut DocumentMut, used: &[&str], scope: Scope, new: bool) {
    if new {
        if !used.is_empty() {
            doc.insert("clients", toml_edit::value(strings(used.iter().copied())));
        }
        if scope != Scope::User {
            doc.insert("scope", toml_edit::value(scope.as_str()));
        }
        return;
    }
    if let Some(list) = doc.get_mut("clients").and_then(Item::as_array_mut) {
        for id in used {
            if !list.iter().any(|v| v.as_str() == Some(id)) {
                list.push(*id);
            }
        }
    }
}

fn strings<'a>(items: impl IntoIterator<Item = &'a str>) -> Array {
    items.into_iter().collect()
}

fn inline(map: &StringMap) -> InlineTable {
    map.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

/// `[servers.NAME]` for one variant.
pub(super) fn server_table(name: &str, variant: &Variant<'_>, narrow: bool) -> Table {
    let mut t = Table::new();
    match &variant.entry.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            t.insert("command", toml_edit::value(command.as_str()));
            if !args.is_empty() {
                t.insert(
                    "args",
                    toml_edit::value(strings(args.iter().map(String::as_str))),
                );
            }
            if !env.is_empty() {
                t.insert("env", toml_edit::value(inline(env)));
            }
            if !variant.secrets.is_empty() {
                let secrets: InlineTable = variant
                    .secrets
                    .iter()
                    .map(|s| (s.var.as_str(), s.secret.as_str()))
                    .collect();
                t.insert("secrets", toml_edit::value(secrets));
            }
            if let Some(cwd) = cwd {
                t.insert("cwd", toml_edit::value(cwd.as_str()));
            }
        }
        Transport::Remote { url, kind, headers } => {
            t.insert("url", toml_edit::value(url.as_str()));
            if *kind == RemoteKind::Sse {
                t.insert("transport", toml_edit::value("sse"));
            }
            if !headers.is_empty() {
                t.insert("headers", toml_edit::value(inline(headers)));
            }
            match variant.login.as_deref() {
                Some(label) if label == name => {
                    t.insert("login", toml_edit::value(true));
                }
                Some(label) => {
                    t.insert("login", toml_edit::value(label));
                }
                None => {}
            }
        }
    }
    if !variant.off.is_empty() && variant.off.iter().all(|off| *off) {
        t.insert("enabled", toml_edit::value(false));
    }
    if narrow {
        t.insert(
            "clients",
            toml_edit::value(strings(
                variant
                    .found
                    .iter()
                    .filter(|(c, _, _)| c.owned_by.is_none())
                    .map(|(c, _, _)| c.id.as_str()),
            )),
        );
    }
    if !variant.client_fields.is_empty() {
        let mut per_client = Table::new();
        per_client.set_implicit(true);
        for (id, fields) in &variant.client_fields {
            let mut table = Table::new();
            for (k, v) in fields {
                if let Some(value) = toml_value(v) {
                    table.insert(k, toml_edit::value(value));
                }
            }
            per_client.insert(id, Item::Table(table));
        }
        t.insert("client", Item::Table(per_client));
    }
    t
}

/// A JSON value in TOML (`null` has no TOML spelling and is left out).
fn toml_value(value: &Value) -> Option<toml_edit::Value> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into(),
            None => n.as_f64()?.into(),
        },
        Value::String(s) => s.as_str().into(),
        Value::Array(items) => {
            toml_edit::Value::Array(items.iter().filter_map(toml_value).collect())
        }
        Value::Object(map) => toml_edit::Value::InlineTable(
            map.iter()
                .filter_map(|(k, v)| Some((k.as_str(), toml_value(v)?)))
                .collect(),
        ),
    })
}
