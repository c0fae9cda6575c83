//! A policy file written from a manifest: every server becomes an allow rule the vendor's
//! client matches exactly (Claude Code and Copilot: `serverCommand` for a local server,
//! `serverUrl` for a remote one; Codex: `[mcp_servers.NAME.identity]`), so an administrator
//! deploys through MDM what the team applies (Codex: the executable and every argument,
//! exactly). Output is deterministic: servers sorted by
//! name, fixed key order, a trailing newline.

use crate::entry::{RemoteKind, ServerEntry, Transport};

use super::PolicyKind;

/// The file's text, and notes about servers that could not be expressed.
pub fn document(kind: PolicyKind, servers: &[(String, ServerEntry)]) -> (String, Vec<String>) {
    let mut sorted: Vec<&(String, ServerEntry)> = servers.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    match kind {
        PolicyKind::ClaudeManaged | PolicyKind::CopilotManaged => lists(kind, &sorted),
        PolicyKind::CodexRequirements => codex(&sorted),
    }
}

fn lists(kind: PolicyKind, servers: &[&(String, ServerEntry)]) -> (String, Vec<String>) {
    let allowed: Vec<serde_json::Value> = servers
        .iter()
        .map(|(_, entry)| match &entry.transport {
            Transport::Stdio { command, args, .. } => {
                let line: Vec<&str> = std::iter::once(command.as_str())
                    .chain(args.iter().map(String::as_str))
                    .collect();
                serde_json::json!({ "serverCommand": line })
            }
            Transport::Remote { url, .. } => serde_json::json!({ "serverUrl": url }),
        })
        .collect();
    let mut doc = serde_json::Map::new();
    if kind == PolicyKind::ClaudeManaged {
        // Users' own settings cannot widen the list (Claude Code reads
        // `allowedMcpServers` from managed settings only).
        doc.insert(
            "allowManagedMcpServersOnly".to_owned(),
            serde_json::Value::Bool(true),
        );
    }
    doc.insert(
        "allowedMcpServers".to_owned(),
        serde_json::Value::Array(allowed),
    );
    let mut text =
        serde_json::to_string_pretty(&serde_json::Value::Object(doc)).unwrap_or_default();
    text.push('\n');
    (text, Vec::new())
}

fn codex(servers: &[&(String, ServerEntry)]) -> (String, Vec<String>) {
    let mut notes = Vec::new();
    let mut root = toml_edit::DocumentMut::new();
    let mut table = toml_edit::Table::new();
    table.set_implicit(true);
    for (name, entry) in servers {
        let mut identity = toml_edit::Table::new();
        // No `[mcp_servers.NAME.identity]` header of its own above `….identity.command`.
        identity.set_implicit(true);
        match &entry.transport {
            Transport::Stdio { command, args, .. } => {
                // The matcher form pins the arguments too (the plain `command = "npx"`
                // would admit any package under that name); codex 0.171.0 compares each
                // argument and their count.
                let mut matcher = toml_edit::Table::new();
                matcher.insert("executable", toml_edit::value(command.as_str()));
                let mut list = toml_edit::Array::new();
                for arg in args {
                    let mut exact = toml_edit::InlineTable::new();
                    exact.insert("match", "exact".into());
                    exact.insert("value", arg.as_str().into());
                    list.push(exact);
                }
                matcher.insert("args", toml_edit::value(list));
                identity.insert("command", toml_edit::Item::Table(matcher));
            }
            Transport::Remote {
                kind: RemoteKind::Sse,
                ..
            } => {
                notes.push(format!(
                    "`{name}` is a legacy SSE server, which Codex cannot load: left out"
                ));
                continue;
            }
            Transport::Remote { url, .. } => {
                identity.insert("url", toml_edit::value(url.as_str()));
            }
        }
        let mut server = toml_edit::Table::new();
        server.set_implicit(true);
        server.insert("identity", toml_edit::Item::Table(identity));
        table.insert(name, toml_edit::Item::Table(server));
    }
    root.insert("mcp_servers", toml_edit::Item::Table(table));
    (root.to_string(), notes)
}
