//! The last measured cost of each server's tool definitions (`tokens.json` in the state
//! directory), so `profiles` and `plan --profile` can say what a set of servers costs a
//! client without starting anything. `doctor` and `tools` remember what they measured.
//!
//! Keyed by how the server is started, not by where it is configured: a fingerprint of
//! the entry made portable (logical command, `${VAR}` spelling) with client-only fields
//! left out, so the same server in Cursor and in Codex is one measurement — and by the
//! capabilities declared when it was measured: a server may list other tools to a client
//! that declares other capabilities (server-everything shows Claude Code 16 tools,
//! mcpctl 15), so a measurement made declaring a client's own capabilities (its row's
//! `[client.loading] capabilities`) is kept apart, under the fingerprint followed by
//! ` as sha256:…` of those capabilities; one made with mcpctl's own has the bare key.
//! A cache: a damaged or missing file reads as "nothing measured", never as an error.
//!
//! A file an older mcpctl wrote may also hold `starts` (how long each handshake took,
//! once used to order doctor's starts): it is ignored, and dropped when the file is
//! next written.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

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

/// A measurement to remember: the server started as `entry`, declaring `declared`
/// (`None`: mcpctl's own capabilities).
#[derive(Debug, Clone)]
pub struct Measurement<'a> {
    pub entry: &'a ServerEntry,
    pub declared: Option<&'a Value>,
    pub tokens: usize,
    pub per_tool: Vec<ToolTokens>,
}

/// One tool's estimated tokens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolTokens {
    pub name: String,
    pub tokens: usize,
    /// The keys of the tool's `_meta` whose value is `true` (a client may load such a
    /// tool its own way: Claude Code's `anthropic/alwaysLoad`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub meta_true: Vec<String>,
}

/// The file's content.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Tokens {
    pub version: u32,
    #[serde(default)]
    pub servers: BTreeMap<String, Measured>,
}

impl Tokens {
    /// What was last measured for a server started as `entry` with mcpctl's own
    /// capabilities.
    pub fn get(&self, entry: &ServerEntry) -> Option<&Measured> {
        self.get_as(entry, None)
    }

    /// What was last measured for a server started as `entry` declaring `declared`
    /// (`None`: mcpctl's own capabilities).
    pub fn get_as(&self, entry: &ServerEntry, declared: Option<&Value>) -> Option<&Measured> {
        self.servers.get(&key_as(entry, declared))
    }

    /// What a client that declares `declared` gets: its own measurement, else the one
    /// made with mcpctl's own capabilities.
    pub fn for_client(&self, entry: &ServerEntry, declared: Option<&Value>) -> Option<&Measured> {
        declared
            .and_then(|d| self.get_as(entry, Some(d)))
            .or_else(|| self.get(entry))
    }

    /// Remember a measurement made declaring `declared` (replacing the older one),
    /// keeping at most `KEPT`.
    pub fn put_as(&mut self, entry: &ServerEntry, declared: Option<&Value>, measured: Measured) {
        self.servers.insert(key_as(entry, declared), measured);
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

/// The key of a measurement made declaring `declared` (`None`: mcpctl's own
/// capabilities, the bare fingerprint): clients that declare the same capabilities share
/// it.
pub fn key_as(entry: &ServerEntry, declared: Option<&Value>) -> String {
    let base = key(entry).as_str().to_owned();
    let Some(declared) = declared else {
        return base;
    };
    format!("{base} as {}", capabilities_key(declared))
}

/// `sha256:` and the first 16 hex digits of the canonical JSON of declared capabilities.
pub fn capabilities_key(declared: &Value) -> String {
    let text = crate::formats::sorted_keys(declared).to_string();
    let hex: String = Sha256::digest(text.as_bytes())
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
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
    fn a_measurement_declaring_a_clients_capabilities_is_kept_apart() {
        let e = entry("cursor", json!({"command": "srv"}));
        let measured = |tokens| Measured {
            tokens,
            tools: 1,
            time: "2026-12-07T00:00:00Z".to_owned(),
            per_tool: Vec::new(),
        };
        let claude =
            json!({"roots": {"listChanged": true}, "elicitation": {"form": {}, "url": {}}});
        let reordered =
            json!({"elicitation": {"url": {}, "form": {}}, "roots": {"listChanged": true}});
        let mut tokens = Tokens::default();
        tokens.put_as(&e, None, measured(15));
        tokens.put_as(&e, Some(&claude), measured(16));
        assert_eq!(tokens.get(&e).unwrap().tokens, 15);
        assert_eq!(tokens.get_as(&e, Some(&claude)).unwrap().tokens, 16);
        assert_eq!(tokens.get_as(&e, Some(&reordered)).unwrap().tokens, 16);
        assert!(tokens.get_as(&e, Some(&json!({}))).is_none());
    }

    #[test]
    fn only_the_newest_measurements_are_kept() {
        let mut tokens = Tokens::default();
        for i in 0..=KEPT {
            let e = entry("cursor", json!({"command": format!("s{i}")}));
            tokens.put_as(
                &e,
                None,
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
