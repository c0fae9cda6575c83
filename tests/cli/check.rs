//! `mcpctl check`: every rule against a fixture that triggers it and one that must not,
//! every output format, exit codes, path inference, `--fix` (bytes outside the fixed
//! entry unchanged, parse-error files untouched) and `--explain`.

use crate::env::{TestEnv, fixture};

/// (code, client the file is checked as). Fixtures: `check/<code>-bad.json` and
/// `check/<code>-good.json`.
const CASES: &[(&str, &str)] = &[
    ("MCP001", "claude-code"),
    ("MCP002", "claude-code"),
    ("MCP003", "cursor"),
    ("MCP004", "claude-code"),
    ("MCP005", "gemini-cli"),
    ("MCP101", "claude-code"),
    ("MCP102", "claude-code"),
    ("MCP103", "claude-code"),
    ("MCP104", "claude-code"),
    ("MCP105", "claude-code"),
    ("MCP106", "claude-code"),
    ("MCP107", "claude-code"),
    ("MCP108", "claude-code"),
    ("MCP201", "windsurf"),
    ("MCP202", "opencode"),
    ("MCP203", "roo-code"),
    ("MCP204", "cline"),
    ("MCP205", "vscode"),
    ("MCP206", "cursor"),
    ("MCP207", "claude-desktop"),
    ("MCP208", "cline"),
    ("MCP209", "claude-code"),
    ("MCP301", "cursor"),
    ("MCP302", "cursor"),
    ("MCP303", "cursor"),
    ("MCP304", "cursor"),
    ("MCP305", "cursor"),
    ("MCP401", "claude-code"),
    ("MCP402", "claude-code"),
    ("MCP403", "claude-code"),
    ("MCP501", "cursor"),
    ("MCP502", "vscode"),
];

fn codes(run: &crate::env::Run) -> Vec<String> {
    run.json()
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_owned())
        .collect()
}

fn check_as(env: &TestEnv, client: &str, rel: &str, extra: &[&str]) -> crate::env::Run {
    let path = env.path(rel);
    let path = path.to_str().unwrap();
    let platform = if extra.contains(&"--platform") {
        &[][..]
    } else {
        &["--platform", "linux"][..]
    };
    let mut args = vec!["check"];
    args.extend_from_slice(platform);
    args.extend_from_slice(&["--format", "json", "-c", client, path]);
    args.extend_from_slice(extra);
    env.run(&args)
}

#[test]
fn every_rule_fires_on_its_bad_fixture_and_not_on_its_good_one() {
    let env = TestEnv::new();
    // MCP6xx (sync) are reported by `plan --check`, not the linter: tests/cli/manifest.rs.
    // MCP006 depends on the file's path, not its text (`-c` names a file the client
    // reads): tests/cli/habits.rs `check_names_servers_in_files_no_client_reads`.
    // MCP210 depends on an administrator's policy file at a system path:
    // tests/cli/policy.rs `check_flags_entries_the_policy_blocks_as_mcp210`.
    // MCP503 depends on mcpctl's environment: tests/cli/first_hour.rs
    // `an_unset_variable_is_one_rule_in_every_command`.
    for rule in mcpctl::api::check::RULES.iter().filter(|r| {
        !r.code.starts_with("MCP6") && !["MCP006", "MCP210", "MCP503"].contains(&r.code)
    }) {
        assert!(
            CASES.iter().any(|(code, _)| code == &rule.code),
            "{} has no fixture case",
            rule.code
        );
    }
    for (code, client) in CASES {
        for kind in ["bad", "good"] {
            let rel = format!("{code}-{kind}.json");
            env.write(&rel, &fixture(&format!("check/{rel}")));
            // MCP301 is about files used on Windows.
            let extra: &[&str] = if *code == "MCP301" {
                &["--platform", "windows"]
            } else {
                &[]
            };
            let run = check_as(&env, client, &rel, extra);
            assert!(run.code == 0 || run.code == 1, "{rel}: {}", run.stderr);
            let found = codes(&run);
            if kind == "bad" {
                assert!(
                    found.iter().any(|c| c == code),
                    "{rel} as {client}: {found:?}"
                );
            } else {
                assert!(
                    !found.iter().any(|c| c == code),
                    "{rel} as {client}: {found:?}"
                );
            }
        }
    }
}

#[test]
fn parse_error_reports_only_that_with_line_and_column() {
    let env = TestEnv::new();
    env.write(
        ".mcp.json",
        b"{\n  // c\n  \"mcpServers\": { \"a\": \"x\",, }\n}\n",
    );
    let run = env.run(&["check", "--format", "json"]).code(1);
    let findings = run.json();
    assert_eq!(findings.as_array().unwrap().len(), 1);
    assert_eq!(findings[0]["code"], "MCP001");
    assert_eq!(findings[0]["line"], 3);
    assert_eq!(findings[0]["column"], 28);
    assert_eq!(findings[0]["path"], ".mcp.json");
}

#[test]
fn jsonc_clients_accept_comments_and_trailing_commas() {
    let env = TestEnv::new();
    env.write(
        ".vscode/mcp.json",
        b"{\n  // ok in VS Code\n  \"servers\": {\n    \"m\": { \"type\": \"stdio\", \"command\": \"mcp-memory\", },\n  },\n}\n",
    );
    let run = env.run(&["check", "--format", "json"]).ok();
    assert_eq!(run.json(), serde_json::json!([]));
}

#[test]
fn codex_toml_findings_have_positions() {
    let env = TestEnv::new();
    env.write(".codex/config.toml", &fixture("check/codex-bad.toml"));
    let run = env.run(&["check", "--format", "json"]).code(1);
    let findings = run.json();
    let by_code = |code: &str| {
        findings
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["code"] == code)
            .unwrap_or_else(|| panic!("{code} missing: {findings}"))
            .clone()
    };
    assert_eq!(
        (
            by_code("MCP106")["line"].as_u64(),
            by_code("MCP106")["column"].as_u64()
        ),
        (Some(5), Some(18))
    );
    assert_eq!(by_code("MCP206")["line"], 6);
    assert_eq!(by_code("MCP501")["line"], 9);
    env.write(".codex/config.toml", &fixture("check/codex-good.toml"));
    env.run(&["check", "--format", "json"]).ok();
}

#[test]
fn project_files_are_found_and_clients_inferred_from_paths() {
    let env = TestEnv::new();
    env.write(".mcp.json", &fixture("check/MCP402-bad.json"));
    env.write(".cursor/mcp.json", &fixture("check/MCP501-bad.json"));
    env.write(".vscode/mcp.json", &fixture("check/MCP205-bad.json"));
    env.write("opencode.jsonc", &fixture("check/MCP202-bad.json"));
    env.write(".gemini/settings.json", b"{ \"theme\": \"x\" }");
    let run = env.run(&["check", "--format", "json"]).code(1);
    let findings = run.json();
    let pairs: Vec<(String, String)> = findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_owned(),
                f["code"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    for (path, code) in [
        (".mcp.json", "MCP402"),
        (".cursor/mcp.json", "MCP501"),
        (".vscode/mcp.json", "MCP205"),
        ("opencode.jsonc", "MCP202"),
    ] {
        assert!(
            pairs.contains(&(path.to_owned(), code.to_owned())),
            "{path} {code}: {pairs:?}"
        );
    }
    // Explicit paths infer the same way; a path no client reads is exit 2 with a hint.
    env.run(&["check", ".cursor/mcp.json"]).code(0);
    env.write("notes/servers.json", b"{}");
    let run = env.run(&["check", "notes/servers.json"]).code(2);
    assert!(
        run.stderr.contains("cannot tell which client") && run.stderr.contains("-c ID"),
        "{}",
        run.stderr
    );
    env.run(&["check", "-c", "cursor", "notes/servers.json"])
        .ok();
}

#[test]
fn shared_mcp_json_with_servers_key_is_visual_studio() {
    let env = TestEnv::new();
    env.write(
        ".mcp.json",
        b"{ \"servers\": { \"m\": { \"type\": \"stdio\", \"command\": \"mcp-memory\" } } }",
    );
    env.run(&["check"]).ok();
}

#[test]
fn text_format_is_one_grepable_line_per_finding_and_a_summary() {
    let env = TestEnv::new();
    env.write(".mcp.json", &fixture("check/MCP401-bad.json"));
    let run = env.run(&["check"]).code(1);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(!lines.is_empty());
    for line in &lines {
        let mut parts = line.splitn(4, ':');
        assert_eq!(parts.next(), Some(".mcp.json"), "{line}");
        assert!(parts.next().unwrap().parse::<usize>().is_ok(), "{line}");
        assert!(parts.next().unwrap().parse::<usize>().is_ok(), "{line}");
        let rest = parts.next().unwrap();
        assert!(
            rest.starts_with(" error[MCP")
                || rest.starts_with(" warning[MCP")
                || rest.starts_with(" info[MCP"),
            "{line}"
        );
    }
    assert!(
        run.stderr
            .contains("3 errors, 0 warnings, 0 infos in 1 file"),
        "{}",
        run.stderr
    );
}

#[test]
fn secrets_are_never_printed_in_any_format() {
    let env = TestEnv::new();
    env.write(".mcp.json", &fixture("check/MCP401-bad.json"));
    for format in ["text", "json", "github", "sarif"] {
        let run = env.run(&["check", "--format", format]).code(1);
        for secret in [
            "ghp_R8x2Lq9ZtB4mN7vC1kD5sF0hJ3gW6yP2aE8u",
            "9f8e7d6c5b4a39281706",
            "Tr0ub4dor&3xQ9vLmZp2",
        ] {
            assert!(
                !run.stdout.contains(secret) && !run.stderr.contains(secret),
                "{format} leaked"
            );
        }
        assert!(
            run.stdout.contains("GITHUB_PERSONAL_ACCESS_TOKEN"),
            "{format}: {}",
            run.stdout
        );
    }
    let run = env.run(&["check"]).code(1);
    assert!(
        run.stdout.contains("`${GITHUB_PERSONAL_ACCESS_TOKEN}`"),
        "{}",
        run.stdout
    );
    // A user file: the same finding is a warning.
    let run = check_as(&env, "cursor", ".mcp.json", &[]);
    assert!(
        run.stdout.contains("${env:GITHUB_PERSONAL_ACCESS_TOKEN}"),
        "{}",
        run.stdout
    );
}

#[test]
fn json_format_is_an_array_of_findings() {
    let env = TestEnv::new();
    env.write(".mcp.json", &fixture("check/MCP403-bad.json"));
    let run = env.run(&["check", "--format", "json"]).ok();
    let findings = run.json();
    let first = &findings.as_array().unwrap()[0];
    let mut keys: Vec<&str> = first
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "code", "column", "fixable", "line", "message", "path", "severity"
        ]
    );
    assert_eq!(first["severity"], "warning");
    assert_eq!(
        (first["line"].as_u64(), first["column"].as_u64()),
        (Some(3), Some(38))
    );
    // The global --json flag means the same.
    assert_eq!(env.run(&["--json", "check"]).ok().json(), findings);
}

#[test]
fn github_format_emits_workflow_commands() {
    let env = TestEnv::new();
    env.write(".mcp.json", &fixture("check/MCP402-bad.json"));
    env.write(".cursor/mcp.json", &fixture("check/MCP003-bad.json"));
    let run = env.run(&["check", "--format", "github"]).code(1);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines.contains(&"::error file=.cursor/mcp.json,line=2,col=68,title=MCP003::trailing comma in a file Cursor reads as JSON with comments but no trailing commas; it rejects the whole file and loads none of its servers"), "{}", run.stdout);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("::notice file=.mcp.json,line=3,col=")
                && l.contains(",title=MCP402::")),
        "{}",
        run.stdout
    );
    for line in lines {
        assert!(
            line.starts_with("::error ")
                || line.starts_with("::warning ")
                || line.starts_with("::notice "),
            "{line}"
        );
    }
}

#[test]
fn sarif_format_has_rules_and_results() {
    let env = TestEnv::new();
    env.write(".mcp.json", &fixture("check/MCP401-bad.json"));
    let run = env.run(&["check", "--format", "sarif"]).code(1);
    let log = run.json();
    assert_eq!(log["version"], "2.1.0");
    let run0 = &log["runs"][0];
    let rules = run0["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), mcpctl::api::check::RULES.len());
    for rule in rules {
        for field in ["id", "name"] {
            assert!(rule[field].is_string(), "{rule}");
        }
        assert!(rule["shortDescription"]["text"].is_string());
        assert!(rule["fullDescription"]["text"].is_string());
        assert!(rule["help"]["text"].is_string());
        assert!(
            ["error", "warning", "note"]
                .contains(&rule["defaultConfiguration"]["level"].as_str().unwrap())
        );
    }
    let results = run0["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    for result in results {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        assert_eq!(result["level"], "error");
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], ".mcp.json");
        assert!(location["region"]["startLine"].as_u64().unwrap() >= 5);
        assert!(location["region"]["startColumn"].as_u64().unwrap() >= 1);
    }
}

#[test]
fn exit_codes_follow_deny_level() {
    let env = TestEnv::new();
    // Nothing to check.
    env.run(&["check"]).ok();
    // Warnings only: 0 by default, 1 with --deny warning; infos never fail.
    env.write(".mcp.json", &fixture("check/MCP403-bad.json"));
    env.run(&["check"]).ok();
    env.run(&["check", "--deny", "warning"]).code(1);
    env.write(
        ".mcp.json",
        br#"{"mcpServers": {"m": {"command": "cmd", "args": ["/c", "npx", "-y", "pkg"]}}}"#,
    );
    let run = env
        .run(&["check", "--deny", "warning", "--platform", "windows"])
        .ok();
    assert!(run.stdout.contains("info[MCP402]"), "{}", run.stdout);
    // An error: 1.
    env.write(".mcp.json", &fixture("check/MCP103-bad.json"));
    env.run(&["check"]).code(1);
    // Could not run: 2.
    env.run(&["check", "missing.json"]).code(2);
    env.run(&["check", "-c", "nope", ".mcp.json"]).code(2);
    env.run(&["check", "--format", "yaml"]).code(2);
}

#[test]
fn windows_platform_makes_unwrapped_shims_errors() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("check/MCP301-bad.json"));
    // On Linux an unwrapped `npx` is right: no finding (issue 9: no false alarms).
    let run = env
        .run(&["check", "--platform", "linux", "--format", "json"])
        .ok();
    assert_eq!(run.json(), serde_json::json!([]));
    let run = env
        .run(&["check", "--platform", "windows", "--format", "json"])
        .code(1);
    assert_eq!(run.json()[0]["severity"], "error");
    // A wrapped entry is right on Windows.
    env.write(".cursor/mcp.json", &fixture("check/MCP302-bad.json"));
    let run = env
        .run(&["check", "--platform", "windows", "--format", "json"])
        .ok();
    assert_eq!(run.json(), serde_json::json!([]));
}

#[test]
fn user_flag_adds_detected_clients_user_files() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("check/MCP302-bad.json"));
    // cwd is HOME, so ~/.cursor/mcp.json is also Cursor's project file; check it from
    // elsewhere to see the user scope.
    env.write("work/.keep", b"");
    let project = env.path("work");
    let project = project.to_str().unwrap();
    env.run(&["check", "--project", project, "--platform", "linux"])
        .ok();
    let run = env
        .run(&[
            "check",
            "--project",
            project,
            "--platform",
            "linux",
            "--user",
            "--format",
            "json",
        ])
        .code(1);
    let findings = run.json();
    assert_eq!(findings[0]["code"], "MCP302");
    assert_eq!(findings[0]["severity"], "error");
    assert_eq!(
        findings[0]["path"],
        crate::env::os_path("~/.cursor/mcp.json")
    );
}

#[test]
fn fix_renames_windsurf_url_and_keeps_other_bytes() {
    let env = TestEnv::new();
    let original = "{\n  // keep me\n  \"mcpServers\": {\n    \"a\": { \"command\": \"mcp-a\" },\n    \"docs\": { \"url\": \"https://mcp.example.com/mcp\", \"disabled\": false },\n    \"z\": { \"command\": \"mcp-z\" }\n  },\n  \"other\": 1\n}\n";
    let rel = ".codeium/windsurf/mcp_config.json";
    env.write(rel, original.as_bytes());
    let path = env.path(rel);
    let path = path.to_str().unwrap();
    // Dry run: the diff, nothing written.
    let run = env.run(&["check", "--fix", "--dry-run", path]).code(1);
    assert!(
        run.stdout.contains("-    \"docs\": { \"url\""),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("\"serverUrl\": \"https://mcp.example.com/mcp\""),
        "{}",
        run.stdout
    );
    assert_eq!(env.read_str(rel), original);
    // Fix: only the entry changes; the rest is byte-identical; the finding is gone.
    let run = env.run(&["check", "--fix", path]);
    let fixed = env.read_str(rel);
    // The comment goes too: Windsurf reads strict JSON (MCP002, fixed first).
    let head = "{\n  \"mcpServers\": {\n    \"a\": { \"command\": \"mcp-a\" },\n    \"docs\": ";
    let tail = ",\n    \"z\": { \"command\": \"mcp-z\" }\n  },\n  \"other\": 1\n}\n";
    assert!(fixed.starts_with(head) && fixed.ends_with(tail), "{fixed}");
    let entry = &fixed[head.len()..fixed.len() - tail.len()];
    let entry: serde_json::Value = serde_json::from_str(entry).unwrap();
    assert_eq!(
        entry,
        serde_json::json!({"serverUrl": "https://mcp.example.com/mcp", "disabled": false})
    );
    assert!(!run.stdout.contains("MCP201"), "{}", run.stdout);
    // Fixing again changes nothing.
    env.run(&["check", "--fix", path]);
    assert_eq!(env.read_str(rel), fixed);
}

#[test]
fn fix_adds_type_and_wraps_for_windows() {
    let env = TestEnv::new();
    env.write(".roo/mcp.json", &fixture("check/MCP203-bad.json"));
    env.write(".cursor/mcp.json", &fixture("check/MCP301-bad.json"));
    // Without --platform windows the shim is left alone (a project file shared with
    // macOS/Linux teammates); the Roo type is added.
    env.run(&["check", "--platform", "linux", "--fix"]).ok();
    assert_eq!(
        env.read(".cursor/mcp.json"),
        fixture("check/MCP301-bad.json")
    );
    let roo = crate::env::jsonc(&env.read(".roo/mcp.json"));
    assert_eq!(roo["mcpServers"]["docs"]["type"], "streamable-http");
    assert_eq!(
        roo["mcpServers"]["docs"]["alwaysAllow"],
        serde_json::json!([])
    );
    env.run(&["check", "--platform", "windows", "--fix"]).ok();
    let cursor = crate::env::jsonc(&env.read(".cursor/mcp.json"));
    assert_eq!(
        cursor["mcpServers"]["memory"],
        serde_json::json!({"command": "cmd", "args": ["/c", "npx", "-y", "@modelcontextprotocol/server-memory@2025.8.4"]})
    );
}

#[test]
fn fix_never_touches_a_file_that_does_not_parse() {
    let env = TestEnv::new();
    let broken = b"{ \"mcpServers\": { \"docs\": { \"url\": \"https://x/mcp\" }, }\n";
    let rel = ".codeium/windsurf/mcp_config.json";
    env.write(rel, broken);
    let path = env.path(rel);
    let run = env
        .run(&["check", "--fix", path.to_str().unwrap(), "--format", "json"])
        .code(1);
    assert_eq!(run.json()[0]["code"], "MCP001");
    assert_eq!(env.read(rel), broken);
}

#[test]
fn explain_prints_rationale_and_fixed_example() {
    let env = TestEnv::new();
    let run = env.run(&["check", "--explain", "mcp201"]).ok();
    assert!(
        run.stdout
            .starts_with("MCP201 wrong-url-key (error, fixable with --fix)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("serverUrl") && run.stdout.contains("Fixed example:"));
    let run = env.run(&["check", "--explain", "MCP999"]).code(2);
    assert!(
        run.stderr.contains("unknown rule code `MCP999`") && run.stderr.contains("MCP001"),
        "{}",
        run.stderr
    );
}

#[test]
fn docs_rule_table_is_generated_from_rules() {
    crate::docs::generated_region(
        "docs/check.md",
        "<!-- rules:start -->\n",
        "<!-- rules:end -->",
        &mcpctl::api::check::markdown_table(),
        "docs",
    );
}

#[test]
fn pre_commit_hook_covers_every_project_path() {
    let hooks = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml"),
    )
    .unwrap();
    assert!(hooks.contains("id: mcpctl-check") && hooks.contains("entry: mcpctl check"));
    // The hook builds from the pinned rev (no npm package before the first release:
    // `first_hour::every_pre_commit_hook_works_before_the_first_release`).
    assert!(hooks.contains("language: rust"));
    // The CI guide's local-hook snippet matches on the same files and names the npm pin
    // for the first release.
    let files = hooks
        .lines()
        .find(|l| l.trim_start().starts_with("files:"))
        .unwrap();
    let guide = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide/ci.md"),
    )
    .unwrap();
    assert!(
        guide.contains(files.trim()),
        "docs/guide/ci.md's pre-commit snippet: {files}"
    );
    let npm_pin = format!("[\"mcpctl@{}\"]", env!("CARGO_PKG_VERSION"));
    assert!(
        guide.contains(&npm_pin),
        "docs/guide/ci.md must name the npm pin {npm_pin}"
    );
    for client in mcpctl::api::clients::ClientTable::builtin().unwrap().all() {
        if let Some(project) = &client.project {
            let base = project
                .strip_suffix('c')
                .filter(|p| p.ends_with(".json"))
                .unwrap_or(project);
            let escaped = base.replace('.', "\\.");
            assert!(
                hooks.contains(&escaped),
                "{} ({project}) missing from the files pattern",
                client.id
            );
        }
    }
}

/// `check` and `list` agree on what a variable reference is: a token with a reference
/// appended is still a plain-text secret (it was skipped by `check` because the value
/// contained `${`, while `list` redacted it).
#[test]
fn token_with_a_reference_appended_is_a_secret_for_check_and_list() {
    let mut env = TestEnv::new();
    // Set, so that the only finding is the secret (an unset one is MCP503).
    env.extra_env.push(("X".to_owned(), "x".to_owned()));
    let token = format!("ghp_{}", "a1B2c3D4e5".repeat(4).get(..36).unwrap());
    let text = format!(
        "{{\n  \"mcpServers\": {{\n    \"github\": {{\n      \"command\": \"github-mcp-server\",\n      \"env\": {{ \"GITHUB_TOKEN\": \"{token}${{X}}\" }}\n    }}\n  }}\n}}\n"
    );
    env.write("proj/.mcp.json", text.as_bytes());
    let run = check_as(&env, "claude-code", "proj/.mcp.json", &[]).code(1);
    assert_eq!(codes(&run), ["MCP401"]);
    assert!(!run.stdout.contains(&token));
    let listed = env
        .run(&[
            "list",
            "--json",
            "-c",
            "claude-code",
            "--project",
            env.path("proj").to_str().unwrap(),
        ])
        .ok();
    assert!(!listed.stdout.contains(&token), "{}", listed.stdout);
}

/// Issue 38 item 9: `check` lints committed files, so its verdict must not depend on the
/// environment it runs in. MCP503 (a variable unset here) fired for every `${VAR}` in a
/// project file, so `check --deny warning` failed in CI, where nothing is set. It is
/// `doctor`'s and `list`'s to say (and `check`'s for the user's own files).
#[test]
fn check_of_project_files_does_not_depend_on_the_environment() {
    let mut env = TestEnv::new();
    env.write(
        "proj/.mcp.json",
        br#"{ "mcpServers": {
            "gh": { "command": "github-mcp-server", "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}" } },
            "web": { "type": "http", "url": "https://example.invalid/mcp", "headers": { "X-Api-Key": "${WEB_KEY}" } }
        } }"#,
    );
    env.write(
        "proj/.cursor/mcp.json",
        br#"{ "mcpServers": { "gh": { "command": "github-mcp-server", "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "${env:GITHUB_TOKEN}" } } } }"#,
    );
    let unset = env
        .run_in("proj", &["check", "--deny", "warning", "--format", "json"])
        .ok();
    assert!(!unset.stdout.contains("MCP503"), "{}", unset.stdout);
    env.extra_env.push(("GITHUB_TOKEN".into(), "set".into()));
    env.extra_env.push(("WEB_KEY".into(), "set".into()));
    let set = env
        .run_in("proj", &["check", "--deny", "warning", "--format", "json"])
        .ok();
    assert_eq!(unset.stdout, set.stdout);
}

/// Issue 38 item 8: a token in `-e NAME=value` was "the `--e` argument" and the fix
/// suggested a variable named after the server (`${GH}`), not the one the value sets.
#[test]
fn a_secret_argument_is_named_as_written_with_the_variable_it_sets() {
    let env = TestEnv::new();
    env.write(
        ".mcp.json",
        br#"{ "mcpServers": {
            "gh": { "command": "docker", "args": ["run", "-i", "--rm", "-e", "GITHUB_TOKEN=ghp_R8x2Lq9ZtB4mN7vC1kD5sF0hJ3gW6yP2aE8u", "ghcr.io/github/github-mcp-server"] },
            "api": { "command": "api-mcp", "args": ["--api-key=sk-proj-Zq8Xw2Lr5Tn9Vb4Mk7Jh3Gf6Dd1Ss0Aa"] },
            "tok": { "command": "tok-mcp", "args": ["--token", "ghp_R8x2Lq9ZtB4mN7vC1kD5sF0hJ3gW6yP2aE8u"] }
        } }"#,
    );
    let run = env.run(&["check"]).code(1);
    let line = |server: &str| {
        run.stdout
            .lines()
            .find(|l| l.contains(&format!("server `{server}`")))
            .unwrap_or_else(|| panic!("no {server}: {}", run.stdout))
            .to_owned()
    };
    let gh = line("gh");
    assert!(gh.contains("the `-e` argument"), "{gh}");
    assert!(
        gh.contains("`${GITHUB_TOKEN}`") && !gh.contains("${GH}"),
        "{gh}"
    );
    let api = line("api");
    assert!(api.contains("the `--api-key` argument"), "{api}");
    assert!(api.contains("`${API_KEY}`"), "{api}");
    let tok = line("tok");
    assert!(tok.contains("the `--token` argument"), "{tok}");
    assert!(tok.contains("`${TOKEN}`"), "{tok}");
}
