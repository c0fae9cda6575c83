//! Continue: mcpctl writes only its own file in the folder Continue loads JSON servers
//! from, so the user's `config.yaml` and other files there are never touched.

use crate::env::TestEnv;

const MINE: &str = ".continue/mcpServers/mcpctl.json";

#[test]
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
