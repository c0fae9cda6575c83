//! The ledger: which entries mcpctl wrote, as a fingerprint of each, so that mcpctl can
//! prove an entry is its own before it changes or removes it (design §8).
//!
//! The fingerprint is a SHA-256 over the canonical entry (as the client's dialect reads
//! it back), keys sorted, with the fields clients and people toggle left out: on/off
//! switches, tool filters, approvals and timeouts. So a client flipping `disabled` or
//! appending to `autoApprove` is not an edit, but a changed command, argument, env value,
//! URL or header is. This module never reads client files.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::entry::{Dialect, RemoteKind, ServerEntry, Transport};
use crate::formats::{MapState, RawEntry};

/// Client housekeeping: switches, tool filters, approvals and timeouts. Left out of the
/// fingerprint, so toggling them (by a client, a person or `enable`/`disable`) is not drift.
pub const HOUSEKEEPING_KEYS: &[&str] = &[
    // switches
    "disabled",
    "enabled",
    // approvals
    "autoApprove",
    "alwaysAllow",
    "trust",
    // tool filters
    "disabledTools",
    "includeTools",
    "excludeTools",
    "enabled_tools",
    "disabled_tools",
    "allowedTools",
    "tools",
    // timeouts and client bookkeeping
    "timeout",
    "startup_timeout_sec",
    "startup_timeout_ms",
    "tool_timeout_sec",
    "watchPaths",
];

/// Which file, which servers map, which entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct EntryKey {
    /// The file's identity (`fs::identity`: symlinks followed, canonical directory).
    pub path: PathBuf,
    /// The key path of the servers map (`["mcpServers"]`, `["projects", DIR, "mcpServers"]`).
    pub key: Vec<String>,
    pub name: String,
}

/// Where an entry mcpctl wrote came from: `add`, `copy`, `manifest:PATH`,
/// `registry:NAME@VERSION` (serialised as that string).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Origin(String);

impl Origin {
    pub fn add() -> Origin {
        Origin("add".to_owned())
    }

    pub fn copy() -> Origin {
        Origin("copy".to_owned())
    }

    /// A manifest, by its absolute path.
    pub fn manifest(path: &std::path::Path) -> Origin {
        Origin(format!("manifest:{}", path.display()))
    }

    /// A registry install, pinned.
    pub fn registry(name: &str, version: &str) -> Origin {
        Origin(format!("registry:{name}@{version}"))
    }

    #[cfg(test)]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The registry name and version, for `registry:NAME@VERSION` origins.
    pub fn registry_parts(&self) -> Option<(&str, &str)> {
        self.0.strip_prefix("registry:")?.rsplit_once('@')
    }
}

/// A fingerprint of a normalised entry (`sha256:` and 64 hex digits).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Fingerprint(String);

impl Fingerprint {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// One entry mcpctl wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    #[serde(flatten)]
    pub entry: EntryKey,
    pub fingerprint: Fingerprint,
    pub source: Origin,
    /// What writing the entry created around it.
    #[serde(flatten)]
    pub created: Created,
    /// When it was written (RFC 3339, UTC).
    pub time: String,
}

/// What writing an entry created around it: undone when the last entry mcpctl added there
/// is removed, so that add then remove leaves the bytes (and the file system) as they were.
/// Never more: a key, file or directory someone else made is not in here.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Created {
    /// mcpctl created the file this entry is in.
    #[serde(default)]
    pub created_file: bool,
    /// The directories it created for that file, deepest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub created_dirs: Vec<PathBuf>,
    /// The servers map (and its parents) as they were before: which keys the write
    /// created and how an empty map was spelled. Absent when the map had other entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_map: Option<MapState>,
}

impl Created {
    /// A file created (or not) and nothing else recorded (`apply`, `copy`).
    pub fn file(created: bool) -> Created {
        Created {
            created_file: created,
            ..Created::default()
        }
    }

    /// Take over what earlier writes to the same file created: an entry added to a map
    /// (or file) mcpctl created for another entry undoes that map (or file) if it is the
    /// last one to go. `others` are the records of the same file.
    pub fn inherit<'a>(&mut self, key: &EntryKey, others: impl IntoIterator<Item = &'a Record>) {
        for other in others {
            if other.entry.path != key.path {
                continue;
            }
            if other.created.created_file && !self.created_file {
                self.created_file = true;
                self.created_dirs = other.created.created_dirs.clone();
            }
            let Some(theirs) = &other.created.created_map else {
                continue;
            };
            let mine = self.created_map.as_ref();
            let my_depth = mine.map_or(key.key.len(), |m| m.depth);
            // The part of my path that existed is theirs, created by them from
            // `theirs.depth` on (or the same object, whose old spelling I did not see).
            let same_path = my_depth <= other.entry.key.len()
                && other.entry.key[..my_depth] == key.key[..my_depth];
            let older = theirs.depth < my_depth
                || (theirs.depth == my_depth && mine.is_none_or(|m| m.inside.is_none()));
            if same_path && older && theirs.depth <= my_depth {
                self.created_map = Some(theirs.clone());
            }
        }
    }
}

/// Whose an entry is (design §8 ownership rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ownership {
    /// The ledger has it and it is as mcpctl wrote it.
    Mcpctl,
    /// The ledger has it, and someone changed it since.
    Edited,
    /// The ledger does not have it (also: the ledger was lost).
    HandMade,
}

/// The ledger file's content, indexed by entry (a plan looks up every entry of every
/// client: 30 clients x 50 servers must not be a quadratic scan).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Ledger {
    pub version: u32,
    entries: Vec<Record>,
    #[serde(skip)]
    index: std::collections::HashMap<EntryKey, usize>,
}

impl PartialEq for Ledger {
    fn eq(&self, other: &Ledger) -> bool {
        self.version == other.version && self.entries == other.entries
    }
}

/// Current ledger file format.
pub const VERSION: u32 = 1;

impl Ledger {
    /// Build the index after deserialising.
    pub fn indexed(mut self) -> Ledger {
        self.index = self
            .entries
            .iter()
            .enumerate()
            .map(|(i, r)| (r.entry.clone(), i))
            .collect();
        self
    }

    /// Every record, in file order.
    pub fn entries(&self) -> &[Record] {
        &self.entries
    }

    /// Sort records by entry (the saved order, so diffs of the file stay small).
    pub fn sort(&mut self) {
        self.entries.sort_by(|a, b| a.entry.cmp(&b.entry));
        *self = std::mem::take(self).indexed();
    }

    pub fn lookup(&self, key: &EntryKey) -> Option<&Record> {
        self.index.get(key).map(|&i| &self.entries[i])
    }

    /// Insert or replace the record for `record.entry`; returns the one it replaced.
    pub fn put(&mut self, record: Record) -> Option<Record> {
        // One hash of the key (a path hashed component by component), not a look-up
        // and then an insert: an apply puts thousands of new records.
        match self.index.entry(record.entry.clone()) {
            std::collections::hash_map::Entry::Occupied(at) => {
                Some(std::mem::replace(&mut self.entries[*at.get()], record))
            }
            std::collections::hash_map::Entry::Vacant(at) => {
                at.insert(self.entries.len());
                self.entries.push(record);
                None
            }
        }
    }

    /// Drop the record for `key`; returns it.
    pub fn remove(&mut self, key: &EntryKey) -> Option<Record> {
        let at = self.index.remove(key)?;
        let removed = self.entries.swap_remove(at);
        if let Some(moved) = self.entries.get(at) {
            self.index.insert(moved.entry.clone(), at);
        }
        Some(removed)
    }

    /// Ownership of the entry at `key` whose current fingerprint is `current`.
    pub fn ownership(&self, key: &EntryKey, current: &Fingerprint) -> Ownership {
        match self.lookup(key) {
            None => Ownership::HandMade,
            Some(r) if r.fingerprint == *current => Ownership::Mcpctl,
            Some(_) => Ownership::Edited,
        }
    }
}

/// The fingerprint of a canonical entry: SHA-256 over its canonical text, the compact
/// JSON object `{"command","args","env"[,"cwd"],"extras"}` (or `{"url","transport",
/// "headers","extras"}`) with the maps' keys sorted and housekeeping left out of
/// `extras`. Fingerprints recorded in ledgers must stay the same
/// (`tests::canonical_text_is_the_one_built_as_a_value`).
pub fn fingerprint(entry: &ServerEntry) -> Fingerprint {
    let mut canonical = Map::new();
    match &entry.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            canonical.insert("command".into(), Value::String(command.clone()));
            canonical.insert(
                "args".into(),
                Value::Array(args.iter().cloned().map(Value::String).collect()),
            );
            canonical.insert("env".into(), sorted_strings(env));
            if let Some(cwd) = cwd {
                canonical.insert("cwd".into(), Value::String(cwd.clone()));
            }
        }
        Transport::Remote { url, kind, headers } => {
            canonical.insert("url".into(), Value::String(url.clone()));
            let kind = match kind {
                RemoteKind::Http => "http",
                RemoteKind::Sse => "sse",
            };
            canonical.insert("transport".into(), Value::String(kind.into()));
            canonical.insert("headers".into(), sorted_strings(headers));
        }
    }
    let mut extras: Vec<(&String, &Value)> = entry
        .extras
        .iter()
        .filter(|(k, _)| !HOUSEKEEPING_KEYS.contains(&k.as_str()))
        .collect();
    extras.sort_by(|a, b| a.0.cmp(b.0));
    canonical.insert(
        "extras".into(),
        Value::Object(
            extras
                .into_iter()
                .map(|(k, v)| (k.clone(), sorted(v)))
                .collect(),
        ),
    );
    let text = Value::Object(canonical).to_string();
    let hex: String = Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Fingerprint(format!("sha256:{hex}"))
}

fn sorted_strings(map: &crate::entry::StringMap) -> Value {
    let mut pairs: Vec<_> = map.iter().collect();
    pairs.sort();
    Value::Object(
        pairs
            .into_iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    )
}

/// `value` with every object's keys sorted (serde_json keeps insertion order here).
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut pairs: Vec<_> = map.iter().collect();
            pairs.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                pairs
                    .into_iter()
                    .map(|(k, v)| (k.clone(), sorted(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// The fingerprint of an entry as a client's file spells it; `None` when the entry does
/// not read as a server (such an entry is never mcpctl's).
pub fn fingerprint_raw(dialect: &Dialect<'_>, raw: &RawEntry) -> Option<Fingerprint> {
    dialect.read_raw(raw).ok().map(|e| fingerprint(&e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::ClientTable;
    use serde_json::Map;
    use serde_json::json;

    fn print(id: &str, raw: Value) -> Fingerprint {
        let table = ClientTable::builtin().unwrap();
        fingerprint_raw(&Dialect::of(table.get(id).unwrap()), &raw).unwrap()
    }

    #[test]
    fn housekeeping_and_key_order_do_not_change_the_fingerprint() {
        let base = print(
            "cline",
            json!({"command":"npx","args":["-y","x"],"env":{"A":"1","B":"2"}}),
        );
        assert_eq!(
            base,
            print(
                "cline",
                json!({"env":{"B":"2","A":"1"},"disabled":true,"autoApprove":["t"],"timeout":30,"args":["-y","x"],"command":"npx"})
            )
        );
        assert_ne!(
            base,
            print(
                "cline",
                json!({"command":"npx","args":["-y","y"],"env":{"A":"1","B":"2"}})
            )
        );
        assert_ne!(
            base,
            print(
                "cline",
                json!({"command":"npx","args":["-y","x"],"env":{"A":"1","B":"3"}})
            )
        );
        assert_ne!(
            base,
            print(
                "cline",
                json!({"command":"npx","args":["-y","x"],"env":{"A":"1","B":"2"},"cwd":"/tmp"})
            )
        );
        assert!(base.as_str().starts_with("sha256:") && base.as_str().len() == 71);
    }

    fn entries_of_every_shape() -> Vec<ServerEntry> {
        let extras = |v: Value| v.as_object().unwrap().clone();
        vec![
            ServerEntry {
                transport: Transport::Stdio {
                    command: "npx".into(),
                    args: vec![
                        "-y".into(),
                        "@scope/pkg@1.2.3".into(),
                        "\"q\" \\ \u{1}".into(),
                    ],
                    env: [("Z_KEY", "${Z}"), ("A", "ü ✓ 𝄞"), ("M", "")]
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v.to_owned()))
                        .collect(),
                    cwd: Some("/work/x".into()),
                },
                extras: extras(json!({
                    "zeta": {"b": [1, 1.5, -0.0, 1e100, 18446744073709551615u64, -3], "a": null},
                    "disabled": true,
                    "alpha": [{"y": "\u{7f}\t", "x": false}, "s"],
                })),
            },
            ServerEntry {
                transport: Transport::Remote {
                    url: "https://mcp.example.com/sse?x=1".into(),
                    kind: RemoteKind::Sse,
                    headers: [("X-B", "2"), ("Authorization", "Bearer ${T}")]
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v.to_owned()))
                        .collect(),
                },
                extras: Map::new(),
            },
            ServerEntry {
                transport: Transport::Stdio {
                    command: String::new(),
                    args: Vec::new(),
                    env: Default::default(),
                    cwd: None,
                },
                extras: Map::new(),
            },
        ]
    }

    /// Fingerprints in ledgers written by earlier versions stay the same: for entries of
    /// every shape, three values are pinned as recorded in December 2026.
    #[test]
    fn canonical_text_is_the_one_built_as_a_value() {
        let pinned = [
            "sha256:e8f560f547267703a4736450a3ecb46ca6e68b0417b20e5e15a130a51f3b843d",
            "sha256:12bf3316ea58db25a4ed59acbcd1be9ea5e45f9cb9cc6d12b039944064e001af",
            "sha256:60c7fa5a420044662c4f2e831b5822011d99ae28b09c4d15be28d7023cb8d322",
        ];
        for (entry, pin) in entries_of_every_shape().iter().zip(pinned) {
            assert_eq!(fingerprint(entry).as_str(), pin, "{entry:?}");
        }
    }

    #[test]
    fn claude_code_defaults_are_the_same_entry() {
        assert_eq!(
            print("claude-code", json!({"command":"npx"})),
            print(
                "claude-code",
                json!({"type":"stdio","command":"npx","args":[],"env":{}})
            )
        );
    }

    #[test]
    fn the_index_survives_removals_and_reloads() {
        let key = |n: &str| EntryKey {
            path: "/f.json".into(),
            key: vec!["mcpServers".into()],
            name: n.into(),
        };
        let record = |n: &str| Record {
            entry: key(n),
            fingerprint: print("cursor", json!({"command": n})),
            source: Origin::add(),
            created: Created::default(),
            time: String::new(),
        };
        let mut ledger = Ledger::default();
        for n in ["a", "b", "c", "d"] {
            ledger.put(record(n));
        }
        assert!(ledger.remove(&key("a")).is_some());
        assert!(ledger.remove(&key("c")).is_some());
        assert_eq!(ledger.lookup(&key("b")), Some(&record("b")));
        assert_eq!(ledger.lookup(&key("d")), Some(&record("d")));
        assert!(ledger.lookup(&key("a")).is_none());
        let text = serde_json::to_string(&ledger).unwrap();
        let back: Ledger = serde_json::from_str::<Ledger>(&text).unwrap().indexed();
        assert_eq!(back.lookup(&key("d")), Some(&record("d")));
        assert_eq!(back, ledger);
    }

    #[test]
    fn ownership_follows_the_record() {
        let key = EntryKey {
            path: "/f.json".into(),
            key: vec!["mcpServers".into()],
            name: "a".into(),
        };
        let fp = print("cursor", json!({"command":"x"}));
        let other = print("cursor", json!({"command":"y"}));
        let mut ledger = Ledger::default();
        assert_eq!(ledger.ownership(&key, &fp), Ownership::HandMade);
        ledger.put(Record {
            entry: key.clone(),
            fingerprint: fp.clone(),
            source: Origin::registry("io.github.x/y", "1.0.0"),
            created: Created::default(),
            time: String::new(),
        });
        assert_eq!(ledger.ownership(&key, &fp), Ownership::Mcpctl);
        assert_eq!(ledger.ownership(&key, &other), Ownership::Edited);
        assert_eq!(
            ledger.lookup(&key).unwrap().source.registry_parts(),
            Some(("io.github.x/y", "1.0.0"))
        );
        assert!(ledger.remove(&key).is_some());
        assert_eq!(ledger.ownership(&key, &fp), Ownership::HandMade);
    }
}
