//! Administrators' policy files (src/policy/), read where each client reads them (under
//! `MCPCTL_SYSROOT` here): `list`, `doctor` and `check` show what they block, `add` and
//! `apply` refuse it, naming the rule and the file.

use std::path::PathBuf;

use crate::env::TestEnv;

const CLAUDE_JSON: &str = r#"{
  "numStartups": 12,
  "mcpServers": {
    "playwright": { "type": "stdio", "command": "npx", "args": ["-y", "@playwright/mcp@1.2.0"] },
    "filesystem": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/"] },
    "notes": { "type": "stdio", "command": "uvx", "args": ["notes-mcp"] },
    "docs": { "type": "http", "url": "https://docs.example.com/mcp" }
  }
}
"#;

const MANAGED_SETTINGS: &str = r#"{
  // Deployed by IT (MDM).
  "model": "opus",
  "allowedMcpServers": [
    { "serverCommand": ["npx", "-y", "@playwright/mcp@1.2.0"] },
    { "serverCommand": ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/"] },
    { "serverUrl": "https://*.example.com/*" }
  ],
  "deniedMcpServers": [
    { "serverCommand": ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/"] }
  ]
}
"#;

fn system_file(env: &TestEnv, rel: &str, text: &str) -> PathBuf {
    let path = env.sysroot().join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

fn row<'a>(rows: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    rows.as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no row {name}: {rows}"))
}

#[test]
fn list_and_doctor_show_what_claude_codes_managed_settings_block() {
    let env = TestEnv::new();
    env.write(".claude.json", CLAUDE_JSON.as_bytes());
    let file = system_file(
        &env,
        "etc/claude-code/managed-settings.json",
        MANAGED_SETTINGS,
    );
    let rows = env
        .run(&["list", "-c", "claude-code", "--json"])
        .ok()
        .json();
    for name in ["playwright", "docs"] {
        let r = row(&rows, name);
        assert!(
            r.get("policy").is_none() && r.get("not_loaded").is_none(),
            "{r}"
        );
    }
    let fs = row(&rows, "filesystem");
    assert_eq!(fs["policy"]["verdict"], "denied", "{fs}");
    assert_eq!(fs["policy"]["kind"], "claude-managed");
    assert_eq!(fs["policy"]["file"], file.to_str().unwrap());
    assert!(
        fs["policy"]["rule"]
            .as_str()
            .unwrap()
            .contains("`deniedMcpServers` entry {\"serverCommand\""),
        "{fs}"
    );
    let notes = row(&rows, "notes");
    assert_eq!(notes["policy"]["verdict"], "not_allowed", "{notes}");
    assert!(
        notes["not_loaded"]
            .as_str()
            .unwrap()
            .starts_with("not allowed by policy: `allowedMcpServers` has no entry matching `notes` (command `uvx notes-mcp`)"),
        "{notes}"
    );
    let text = env.run(&["list", "-c", "claude-code"]).ok().stdout;
    assert!(text.contains("filesystem (blocked by policy)"), "{text}");
    assert!(text.contains("notes (not allowed by policy)"), "{text}");

    let doctor = env
        .run(&["doctor", "-c", "claude-code", "--no-spawn", "--json"])
        .json();
    let result = doctor["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "notes")
        .unwrap();
    assert_eq!(result["policy"]["verdict"], "not_allowed", "{result}");
    let check = result["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "policy")
        .unwrap_or_else(|| panic!("{result}"));
    assert!(
        check["message"]
            .as_str()
            .unwrap()
            .contains(file.to_str().unwrap()),
        "{check}"
    );
}

#[test]
fn add_refuses_a_server_the_policy_blocks_and_writes_nothing() {
    let env = TestEnv::new();
    env.write(".claude.json", CLAUDE_JSON.as_bytes());
    let file = system_file(
        &env,
        "etc/claude-code/managed-settings.json",
        MANAGED_SETTINGS,
    );
    let run = env
        .run(&[
            "add",
            "gh",
            "-c",
            "claude-code",
            "--",
            "npx",
            "-y",
            "@modelcontextprotocol/server-github",
        ])
        .code(2);
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(out.contains("not allowed by policy"), "{out}");
    assert!(out.contains(file.to_str().unwrap()), "{out}");
    assert!(out.contains("ask them to allow the server"), "{out}");
    assert_eq!(env.read_str(".claude.json"), CLAUDE_JSON, "nothing written");
    // What the policy allows goes in.
    env.run(&[
        "add",
        "pw2",
        "-c",
        "claude-code",
        "--",
        "npx",
        "-y",
        "@playwright/mcp@1.2.0",
    ])
    .ok();
}

#[test]
fn codex_requirements_and_copilot_managed_settings_are_judged_too() {
    let env = TestEnv::new();
    env.write(
        ".codex/config.toml",
        b"[mcp_servers.docs]\ncommand = \"codex-docs\"\n\n[mcp_servers.other]\ncommand = \"npx\"\nargs = [\"-y\", \"other-mcp\"]\n",
    );
    system_file(
        &env,
        "etc/codex/requirements.toml",
        "allowed_sandbox_modes = [\"read-only\"]\n\n[mcp_servers.docs.identity]\ncommand = \"codex-docs\"\n",
    );
    env.write(
        ".copilot/mcp-config.json",
        br#"{"mcpServers": {"evil": {"type": "local", "command": "npx", "args": ["evil-mcp"], "tools": ["*"]}}}"#,
    );
    let copilot = system_file(
        &env,
        "etc/github-copilot/managed-settings.json",
        r#"{"deniedMcpServers": [{"serverName": "evil"}]}"#,
    );
    let rows = env
        .run(&["list", "-c", "codex,copilot-cli", "--json"])
        .ok()
        .json();
    assert!(row(&rows, "docs").get("policy").is_none(), "{rows}");
    let other = row(&rows, "other");
    assert_eq!(other["policy"]["kind"], "codex-requirements", "{other}");
    assert!(
        other["policy"]["rule"]
            .as_str()
            .unwrap()
            .contains("`[mcp_servers]` does not list `other`"),
        "{other}"
    );
    let evil = row(&rows, "evil");
    assert_eq!(evil["policy"]["file"], copilot.to_str().unwrap(), "{evil}");
    assert_eq!(evil["policy"]["verdict"], "denied");
    env.run(&["add", "more", "-c", "codex", "--", "uvx", "more-mcp"])
        .code(2);
}

#[test]
fn apply_refuses_a_manifest_server_the_policy_blocks() {
    let env = TestEnv::new();
    env.write(".claude.json", b"{}\n");
    system_file(
        &env,
        "etc/claude-code/managed-settings.json",
        r#"{"allowedMcpServers": [{"serverName": "ok"}]}"#,
    );
    let manifest = env.write(
        "team.toml",
        b"clients = [\"claude-code\"]\n\n[servers.ok]\ncommand = \"uvx\"\nargs = [\"ok-mcp\"]\n\n[servers.blocked]\ncommand = \"uvx\"\nargs = [\"blocked-mcp\"]\n",
    );
    let run = env
        .run(&["apply", "--manifest", manifest.to_str().unwrap()])
        .code(2);
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(
        out.contains("`blocked` for Claude Code: not allowed by policy"),
        "{out}"
    );
    assert_eq!(env.read_str(".claude.json"), "{}\n", "nothing written");
}

#[test]
fn a_policy_file_that_does_not_parse_is_reported_and_judges_nothing() {
    let env = TestEnv::new();
    env.write(".claude.json", CLAUDE_JSON.as_bytes());
    system_file(
        &env,
        "etc/claude-code/managed-settings.json",
        r#"{"deniedMcpServers": [{"serverName": "a", "serverUrl": "b"}]}"#,
    );
    let run = env.run(&["list", "-c", "claude-code", "--json"]);
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(
        out.contains("policy file: `deniedMcpServers` entry 1"),
        "{out}"
    );
}

#[test]
fn check_flags_entries_the_policy_blocks_as_mcp210() {
    let env = TestEnv::new();
    let path = env.write(".claude.json", CLAUDE_JSON.as_bytes());
    system_file(
        &env,
        "etc/claude-code/managed-settings.json",
        MANAGED_SETTINGS,
    );
    let run = env
        .run(&["check", path.to_str().unwrap(), "--json"])
        .code(1);
    let findings = run.json();
    let blocked: Vec<(&str, u64)> = findings
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "MCP210")
        .map(|f| {
            let message = f["message"].as_str().unwrap();
            (
                message.split('`').nth(1).unwrap(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(blocked, [("filesystem", 5), ("notes", 6)], "{findings}");
    let explain = env.run(&["check", "--explain", "MCP210"]).ok().stdout;
    assert!(explain.contains("blocked-by-policy"), "{explain}");
}

/// Issue 38 item 10: an administrator's Copilot policy applies to every Copilot client,
/// VS Code too; `add -c vscode` of a server it denies succeeded, and `list` and `check`
/// said nothing, while copilot-cli refused the same server.
#[test]
fn a_copilot_policy_applies_to_vs_code_too() {
    let env = TestEnv::new();
    let code = crate::env::VSCODE;
    let path = env.write(
        code,
        br#"{ "servers": {
  "ok": { "type": "stdio", "command": "uvx", "args": ["ok-mcp"] },
  "evil": { "type": "stdio", "command": "npx", "args": ["evil-mcp"] }
} }
"#,
    );
    let policy = system_file(
        &env,
        if cfg!(windows) {
            "Program Files/GitHubCopilot/managed-settings.json"
        } else {
            "etc/github-copilot/managed-settings.json"
        },
        r#"{"deniedMcpServers": [{"serverName": "evil"}, {"serverName": "worse"}]}"#,
    );
    let before = env.read_str(code);
    for client in ["vscode", "copilot-cli"] {
        let run = env
            .run(&["add", "worse", "-c", client, "--", "uvx", "worse-mcp"])
            .code(2);
        let out = format!("{}{}", run.stdout, run.stderr);
        assert!(out.contains("blocked by policy"), "{client}: {out}");
    }
    assert_eq!(env.read_str(code), before, "nothing written");
    let rows = env.run(&["list", "-c", "vscode", "--json"]).ok().json();
    assert!(row(&rows, "ok").get("policy").is_none(), "{rows}");
    let evil = row(&rows, "evil");
    assert_eq!(evil["policy"]["file"], policy.to_str().unwrap(), "{evil}");
    assert_eq!(evil["policy"]["verdict"], "denied", "{evil}");
    let findings = env
        .run(&["check", path.to_str().unwrap(), "-c", "vscode", "--json"])
        .code(1)
        .json();
    let blocked: Vec<&str> = findings
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "MCP210")
        .map(|f| f["message"].as_str().unwrap().split('`').nth(1).unwrap())
        .collect();
    assert_eq!(blocked, ["evil"], "{findings}");
}

/// Issue 38 item 10: `check mcpctl.toml` said "cannot tell which client reads" it, so a
/// team's manifest could not be checked against the policies of the clients it targets
/// before `apply` refused it on someone's machine. Each server is judged for each client
/// it targets (the manifest's `clients`, narrowed per server), at its `[servers.NAME]` line.
#[test]
fn check_judges_a_manifest_by_the_policies_of_the_clients_it_targets() {
    let env = TestEnv::new();
    system_file(
        &env,
        if cfg!(windows) {
            "Program Files/GitHubCopilot/managed-settings.json"
        } else {
            "etc/github-copilot/managed-settings.json"
        },
        r#"{"deniedMcpServers": [{"serverName": "evil"}, {"serverName": "claude-only"}]}"#,
    );
    system_file(
        &env,
        if cfg!(windows) {
            "Program Files/ClaudeCode/managed-settings.json"
        } else {
            "etc/claude-code/managed-settings.json"
        },
        r#"{"allowedMcpServers": [{"serverName": "ok"}, {"serverName": "claude-only"}]}"#,
    );
    env.write(
        "proj/mcpctl.toml",
        b"clients = [\"vscode\", \"claude-code\"]\n\n[servers.ok]\ncommand = \"uvx\"\nargs = [\"ok-mcp\"]\n\n[servers.evil]\ncommand = \"npx\"\nargs = [\"evil-mcp\"]\n\n[servers.claude-only]\nclients = [\"claude-code\"]\ncommand = \"npx\"\nargs = [\"x-mcp\"]\n",
    );
    let findings = env
        .run_in("proj", &["check", "mcpctl.toml", "--json"])
        .code(1)
        .json();
    let blocked: Vec<(u64, &str)> = findings
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "MCP210")
        .map(|f| (f["line"].as_u64().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    assert_eq!(blocked.len(), 2, "{findings:#}");
    assert!(
        blocked.iter().any(|(line, m)| *line == 7
            && m.starts_with("`evil`: blocked by policy")
            && m.contains("VS Code will not load it")),
        "{findings:#}"
    );
    assert!(
        blocked.iter().any(|(line, m)| *line == 7
            && m.starts_with("`evil`: not allowed by policy")
            && m.contains("Claude Code will not load it")),
        "{findings:#}"
    );
    // A manifest every targeted client's policy allows is clean.
    env.write(
        "proj/mcpctl.toml",
        b"clients = [\"vscode\"]\n\n[servers.ok]\ncommand = \"uvx\"\nargs = [\"ok-mcp\"]\n",
    );
    env.run_in("proj", &["check", "mcpctl.toml"]).ok();
}
