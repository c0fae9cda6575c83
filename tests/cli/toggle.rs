//! `mcpctl disable` / `enable`: every way a client switches a server off (its own field,
//! a per-project list, an enablement file, parking) gives the original bytes back, and
//! tool filters write each client's own field.

use crate::env::{TestEnv, fixture, jsonc};

const VSCODE: &str = crate::env::VSCODE;
const CODEX: &str = ".codex/config.toml";
const WINDSURF: &str = ".codeium/windsurf/mcp_config.json";
const CURSOR: &str = ".cursor/mcp.json";
const GEMINI: &str = ".gemini/settings.json";
const CLAUDE: &str = ".claude.json";

/// `disable NAME -c ID` then `enable NAME -c ID` leaves `rel` byte-identical; returns the
/// text while disabled.
fn round_trip(env: &TestEnv, rel: &str, name: &str, client: &str) -> String {
    let original = env.read(rel);
    let run = env.run(&["--json", "disable", name, "-c", client]).ok();
    assert_eq!(run.json()[0]["action"], "disabled", "{}", run.stdout);
    let disabled = env.read_str(rel);
    assert_ne!(disabled.as_bytes(), original, "disable changed nothing");
    let run = env.run(&["--json", "enable", name, "-c", client]).ok();
    assert_eq!(run.json()[0]["action"], "enabled", "{}", run.stdout);
    assert_eq!(
        env.read_str(rel),
        String::from_utf8(original).unwrap(),
        "enable did not restore the bytes"
    );
    disabled
}

fn list_row(env: &TestEnv, client: &str, name: &str) -> serde_json::Value {
    let run = env.run(&["--json", "list", name, "-c", client]).ok();
    run.json()
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("`{name}` not listed: {}", run.stdout))
}

#[test]
fn park_round_trip_in_jsonc_with_comments_and_tabs() {
    let env = TestEnv::new();
    env.write(VSCODE, &fixture("vscode/mcp.json"));
    let disabled = round_trip(&env, VSCODE, "github", "vscode");
    assert!(!disabled.contains("\"github\""), "{disabled}");
    assert!(disabled.contains("// local playwright"), "{disabled}");
}

#[test]
fn parked_entry_is_listed_from_the_state_directory() {
    let env = TestEnv::new();
    env.write(VSCODE, &fixture("vscode/mcp.json"));
    env.run(&["disable", "github", "-c", "vscode"]).ok();
    let row = list_row(&env, "vscode", "github");
    assert_eq!(row["parked"], true);
    assert_eq!(row["disabled"], true);
    assert_eq!(row["url"], "https://api.githubcopilot.com/mcp/");
    assert!(
        row["path"]
            .as_str()
            .unwrap()
            .ends_with(&crate::env::os_path("Code/User/mcp.json"))
    );
    let text = env.run(&["list", "-c", "vscode"]).ok().stdout;
    assert!(text.contains("github (parked)"), "{text}");
    // The other server is untouched and on.
    assert_eq!(list_row(&env, "vscode", "playwright")["disabled"], false);
}

#[test]
fn park_round_trip_keeps_crlf_and_bom() {
    let env = TestEnv::new();
    let text = String::from_utf8(fixture("cursor/mcp.json"))
        .unwrap()
        .replace('\n', "\r\n");
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(text.as_bytes());
    env.write(CURSOR, &bytes);
    for name in ["postgres", "linear"] {
        let disabled = round_trip(&env, CURSOR, name, "cursor");
        assert!(!disabled.replace("\r\n", "").contains('\n'), "{disabled:?}");
    }
}

#[test]
fn parked_entry_comes_back_where_it_was_after_other_edits() {
    let env = TestEnv::new();
    env.write(CURSOR, &fixture("cursor/mcp.json"));
    env.run(&["disable", "postgres", "-c", "cursor"]).ok();
    // Another server added meanwhile (after `linear`), then removed again.
    env.run(&["add", "extra", "-c", "cursor", "--", "node", "x.js"])
        .ok();
    let run = env
        .run(&["--json", "enable", "postgres", "-c", "cursor"])
        .ok();
    assert_eq!(run.json()[0]["action"], "enabled");
    assert_eq!(
        run.json()[0]["note"],
        serde_json::Value::Null,
        "{}",
        run.stdout
    );
    env.run(&["remove", "extra", "-c", "cursor"]).ok();
    assert_eq!(env.read(CURSOR), fixture("cursor/mcp.json"));
}

#[test]
fn recreated_parked_entry_is_a_conflict() {
    let env = TestEnv::new();
    env.write(CURSOR, &fixture("cursor/mcp.json"));
    env.run(&["disable", "postgres", "-c", "cursor"]).ok();
    env.run(&["add", "postgres", "-c", "cursor", "--", "node", "mine.js"])
        .ok();
    let before = env.read(CURSOR);
    let run = env.run(&["enable", "postgres", "-c", "cursor"]).code(2);
    assert!(run.stdout.contains("re-created"), "{}", run.stdout);
    assert!(
        run.stdout.contains("mcpctl remove postgres -c cursor"),
        "{}",
        run.stdout
    );
    assert_eq!(env.read(CURSOR), before, "a conflict must not write");
    // Disabling the new one would park a second copy: also refused.
    env.run(&["disable", "postgres", "-c", "cursor"]).code(2);
    assert_eq!(env.read(CURSOR), before);
    // The way out the hint names works and gives the original file back.
    env.run(&["remove", "postgres", "-c", "cursor"]).ok();
    env.run(&["enable", "postgres", "-c", "cursor"]).ok();
    assert_eq!(env.read(CURSOR), fixture("cursor/mcp.json"));
}

#[test]
fn identical_entry_put_back_by_hand_is_not_a_conflict() {
    let env = TestEnv::new();
    env.write(CURSOR, &fixture("cursor/mcp.json"));
    env.run(&["disable", "linear", "-c", "cursor"]).ok();
    env.write(CURSOR, &fixture("cursor/mcp.json"));
    let run = env
        .run(&["--json", "enable", "linear", "-c", "cursor"])
        .ok();
    assert_eq!(run.json()[0]["action"], "unchanged");
    assert!(
        run.json()[0]["note"]
            .as_str()
            .unwrap()
            .contains("already back")
    );
    assert_eq!(env.read(CURSOR), fixture("cursor/mcp.json"));
    assert!(list_row(&env, "cursor", "linear")["parked"] == false);
}

#[test]
fn codex_field_round_trip_in_toml() {
    let env = TestEnv::new();
    env.write(CODEX, &fixture("codex/config.toml"));
    let disabled = round_trip(&env, CODEX, "context7", "codex");
    assert!(
        disabled.contains("startup_timeout_sec = 20.0\nenabled = false\n"),
        "{disabled}"
    );
}

#[test]
fn a_value_the_user_had_is_restored() {
    let env = TestEnv::new();
    // Windsurf's own `"disabled": false`; Codex `enabled = true` with a comment.
    env.write(WINDSURF, &fixture("windsurf/mcp_config.json"));
    let disabled = round_trip(&env, WINDSURF, "sequential-thinking", "windsurf");
    assert!(disabled.contains("\"disabled\": true,"), "{disabled}");
    env.write(
        CODEX,
        b"[mcp_servers.x]\ncommand = \"node\"\nenabled   = true # keep\n\n[other]\na = 1\n",
    );
    let disabled = round_trip(&env, CODEX, "x", "codex");
    assert!(disabled.contains("enabled   = false # keep"), "{disabled}");
    assert_eq!(list_row(&env, "codex", "x")["disabled"], false);
}

#[test]
fn disabled_state_shows_in_list() {
    let env = TestEnv::new();
    env.write(CODEX, &fixture("codex/config.toml"));
    env.run(&["disable", "context7", "-c", "codex"]).ok();
    let row = list_row(&env, "codex", "context7");
    assert_eq!(row["disabled"], true);
    assert_eq!(row["parked"], false);
    // A second disable is a no-op, said.
    let run = env
        .run(&["--json", "disable", "context7", "-c", "codex"])
        .ok();
    assert_eq!(run.json()[0]["action"], "unchanged");
    assert_eq!(run.json()[0]["note"], "already disabled");
}

#[test]
fn claude_code_local_entry_uses_the_per_project_list() {
    let env = TestEnv::new();
    let home = env.home();
    // The key as Claude Code spells it (on Windows with `/`: nothing to escape in JSON).
    let project = crate::env::claude_key(&home.display().to_string());
    let text = format!(
        "{{\n  \"numStartups\": 3,\n  \"projects\": {{\n    \"{project}\": {{\n      \"allowedTools\": [],\n      \"mcpServers\": {{\n        \"loc\": {{\n          \"type\": \"stdio\",\n          \"command\": \"node\",\n          \"args\": []\n        }}\n      }},\n      \"hasTrustDialogAccepted\": true\n    }}\n  }},\n  \"mcpServers\": {{\n    \"usr\": {{\n      \"type\": \"http\",\n      \"url\": \"https://example.com/mcp\"\n    }}\n  }}\n}}"
    );
    env.write(CLAUDE, text.as_bytes());
    let disabled = round_trip(&env, CLAUDE, "loc", "claude-code");
    let value = jsonc(disabled.as_bytes());
    assert_eq!(
        value["projects"][&project]["disabledMcpServers"],
        serde_json::json!(["loc"])
    );
    assert!(value["projects"][&project]["mcpServers"]["loc"].is_object());
    // A user-scope entry has no user-level switch: parked.
    let run = env
        .run(&["--json", "disable", "usr", "-c", "claude-code"])
        .ok();
    assert_eq!(run.json()[0]["method"], "park");
    assert!(jsonc(&env.read(CLAUDE))["mcpServers"].get("usr").is_none());
    env.run(&["enable", "usr", "-c", "claude-code"]).ok();
    assert_eq!(env.read_str(CLAUDE), text);
}

#[test]
fn claude_code_project_entry_is_listed_in_the_user_file() {
    let env = TestEnv::new();
    let project = env.path("app");
    std::fs::create_dir_all(&project).unwrap();
    env.write(
        "app/.mcp.json",
        b"{\n  \"mcpServers\": {\n    \"team\": {\n      \"command\": \"node\"\n    }\n  }\n}\n",
    );
    env.write(CLAUDE, &fixture("claude-code/claude.json"));
    let p = project.display().to_string();
    let run = env
        .run(&[
            "--json",
            "--project",
            &p,
            "disable",
            "team",
            "-c",
            "claude-code",
        ])
        .ok();
    assert_eq!(run.json()[0]["method"], "list");
    let value = jsonc(&env.read(CLAUDE));
    assert_eq!(
        value["projects"][crate::env::claude_key(&p)]["disabledMcpServers"],
        serde_json::json!(["team"])
    );
    assert_eq!(
        list_row_at(&env, &p, "claude-code", "team")["disabled"],
        true
    );
    env.run(&["--project", &p, "enable", "team", "-c", "claude-code"])
        .ok();
    // The project record mcpctl had to create goes too.
    assert_eq!(env.read(CLAUDE), fixture("claude-code/claude.json"));
}

fn list_row_at(env: &TestEnv, project: &str, client: &str, name: &str) -> serde_json::Value {
    let run = env
        .run(&["--json", "--project", project, "list", name, "-c", client])
        .ok();
    run.json()[0].clone()
}

#[test]
fn gemini_uses_its_enablement_file_and_leaves_settings_alone() {
    let env = TestEnv::new();
    env.write(GEMINI, &fixture("gemini-cli/settings.json"));
    let run = env
        .run(&["--json", "disable", "time", "-c", "gemini-cli"])
        .ok();
    assert_eq!(run.json()[0]["method"], "enablement");
    assert_eq!(env.read(GEMINI), fixture("gemini-cli/settings.json"));
    let state = jsonc(&env.read(".gemini/mcp-server-enablement.json"));
    assert_eq!(state, serde_json::json!({"time": {"enabled": false}}));
    assert_eq!(list_row(&env, "gemini-cli", "time")["disabled"], true);
    env.run(&["enable", "time", "-c", "gemini-cli"]).ok();
    assert_eq!(list_row(&env, "gemini-cli", "time")["disabled"], false);
    // mcpctl created the file: empty again, it goes (issue 38 item 7).
    assert!(!env.path(".gemini/mcp-server-enablement.json").exists());
}

/// Issue 38 item 7 and issue 39 G9: disable then enable left files mcpctl had created for
/// a switch behind, empty (`{}` in Gemini CLI's enablement file and Copilot CLI's
/// `settings.json`, a 0-byte `~/.rovodev/config.yml`). Such a file goes when it is empty
/// again, however many servers were switched through it; a file the user had stays.
#[test]
fn switch_files_mcpctl_created_go_when_empty_again() {
    let env = TestEnv::new();
    env.write(GEMINI, &fixture("gemini-cli/settings.json"));
    let enablement = ".gemini/mcp-server-enablement.json";
    let names = ["time", "fs"];
    let mut settings: serde_json::Value = jsonc(&env.read(GEMINI));
    settings["mcpServers"]["fs"] = serde_json::json!({"command": "fs-mcp"});
    env.write(
        GEMINI,
        serde_json::to_string_pretty(&settings).unwrap().as_bytes(),
    );
    for name in names {
        env.run(&["disable", name, "-c", "gemini-cli"]).ok();
    }
    for name in names {
        assert!(env.path(enablement).exists(), "gone before {name}");
        env.run(&["enable", name, "-c", "gemini-cli"]).ok();
    }
    assert!(!env.path(enablement).exists());
    // The user's own empty file stays, byte for byte.
    env.write(enablement, b"{}\n");
    env.run(&["disable", "time", "-c", "gemini-cli"]).ok();
    env.run(&["enable", "time", "-c", "gemini-cli"]).ok();
    assert_eq!(env.read(enablement), b"{}\n");

    for (client, servers, switch) in [
        (
            "copilot-cli",
            ".copilot/mcp-config.json",
            ".copilot/settings.json",
        ),
        ("rovo-dev", ".rovodev/mcp.json", ".rovodev/config.yml"),
    ] {
        env.write(
            servers,
            br#"{ "mcpServers": { "gh": { "type": "local", "command": "gh-mcp", "tools": ["*"] } } }"#,
        );
        env.run(&["disable", "gh", "-c", client]).ok();
        assert!(env.path(switch).exists(), "{client}");
        assert_eq!(list_row(&env, client, "gh")["disabled"], true, "{client}");
        env.run(&["enable", "gh", "-c", client]).ok();
        assert_eq!(list_row(&env, client, "gh")["disabled"], false, "{client}");
        assert!(
            !env.path(switch).exists(),
            "{client}: {}",
            env.read_str(switch)
        );
    }
}

#[test]
fn unknown_name_suggests_and_exits_2() {
    let env = TestEnv::new();
    env.write(CURSOR, &fixture("cursor/mcp.json"));
    let run = env.run(&["disable", "postgress", "-c", "cursor"]).code(2);
    assert!(
        run.stderr.contains("did you mean `postgres`"),
        "{}",
        run.stderr
    );
    assert_eq!(env.read(CURSOR), fixture("cursor/mcp.json"));
}

#[test]
fn enabling_what_was_never_disabled_is_a_said_no_op() {
    let env = TestEnv::new();
    env.write(CURSOR, &fixture("cursor/mcp.json"));
    env.write(CODEX, &fixture("codex/config.toml"));
    for (client, name) in [("cursor", "postgres"), ("codex", "context7")] {
        let run = env.run(&["--json", "enable", name, "-c", client]).ok();
        assert_eq!(run.json()[0]["action"], "unchanged", "{}", run.stdout);
        assert_eq!(run.json()[0]["note"], "not disabled");
    }
    assert_eq!(env.read(CURSOR), fixture("cursor/mcp.json"));
    assert_eq!(env.read(CODEX), fixture("codex/config.toml"));
}

#[test]
fn a_client_without_the_server_is_reported() {
    let env = TestEnv::new();
    env.write(CURSOR, &fixture("cursor/mcp.json"));
    env.write(CODEX, &fixture("codex/config.toml"));
    let run = env
        .run(&["--json", "disable", "postgres", "-c", "cursor,codex"])
        .ok();
    assert_eq!(run.json()[0]["action"], "disabled");
    assert_eq!(run.json()[1]["client"], "codex");
    assert_eq!(run.json()[1]["action"], "missing");
    let text = env.run(&["enable", "postgres", "-c", "cursor,codex"]).ok();
    assert!(
        text.stdout.contains("no server named `postgres`"),
        "{}",
        text.stdout
    );
}

#[test]
fn dry_run_writes_nothing_and_shows_the_diff() {
    let env = TestEnv::new();
    env.write(CURSOR, &fixture("cursor/mcp.json"));
    let run = env
        .run(&["disable", "linear", "-c", "cursor", "--dry-run"])
        .ok();
    assert!(
        run.stdout.contains("-        \"linear\": {"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("would disable"), "{}", run.stdout);
    assert_eq!(env.read(CURSOR), fixture("cursor/mcp.json"));
    assert_eq!(list_row(&env, "cursor", "linear")["parked"], false);
}

#[test]
fn undo_takes_back_a_park_with_its_record() {
    let env = TestEnv::new();
    env.write(CURSOR, &fixture("cursor/mcp.json"));
    env.run(&["disable", "postgres", "-c", "cursor"]).ok();
    env.run(&["undo"]).ok();
    assert_eq!(env.read(CURSOR), fixture("cursor/mcp.json"));
    let row = list_row(&env, "cursor", "postgres");
    assert_eq!(row["parked"], false, "the parked record must go with undo");
}

#[test]
fn deny_tools_round_trip_per_dialect() {
    let env = TestEnv::new();
    env.write(CODEX, &fixture("codex/config.toml"));
    env.write(WINDSURF, &fixture("windsurf/mcp_config.json"));
    env.write(GEMINI, &fixture("gemini-cli/settings.json"));
    for (client, rel, name, field) in [
        (
            "codex",
            CODEX,
            "context7",
            "disabled_tools = [\"delete_repo\", \"merge\"]",
        ),
        (
            "windsurf",
            WINDSURF,
            "sequential-thinking",
            // `[]` was on one line: the list stays on one line.
            "\"disabledTools\": [\"delete_repo\", \"merge\"]",
        ),
        (
            "gemini-cli",
            GEMINI,
            "time",
            "\"excludeTools\": [\n        \"delete_repo\",\n        \"merge\"\n      ]",
        ),
    ] {
        let original = env.read(rel);
        let run = env
            .run(&[
                "--json",
                "disable",
                name,
                "-c",
                client,
                "--deny-tools",
                "delete_repo,merge",
            ])
            .ok();
        assert_eq!(run.json()[0]["action"], "filtered", "{}", run.stdout);
        assert_eq!(
            run.json()[0]["deny"],
            serde_json::json!(["delete_repo", "merge"])
        );
        let text = env.read_str(rel).replace("\r\n", "\n");
        assert!(text.contains(field), "{client}: {text}");
        // The server itself stays on.
        assert_eq!(list_row(&env, client, name)["disabled"], false);
        env.run(&["enable", name, "-c", client, "--deny-tools", "merge"])
            .ok();
        env.run(&["enable", name, "-c", client, "--deny-tools", "delete_repo"])
            .ok();
        assert_eq!(env.read(rel), original, "{client}");
    }
}

#[test]
fn allow_tools_and_all_tools() {
    let env = TestEnv::new();
    env.write(GEMINI, &fixture("gemini-cli/settings.json"));
    env.write(CODEX, &fixture("codex/config.toml"));
    for (client, rel, name, field) in [
        ("gemini-cli", GEMINI, "time", "includeTools"),
        ("codex", CODEX, "context7", "enabled_tools"),
    ] {
        let original = env.read(rel);
        env.run(&[
            "enable",
            name,
            "-c",
            client,
            "--allow-tools",
            "get_time,convert",
        ])
        .ok();
        assert!(env.read_str(rel).contains(field), "{client}");
        env.run(&["disable", name, "-c", client, "--deny-tools", "x"])
            .ok();
        let run = env
            .run(&["--json", "enable", name, "-c", client, "--all-tools"])
            .ok();
        assert_eq!(run.json()[0]["action"], "filtered");
        assert_eq!(env.read(rel), original, "{client}");
    }
}

#[test]
fn clients_without_a_filter_field_say_so_and_change_nothing() {
    let env = TestEnv::new();
    env.write(CURSOR, &fixture("cursor/mcp.json"));
    env.write(WINDSURF, &fixture("windsurf/mcp_config.json"));
    let run = env
        .run(&[
            "--json",
            "disable",
            "postgres",
            "-c",
            "cursor",
            "--deny-tools",
            "query",
        ])
        .code(2);
    assert_eq!(run.json()[0]["action"], "unsupported");
    assert!(
        run.json()[0]["note"]
            .as_str()
            .unwrap()
            .contains("no per-server tool filter")
    );
    assert_eq!(env.read(CURSOR), fixture("cursor/mcp.json"));
    // Windsurf has a deny-list but no allow-list.
    let run = env
        .run(&[
            "--json",
            "enable",
            "sequential-thinking",
            "-c",
            "windsurf",
            "--allow-tools",
            "a",
        ])
        .code(2);
    assert_eq!(run.json()[0]["action"], "unsupported");
    assert_eq!(env.read(WINDSURF), fixture("windsurf/mcp_config.json"));
}

#[test]
fn copilot_allow_list_only() {
    let env = TestEnv::new();
    let rel = ".copilot/mcp-config.json";
    let original = b"{\n  \"mcpServers\": {\n    \"gh\": {\n      \"type\": \"local\",\n      \"command\": \"gh-mcp\",\n      \"tools\": [\"*\"]\n    }\n  }\n}\n";
    env.write(rel, original);
    // Every tool allowed: there is nothing to take one out of.
    let run = env
        .run(&["disable", "gh", "-c", "copilot-cli", "--deny-tools", "x"])
        .code(2);
    assert!(run.stdout.contains("allows every tool"), "{}", run.stdout);
    assert_eq!(env.read(rel), original);
    env.run(&["enable", "gh", "-c", "copilot-cli", "--allow-tools", "a,b"])
        .ok();
    assert_eq!(
        jsonc(&env.read(rel))["mcpServers"]["gh"]["tools"],
        serde_json::json!(["a", "b"])
    );
    env.run(&["disable", "gh", "-c", "copilot-cli", "--deny-tools", "b"])
        .ok();
    assert_eq!(
        jsonc(&env.read(rel))["mcpServers"]["gh"]["tools"],
        serde_json::json!(["a"])
    );
}

#[test]
fn doctor_skips_switched_off_and_parked_entries_and_says_why() {
    let env = TestEnv::new();
    env.write(CURSOR, &fixture("cursor/mcp.json"));
    env.write(GEMINI, &fixture("gemini-cli/settings.json"));
    env.run(&["disable", "postgres", "-c", "cursor"]).ok();
    env.run(&["disable", "time", "-c", "gemini-cli"]).ok();
    for (client, name, why) in [
        ("cursor", "postgres", "parked by `mcpctl disable`"),
        ("gemini-cli", "time", "disabled"),
    ] {
        // Asking for it by name finds it (a parked entry is in no file). Gemini's fixture
        // starts with a BOM, which Gemini CLI refuses: doctor reports that file too
        // (issue 21: whole-file findings are no longer dropped), so exit 1 there.
        let run = env
            .run(&["--json", "doctor", name, "-c", client, "--no-spawn"])
            .code(i32::from(client == "gemini-cli"));
        let result = &run.json()["results"][0];
        assert_eq!(result["status"], "skipped", "{}", run.stdout);
        let said = result["checks"].to_string();
        assert!(said.contains(why), "{client}: {said}");
    }
}

#[test]
fn a_list_the_user_wrote_on_one_line_comes_back_as_written() {
    let env = TestEnv::new();
    let original = b"{\n  \"mcpServers\": {\n    \"gh\": {\"command\": \"gh-mcp\", \"disabledTools\": [\"push\"]}\n  }\n}\n";
    env.write(WINDSURF, original);
    env.run(&["disable", "gh", "-c", "windsurf", "--deny-tools", "merge"])
        .ok();
    assert!(
        env.read_str(WINDSURF)
            .contains("\"disabledTools\": [\"push\", \"merge\"]}"),
        "{}",
        env.read_str(WINDSURF)
    );
    env.run(&["enable", "gh", "-c", "windsurf", "--deny-tools", "merge"])
        .ok();
    assert_eq!(env.read(WINDSURF), original);
}

/// Issue 39 F5: `list` shows a parked entry, so `remove` removes it (its parked bytes),
/// named or not by client, and `undo` brings it back parked.
#[test]
fn remove_of_a_parked_entry_drops_it_and_undo_brings_it_back() {
    let env = TestEnv::new();
    env.write(VSCODE, &fixture("vscode/mcp.json"));
    env.run(&["disable", "github", "-c", "vscode"]).ok();
    let file = env.read(VSCODE);
    let listed = |env: &TestEnv| {
        env.run(&["list", "--json", "-c", "vscode"])
            .ok()
            .json()
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "github")
    };
    for args in [
        &["remove", "github"][..],
        &["remove", "github", "-c", "vscode"],
    ] {
        let run = env.run(args).ok();
        assert!(run.stderr.contains("was parked"), "{}", run.stderr);
        assert!(!listed(&env), "{args:?}");
        assert_eq!(env.read(VSCODE), file, "the file is not written");
        env.run(&["undo"]).ok();
        assert!(listed(&env));
        assert_eq!(list_row(&env, "vscode", "github")["parked"], true);
    }
    // And it still comes back on `enable`.
    env.run(&["enable", "github", "-c", "vscode"]).ok();
    assert_eq!(env.read(VSCODE), fixture("vscode/mcp.json"));
}
