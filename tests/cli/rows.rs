//! The client table's rows as the clients' docs and own CLIs had them in December 2026
//! (issue 22): each test pins one corrected or new row against the file the client reads.
//! The clients' own CLIs check the same rows where they install: tests/cli/peers.rs.

use crate::env::{Run, TestEnv, jsonc};

const COPILOT: &str = ".copilot/mcp-config.json";
const COPILOT_SETTINGS: &str = ".copilot/settings.json";
const ROVO: &str = ".rovodev/mcp.json";
const ROVO_CONFIG: &str = ".rovodev/config.yml";
const VIBE: &str = ".vibe/config.toml";

fn list_row(env: &TestEnv, client: &str, name: &str) -> serde_json::Value {
    let rows = env.run(&["list", "--json", "-c", client]).ok().json();
    rows.as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed for {client}: {rows:#}"))
        .clone()
}

/// `check --format json` findings (code, message) on one file read as `client`.
fn findings(env: &TestEnv, client: &str, rel: &str) -> Vec<(String, String)> {
    let path = env.path(rel);
    let run = env.run(&[
        "check",
        "--platform",
        "linux",
        "--format",
        "json",
        "-c",
        client,
        path.to_str().unwrap(),
    ]);
    run.json()
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_owned(),
                f["message"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn unknown_keys(found: &[(String, String)]) -> Vec<&str> {
    found
        .iter()
        .filter(|(code, _)| code == "MCP206")
        .map(|(_, message)| message.as_str())
        .collect()
}

#[test]
fn vscode_oauth_is_an_entry_key_and_sandbox_moved_to_the_top_level() {
    let env = TestEnv::new();
    let rel = crate::env::VSCODE;
    env.write(
        rel,
        br#"{
  // sandbox settings are a sibling of `servers` now
  "sandbox": { "network": { "allowedDomains": ["example.com"] } },
  "servers": {
    "api": {
      "type": "http",
      "url": "https://api.example.com/mcp",
      "oauth": { "clientId": "mcpctl-test", "enterpriseManaged": false }
    },
    "old": {
      "type": "stdio",
      "command": "mcp-old",
      "sandbox": { "filesystem": { "allowWrite": ["."] } }
    }
  }
}
"#,
    );
    let found = findings(&env, "vscode", rel);
    let unknown = unknown_keys(&found);
    assert!(
        !unknown.iter().any(|m| m.contains("oauth")),
        "oauth is documented: {found:#?}"
    );
    assert!(
        unknown.iter().any(|m| m.contains("sandbox")),
        "an entry-level sandbox is not read any more: {found:#?}"
    );
}

#[test]
fn codex_oauth_table_is_not_a_finding() {
    let env = TestEnv::new();
    let rel = ".codex/config.toml";
    env.write(
        rel,
        b"model = \"o4\"\n\n[mcp_servers.api]\nurl = \"https://api.example.com/mcp\"\n\n[mcp_servers.api.oauth]\nclient_id = \"mcpctl-test\"\n",
    );
    let found = findings(&env, "codex", rel);
    assert!(unknown_keys(&found).is_empty(), "{found:#?}");
}

/// `copilot mcp disable NAME` writes `disabledMcpServers` in settings.json: mcpctl uses
/// the same switch, so `list` shows the server off and `doctor` leaves it alone.
#[test]
fn copilot_switch_is_disabled_mcp_servers_in_settings_json() {
    let env = TestEnv::new();
    let servers = b"{\n  \"mcpServers\": {\n    \"mem\": {\n      \"type\": \"local\",\n      \"command\": \"mcp-memory\",\n      \"args\": [],\n      \"tools\": [\"*\"]\n    }\n  }\n}\n";
    env.write(COPILOT, servers);
    let settings = b"{\n  \"model\": \"gpt-5\",\n  \"trusted_folders\": []\n}\n";
    env.write(COPILOT_SETTINGS, settings);
    let run = env
        .run(&["--json", "disable", "mem", "-c", "copilot-cli"])
        .ok();
    assert_eq!(run.json()[0]["method"], "list", "{}", run.stdout);
    assert_eq!(
        jsonc(&env.read(COPILOT_SETTINGS))["disabledMcpServers"],
        serde_json::json!(["mem"])
    );
    assert_eq!(
        env.read(COPILOT),
        servers,
        "the servers file is not touched"
    );
    assert_eq!(list_row(&env, "copilot-cli", "mem")["disabled"], true);
    let doctor = env.run(&["doctor", "-c", "copilot-cli"]);
    let said = format!("{}{}", doctor.stdout, doctor.stderr);
    assert!(said.contains("disabled"), "{said}");
    env.run(&["enable", "mem", "-c", "copilot-cli"]).ok();
    assert_eq!(env.read(COPILOT_SETTINGS), settings);
    assert_eq!(env.read(COPILOT), servers);
    assert_eq!(list_row(&env, "copilot-cli", "mem")["disabled"], false);
}

/// Rovo Dev's switch is `mcp.disabledMcpServers` in the YAML config.yml beside its JSON
/// servers file: the list is written in YAML, the rest of config.yml kept.
#[test]
fn rovo_dev_switch_is_a_yaml_list_in_config_yml() {
    let env = TestEnv::new();
    let servers = b"{\n  \"mcpServers\": {\n    \"jira\": {\n      \"command\": \"mcp-jira\",\n      \"args\": []\n    }\n  }\n}\n";
    env.write(ROVO, servers);
    let config = b"# Rovo Dev settings\nagent:\n  streaming: true\nmcp:\n  mcpServersConfigPath: ~/.rovodev/mcp.json\n";
    env.write(ROVO_CONFIG, config);
    env.run(&["disable", "jira", "-c", "rovo-dev"]).ok();
    let text = env.read_str(ROVO_CONFIG);
    assert!(
        text.contains("  disabledMcpServers:") && text.contains("jira"),
        "{text}"
    );
    assert!(
        text.starts_with("# Rovo Dev settings\nagent:\n  streaming: true\n"),
        "{text}"
    );
    assert_eq!(env.read(ROVO), servers);
    assert_eq!(list_row(&env, "rovo-dev", "jira")["disabled"], true);
    env.run(&["enable", "jira", "-c", "rovo-dev"]).ok();
    assert_eq!(env.read_str(ROVO_CONFIG), String::from_utf8_lossy(config));
}

#[test]
fn mistral_vibe_switch_and_tool_filter_are_its_own_fields() {
    let env = TestEnv::new();
    let text = "active_model = \"devstral\"\n\n[[mcp_servers]]\nname = \"mem\"\ntransport = \"stdio\"\ncommand = \"mcp-memory\"\nargs = []\n\n[[mcp_servers]]\nname = \"web\"\ntransport = \"http\"\nurl = \"https://example.com/mcp\"\n";
    env.write(VIBE, text.as_bytes());
    let run = env
        .run(&["--json", "disable", "mem", "-c", "mistral-vibe"])
        .ok();
    assert_eq!(run.json()[0]["method"], "field", "{}", run.stdout);
    let value: toml::Value = toml::from_str(&env.read_str(VIBE)).unwrap();
    assert_eq!(value["mcp_servers"][0]["disabled"].as_bool(), Some(true));
    assert_eq!(list_row(&env, "mistral-vibe", "mem")["disabled"], true);
    env.run(&["enable", "mem", "-c", "mistral-vibe"]).ok();
    assert_eq!(env.read_str(VIBE), text);
    env.run(&[
        "disable",
        "web",
        "-c",
        "mistral-vibe",
        "--deny-tools",
        "delete,drop",
    ])
    .ok();
    let value: toml::Value = toml::from_str(&env.read_str(VIBE)).unwrap();
    let denied: Vec<&str> = value["mcp_servers"][1]["disabled_tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(denied, ["delete", "drop"]);
}

/// Kimi Code: `$KIMI_CODE_HOME/mcp.json` (else `~/.kimi-code/mcp.json`), `enabled` as its
/// switch, `enabledTools`/`disabledTools` as its filter, `cwd` for stdio servers.
#[test]
fn kimi_code_home_switch_filter_and_cwd() {
    let mut env = TestEnv::new();
    let home = env.path("kimi-home").display().to_string();
    env.extra_env.push(("KIMI_CODE_HOME".into(), home));
    env.run(&[
        "add",
        "mem",
        "-c",
        "kimi-code",
        "--cwd",
        "/srv/data",
        "--",
        "mcp-memory",
    ])
    .ok();
    let rel = "kimi-home/mcp.json";
    assert_eq!(
        jsonc(&env.read(rel))["mcpServers"]["mem"],
        serde_json::json!({"command": "mcp-memory", "args": [], "cwd": "/srv/data"})
    );
    assert!(!env.path(".kimi-code/mcp.json").exists());
    env.run(&["disable", "mem", "-c", "kimi-code"]).ok();
    assert_eq!(jsonc(&env.read(rel))["mcpServers"]["mem"]["enabled"], false);
    env.run(&["enable", "mem", "-c", "kimi-code"]).ok();
    env.run(&["disable", "mem", "-c", "kimi-code", "--deny-tools", "wipe"])
        .ok();
    assert_eq!(
        jsonc(&env.read(rel))["mcpServers"]["mem"]["disabledTools"],
        serde_json::json!(["wipe"])
    );
}

/// Devin Local >= v3000.3 and Devin Desktop read `mcp_config.json`; the old `config.json`
/// is listed (legacy) but never written.
#[test]
#[cfg(unix)] // Devin's Linux paths
fn devin_writes_mcp_config_json_and_lists_the_legacy_config_json() {
    let env = TestEnv::new();
    let legacy = b"{\n  // model and permissions stay here\n  \"agent\": { \"model\": \"swe-1\" },\n  \"mcpServers\": {\n    \"old\": { \"command\": \"mcp-old\", \"args\": [] }\n  }\n}\n";
    env.write(".config/devin/config.json", legacy);
    env.run(&["add", "new", "-c", "devin", "--", "mcp-new"])
        .ok();
    assert_eq!(
        jsonc(&env.read(".config/devin/mcp_config.json"))["mcpServers"]["new"]["command"],
        "mcp-new"
    );
    assert_eq!(env.read(".config/devin/config.json"), legacy);
    assert_eq!(list_row(&env, "devin", "old")["command"], "mcp-old");
    assert_eq!(list_row(&env, "devin", "new")["command"], "mcp-new");
    // Devin Desktop is the same row.
    env.run(&["list", "-c", "devin-desktop"]).ok();
}

/// Claude Code keeps these names for its own servers: an entry by one of them is skipped
/// or rejected, so `add` refuses it and writes nothing.
#[test]
fn claude_code_reserved_names_are_refused_in_add() {
    let env = TestEnv::new();
    for name in ["workspace", "computer-use", "Claude Preview"] {
        let run: Run = env
            .run(&["add", name, "-c", "claude-code", "--", "mcp-x"])
            .code(2);
        assert!(
            run.stderr.contains("keeps the server name"),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr.contains(&format!("{name}-mcp")),
            "{}",
            run.stderr
        );
    }
    assert!(!env.path(".claude.json").exists());
    // Other clients take the name.
    env.run(&["add", "workspace", "-c", "cursor", "--", "mcp-x"])
        .ok();
}

/// The clients added this month write the shape their docs show and switch with their own
/// field.
#[test]
#[cfg(unix)] // the rows' Linux paths
fn new_clients_write_their_documented_shape() {
    let env = TestEnv::new();
    // Crush: an `mcp` map with `type`; `disabled` switch, `disabled_tools` filter.
    env.run(&["add", "mem", "-c", "crush", "-e", "K=v", "--", "mcp-memory"])
        .ok();
    env.run(&[
        "add",
        "web",
        "-c",
        "crush",
        "--url",
        "https://example.com/mcp",
    ])
    .ok();
    let crush = ".config/crush/crush.json";
    assert_eq!(
        jsonc(&env.read(crush))["mcp"],
        serde_json::json!({
            "mem": {"type": "stdio", "command": "mcp-memory", "args": [], "env": {"K": "v"}},
            "web": {"type": "http", "url": "https://example.com/mcp"}
        })
    );
    env.run(&["disable", "web", "-c", "crush"]).ok();
    assert_eq!(jsonc(&env.read(crush))["mcp"]["web"]["disabled"], true);
    // Hermes Agent: YAML `mcp_servers` in a config.yaml shared with its other settings.
    env.write(
        ".hermes/config.yaml",
        b"model:\n  default: hermes-4\nmcp_servers: {}\n",
    );
    env.run(&[
        "add",
        "time",
        "-c",
        "hermes",
        "--",
        "uvx",
        "mcp-server-time",
    ])
    .ok();
    let text = env.read_str(".hermes/config.yaml");
    assert!(text.starts_with("model:\n  default: hermes-4\n"), "{text}");
    let time = list_row(&env, "hermes-agent", "time");
    assert_eq!(
        (time["command"].as_str(), time["args"].clone()),
        (Some("uvx"), serde_json::json!(["mcp-server-time"]))
    );
    env.run(&["disable", "time", "-c", "hermes-agent"]).ok();
    assert_eq!(list_row(&env, "hermes-agent", "time")["disabled"], true);
    // Jan: `active` is its switch.
    let jan = ".local/share/Jan/data/mcp_config.json";
    env.write(
        jan,
        b"{\n  \"mcpServers\": {\n    \"fetch\": { \"command\": \"uvx\", \"args\": [\"mcp-server-fetch\"], \"env\": {}, \"active\": true }\n  },\n  \"mcpSettings\": { \"toolCallTimeoutSeconds\": 30 }\n}\n",
    );
    env.run(&["disable", "fetch", "-c", "jan"]).ok();
    assert_eq!(
        jsonc(&env.read(jan))["mcpServers"]["fetch"]["active"],
        false
    );
    // Pi, Tabnine CLI, Qoder CLI: `mcpServers` in their own files.
    for (client, rel) in [
        ("pi", ".pi/agent/mcp.json"),
        ("tabnine-cli", ".tabnine/agent/settings.json"),
        ("qoder-cli", ".qoder/settings.json"),
    ] {
        env.run(&["add", "mem", "-c", client, "--", "mcp-memory"])
            .ok();
        assert_eq!(
            jsonc(&env.read(rel))["mcpServers"]["mem"]["command"],
            "mcp-memory",
            "{client}"
        );
    }
    // Zoo Code: the project file is `.zoo/mcp.json`.
    std::fs::create_dir_all(env.path("app")).unwrap();
    env.run_in(
        "app",
        &[
            "add",
            "mem",
            "-c",
            "zoo-code",
            "--scope",
            "project",
            "--",
            "mcp-memory",
        ],
    )
    .ok();
    assert_eq!(
        jsonc(&env.read("app/.zoo/mcp.json"))["mcpServers"]["mem"]["command"],
        "mcp-memory"
    );
}

/// Crush reads its user file from `$CRUSH_GLOBAL_CONFIG`, else `$XDG_CONFIG_HOME/crush`, else
/// `~/.config/crush`, on Windows too (`home.Config()`); `%LOCALAPPDATA%\crush\crush.json` is
/// the data file Crush writes itself (and keeps OAuth tokens in), not the one to write.
#[test]
fn crush_user_file_is_under_the_config_home_on_every_os() {
    let mut env = TestEnv::new();
    let rows = env
        .run(&["--platform", "windows", "clients", "--json"])
        .ok()
        .json();
    let crush = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "crush")
        .unwrap()
        .clone();
    assert_eq!(
        crush["path"],
        env.path(".config/crush/crush.json").display().to_string()
    );
    let dir = env.path("crush-config").display().to_string();
    env.extra_env.push(("CRUSH_GLOBAL_CONFIG".into(), dir));
    env.run(&["add", "mem", "-c", "crush", "--", "mcp-memory"])
        .ok();
    assert_eq!(
        jsonc(&env.read("crush-config/crush.json"))["mcp"]["mem"]["command"],
        "mcp-memory"
    );
    assert!(!env.path(".config/crush/crush.json").exists());
}
