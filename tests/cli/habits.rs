//! The first five minutes (issue 9): the CLI as people already type it after `claude mcp
//! add`, `gemini mcp add` and `npx add-mcp`, and what it says when they slip.

use std::io::Write;
use std::process::Stdio;

use crate::env::{Run, TestEnv, fixture, jsonc};

fn cursor_servers(env: &TestEnv) -> serde_json::Value {
    jsonc(&env.read(".cursor/mcp.json"))["mcpServers"].clone()
}

/// Run with `input` on stdin.
fn run_with_stdin(env: &TestEnv, args: &[&str], input: &str) -> Run {
    let mut child = env
        .command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

// §1 Habits from other MCP CLIs

#[test]
fn add_command_without_dashes_shows_the_corrected_line() {
    let env = TestEnv::new();
    let run = env
        .run(&["add", "plain", "-c", "cursor", "node", "server.js"])
        .code(2);
    assert!(
        run.stderr
            .contains("`mcpctl add plain -c cursor -- node server.js`"),
        "{}",
        run.stderr
    );
    assert!(!env.path(".cursor/mcp.json").exists());
}

#[test]
fn add_takes_a_url_after_the_name_with_a_remote_transport() {
    let env = TestEnv::new();
    env.run(&[
        "add",
        "--transport",
        "http",
        "docs",
        "https://docs.example.com/mcp",
        "-c",
        "cursor",
    ])
    .ok();
    env.run(&[
        "add",
        "-t",
        "sse",
        "old",
        "https://old.example.com/sse",
        "-c",
        "cursor",
    ])
    .ok();
    let servers = cursor_servers(&env);
    assert_eq!(servers["docs"]["url"], "https://docs.example.com/mcp");
    assert_eq!(servers["old"]["type"], "sse");
    // Without a transport: say exactly how to write it.
    let run = env
        .run(&["add", "x", "https://x.example.com/mcp", "-c", "cursor"])
        .code(2);
    assert!(
        run.stderr
            .contains("`mcpctl add x --url https://x.example.com/mcp -c cursor`"),
        "{}",
        run.stderr
    );
}

#[test]
fn add_accepts_explicit_stdio_short_flags_and_colon_headers() {
    let env = TestEnv::new();
    env.run(&[
        "add", "mem", "-c", "cursor", "-t", "stdio", "-s", "user", "-e", "DEBUG=1", "--", "npx",
        "-y", "m",
    ])
    .ok();
    env.run(&[
        "add",
        "web",
        "-c",
        "cursor",
        "-t",
        "streamable-http",
        "https://w.example.com/mcp",
        "-H",
        "Authorization: Bearer ${WEB_TOKEN}",
    ])
    .ok();
    let servers = cursor_servers(&env);
    assert_eq!(servers["mem"]["env"]["DEBUG"], "1");
    assert_eq!(
        servers["web"]["headers"]["Authorization"],
        "Bearer ${env:WEB_TOKEN}"
    );
    let run = env
        .run(&[
            "add",
            "bad",
            "-c",
            "cursor",
            "-t",
            "stdio",
            "--url",
            "https://b.example.com",
        ])
        .code(2);
    assert!(run.stderr.contains("--transport http"), "{}", run.stderr);
}

#[test]
fn scope_global_and_dash_g_mean_user() {
    let env = TestEnv::new();
    env.run(&[
        "add", "a", "-c", "cursor", "--scope", "global", "--", "npx", "a",
    ])
    .ok();
    env.run(&["add", "b", "-c", "cursor", "-g", "--", "npx", "b"])
        .ok();
    let servers = cursor_servers(&env);
    assert_eq!(crate::env::command_of(&servers["a"]), "npx");
    assert_eq!(crate::env::command_of(&servers["b"]), "npx");
}

#[test]
fn mcpctl_flag_after_dashes_is_passed_on_with_a_warning() {
    let env = TestEnv::new();
    let run = env
        .run(&["add", "s", "-c", "cursor", "--", "node", "s.js", "--force"])
        .ok();
    assert!(
        run.stderr
            .contains("`--force` after `--` is passed to the server"),
        "{}",
        run.stderr
    );
    assert_eq!(cursor_servers(&env)["s"]["args"][1], "--force");
}

#[test]
fn add_help_and_the_guide_state_the_default_scope() {
    let env = TestEnv::new();
    let help = env.run(&["add", "--help"]).ok().stdout;
    for needle in ["defaults to `user`", "claude mcp add", "gemini mcp add"] {
        assert!(help.contains(needle), "{needle}:\n{help}");
    }
    let guide = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/guide/everywhere.md"
    ))
    .unwrap();
    assert!(
        guide.contains("`claude mcp add` (default `local`)")
            && guide.contains("`gemini mcp add` (default `project`)"),
        "docs/guide/everywhere.md must say how the default scope differs"
    );
}

// §2 Client ids and names

#[test]
fn mistyped_client_id_gets_did_you_mean_not_a_dump() {
    let env = TestEnv::new();
    let run = env
        .run(&["add", "m", "-c", "cursr", "--", "npx", "m"])
        .code(2);
    assert!(
        run.stderr.contains("did you mean `cursor`?"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("windsurf"), "{}", run.stderr);
}

#[test]
fn client_ids_ignore_case_and_common_names_resolve() {
    let env = TestEnv::new();
    env.run(&["add", "m", "-c", "Cursor,gemini,code", "--", "npx", "m"])
        .ok();
    assert_eq!(crate::env::command_of(&cursor_servers(&env)["m"]), "npx");
    assert_eq!(
        crate::env::command_of(&jsonc(&env.read(".gemini/settings.json"))["mcpServers"]["m"]),
        "npx"
    );
    assert_eq!(
        crate::env::command_of(&jsonc(&env.read(crate::env::VSCODE))["servers"]["m"]),
        "npx"
    );
    let run = env
        .run(&["add", "m", "-c", "claude", "--", "npx", "m"])
        .code(2);
    assert!(
        run.stderr.contains("`claude-code`") && run.stderr.contains("`claude-desktop`"),
        "{}",
        run.stderr
    );
}

#[test]
fn remove_of_a_near_miss_name_exits_2_with_did_you_mean() {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        br#"{"mcpServers":{"docs":{"url":"https://d.example.com"}}}"#,
    );
    let before = env.read(".cursor/mcp.json");
    let run = env.run(&["remove", "docz", "-c", "cursor"]).code(2);
    assert!(
        run.stderr.contains("did you mean `docs`?"),
        "{}",
        run.stderr
    );
    assert_eq!(env.read(".cursor/mcp.json"), before);
    // With no target at all, too.
    let run = env.run(&["remove", "docz"]).code(2);
    assert!(
        run.stderr.contains("did you mean `docs`?"),
        "{}",
        run.stderr
    );
}

#[test]
fn remove_without_target_acts_on_the_one_client_that_has_the_name() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    env.write(
        ".codeium/windsurf/mcp_config.json",
        br#"{"mcpServers":{"other":{"command":"npx"}}}"#,
    );
    let run = env.run(&["remove", "linear"]).ok();
    assert!(run.stdout.contains("removed"), "{}", run.stdout);
    assert!(cursor_servers(&env).get("linear").is_none());
}

#[test]
fn remove_finds_an_entry_in_the_local_scope() {
    let env = TestEnv::new();
    let project = crate::env::claude_key(&env.home().display().to_string());
    env.write(
        ".claude.json",
        serde_json::json!({
            "projects": {project.clone(): {"mcpServers": {"prj": {"command": "npx"}}}},
            "mcpServers": {}
        })
        .to_string()
        .as_bytes(),
    );
    let listed = env
        .run(&["list", "--json", "-c", "claude-code"])
        .ok()
        .json();
    assert_eq!(listed[0]["scope"], "local");
    env.run(&["remove", "prj", "-c", "claude-code"]).ok();
    let doc = jsonc(&env.read(".claude.json"));
    assert!(
        doc["projects"][&project]["mcpServers"]
            .as_object()
            .unwrap()
            .is_empty(),
        "{doc}"
    );
}

#[test]
fn doctor_unknown_name_exits_2_with_did_you_mean() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    let run = env.run(&["doctor", "postgre", "--no-spawn"]).code(2);
    assert!(
        run.stderr.contains("did you mean `postgres`?"),
        "{}",
        run.stderr
    );
    let run = env.run(&["doctor", "nosuch", "--no-spawn"]).code(2);
    assert!(run.stderr.contains("nosuch"), "{}", run.stderr);
}

// §3 --from-json as snippets are pasted

#[test]
fn from_json_reads_stdin_and_files_and_takes_the_name_from_the_snippet() {
    let env = TestEnv::new();
    let run = run_with_stdin(
        &env,
        &["add", "-c", "cursor", "--from-json", "-"],
        "{\n  // pasted from a README\n  \"mcpServers\": {\n    \"fs\": {\"command\": \"npx\", \"args\": [\"-y\", \"fs\"],},\n  },\n}\n",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(crate::env::args_of(&cursor_servers(&env)["fs"])[1], "fs");
    let file = env.write(
        "snippet.json",
        br#"{"mcpServers":{"mem":{"command":"npx"}}}"#,
    );
    let at = format!("@{}", file.display());
    let run = env
        .run(&["add", "memory", "-c", "cursor", "--from-json", &at])
        .ok();
    assert!(
        run.stderr
            .contains("the snippet calls the server `mem`; adding it as `memory`"),
        "{}",
        run.stderr
    );
    assert_eq!(
        crate::env::command_of(&cursor_servers(&env)["memory"]),
        "npx"
    );
}

#[test]
fn from_json_quoting_hint_only_for_shell_mangled_text() {
    let env = TestEnv::new();
    let run = env
        .run(&["add", "x", "-c", "cursor", "--from-json", "{command:npx}"])
        .code(2);
    assert!(run.stderr.contains("single quotes"), "{}", run.stderr);
    let run = env
        .run(&[
            "add",
            "x",
            "-c",
            "cursor",
            "--from-json",
            r#"{"command": "npx" "args": []}"#,
        ])
        .code(2);
    assert!(!run.stderr.contains("single quotes"), "{}", run.stderr);
    assert!(run.stderr.contains("1:"), "{}", run.stderr);
}

#[test]
fn from_json_vscode_inputs_become_variables_elsewhere_and_stay_in_vscode() {
    let env = TestEnv::new();
    let snippet = r#"{"mcp":{"inputs":[{"type":"promptString","id":"github_token","description":"GitHub Personal Access Token","password":true}],"servers":{"github":{"type":"http","url":"https://api.githubcopilot.com/mcp/","headers":{"Authorization":"Bearer ${input:github_token}"}}}}}"#;
    let run = env
        .run(&["add", "-c", "cursor,vscode", "--from-json", snippet])
        .ok();
    assert!(
        run.stderr.contains("GITHUB_TOKEN") && run.stderr.contains("GitHub Personal Access Token"),
        "{}",
        run.stderr
    );
    assert_eq!(
        cursor_servers(&env)["github"]["headers"]["Authorization"],
        "Bearer ${env:GITHUB_TOKEN}"
    );
    let vscode = jsonc(&env.read(crate::env::VSCODE));
    assert_eq!(
        vscode["servers"]["github"]["headers"]["Authorization"],
        "Bearer ${input:github_token}"
    );
    assert_eq!(vscode["inputs"][0]["id"], "github_token");
    // Again: nothing changes, the input is not duplicated.
    env.run(&["add", "-c", "vscode", "--from-json", snippet])
        .ok();
    let vscode = jsonc(&env.read(crate::env::VSCODE));
    assert_eq!(vscode["inputs"].as_array().unwrap().len(), 1);
}

// §4 Secrets and side effects

#[test]
fn dry_run_diff_redacts_secrets_as_list_does() {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        b"{\n  \"mcpServers\": {\n    \"old\": {\"command\": \"npx\", \"env\": {\"API_KEY\": \"sk-old-0123456789abcdefghij\"}}\n  }\n}\n",
    );
    let token = "ghp_0123456789abcdefghijklmnopqrstuvwxyz";
    let run = env
        .run(&[
            "add",
            "gh",
            "-c",
            "cursor",
            "--dry-run",
            "-e",
            &format!("GITHUB_TOKEN={token}"),
            "-e",
            "REF=${GITHUB_TOKEN}",
            "--",
            "npx",
            "gh",
        ])
        .ok();
    assert!(!run.stdout.contains(token), "{}", run.stdout);
    assert!(!run.stdout.contains("sk-old"), "{}", run.stdout);
    assert!(run.stdout.contains("<redacted>"), "{}", run.stdout);
    assert!(run.stdout.contains("${env:GITHUB_TOKEN}"), "{}", run.stdout);
}

#[test]
fn list_show_secrets_shows_values_in_the_table() {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        br#"{"mcpServers":{"m":{"command":"npx","env":{"TOKEN":"s3cret-value"}}}}"#,
    );
    let hidden = env.run(&["list", "-c", "cursor"]).ok();
    assert!(!hidden.stdout.contains("s3cret-value"), "{}", hidden.stdout);
    let shown = env.run(&["list", "-c", "cursor", "--show-secrets"]).ok();
    assert!(
        shown.stdout.contains("TOKEN=s3cret-value"),
        "{}",
        shown.stdout
    );
}

#[test]
fn literal_secret_in_env_warns_and_shows_the_reference_form() {
    let env = TestEnv::new();
    let run = env
        .run(&[
            "add",
            "gh",
            "-c",
            "cursor",
            "-e",
            "GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyz",
            "--",
            "npx",
            "gh",
        ])
        .ok();
    assert!(run.stderr.contains("plain text"), "{}", run.stderr);
    assert!(
        run.stderr.contains("-e 'GITHUB_TOKEN=${GITHUB_TOKEN}'"),
        "{}",
        run.stderr
    );
    let quiet = env
        .run(&[
            "add",
            "gh2",
            "-c",
            "cursor",
            "-e",
            "GITHUB_TOKEN=${GITHUB_TOKEN}",
            "--",
            "npx",
            "gh",
        ])
        .ok();
    assert!(!quiet.stderr.contains("plain text"), "{}", quiet.stderr);
}

#[test]
fn output_says_where_the_backup_went() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    let run = env
        .run(&["add", "m", "-c", "cursor", "--", "npx", "m"])
        .ok();
    assert!(
        run.stderr.contains("previous version kept in"),
        "{}",
        run.stderr
    );
    let run = env
        .run(&["--json", "add", "n", "-c", "cursor", "--", "npx", "n"])
        .ok();
    let backup = run.json()[0]["backup"].as_str().unwrap().to_owned();
    assert!(backup.contains("backups"), "{backup}");
}

#[test]
fn bad_urls_exit_2_and_write_nothing() {
    let env = TestEnv::new();
    for url in ["not-a-url", "", "file:///etc/passwd", "https://"] {
        let run = env
            .run(&["add", "web", "-c", "cursor", "--url", url])
            .code(2);
        assert!(
            run.stderr.contains("not a server URL"),
            "{url}: {}",
            run.stderr
        );
    }
    let run = env
        .run(&[
            "add",
            "-c",
            "cursor",
            "--from-json",
            r#"{"mcpServers":{"w":{"url":"ftp://x"}}}"#,
        ])
        .code(2);
    assert!(run.stderr.contains("not a server URL"), "{}", run.stderr);
    assert!(!env.path(".cursor/mcp.json").exists());
}

#[test]
fn names_with_spaces_or_dots_warn_for_clients_that_mangle_them() {
    let env = TestEnv::new();
    let run = env
        .run(&[
            "add",
            "my server.v2",
            "-c",
            "roo-code,cursor",
            "--",
            "npx",
            "m",
        ])
        .ok();
    assert!(
        run.stderr
            .contains("Roo Code may reject or rename the server `my server.v2`"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("Cursor may"), "{}", run.stderr);
}

// §5 The terminal

#[test]
fn tables_and_notes_fit_the_terminal_width() {
    let mut env = TestEnv::new();
    env.extra_env.push(("COLUMNS".into(), "80".into()));
    env.write(
        ".cursor/mcp.json",
        br#"{"mcpServers":{"fs":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/home/alice/projects/a-rather-long-directory-name/and/deeper/still","/tmp/another/long/path/for/good/measure"]}}}"#,
    );
    let run = env.run(&["list", "-c", "cursor"]).ok();
    for line in run.stdout.lines() {
        assert!(
            line.chars().count() <= 80,
            "{} > 80: {line}",
            line.chars().count()
        );
    }
    assert!(run.stdout.lines().count() > 2, "{}", run.stdout);
    // Words are not broken mid-way when they fit.
    assert!(
        run.stdout
            .contains("@modelcontextprotocol/server-filesystem"),
        "{}",
        run.stdout
    );
    let doctor = env.run(&["doctor", "-c", "cursor", "--timeout", "0.1"]);
    for line in doctor.stderr.lines().filter(|l| l.contains("checking")) {
        assert!(line.chars().count() <= 80, "banner: {line}");
    }
    // The banner comes when a server starts: on Windows an unwrapped `npx` is not started
    // (a batch shim needs `cmd /c`, MCP301).
    assert!(
        doctor.stderr.contains("checking 1 server") || cfg!(windows),
        "{}",
        doctor.stderr
    );
}

#[test]
fn help_has_global_heading_examples_and_transport_default() {
    let env = TestEnv::new();
    let top = env.run(&["--help"]).ok().stdout;
    assert!(top.contains("Global options:"), "{top}");
    for command in ["add", "remove", "list", "doctor", "check", "clients"] {
        let help = env.run(&[command, "--help"]).ok().stdout;
        assert!(help.contains("Examples:\n  mcpctl"), "{command}:\n{help}");
    }
    let add = env.run(&["add", "--help"]).ok().stdout;
    assert!(
        add.contains("default: stdio with a command, http with a URL"),
        "{add}"
    );
}

#[test]
fn completions_name_client_ids_and_man_prints_roff() {
    let env = TestEnv::new();
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let run = env.run(&["completions", shell]).ok();
        assert!(run.stdout.contains("mcpctl"), "{shell}");
        // clap_complete's PowerShell script completes commands and flags, not values.
        if shell != "powershell" {
            assert!(run.stdout.contains("claude-code"), "{shell}: no client ids");
        }
    }
    let man = env.run(&["man"]).ok().stdout;
    assert!(
        man.starts_with(".ie") || man.contains(".TH mcpctl"),
        "{}",
        &man[..200.min(man.len())]
    );
    assert!(man.contains("completions"), "subcommands listed");
}

/// Issue 40: the man page was the top level only; `man --dir` writes a page for every
/// command (`man mcpctl-add`), creating the directory on a fresh HOME.
#[test]
fn man_dir_writes_a_page_for_every_command() {
    let env = TestEnv::new();
    let dir = env.path(".local/share/man/man1");
    let run = env.run(&["man", "--dir", dir.to_str().unwrap()]).ok();
    for page in [
        "mcpctl.1",
        "mcpctl-add.1",
        "mcpctl-doctor.1",
        "mcpctl-secret-set.1",
    ] {
        let text =
            std::fs::read_to_string(dir.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.contains(".TH"), "{page}: {text}");
    }
    let add = std::fs::read_to_string(dir.join("mcpctl-add.1")).unwrap();
    assert!(
        add.contains("from\\-json") || add.contains("from-json"),
        "{add}"
    );
    let count = std::fs::read_dir(&dir).unwrap().count();
    assert!(
        run.stderr.contains(&format!("wrote {count} man pages")),
        "{count}: {}",
        run.stderr
    );
}

// §6 check without false alarms

#[test]
fn check_does_not_cry_windows_on_linux_but_does_for_windows_only_clients() {
    let env = TestEnv::new();
    env.write(
        ".mcp.json",
        br#"{"mcpServers": {"m": {"command": "npx", "args": ["-y", "m@1.0.0"]}}}"#,
    );
    let run = env
        .run(&["check", "--platform", "linux", "--deny", "warning"])
        .ok();
    assert!(!run.stdout.contains("MCP301"), "{}", run.stdout);
    env.write(
        "vs/.mcp.json",
        br#"{"servers": {"m": {"type": "stdio", "command": "npx", "args": ["-y", "m@1.0.0"]}}}"#,
    );
    let run = env
        .run(&[
            "check",
            "--platform",
            "linux",
            "-c",
            "visual-studio",
            "vs/.mcp.json",
        ])
        .code(1);
    assert!(run.stdout.contains("error[MCP301]"), "{}", run.stdout);
}

#[test]
fn check_marks_only_what_fix_fixes_and_fix_does_not_loop() {
    let env = TestEnv::new();
    // A user file on Linux: `cmd /c` is an error `--fix` unwraps.
    env.write(
        ".codeium/windsurf/mcp_config.json",
        br#"{"mcpServers": {"m": {"command": "cmd", "args": ["/c", "npx", "-y", "m@1.0.0"]}}}"#,
    );
    // A project file: the same entry is a warning with no fix (teammates may need it).
    env.write(
        ".mcp.json",
        br#"{"mcpServers": {"p": {"command": "cmd", "args": ["/c", "npx", "-y", "p@1.0.0"]}}}"#,
    );
    let run = env.run(&["check", "--user", "--platform", "linux"]).code(1);
    let user_line = run
        .stdout
        .lines()
        .find(|l| l.contains("server `m`"))
        .unwrap();
    let project_line = run.stdout.lines().find(|l| l.contains("`p`")).unwrap();
    assert!(user_line.ends_with("(fixable)"), "{user_line}");
    assert!(!project_line.contains("(fixable)"), "{project_line}");
    assert!(
        run.stderr.contains("1 finding marked (fixable)"),
        "{}",
        run.stderr
    );
    let json = env
        .run(&["check", "--user", "--platform", "linux", "--format", "json"])
        .code(1)
        .json();
    let fixable: Vec<bool> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["fixable"].as_bool().unwrap())
        .collect();
    assert!(
        fixable.contains(&true) && fixable.contains(&false),
        "{json}"
    );
    env.run(&["check", "--user", "--platform", "linux", "--fix"]);
    let again = env.run(&["check", "--user", "--platform", "linux"]);
    assert!(!again.stdout.contains("(fixable)"), "{}", again.stdout);
    assert!(
        !again.stderr.contains("marked (fixable)"),
        "{}",
        again.stderr
    );
}

#[test]
fn check_accepts_the_fields_clients_document_and_write() {
    let env = TestEnv::new();
    env.write(
        ".mcp.json",
        br#"{"mcpServers": {
  "local": {"type": "stdio", "command": "node", "args": ["s.js"], "cwd": "tools", "timeout": 30000, "alwaysLoad": true},
  "remote": {"type": "streamable-http", "url": "https://r.example.com/mcp", "headersHelper": "get-headers.sh", "oauth": {"clientId": "abc", "callbackPort": 8765, "scopes": "read"}},
  "socket": {"type": "ws", "url": "wss://w.example.com/mcp"}
}}"#,
    );
    env.write(
        ".vscode/mcp.json",
        br#"{"servers": {"gh": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "gallery": true, "version": "1.2.0"}}}"#,
    );
    env.write(
        ".codex/config.toml",
        b"[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs-mcp@1.0.0\"]\ndefault_tools_approval_mode = \"prompt\"\n\n[mcp_servers.docs.tools.search]\napproval_mode = \"approve\"\n",
    );
    let run = env
        .run(&[
            "check",
            "--platform",
            "linux",
            "--deny",
            "warning",
            ".mcp.json",
            ".vscode/mcp.json",
            ".codex/config.toml",
        ])
        .ok();
    assert!(!run.stdout.contains("warning["), "{}", run.stdout);
}

#[test]
fn kiro_honours_kiro_home() {
    let mut env = TestEnv::new();
    let kiro_home = env.path("elsewhere/kiro");
    env.extra_env
        .push(("KIRO_HOME".into(), kiro_home.display().to_string()));
    env.run(&["add", "m", "-c", "kiro", "--", "npx", "m"]).ok();
    assert!(env.path("elsewhere/kiro/settings/mcp.json").exists());
    assert!(!env.path(".kiro/settings/mcp.json").exists());
}

// Every README example works as printed: tests/cli/docs.rs, over the book's examples too.

#[test]
fn check_names_servers_in_files_no_client_reads() {
    let env = TestEnv::new();
    // A committed `.claude/mcp.json` (the project file is `.mcp.json`): found without
    // naming it, reported with the file Claude Code reads instead.
    env.write(
        "repo/.claude/mcp.json",
        b"{\n  \"mcpServers\": {\n    \"github\": {\"command\": \"github-mcp-server\"}\n  }\n}\n",
    );
    let run = env
        .run(&["check", "--project", "repo", "--deny", "warning"])
        .code(1);
    assert!(
        run.stdout
            .contains(".claude/mcp.json:2:3: warning[MCP006] 1 server under `mcpServers`"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("`.mcp.json`"), "{}", run.stdout);
    // Named on the command line, without `-c`: VS Code's settings.json (`mcp.servers`
    // stopped being read in 1.102) and ~/.codex/mcp.json.
    let settings = env.write(
        crate::env::VSCODE_SETTINGS,
        b"{\n  // editor settings\n  \"editor.fontSize\": 13,\n  \"mcp\": {\n    \"servers\": {\n      \"a\": {\"command\": \"a\"},\n      \"b\": {\"command\": \"b\"}\n    }\n  }\n}\n",
    );
    let codex = env.write(
        ".codex/mcp.json",
        br#"{"mcpServers": {"x": {"command": "x"}}}"#,
    );
    let run = env
        .run(&["check", settings.to_str().unwrap(), codex.to_str().unwrap()])
        .ok();
    assert!(
        run.stdout
            .contains("settings.json:5:5: warning[MCP006] 2 servers under `mcp.servers`"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("mcp.json` beside `settings.json`"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("mcp.json:1:2: warning[MCP006]") && run.stdout.contains("config.toml"),
        "{}",
        run.stdout
    );
    // `--user` finds the user-level ones; a settings.json without servers is no finding.
    env.write(
        ".claude/settings.json",
        br#"{"permissions": {"allow": []}}"#,
    );
    env.write(
        ".claude/mcp.json",
        br#"{"mcpServers": {"m": {"command": "m"}}}"#,
    );
    let run = env.run(&["check", "--user", "--json"]).ok();
    let findings = run.json();
    let codes: Vec<(&str, &str)> = findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["code"].as_str().unwrap()))
        .collect();
    assert!(
        codes
            .iter()
            .any(|(p, c)| p.ends_with(".claude/mcp.json") && *c == "MCP006"),
        "{codes:?}"
    );
    assert!(
        !codes
            .iter()
            .any(|(p, _)| p.ends_with("settings.json") && p.contains(".claude")),
        "{codes:?}"
    );
    let explain = env.run(&["check", "--explain", "MCP006"]).ok().stdout;
    assert!(explain.contains("1.102"), "{explain}");
}

#[test]
fn list_of_a_near_miss_name_exits_2_with_did_you_mean() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    let run = env.run(&["list", "postgre"]).code(2);
    assert!(
        run.stderr.contains("no server named `postgre`")
            && run.stderr.contains("did you mean `postgres`?"),
        "{}",
        run.stderr
    );
    let run = env.run(&["list", "nosuch", "--json"]).code(2);
    assert!(run.stderr.contains("`nosuch`"), "{}", run.stderr);
    // A name that matches is listed as before.
    let run = env.run(&["list", "postgres"]).ok();
    assert!(run.stdout.contains("postgres"), "{}", run.stdout);
}
