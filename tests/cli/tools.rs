//! `mcpctl tools`, `mcpctl call`, and what doctor says about protocol eras and the token
//! cost of tool definitions, against `fixture-server` (the official Rust SDK) in both
//! eras and the official Python SDK (`.ci/peers.sh`).

use serde_json::{Value, json};

use crate::env::TestEnv;

use crate::doctor::{cursor_config, fixture, result};

/// The Python SDK server entry; fails the test when the venv is missing.
pub(crate) fn python_entry() -> Value {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join(".cache/peers/venv/bin/python");
    if !python.is_file() {
        crate::peer::missing("the PyPI `mcp` venv is not installed (run .ci/peers.sh)");
    }
    let script = root.join("tests/fixtures/servers/python_mcp_server.py");
    json!({"command": python, "args": [script]})
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn doctor_reports_the_era_and_the_token_cost_per_server_and_per_client() {
    let env = TestEnv::new();
    let bin = fixture();
    cursor_config(
        &env,
        json!({
            "old": {"command": bin, "args": []},
            "new": {"command": bin, "args": ["modern"]},
            // The same server again: its tools cost the client nothing more.
            "again": {"command": bin, "args": []}
        }),
    );
    let report = env.run(&["doctor", "-c", "cursor", "--json"]).ok().json();
    let old = result(&report, "old");
    assert_eq!(old["protocol_era"], "handshake", "{old}");
    assert_eq!(old["protocol_version"], "2025-11-25");
    let new = result(&report, "new");
    assert_eq!(new["protocol_era"], "modern", "{new}");
    assert_eq!(new["protocol_version"], "2026-07-28");
    let tokens = old["tokens"].as_u64().unwrap();
    assert!(tokens > 10, "{old}");
    assert_eq!(new["tokens"], tokens, "the same two tools in either era");
    assert_eq!(
        report["tokens"],
        json!([{"client": "cursor", "tokens": 2 * tokens, "servers": 2}])
    );
    assert!(report["token_method"].as_str().unwrap().contains("/ 4"));

    let run = env.run(&["doctor", "-c", "cursor"]).ok();
    assert!(
        run.stdout
            .contains(&format!("modern 2026-07-28 · 2 tools ≈ {tokens} tokens")),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("handshake 2025-11-25"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(&format!(
            "cursor: tool definitions ≈ {} tokens over 2 servers",
            2 * tokens
        )),
        "{}",
        run.stdout
    );
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn tools_lists_every_page_with_parameters_and_tokens() {
    let env = TestEnv::new();
    cursor_config(
        &env,
        json!({"paged": {"command": fixture(), "args": ["paginate"]}}),
    );
    let report = env.run(&["tools", "paged", "--json"]).ok().json();
    let tools = report["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 95, "every page");
    assert_eq!(tools[0]["name"], "tool_000");
    assert_eq!(tools[0]["inputSchema"], json!({"type": "object"}));
    assert!(report["tokens"].as_u64().unwrap() > 95 * 5);
    assert_eq!(report["protocol_era"], "handshake");
    assert_eq!(report["client"], "cursor");

    let run = env.run(&["tools", "paged"]).ok();
    assert!(run.stdout.contains("95 tools ≈ "), "{}", run.stdout);
    assert!(run.stdout.contains("\ntool_094 ≈ "), "{}", run.stdout);
    assert!(run.stdout.contains("  paged tool\n"), "{}", run.stdout);
    assert!(run.stdout.contains("    (no parameters)"), "{}", run.stdout);
    assert!(
        run.stderr.contains("tokens: bytes of the tool definitions"),
        "{}",
        run.stderr
    );
}

#[test]
#[ignore = "needs .ci/peers.sh"]
fn tools_of_a_python_sdk_server_show_required_parameters() {
    let python = python_entry();
    let env = TestEnv::new();
    cursor_config(&env, json!({"py": python}));
    let run = env.run(&["tools", "py", "-c", "cursor"]).ok();
    assert!(run.stdout.contains("modern 2026-07-28"), "{}", run.stdout);
    assert!(
        run.stdout.contains("    a: integer (required)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("  Add two integers."), "{}", run.stdout);
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn tools_and_call_of_an_unknown_server_are_usage_errors() {
    let env = TestEnv::new();
    cursor_config(&env, json!({"good": {"command": fixture(), "args": []}}));
    let run = env.run(&["tools", "nope", "-c", "cursor"]).code(2);
    assert!(
        run.stderr.contains("no server named `nope` in cursor"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("mcpctl list"), "{}", run.stderr);
    env.run(&["call", "nope", "hello"]).code(2);
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn tools_of_a_server_that_dies_says_why_and_exits_2() {
    let env = TestEnv::new();
    cursor_config(
        &env,
        json!({"dies": {"command": fixture(), "args": ["exit=3"]}}),
    );
    let run = env.run(&["tools", "dies"]).code(2);
    assert!(run.stderr.contains("exited with code 3"), "{}", run.stderr);
    assert!(
        run.stderr.contains("mcpctl doctor dies -c cursor"),
        "{}",
        run.stderr
    );
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn call_prints_the_text_content_in_both_eras() {
    let env = TestEnv::new();
    let bin = fixture();
    cursor_config(
        &env,
        json!({"old": {"command": bin, "args": []}, "new": {"command": bin, "args": ["modern"]}}),
    );
    for name in ["old", "new"] {
        let run = env.run(&["call", name, "hello"]).ok();
        assert_eq!(run.stdout, "hello\n", "{name}");
    }
    let result = env.run(&["call", "new", "hello", "--json"]).ok().json();
    assert_eq!(result["content"][0]["text"], "hello");
    assert_eq!(result["isError"], false);
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn call_of_an_unknown_tool_lists_the_tools_and_exits_2() {
    let env = TestEnv::new();
    cursor_config(&env, json!({"good": {"command": fixture(), "args": []}}));
    let run = env.run(&["call", "good", "nope"]).code(2);
    assert!(
        run.stderr
            .contains("the server has no tool `nope`; it has: hello, pid"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("mcpctl tools good -c cursor"),
        "{}",
        run.stderr
    );
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn call_flags_that_are_not_key_value_or_json_objects_are_usage_errors() {
    let env = TestEnv::new();
    cursor_config(&env, json!({"good": {"command": fixture(), "args": []}}));
    let run = env
        .run(&["call", "good", "hello", "--arg", "novalue"])
        .code(2);
    assert!(run.stderr.contains("is not KEY=VALUE"), "{}", run.stderr);
    let run = env.run(&["call", "good", "hello", "--args", "[1]"]).code(2);
    assert!(
        run.stderr.contains("--args must be a JSON object"),
        "{}",
        run.stderr
    );
    let run = env
        .run(&["call", "good", "hello", "--args", "{oops"])
        .code(2);
    assert!(
        run.stderr.contains("--args is not valid JSON"),
        "{}",
        run.stderr
    );
}

#[test]
#[ignore = "needs .ci/peers.sh"]
fn call_types_arguments_by_schema_and_exits_1_when_the_tool_fails() {
    let python = python_entry();
    let env = TestEnv::new();
    cursor_config(&env, json!({"py": python}));
    let run = env
        .run(&[
            "call",
            "py",
            "add",
            "--arg",
            "a=2",
            "--args",
            r#"{"b": 40}"#,
        ])
        .ok();
    assert_eq!(run.stdout, "42\n");
    let result = env
        .run(&[
            "call", "py", "add", "--arg", "a=2", "--arg", "b=3", "--json",
        ])
        .ok()
        .json();
    assert_eq!(result["structuredContent"], json!({"result": 5}));
    let run = env
        .run(&["call", "py", "add", "--arg", "a=two", "--arg", "b=3"])
        .code(2);
    assert!(
        run.stderr.contains("`two` is not an integer"),
        "{}",
        run.stderr
    );
    let run = env.run(&["call", "py", "add", "--arg", "a=1"]).code(2);
    assert!(run.stderr.contains("needs `b`"), "{}", run.stderr);
    let run = env
        .run(&["call", "py", "fail", "--arg", "reason=boom"])
        .code(1);
    assert!(
        run.stderr.contains("`fail` reported an error"),
        "{}",
        run.stderr
    );
}

#[test]
#[cfg(unix)] // the server is `touch`, a Unix program
fn tools_and_call_never_start_unapproved_project_servers() {
    // The rule doctor follows: a cloned repository's .cursor/mcp.json runs nothing
    // unless the client approved it or the user says --trust-project.
    let env = TestEnv::new();
    let marker = env.path("repo/pwned");
    let evil = json!({"mcpServers": {"evil": {"command": "touch", "args": [marker]}}});
    env.write("repo/.cursor/mcp.json", evil.to_string().as_bytes());
    let in_repo = |args: &[&str]| {
        let out = env
            .command(args)
            .current_dir(env.path("repo"))
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    for args in [
        &["tools", "evil", "-c", "cursor"][..],
        &["call", "evil", "hello", "-c", "cursor"][..],
    ] {
        let (code, stderr) = in_repo(args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("not started"), "{stderr}");
        assert!(stderr.contains("--trust-project"), "{stderr}");
        assert!(
            !marker.exists(),
            "{args:?} started an unapproved project server"
        );
    }
    // The explicit flag starts it (touch is no MCP server, so the listing itself fails).
    let (code, _) = in_repo(&[
        "tools",
        "evil",
        "-c",
        "cursor",
        "--trust-project",
        "--timeout",
        "5",
    ]);
    assert_eq!(code, Some(2));
    assert!(marker.exists(), "--trust-project did not start the server");
}

/// The real server-everything; fails the test when it is not installed.
fn everything_entry(env: &[(&str, &str)]) -> Value {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join(
        ".cache/peers/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    if !script.is_file() {
        crate::peer::missing("server-everything is not installed (run .ci/peers.sh)");
    }
    let env: serde_json::Map<String, Value> = env
        .iter()
        .map(|(k, v)| ((*k).to_owned(), json!(v)))
        .collect();
    json!({"command": "node", "args": [script, "stdio"], "env": env})
}

fn tool_names(env: &TestEnv, args: &[&str]) -> Vec<String> {
    let mut all = vec!["tools", "everything", "--json"];
    all.extend_from_slice(args);
    let report = env.run(&all).ok().json();
    report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// server-everything registers tools by what the client declares (roots, elicitation,
/// URL elicitation, sampling): `tools --as CLIENT` declares that client's capabilities
/// (its row's `[client.loading] capabilities`) and so lists what that client gets.
#[test]
#[ignore = "needs .ci/peers.sh"]
fn tools_as_a_client_lists_what_the_server_shows_that_client() {
    let entry = everything_entry(&[]);
    let env = TestEnv::new();
    cursor_config(&env, json!({"everything": entry}));
    // mcpctl's own declaration: roots and (declined) elicitation.
    let own = tool_names(&env, &["-c", "cursor"]);
    assert_eq!(own.len(), 15, "{own:?}");
    assert!(own.iter().any(|t| t == "get-roots-list"), "{own:?}");
    assert!(
        !own.iter().any(|t| t == "trigger-url-elicitation"),
        "{own:?}"
    );
    // Claude Code 2.1.332 declares roots and form + URL elicitation: 16, as it lists.
    let claude = tool_names(&env, &["-c", "cursor", "--as", "claude-code"]);
    assert_eq!(claude.len(), 16, "{claude:?}");
    assert!(
        claude.iter().any(|t| t == "trigger-url-elicitation"),
        "{claude:?}"
    );
    // Codex 0.171.0 declares form + URL elicitation and no roots: 15 too, another 15.
    let codex = tool_names(&env, &["-c", "cursor", "--as", "codex"]);
    assert_eq!(codex.len(), 15, "{codex:?}");
    assert!(
        codex.iter().any(|t| t == "trigger-url-elicitation"),
        "{codex:?}"
    );
    assert!(!codex.iter().any(|t| t == "get-roots-list"), "{codex:?}");
    // Gemini CLI declares roots only: no elicitation tools.
    let gemini = tool_names(&env, &["-c", "cursor", "--as", "gemini-cli"]);
    assert_eq!(gemini.len(), 14, "{gemini:?}");
    assert!(
        !gemini.iter().any(|t| t.contains("elicitation")),
        "{gemini:?}"
    );
}

/// `tools`/`call` start a server with the environment its client gives it: Gemini CLI
/// drops `PYTHONPATH` from an entry's env, so server-everything's `get-env` does not see it
/// (before, `call` passed it and said nothing).
#[test]
#[ignore = "needs .ci/peers.sh"]
fn call_starts_the_server_with_its_clients_environment() {
    let entry = everything_entry(&[("PYTHONPATH", "/opt/p"), ("MODE", "fast")]);
    let env = TestEnv::new();
    env.write(
        ".gemini/settings.json",
        serde_json::to_string_pretty(&json!({"mcpServers": {"everything": entry}}))
            .unwrap()
            .as_bytes(),
    );
    env.trust_in_gemini();
    let run = env
        .run(&["call", "everything", "get-env", "-c", "gemini-cli"])
        .ok();
    assert!(run.stdout.contains("MODE"), "{}", run.stdout);
    assert!(!run.stdout.contains("/opt/p"), "{}", run.stdout);
    // As another client (Cursor drops nothing), it does.
    let run = env
        .run(&[
            "call",
            "everything",
            "get-env",
            "-c",
            "gemini-cli",
            "--as",
            "cursor",
        ])
        .ok();
    assert!(run.stdout.contains("/opt/p"), "{}", run.stdout);
}

/// Issue 38 item 6: `doctor -c CLIENT` measures as that client, as `--help` says `--as`
/// defaults to `-c`: Gemini CLI declares roots only, so server-everything shows it 14
/// tools, not the 15 mcpctl's own declaration gets (`--as` is not needed for that).
#[test]
#[ignore = "needs .ci/peers.sh"]
fn doctor_for_one_client_measures_as_that_client() {
    let entry = everything_entry(&[]);
    let env = TestEnv::new();
    env.write(
        ".gemini/settings.json",
        serde_json::to_string_pretty(&json!({"mcpServers": {"everything": entry}}))
            .unwrap()
            .as_bytes(),
    );
    env.trust_in_gemini();
    let tools = |args: &[&str]| {
        let mut all = vec!["doctor", "--json", "-c", "gemini-cli"];
        all.extend_from_slice(args);
        let run = env.run(&all);
        let report = run.json();
        report["results"][0]["tools"]
            .as_u64()
            .unwrap_or_else(|| panic!("no tool count: {report}"))
    };
    assert_eq!(tools(&[]), 14);
    assert_eq!(tools(&["--as", "gemini-cli"]), 14);
}

/// Issue 38 item 6: `tools --as CLIENT` for a client whose row records no capabilities
/// fell back to mcpctl's own without a word; it now says so (and a client that has them
/// gets no such warning).
#[test]
#[ignore = "needs .ci/peers.sh"]
fn tools_as_a_client_without_recorded_capabilities_says_it_fell_back() {
    let entry = everything_entry(&[]);
    let env = TestEnv::new();
    cursor_config(&env, json!({"everything": entry}));
    let run = env
        .run(&["tools", "everything", "-c", "cursor", "--as", "windsurf"])
        .ok();
    assert!(
        run.stderr.contains("records no capabilities") && run.stderr.contains("mcpctl's own"),
        "{}",
        run.stderr
    );
    let run = env
        .run(&["tools", "everything", "-c", "cursor", "--as", "codex"])
        .ok();
    assert!(
        !run.stderr.contains("records no capabilities"),
        "{}",
        run.stderr
    );
}

/// Issue 41: `doctor -c CLIENT` starts the servers as that client would; for a client whose
/// row records no capabilities (Cursor) they are started declaring mcpctl's own, which
/// only `--json` said (`capabilities_fallback`). The human output says it too, in one
/// line for the whole run, not one per row; a client whose row records them (Codex) gets
/// no such line.
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn doctor_for_a_client_without_recorded_capabilities_says_it_fell_back_once() {
    let env = TestEnv::new();
    let fx = json!({"command": fixture(), "args": []});
    cursor_config(&env, json!({"one": fx.clone(), "two": fx}));
    let run = env.run(&["doctor", "-c", "cursor"]).ok();
    let said = format!("{}{}", run.stdout, run.stderr);
    assert_eq!(said.matches("records no capabilities").count(), 1, "{said}");
    assert!(said.contains("mcpctl's own"), "{said}");
    let report = env.run(&["doctor", "-c", "cursor", "--json"]).ok().json();
    assert!(
        report["capabilities_fallback"]
            .as_str()
            .is_some_and(|f| f.contains("records no capabilities")),
        "{report}"
    );
    env.write(
        ".codex/config.toml",
        format!(
            "[mcp_servers.one]\ncommand = {}\n",
            toml_edit::value(fixture()).to_string().trim()
        )
        .as_bytes(),
    );
    let run = env.run(&["doctor", "-c", "codex"]).ok();
    assert!(
        !format!("{}{}", run.stdout, run.stderr).contains("records no capabilities"),
        "{}{}",
        run.stdout,
        run.stderr
    );
}

/// Issue 38 item 6: the rows of OpenCode, Kilo, Amp, Factory Droid and Mistral Vibe now
/// record what each sends (peers::clients_declare_the_capabilities_their_rows_record), so
/// `tools --as` lists what each receives — Amp declares nothing and gets 13 tools, as its
/// own `amp mcp doctor` counts them, where mcpctl's declaration gets 15 — and says whose
/// capabilities it declared; a client whose row records none (Cursor) is said in `--json`.
#[test]
#[ignore = "needs .ci/peers.sh"]
fn tools_as_each_client_declares_what_that_client_sends() {
    let entry = everything_entry(&[]);
    let env = TestEnv::new();
    cursor_config(&env, json!({"everything": entry}));
    let report = |as_client: &str| {
        let run = env
            .run(&[
                "tools",
                "everything",
                "-c",
                "cursor",
                "--as",
                as_client,
                "--json",
            ])
            .ok();
        assert!(
            !run.stderr.contains("records no capabilities"),
            "{as_client}: {}",
            run.stderr
        );
        let report = run.json();
        assert_eq!(report["capabilities_of"], as_client, "{report}");
        assert_eq!(report["fallback"], Value::Null, "{report}");
        report["tools"].as_array().unwrap().len()
    };
    assert_eq!(report("amp"), 13);
    assert_eq!(report("factory"), 13);
    assert_eq!(report("mistral-vibe"), 13);
    // Roots without listChanged: server-everything's roots tool, no elicitation ones.
    assert_eq!(report("opencode"), 14);
    assert_eq!(report("kilo"), 14);
    let cursor = env
        .run(&[
            "tools",
            "everything",
            "-c",
            "cursor",
            "--as",
            "cursor",
            "--json",
        ])
        .ok()
        .json();
    assert_eq!(cursor["capabilities_of"], "mcpctl", "{cursor}");
    assert!(
        cursor["fallback"]
            .as_str()
            .is_some_and(|f| f.contains("records no capabilities")),
        "{cursor}"
    );
}
