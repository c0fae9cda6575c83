//! Issue 43: `disable NAME --here` / `enable NAME --here` write each client's own
//! project-level switch in the project, the user's entry untouched; `list --here` says
//! what each client loads in this project and which file decides it. The `#[ignore]`d
//! tests run the clients' own CLIs in the project and elsewhere.

use serde_json::Value;

use crate::env::{TestEnv, claude_key, os_path};

/// The user's servers in Claude Code, Gemini CLI, Codex and OpenCode, as people leave
/// them: comments, CRLF, other settings.
fn user_files(env: &TestEnv) {
    env.write(
        ".claude.json",
        b"{\n  \"numStartups\": 12,\n  \"mcpServers\": {\n    \"slack\": { \"command\": \"slack-mcp\" },\n    \"pg\": { \"command\": \"pg-mcp\" }\n  },\n  \"projects\": {}\n}\n",
    );
    env.write(
        ".gemini/settings.json",
        b"{\r\n  // mine\r\n  \"theme\": \"dark\",\r\n  \"mcpServers\": {\r\n    \"slack\": { \"command\": \"slack-mcp\" },\r\n    \"pg\": { \"command\": \"pg-mcp\" }\r\n  }\r\n}\r\n",
    );
    env.write(
        ".codex/config.toml",
        b"# my codex\nmodel = \"o5\"\n\n[mcp_servers.slack]\ncommand = \"slack-mcp\" # the bot\n\n[mcp_servers.pg]\ncommand = \"pg-mcp\"\n",
    );
    env.write(
        ".config/opencode/opencode.json",
        b"{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"mcp\": {\n    \"slack\": { \"type\": \"local\", \"command\": [\"slack-mcp\"] },\n    \"pg\": { \"type\": \"local\", \"command\": [\"pg-mcp\"] }\n  }\n}\n",
    );
}

/// The project's own files, already there with other settings.
fn project_files(env: &TestEnv) {
    env.write("app/.git/HEAD", b"ref: refs/heads/main\n");
    env.write(
        "app/.gemini/settings.json",
        b"{\r\n  // the team's\r\n  \"contextFileName\": \"AGENTS.md\"\r\n}\r\n",
    );
    env.write(
        "app/.codex/config.toml",
        b"# team settings\nmodel_reasoning_effort = \"high\"\n",
    );
    env.write(
        "app/opencode.jsonc",
        b"{\n  // team\n  \"mcp\": {\n    \"docs\": { \"type\": \"remote\", \"url\": \"https://docs.example/mcp\" }\n  }\n}\n",
    );
}

const FILES: [&str; 7] = [
    ".claude.json",
    ".gemini/settings.json",
    ".codex/config.toml",
    ".config/opencode/opencode.json",
    "app/.gemini/settings.json",
    "app/.codex/config.toml",
    "app/opencode.jsonc",
];

fn snapshot(env: &TestEnv) -> Vec<Vec<u8>> {
    FILES.iter().map(|f| env.read(f)).collect()
}

fn rows(run: &crate::env::Run) -> Vec<Value> {
    run.json().as_array().unwrap().clone()
}

fn row<'a>(rows: &'a [Value], client: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["client"] == client)
        .unwrap_or_else(|| panic!("no {client} in {rows:#?}"))
}

#[test]
fn disable_here_writes_each_clients_project_switch_in_place_and_undo_restores_bytes() {
    let env = TestEnv::new();
    user_files(&env);
    project_files(&env);
    let before = snapshot(&env);
    let targets = "claude-code,gemini-cli,codex,opencode";
    // From a folder inside the repository: `--here` is the repository root.
    let run = env
        .run_in(
            "app/src",
            &["--json", "disable", "slack", "--here", "-c", targets],
        )
        .ok();
    let rows = rows(&run);
    for client in ["claude-code", "gemini-cli", "codex", "opencode"] {
        assert_eq!(row(&rows, client)["action"], "disabled", "{rows:#?}");
    }
    // The user's own files: only Claude Code's, where its per-project list lives.
    for (i, file) in FILES.iter().enumerate().skip(1).take(3) {
        assert_eq!(env.read(file), before[i], "{file} changed");
    }
    let project = env.path("app").display().to_string();
    let claude: Value = serde_json::from_slice(&env.read(".claude.json")).unwrap();
    assert_eq!(
        claude["projects"][claude_key(&project)]["disabledMcpServers"],
        serde_json::json!(["slack"]),
        "{claude:#}"
    );
    assert_eq!(claude["mcpServers"]["slack"]["command"], "slack-mcp");
    assert_eq!(
        env.read_str("app/.gemini/settings.json"),
        "{\r\n  // the team's\r\n  \"contextFileName\": \"AGENTS.md\",\r\n  \"mcp\": {\r\n    \"excluded\": [\r\n      \"slack\"\r\n    ]\r\n  }\r\n}\r\n"
    );
    assert_eq!(
        env.read_str("app/.codex/config.toml"),
        "# team settings\nmodel_reasoning_effort = \"high\"\n\n[mcp_servers.slack]\nenabled = false\n"
    );
    assert_eq!(
        env.read_str("app/opencode.jsonc"),
        "{\n  // team\n  \"mcp\": {\n    \"docs\": { \"type\": \"remote\", \"url\": \"https://docs.example/mcp\" },\n    \"slack\": {\n      \"enabled\": false\n    }\n  }\n}\n"
    );
    // Twice is a said no-op.
    let again = env.run_in(
        "app",
        &["--json", "disable", "slack", "--here", "-c", targets],
    );
    for r in rows_of(&again) {
        assert_eq!(r["action"], "unchanged", "{r:#}");
    }
    // One undo takes the whole command back, byte for byte (the second disable changed
    // nothing, so the undo is of the first).
    env.run_in("app", &["undo"]).ok();
    assert_eq!(snapshot(&env), before);
}

fn rows_of(run: &crate::env::Run) -> Vec<Value> {
    rows(run)
}

#[test]
fn enable_here_takes_back_what_disable_here_wrote_byte_for_byte() {
    let env = TestEnv::new();
    user_files(&env);
    project_files(&env);
    let before = snapshot(&env);
    let targets = "claude-code,gemini-cli,codex,opencode";
    env.run_in("app", &["disable", "slack", "--here", "-c", targets])
        .ok();
    let run = env
        .run_in(
            "app",
            &["--json", "enable", "slack", "--here", "-c", targets],
        )
        .ok();
    for r in rows(&run) {
        assert_eq!(r["action"], "enabled", "{r:#}");
    }
    let after = snapshot(&env);
    for (i, file) in FILES.iter().enumerate().skip(1) {
        assert_eq!(
            String::from_utf8_lossy(&after[i]),
            String::from_utf8_lossy(&before[i]),
            "{file}"
        );
    }
    // Claude Code's project entry mcpctl created goes again.
    let claude: Value = serde_json::from_slice(&env.read(".claude.json")).unwrap();
    let project = env.path("app").display().to_string();
    assert!(
        claude["projects"][claude_key(&project)]
            .get("disabledMcpServers")
            .is_none(),
        "{claude:#}"
    );
}

#[test]
fn files_mcpctl_created_for_here_go_when_enabled_again() {
    let env = TestEnv::new();
    user_files(&env);
    env.write("app/.git/HEAD", b"ref: refs/heads/main\n");
    env.run_in(
        "app",
        &[
            "disable",
            "slack",
            "--here",
            "-c",
            "gemini-cli,codex,opencode",
        ],
    )
    .ok();
    for file in [
        ".gemini/settings.json",
        ".codex/config.toml",
        "opencode.json",
    ] {
        assert!(env.path(&format!("app/{file}")).is_file(), "{file}");
    }
    env.run_in(
        "app",
        &[
            "enable",
            "slack",
            "--here",
            "-c",
            "gemini-cli,codex,opencode",
        ],
    )
    .ok();
    for file in [
        ".gemini/settings.json",
        ".codex/config.toml",
        "opencode.json",
    ] {
        assert!(!env.path(&format!("app/{file}")).exists(), "{file} left");
    }
}

#[test]
fn a_client_without_a_project_switch_is_said_and_nothing_is_parked() {
    let env = TestEnv::new();
    let cursor = b"{\n  \"mcpServers\": {\n    \"slack\": { \"command\": \"slack-mcp\" }\n  }\n}\n";
    env.write(".cursor/mcp.json", cursor);
    env.write("app/.git/HEAD", b"ref: refs/heads/main\n");
    let run = env
        .run_in(
            "app",
            &["--json", "disable", "slack", "--here", "-c", "cursor"],
        )
        .code(2);
    let rows = rows(&run);
    let r = row(&rows, "cursor");
    assert_eq!(r["action"], "unsupported", "{r:#}");
    assert!(
        r["note"]
            .as_str()
            .unwrap()
            .contains("Cursor has no project-level switch"),
        "{r:#}"
    );
    assert_eq!(env.read(".cursor/mcp.json"), cursor);
    let list = env.run(&["list", "--json", "-c", "cursor"]).ok().json();
    assert_eq!(list[0]["parked"], false, "{list:#}");
    assert_eq!(list[0]["disabled"], false, "{list:#}");
}

#[test]
fn trusted_folder_clients_say_so_with_their_own_trust_step() {
    let env = TestEnv::new();
    user_files(&env);
    env.write("app/.git/HEAD", b"ref: refs/heads/main\n");
    let run = env
        .run_in(
            "app",
            &[
                "--json",
                "disable",
                "slack",
                "--here",
                "-c",
                "gemini-cli,codex",
            ],
        )
        .ok();
    let rows = rows(&run);
    for (client, step) in [("gemini-cli", "gemini"), ("codex", "codex")] {
        let note = row(&rows, client)["note"].as_str().unwrap_or_default();
        assert!(
            note.contains("only in a trusted folder") && note.contains(&format!("run `{step}`")),
            "{client}: {note}"
        );
    }
    // Trusted: nothing to say.
    let project = env.path("app").display().to_string();
    env.write(
        ".gemini/trustedFolders.json",
        serde_json::json!({ project.clone(): "TRUST_FOLDER" })
            .to_string()
            .as_bytes(),
    );
    let run = env
        .run_in(
            "app",
            &["--json", "enable", "slack", "--here", "-c", "gemini-cli"],
        )
        .ok();
    let note = rows_of(&run)[0]["note"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(!note.contains("trusted folder"), "{note}");
}

#[test]
fn enable_here_turns_on_a_user_switched_off_server_only_where_the_client_allows() {
    let env = TestEnv::new();
    env.write("app/.git/HEAD", b"ref: refs/heads/main\n");
    env.write(
        ".config/opencode/opencode.json",
        b"{\n  \"mcp\": {\n    \"pg\": { \"type\": \"local\", \"command\": [\"pg-mcp\"], \"enabled\": false }\n  }\n}\n",
    );
    env.write(
        ".gemini/settings.json",
        b"{\n  \"mcp\": { \"excluded\": [\"pg\"] },\n  \"mcpServers\": { \"pg\": { \"command\": \"pg-mcp\" } }\n}\n",
    );
    let run = env
        .run_in(
            "app",
            &[
                "--json",
                "enable",
                "pg",
                "--here",
                "-c",
                "opencode,gemini-cli",
            ],
        )
        .ok();
    let rows = rows(&run);
    assert_eq!(row(&rows, "opencode")["action"], "enabled", "{rows:#?}");
    assert_eq!(
        env.read_str("app/opencode.json"),
        "{\n  \"mcp\": {\n    \"pg\": {\n      \"enabled\": true\n    }\n  }\n}\n"
    );
    let gemini = row(&rows, "gemini-cli");
    assert_eq!(gemini["action"], "unchanged", "{gemini:#}");
    assert!(
        gemini["note"]
            .as_str()
            .unwrap()
            .contains("a project cannot override"),
        "{gemini:#}"
    );
    assert!(!env.path("app/.gemini/settings.json").exists());
}

#[test]
fn dry_run_shows_the_diff_and_writes_nothing() {
    let env = TestEnv::new();
    user_files(&env);
    project_files(&env);
    let before = snapshot(&env);
    let run = env
        .run_in(
            "app",
            &["disable", "slack", "--here", "-c", "codex", "--dry-run"],
        )
        .ok();
    assert!(
        run.stdout.contains("+[mcp_servers.slack]"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("+enabled = false"), "{}", run.stdout);
    assert!(run.stdout.contains("would disable"), "{}", run.stdout);
    assert_eq!(snapshot(&env), before);
}

#[test]
fn local_is_refused_per_client_without_an_uncommitted_file() {
    let env = TestEnv::new();
    user_files(&env);
    env.write("app/.git/HEAD", b"ref: refs/heads/main\n");
    let run = env
        .run_in(
            "app",
            &[
                "--json",
                "disable",
                "slack",
                "--here",
                "--local",
                "-c",
                "claude-code,gemini-cli",
            ],
        )
        .ok();
    let rows = rows(&run);
    // Claude Code's project entry is in the user's own file: personal already.
    assert_eq!(row(&rows, "claude-code")["action"], "disabled", "{rows:#?}");
    let gemini = row(&rows, "gemini-cli");
    assert_eq!(gemini["action"], "unsupported", "{gemini:#}");
    assert!(!env.path("app/.gemini").exists());
}

#[test]
fn list_here_says_what_each_client_loads_here_and_by_which_file() {
    let env = TestEnv::new();
    user_files(&env);
    project_files(&env);
    env.write(
        "app/.mcp.json",
        b"{\n  \"mcpServers\": { \"team\": { \"command\": \"team-mcp\" } }\n}\n",
    );
    env.run_in(
        "app",
        &["disable", "slack", "--here", "-c", "claude-code,opencode"],
    )
    .ok();
    let list = env
        .run_in(
            "app/src",
            &["list", "--here", "--json", "-c", "claude-code,opencode"],
        )
        .ok()
        .json();
    let here = |client: &str, name: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|r| r["client"] == client && r["name"] == name)
            .unwrap_or_else(|| panic!("{client} {name}: {list:#}"))["here"]
            .clone()
    };
    let slack = here("claude-code", "slack");
    assert_eq!(slack["state"], "off", "{slack:#}");
    assert_eq!(slack["loads"], false);
    assert_eq!(slack["from"], "user");
    assert_eq!(slack["by"], env.path(".claude.json").display().to_string());
    assert_eq!(here("claude-code", "pg")["state"], "on");
    let team = here("claude-code", "team");
    assert_eq!(team["state"], "pending", "{team:#}");
    assert_eq!(team["from"], "project");
    let open = here("opencode", "slack");
    assert_eq!(open["state"], "off", "{open:#}");
    assert_eq!(
        open["by"],
        env.path("app/opencode.jsonc").display().to_string()
    );
    // The override itself is not a server row of its own.
    assert_eq!(
        list.as_array()
            .unwrap()
            .iter()
            .filter(|r| r["client"] == "opencode" && r["name"] == "slack")
            .count(),
        1,
        "{list:#}"
    );
    let human = env
        .run_in("app", &["list", "--here", "-c", "opencode"])
        .ok();
    assert!(human.stdout.contains("HERE"), "{}", human.stdout);
    assert!(
        human
            .stdout
            .contains(&format!("off by ~{}", os_path("/app/opencode.jsonc"))),
        "{}",
        human.stdout
    );
}

/// After `mcpctl disable slack --here`, each client's own `mcp list` run in the project
/// shows it off, and run in another (trusted) folder shows it on.
#[cfg(unix)] // runs the clients under `timeout`
#[test]
#[ignore = "needs .ci/clients.sh"]
fn each_clients_own_list_shows_slack_off_here_and_on_elsewhere() {
    let env = TestEnv::new();
    let fixture = crate::fixture_server::fixture_binary()
        .display()
        .to_string();
    let entry = serde_json::json!({ "mcpServers": { "slack": { "command": fixture } } });
    env.write(".claude.json", entry.to_string().as_bytes());
    env.write(".gemini/settings.json", entry.to_string().as_bytes());
    env.write(
        ".config/opencode/opencode.json",
        serde_json::json!({ "mcp": { "slack": { "type": "local", "command": [fixture] } } })
            .to_string()
            .as_bytes(),
    );
    let app = env.path("app").display().to_string();
    let other = env.path("other").display().to_string();
    env.write(
        ".codex/config.toml",
        format!(
            "[mcp_servers.slack]\ncommand = {fixture:?}\n\n[projects.{app:?}]\ntrust_level = \"trusted\"\n\n[projects.{other:?}]\ntrust_level = \"trusted\"\n"
        )
        .as_bytes(),
    );
    env.write(
        ".gemini/trustedFolders.json",
        serde_json::json!({ app.clone(): "TRUST_FOLDER", other.clone(): "TRUST_FOLDER" })
            .to_string()
            .as_bytes(),
    );
    env.write("app/.git/HEAD", b"ref: refs/heads/main\n");
    env.write("other/.git/HEAD", b"ref: refs/heads/main\n");
    env.run_in(
        "app",
        &[
            "disable",
            "slack",
            "--here",
            "-c",
            "claude-code,gemini-cli,codex,opencode",
        ],
    )
    .ok();
    // Claude Code: `⊘ Disabled for this project`; Gemini CLI: `Blocked`; Codex: the
    // Status column; OpenCode: `disabled`.
    let checks: [(&str, &[&str], &str); 4] = [
        ("claude", &["mcp", "list"], "Disabled for this project"),
        ("gemini", &["mcp", "list"], "Blocked"),
        ("codex", &["mcp", "list"], "disabled"),
        ("opencode", &["mcp", "list"], "disabled"),
    ];
    for (bin, args, off) in checks {
        let here = client_in(&env, "app", bin, args);
        let line = slack_line(&here).unwrap_or_else(|| panic!("{bin} here: {here}"));
        assert!(line.contains(off), "{bin} in the project: {line}\n{here}");
        let elsewhere = client_in(&env, "other", bin, args);
        let line = slack_line(&elsewhere).unwrap_or_else(|| panic!("{bin}: {elsewhere}"));
        assert!(!line.contains(off), "{bin} elsewhere: {line}\n{elsewhere}");
    }
}

/// Qwen Code's own `mcp list` cannot confirm its project switch: 0.24.4 lists every
/// configured server and never reads `mcp.excluded` (`listMcpServers` in its bundle). Its
/// session does read it (`loadCliConfig` passes `settings.mcp.excluded` to `Config`, and
/// discovery skips `isMcpServerDisabled` servers), so the cross-check runs Qwen itself:
/// a headless prompt against a model endpoint that refuses connections starts the MCP
/// servers first, and the fixture server logs each start. After `mcpctl disable slack
/// --here`, Qwen starts `pg` but not `slack` in the project, and both elsewhere.
#[cfg(unix)] // runs the client under `timeout`
#[test]
#[ignore = "needs .ci/clients.sh"]
fn qwen_starts_no_server_switched_off_here_and_starts_it_elsewhere() {
    let env = TestEnv::new();
    let fixture = crate::fixture_server::fixture_binary()
        .display()
        .to_string();
    let log = |name: &str| env.path(&format!("{name}.log"));
    let entry =
        |name: &str| serde_json::json!({ "command": fixture, "env": { "FIXTURE_LOG": log(name) } });
    env.write(
        ".qwen/settings.json",
        serde_json::json!({ "mcpServers": { "slack": entry("slack"), "pg": entry("pg") } })
            .to_string()
            .as_bytes(),
    );
    env.write("app/.git/HEAD", b"ref: refs/heads/main\n");
    env.write("other/.git/HEAD", b"ref: refs/heads/main\n");
    env.run_in("app", &["disable", "slack", "--here", "-c", "qwen-code"])
        .ok();
    let base = refusing_model();
    let qwen = [
        "hi",
        "--auth-type",
        "openai",
        "--openai-api-key",
        "unused",
        "--openai-base-url",
        base.as_str(),
        "-m",
        "unused",
    ];
    let starts = |name: &str| {
        std::fs::read_to_string(log(name))
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("start "))
            .count()
    };
    let here = client_in(&env, "app", "qwen", &qwen);
    assert_eq!(starts("pg"), 1, "qwen in the project:\n{here}");
    assert_eq!(starts("slack"), 0, "qwen in the project:\n{here}");
    let elsewhere = client_in(&env, "other", "qwen", &qwen);
    assert_eq!(starts("pg"), 2, "qwen elsewhere:\n{elsewhere}");
    assert_eq!(starts("slack"), 1, "qwen elsewhere:\n{elsewhere}");
}

/// An OpenAI-style model endpoint on loopback that refuses every key (401): a client's
/// headless prompt fails at once (a refused connection would be retried for minutes),
/// after its MCP servers started. Its base URL.
#[cfg(unix)]
fn refusing_model() -> String {
    let model = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", model.local_addr().unwrap());
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for mut stream in model.incoming().flatten() {
            let mut request = [0u8; 65536];
            let _ = stream.read(&mut request);
            let _ = stream.write_all(
                b"HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: 40\r\nConnection: close\r\n\r\n{\"error\":{\"message\":\"invalid api key\"}}\n",
            );
        }
    });
    base
}

/// The line of a client's list that names slack.
#[cfg(unix)]
fn slack_line(text: &str) -> Option<String> {
    text.lines()
        .find(|l| l.contains("slack"))
        .map(str::to_owned)
}

/// A client's own CLI run in the folder `rel` under HOME: its stdout and stderr, colour
/// codes taken out.
#[cfg(unix)]
fn client_in(env: &TestEnv, rel: &str, bin: &str, args: &[&str]) -> String {
    let path = crate::client_cli::installed(bin, bin);
    let mut cmd = env.client_command(std::path::Path::new("timeout"));
    cmd.args(["-k", "5", "90"])
        .arg(&path)
        .args(args)
        .current_dir(env.path(rel));
    let out = crate::client_cli::quiet(&mut cmd).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut clean = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            clean.push(c);
        }
    }
    clean
}

/// At HOME, Codex's and Gemini CLI's project files are their user files: a project switch
/// there would switch the server off everywhere, so it is refused, naming the way out.
#[test]
fn here_at_home_refuses_where_the_project_file_is_the_user_file() {
    let env = TestEnv::new();
    user_files(&env);
    let before = snapshot_user(&env);
    let run = env
        .run(&[
            "--json",
            "disable",
            "slack",
            "--here",
            "-c",
            "codex,gemini-cli",
        ])
        .code(2);
    for r in rows(&run) {
        assert_eq!(r["action"], "failed", "{r:#}");
        assert!(
            r["error"].as_str().unwrap().contains("is its user file"),
            "{r:#}"
        );
    }
    assert_eq!(snapshot_user(&env), before);
}

fn snapshot_user(env: &TestEnv) -> Vec<Vec<u8>> {
    FILES.iter().take(4).map(|f| env.read(f)).collect()
}

/// `enable NAME --here` of a server only in another project's entries (Claude Code's
/// `projects["<other>"].mcpServers`) names `--yes`; with it, the server is added to this
/// project's file, recorded, and `undo` takes it back.
#[test]
fn enable_here_of_a_server_from_another_project_offers_to_add_it_here() {
    let env = TestEnv::new();
    env.write("app/.git/HEAD", b"ref: refs/heads/main\n");
    let old = claude_key(&env.path("old").display().to_string());
    let claude = serde_json::json!({
        "mcpServers": {},
        "projects": { old: { "mcpServers": { "pg": { "type": "stdio", "command": "pg-mcp", "args": ["--ro"] } } } }
    });
    env.write(".claude.json", claude.to_string().as_bytes());
    let asked = env
        .run_in("app", &["--json", "enable", "pg", "--here"])
        .code(2);
    let r = &rows(&asked)[0];
    assert_eq!(r["action"], "missing", "{r:#}");
    assert!(r["note"].as_str().unwrap().contains("--yes"), "{r:#}");
    assert!(!env.path("app/.mcp.json").exists());
    let added = env
        .run_in("app", &["--json", "enable", "pg", "--here", "--yes"])
        .ok();
    assert_eq!(rows(&added)[0]["action"], "added", "{}", added.stdout);
    let mcp: Value = serde_json::from_slice(&env.read("app/.mcp.json")).unwrap();
    assert_eq!(mcp["mcpServers"]["pg"]["command"], "pg-mcp", "{mcp:#}");
    assert_eq!(mcp["mcpServers"]["pg"]["args"], serde_json::json!(["--ro"]));
    let list = env.run_in("app", &["list", "--json", "pg"]).ok().json();
    assert_eq!(list[0]["scope"], "project", "{list:#}");
    env.run_in("app", &["undo"]).ok();
    assert!(!env.path("app/.mcp.json").exists());
}

/// The manifest's `[here]`: `apply` in the project writes each client's project-level
/// switch, `plan --check` is in sync afterwards and reports drift when the switch is taken
/// back by hand; a client without a switch is noted and left alone; `undo` reverts it.
#[test]
fn manifest_here_is_applied_in_the_project_and_plan_check_reports_drift() {
    let env = TestEnv::new();
    user_files(&env);
    project_files(&env);
    env.write(
        ".cursor/mcp.json",
        b"{\n  \"mcpServers\": { \"slack\": { \"command\": \"slack-mcp\" } }\n}\n",
    );
    env.write(
        "app/mcpctl.toml",
        b"clients = [\"claude-code\", \"opencode\", \"cursor\"]\nscope = \"project\"\n\n[here]\noff = [\"slack\"]\n\n[here.client.codex]\noff = [\"pg\"]\n",
    );
    let before = snapshot(&env);
    // Trusted: Claude Code's switch is in ~/.claude.json, outside the project (see
    // `a_project_manifest_here_leaves_files_outside_the_project_alone_until_trusted`).
    let plan = env
        .run_in("app", &["plan", "--check", "--trust-project"])
        .code(1);
    assert!(plan.stdout.contains("v disable   slack"), "{}", plan.stdout);
    assert!(
        plan.stderr.contains("Cursor has no project-level switch"),
        "{}",
        plan.stderr
    );
    let items = env
        .run_in("app", &["plan", "--json", "--trust-project"])
        .json();
    let pg = items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["client"] == "codex")
        .unwrap_or_else(|| panic!("{items:#}"));
    assert_eq!(pg["name"], "pg");
    assert_eq!(pg["action"], "disable");
    env.run_in("app", &["apply", "--trust-project"]).ok();
    env.run_in("app", &["plan", "--check", "--trust-project"])
        .ok();
    assert_eq!(
        env.read_str("app/.codex/config.toml"),
        "# team settings\nmodel_reasoning_effort = \"high\"\n\n[mcp_servers.pg]\nenabled = false\n\n[mcp_servers.slack]\nenabled = false\n",
        "[here.client.codex] targets Codex: its own line and the manifest-wide one"
    );
    let list = env
        .run_in("app", &["list", "--here", "--json", "-c", "claude-code"])
        .json();
    assert_eq!(list[0]["here"]["state"], "off", "{list:#}");
    // Switched back on by hand: drift.
    env.run_in("app", &["enable", "slack", "--here", "-c", "opencode"])
        .ok();
    let drift = env
        .run_in("app", &["plan", "--check", "--trust-project"])
        .code(1);
    assert!(drift.stdout.contains("opencode"), "{}", drift.stdout);
    env.run_in("app", &["undo"]).ok();
    env.run_in("app", &["undo"]).ok();
    let after = snapshot(&env);
    for (i, file) in FILES.iter().enumerate() {
        assert_eq!(
            String::from_utf8_lossy(&after[i]),
            String::from_utf8_lossy(&before[i]),
            "{file}"
        );
    }
}

/// A project's own manifest (it came with the repository) writes only inside the project:
/// its `[here]` leaves Claude Code's switch, which lives in `~/.claude.json`, alone — with a
/// note naming the way to trust it — while switches in project files are written; trusted
/// (`--trust-project`), the same `apply` writes Claude Code's too.
#[test]
fn a_project_manifest_here_leaves_files_outside_the_project_alone_until_trusted() {
    let env = TestEnv::new();
    user_files(&env);
    project_files(&env);
    env.write(
        "app/mcpctl.toml",
        b"clients = [\"claude-code\", \"opencode\"]\nscope = \"project\"\n\n[here]\noff = [\"slack\"]\n",
    );
    let claude = env.read(".claude.json");
    let plan = env.run_in("app", &["plan", "--check"]).code(1);
    assert!(
        plan.stderr
            .contains("Claude Code's switch for this project is in")
            && plan.stderr.contains("--trust-project"),
        "{}",
        plan.stderr
    );
    let apply = env.run_in("app", &["apply"]).ok();
    assert_eq!(env.read(".claude.json"), claude, "{}", apply.stderr);
    let list = env
        .run_in("app", &["list", "--here", "--json", "-c", "opencode"])
        .json();
    assert_eq!(list[0]["here"]["state"], "off", "{list:#}");
    env.run_in("app", &["plan", "--check"]).ok();
    env.run_in("app", &["apply", "--trust-project"]).ok();
    let list = env
        .run_in("app", &["list", "--here", "--json", "-c", "claude-code"])
        .json();
    assert_eq!(list[0]["here"]["state"], "off", "{list:#}");
}

#[test]
fn manifest_here_with_a_name_both_off_and_on_is_an_error_at_its_line() {
    let env = TestEnv::new();
    env.write(
        "app/mcpctl.toml",
        b"scope = \"project\"\n\n[here]\noff = [\"slack\"]\non = [\"slack\"]\n",
    );
    let run = env.run_in("app", &["plan"]).code(2);
    assert!(
        run.stderr.contains("mcpctl.toml:4:") && run.stderr.contains("both `off` and `on`"),
        "{}",
        run.stderr
    );
}

#[test]
fn qwen_code_gets_mcp_excluded_in_its_project_settings_in_place() {
    let env = TestEnv::new();
    env.write(
        ".qwen/settings.json",
        b"{\n  \"mcpServers\": { \"slack\": { \"command\": \"slack-mcp\" } }\n}\n",
    );
    env.write("app/.git/HEAD", b"ref: refs/heads/main\n");
    let team = b"{\r\n  // team\r\n  \"mcp\": { \"excluded\": [\"legacy\"] },\r\n  \"model\": { \"name\": \"qwen3-coder\" }\r\n}\r\n";
    env.write("app/.qwen/settings.json", team);
    let run = env
        .run_in(
            "app",
            &["--json", "disable", "slack", "--here", "-c", "qwen-code"],
        )
        .ok();
    let r = &rows(&run)[0];
    assert_eq!(r["action"], "disabled", "{r:#}");
    assert_eq!(r["note"], Value::Null, "{r:#}");
    assert_eq!(
        env.read_str("app/.qwen/settings.json"),
        "{\r\n  // team\r\n  \"mcp\": { \"excluded\": [\"legacy\", \"slack\"] },\r\n  \"model\": { \"name\": \"qwen3-coder\" }\r\n}\r\n"
    );
    env.run_in("app", &["enable", "slack", "--here", "-c", "qwen-code"])
        .ok();
    assert_eq!(env.read("app/.qwen/settings.json"), team);
}

/// `doctor` in the project does not start a server the project switched off, and says by
/// which file; elsewhere it is checked as before.
#[test]
fn doctor_in_the_project_skips_a_server_switched_off_here() {
    let env = TestEnv::new();
    user_files(&env);
    project_files(&env);
    env.run_in("app", &["disable", "slack", "--here", "-c", "opencode"])
        .ok();
    let doctor = env
        .run_in(
            "app/src",
            &["doctor", "--json", "--no-spawn", "-c", "opencode"],
        )
        .json();
    let slack = doctor["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "slack" && r["scope"] == "user")
        .unwrap_or_else(|| panic!("{doctor:#}"))
        .clone();
    assert_eq!(slack["status"], "skipped", "{slack:#}");
    assert!(
        slack.to_string().contains("switched off for this project"),
        "{slack:#}"
    );
    let elsewhere = env
        .run_in(
            "other",
            &["doctor", "--json", "--no-spawn", "-c", "opencode"],
        )
        .json();
    let slack = elsewhere["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "slack")
        .unwrap_or_else(|| panic!("{elsewhere:#}"));
    assert_ne!(slack["status"], "skipped", "{slack:#}");
}

/// Gemini CLI: off by the project's `mcp.excluded` in a trusted folder; untrusted, the
/// project file is not read, and `list --here` says so.
#[test]
fn list_here_names_gemini_projects_excluded_list_and_its_trust() {
    let env = TestEnv::new();
    user_files(&env);
    project_files(&env);
    env.run_in("app", &["disable", "slack", "--here", "-c", "gemini-cli"])
        .ok();
    let slack = |env: &TestEnv| {
        let list = env
            .run_in("app", &["list", "--here", "--json", "-c", "gemini-cli"])
            .ok()
            .json();
        list.as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "slack")
            .unwrap_or_else(|| panic!("{list:#}"))["here"]
            .clone()
    };
    let untrusted = slack(&env);
    assert!(
        untrusted["why"]
            .as_str()
            .unwrap_or_default()
            .contains("until the folder is trusted"),
        "{untrusted:#}"
    );
    let project = env.path("app").display().to_string();
    env.write(
        ".gemini/trustedFolders.json",
        serde_json::json!({ project: "TRUST_FOLDER" })
            .to_string()
            .as_bytes(),
    );
    let trusted = slack(&env);
    assert_eq!(trusted["state"], "off", "{trusted:#}");
    assert_eq!(
        trusted["by"],
        env.path("app/.gemini/settings.json").display().to_string()
    );
}

/// Pi's adapter keeps per-project overrides in the project Pi layer `.pi/mcp.json` (what
/// its own `/mcp disable` writes): `"disabled": true` for the name, merged beside the
/// project's own servers, the rest of the file untouched; `enable` gives the bytes back.
#[test]
fn pi_gets_a_disabled_override_in_its_project_file() {
    let env = TestEnv::new();
    env.write(
        ".pi/agent/mcp.json",
        b"{\n  \"mcpServers\": { \"slack\": { \"command\": \"slack-mcp\" } }\n}\n",
    );
    env.write("app/.git/HEAD", b"ref: refs/heads/main\n");
    let theirs = b"{\n  \"settings\": { \"directTools\": true },\n  \"mcpServers\": {\n    \"docs\": { \"url\": \"https://docs.example/mcp\" }\n  }\n}\n";
    env.write("app/.pi/mcp.json", theirs);
    env.run_in("app", &["disable", "slack", "--here", "-c", "pi"])
        .ok();
    assert_eq!(
        env.read_str("app/.pi/mcp.json"),
        "{\n  \"settings\": { \"directTools\": true },\n  \"mcpServers\": {\n    \"docs\": { \"url\": \"https://docs.example/mcp\" },\n    \"slack\": {\n      \"disabled\": true\n    }\n  }\n}\n"
    );
    assert!(!env.path("app/.pi/mcp-adapter.json").exists());
    env.run_in("app", &["enable", "slack", "--here", "-c", "pi"])
        .ok();
    assert_eq!(env.read("app/.pi/mcp.json"), theirs);
}

/// Pi (with pi-mcp-adapter, loaded as `pi -e` does) confirms the switch by running: a
/// headless prompt against a model endpoint that refuses the key starts the user's
/// `eager` servers first, and the fixture server logs each start. After `mcpctl disable
/// slack --here -c pi`, Pi starts `pg` but not `slack` in the project, both elsewhere.
#[cfg(unix)] // runs the client under `timeout`
#[test]
#[ignore = "needs .ci/clients.sh"]
fn pi_starts_no_server_switched_off_here_and_starts_it_elsewhere() {
    let env = TestEnv::new();
    let fixture = crate::fixture_server::fixture_binary()
        .display()
        .to_string();
    let log = |name: &str| env.path(&format!("{name}.log"));
    let entry = |name: &str| serde_json::json!({ "command": fixture, "lifecycle": "eager", "env": { "FIXTURE_LOG": log(name) } });
    env.write(
        ".pi/agent/mcp.json",
        serde_json::json!({ "mcpServers": { "slack": entry("slack"), "pg": entry("pg") } })
            .to_string()
            .as_bytes(),
    );
    env.write(
        ".pi/agent/models.json",
        serde_json::json!({ "providers": { "local": {
            "baseUrl": refusing_model(),
            "api": "openai-completions",
            "apiKey": "unused",
            "models": [{ "id": "unused" }]
        } } })
        .to_string()
        .as_bytes(),
    );
    env.write("app/.git/HEAD", b"ref: refs/heads/main\n");
    env.write("other/.git/HEAD", b"ref: refs/heads/main\n");
    env.run_in("app", &["disable", "slack", "--here", "-c", "pi"])
        .ok();
    // `.ci/clients.sh` installs Pi with the Node it needs; its `node` comes first on PATH.
    let pi = crate::client_cli::installed("pi", "pi");
    let bin = pi.parent().unwrap().to_owned();
    let adapter = bin.join("../pi-mcp-adapter/index.ts");
    let adapter = adapter.display().to_string();
    let args = [
        "-e",
        adapter.as_str(),
        "-p",
        "hi",
        "--provider",
        "local",
        "--model",
        "unused",
    ];
    let starts = |name: &str| {
        std::fs::read_to_string(log(name))
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("start "))
            .count()
    };
    let run = |rel: &str| {
        let mut cmd = env.client_command(std::path::Path::new("timeout"));
        let path = std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )))
        .unwrap();
        cmd.args(["-k", "5", "90"])
            .arg(&pi)
            .args(args)
            .env("PATH", path)
            .current_dir(env.path(rel));
        let out = crate::client_cli::quiet(&mut cmd).output().unwrap();
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let here = run("app");
    assert!(starts("pg") >= 1, "pi in the project:\n{here}");
    assert_eq!(starts("slack"), 0, "pi in the project:\n{here}");
    let elsewhere = run("other");
    assert!(starts("slack") >= 1, "pi elsewhere:\n{elsewhere}");
}

/// An exclusive project manifest: the project's override (`"slack": {"enabled": false}`,
/// a switch of the user's server) is not an entry to remove, so `plan --check` is in sync
/// after `apply`.
#[test]
fn an_exclusive_manifest_keeps_the_projects_override_and_is_in_sync() {
    let env = TestEnv::new();
    user_files(&env);
    env.write("app/.git/HEAD", b"ref: refs/heads/main\n");
    env.write(
        "app/mcpctl.toml",
        b"clients = [\"opencode\", \"codex\"]\nscope = \"project\"\nexclusive = true\n\n[servers.docs]\nurl = \"https://docs.example/mcp\"\n\n[here]\noff = [\"slack\"]\n",
    );
    env.run_in("app", &["apply"]).ok();
    let check = env.run_in("app", &["plan", "--check"]);
    assert_eq!(check.code, 0, "{}\n{}", check.stdout, check.stderr);
    let open = crate::env::jsonc(&env.read("app/opencode.json"));
    assert_eq!(open["mcp"]["slack"]["enabled"], false, "{open:#}");
    assert_eq!(open["mcp"]["docs"]["url"], "https://docs.example/mcp");
}

/// Kilo (an OpenCode fork) takes OpenCode's project override in its own project file: after
/// `disable slack --here -c kilo`, `kilo mcp list` in the project says disabled and
/// elsewhere does not; `undo` takes the created file away again.
#[cfg(unix)]
#[test]
#[ignore = "needs .ci/clients.sh"]
fn kilo_takes_the_project_override_in_its_own_file() {
    let env = TestEnv::new();
    let fx = crate::fixture_server::fixture_binary()
        .display()
        .to_string();
    env.write(
        ".config/kilo/kilo.json",
        serde_json::json!({"mcp": {"slack": {"type": "local", "command": [fx]}}})
            .to_string()
            .as_bytes(),
    );
    env.write("app/.git/HEAD", b"ref: refs/heads/main\n");
    let app = env.home().join("app");
    let app_s = app.display().to_string();
    env.run(&[
        "disable",
        "slack",
        "--here",
        "-c",
        "kilo",
        "--project",
        &app_s,
    ])
    .ok();
    let written = env.read_str("app/kilo.jsonc");
    assert!(written.contains("\"enabled\": false"), "{written}");
    env.run(&["undo"]).ok();
    assert!(!app.join("kilo.jsonc").exists());
    // Again, for Kilo itself (its `mcp list` rewrites the project file it reads, so it
    // comes after the undo check).
    env.run(&[
        "disable",
        "slack",
        "--here",
        "-c",
        "kilo",
        "--project",
        &app_s,
    ])
    .ok();
    let list = |dir: &std::path::Path| {
        let path = crate::client_cli::installed("kilo", "kilo");
        let mut cmd = env.client_command(std::path::Path::new("timeout"));
        cmd.args(["-k", "5", "90"])
            .arg(&path)
            .args(["mcp", "list"])
            .current_dir(dir);
        let out = crate::client_cli::quiet(&mut cmd).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let here = list(&app);
    let slack = |text: &str| {
        text.lines()
            .find(|l| l.contains("slack"))
            .unwrap_or_default()
            .to_owned()
    };
    assert!(slack(&here).contains("disabled"), "{here}");
    let elsewhere = list(&env.home());
    assert!(!slack(&elsewhere).contains("disabled"), "{elsewhere}");
}
