//! The last measured cost of each server's tool definitions (`tokens.json` in the state
//! directory), so `profiles` and `plan --profile` can say what a set of servers costs a
//! client without starting anything. `doctor` and `tools` remember what they measured.
//!
//! Keyed by how the server is started, not by where it is configured: a fingerprint of
//! the entry made portable (logical command, `${VAR}` spelling) with client-only fields
//! left out, so the same server in Cursor and in Codex is one measurement. A cache: a
//! damaged or missing file reads as "nothing measured", never as an error.
//!
//! A file an older mcpctl wrote may also hold `starts` (how long each handshake took,
//! once used to order doctor's starts): it is ignored, and dropped when the file is
//! next written.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::entry::ServerEntry;

use super::ledger::{Fingerprint, fingerprint};

/// Measurements kept (the oldest are dropped first).
const KEPT: usize = 500;

/// One measurement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Measured {
    /// Estimated tokens of the tool definitions (`handshake::tools::TOKEN_METHOD`).
    pub tokens: usize,
    /// How many tools the server listed.
    pub tools: usize,
    /// When (RFC 3339, UTC).
    pub time: String,
    /// Each tool's own estimate (its definition alone, same method), in the order the
    /// server listed them; empty in a measurement an older mcpctl made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_tool: Vec<ToolTokens>,
}

/// One tool's estimated tokens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolTokens {
    pub name: String,
    pub tokens: usize,
}

/// The file's content.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Tokens {
    pub version: u32,
    #[serde(default)]
    pub servers: BTreeMap<String, Measured>,
}

impl Tokens {
    /// What was last measured for a server started as `entry`.
    pub fn get(&self, entry: &ServerEntry) -> Option<&Measured> {
        self.servers.get(key(entry).as_str())
    }

    /// Remember a measurement (replacing the older one), keeping at most `KEPT`.
    pub fn put(&mut self, entry: &ServerEntry, measured: Measured) {
        self.servers
            .insert(key(entry).as_str().to_owned(), measured);
        while self.servers.len() > KEPT {
            let oldest = self
                .servers
                .iter()
                .min_by(|a, b| a.1.time.cmp(&b.1.time))
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => self.servers.remove(&k),
                None => break,
            };
        }
    }
}

/// The cache key: the fingerprint of how the server starts, whatever client holds it.
pub fn key(entry: &ServerEntry) -> Fingerprint {
    let mut launch = crate::entry::render::portable_entry(entry);
    launch.extras.clear();
    fingerprint(&launch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::ClientTable;
    use crate::entry::Dialect;
    use serde_json::json;

    fn entry(id: &str, raw: serde_json::Value) -> ServerEntry {
        let table = ClientTable::builtin().unwrap();
        Dialect::of(table.get(id).unwrap()).read_raw(&raw).unwrap()
    }

    #[test]
    fn the_same_server_in_two_clients_is_one_key() {
        let cursor = entry(
            "cursor",
            json!({"command":"cmd","args":["/c","npx","-y","m"],"env":{"T":"${env:T}"},"disabled":true}),
        );
        let claude = entry(
            "claude-code",
            json!({"type":"stdio","command":"npx","args":["-y","m"],"env":{"T":"${T}"}}),
        );
        assert_eq!(key(&cursor), key(&claude));
        let other = entry("cursor", json!({"command":"npx","args":["-y","n"]}));
        assert_ne!(key(&cursor), key(&other));
    }

    #[test]
    fn only_the_newest_measurements_are_kept() {
        let mut tokens = Tokens::default();
        for i in 0..=KEPT {
            let e = entry("cursor", json!({"command": format!("s{i}")}));
            tokens.put(
                &e,
                Measured {
                    tokens: i,
                    tools: 1,
                    time: format!("2026-12-01T10:{:02}:{:02}Z", i / 60 % 60, i % 60),
                    per_tool: Vec::new(),
                },
            );
        }
        assert_eq!(tokens.servers.len(), KEPT);
        let first = entry("cursor", json!({"command": "s0"}));
        assert!(tokens.get(&first).is_none());
        let last = entry("cursor", json!({"command": format!("s{KEPT}")}));
        assert_eq!(tokens.get(&last).unwrap().tokens, KEPT);
    }
}
