//! The human output of every command, as golden files (`tests/golden/*.txt`, see
//! `golden.rs`), and the one way errors look: `error:` / `caused by:` / `hint:`.

use crate::env::{TestEnv, fixture};
use crate::golden::{assert_golden, filter};
use crate::registry_server::{RegistryServer, SAMPLES};

/// Run mcpctl and render the run as a transcript: the command, exit code, stdout, stderr.
fn transcript(env: &TestEnv, args: &[&str]) -> String {
    let run = env.run(args);
    filter(
        env,
        &format!(
            "$ mcpctl {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
            args.join(" "),
            run.code,
            run.stdout,
            run.stderr
        ),
    )
}

fn machine() -> TestEnv {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    env.write(".codex/config.toml", &fixture("codex/config.toml"));
    // `add` warns about a command not on PATH: the transcripts must not depend on
    // whether this machine has node.
    env.on_path("npx");
    env
}

#[test]
#[cfg(unix)] // golden files hold the Linux output (paths, unwrapped npx)
fn golden_clients() {
    let env = machine();
    assert_golden("clients", &transcript(&env, &["clients"]));
}

#[test]
fn golden_list() {
    let env = machine();
    assert_golden("list", &transcript(&env, &["list", "-c", "cursor,codex"]));
}

#[test]
#[cfg(unix)] // golden files hold the Linux output (paths, unwrapped npx)
fn golden_add_and_remove() {
    let env = machine();
    let add = [
        "add",
        "mem",
        "-c",
        "cursor,codex",
        "--env",
        "TOKEN=${TOKEN}",
    ];
    let command = [
        "--",
        "npx",
        "-y",
        "@modelcontextprotocol/server-memory@2025.8.4",
    ];
    let dry = [&add[..], &["--dry-run"], &command].concat();
    let add = [&add[..], &command].concat();
    let mut text = transcript(&env, &dry);
    text.push_str(&transcript(&env, &add));
    text.push_str(&transcript(&env, &add));
    text.push_str(&transcript(&env, &["remove", "mem", "-c", "cursor,codex"]));
    text.push_str(&transcript(&env, &["remove", "mem", "-c", "cursor"]));
    assert_golden("add-remove", &text);
}

#[test]
#[cfg(unix)] // golden files hold the Linux output (paths, unwrapped npx)
fn golden_check() {
    let env = TestEnv::new();
    env.write("proj/.cursor/mcp.json", &fixture("check/MCP201-bad.json"));
    env.write("proj/.roo/mcp.json", &fixture("check/MCP203-bad.json"));
    env.write("proj/.mcp.json", &fixture("check/MCP401-bad.json"));
    let project = env.path("proj");
    let project = project.to_str().unwrap();
    let mut text = transcript(&env, &["check", "--project", project]);
    text.push_str(&transcript(
        &env,
        &["check", "--project", project, "--fix", "--dry-run"],
    ));
    text.push_str(&transcript(
        &env,
        &["check", "--project", project, "--format", "github"],
    ));
    assert_golden("check", &text);
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn golden_doctor() {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        br#"{"mcpServers":{"missing":{"command":"definitely-not-installed-mcp","args":[]},"off":{"command":"x","disabled":true}}}"#,
    );
    assert_golden("doctor", &transcript(&env, &["doctor", "-c", "cursor"]));
    // Started servers: a row as each finishes (one job: in config order), after the rows
    // of what is not started; the fixture's path is its command, so it is left out.
    let bin = crate::doctor::fixture();
    let servers = serde_json::json!({"mcpServers": {
        "good": {"command": bin},
        "banner": {"command": bin, "args": ["banner"]},
        "dies": {"command": bin, "args": ["exit=3"]},
        "missing": {"command": "definitely-not-installed-mcp"},
    }});
    env.write(".cursor/mcp.json", servers.to_string().as_bytes());
    let text =
        transcript(&env, &["doctor", "-c", "cursor", "--jobs", "1"]).replace(bin, "<fixture>");
    assert_golden("doctor-started", &text);
}

/// A file that does not parse gets the same `hint:` from `list` as from `add`, and the
/// error keeps its kind to the edge (`error:` then `hint:`), not a re-formatted string.
#[test]
fn list_and_add_give_the_same_hint_for_a_broken_file() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"{\"mcpServers\": {\n");
    let hint =
        "hint: mcpctl left the file unchanged; fix the syntax, then run `mcpctl list -c cursor`";
    let list = env.run(&["list", "-c", "cursor"]).code(2);
    assert!(
        list.stderr.contains(&crate::env::os_path(
            "error: ~/.cursor/mcp.json:2:1: not valid JSON"
        )),
        "{}",
        list.stderr
    );
    assert!(list.stderr.contains(hint), "{}", list.stderr);
    let add = env
        .run(&["add", "x", "-c", "cursor", "--", "uvx", "x"])
        .code(2);
    assert!(add.stdout.contains(hint), "{}", add.stdout);
    // The golden file holds Linux's `~/…` spelling.
    if cfg!(unix) {
        assert_golden("list-broken", &transcript(&env, &["list", "-c", "cursor"]));
    }
}

/// `plan` and `apply` through every outcome: a conflict that stops `apply`, a server a
/// client cannot use, `--dry-run`, `--force`, the CI formats, and a plan in sync.
#[test]
#[cfg(unix)] // golden files hold the Linux output (paths, unwrapped npx)
fn golden_plan_and_apply() {
    let env = machine();
    env.write(
        ".cursor/mcp.json",
        b"{\"mcpServers\": {\"memory\": {\"command\": \"node\", \"args\": [\"mine.js\"]}}}\n",
    );
    env.write(
        crate::env::MANIFEST,
        br#"clients = ["cursor", "codex"]

[servers.memory]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory"]
env = { MEMORY_FILE = "${MEMORY_FILE}" }

[servers.events]
url = "https://example.com/sse"
transport = "sse"
"#,
    );
    let mut text = transcript(&env, &["plan"]);
    text.push_str(&transcript(
        &env,
        &["plan", "--check", "--format", "github"],
    ));
    text.push_str(&transcript(&env, &["apply"]));
    text.push_str(&transcript(&env, &["apply", "--force", "--dry-run"]));
    text.push_str(&transcript(&env, &["apply", "--force"]));
    text.push_str(&transcript(&env, &["plan"]));
    text.push_str(&transcript(&env, &["apply"]));
    assert_golden("plan-apply", &text);
}

/// `backups`, `undo` (dry run, then for real, then redone) and `restore` after an `add`.
#[test]
#[cfg(unix)] // golden files hold the Linux output (paths, unwrapped npx)
fn golden_undo_restore_and_backups() {
    let env = machine();
    let mut text = transcript(&env, &["backups"]);
    env.run(&["add", "mem", "-c", "cursor,codex", "--", "npx", "-y", "mem"])
        .ok();
    text.push_str(&transcript(&env, &["backups"]));
    text.push_str(&transcript(&env, &["undo", "--dry-run"]));
    text.push_str(&transcript(&env, &["undo"]));
    text.push_str(&transcript(&env, &["redo"]));
    text.push_str(&transcript(&env, &["backups", "-c", "cursor"]));
    text.push_str(&transcript(&env, &["restore", "-c", "cursor", "--dry-run"]));
    text.push_str(&transcript(&env, &["restore", "-c", "cursor"]));
    text.push_str(&transcript(
        &env,
        &["restore", "-c", "cursor", "--backup", "2"],
    ));
    assert_golden("undo-restore-backups", &text);
}

/// `search` and `outdated` against a registry on 127.0.0.1 (its address shown as
/// `<registry>`): a table, nothing found, nothing newer, a newer version, and a registry
/// that answers with an error.
#[test]
fn golden_search_and_outdated() {
    let server = RegistryServer::start();
    let mut env = machine();
    env.extra_env
        .push(("MCPCTL_REGISTRY".to_owned(), server.url.clone()));
    env.on_path("npx");
    for file in SAMPLES {
        server.publish_sample(file);
    }
    let publish = |version: &str| {
        server.publish(
            serde_json::json!({"server": {
                "name": "io.github.acme/db",
                "description": "Query the Acme database",
                "version": version,
                "packages": [{"registryType": "npm", "identifier": "@acme/db-mcp", "version": version}]
            }}),
            true,
            "active",
            None,
        );
    };
    publish("1.0.0");
    let mut text = transcript(&env, &["search", "github"]);
    text.push_str(&transcript(&env, &["search", "no-such-server-anywhere"]));
    text.push_str(&transcript(&env, &["outdated"]));
    env.run(&["add", "io.github.acme/db", "-c", "cursor,codex"])
        .ok();
    text.push_str(&transcript(&env, &["outdated"]));
    publish("1.2.0");
    text.push_str(&transcript(&env, &["outdated"]));
    server.break_with(503, "down for maintenance");
    text.push_str(&transcript(&env, &["outdated"]));
    let text = text.replace(&server.url, "<registry>");
    assert_golden("search-outdated", &text);
}

/// `tools` and `call` against the fixture server (the official Rust SDK).
#[test]
#[ignore = "needs cargo build -p fixture-server"]
#[cfg(unix)] // golden files hold the Linux output
fn golden_tools_and_call() {
    let env = TestEnv::new();
    let bin = crate::fixture_server::fixture_binary();
    let bin = bin.to_str().unwrap();
    env.write(
        ".cursor/mcp.json",
        format!(r#"{{"mcpServers": {{"good": {{"command": "{bin}", "args": []}}}}}}"#).as_bytes(),
    );
    let mut text = transcript(&env, &["tools", "good", "-c", "cursor"]);
    text.push_str(&transcript(
        &env,
        &["call", "good", "hello", "-c", "cursor"],
    ));
    text.push_str(&transcript(&env, &["call", "good", "nope", "-c", "cursor"]));
    assert_golden("tools-call", &text.replace(bin, "<fixture-server>"));
}

/// Paths stay paths until printing: a file under HOME is `~/…` for a person and absolute
/// under `--json` (a script cannot open `~/…`), in a report's rows (`clients`, `list`), in
/// a message built far below the printer (an entry's error, an `add` that failed) and in
/// an error on stderr.
#[test]
fn a_path_under_home_is_home_relative_for_a_person_and_absolute_in_json() {
    let env = TestEnv::new();
    env.on_path("npx");
    env.write(
        ".cursor/mcp.json",
        br#"{"mcpServers": {"bad": {"command": 5}, "ok": {"command": "npx", "args": ["${NOT_SET_HERE}"]}}}"#,
    );
    let absolute = env.path(".cursor/mcp.json").display().to_string();
    let home_relative = &crate::env::os_path("~/.cursor/mcp.json");

    // `clients`: the CONFIG column, and `path`.
    let clients = env.run(&["clients"]).ok();
    assert!(clients.stdout.contains(home_relative), "{}", clients.stdout);
    assert!(!clients.stdout.contains(&absolute), "{}", clients.stdout);
    let clients = env.run(&["clients", "--json"]).ok().json();
    let cursor = clients
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "cursor")
        .unwrap();
    assert_eq!(cursor["path"], absolute.as_str());

    // `list`: an entry's error names its file; an unset variable is one summary line
    // (its per-entry sentence, naming the file, is `--json`'s `unset`).
    let list = env.run(&["list", "-c", "cursor"]).ok();
    assert!(
        list.stdout.contains(&format!("{home_relative}:1:")),
        "{}",
        list.stdout
    );
    assert!(
        list.stderr.contains("`${NOT_SET_HERE}` (ok)"),
        "{}",
        list.stderr
    );
    assert!(!list.stdout.contains(&absolute), "{}", list.stdout);
    assert!(!list.stderr.contains(&absolute), "{}", list.stderr);
    let rows = env.run(&["list", "-c", "cursor", "--json"]).ok().json();
    let bad = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "bad")
        .unwrap();
    assert_eq!(bad["path"], absolute.as_str());
    assert!(
        bad["error"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{absolute}:1:")),
        "{bad}"
    );
    let ok = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "ok")
        .unwrap();
    assert!(
        ok["unset"][0]
            .as_str()
            .unwrap()
            .contains(&format!("in `{absolute}`")),
        "{ok}"
    );
    assert!(!rows.to_string().contains("~/"), "{rows}");

    // An error: on stderr for a person, in the row and on stderr (as JSON) under `--json`.
    env.write(".cursor/mcp.json", b"{\"mcpServers\": {\n");
    let list = env.run(&["list", "-c", "cursor"]).code(2);
    assert!(
        list.stderr
            .contains(&format!("error: {home_relative}:2:1: ")),
        "{}",
        list.stderr
    );
    // Under `--json` the error is a JSON object (docs/reference/json.md).
    let list = env.run(&["list", "-c", "cursor", "--json"]).code(2);
    let error: serde_json::Value =
        serde_json::from_str(list.stderr.lines().last().unwrap_or_default()).unwrap();
    assert!(
        error["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with(&format!("{absolute}:2:1: "))),
        "{}",
        list.stderr
    );
    let add = env
        .run(&["add", "x", "-c", "cursor", "--", "npx", "x"])
        .code(2);
    assert!(
        add.stdout.contains(&format!("{home_relative}:2:1: ")),
        "{}",
        add.stdout
    );
    let add = env
        .run(&["add", "x", "-c", "cursor", "--json", "--", "npx", "x"])
        .code(2)
        .json();
    assert_eq!(add[0]["path"], absolute.as_str());
    assert!(
        add[0]["error"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{absolute}:2:1: ")),
        "{add}"
    );
}
