//! Integration tests for `mcpctl clients` and the book's generated client table.

use crate::env::{TestEnv, fixture};

#[test]
fn clients_json_has_every_row_with_contract_fields() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    let run = env.run(&["clients", "--json"]).ok();
    let rows = run.json();
    let rows = rows.as_array().unwrap();
    let table = mcpctl::api::clients::ClientTable::builtin().unwrap();
    assert_eq!(rows.len(), table.all().len());
    let cursor = rows.iter().find(|r| r["id"] == "cursor").unwrap();
    assert_eq!(cursor["detected"], true);
    assert_eq!(cursor["exists"], true);
    assert_eq!(cursor["servers"], 2);
    assert_eq!(cursor["format"], "json");
    // `--json` paths are absolute (a script cannot open `~/...`).
    let absolute = env.path(".cursor/mcp.json").display().to_string();
    assert_eq!(cursor["path"], absolute.as_str());
    let desktop = rows.iter().find(|r| r["id"] == "claude-desktop").unwrap();
    if !cfg!(windows) {
        assert_eq!(desktop["path"], serde_json::Value::Null, "no Linux build");
    }
}

#[test]
fn unverified_rows_say_so_in_both_outputs() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".kimi")).unwrap();
    std::fs::create_dir_all(env.path(".vibe")).unwrap();
    let run = env.run(&["clients", "--json"]).ok();
    let rows = run.json();
    let row = |id: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap()
            .clone()
    };
    let legacy = row("kimi-cli");
    assert_eq!(legacy["verified"], false, "{legacy}");
    assert!(
        legacy["source"].as_str().unwrap().contains("toolhive"),
        "{legacy}"
    );
    let vibe = row("mistral-vibe");
    assert_eq!(vibe["verified"], "2026-12-02");
    assert!(
        vibe["verified_against"]
            .as_str()
            .unwrap()
            .starts_with("vibe 3.0.2 ("),
        "{vibe}"
    );
    assert_eq!(
        vibe["source"],
        "https://docs.mistral.ai/vibe/code/cli/mcp-servers"
    );
    let run = env.run(&["clients"]).ok();
    let human = format!("{}{}", run.stdout, run.stderr);
    let legacy_line = human.lines().find(|l| l.starts_with("kimi-cli")).unwrap();
    assert!(
        legacy_line.contains("Kimi CLI (legacy) (unverified)"),
        "{human}"
    );
    let vibe_line = human
        .lines()
        .find(|l| l.starts_with("mistral-vibe"))
        .unwrap();
    assert!(!vibe_line.contains("unverified"), "{human}");
    assert!(vibe_line.contains("2026-12-02"), "{human}");
    assert!(human.contains("comes from a secondary source"), "{human}");
}

/// A row checked more than 90 days ago is stale: `clients` says so, and `--json` has the
/// day and what it was checked against for every row.
#[test]
fn stale_rows_are_shown_and_json_has_verified_for_every_row() {
    let mut env = TestEnv::new();
    std::fs::create_dir_all(env.path(".vibe")).unwrap();
    // Vibe's row, 2026-12-02 + 90 days: not stale yet.
    env.extra_env
        .push(("MCPCTL_TODAY".into(), "2027-03-02".into()));
    let human = env.run(&["clients"]).ok();
    assert!(!human.stdout.contains("(stale)"), "{}", human.stdout);
    env.extra_env.clear();
    env.extra_env
        .push(("MCPCTL_TODAY".into(), "2027-03-03".into()));
    let run = env.run(&["clients"]).ok();
    let vibe_line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("mistral-vibe"))
        .unwrap();
    assert!(vibe_line.contains("Mistral Vibe (stale)"), "{}", run.stdout);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(all.contains("checked more than 90 days ago"), "{all}");
    // Past 90 days for every dated row (some were checked after 2026-12-01).
    env.extra_env.clear();
    env.extra_env
        .push(("MCPCTL_TODAY".into(), "2027-04-01".into()));
    let rows = env.run(&["clients", "--json"]).ok().json();
    for row in rows.as_array().unwrap() {
        match &row["verified"] {
            serde_json::Value::String(day) => {
                assert_eq!(day.len(), 10, "{row}");
                assert!(row["verified_against"].is_string(), "{row}");
                assert_eq!(row["stale"], true, "{row}");
            }
            serde_json::Value::Bool(false) => assert_eq!(row["stale"], false, "{row}"),
            other => panic!("verified is a day or false, not {other}: {row}"),
        }
    }
}

#[test]
fn clients_windows_platform_resolves_appdata_and_msix() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path("AppData/Local/Packages/Claude_pzs8sxrjxfjjc")).unwrap();
    let run = env
        .run(&["--platform", "windows", "clients", "--json"])
        .ok();
    let rows = run.json();
    let find = |id: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(
        find("vscode")["path"],
        env.path("AppData/Roaming/Code/User/mcp.json")
            .display()
            .to_string()
    );
    assert_eq!(
        find("claude-desktop")["path"],
        env.path("AppData/Local/Packages/Claude_pzs8sxrjxfjjc/LocalCache/Roaming/Claude/claude_desktop_config.json").display().to_string()
    );
    assert_eq!(find("claude-desktop")["detected"], true);
    assert_eq!(
        find("zed")["path"],
        env.path("AppData/Roaming/Zed/settings.json")
            .display()
            .to_string()
    );
}

#[test]
fn clients_override_file_adds_a_client() {
    let env = TestEnv::new();
    let table = env.write(
        "extra.toml",
        b"[[client]]\nid = \"my-agent\"\nname = \"My Agent\"\nformat = \"json\"\nservers_key = [\"mcpServers\"]\ndialect = \"standard\"\npaths.linux = \"{home}/.my-agent/mcp.json\"\npaths.windows = \"{home}/.my-agent/mcp.json\"\nsource = \"local\"\n",
    );
    std::fs::create_dir_all(env.path(".my-agent")).unwrap();
    let run = env
        .run(&["--clients", table.to_str().unwrap(), "clients"])
        .ok();
    assert!(run.stdout.contains("my-agent"), "{}", run.stdout);
    env.run(&[
        "--clients",
        table.to_str().unwrap(),
        "add",
        "x",
        "-c",
        "my-agent",
        "--",
        "uvx",
        "x",
    ])
    .ok();
    assert!(env.path(".my-agent/mcp.json").exists());
}

/// docs/reference/clients.md's table is `clients.toml` (`MCPCTL_UPDATE_README=1` rewrites it).
#[test]
fn docs_client_table_is_generated_from_clients_toml() {
    let table = mcpctl::api::clients::ClientTable::builtin()
        .unwrap()
        .markdown();
    crate::docs::generated_region(
        "docs/reference/clients.md",
        "<!-- clients:start -->\n",
        "<!-- clients:end -->",
        &table,
        "docs",
    );
}

/// A client that spells its fields its own way (Goose: `cmd`, `envs`, `uri`) needs only a
/// table row: `add` writes that spelling, `list` reads it, `check` accepts it.
#[test]
fn a_new_field_spelling_is_only_a_table_row() {
    let env = TestEnv::new();
    let table = env.write(
        "extra.toml",
        b"[[client]]\nid = \"spelled\"\nname = \"Spelled\"\nformat = \"json\"\nservers_key = [\"extensions\"]\ndialect = \"standard\"\npaths.linux = \"{home}/.spelled/config.json\"\npaths.windows = \"{home}/.spelled/config.json\"\nfields = { command_key = \"cmd\", env_key = \"envs\", url_key = \"uri\", extra_keys = [] }\nsource = \"local\"\n",
    );
    let table = table.to_str().unwrap();
    std::fs::create_dir_all(env.path(".spelled")).unwrap();
    let with_table = |args: &[&str]| {
        let mut all = vec!["--clients", table];
        all.extend_from_slice(args);
        env.run(&all)
    };
    with_table(&[
        "add", "mem", "-c", "spelled", "--env", "A=1", "--", "node", "-y", "m@1",
    ])
    .ok();
    with_table(&[
        "add",
        "web",
        "-c",
        "spelled",
        "--url",
        "https://x.example/mcp",
    ])
    .ok();
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(env.path(".spelled/config.json")).unwrap()).unwrap();
    assert_eq!(
        written["extensions"],
        serde_json::json!({
            "mem": {"cmd": "node", "args": ["-y", "m@1"], "envs": {"A": "1"}},
            "web": {"uri": "https://x.example/mcp"}
        })
    );
    let listed = with_table(&["list", "--json", "-c", "spelled"]).ok().json();
    let mem = &listed.as_array().unwrap()[0];
    assert_eq!(
        (mem["command"].as_str(), mem["env"]["A"].as_str()),
        (Some("node"), Some("<redacted>"))
    );
    let path = env.path(".spelled/config.json");
    let checked = with_table(&[
        "check",
        "--format",
        "json",
        "-c",
        "spelled",
        path.to_str().unwrap(),
    ]);
    assert_eq!(checked.code(0).json(), serde_json::json!([]));
}
