//! Integration tests for mcpctl's state: the ledger `add` and `remove` keep, and the
//! journal every writing command leaves.

use crate::env::{TestEnv, fixture};

impl TestEnv {
    pub fn state(&self, rel: &str) -> serde_json::Value {
        let path = self.dir.path().join("state").join(rel);
        serde_json::from_slice(&std::fs::read(&path).unwrap_or_else(|e| panic!("{rel}: {e}")))
            .unwrap()
    }

    pub fn journal(&self) -> Vec<serde_json::Value> {
        let dir = self.dir.path().join("state/journal");
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        names.sort();
        names
            .iter()
            .map(|p| {
                // JSON lines: the intent's lines, then the final record (see
                // `state::intent`).
                let text = std::fs::read_to_string(p).unwrap();
                serde_json::from_str(text.lines().last().unwrap_or_default()).unwrap()
            })
            .collect()
    }
}

#[test]
fn add_records_the_entry_in_the_ledger_and_remove_forgets_it() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    env.run(&[
        "add",
        "mem",
        "-c",
        "cursor,codex",
        "--",
        "npx",
        "-y",
        "server-memory",
    ])
    .ok();
    let ledger = env.state("ledger.json");
    let entries = ledger["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2, "{ledger:#}");
    let cursor = entries
        .iter()
        .find(|e| {
            e["path"]
                .as_str()
                .unwrap()
                .ends_with(&crate::env::os_path(".cursor/mcp.json"))
        })
        .unwrap();
    assert_eq!(cursor["name"], "mem");
    assert_eq!(cursor["key"], serde_json::json!(["mcpServers"]));
    assert_eq!(cursor["source"], "add");
    assert_eq!(cursor["created_file"], false);
    assert!(
        cursor["fingerprint"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    let codex = entries
        .iter()
        .find(|e| {
            e["path"]
                .as_str()
                .unwrap()
                .ends_with(&crate::env::os_path(".codex/config.toml"))
        })
        .unwrap();
    assert_eq!(codex["created_file"], true);

    env.run(&["remove", "mem", "-c", "cursor"]).ok();
    let ledger = env.state("ledger.json");
    let entries = ledger["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{ledger:#}");
    assert!(
        entries[0]["path"]
            .as_str()
            .unwrap()
            .ends_with("config.toml")
    );
}

#[test]
fn every_writing_command_leaves_one_journal_record_and_dry_runs_none() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    env.run(&["add", "mem", "-c", "cursor", "--dry-run", "--", "npx", "x"])
        .ok();
    assert!(env.journal().is_empty());
    env.run(&[
        "add",
        "mem",
        "-c",
        "cursor,codex",
        "--env",
        "TOKEN=sekrit",
        "--",
        "npx",
        "x",
    ])
    .ok();
    let journal = env.journal();
    assert_eq!(journal.len(), 1);
    let record = &journal[0];
    assert_eq!(record["command"], "add mem", "flags (and secrets) stay out");
    let files = record["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    let cursor = files
        .iter()
        .find(|f| {
            f["path"]
                .as_str()
                .unwrap()
                .ends_with(&crate::env::os_path(".cursor/mcp.json"))
        })
        .unwrap();
    assert_eq!(cursor["created"], false);
    assert!(
        std::fs::read(cursor["backup"].as_str().unwrap()).unwrap() == fixture("cursor/mcp.json")
    );
    let codex = files
        .iter()
        .find(|f| f["path"].as_str().unwrap().ends_with("config.toml"))
        .unwrap();
    assert_eq!(codex["created"], true);
    assert_eq!(codex["created_dirs"].as_array().unwrap().len(), 1);
    // Unchanged: nothing written, nothing journaled.
    env.run(&[
        "add",
        "mem",
        "-c",
        "cursor",
        "--env",
        "TOKEN=sekrit",
        "--",
        "npx",
        "x",
    ])
    .ok();
    assert_eq!(env.journal().len(), 1);
}

/// Issue 39 F16: with a damaged ledger, `add` writes the client file and then cannot
/// record the entry. It said the row "failed" (rc 2) although the write happened. It says
/// what was written and what was not recorded, with what to do, and exits 1 (written,
/// with a problem to look at; docs/reference/exit-codes.md), not 2.
#[test]
fn add_with_a_damaged_ledger_says_it_wrote_the_file_and_did_not_record_it() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"{\"mcpServers\": {}}\n");
    std::fs::create_dir_all(env.dir.path().join("state")).unwrap();
    std::fs::write(env.dir.path().join("state/ledger.json"), "{\"entries\": [").unwrap();
    let run = env.run(&["add", "a", "-c", "cursor", "--", "npx", "a"]);
    assert!(env.read_str(".cursor/mcp.json").contains("\"a\""));
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(!out.contains("failed"), "{out}");
    assert!(out.contains("added"), "{out}");
    assert!(
        out.contains("not recorded") && out.contains("ledger.json:1:"),
        "{out}"
    );
    assert!(out.contains("move it aside"), "{out}");
    let run = env.run(&["add", "b", "-c", "cursor", "--json", "--", "npx", "b"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let rows = run.json();
    assert_eq!(rows[0]["action"], "added", "{rows:#}");
    assert!(
        rows[0]["unrecorded"]
            .as_str()
            .is_some_and(|e| e.contains("not mcpctl's ledger")),
        "{rows:#}"
    );
}
