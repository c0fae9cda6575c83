//! Integration tests for the manifest commands: `plan` and `apply` (one test per row of
//! design §9's action table), all-or-nothing writes, `plan --check` in CI, bad manifests.

use crate::env::{TestEnv, fixture};

const MANIFEST: &str = crate::env::MANIFEST;

fn manifest(env: &TestEnv, text: &str) {
    env.write(MANIFEST, text.as_bytes());
}

const MEMORY: &str = r#"clients = ["cursor", "codex"]

[servers.memory]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory"]
env = { MEMORY_FILE = "${MEMORY_FILE}" }
"#;

/// `plan --json` as (client, name, action) triples.
fn actions(env: &TestEnv) -> Vec<(String, String, String)> {
    let plan = env.run(&["plan", "--json"]).ok().json();
    plan.as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["client"].as_str().unwrap().to_owned(),
                i["name"].as_str().unwrap().to_owned(),
                i["action"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn triple(client: &str, name: &str, action: &str) -> (String, String, String) {
    (client.to_owned(), name.to_owned(), action.to_owned())
}

#[test]
#[cfg(unix)] // hand-made entries spell npx unwrapped, which Windows wants as `cmd /c npx`
fn add_then_ok_renders_per_client_and_leaves_hand_made_entries_alone() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    env.write(".codex/config.toml", &fixture("codex/config.toml"));
    manifest(&env, MEMORY);
    assert_eq!(
        actions(&env),
        [
            triple("cursor", "memory", "add"),
            triple("codex", "memory", "add")
        ]
    );
    let text = env.run(&["plan"]).ok().stdout;
    assert!(text.contains("+ add"), "{text}");
    assert!(
        text.contains("+                \"MEMORY_FILE\": \"${env:MEMORY_FILE}\""),
        "{text}"
    );
    assert!(text.contains("+env_vars = [\"MEMORY_FILE\"]"), "{text}");
    // Diff context shows Codex's neighbouring entry, with its literal key redacted.
    assert!(text.contains("CONTEXT7_API_KEY = \"<redacted>\""), "{text}");
    assert!(!text.contains("ctx7-secret-value"), "{text}");
    env.run(&["apply"]).ok();
    let cursor = String::from_utf8(env.read(".cursor/mcp.json")).unwrap();
    assert!(cursor.contains("\"postgres\""), "hand-made entries stay");
    assert!(cursor.contains("${env:MEMORY_FILE}"), "{cursor}");
    let codex = env.read_str(".codex/config.toml");
    assert!(codex.contains("env_vars = [\"MEMORY_FILE\"]"), "{codex}");
    assert!(codex.contains("CONTEXT7_API_KEY = \"ctx7-secret-value\""));
    assert_eq!(
        actions(&env),
        [
            triple("cursor", "memory", "ok"),
            triple("codex", "memory", "ok")
        ]
    );
    let text = env.run(&["plan"]).ok().stdout;
    assert!(
        text.starts_with("every client file matches the manifest\n"),
        "{text}"
    );
    let ledger = env.state("ledger.json");
    let source = ledger["entries"][0]["source"].as_str().unwrap();
    assert!(
        source.starts_with("manifest:/") && source.ends_with("mcpctl.toml"),
        "{source}"
    );
    // A second apply touches nothing.
    let journal = env.journal().len();
    env.run(&["apply"]).ok();
    assert_eq!(env.journal().len(), journal);
}

#[test]
fn update_and_remove_touch_only_mcpctls_entries() {
    let env = TestEnv::new();
    let original = fixture("cursor/mcp.json");
    env.write(".cursor/mcp.json", &original);
    manifest(
        &env,
        &format!("{MEMORY}\n[servers.docs]\nurl = \"https://docs.example.com/mcp\"\n"),
    );
    env.run(&["apply"]).ok();
    manifest(
        &env,
        &MEMORY.replace("server-memory\"", "server-memory@1.0.0\""),
    );
    assert_eq!(
        actions(&env),
        [
            triple("cursor", "memory", "update"),
            triple("cursor", "docs", "remove"),
            triple("codex", "memory", "update"),
            triple("codex", "docs", "remove"),
        ]
    );
    env.run(&["apply"]).ok();
    let cursor = env.read_str(".cursor/mcp.json");
    assert!(cursor.contains("server-memory@1.0.0") && !cursor.contains("docs.example.com"));
    // Emptying the manifest gives back the original bytes: only mcpctl's entries go.
    manifest(&env, "clients = [\"cursor\", \"codex\"]\n");
    env.run(&["apply"]).ok();
    assert_eq!(env.read(".cursor/mcp.json"), original);
}

#[test]
#[cfg(unix)] // hand-made entries spell npx unwrapped, which Windows wants as `cmd /c npx`
fn identical_hand_made_entry_is_adopted_without_a_write() {
    let env = TestEnv::new();
    let hand = br#"{
  "mcpServers": {
    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": { "MEMORY_FILE": "${env:MEMORY_FILE}" }, "disabled": true }
  }
}
"#;
    env.write(".cursor/mcp.json", hand);
    manifest(&env, &MEMORY.replace("\"cursor\", \"codex\"", "\"cursor\""));
    assert_eq!(actions(&env), [triple("cursor", "memory", "adopt")]);
    env.run(&["plan", "--check"]).ok();
    env.run(&["apply"]).ok();
    assert_eq!(env.read(".cursor/mcp.json"), hand.to_vec());
    assert_eq!(actions(&env), [triple("cursor", "memory", "ok")]);
    assert_eq!(
        env.state("ledger.json")["entries"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn hand_made_entry_with_other_content_is_a_conflict_until_force() {
    let env = TestEnv::new();
    let hand =
        b"{\"mcpServers\": {\"memory\": {\"command\": \"node\", \"args\": [\"mine.js\"]}}}\n";
    env.write(".cursor/mcp.json", hand);
    manifest(&env, MEMORY);
    assert_eq!(
        actions(&env),
        [
            triple("cursor", "memory", "conflict"),
            triple("codex", "memory", "add")
        ]
    );
    let run = env.run(&["apply"]).code(2);
    assert!(
        run.stderr.contains("stopped before writing anything"),
        "{}",
        run.stderr
    );
    assert_eq!(env.read(".cursor/mcp.json"), hand.to_vec());
    assert!(
        !env.path(".codex/config.toml").exists(),
        "nothing written, not even codex"
    );
    env.run(&["plan", "--check"]).code(1);
    env.run(&["apply", "--force"]).ok();
    assert!(env.read_str(".cursor/mcp.json").contains("server-memory"));
}

#[test]
#[cfg(unix)] // hand-made entries spell npx unwrapped, which Windows wants as `cmd /c npx`
fn hand_edit_of_an_applied_entry_is_drift_and_toggles_are_not() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    manifest(&env, MEMORY);
    env.run(&["apply"]).ok();
    // A client switching it off and approving tools is housekeeping, not drift.
    let toggled = env
        .read_str(".cursor/mcp.json")
        .replace("\"command\": \"npx\",\n            \"args\": [\n                \"-y\",\n                \"@modelcontextprotocol/server-memory\"", "\"disabled\": true, \"autoApprove\": [\"read\"], \"command\": \"npx\",\n            \"args\": [\n                \"-y\",\n                \"@modelcontextprotocol/server-memory\"");
    assert!(toggled.contains("autoApprove"), "{toggled}");
    env.write(".cursor/mcp.json", toggled.as_bytes());
    assert_eq!(actions(&env)[0], triple("cursor", "memory", "ok"));
    let edited = toggled.replace("server-memory\"", "server-memory\", \"--verbose\"");
    env.write(".cursor/mcp.json", edited.as_bytes());
    assert_eq!(actions(&env)[0], triple("cursor", "memory", "drift"));
    let text = env.run(&["plan"]).ok().stdout;
    assert!(
        text.contains("! drift") && text.contains("edited by hand"),
        "{text}"
    );
    env.run(&["apply"]).code(2);
    assert_eq!(env.read(".cursor/mcp.json"), edited.as_bytes());
    env.run(&["apply", "--force"]).ok();
    let forced = env.read_str(".cursor/mcp.json");
    assert!(
        !forced.contains("--verbose") && forced.contains("autoApprove"),
        "{forced}"
    );
}

#[test]
fn exclusive_manifest_removes_extras_and_check_fails_on_them() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    manifest(
        &env,
        &format!(
            "exclusive = true\n{}",
            MEMORY.replace("\"cursor\", \"codex\"", "\"cursor\"")
        ),
    );
    assert_eq!(
        actions(&env),
        [
            triple("cursor", "memory", "add"),
            triple("cursor", "postgres", "remove"),
            triple("cursor", "linear", "remove"),
        ]
    );
    env.run(&["plan", "--check"]).code(1);
    // The extras are hand-made: exclusive removes them only with --force (issue 20).
    let before = env.read(".cursor/mcp.json");
    env.run(&["apply"]).code(2);
    assert_eq!(env.read(".cursor/mcp.json"), before);
    env.run(&["apply", "--force"]).ok();
    let cursor: serde_json::Value = serde_json::from_slice(&env.read(".cursor/mcp.json")).unwrap();
    assert_eq!(cursor["mcpServers"].as_object().unwrap().len(), 1);
    env.run(&["plan", "--check"]).ok();
}

#[test]
#[cfg(unix)] // hand-made entries spell npx unwrapped, which Windows wants as `cmd /c npx`
fn plan_check_in_a_fresh_checkout_reports_through_checks_renderers() {
    let env = TestEnv::new();
    let repo = env.home().join("repo");
    let project = [
        (
            "mcpctl.toml",
            "clients = [\"cursor\", \"claude-code\"]\nscope = \"project\"\n\n[servers.memory]\ncommand = \"npx\"\nargs = [\"-y\", \"@modelcontextprotocol/server-memory\"]\n",
        ),
        (
            ".cursor/mcp.json",
            "{\n  \"mcpServers\": {\n    \"memory\": {\"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-memory\"]}\n  }\n}\n",
        ),
        (
            ".mcp.json",
            "{\n  \"mcpServers\": {\n    \"memory\": {\"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-memory\"]}\n  }\n}\n",
        ),
    ];
    for (rel, text) in project {
        env.write(&format!("repo/{rel}"), text.as_bytes());
    }
    let check = |args: &[&str]| {
        let mut all = vec!["--project", repo.to_str().unwrap(), "plan", "--check"];
        all.extend(args);
        env.run(&all)
    };
    // No ledger anywhere: identical entries are in sync.
    check(&[]).ok();
    assert!(
        !env.dir.path().join("state/ledger.json").exists(),
        "plan writes nothing"
    );
    // A hand-edit of .cursor/mcp.json is annotated on the file.
    env.write("repo/.cursor/mcp.json", b"{\n  \"mcpServers\": {\n    \"memory\": {\"command\": \"npx\", \"args\": [\"-y\", \"other\"]}\n  }\n}\n");
    let run = check(&["--format", "github"]).code(1);
    assert!(
        run.stdout.starts_with(
            "::error file=.cursor/mcp.json,line=3,col=5,title=MCP604::`memory` (cursor): conflict"
        ),
        "{}",
        run.stdout
    );
    let sarif = check(&["--format", "sarif"]).code(1).json();
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "MCP604");
    // A manifest edit without apply: the server is missing from both files.
    env.write("repo/.cursor/mcp.json", b"{}\n");
    let run = check(&["--format", "json"]).code(1).json();
    assert_eq!(run[0]["action"], "add");
    assert!(
        run[0]["path"]
            .as_str()
            .unwrap()
            .ends_with("repo/.cursor/mcp.json")
    );
    assert_eq!(run[1]["action"], "adopt");
    assert_eq!(check(&["--manifest", "/nonexistent.toml"]).code, 2);
}

#[cfg(unix)] // a symlink into /proc (Windows has neither without privileges)
#[test]
fn one_unwritable_target_leaves_every_file_as_it_was() {
    let env = TestEnv::new();
    let codex = fixture("codex/config.toml");
    env.write(".codex/config.toml", &codex);
    // Cursor's file is a link into a directory nobody can create, not even root: the
    // plan reads it as missing, and only the write fails.
    std::fs::create_dir_all(env.path(".cursor")).unwrap();
    std::os::unix::fs::symlink(
        "/proc/mcpctl-no-such-dir/mcp.json",
        env.path(".cursor/mcp.json"),
    )
    .unwrap();
    manifest(
        &env,
        &MEMORY.replace("\"cursor\", \"codex\"", "\"codex\", \"cursor\""),
    );
    let run = env.run(&["apply"]).code(2);
    assert!(run.stderr.contains("apply failed"), "{}", run.stderr);
    assert!(
        run.stderr.contains("put back: ~/.codex/config.toml"),
        "{}",
        run.stderr
    );
    assert_eq!(env.read(".codex/config.toml"), codex);
    assert!(
        !env.dir.path().join("state/ledger.json").exists()
            || env.state("ledger.json")["entries"] == serde_json::json!([])
    );
}

#[test]
fn undo_after_apply_restores_every_file_byte_for_byte() {
    let env = TestEnv::new();
    let cursor = fixture("cursor/mcp.json");
    let codex = fixture("codex/config.toml");
    env.write(".cursor/mcp.json", &cursor);
    env.write(".codex/config.toml", &codex);
    manifest(&env, MEMORY);
    env.run(&["apply"]).ok();
    assert_eq!(env.journal().len(), 1, "one journal record per apply");
    env.run(&["undo"]).ok();
    assert_eq!(env.read(".cursor/mcp.json"), cursor);
    assert_eq!(env.read(".codex/config.toml"), codex);
    assert_eq!(actions(&env)[0], triple("cursor", "memory", "add"));
}

#[test]
fn bad_manifests_are_errors_that_write_nothing() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    let cases = [
        (
            "clients = [\"cursor\"]\n[servers.a]\ncommand = \"x\"\nargs = [\n",
            ":4:9:",
            "unclosed array",
        ),
        (
            "clients = [\"cursor\", \"no-such\"]\n",
            ":1:22: unknown client `no-such`",
            "known ids",
        ),
        // A typo gets the id it meant, not every id there is (issue 40).
        (
            "clients = [\"cursr\"]\n",
            ":1:12: unknown client `cursr`",
            "did you mean `cursor`?",
        ),
        (
            "[servers.a]\ncommand = \"x\"\nurl = \"https://x\"\n",
            ":1:",
            "both `command` and `url`",
        ),
        (
            "[servers.a]\ncommand = \"x\"\n[profiles.p]\nservers = [\"b\"]\n",
            ":4:",
            "profile `p` names `b`",
        ),
    ];
    for (text, position, message) in cases {
        manifest(&env, text);
        for verb in ["plan", "apply"] {
            let run = env.run(&[verb]).code(2);
            assert!(
                run.stderr.contains(&format!("mcpctl.toml{position}")),
                "{verb} {text}: {}",
                run.stderr
            );
            assert!(run.stderr.contains(message), "{text}: {}", run.stderr);
        }
    }
    assert_eq!(env.read(".cursor/mcp.json"), fixture("cursor/mcp.json"));
    assert!(env.journal().is_empty());
}

#[test]
fn concurrent_applies_serialize() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    manifest(&env, MEMORY);
    let children: Vec<_> = (0..3)
        .map(|_| {
            env.command(&["apply"])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let journal = env.journal();
    assert_eq!(
        journal.len(),
        1,
        "only the first apply wrote; the others planned after it: {journal:#?}"
    );
    assert_eq!(
        env.state("ledger.json")["entries"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        actions(&env),
        [
            triple("cursor", "memory", "ok"),
            triple("codex", "memory", "ok")
        ]
    );
}

/// Design §8–§9: an entry mcpctl applied, then edited by hand, then dropped from the
/// manifest, is drift (reported, kept), never pruned: the hand edit is someone's work.
#[test]
fn hand_edited_entry_dropped_from_the_manifest_is_drift_not_pruned() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    let docs = "\n[servers.docs]\nurl = \"https://docs.example.com/mcp\"\n";
    let only_cursor = MEMORY.replace("\"cursor\", \"codex\"", "\"cursor\"");
    manifest(&env, &format!("{only_cursor}{docs}"));
    env.run(&["apply"]).ok();
    let edited = env.read_str(".cursor/mcp.json").replace(
        "https://docs.example.com/mcp",
        "https://docs.example.com/mcp/v2",
    );
    assert!(edited.contains("/mcp/v2"), "{edited}");
    env.write(".cursor/mcp.json", edited.as_bytes());
    manifest(&env, &only_cursor);
    assert_eq!(
        actions(&env),
        [
            triple("cursor", "memory", "ok"),
            triple("cursor", "docs", "drift")
        ]
    );
    let text = env.run(&["plan"]).ok().stdout;
    assert!(
        text.contains("edited by hand since mcpctl wrote or adopted it"),
        "{text}"
    );
    env.run(&["plan", "--check"]).code(1);
    env.run(&["apply"]).code(2);
    assert_eq!(env.read(".cursor/mcp.json"), edited.as_bytes());
}

/// Design §9: `apply` prunes only records whose source is this manifest; an entry
/// `mcpctl add` wrote is mcpctl's, but not the manifest's, and stays.
#[test]
fn apply_never_prunes_entries_mcpctl_add_wrote() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    env.run(&[
        "add",
        "mine",
        "-c",
        "cursor",
        "--",
        "npx",
        "-y",
        "my-server",
    ])
    .ok();
    let only_cursor = MEMORY.replace("\"cursor\", \"codex\"", "\"cursor\"");
    manifest(&env, &only_cursor);
    assert_eq!(actions(&env), [triple("cursor", "memory", "add")]);
    env.run(&["apply"]).ok();
    let cursor = env.read_str(".cursor/mcp.json");
    assert!(
        cursor.contains("\"mine\"") && cursor.contains("my-server"),
        "{cursor}"
    );
    // An emptied manifest removes its own entry, still not `add`'s.
    manifest(&env, "clients = [\"cursor\"]\n");
    assert_eq!(actions(&env), [triple("cursor", "memory", "remove")]);
    env.run(&["apply"]).ok();
    let cursor = env.read_str(".cursor/mcp.json");
    assert!(
        cursor.contains("\"mine\"") && !cursor.contains("server-memory"),
        "{cursor}"
    );
}

/// Where `plan --check --format github` points for each entry: the entry as it is written
/// in the file on disk, also for an entry below one the plan updates (and so grows) in
/// memory first. Positions come from one pass over the file as read, not from the
/// document half-way through the plan's edits.
#[test]
#[cfg(unix)] // expects GitHub annotations with `/` paths
fn plan_points_at_entries_where_the_file_on_disk_has_them() {
    let env = TestEnv::new();
    let two = "clients = [\"cursor\", \"codex\"]\n\n[servers.first]\ncommand = \"a\"\n\n[servers.second]\ncommand = \"b\"\n";
    manifest(&env, two);
    env.run(&["apply"]).ok();
    // `second` is edited by hand (drift); the manifest grows `first` by several lines.
    for file in [".cursor/mcp.json", ".codex/config.toml"] {
        let edited = env.read_str(file).replace("\"b\"", "\"edited\"");
        env.write(file, edited.as_bytes());
    }
    manifest(
        &env,
        &two.replace(
            "command = \"a\"\n",
            "command = \"a\"\nargs = [\"--one\", \"--two\"]\nenv = { A = \"1\", B = \"2\", C = \"3\" }\n",
        ),
    );
    let out = env
        .run(&["plan", "--check", "--format", "github"])
        .code(1)
        .stdout;
    for (file, client, written) in [
        (".cursor/mcp.json", "cursor", "\"second\""),
        (".codex/config.toml", "codex", "second]"),
    ] {
        let text = env.read_str(file);
        let (line, column) = text
            .lines()
            .enumerate()
            .find_map(|(i, l)| l.find(written).map(|c| (i + 1, c + 1)))
            .unwrap();
        let want = format!("file={file},line={line},col={column},");
        let row = out
            .lines()
            .find(|l| l.contains(&format!("`second` ({client}): drift")))
            .unwrap_or_else(|| panic!("no drift row for {client}: {out}"));
        assert!(row.contains(&want), "want {want} in {row}\n{text}");
    }
}

/// `apply` records each entry's fingerprint from what its plan already read: the same
/// fingerprint as the entry in the file gives, for entries added (to Goose too, whose
/// defaults add fields to every new entry), adopted (a hand-made identical entry) and
/// recorded again for another manifest, so the next plan is in sync everywhere.
#[test]
#[cfg(unix)] // hand-made entries spell npx unwrapped, which Windows wants as `cmd /c npx`
fn applied_entries_are_recorded_as_their_files_read_them() {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        br#"{"mcpServers": {"memory": {"command": "npx", "args": ["-y", "m"]}}}"#,
    );
    let servers = r#"
[servers.memory]
command = "npx"
args = ["-y", "m"]

[servers.docs]
url = "https://docs.example.com/mcp"
headers = { X-Api-Key = "${DOCS_KEY}" }

[servers.local]
command = "uvx"
args = ["tool"]
env = { MODE = "fast" }
"#;
    manifest(
        &env,
        &format!("clients = [\"cursor\", \"codex\", \"goose\", \"claude-code\"]\n{servers}"),
    );
    let planned = actions(&env);
    assert!(
        planned.contains(&triple("cursor", "memory", "adopt"))
            && planned.contains(&triple("goose", "local", "add")),
        "{planned:?}"
    );
    env.run(&["apply"]).ok();
    let after = actions(&env);
    assert_eq!(after.len(), planned.len(), "{after:?}");
    assert!(after.iter().all(|(_, _, a)| a == "ok"), "{after:?}");
    let recorded = |env: &TestEnv| {
        env.state("ledger.json")["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["fingerprint"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let first = recorded(&env);
    assert_eq!(first.len(), planned.len());
    // The same servers from another manifest: every entry is recorded again, as it is.
    let other = ".config/mcpctl/other.toml";
    env.write(
        other,
        format!("clients = [\"cursor\", \"codex\", \"goose\", \"claude-code\"]\n{servers}")
            .as_bytes(),
    );
    let path = env.home().join(other);
    env.run(&["apply", "--manifest", path.to_str().unwrap()])
        .ok();
    let ledger = env.state("ledger.json");
    assert!(
        ledger["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["source"].as_str().unwrap().ends_with("other.toml")),
        "{ledger}"
    );
    assert_eq!(recorded(&env), first);
}
