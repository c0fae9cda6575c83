//! Integration tests for `mcpctl list`.

use crate::env::{TestEnv, fixture};

#[test]
fn list_json_redacts_secrets_and_unwraps_cmd() {
    let env = TestEnv::new();
    env.write(".codex/config.toml", &fixture("codex/config.toml"));
    env.write(
        ".cursor/mcp.json",
        br#"{"mcpServers":{"mem":{"command":"cmd","args":["/c","npx","-y","m"],"env":{"T":"secret","R":"${env:T}"}},"web":{"url":"https://x","headers":{"Authorization":"Bearer abc"}}}}"#,
    );
    let run = env.run(&["list", "--json", "-c", "cursor,codex"]).ok();
    let rows = run.json();
    let rows = rows.as_array().unwrap();
    let mem = rows.iter().find(|r| r["name"] == "mem").unwrap();
    assert_eq!(crate::env::command_of(mem), "npx");
    assert_eq!(mem["args"], serde_json::json!(["-y", "m"]));
    assert_eq!(mem["wrapped"], true);
    assert_eq!(mem["env"]["T"], "<redacted>");
    assert_eq!(mem["env"]["R"], "${env:T}");
    let web = rows.iter().find(|r| r["name"] == "web").unwrap();
    assert_eq!(web["headers"]["Authorization"], "<redacted>");
    assert_eq!(web["transport"], "http");
    let ctx = rows.iter().find(|r| r["name"] == "context7").unwrap();
    assert_eq!(ctx["client"], "codex");
    assert_eq!(ctx["env"]["CONTEXT7_API_KEY"], "<redacted>");
    assert!(!run.stdout.contains("ctx7-secret-value"));
    for key in [
        "client",
        "scope",
        "name",
        "transport",
        "command",
        "args",
        "url",
        "env",
        "headers",
        "path",
        "disabled",
    ] {
        assert!(mem.get(key).is_some(), "missing {key}");
    }
    let shown = env
        .run(&["list", "--json", "-c", "codex", "--show-secrets"])
        .ok();
    assert!(shown.stdout.contains("ctx7-secret-value"));
}

#[test]
fn list_table_covers_detected_clients() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    env.write(crate::env::ZED, &fixture("zed/settings.json"));
    let run = env.run(&["list"]).ok();
    assert!(
        run.stdout.contains("postgres") && run.stdout.contains("notes"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("linear") && run.stdout.contains("https://mcp.linear.app/sse"),
        "{}",
        run.stdout
    );
}

#[test]
fn list_reports_a_broken_file_and_still_lists_others() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    env.write(".codex/config.toml", b"[mcp_servers.x\ncommand = 1\n");
    let run = env.run(&["list", "-c", "cursor,codex"]).code(2);
    assert!(run.stdout.contains("postgres"), "{}", run.stdout);
    assert!(
        run.stderr
            .contains(&crate::env::os_path("~/.codex/config.toml"))
            && run.stderr.contains("1:"),
        "{}",
        run.stderr
    );
}

#[test]
fn list_from_home_does_not_count_the_user_file_as_a_project_file_too() {
    // Regression: with the project directory at HOME, `.cursor/mcp.json` is both the user
    // file and the project file; it was listed twice (and doctor warned about two scopes).
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    let run = env.run(&["list", "--json", "-c", "cursor"]).ok();
    let rows = run.json();
    assert_eq!(rows.as_array().unwrap().len(), 2, "{rows}");
    assert!(
        rows.as_array()
            .unwrap()
            .iter()
            .all(|r| r["scope"] == "user")
    );
}

/// HOME reached through a symlink (`HOME=/link`, `/link -> /real/home`) with the project at
/// HOME's real path: the project file `.cursor/mcp.json` is the user file by another name.
/// Regression: paths were compared as strings, so the one file was listed as user and
/// project, `remove` refused ("in 2 scopes") and doctor would not start the user's own
/// servers as untrusted project entries.
#[test]
#[cfg(unix)] // a symlink needs a privilege on Windows
fn a_file_reached_through_a_symlinked_home_is_one_file() {
    let mut env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    let link = env.dir.path().join("link");
    std::os::unix::fs::symlink(env.home(), &link).unwrap();
    let link = link.to_str().unwrap().to_owned();
    for var in ["HOME", "USERPROFILE"] {
        env.extra_env.push((var.into(), link.clone()));
    }
    env.extra_env
        .push(("XDG_CONFIG_HOME".into(), format!("{link}/.config")));
    let rows = env.run(&["list", "--json", "-c", "cursor"]).ok().json();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows.iter().all(|r| r["scope"] == "user"), "{rows:?}");
    let doctor = env.run(&["doctor", "--no-spawn", "-c", "cursor"]);
    assert!(
        !doctor.stdout.contains("project") && !doctor.stdout.contains("2 scopes"),
        "{}",
        doctor.stdout
    );
    env.run(&["remove", "postgres", "-c", "cursor"]).ok();
    assert!(!env.read_str(".cursor/mcp.json").contains("\"postgres\""));
    env.run(&["disable", "linear", "-c", "cursor"]).ok();
}

/// Since 1.102 VS Code no longer reads `mcp.servers` in `settings.json`, and Antigravity
/// 2.0 no longer reads the 1.x file: `list` does not show their servers as live (`check`
/// reports them, MCP006), and `add` writes `mcp.json`.
#[test]
fn list_does_not_show_files_the_client_no_longer_reads() {
    let env = TestEnv::new();
    env.write(
        crate::env::VSCODE_SETTINGS,
        b"{\n  // editor settings\n  \"editor.fontSize\": 14,\n  \"mcp\": { \"servers\": { \"old\": { \"type\": \"stdio\", \"command\": \"uvx\", \"args\": [\"x\"] } } }\n}\n",
    );
    env.write(
        ".gemini/antigravity/mcp_config.json",
        b"{\"mcpServers\": {\"old1\": {\"command\": \"uvx\"}}}",
    );
    let run = env
        .run(&["list", "--json", "-c", "vscode", "-c", "antigravity"])
        .ok();
    assert_eq!(run.json(), serde_json::json!([]), "{}", run.stdout);
    let check = env.run(&["check", "--user"]).code(0);
    for file in [
        format!("~/{}:4:12: warning[MCP006]", crate::env::VSCODE_SETTINGS),
        "~/.gemini/antigravity/mcp_config.json:1:2: warning[MCP006]".to_owned(),
    ] {
        let file = crate::env::os_path(&file);
        assert!(check.stdout.contains(&file), "{}", check.stdout);
    }
    env.run(&["add", "new", "-c", "vscode", "--", "uvx", "y"])
        .ok();
    assert!(env.read_str(crate::env::VSCODE).contains("\"new\""));
    assert!(
        !env.read_str(crate::env::VSCODE_SETTINGS)
            .contains("\"new\"")
    );
}

#[test]
fn json_paths_are_absolute_and_text_paths_short() {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        br#"{"mcpServers": {"a": {"command": "a"}}}"#,
    );
    let absolute = env.path(".cursor/mcp.json").display().to_string();
    let list = env.run(&["list", "--json"]).ok().json();
    assert_eq!(list[0]["path"], absolute.as_str(), "{list:#}");
    let clients = env.run(&["clients", "--json"]).ok().json();
    let cursor = clients
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "cursor")
        .unwrap();
    assert_eq!(cursor["path"], absolute.as_str(), "{cursor:#}");
    let added = env
        .run(&["add", "b", "-c", "cursor", "--json", "--", "b"])
        .ok()
        .json();
    assert_eq!(added[0]["path"], absolute.as_str(), "{added:#}");
    let text = env.run(&["clients"]).ok().stdout;
    assert!(
        text.contains(&crate::env::os_path("~/.cursor/mcp.json")),
        "{text}"
    );
}

/// Project files the research lists besides the main one are read (and edited when they
/// are the one that exists): Qwen's older `.qwen/settings.json`, Copilot CLI's
/// `.github/mcp.json`, Visual Studio's `.vs/mcp.json`, Amp's `.amp/settings.jsonc`,
/// Augment's `.augment/settings.local.json`.
#[test]
fn project_files_besides_the_main_one_are_read_and_edited() {
    let cases = [
        ("qwen-code", ".qwen/settings.json", "mcpServers"),
        ("copilot-cli", ".github/mcp.json", "mcpServers"),
        ("visual-studio", ".vs/mcp.json", "servers"),
        ("amp", ".amp/settings.jsonc", "amp.mcpServers"),
        ("augment", ".augment/settings.local.json", "mcpServers"),
    ];
    for (client, file, key) in cases {
        let env = TestEnv::new();
        let text = format!(
            "{{\n  \"{key}\": {{\n    \"mine\": {{\"command\": \"uvx\", \"args\": [\"m\"]}}\n  }}\n}}\n"
        );
        env.write(&format!("proj/{file}"), text.as_bytes());
        // Visual Studio exists only on Windows.
        let platform = if client == "visual-studio" {
            "windows"
        } else {
            "linux"
        };
        let mut list = env.command(&["list", "--json", "-c", client, "--platform", platform]);
        let out = list.current_dir(env.path("proj")).output().unwrap();
        let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let names: Vec<_> = rows
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["name"].as_str().unwrap().to_owned(),
                    r["scope"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        assert!(
            names.contains(&("mine".to_owned(), "project".to_owned())),
            "{client}: {rows}"
        );
        let mut add = env.command(&[
            "add",
            "new",
            "-c",
            client,
            "--scope",
            "project",
            "--platform",
            platform,
            "--",
            "npx",
            "n",
        ]);
        add.current_dir(env.path("proj"));
        crate::env::Run::of(add).ok();
        assert!(
            env.read_str(&format!("proj/{file}")).contains("\"new\""),
            "{client}"
        );
    }
}

/// Issue 40: `list --scope` shows the entries of one scope only (a user and a project
/// file of Cursor here).
#[test]
fn list_scope_filters_to_one_scope() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    env.write(
        "proj/.cursor/mcp.json",
        b"{\n  \"mcpServers\": {\n    \"team\": { \"command\": \"npx\", \"args\": [\"t\"] }\n  }\n}\n",
    );
    let scopes = |args: &[&str]| -> Vec<(String, String)> {
        let mut all = vec!["list", "--json", "-c", "cursor"];
        all.extend_from_slice(args);
        env.run_in("proj", &all)
            .ok()
            .json()
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["scope"].as_str().unwrap().to_owned(),
                    r["name"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let every = scopes(&[]);
    assert!(every.iter().any(|(s, _)| s == "user"), "{every:?}");
    assert_eq!(
        scopes(&["--scope", "project"]),
        [("project".to_owned(), "team".to_owned())]
    );
    let user = scopes(&["-s", "user"]);
    assert!(
        !user.is_empty() && user.iter().all(|(s, _)| s == "user"),
        "{user:?}"
    );
}

/// A project file's path has one separator style, the host's: on Windows
/// `…\proj\.cursor\mcp.json`, never `…\proj\.cursor/mcp.json` (a row's relative path
/// joined as one piece).
#[test]
fn a_project_files_path_has_the_hosts_separators_only() {
    let env = TestEnv::new();
    env.write(
        "proj/.cursor/mcp.json",
        br#"{"mcpServers":{"a":{"command":"node","args":["a.js"]}}}"#,
    );
    let rows = env
        .run_in("proj", &["list", "--json", "-c", "cursor"])
        .ok()
        .json();
    let row = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["scope"] == "project")
        .unwrap_or_else(|| panic!("no project row in {rows}"));
    assert_eq!(
        row["path"],
        env.path("proj/.cursor/mcp.json").display().to_string()
    );
}

/// Issue 38 item 11: an entry that runs through mcpctl's launcher or bridge is listed as
/// the server behind it (the command or URL the user added, the secrets it takes named),
/// whatever the binary is called, with the command line the file holds as `written`.
#[test]
fn a_launcher_or_bridge_entry_is_listed_as_the_server_behind_it() {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        br#"{"mcpServers":{
  "gh":{"command":"/opt/tools/mcpctl-0.1.0","args":["run","--secret","GITHUB_TOKEN=gh","--","python3","srv.py"]},
  "rem":{"command":"/usr/local/bin/mcpctl","args":["bridge","https://x.example/mcp","--header","Authorization=Bearer {secret:docs}"]}
}}"#,
    );
    let run = env.run(&["list", "-c", "cursor"]).ok();
    assert!(
        run.stdout
            .contains("python3 srv.py (via mcpctl run; secrets: gh)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("https://x.example/mcp (via mcpctl bridge; secrets: docs)"),
        "{}",
        run.stdout
    );
    let rows = env.run(&["list", "--json", "-c", "cursor"]).ok().json();
    let gh = &rows[0];
    assert_eq!(gh["command"], "python3", "{gh}");
    assert_eq!(gh["args"], serde_json::json!(["srv.py"]), "{gh}");
    assert_eq!(gh["via"], "launcher", "{gh}");
    assert_eq!(gh["secrets"][0]["to"], "GITHUB_TOKEN", "{gh}");
    assert_eq!(gh["written"]["command"], "/opt/tools/mcpctl-0.1.0", "{gh}");
    assert_eq!(gh["written"]["args"][0], "run", "{gh}");
    let rem = &rows[1];
    assert_eq!(rem["url"], "https://x.example/mcp", "{rem}");
    assert_eq!(rem["via"], "bridge", "{rem}");
    assert_eq!(rem["written"]["args"][0], "bridge", "{rem}");
}
