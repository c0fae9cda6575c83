//! Integration tests for `mcpctl import` and `mcpctl copy`.

use crate::env::TestEnv;

const CLAUDE: &str = r#"{
  "numStartups": 12,
  "mcpServers": {
    "github": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}},
    "docs": {"type": "http", "url": "https://docs.example.com/mcp", "headers": {"Authorization": "Bearer sk_live_51HqLyjWDarjtT1zdp7dcXyz1234567890"}}
  }
}
"#;

const CURSOR: &str = r#"{
  // my servers
  "mcpServers": {
    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${env:GITHUB_TOKEN}"}, "disabled": false},
    "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}
  }
}
"#;

const CODEX: &str = r#"model = "gpt-5-codex"

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env_vars = ["GITHUB_TOKEN"]

[mcp_servers.memory]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory", "--other"]
"#;

fn setup() -> TestEnv {
    let env = TestEnv::new();
    env.write(".claude.json", CLAUDE.as_bytes());
    env.write(".cursor/mcp.json", CURSOR.as_bytes());
    env.write(".codex/config.toml", CODEX.as_bytes());
    env
}

#[test]
fn import_merges_identical_servers_and_reports_variants() {
    let env = setup();
    let run = env
        .run(&["import", "-c", "claude-code,cursor,codex", "--keep-secrets"])
        .ok();
    let toml = &run.stdout;
    // github is the same server in all three (three spellings of one variable).
    assert!(
        toml.contains("[servers.github]\ncommand = \"npx\""),
        "{toml}"
    );
    assert_eq!(toml.matches("[servers.github]").count(), 1, "{toml}");
    assert!(
        toml.contains("env = { GITHUB_PERSONAL_ACCESS_TOKEN = \"${GITHUB_TOKEN}\" }")
            || toml.contains("GITHUB_TOKEN = \"${GITHUB_TOKEN}\""),
        "{toml}"
    );
    assert!(
        toml.contains("clients = [\"cursor\"]"),
        "memory: cursor's variant, narrowed: {toml}"
    );
    assert!(
        run.stderr.contains("`memory` differs between clients"),
        "{}",
        run.stderr
    );
    assert!(
        toml.contains("sk_live_"),
        "--keep-secrets keeps the literal"
    );
    assert!(!toml.contains("disabled"), "housekeeping stays behind");
}

#[test]
fn import_turns_literal_secrets_into_references_and_plan_says_so() {
    let env = setup();
    let run = env
        .run(&["import", "-c", "claude-code", "--manifest", "team.toml"])
        .ok();
    let toml = env.read_str("team.toml");
    assert!(!toml.contains("sk_live_"), "{toml}");
    assert!(
        toml.contains("Authorization = \"Bearer ${DOCS_TOKEN}\""),
        "{toml}"
    );
    assert!(
        run.stderr.contains("DOCS_TOKEN (from docs in claude-code)"),
        "{}",
        run.stderr
    );
    let plan = env
        .run(&["plan", "--json", "--manifest", "team.toml"])
        .ok()
        .json();
    let docs = plan
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "docs")
        .unwrap();
    assert_eq!(docs["action"], "update");
    assert!(
        docs["reason"]
            .as_str()
            .unwrap()
            .contains("secret moves to `${DOCS_TOKEN}`"),
        "{docs}"
    );
    // Issue 37 item 7: on Windows the variable is set the Windows way.
    let plan = env
        .run(&[
            "--platform",
            "windows",
            "plan",
            "--json",
            "--manifest",
            "team.toml",
        ])
        .ok()
        .json();
    let docs = plan
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "docs" && i["client"] == "claude-code")
        .unwrap_or_else(|| panic!("{plan}"));
    let reason = docs["reason"].as_str().unwrap();
    assert!(reason.contains("`setx DOCS_TOKEN …`"), "{docs}");
    assert!(!reason.contains("export"), "{docs}");
}

#[test]
#[cfg(unix)] // the fixtures' entries are in the unwrapped form Windows rewrites as `cmd /c`
fn import_then_apply_changes_nothing() {
    let env = setup();
    env.run(&[
        "import",
        "-c",
        "claude-code,cursor,codex",
        "--manifest",
        "mcpctl.toml",
        "--keep-secrets",
    ])
    .ok();
    let journal = env.journal().len();
    let plan = env
        .run(&["plan", "--json", "--manifest", "mcpctl.toml"])
        .ok()
        .json();
    for item in plan.as_array().unwrap() {
        assert_eq!(item["action"], "ok", "{item}");
    }
    env.run(&["apply", "--manifest", "mcpctl.toml"]).ok();
    assert_eq!(env.journal().len(), journal, "apply wrote nothing");
    assert_eq!(env.read_str(".claude.json"), CLAUDE);
    assert_eq!(env.read_str(".cursor/mcp.json"), CURSOR);
    assert_eq!(env.read_str(".codex/config.toml"), CODEX);
    env.run(&["plan", "--check", "--manifest", "mcpctl.toml"])
        .ok();
}

#[test]
fn import_extends_an_existing_manifest_losslessly() {
    let env = setup();
    let mine = "# team servers\nclients = [\"cursor\"]  # keep this comment\n\n[servers.github]\ncommand = \"gh-mcp\"   # ours\n";
    env.write("mcpctl.toml", mine.as_bytes());
    let run = env
        .run(&["import", "-c", "cursor", "--manifest", "mcpctl.toml"])
        .ok();
    assert!(
        run.stderr.contains("`github` is already in the manifest"),
        "{}",
        run.stderr
    );
    let after = env.read_str("mcpctl.toml");
    assert!(after.starts_with(mine), "{after}");
    assert!(after.contains("[servers.memory]"), "{after}");
    // And `undo` takes the import back.
    env.run(&["undo"]).ok();
    assert_eq!(env.read_str("mcpctl.toml"), mine);
}

#[test]
fn copy_renders_for_each_target_and_records_the_copy() {
    let env = setup();
    env.run(&[
        "copy",
        "github",
        "--from",
        "claude-code",
        "-c",
        "vscode,opencode",
    ])
    .ok();
    let vscode = env.read_str(crate::env::VSCODE);
    assert!(
        vscode.contains("\"GITHUB_PERSONAL_ACCESS_TOKEN\": \"${env:GITHUB_TOKEN}\""),
        "{vscode}"
    );
    let opencode = env.read_str(".config/opencode/opencode.json");
    assert!(
        opencode.contains("{env:GITHUB_TOKEN}") && opencode.contains("\"type\": \"local\""),
        "{opencode}"
    );
    let ledger = env.state("ledger.json");
    assert!(
        ledger["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["source"] == "copy")
    );
    // On Windows targets npx is wrapped, as `add` does.
    env.run(&[
        "--platform",
        "windows",
        "copy",
        "memory",
        "--from",
        "cursor",
        "-c",
        "windsurf",
    ])
    .ok();
    let windsurf = env.read_str(".codeium/windsurf/mcp_config.json");
    assert!(
        windsurf.contains("\"cmd\"") && windsurf.contains("\"/c\""),
        "{windsurf}"
    );
    let run = env
        .run(&["copy", "nope", "--from", "cursor", "-c", "vscode"])
        .code(2);
    assert!(
        run.stderr.contains("`nope` is not in cursor's user file"),
        "{}",
        run.stderr
    );
}
