//! `managed-file`: one JSON file an administrator deploys to a system path (Claude Code's
//! `managed-mcp.json`, same shape as a project `.mcp.json`). With `exclusive`, its
//! presence means the client loads only its servers, even when the map is empty.

use std::path::Path;

use super::{Chooser, Exclusive, Origin, SourceEntry, SourceRead, json, manage_text};
use crate::clients::ReadOnlySource;

pub(super) fn read(source: &ReadOnlySource, path: &Path, out: &mut SourceRead) {
    let value = match json::read(path) {
        Ok(Some(value)) => value,
        Ok(None) => return,
        Err(message) => {
            // Unreadable or not JSON: the client ignores nothing it cannot parse either
            // way, so report the file and claim no exclusive control mcpctl cannot prove.
            out.broken.push((path.to_path_buf(), message));
            return;
        }
    };
    if source.root_owned
        && let Some(why) = crate::fs::not_root_only(path)
    {
        out.skipped.push((path.to_path_buf(), why));
    }
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let manage = manage_text(source, &name);
    if source.exclusive {
        out.exclusive = Some(Exclusive {
            file: path.to_path_buf(),
            manage: manage.clone(),
        });
    }
    let servers = if source.servers_key.is_empty() {
        super::json::servers_map(&value)
    } else {
        let mut node = Some(&value);
        for key in &source.servers_key {
            node = node.and_then(|n| n.get(key));
        }
        node.and_then(serde_json::Value::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default()
    };
    for (server, raw) in servers {
        out.entries.push(SourceEntry {
            name: server,
            raw,
            origin: Origin {
                kind: "managed",
                name: name.clone(),
                file: path.to_path_buf(),
                enabled: true,
                chosen_by: Chooser::Admin,
                manage: manage.clone(),
            },
        });
    }
}
