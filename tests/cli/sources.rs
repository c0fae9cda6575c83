//! Read-only sources: Claude Code plugins, Claude Code's `managed-mcp.json`, Gemini CLI
//! extensions. `list` and `doctor` show their servers marked with their origin; `add` and
//! `remove` refuse them and write nothing.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::env::TestEnv;

/// Copy a fixture folder (`tests/fixtures/sources/<rel>`) to `dest`.
fn copy_tree(rel: &str, dest: &Path) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sources")
        .join(rel);
    copy_dir(&from, dest);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Install fixture plugins the way `claude plugin install` lays them out: a versioned
/// folder in the plugin cache, a v2 `installed_plugins.json` entry, and `enabledPlugins`
/// in `~/.claude/settings.json`. Returns each plugin's folder.
fn install_plugins(env: &TestEnv, plugins: &[(&str, &str, bool)]) -> Vec<PathBuf> {
    let mut registry = serde_json::Map::new();
    let mut enabled = serde_json::Map::new();
    let mut roots = Vec::new();
    for (name, version, on) in plugins {
        let root = env.path(&format!(
            ".claude/plugins/cache/claude-plugins-official/{name}/{version}"
        ));
        copy_tree(&format!("claude-plugins/{name}"), &root);
        let id = format!("{name}@claude-plugins-official");
        registry.insert(
            id.clone(),
            json!([{
                "scope": "user",
                "installPath": root.to_str().unwrap(),
                "version": version,
                "installedAt": "2026-11-02T09:14:03.118Z",
                "lastUpdated": "2026-11-02T09:14:03.118Z",
                "gitCommitSha": "9f2c4e1b7a0d3c5e8f6a4b2d1c0e9f8a7b6c5d4e"
            }]),
        );
        enabled.insert(id, Value::Bool(*on));
        roots.push(root);
    }
    env.write(
        ".claude/plugins/installed_plugins.json",
        serde_json::to_string_pretty(&json!({"version": 2, "plugins": registry}))
            .unwrap()
            .as_bytes(),
    );
    env.write(
        ".claude/settings.json",
        serde_json::to_string_pretty(&json!({
            "permissions": {"allow": ["Bash(git status)"]},
            "enabledPlugins": enabled,
            "model": "opus"
        }))
        .unwrap()
        .as_bytes(),
    );
    roots
}

#[cfg(unix)] // only Unix-only tests use it
fn row<'a>(rows: &'a Value, name: &str) -> &'a Value {
    rows.as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {rows}"))
}

const CLAUDE_JSON: &str = r#"{
  "numStartups": 12,
  "mcpServers": {
    "notes": { "command": "npx", "args": ["-y", "notes-mcp"] }
  }
}
"#;

#[test]
#[cfg(unix)] // expected paths are joined with `/`
fn list_shows_plugin_servers_read_only_with_their_origin() {
    let env = TestEnv::new();
    env.write(".claude.json", CLAUDE_JSON.as_bytes());
    let roots = install_plugins(
        &env,
        &[
            ("playwright", "0.0.41", true),
            ("telegram", "0.0.4", false),
            ("db-tools", "2.1.0", true),
        ],
    );
    let run = env.run(&["list", "-c", "claude-code", "--json"]).ok();
    let rows = run.json();
    let own = row(&rows, "notes");
    assert_eq!(own["read_only"], false);
    assert!(own.get("origin").is_none());

    // A flat `.mcp.json` (no `mcpServers` wrapper), as the official plugin ships it.
    let pw = row(&rows, "playwright");
    assert_eq!(pw["read_only"], true);
    assert_eq!(crate::env::command_of(pw), "npx");
    assert_eq!(pw["origin"]["kind"], "plugin");
    assert_eq!(pw["origin"]["name"], "playwright@claude-plugins-official");
    assert_eq!(
        pw["origin"]["file"],
        roots[0].join(".mcp.json").to_str().unwrap()
    );
    assert_eq!(pw["origin"]["chosen_by"], "user");
    assert_eq!(pw["disabled"], false);

    // Wrapped `.mcp.json`; the plugin is off in `enabledPlugins`.
    let tg = row(&rows, "telegram");
    assert_eq!(tg["disabled"], true);
    assert_eq!(
        tg["args"][0],
        roots[1].join("server.ts").to_str().unwrap(),
        "${{CLAUDE_PLUGIN_ROOT}} is the plugin folder"
    );
    assert_eq!(tg["env"]["TELEGRAM_BOT_TOKEN"], "<redacted>");

    // `plugin.json` `mcpServers` as a list of a path and an inline map.
    let db = row(&rows, "db");
    assert_eq!(
        db["command"],
        roots[2].join("servers/db-server").to_str().unwrap()
    );
    assert_eq!(db["env"]["DB_URL"], "${DB_URL}", "other references stay");
    assert_eq!(
        db["origin"]["file"],
        roots[2]
            .join(".claude-plugin/plugin.json")
            .to_str()
            .unwrap()
    );
    let docs = row(&rows, "db-docs");
    assert_eq!(docs["url"], "https://docs.example.com/mcp");
    assert_eq!(
        docs["origin"]["file"],
        roots[2].join("mcp/extra.json").to_str().unwrap()
    );

    let human = env.run(&["list", "-c", "claude-code"]).ok();
    assert!(
        human
            .stdout
            .contains("[read-only: plugin playwright@claude-plugins-official]"),
        "{}",
        human.stdout
    );
    assert!(
        human.stdout.contains("telegram (disabled)"),
        "{}",
        human.stdout
    );
    assert!(!human.stdout.contains("telegram-secret-token"));
}

#[test]
fn a_project_install_for_another_project_is_not_listed() {
    let env = TestEnv::new();
    let root = env.path(".claude/plugins/cache/m/playwright/0.0.41");
    copy_tree("claude-plugins/playwright", &root);
    env.write(
        ".claude/plugins/installed_plugins.json",
        serde_json::to_string(&json!({"version": 2, "plugins": {"playwright@m": [{
            "scope": "project", "projectPath": "/somewhere/else",
            "installPath": root.to_str().unwrap(), "version": "0.0.41"
        }]}}))
        .unwrap()
        .as_bytes(),
    );
    env.write(
        ".claude/settings.json",
        br#"{"enabledPlugins": {"playwright@m": true}}"#,
    );
    env.write(".claude.json", CLAUDE_JSON.as_bytes());
    let rows = env
        .run(&["list", "-c", "claude-code", "--json"])
        .ok()
        .json();
    assert!(
        rows.as_array()
            .unwrap()
            .iter()
            .all(|r| r["name"] != "playwright"),
        "{rows}"
    );
}

#[cfg(unix)] // only Unix-only tests use it
fn managed(env: &TestEnv, text: &str) -> PathBuf {
    let path = env.sysroot().join("etc/claude-code/managed-mcp.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

#[cfg(unix)] // only Unix-only tests use it
const MANAGED: &str = r#"{
  "mcpServers": {
    "company-internal": {
      "type": "stdio",
      "command": "/usr/local/bin/company-mcp-server",
      "args": ["--config", "/etc/company/mcp-config.json"]
    },
    "sentry": { "type": "http", "url": "https://mcp.sentry.dev/mcp" }
  }
}
"#;

#[test]
#[cfg(unix)] // managed-mcp.json at its Linux system path (/etc/…)
fn managed_mcp_json_takes_exclusive_control_and_list_says_so() {
    let env = TestEnv::new();
    env.write(".claude.json", CLAUDE_JSON.as_bytes());
    install_plugins(&env, &[("playwright", "0.0.41", true)]);
    let file = managed(&env, MANAGED);
    let rows = env
        .run(&["list", "-c", "claude-code", "--json"])
        .ok()
        .json();
    let sentry = row(&rows, "sentry");
    assert_eq!(sentry["read_only"], true);
    assert_eq!(sentry["origin"]["kind"], "managed");
    assert_eq!(sentry["origin"]["chosen_by"], "admin");
    assert_eq!(sentry["origin"]["file"], file.to_str().unwrap());
    assert!(sentry.get("not_loaded").is_none());
    for name in ["notes", "playwright"] {
        let r = row(&rows, name);
        assert!(
            r["not_loaded"]
                .as_str()
                .is_some_and(|w| w.contains("exclusive control")),
            "{r}"
        );
    }
    let human = env.run(&["list", "-c", "claude-code"]).ok();
    assert!(
        human
            .stderr
            .contains("Claude Code loads only the servers in"),
        "{}",
        human.stderr
    );
    assert!(
        human.stdout.contains("notes (not loaded)"),
        "{}",
        human.stdout
    );
}

#[test]
#[cfg(unix)] // managed-mcp.json at its Linux system path (/etc/…)
fn add_and_remove_refuse_under_managed_control_and_write_nothing() {
    let env = TestEnv::new();
    env.write(".claude.json", CLAUDE_JSON.as_bytes());
    managed(&env, r#"{"mcpServers": {}}"#);
    let run = env
        .run(&["add", "x", "-c", "claude-code", "--", "npx", "-y", "x-mcp"])
        .code(2);
    assert!(
        run.stderr.contains("exclusive control") || run.stdout.contains("exclusive control"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(env.read_str(".claude.json"), CLAUDE_JSON);
    let run = env.run(&["remove", "notes", "-c", "claude-code"]).ok();
    assert!(
        run.stderr.contains("loads only the servers in"),
        "{}",
        run.stderr
    );
}

#[test]
fn add_and_remove_of_a_plugin_server_explain_where_it_is_managed() {
    let env = TestEnv::new();
    env.write(".claude.json", CLAUDE_JSON.as_bytes());
    install_plugins(&env, &[("playwright", "0.0.41", true)]);
    let before = env.read(".claude.json");
    let settings_before = env.read(".claude/settings.json");

    let run = env.run(&["remove", "playwright"]).code(2);
    assert!(
        run.stderr
            .contains("the plugin `playwright@claude-plugins-official`")
            && run
                .stderr
                .contains("claude plugin disable playwright@claude-plugins-official"),
        "{}",
        run.stderr
    );
    let run = env
        .run(&["remove", "playwright", "-c", "claude-code"])
        .code(2);
    assert!(run.stderr.contains("claude plugin"), "{}", run.stderr);
    for verb in ["disable", "enable"] {
        let run = env.run(&[verb, "playwright"]).code(2);
        assert!(
            run.stderr
                .contains("claude plugin disable playwright@claude-plugins-official"),
            "{verb}: {}",
            run.stderr
        );
    }
    let run = env
        .run(&["disable", "playwright", "-c", "claude-code"])
        .code(2);
    assert!(
        run.stderr.contains("the plugin `playwright@"),
        "{}",
        run.stderr
    );

    let run = env
        .run(&[
            "add",
            "playwright",
            "-c",
            "claude-code",
            "--",
            "npx",
            "-y",
            "pw",
        ])
        .code(2);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(all.contains("--force"), "{all}");
    assert_eq!(env.read(".claude.json"), before);
    assert_eq!(env.read(".claude/settings.json"), settings_before);
}

#[cfg(unix)] // only Unix-only tests use it
fn gemini_extension(env: &TestEnv) -> PathBuf {
    let dir = env.path(".gemini/extensions/gcs-tools");
    copy_tree("gemini-extensions/gcs-tools", &dir);
    dir
}

#[test]
#[cfg(unix)] // expected paths are joined with `/`
fn gemini_extensions_are_listed_with_extension_path_and_enablement() {
    let env = TestEnv::new();
    env.write(
        ".gemini/settings.json",
        br#"{ "theme": "GitHub", "mcpServers": { "linked": { "command": "mine" } } }"#,
    );
    let dir = gemini_extension(&env);
    // A linked extension lives where `gemini extensions link` pointed.
    let source = env.dir.path().join("dev/linked-ext");
    std::fs::create_dir_all(&source).unwrap();
    std::fs::write(
        source.join("gemini-extension.json"),
        r#"{"name": "linked-ext", "version": "0.1.0", "mcpServers": {"linked": {"command": "theirs"}, "dev": {"command": "${extensionPath}/run"}}}"#,
    )
    .unwrap();
    env.write(
        ".gemini/extensions/linked-ext/.gemini-extension-install.json",
        serde_json::to_string(&json!({"source": source.to_str().unwrap(), "type": "link"}))
            .unwrap()
            .as_bytes(),
    );
    let rows = env.run(&["list", "-c", "gemini-cli", "--json"]).ok().json();
    let gcs = row(&rows, "gcs");
    assert_eq!(gcs["read_only"], true);
    assert_eq!(gcs["origin"]["kind"], "extension");
    assert_eq!(gcs["origin"]["name"], "gcs-tools");
    assert_eq!(gcs["args"][0], format!("{}/dist/server.js", dir.display()));
    assert_eq!(gcs["disabled"], false);
    let dev = row(&rows, "dev");
    assert_eq!(dev["command"], format!("{}/run", source.display()));
    // The user's `linked` wins over the extension's.
    let theirs = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "linked" && r["read_only"] == true)
        .unwrap();
    assert!(
        theirs["not_loaded"]
            .as_str()
            .unwrap()
            .contains("takes precedence")
    );

    // Disabled for this directory and below (`gemini extensions disable gcs-tools`).
    let home = env.home();
    env.write(
        ".gemini/extensions/extension-enablement.json",
        serde_json::to_string(
            &json!({"gcs-tools": {"overrides": [format!("!{}/*", home.display())]}}),
        )
        .unwrap()
        .as_bytes(),
    );
    let rows = env.run(&["list", "-c", "gemini-cli", "--json"]).ok().json();
    assert_eq!(row(&rows, "gcs")["disabled"], true);
    let run = env.run(&["remove", "gcs"]).code(2);
    assert!(
        run.stderr.contains("gemini extensions disable gcs-tools"),
        "{}",
        run.stderr
    );
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn doctor_starts_an_enabled_plugin_server_and_skips_a_disabled_one() {
    let env = TestEnv::new();
    let roots = install_plugins(
        &env,
        &[("telegram", "0.0.4", false), ("playwright", "0.0.41", true)],
    );
    // The enabled plugin's server is the fixture server, found through
    // ${CLAUDE_PLUGIN_ROOT}.
    let bin = roots[1].join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(crate::doctor::fixture(), bin.join("fixture-server")).unwrap();
    std::fs::write(
        roots[1].join(".mcp.json"),
        r#"{"fx": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/fixture-server"}}"#,
    )
    .unwrap();
    let report = env
        .run(&["doctor", "-c", "claude-code", "--json", "--timeout", "20"])
        .ok()
        .json();
    // `tools` and `call` reach the plugin's server as doctor does.
    let tools = env
        .run(&[
            "tools",
            "fx",
            "-c",
            "claude-code",
            "--json",
            "--timeout",
            "20",
        ])
        .ok()
        .json();
    assert!(tools.to_string().contains("hello"), "{tools}");
    let run = env
        .run(&["tools", "telegram", "-c", "claude-code", "--timeout", "20"])
        .code(2);
    assert!(run.stderr.contains("is disabled"), "{}", run.stderr);
    let fx = crate::doctor::result(&report, "fx");
    assert_eq!(fx["status"], "ok", "{fx}");
    assert_eq!(fx["read_only"], true);
    assert_eq!(fx["origin"]["name"], "playwright@claude-plugins-official");
    let tg = crate::doctor::result(&report, "telegram");
    assert_eq!(tg["status"], "skipped");
    assert!(
        tg["checks"][0]["message"]
            .as_str()
            .unwrap()
            .contains("is disabled"),
        "{tg}"
    );
}

#[test]
#[cfg(unix)] // the plugin's server is a Unix command
fn doctor_does_not_start_a_plugin_only_the_project_enables() {
    let env = TestEnv::new();
    let project = env.path("work/app");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    install_plugins(&env, &[("playwright", "0.0.41", false)]);
    std::fs::write(
        project.join(".claude/settings.json"),
        r#"{"enabledPlugins": {"playwright@claude-plugins-official": true}}"#,
    )
    .unwrap();
    let mut cmd = env.command(&[
        "doctor",
        "-c",
        "claude-code",
        "--json",
        "--no-spawn",
        "--project",
        project.to_str().unwrap(),
    ]);
    let out = cmd.output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pw = crate::doctor::result(&report, "playwright");
    assert_eq!(pw["status"], "skipped", "{pw}");
    assert_eq!(pw["origin"]["chosen_by"], "project");
}

#[cfg(unix)] // only Unix-only tests use it
const CODEX_CONFIG: &str = r#"# Codex settings
model = "gpt-5-codex"

[mcp_servers.notes]
command = "npx"
args = ["-y", "notes-mcp"]

[plugins."docs-kit@acme"]
enabled = true

[plugins."indexer@acme"]
enabled = true

# Off for now: slow on big repos.
[plugins."indexer@acme".mcp_servers.indexer]
enabled = false

[plugins."gone@acme"]
enabled = true
"#;

#[test]
#[cfg(unix)] // expected paths are joined with `/`
fn codex_plugin_servers_are_listed_from_the_plugin_cache() {
    let env = TestEnv::new();
    env.write(".codex/config.toml", CODEX_CONFIG.as_bytes());
    let cache = env.path(".codex/plugins/cache/acme");
    // Two versions: Codex uses the greatest; `local` wins when present.
    copy_tree("codex-plugins/docs-kit", &cache.join("docs-kit/0.4.0"));
    std::fs::write(
        cache.join("docs-kit/0.4.0/.mcp.json"),
        r#"{"mcpServers": {"docs-old": {"url": "https://old.example.com/mcp"}}}"#,
    )
    .unwrap();
    copy_tree("codex-plugins/docs-kit", &cache.join("docs-kit/0.5.0"));
    copy_tree("codex-plugins/indexer", &cache.join("indexer/local"));
    let rows = env.run(&["list", "-c", "codex", "--json"]).ok().json();
    let names: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&"docs-old"), "{names:?}");
    let docs = row(&rows, "docs");
    assert_eq!(docs["read_only"], true);
    assert_eq!(docs["transport"], "http");
    assert_eq!(docs["url"], "https://docs.example.com/mcp");
    assert_eq!(docs["origin"]["name"], "docs-kit@acme");
    assert_eq!(
        docs["origin"]["file"],
        cache.join("docs-kit/0.5.0/.mcp.json").to_str().unwrap()
    );
    assert_eq!(docs["disabled"], false);
    let indexer = row(&rows, "indexer");
    assert_eq!(indexer["disabled"], true, "switched off per server");
    assert_eq!(row(&rows, "notes")["read_only"], false);

    let run = env.run(&["remove", "docs", "-c", "codex"]).code(2);
    assert!(
        run.stderr.contains("[plugins.\"docs-kit@acme\"]"),
        "{}",
        run.stderr
    );
    assert_eq!(env.read_str(".codex/config.toml"), CODEX_CONFIG);
}
