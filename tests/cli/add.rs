//! Integration tests for `mcpctl add`.

use crate::env::{TestEnv, fixture, jsonc};
use serde_json::json;

const MEMORY: &[&str] = &["--", "npx", "-y", "@modelcontextprotocol/server-memory"];

fn args<'a>(head: &[&'a str], tail: &[&'a str]) -> Vec<&'a str> {
    head.iter().chain(tail).copied().collect()
}

#[test]
fn add_then_remove_restores_every_fixture_byte_for_byte() {
    let cases = [
        ("cursor", "cursor/mcp.json", ".cursor/mcp.json"),
        ("vscode", "vscode/mcp.json", crate::env::VSCODE),
        ("codex", "codex/config.toml", ".codex/config.toml"),
        ("zed", "zed/settings.json", crate::env::ZED),
        (
            "gemini-cli",
            "gemini-cli/settings.json",
            ".gemini/settings.json",
        ),
        (
            "opencode",
            "opencode/opencode.json",
            ".config/opencode/opencode.json",
        ),
        (
            "windsurf",
            "windsurf/mcp_config.json",
            ".codeium/windsurf/mcp_config.json",
        ),
        ("claude-code", "claude-code/claude.json", ".claude.json"),
    ];
    for (id, fixture_path, rel) in cases {
        let env = TestEnv::new();
        let original = fixture(fixture_path);
        env.write(rel, &original);
        env.run(&args(
            &["add", "mem", "-c", id, "--env", "TOKEN=abc"],
            MEMORY,
        ))
        .ok();
        let added = env.read(rel);
        assert_ne!(added, original, "{id}: nothing written");
        env.run(&["remove", "mem", "-c", id]).ok();
        assert_eq!(
            String::from_utf8(env.read(rel)).unwrap(),
            String::from_utf8(original).unwrap(),
            "{id}: add→remove is not identity"
        );
    }
}

#[test]
fn add_preserves_crlf_and_bom() {
    let env = TestEnv::new();
    env.write(
        ".gemini/settings.json",
        &fixture("gemini-cli/settings.json"),
    );
    env.run(&args(&["add", "mem", "-c", "gemini-cli"], MEMORY))
        .ok();
    let bytes = env.read(".gemini/settings.json");
    assert!(bytes.starts_with(b"\xef\xbb\xbf{\r\n"));
    let text = String::from_utf8(bytes[3..].to_vec()).unwrap();
    assert_eq!(
        text.matches('\n').count(),
        text.matches("\r\n").count(),
        "a bare LF crept in:\n{text}"
    );
    assert_eq!(
        crate::env::command_of(&jsonc(&bytes)["mcpServers"]["mem"]),
        "npx"
    );
    assert_eq!(jsonc(&bytes)["mcpServers"]["time"]["timeout"], 30000);
}

#[test]
fn add_writes_each_clients_dialect() {
    let env = TestEnv::new();
    env.run(&[
        "add",
        "docs",
        "-c",
        "cursor,windsurf,vscode,cline,opencode,gemini-cli,qwen-code",
        "--url",
        "https://docs.example.com/mcp",
        "--header",
        "X-Api-Key=${DOCS_KEY}",
    ])
    .ok();
    let get = |rel: &str| jsonc(&env.read(rel));
    assert_eq!(
        get(".cursor/mcp.json")["mcpServers"]["docs"],
        json!({"url":"https://docs.example.com/mcp","headers":{"X-Api-Key":"${env:DOCS_KEY}"}}),
        "Cursor expands ${{env:NAME}}, not ${{NAME}}"
    );
    assert_eq!(
        get(".codeium/windsurf/mcp_config.json")["mcpServers"]["docs"]["serverUrl"],
        "https://docs.example.com/mcp"
    );
    assert_eq!(get(crate::env::VSCODE)["servers"]["docs"]["type"], "http");
    assert_eq!(
        get(&format!(
            "{}/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
            crate::env::CONFIG_HOME
        ))["mcpServers"]["docs"]["type"],
        "streamableHttp"
    );
    assert_eq!(
        get(".config/opencode/opencode.json")["mcp"]["docs"]["type"],
        "remote"
    );
    assert_eq!(
        get(".gemini/settings.json")["mcpServers"]["docs"],
        json!({"type":"http","url":"https://docs.example.com/mcp","headers":{"X-Api-Key":"${DOCS_KEY}"}})
    );
    assert_eq!(
        get(".qwen/settings.json")["mcpServers"]["docs"]["httpUrl"],
        "https://docs.example.com/mcp"
    );

    env.run(&args(
        &["add", "mem", "-c", "opencode,codex", "--env", "A=1"],
        MEMORY,
    ))
    .ok();
    // Windows starts npx (a batch shim there) through `cmd /c`.
    let (command, wrapped) = if cfg!(windows) {
        (
            json!([
                "cmd",
                "/c",
                "npx",
                "-y",
                "@modelcontextprotocol/server-memory"
            ]),
            "cmd",
        )
    } else {
        (
            json!(["npx", "-y", "@modelcontextprotocol/server-memory"]),
            "npx",
        )
    };
    assert_eq!(
        get(".config/opencode/opencode.json")["mcp"]["mem"],
        json!({"type":"local","command":command,"environment":{"A":"1"}})
    );
    let toml = env.read_str(".codex/config.toml");
    assert!(toml.contains("[mcp_servers.mem]"), "{toml}");
    assert!(toml.contains(&format!("command = \"{wrapped}\"")), "{toml}");
}

#[test]
fn add_from_json_snippet_as_readmes_print_it() {
    let env = TestEnv::new();
    env.run(&["add", "fs", "-c", "claude-desktop", "--platform", "macos", "--from-json", r#"{"mcpServers":{"filesystem":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/tmp"]}}}"#]).ok();
    let v = jsonc(&env.read("Library/Application Support/Claude/claude_desktop_config.json"));
    assert_eq!(
        v["mcpServers"]["fs"],
        json!({"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/tmp"]})
    );
}

#[test]
fn windows_target_wraps_npx_in_cmd_c_once() {
    let env = TestEnv::new();
    env.run(&args(
        &["--platform", "windows", "add", "mem", "-c", "cursor"],
        MEMORY,
    ))
    .ok();
    let v = jsonc(&env.read(".cursor/mcp.json"));
    assert_eq!(
        v["mcpServers"]["mem"],
        json!({"command":"cmd","args":["/c","npx","-y","@modelcontextprotocol/server-memory"]})
    );
    // Adding the already wrapped form again is unchanged, never wrapped twice.
    let run = env
        .run(&[
            "--platform",
            "windows",
            "add",
            "mem",
            "-c",
            "cursor",
            "--",
            "cmd",
            "/c",
            "npx",
            "-y",
            "@modelcontextprotocol/server-memory",
        ])
        .ok();
    assert!(run.stdout.contains("unchanged"), "{}", run.stdout);
    env.run(&args(
        &[
            "--platform",
            "windows",
            "add",
            "plain",
            "-c",
            "cursor",
            "--no-wrap",
        ],
        MEMORY,
    ))
    .ok();
    assert_eq!(
        crate::env::command_of(&jsonc(&env.read(".cursor/mcp.json"))["mcpServers"]["plain"]),
        "npx"
    );
    env.run(&[
        "--platform",
        "windows",
        "add",
        "node",
        "-c",
        "cursor",
        "--",
        "node",
        "server.js",
    ])
    .ok();
    assert_eq!(
        jsonc(&env.read(".cursor/mcp.json"))["mcpServers"]["node"]["command"],
        "node"
    );
}

#[test]
fn readding_identical_entry_does_not_write() {
    let env = TestEnv::new();
    let path = env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    env.run(&args(&["add", "mem", "-c", "cursor"], MEMORY)).ok();
    let before = std::fs::metadata(&path).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let run = env
        .run(&args(&["add", "mem", "-c", "cursor", "--json"], MEMORY))
        .ok();
    assert_eq!(run.json()[0]["action"], "unchanged");
    let after = std::fs::metadata(&path).unwrap();
    assert_eq!(before.modified().unwrap(), after.modified().unwrap());
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        assert_eq!(before.ino(), after.ino());
    }
}

#[test]
fn same_name_different_content_needs_force_and_force_keeps_client_fields() {
    let env = TestEnv::new();
    let original = fixture("windsurf/mcp_config.json");
    env.write(".codeium/windsurf/mcp_config.json", &original);
    let run = env
        .run(&[
            "add",
            "sequential-thinking",
            "-c",
            "windsurf",
            "--",
            "uvx",
            "other",
        ])
        .code(2);
    assert!(
        run.stdout.contains("already exists") || run.stderr.contains("already exists"),
        "{}{}",
        run.stdout,
        run.stderr
    );
    assert!(run.stdout.contains("--force"), "{}", run.stdout);
    assert_eq!(env.read(".codeium/windsurf/mcp_config.json"), original);
    env.run(&[
        "add",
        "sequential-thinking",
        "-c",
        "windsurf",
        "--force",
        "--",
        "uvx",
        "other",
    ])
    .ok();
    let v = jsonc(&env.read(".codeium/windsurf/mcp_config.json"));
    assert_eq!(
        v["mcpServers"]["sequential-thinking"],
        json!({"command":"uvx","args":["other"],"disabled":false,"disabledTools":[]})
    );
}

#[test]
fn unparsable_file_is_never_written_and_error_names_line_and_column() {
    let env = TestEnv::new();
    let broken =
        b"{\n  \"mcpServers\": {\n    \"a\": { \"command\": \"x\" }\n    \"b\": {}\n  }\n}\n";
    env.write(".cursor/mcp.json", broken);
    let run = env
        .run(&args(&["add", "mem", "-c", "cursor"], MEMORY))
        .code(2);
    assert!(
        run.stdout
            .contains(&crate::env::os_path("~/.cursor/mcp.json"))
            && run.stdout.contains("4:"),
        "{}",
        run.stdout
    );
    assert_eq!(env.read(".cursor/mcp.json"), broken);
}

#[test]
fn wrong_typed_servers_key_is_never_written() {
    let env = TestEnv::new();
    let bytes = b"{ \"mcpServers\": [] }\n";
    env.write(".cursor/mcp.json", bytes);
    let run = env
        .run(&args(&["add", "mem", "-c", "cursor"], MEMORY))
        .code(2);
    assert!(run.stdout.contains("mcpServers"), "{}", run.stdout);
    assert_eq!(env.read(".cursor/mcp.json"), bytes);
}

#[test]
fn empty_file_counts_as_empty_config() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"  \n");
    env.run(&args(&["add", "mem", "-c", "cursor"], MEMORY)).ok();
    assert_eq!(
        crate::env::command_of(&jsonc(&env.read(".cursor/mcp.json"))["mcpServers"]["mem"]),
        "npx"
    );
}

#[test]
fn several_targets_report_every_file_then_exit_2() {
    let env = TestEnv::new();
    let run = env
        .run(&[
            "--json",
            "add",
            "web",
            "-c",
            "claude-desktop,cursor",
            "--platform",
            "macos",
            "--url",
            "https://x.example/mcp",
        ])
        .code(2);
    let v = run.json();
    assert_eq!(v[0]["client"], "claude-desktop");
    assert_eq!(v[0]["action"], "failed");
    assert!(v[0]["error"].as_str().unwrap().contains("cannot use http"));
    assert_eq!(v[1]["action"], "added");
}

#[test]
fn remote_on_claude_desktop_names_the_alternative() {
    let env = TestEnv::new();
    let run = env
        .run(&[
            "add",
            "web",
            "-c",
            "claude-desktop",
            "--platform",
            "macos",
            "--url",
            "https://x.example/mcp",
        ])
        .code(2);
    assert!(run.stdout.contains("Connectors"), "{}", run.stdout);
}

#[test]
fn no_target_without_tty_lists_detected_clients() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".cursor")).unwrap();
    env.on_path("codex");
    let run = env.run(&args(&["add", "mem"], MEMORY)).code(2);
    assert!(
        run.stderr.contains("cursor") && run.stderr.contains("codex"),
        "{}",
        run.stderr
    );
}

#[test]
fn all_targets_detected_clients_only() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".cursor")).unwrap();
    env.on_path("codex");
    let run = env
        .run(&args(&["--json", "add", "mem", "--all"], MEMORY))
        .ok();
    let clients: Vec<String> = run
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["client"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(clients, ["cursor", "codex"]);
    assert!(env.path(".codex/config.toml").exists());
    assert!(!env.path(".gemini/settings.json").exists());
}

#[test]
fn dry_run_prints_a_diff_and_writes_nothing() {
    let env = TestEnv::new();
    let original = fixture("cursor/mcp.json");
    env.write(".cursor/mcp.json", &original);
    let run = env
        .run(&args(&["add", "mem", "-c", "cursor", "--dry-run"], MEMORY))
        .ok();
    assert!(
        run.stdout.contains(&format!(
            "+++ b/{}",
            crate::env::os_path("~/.cursor/mcp.json")
        )),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("+        \"mem\": {"), "{}", run.stdout);
    assert_eq!(env.read(".cursor/mcp.json"), original);
}

#[test]
fn local_and_project_scopes() {
    let env = TestEnv::new();
    env.write(".claude.json", &fixture("claude-code/claude.json"));
    let project = env.path("code/app");
    std::fs::create_dir_all(&project).unwrap();
    let project_arg = project.to_str().unwrap();
    env.run(&args(
        &[
            "add",
            "mem",
            "-c",
            "claude-code",
            "--scope",
            "local",
            "--project",
            project_arg,
        ],
        MEMORY,
    ))
    .ok();
    let v = jsonc(&env.read(".claude.json"));
    assert_eq!(
        crate::env::command_of(
            &v["projects"][crate::env::claude_key(project_arg)]["mcpServers"]["mem"]
        ),
        "npx"
    );
    assert_eq!(v["numStartups"], 42);
    env.run(&args(
        &[
            "add",
            "mem",
            "-c",
            "cursor,claude-code",
            "--scope",
            "project",
            "--project",
            project_arg,
        ],
        MEMORY,
    ))
    .ok();
    assert_eq!(
        crate::env::command_of(&jsonc(&env.read("code/app/.cursor/mcp.json"))["mcpServers"]["mem"]),
        "npx"
    );
    assert_eq!(
        jsonc(&env.read("code/app/.mcp.json"))["mcpServers"]["mem"]["type"],
        "stdio"
    );
}

#[test]
fn bad_names_and_bad_flags_are_usage_errors() {
    let env = TestEnv::new();
    env.run(&args(&["add", "", "-c", "cursor"], MEMORY)).code(2);
    env.run(&args(&["add", "a\nb", "-c", "cursor"], MEMORY))
        .code(2);
    env.run(&args(&["add", "x", "-c", "nope"], MEMORY)).code(2);
    env.run(&["add", "x", "-c", "cursor"]).code(2);
    env.run(&args(
        &["add", "x", "-c", "cursor", "--env", "NOEQUALS"],
        MEMORY,
    ))
    .code(2);
    let run = env
        .run(&[
            "add",
            "x",
            "-c",
            "cursor",
            "--url",
            "https://x",
            "--env",
            "A=b",
        ])
        .code(2);
    assert!(run.stderr.contains("--header"), "{}", run.stderr);
}

#[test]
fn coloured_report_keeps_its_columns() {
    // Regression: the action was padded after colouring, so escape codes ate the padding.
    let env = TestEnv::new();
    let run = env
        .run(&args(
            &["add", "mem", "-c", "cursor", "--color", "always"],
            MEMORY,
        ))
        .ok();
    let line = run.stdout.lines().next().unwrap();
    assert!(line.contains("\u{1b}["), "{line:?}");
    let mut plain = String::new();
    let mut in_escape = false;
    for c in line.chars() {
        match (in_escape, c) {
            (false, '\u{1b}') => in_escape = true,
            (true, 'm') => in_escape = false,
            (true, _) => {}
            (false, c) => plain.push(c),
        }
    }
    assert!(plain.starts_with("added        cursor "), "{plain:?}");
}

#[test]
fn variable_references_are_spelled_the_way_each_client_expands_them() {
    let env = TestEnv::new();
    let run = env
        .run(&[
            "add",
            "gh",
            "-c",
            "claude-code,vscode,opencode,codex,windsurf",
            "--env",
            "GITHUB_TOKEN=${GITHUB_TOKEN}",
            "--env",
            "MODE=${MODE:-fast}",
            "--",
            "npx",
            "-y",
            "server-github",
        ])
        // Codex cannot carry `MODE` (issue 20): refused for it, written for the others.
        .code(2);
    let get = |rel: &str| jsonc(&env.read(rel));
    assert_eq!(
        get(".claude.json")["mcpServers"]["gh"]["env"]["GITHUB_TOKEN"],
        "${GITHUB_TOKEN}"
    );
    assert_eq!(
        get(".claude.json")["mcpServers"]["gh"]["env"]["MODE"],
        "${MODE:-fast}"
    );
    assert_eq!(
        get(crate::env::VSCODE)["servers"]["gh"]["env"]["GITHUB_TOKEN"],
        "${env:GITHUB_TOKEN}"
    );
    assert_eq!(
        get(".config/opencode/opencode.json")["mcp"]["gh"]["environment"]["GITHUB_TOKEN"],
        "{env:GITHUB_TOKEN}"
    );
    // Codex expands nothing: a reference no pass-through field carries is refused...
    assert!(
        run.stdout
            .contains("has no pass-through field for env `MODE`"),
        "{}",
        run.stdout
    );
    assert!(!env.path(".codex/config.toml").exists());
    // ...and the same-named variable is passed through instead.
    env.run(&[
        "add",
        "gh",
        "-c",
        "codex",
        "--env",
        "GITHUB_TOKEN=${GITHUB_TOKEN}",
        "--",
        "npx",
        "-y",
        "server-github",
    ])
    .ok();
    let toml = env.read_str(".codex/config.toml");
    assert!(toml.contains("env_vars = [\"GITHUB_TOKEN\"]"), "{toml}");
    assert!(!toml.contains("GITHUB_TOKEN = "), "{toml}");
    // Windsurf's expansion is unverified: written as given, with a warning.
    assert_eq!(
        get(".codeium/windsurf/mcp_config.json")["mcpServers"]["gh"]["env"]["GITHUB_TOKEN"],
        "${GITHUB_TOKEN}"
    );
    assert!(
        run.stderr
            .contains("does not know whether Windsurf (legacy) expands"),
        "{}",
        run.stderr
    );

    env.run(&[
        "add",
        "api",
        "-c",
        "codex",
        "--url",
        "https://x.example/mcp",
        "--header",
        "X-Api-Key=${API_KEY}",
        "--header",
        "Authorization=Bearer ${API_TOKEN}",
    ])
    .ok();
    let toml = env.read_str(".codex/config.toml");
    assert!(
        toml.contains("bearer_token_env_var = \"API_TOKEN\""),
        "{toml}"
    );
    assert!(toml.contains("X-Api-Key = \"API_KEY\""), "{toml}");
    assert!(toml.contains("env_http_headers"), "{toml}");
}

#[test]
#[cfg(unix)] // the big file's projects are keyed by Unix paths (`/home/alice/…`)
fn big_claude_json_add_remove_is_byte_identical() {
    // Real ~/.claude.json files reach tens to hundreds of MB; this one is a few MB with
    // the shapes that matter: a large `projects` map, escapes, unicode, floats.
    let mut text =
        String::from("{\n  \"numStartups\": 812,\n  \"lastCost\": 1.50e-2,\n  \"projects\": {\n");
    for p in 0..200 {
        text.push_str(&format!(
            "    \"/home/alice/code/p{p}\": {{\n      \"history\": [\n"
        ));
        for h in 0..60 {
            let comma = if h < 59 { "," } else { "" };
            text.push_str(&format!(
                "        {{\"display\": \"fix \\\"bug\\\" #{h} in \\\\src\\\\main.rs — ünïcödé\\n\\ttabbed {}\", \"pastedContents\": {{}}}}{comma}\n",
                "x".repeat(h * 3)
            ));
        }
        let comma = if p < 199 { "," } else { "" };
        text.push_str(&format!(
            "      ],\n      \"mcpServers\": {{}},\n      \"lastDuration\": 12.0\n    }}{comma}\n"
        ));
    }
    text.push_str("  },\n  \"mcpServers\": {\n    \"memory\": {\n      \"type\": \"stdio\",\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@modelcontextprotocol/server-memory\"]\n    }\n  }\n}");
    assert!(text.len() > 2_000_000, "{}", text.len());
    let env = TestEnv::new();
    env.write(".claude.json", text.as_bytes());
    env.run(&args(&["add", "mem2", "-c", "claude-code"], MEMORY))
        .ok();
    env.run(&args(
        &[
            "add",
            "mem2",
            "-c",
            "claude-code",
            "--scope",
            "local",
            "--project",
            "/home/alice/code/p7",
        ],
        MEMORY,
    ))
    .ok();
    let v = jsonc(&env.read(".claude.json"));
    assert_eq!(crate::env::command_of(&v["mcpServers"]["mem2"]), "npx");
    assert_eq!(
        crate::env::command_of(&v["projects"]["/home/alice/code/p7"]["mcpServers"]["mem2"]),
        "npx"
    );
    env.run(&["remove", "mem2", "-c", "claude-code"]).ok();
    env.run(&[
        "remove",
        "mem2",
        "-c",
        "claude-code",
        "--scope",
        "local",
        "--project",
        "/home/alice/code/p7",
    ])
    .ok();
    assert!(
        env.read(".claude.json") == text.as_bytes(),
        "add→remove changed bytes of the big file"
    );
}

#[test]
fn wrapping_warns_about_cmd_metacharacters() {
    let env = TestEnv::new();
    let run = env
        .run(&[
            "--platform",
            "windows",
            "add",
            "db",
            "-c",
            "cursor",
            "--",
            "npx",
            "-y",
            "server-postgres",
            "postgres://h/db?a=1&b=2",
        ])
        .ok();
    assert!(
        run.stderr.contains("`postgres://h/db?a=1&b=2`") && run.stderr.contains("cmd.exe"),
        "{}",
        run.stderr
    );
    let quiet = env
        .run(&[
            "--platform",
            "windows",
            "add",
            "mem",
            "-c",
            "cursor",
            "--",
            "npx",
            "-y",
            "server-memory",
        ])
        .ok();
    assert!(!quiet.stderr.contains("cmd.exe"), "{}", quiet.stderr);
}

#[test]
fn project_scope_edits_the_project_file_the_client_already_has() {
    // OpenCode reads opencode.jsonc as well as opencode.json, Kilo .kilo/kilo.json as well
    // as kilo.jsonc: add must edit the file that is there, not create a second one.
    let env = TestEnv::new();
    let jsonc = b"{\n  // team config\n  \"mcp\": {}\n}\n";
    env.write("repo/opencode.jsonc", jsonc);
    env.write("repo/.kilo/kilo.json", b"{\"mcp\": {}}\n");
    env.run(&[
        "add",
        "mem",
        "-c",
        "opencode,kilo",
        "--scope",
        "project",
        "--project",
        "repo",
        "--",
        "mcp-memory",
    ])
    .ok();
    assert!(
        !env.path("repo/opencode.json").exists(),
        "a second opencode file was created"
    );
    assert!(
        !env.path("repo/kilo.jsonc").exists(),
        "a second kilo file was created"
    );
    assert!(env.read_str("repo/opencode.jsonc").contains("\"mem\""));
    assert!(env.read_str("repo/.kilo/kilo.json").contains("\"mem\""));
    env.run(&[
        "remove",
        "mem",
        "-c",
        "opencode,kilo",
        "--scope",
        "project",
        "--project",
        "repo",
    ])
    .ok();
    assert_eq!(env.read("repo/opencode.jsonc"), jsonc);
}

/// Claude Code keys `projects` by the forward-slash path on Windows (`C:/Users/dev/proj`,
/// its `normalizePathForConfigKey`): `--scope local` writes that spelling, and an entry
/// under the backslash spelling (what mcpctl wrote before) is still listed and removable.
#[test]
fn claude_local_scope_on_windows_keys_by_the_forward_slash_path() {
    let env = TestEnv::new();
    let home = env.home().to_str().unwrap().to_owned();
    let project = r"C:\Users\dev\proj";
    // The simulation on Linux takes `C:\…` as a relative path (under HOME).
    let (slashed, native) = if cfg!(windows) {
        ("C:/Users/dev/proj".to_owned(), project.to_owned())
    } else {
        (
            format!("{home}/C:/Users/dev/proj"),
            format!("{home}/{project}"),
        )
    };
    let win = |rest: &[&str]| {
        let mut all = vec!["--platform", "windows", "--project", project];
        all.extend_from_slice(rest);
        env.run(&all)
    };
    env.write(
        ".claude.json",
        serde_json::to_string_pretty(&json!({
            "projects": {
                native.clone(): {"mcpServers": {"old": {"type": "stdio", "command": "node", "args": ["old.js"]}}},
                slashed.clone(): {"mcpServers": {"own": {"type": "stdio", "command": "node", "args": ["own.js"]}}}
            }
        }))
        .unwrap()
        .as_bytes(),
    );
    win(&[
        "add",
        "new",
        "-c",
        "claude-code",
        "--scope",
        "local",
        "--",
        "node",
        "new.js",
    ])
    .ok();
    let v = jsonc(&env.read(".claude.json"));
    assert_eq!(
        v["projects"][&slashed]["mcpServers"]["new"]["command"], "node",
        "{v}"
    );
    assert!(
        v["projects"][&native]["mcpServers"].get("new").is_none(),
        "{v}"
    );
    let rows = win(&["list", "--json", "-c", "claude-code"]).ok().json();
    let mut names: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["scope"] == "local")
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["new", "old", "own"], "{rows}");
    win(&["remove", "old", "-c", "claude-code"]).ok();
    win(&["remove", "own", "-c", "claude-code", "--scope", "local"]).ok();
    let v = jsonc(&env.read(".claude.json"));
    assert!(
        v["projects"][&native]["mcpServers"].get("old").is_none(),
        "{v}"
    );
    assert!(
        v["projects"][&slashed]["mcpServers"].get("own").is_none(),
        "{v}"
    );
    assert_eq!(
        v["projects"][&slashed]["mcpServers"]["new"]["command"], "node",
        "{v}"
    );
}

/// Adding a local entry that sits under the backslash spelling of the project key (an
/// older mcpctl wrote it there; Claude Code never loaded it) moves it where Claude reads
/// it, instead of leaving two entries of one name.
#[test]
fn claude_local_add_on_windows_moves_an_entry_from_the_backslash_key() {
    let env = TestEnv::new();
    let home = env.home().to_str().unwrap().to_owned();
    let project = r"C:\Users\dev\proj";
    // The simulation on Linux takes `C:\…` as a relative path (under HOME).
    let (slashed, native) = if cfg!(windows) {
        ("C:/Users/dev/proj".to_owned(), project.to_owned())
    } else {
        (
            format!("{home}/C:/Users/dev/proj"),
            format!("{home}/{project}"),
        )
    };
    let old = json!({"type": "stdio", "command": "node", "args": ["old.js"]});
    env.write(
        ".claude.json",
        serde_json::to_string_pretty(&json!({
            "projects": {native.clone(): {"mcpServers": {"old": old.clone()}}}
        }))
        .unwrap()
        .as_bytes(),
    );
    let add = |args: &[&str]| {
        let mut all = vec!["--platform", "windows", "--project", project, "add", "old"];
        all.extend_from_slice(&["-c", "claude-code", "--scope", "local", "--"]);
        all.extend_from_slice(args);
        env.run(&all)
    };
    // Different content is still refused without --force, and nothing moves.
    add(&["node", "other.js"]).code(2);
    add(&["node", "old.js"]).ok();
    let v = jsonc(&env.read(".claude.json"));
    assert!(
        v["projects"][&native]["mcpServers"].get("old").is_none(),
        "{v}"
    );
    assert_eq!(v["projects"][&slashed]["mcpServers"]["old"], old, "{v}");
}

/// A `.cmd` under `Program Files` with an argument that has a space: clients quote both,
/// and `cmd /c "…srv.cmd" "a b"` is a line cmd.exe cannot parse (exit 9009), so the
/// command goes behind `call`. `.bat` and `.BAT` shims are wrapped like `.cmd`.
#[test]
fn windows_batch_file_with_spaces_is_wrapped_with_call_and_bat_shims_are_wrapped() {
    let env = TestEnv::new();
    let srv = r"C:\Program Files\X\srv.cmd";
    let add = |name: &str, command: &[&str]| {
        let mut all = vec!["--platform", "windows", "add", name, "-c", "cursor", "--"];
        all.extend_from_slice(command);
        env.run(&all).ok();
        jsonc(&env.read(".cursor/mcp.json"))["mcpServers"][name].clone()
    };
    assert_eq!(
        add("s", &[srv, "a b"]),
        json!({"command": "cmd", "args": ["/c", "call", srv, "a b"]})
    );
    for (name, shim) in [("b", r"C:\tools\srv.bat"), ("u", r"C:\tools\SRV.BAT")] {
        assert_eq!(
            add(name, &[shim, "x"]),
            json!({"command": "cmd", "args": ["/c", shim, "x"]}),
            "{shim}"
        );
    }
    // What it runs, as `list` shows it: the batch file, not `call`.
    let rows = env
        .run(&["--platform", "windows", "list", "--json", "-c", "cursor"])
        .ok()
        .json();
    let s = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "s")
        .unwrap();
    assert_eq!(s["command"], srv, "{s}");
    assert_eq!(s["args"], json!(["a b"]), "{s}");
    let check = env
        .run(&[
            "--platform",
            "windows",
            "check",
            "--format",
            "json",
            "-c",
            "cursor",
        ])
        .json();
    assert!(
        !check.to_string().contains("MCP305"),
        "the written form is not the broken one: {check}"
    );
}
