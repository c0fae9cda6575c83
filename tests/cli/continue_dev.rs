//! Continue: mcpctl writes only its own file in the folder Continue loads JSON servers
//! from, so the user's `config.yaml` and other files there are never touched.

use crate::env::TestEnv;

#[cfg(unix)] // only Unix-only tests use it
const MINE: &str = ".continue/mcpServers/mcpctl.json";

#[test]
#[cfg(unix)] // expects npx unwrapped (Windows writes `cmd /c npx`)
fn servers_go_to_mcpctls_own_file_and_nothing_else_is_touched() {
    let env = TestEnv::new();
    let config = "name: Local Assistant\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: SQLite\n    command: npx\n    args: [-y, mcp-sqlite]\n";
    let theirs = "{\n  // copied from Claude Desktop\n  \"mcpServers\": {\"fs\": {\"command\": \"npx\", \"args\": [\"x\"]}}\n}\n";
    env.write(".continue/config.yaml", config.as_bytes());
    env.write(".continue/mcpServers/claude.json", theirs.as_bytes());
    env.run(&[
        "add",
        "mem",
        "-c",
        "continue",
        "--",
        "npx",
        "-y",
        "@modelcontextprotocol/server-memory",
    ])
    .ok();
    env.run(&[
        "add",
        "docs",
        "-c",
        "continue",
        "-t",
        "http",
        "https://x.example/mcp",
    ])
    .ok();
    let mine: serde_json::Value = serde_json::from_str(&env.read_str(MINE)).unwrap();
    assert_eq!(
        mine,
        serde_json::json!({"mcpServers": {
            "mem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]},
            "docs": {"type": "http", "url": "https://x.example/mcp"}
        }})
    );
    assert_eq!(env.read_str(".continue/config.yaml"), config);
    assert_eq!(env.read_str(".continue/mcpServers/claude.json"), theirs);
    env.run(&["remove", "mem", "-c", "continue"]).ok();
    env.run(&["remove", "docs", "-c", "continue"]).ok();
    // mcpctl created the file, so removing its last server removes the file.
    assert!(!env.path(MINE).exists());
    assert_eq!(env.read_str(".continue/config.yaml"), config);
}

#[test]
fn list_shows_every_source_continue_reads_read_only_with_its_origin() {
    let env = TestEnv::new();
    let config = "name: Local Assistant\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: SQLite\n    command: npx\n    args: [-y, mcp-sqlite]\n";
    let theirs = "{\n  // copied from Claude Desktop\n  \"mcpServers\": {\"fs\": {\"command\": \"npx\", \"args\": [\"x\"]}}\n}\n";
    let block = "name: Browser\nversion: 0.0.1\nschema: v1\nmcpServers:\n  - name: playwright\n    command: npx\n    args: [\"@playwright/mcp@latest\"]\n";
    env.write(".continue/config.yaml", config.as_bytes());
    env.write(".continue/mcpServers/claude.json", theirs.as_bytes());
    env.write("proj/.continue/mcpServers/browser.yaml", block.as_bytes());
    env.run(&["add", "mem", "-c", "continue", "--", "npx", "-y", "m"])
        .ok();
    let out = env
        .run_in("proj", &["list", "-c", "continue", "--json"])
        .ok();
    let rows: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let row = |name: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name} missing from {rows:#}"))
            .clone()
    };
    assert!(row("mem").get("read_only").is_none_or(|v| v == false));
    for (name, file) in [
        ("SQLite", "config.yaml"),
        ("fs", "claude.json"),
        ("playwright", "browser.yaml"),
    ] {
        let r = row(name);
        assert_eq!(r["read_only"], true, "{r:#}");
        assert_eq!(r["origin"]["kind"], "continue", "{r:#}");
        assert!(
            r["origin"]["file"].as_str().unwrap().ends_with(file),
            "{r:#}"
        );
    }
    assert_eq!(row("playwright")["origin"]["chosen_by"], "project");
    // Nothing of Continue's own was touched, and remove refuses its servers.
    env.run(&["remove", "SQLite", "-c", "continue"]).code(2);
    assert_eq!(env.read_str(".continue/config.yaml"), config);
    assert_eq!(env.read_str(".continue/mcpServers/claude.json"), theirs);
}
