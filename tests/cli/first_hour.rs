//! The first hour's frictions (issues 24 and 40): what a newcomer trying every command ran into.
//! Each test failed before its fix.
// See: issues 24, 40

use serde_json::json;

use crate::env::{TestEnv, fixture, jsonc};
use crate::registry_server::RegistryServer;

fn cursor_servers(env: &TestEnv) -> serde_json::Value {
    jsonc(&env.read(".cursor/mcp.json"))["mcpServers"].clone()
}

#[test]
fn verbs_of_other_tools_point_at_mcpctls_own() {
    let env = TestEnv::new();
    let run = env.run(&["install", "memory"]).code(2);
    assert!(run.stderr.contains("mcpctl add memory"), "{}", run.stderr);
    assert!(!run.stderr.contains("'disable'"), "{}", run.stderr);
    // Claude Code's spelling: `claude mcp add NAME -- CMD`.
    let run = env
        .run(&["mcp", "add", "memory", "--", "npx", "-y", "m"])
        .code(2);
    assert!(
        run.stderr.contains("mcpctl add memory -- npx -y m"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("'copy'"), "{}", run.stderr);
    let run = env.run(&["get", "memory"]).code(2);
    assert!(run.stderr.contains("mcpctl list memory"), "{}", run.stderr);
    let run = env.run(&["mcp", "get", "memory"]).code(2);
    assert!(run.stderr.contains("mcpctl list memory"), "{}", run.stderr);
    // Nothing was written anywhere.
    assert!(!env.path(".cursor").exists());
}

#[test]
fn outdated_with_the_registry_down_does_not_claim_it_checked_everything() {
    let server = RegistryServer::start();
    let mut env = TestEnv::new();
    env.extra_env
        .push(("MCPCTL_REGISTRY".to_owned(), server.url.clone()));
    env.on_path("npx");
    server.publish(
        json!({"server": {
            "name": "io.github.acme/db",
            "version": "1.0.0",
            "packages": [{"registryType": "npm", "identifier": "@acme/db-mcp", "version": "1.0.0"}]
        }}),
        true,
        "active",
        None,
    );
    env.run(&["add", "io.github.acme/db", "-c", "cursor"]).ok();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let down = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let run = env.run(&["outdated", "--registry", &down]).code(2);
    assert!(
        !run.stderr.contains("none has a newer version"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("0 of 1 registry-installed entr"),
        "{}",
        run.stderr
    );
}

#[test]
fn hints_under_a_failed_row_are_not_indented_29_spaces() {
    let env = TestEnv::new();
    env.run(&["add", "mem", "-c", "cursor", "--", "npx", "a"])
        .ok();
    let run = env
        .run(&["add", "mem", "-c", "cursor", "--", "npx", "b"])
        .code(2);
    assert!(
        run.stdout.contains("\n  hint: pass `--force`"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("        hint"), "{}", run.stdout);
}

#[test]
fn a_mistyped_project_directory_is_refused_not_created() {
    let env = TestEnv::new();
    let run = env
        .run(&[
            "--project",
            "no/such/projct",
            "add",
            "mem",
            "-c",
            "cursor",
            "--scope",
            "project",
            "--",
            "npx",
            "m",
        ])
        .code(2);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(said.contains("no/such/projct` does not exist"), "{said}");
    assert!(!env.path("no").exists(), "no directory is created");
}

#[test]
fn dry_run_after_dashes_writes_nothing() {
    let env = TestEnv::new();
    let original = fixture("cursor/mcp.json");
    env.write(".cursor/mcp.json", &original);
    let run = env
        .run(&[
            "add",
            "mem",
            "-c",
            "cursor",
            "--",
            "npx",
            "-y",
            "m",
            "--dry-run",
        ])
        .ok();
    assert_eq!(env.read(".cursor/mcp.json"), original, "{}", run.stderr);
    assert!(run.stderr.contains("nothing was written"), "{}", run.stderr);
    assert!(run.stdout.contains("would add"), "{}", run.stdout);
}

#[test]
fn sse_urls_get_the_sse_transport_at_add_time() {
    let env = TestEnv::new();
    env.run(&[
        "add",
        "legacy",
        "-c",
        "claude-code",
        "--url",
        "https://mcp.example.com/sse",
    ])
    .ok();
    let claude = jsonc(&env.read(".claude.json"));
    assert_eq!(claude["mcpServers"]["legacy"]["type"], "sse");
    // `check --fix` has nothing left to infer.
    let run = env.run(&["check", "--user"]);
    assert!(!run.stdout.contains("/sse"), "{}", run.stdout);
    // An explicit transport is kept.
    env.run(&[
        "add",
        "streamed",
        "-c",
        "claude-code",
        "--url",
        "https://mcp.example.com/sse",
        "--transport",
        "http",
    ])
    .ok();
    let claude = jsonc(&env.read(".claude.json"));
    assert_eq!(claude["mcpServers"]["streamed"]["type"], "http");
}

#[test]
fn truncated_json_gets_no_shell_quoting_hint() {
    let env = TestEnv::new();
    let run = env
        .run(&[
            "add",
            "x",
            "-c",
            "cursor",
            "--from-json",
            r#"{"command":"npx","args":["-y","pkg"]"#,
        ])
        .code(2);
    assert!(!run.stderr.contains("shell ate"), "{}", run.stderr);
    assert!(run.stderr.contains("ends early"), "{}", run.stderr);
}

#[test]
fn remove_exit_code_does_not_depend_on_a_similar_name() {
    let env = TestEnv::new();
    env.run(&["add", "memory", "-c", "cursor", "--", "npx", "m"])
        .ok();
    let near = env.run(&["remove", "memroy", "-c", "cursor"]);
    let far = env.run(&["remove", "zzzzzz", "-c", "cursor"]);
    assert_eq!(near.code, far.code, "{}\n{}", near.stderr, far.stderr);
    assert_eq!(far.code, 2, "{}", far.stderr);
    assert!(
        far.stderr.contains("no server named `zzzzzz`"),
        "{}",
        far.stderr
    );
    assert!(cursor_servers(&env)["memory"].is_object());
}

#[test]
fn add_warns_when_the_command_is_not_on_path() {
    let env = TestEnv::new();
    let run = env
        .run(&["add", "x", "-c", "cursor", "--", "uvxx", "server"])
        .ok();
    assert!(
        run.stderr.contains("`uvxx` is not on PATH"),
        "{}",
        run.stderr
    );
    assert_eq!(cursor_servers(&env)["x"]["command"], "uvxx");
    env.on_path("uvx");
    let run = env
        .run(&["add", "y", "-c", "cursor", "--", "uvx", "server"])
        .ok();
    assert!(!run.stderr.contains("not on PATH"), "{}", run.stderr);
}

#[test]
fn the_npm_package_readme_says_which_formats_it_edits() {
    let readme = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("npm/mcpctl/README.md"),
    )
    .unwrap();
    assert!(readme.contains("YAML"), "{readme}");
}

#[test]
fn backups_say_which_command_replaced_them_and_name_from_json_adds() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    env.run(&[
        "add",
        "-c",
        "cursor",
        "--from-json",
        r#"{"mcpServers":{"kk":{"command":"npx","args":["k"]}}}"#,
    ])
    .ok();
    let run = env.run(&["backups"]).ok();
    assert!(run.stdout.contains("add kk"), "{}", run.stdout);
    assert!(!run.stdout.contains(" COMMAND "), "{}", run.stdout);
    assert!(run.stdout.contains("REPLACED BY"), "{}", run.stdout);
    let json = env.run(&["backups", "--json"]).ok().json();
    assert_eq!(json[0]["command"], "add kk");
}

const VSCODE: &str = crate::env::VSCODE;

#[test]
fn a_vscode_snippet_with_inputs_adds_its_input_beside_the_users_and_remove_takes_it_back() {
    let env = TestEnv::new();
    let original = "{\n  \"inputs\": [\n    // my PAT, asked once per session\n    {\n      \"type\": \"promptString\",\n      \"id\": \"gh\",\n      \"password\": true\n    }\n  ],\n  \"servers\": {\n    \"github\": {\n      \"url\": \"https://api.githubcopilot.com/mcp/\",\n      \"headers\": {\"Authorization\": \"Bearer ${input:gh}\"}\n    }\n  }\n}\n";
    env.write(VSCODE, original.as_bytes());
    let snippet = r#"{"inputs":[{"type":"promptString","id":"db-key","description":"DB key","password":true}],
        "servers":{"db":{"command":"npx","args":["-y","db-mcp"],"env":{"DB_KEY":"${input:db-key}"}}}}"#;
    env.on_path("npx");
    env.run(&["add", "-c", "vscode", "--from-json", snippet])
        .ok();
    let text = env.read_str(VSCODE);
    assert!(text.contains("// my PAT, asked once per session"), "{text}");
    assert!(
        text.starts_with("{\n  \"inputs\": [\n    // my PAT, asked once per session\n    {\n      \"type\": \"promptString\",\n      \"id\": \"gh\",\n      \"password\": true\n    },\n    {\n      \"id\": \"db-key\","),
        "the user's input is kept as written: {text}"
    );
    let value = jsonc(text.as_bytes());
    assert_eq!(value["inputs"][1]["description"], "DB key");
    env.run(&["remove", "db", "-c", "vscode"]).ok();
    assert_eq!(
        env.read_str(VSCODE),
        original,
        "the input went with its server"
    );
}

#[test]
fn remove_keeps_an_input_another_server_still_uses() {
    let env = TestEnv::new();
    let original = "{\n  \"inputs\": [\n    {\"type\": \"promptString\", \"id\": \"tok\"}\n  ],\n  \"servers\": {\n    \"a\": {\"url\": \"https://a.example.com/mcp\", \"headers\": {\"X\": \"${input:tok}\"}},\n    \"b\": {\"url\": \"https://b.example.com/mcp\", \"headers\": {\"X\": \"${input:tok}\"}}\n  }\n}\n";
    env.write(VSCODE, original.as_bytes());
    env.run(&["remove", "a", "-c", "vscode"]).ok();
    let value = jsonc(&env.read(VSCODE));
    assert_eq!(value["inputs"][0]["id"], "tok", "{value}");
    env.run(&["remove", "b", "-c", "vscode"]).ok();
    let value = jsonc(&env.read(VSCODE));
    assert!(value.get("inputs").is_none(), "{value}");
}

#[test]
fn a_dns_failure_names_the_host() {
    let env = TestEnv::new();
    crate::doctor::cursor_config(
        &env,
        json!({"remote": {"url": "https://no-such-host.invalid/mcp"}}),
    );
    let report = env
        .run(&["doctor", "-c", "cursor", "--json", "--timeout", "5"])
        .code(1)
        .json();
    let error = report["results"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("cannot resolve host `no-such-host.invalid`"),
        "{error}"
    );
}

#[test]
#[cfg(unix)] // its npx is a sh script
fn npm_update_notices_do_not_fill_the_stderr_tail() {
    let env = TestEnv::new();
    let mut script = String::from("#!/bin/sh\n");
    for n in 1..=8 {
        script.push_str(&format!(
            "echo 'npm error line {n} about the package' >&2\n"
        ));
    }
    script.push_str("echo 'npm notice' >&2\necho 'npm notice New major version of npm available! 10.9.2 -> 11.6.2' >&2\n");
    script.push_str("echo 'npm notice To update run: npm install -g npm@11.6.2' >&2\necho 'npm notice' >&2\nexit 1\n");
    let npx = env.write("tools/npx", script.as_bytes());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&npx, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    crate::doctor::cursor_config(
        &env,
        json!({"pkg": {"command": npx, "args": ["-y", "@example/server"]}}),
    );
    let run = env.run(&["doctor", "-c", "cursor"]).code(1);
    assert!(!run.stdout.contains("npm notice"), "{}", run.stdout);
    assert!(run.stdout.contains("npm error line 8"), "{}", run.stdout);
}

#[test]
#[cfg(unix)] // the fixture's entries spell npx unwrapped, which Windows wants as `cmd /c npx`
fn import_turns_vscode_prompts_into_variables_and_apply_writes_none_elsewhere() {
    let env = TestEnv::new();
    env.write(VSCODE, &fixture("vscode/mcp.json"));
    env.write(".cursor/mcp.json", b"{\n  \"mcpServers\": {}\n}\n");
    let manifest = env.path("mcpctl.toml");
    let manifest = manifest.to_str().unwrap();
    let run = env
        .run(&["import", "-c", "vscode", "--manifest", manifest])
        .ok();
    assert!(run.stderr.contains("GH_TOKEN"), "{}", run.stderr);
    let toml = env.read_str("mcpctl.toml");
    let portable = toml.split("[servers.github.client.vscode]").next().unwrap();
    assert!(!portable.contains("${input:"), "{toml}");
    assert!(portable.contains("Bearer ${GH_TOKEN}"), "{toml}");
    // Cursor gets a variable it expands; VS Code keeps its prompt.
    let with_cursor = toml.replace(
        "clients = [\"vscode\"]",
        "clients = [\"vscode\", \"cursor\"]",
    );
    std::fs::write(env.path("mcpctl.toml"), with_cursor).unwrap();
    let before = env.read(VSCODE);
    env.run(&["apply", "--manifest", manifest]).ok();
    let cursor = env.read_str(".cursor/mcp.json");
    assert!(!cursor.contains("${input:"), "{cursor}");
    assert!(cursor.contains("Bearer ${env:GH_TOKEN}"), "{cursor}");
    assert_eq!(env.read(VSCODE), before, "VS Code's file is unchanged");
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn tools_takes_a_server_one_add_wrote_everywhere() {
    let mut env = TestEnv::new();
    // Set: an unset variable stops `tools` (`an_unset_variable_is_one_rule_in_every_command`).
    env.extra_env.push(("TOKEN".to_owned(), "t".to_owned()));
    env.write(".claude.json", b"{}\n");
    env.write(".cursor/mcp.json", b"{}\n");
    let server = crate::doctor::fixture();
    env.run(&[
        "add",
        "fx",
        "-c",
        "claude-code,cursor,codex,vscode",
        "--env",
        "TOKEN=${TOKEN}",
        "--",
        server,
    ])
    .ok();
    let run = env.run(&["tools", "fx", "--json"]).ok();
    assert!(run.json()["tools"].as_array().is_some(), "{}", run.stdout);
    // Different content still needs a choice.
    env.run(&[
        "add", "fx", "-c", "cursor", "--force", "--", server, "--other",
    ])
    .ok();
    let run = env.run(&["tools", "fx"]).code(2);
    assert!(
        run.stderr.contains("configured differently"),
        "{}",
        run.stderr
    );
}

/// Issue 40: a row with a warning showed the warning only, not whether the handshake
/// went through: a server with a banner on stdout (a handshake warning) and one with a
/// literal token in its env (a config warning) both answered, and their ⚠ rows say so
/// (server, tools, ms) above the warning.
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn a_warning_row_still_says_how_the_handshake_went() {
    let env = TestEnv::new();
    let server = crate::doctor::fixture();
    let token = format!("ghp_{}", "a1B2c3D4e5".repeat(4).get(..36).unwrap());
    crate::doctor::cursor_config(
        &env,
        json!({
            "banner": {"command": server, "args": ["banner"]},
            "keyed": {"command": server, "env": {"GITHUB_TOKEN": token}},
        }),
    );
    let run = env.run(&["doctor", "-c", "cursor", "--timeout", "10"]).ok();
    for (name, warning) in [("banner", "not JSON-RPC"), ("keyed", "plain text")] {
        // The row: its first line and the indented lines under it.
        let row: Vec<&str> = run
            .stdout
            .lines()
            .skip_while(|l| !l.starts_with(&format!("⚠ cursor/{name} ")))
            .enumerate()
            .take_while(|(i, l)| *i == 0 || l.starts_with(' '))
            .map(|(_, l)| l)
            .collect();
        assert!(!row.is_empty(), "no ⚠ row for {name}:\n{}", run.stdout);
        let row = row.join("\n");
        assert!(row.contains("fixture-server"), "{name}: {row}");
        assert!(row.contains("2 tools"), "{name}: {row}");
        assert!(row.contains(" ms"), "{name}: {row}");
        assert!(row.contains(warning), "{name}: {row}");
        assert!(
            row.find("2 tools") < row.find(warning),
            "the handshake first, then the warning: {row}"
        );
    }
}

/// The words of one shell line as `sh` would pass them to `mcpctl`: quotes removed, a
/// `#` comment, a pipe's other commands and a redirection left out. `None` when the line
/// does not run mcpctl (`mkdir -p …`); an error for an unbalanced quote.
fn mcpctl_words(line: &str) -> Result<Option<Vec<String>>, String> {
    let mut commands: Vec<Vec<String>> = vec![Vec::new()];
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    let mut redirect = false;
    let end_word =
        |word: &mut Option<String>, commands: &mut Vec<Vec<String>>, redirect: &mut bool| {
            if let Some(w) = word.take()
                && !std::mem::take(redirect)
            {
                commands.last_mut().unwrap().push(w);
            }
        };
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                let text = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some(other) => text.push(other),
                        None => return Err(format!("unbalanced {c} in {line:?}")),
                    }
                }
            }
            ' ' | '\t' => end_word(&mut word, &mut commands, &mut redirect),
            '#' if word.is_none() => break,
            '|' => {
                end_word(&mut word, &mut commands, &mut redirect);
                commands.push(Vec::new());
            }
            '>' => {
                end_word(&mut word, &mut commands, &mut redirect);
                while chars.peek() == Some(&'>') {
                    chars.next();
                }
                redirect = true;
            }
            other => word.get_or_insert_with(String::new).push(other),
        }
    }
    end_word(&mut word, &mut commands, &mut redirect);
    Ok(commands
        .into_iter()
        .find(|words| words.first().is_some_and(|w| w == "mcpctl")))
}

/// The `Examples:` lines of a help text, without their indent.
fn help_examples(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| *l != "Examples:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.trim_start().to_owned())
        .collect()
}

/// The subcommand names a help text lists (the grouped top level, or `Commands:`), but
/// clap's own `help`.
fn listed_commands(help: &str, top: bool) -> Vec<String> {
    let lines: Vec<&str> = help.lines().collect();
    let listing: Vec<&str> = if top {
        lines
            .iter()
            .skip_while(|l| !l.ends_with(':') || l.starts_with("Usage"))
            .take_while(|l| **l != "Global options:")
            .copied()
            .collect()
    } else {
        lines
            .iter()
            .skip_while(|l| **l != "Commands:")
            .skip(1)
            .take_while(|l| !l.is_empty())
            .copied()
            .collect()
    };
    listing
        .iter()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// Issue 40: 15 of 28 commands had no example in `--help`, and clap wrapped example lines
/// to the terminal, inside a quoted argument (`-H 'Authorization: Bearer` / `${TOKEN}'`).
/// Every command and subcommand the help lists (`secret set` too) has examples; each is one
/// line, the same in a 40-column terminal as in a 200-column one, no wider than the help
/// (100 columns), runs mcpctl, and parses with mcpctl's own command line, as that
/// command: an example cannot drift from the flags.
#[test]
fn every_command_has_examples_that_parse_and_never_wrap() {
    use clap::{CommandFactory, FromArgMatches};
    let env = TestEnv::new();
    let help = |args: &[&str], columns: &str| {
        let mut command = env.command(args);
        command.env("COLUMNS", columns);
        crate::env::Run::of(command).ok().stdout
    };
    let top = help(&["--help"], "200");
    let mut paths: Vec<Vec<String>> = vec![Vec::new()];
    for name in listed_commands(&top, true) {
        let sub = help(&[&name, "--help"], "200");
        for inner in listed_commands(&sub, false) {
            paths.push(vec![name.clone(), inner]);
        }
        paths.push(vec![name]);
    }
    assert!(paths.len() > 30, "{paths:?}\n{top}");
    let mut missing = Vec::new();
    let mut checked = 0;
    for path in &paths {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let wide = help(&args, "200");
        let examples = help_examples(&wide);
        let shown = path.join(" ");
        if examples.is_empty() {
            missing.push(shown);
            continue;
        }
        assert_eq!(
            help_examples(&help(&args, "40")),
            examples,
            "`mcpctl {shown} --help` wraps its examples in a narrow terminal"
        );
        let mut runs = 0;
        let mut own = 0;
        for example in &examples {
            assert!(
                example.chars().count() + 2 <= 100,
                "`mcpctl {shown}`: wider than the help: {example}"
            );
            let words = mcpctl_words(example).unwrap_or_else(|e| panic!("`mcpctl {shown}`: {e}"));
            let Some(words) = words else { continue };
            runs += 1;
            let mut matches = mcpctl::api::cli::Cli::command()
                .try_get_matches_from(&words)
                .unwrap_or_else(|e| panic!("`mcpctl {shown}` example `{example}`:\n{e}"));
            // Most are of this command; a few show the next step (`add` after `search`).
            let mut named = Vec::new();
            let mut at = &matches;
            while let Some((name, sub)) = at.subcommand() {
                named.push(name.to_owned());
                at = sub;
            }
            if named.starts_with(path) {
                own += 1;
            }
            mcpctl::api::cli::Cli::from_arg_matches_mut(&mut matches)
                .unwrap_or_else(|e| panic!("`{example}`: {e}"));
        }
        assert!(
            runs > 0,
            "`mcpctl {shown}`: no example runs mcpctl: {examples:?}"
        );
        assert!(own > 0, "`mcpctl {shown}`: no example of it: {examples:?}");
        checked += 1;
    }
    assert!(
        missing.is_empty(),
        "no Examples: in the help of {missing:?}"
    );
    assert_eq!(checked, paths.len());
}

/// Issue 40: `mcpctl completions SHELL` completed client ids but not server names.
/// With servers in two clients, bash (driving the script as it does on TAB) offers both
/// names after `remove`, `doctor` and `secret adopt`, only the matching one after a
/// prefix, client ids after `-c`, and no name where a flag is being typed; the words come
/// from `mcpctl __complete servers`, which prints the names and nothing else.
#[test]
#[cfg(unix)] // runs bash
fn completions_offer_the_server_names_of_this_machine() {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        br#"{"mcpServers": {"memory": {"command": "npx", "args": ["-y", "m"], "env": {"KEY": "s3cret-value"}}}}"#,
    );
    env.write(
        ".codex/config.toml",
        b"[mcp_servers.github]\ncommand = \"gh-mcp\"\n",
    );
    let script = env.run(&["completions", "bash"]).ok().stdout;
    let path = env.dir.path().join("mcpctl.bash");
    std::fs::write(&path, script).unwrap();
    let bin = env.dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_mcpctl"), bin.join("mcpctl")).unwrap();
    // What bash does on TAB: COMP_WORDS from the line (an empty last word after a space),
    // then the completion function with the command, the word and the word before it.
    let complete = |line: &str| -> Vec<String> {
        let mut bash = env.client_command(std::path::Path::new("bash"));
        bash.env("MCPCTL_STATE_DIR", env.dir.path().join("state"))
            .args([
                "-c",
                r#"source "$1"; read -ra COMP_WORDS <<< "$2"; [[ $2 == *" " ]] && COMP_WORDS+=(""); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE=$2; COMP_POINT=${#2}; _mcpctl mcpctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"; printf '%s\n' "${COMPREPLY[@]}""#,
                "bash",
            ])
            .arg(&path)
            .arg(line);
        let run = crate::env::Run::of(bash).ok();
        run.stdout.lines().map(str::to_owned).collect()
    };
    for line in [
        "mcpctl remove ",
        "mcpctl doctor ",
        "mcpctl --json tools ",
        "mcpctl secret adopt ",
    ] {
        let words = complete(line);
        assert!(
            words.contains(&"memory".to_owned()) && words.contains(&"github".to_owned()),
            "{line:?}: {words:?}"
        );
    }
    assert_eq!(complete("mcpctl remove m"), ["memory"]);
    let secret_list = complete("mcpctl secret list ");
    assert!(
        !secret_list.contains(&"memory".to_owned()),
        "{secret_list:?}"
    );
    let clients = complete("mcpctl remove memory -c ");
    assert!(clients.contains(&"cursor".to_owned()), "{clients:?}");
    assert!(!clients.contains(&"memory".to_owned()), "{clients:?}");
    let flags = complete("mcpctl remove --");
    assert!(flags.iter().all(|w| w.starts_with("--")), "{flags:?}");
    // zsh and fish (not run here) ask for the same words where a server's name goes.
    let zsh = env.run(&["completions", "zsh"]).ok().stdout;
    assert!(zsh.contains("\n_mcpctl_servers() {"), "zsh");
    assert!(
        zsh.contains("':name -- Server name:_mcpctl_servers' \\"),
        "zsh"
    );
    let fish = env.run(&["completions", "fish"]).ok().stdout;
    assert!(
        fish.contains(
            r#"-n "__fish_mcpctl_using_subcommand remove" -f -a "(mcpctl __complete servers"#
        ),
        "fish"
    );
    // The words: names only, and the plumbing command is not in the help.
    let names = env.run(&["__complete", "servers"]).ok().stdout;
    assert_eq!(names, "github\nmemory\n");
    let top = env.run(&["--help"]).ok().stdout;
    assert!(!top.contains("__complete"), "{top}");
}

#[test]
fn a_foreign_platform_does_not_write_this_machines_files_without_force_platform() {
    let env = TestEnv::new();
    let original = fixture("cursor/mcp.json");
    env.write(".cursor/mcp.json", &original);
    let foreign = if cfg!(windows) {
        ["linux", "macos"]
    } else {
        ["windows", "macos"]
    };
    for os in foreign {
        let run = |extra: &[&str]| {
            let mut args = vec!["--platform", os, "add", "mem", "-c", "cursor"];
            args.extend_from_slice(extra);
            args.extend_from_slice(&["--", "npx", "-y", "m"]);
            let mut command = env.command(&args);
            command.env_remove("MCPCTL_FORCE_PLATFORM");
            let out = command.output().unwrap();
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        };
        let (code, _, stderr) = run(&[]);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(
            stderr.contains("--dry-run") && stderr.contains("--force-platform"),
            "{stderr}"
        );
        // The example is that OS's own spelling (`~/Library/…` is macOS's only).
        assert_eq!(
            stderr.contains("~/Library"),
            os == "macos",
            "{os}: {stderr}"
        );
        assert_eq!(
            env.read(".cursor/mcp.json"),
            original,
            "{os}: nothing written"
        );
        assert!(!env.path("Library").exists());
        // A dry run shows what would be written.
        let (code, stdout, stderr) = run(&["--dry-run"]);
        assert_eq!(code, Some(0), "{stderr}");
        assert!(stdout.contains("would add"), "{stdout}");
    }
    // Reading commands are fine.
    let mut command = env.command(&["--platform", "windows", "list"]);
    command.env_remove("MCPCTL_FORCE_PLATFORM");
    assert_eq!(command.output().unwrap().status.code(), Some(0));
}

/// Every verb that writes is refused under a foreign `--platform` unless it is a dry run
/// (`commands::writes` names each verb; a new writing verb must be added there and here).
#[test]
fn every_writing_verb_is_refused_under_a_foreign_platform_without_dry_run() {
    const FOREIGN: &str = if cfg!(windows) { "linux" } else { "windows" };
    let env = TestEnv::new();
    let original = fixture("cursor/mcp.json");
    env.write(".cursor/mcp.json", &original);
    let run = |args: &[&str]| {
        let mut all = vec!["--platform", FOREIGN];
        all.extend_from_slice(args);
        let mut command = env.command(&all);
        command.env_remove("MCPCTL_FORCE_PLATFORM");
        let out = command.output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let refusal = &format!("would write {FOREIGN}'s spelling");
    // (the command, and its dry run when it has one)
    let writing: &[(&[&str], Option<&[&str]>)] = &[
        (
            &["add", "mem", "-c", "cursor", "--", "npx", "-y", "m"],
            Some(&[
                "add",
                "mem",
                "-c",
                "cursor",
                "--dry-run",
                "--",
                "npx",
                "-y",
                "m",
            ]),
        ),
        (
            &["remove", "mem", "-c", "cursor"],
            Some(&["remove", "mem", "-c", "cursor", "--dry-run"]),
        ),
        (
            &["disable", "mem", "-c", "cursor"],
            Some(&["disable", "mem", "-c", "cursor", "--dry-run"]),
        ),
        (
            &["enable", "mem", "-c", "cursor"],
            Some(&["enable", "mem", "-c", "cursor", "--dry-run"]),
        ),
        (&["apply"], Some(&["apply", "--dry-run"])),
        (
            &["copy", "mem", "-c", "claude-code"],
            Some(&["copy", "mem", "-c", "claude-code", "--dry-run"]),
        ),
        // Its dry run asks the registry: not run here.
        (&["update", "mem", "-c", "cursor"], None),
        (
            &["restore", "-c", "cursor"],
            Some(&["restore", "-c", "cursor", "--dry-run"]),
        ),
        (&["undo"], Some(&["undo", "--dry-run"])),
        (&["redo"], Some(&["redo", "--dry-run"])),
        (
            &["secret", "adopt"],
            Some(&["secret", "adopt", "--dry-run"]),
        ),
        (&["check", "--fix"], Some(&["check", "--fix", "--dry-run"])),
        (&["import", "--manifest", "mcpctl.toml"], None),
        (&["import", "--store-secrets"], None),
        (
            &["backups", "--purge-secrets"],
            Some(&["backups", "--purge-secrets", "--dry-run"]),
        ),
    ];
    for (args, dry_run) in writing {
        let (code, stderr) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(refusal) && stderr.contains("--force-platform"),
            "{args:?}: {stderr}"
        );
        if let Some(dry_run) = dry_run {
            let (_, stderr) = run(dry_run);
            assert!(!stderr.contains(refusal), "{dry_run:?}: {stderr}");
        }
    }
    assert_eq!(env.read(".cursor/mcp.json"), original, "nothing written");
    assert!(!env.path("mcpctl.toml").exists());
    // Reading verbs are not refused.
    for args in [
        &["list"][..],
        &["clients"],
        &["check"],
        &["backups"],
        &["plan"],
        &["import"],
        &["secret", "list"],
    ] {
        let (_, stderr) = run(args);
        assert!(!stderr.contains(refusal), "{args:?}: {stderr}");
    }
}

#[test]
fn a_second_disable_says_already_disabled_not_missing() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    let name = cursor_servers(&env)
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    env.run(&["disable", &name, "-c", "cursor"]).ok();
    let run = env.run(&["disable", &name, "-c", "cursor"]).ok();
    assert!(run.stdout.contains("already disabled"), "{}", run.stdout);
    assert!(!run.stdout.contains("not there"), "{}", run.stdout);
    env.run(&["disable", &name]).ok();
    env.run(&["enable", &name, "-c", "cursor"]).ok();
    assert_eq!(env.read(".cursor/mcp.json"), fixture("cursor/mcp.json"));
}

#[test]
fn copy_without_from_takes_the_one_client_that_has_it() {
    let env = TestEnv::new();
    env.write(".claude.json", b"{}\n");
    env.on_path("npx");
    env.run(&["add", "mem", "-c", "cursor", "--", "npx", "-y", "m"])
        .ok();
    env.run(&["copy", "mem", "-c", "claude-code"]).ok();
    let claude = jsonc(&env.read(".claude.json"));
    assert_eq!(crate::env::command_of(&claude["mcpServers"]["mem"]), "npx");
    // Two different servers of that name: `--from` decides.
    env.write(
        ".codex/config.toml",
        b"[mcp_servers.mem]\ncommand = \"uvx\"\n",
    );
    let run = env.run(&["copy", "mem", "-c", "vscode"]).code(2);
    assert!(run.stderr.contains("--from"), "{}", run.stderr);
}

#[test]
fn remove_all_leaves_a_different_hand_made_entry_of_that_name_and_names_it() {
    let env = TestEnv::new();
    env.on_path("npx");
    let hand_made = "{\n  \"mcpServers\": {\n    \"mem\": {\"type\": \"stdio\", \"command\": \"uvx\", \"args\": [\"my-own-memory\"]}\n  }\n}\n";
    env.write(".claude.json", hand_made.as_bytes());
    // The same server, written by hand in Codex: it goes with mcpctl's.
    env.write(
        ".codex/config.toml",
        b"[mcp_servers.mem]\ncommand = \"npx\"\nargs = [\"-y\", \"m\"]\n",
    );
    env.run(&["add", "mem", "-c", "cursor", "--", "npx", "-y", "m"])
        .ok();
    let run = env.run(&["remove", "mem", "--all"]).ok();
    assert!(
        run.stderr.contains("left `mem` in claude-code"),
        "{}",
        run.stderr
    );
    assert_eq!(env.read_str(".claude.json"), hand_made);
    assert!(!env.read_str(".codex/config.toml").contains("mem"));
    assert!(
        !env.path(".cursor/mcp.json").exists(),
        "mcpctl's entry (and file) went"
    );
    env.run(&["remove", "mem", "--all", "--force"]).ok();
    assert!(!env.read_str(".claude.json").contains("my-own-memory"));
}

#[test]
fn a_snippet_with_two_servers_adds_both() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    let snippet = r#"{"mcpServers": {
        "one": {"command": "npx", "args": ["-y", "one-mcp"]},
        "two": {"url": "https://two.example.com/mcp"}
    }}"#;
    let run = env
        .run(&["add", "-c", "cursor,claude-code", "--from-json", snippet])
        .ok();
    assert!(
        run.stderr.contains("adding each: one, two"),
        "{}",
        run.stderr
    );
    let servers = cursor_servers(&env);
    assert_eq!(crate::env::args_of(&servers["one"])[1], "one-mcp");
    assert_eq!(servers["two"]["url"], "https://two.example.com/mcp");
    let claude = jsonc(&env.read(".claude.json"));
    assert_eq!(claude["mcpServers"]["two"]["type"], "http");
    // Naming one still picks it.
    env.run(&["add", "two", "-c", "vscode", "--from-json", snippet])
        .ok();
    let vscode = jsonc(&env.read(VSCODE));
    assert!(vscode["servers"].get("one").is_none(), "{vscode}");
}

#[test]
fn readme_lines_work_when_pasted_on_a_fresh_machine() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    for page in std::fs::read_dir(root.join("docs/guide")).unwrap() {
        readme.push_str(&std::fs::read_to_string(page.unwrap().path()).unwrap());
    }
    // A shell redirection into ~/.config/mcpctl/ fails before mcpctl runs when the
    // directory does not exist yet; `--manifest` creates it.
    assert!(
        !readme.contains("mcpctl import > "),
        "README redirects import"
    );
    for line in readme
        .lines()
        .filter(|l| l.contains("--platform windows add") || l.contains("--platform macos add"))
    {
        assert!(
            line.contains("--dry-run"),
            "README line writes real files: {line}"
        );
    }
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    let manifest = env.path(crate::env::MANIFEST);
    // `plan` without a manifest says the line that makes the one it looked for.
    let run = env.run(&["plan"]).code(2);
    assert!(
        run.stderr
            .contains(&format!("mcpctl import --manifest {}", manifest.display())),
        "{}",
        run.stderr
    );
    env.run(&[
        "import",
        "-c",
        "cursor",
        "--manifest",
        manifest.to_str().unwrap(),
    ])
    .ok();
    assert!(manifest.is_file());
}

#[test]
fn update_suggests_only_what_update_takes() {
    let server = RegistryServer::start();
    let mut env = TestEnv::new();
    env.extra_env
        .push(("MCPCTL_REGISTRY".to_owned(), server.url.clone()));
    env.on_path("npx");
    let publish = |version: &str, args: serde_json::Value| {
        server.publish(
            json!({"server": {
                "name": "io.github.acme/db",
                "version": version,
                "packages": [{"registryType": "npm", "identifier": "@acme/db-mcp", "version": version,
                    "packageArguments": args}]
            }}),
            true,
            "active",
            None,
        );
    };
    publish("1.0.0", json!([]));
    env.run(&["add", "io.github.acme/db", "-c", "cursor", "--no-input"])
        .ok();
    // 2.0.0 needs an input 1.0.0 did not.
    publish(
        "2.0.0",
        json!([{"type": "named", "name": "--schema", "isRequired": true}]),
    );
    let run = env.run(&["update", "db", "--no-input"]).code(2);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(!said.contains("pass `--var"), "{said}");
    assert!(
        said.contains("mcpctl add io.github.acme/db -c cursor --force --var schema=VALUE"),
        "{said}"
    );
    assert!(cursor_servers(&env)["db"].to_string().contains("1.0.0"));
}

#[test]
fn doctor_rows_have_the_scope_one_finding_per_line_and_fit_the_terminal() {
    let mut env = TestEnv::new();
    env.extra_env.push(("COLUMNS".to_owned(), "70".to_owned()));
    crate::doctor::cursor_config(
        &env,
        json!({"d": {"command": "node", "args": ["-e", "1"], "env": {"X": "${UNSET_ONE}", "Y": "${UNSET_TWO}"}}}),
    );
    env.write(
        "app/.cursor/mcp.json",
        br#"{"mcpServers": {"p": {"command": "node", "args": ["-e", "1"]}}}"#,
    );
    let run = env.run_in("app", &["doctor", "-c", "cursor", "--no-spawn"]);
    assert!(run.stdout.contains("cursor/p (project)"), "{}", run.stdout);
    assert!(!run.stdout.contains("literally; `"), "{}", run.stdout);
    for line in run.stdout.lines() {
        assert!(
            line.chars().count() <= 70,
            "{} chars: {line}",
            line.chars().count()
        );
    }
    let findings = run
        .stdout
        .lines()
        .filter(|l| l.contains("is not set"))
        .count();
    assert!(findings >= 2, "{}", run.stdout);
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn doctor_banner_counts_the_rows_it_prints() {
    let env = TestEnv::new();
    crate::doctor::cursor_config(
        &env,
        json!({
            "missing": {"command": "no-such-server-command"},
            "fixture": {"command": crate::doctor::fixture()}
        }),
    );
    let run = env.run(&["doctor", "-c", "cursor"]).code(1);
    assert!(
        run.stderr
            .contains("checking 2 servers in 1 client (cursor), starting 1"),
        "{}",
        run.stderr
    );
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn doctor_token_totals_leave_out_servers_a_client_cannot_use() {
    use crate::doctor::{KillOnDrop, fixture, free_port, wait_listening};
    let env = TestEnv::new();
    let port = free_port();
    let _server = KillOnDrop(
        std::process::Command::new(fixture())
            .arg(format!("sse={port}"))
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_listening(port);
    let url = format!("http://127.0.0.1:{port}/sse");
    // An http entry on a legacy SSE endpoint: a client that does not fall back cannot
    // use it, whatever tools the fallback listed.
    let entry = json!({"old": {"type": "http", "url": url}});
    env.write(
        ".claude.json",
        json!({"mcpServers": entry}).to_string().as_bytes(),
    );
    env.write(
        ".gemini/settings.json",
        json!({"mcpServers": {"old": {"httpUrl": url}}})
            .to_string()
            .as_bytes(),
    );
    env.trust_in_gemini();
    let report = env
        .run(&["doctor", "-c", "claude-code,gemini-cli", "--json"])
        .json();
    let results = report["results"].as_array().unwrap();
    let failed: Vec<&str> = results
        .iter()
        .filter(|r| r["status"] == "fail")
        .map(|r| r["client"].as_str().unwrap())
        .collect();
    assert!(!failed.is_empty(), "{report}");
    for client in failed {
        let counted = report["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["client"] == client);
        assert!(!counted, "{client} counts a server it cannot use: {report}");
    }
}

/// One entry using a variable that is not set, through every command that reads it: the
/// same sentence everywhere (what, where, what to do), a warning where the command can
/// still do its job, an error where it must start the server.
#[test]
#[ignore = "needs cargo build -p fixture-server"]
#[cfg(unix)] // expects the Unix advice (`export VAR=…`) Windows words as `setx`
fn an_unset_variable_is_one_rule_in_every_command() {
    let env = TestEnv::new();
    crate::doctor::cursor_config(
        &env,
        json!({
            "local": {"command": crate::doctor::fixture(), "env": {"API_TOKEN": "${env:MY_API_TOKEN}"}},
            "remote": {"url": "https://example.invalid/mcp", "headers": {"X-Tenant": "${env:TENANT_ID}"}}
        }),
    );
    let token = "uses `${MY_API_TOKEN}`, which is not set in this environment; `export MY_API_TOKEN=…` where mcpctl and the client run, or keep the secret in mcpctl's store: `mcpctl secret set MY_API_TOKEN`, then `mcpctl secret adopt";
    let tenant = "uses `${TENANT_ID}`, which is not set in this environment; `export TENANT_ID=…` where mcpctl and the client run";
    let said = |run: &crate::env::Run| format!("{}{}", run.stdout, run.stderr);
    // It can still do its job: exit 0, the sentence in `--json` (the table says it in
    // one summary line: `list_says_unset_variables_in_one_line_however_many_entries`).
    // (`--json` names the file by its absolute path.)
    let list = env.run(&["list", "-c", "cursor", "--json"]).ok().stdout;
    let file = env.path(".cursor/mcp.json").display().to_string();
    let file = serde_json::to_string(&file).unwrap();
    let file = file.trim_matches('"');
    assert!(
        list.contains(&format!(
            "server `local`'s env `API_TOKEN` in `{file}` {token}"
        )) && list.contains(&format!(
            "server `remote`'s header `X-Tenant` in `{file}` {tenant}"
        )),
        "{list}"
    );
    let check = said(&env.run(&["check", "--user", "-c", "cursor"]).ok());
    assert!(
        check.contains(&format!(
            "warning[MCP503] server `local`'s env `API_TOKEN` {token}"
        )) && check.contains(&format!(
            "warning[MCP503] server `remote`'s header `X-Tenant` {tenant}"
        )),
        "{check}"
    );
    let add = said(
        &env.run(&[
            "add",
            "more",
            "-c",
            "cursor",
            "-e",
            "K=${env:MY_API_TOKEN}",
            "--",
            crate::doctor::fixture(),
        ])
        .ok(),
    );
    assert!(
        add.contains(&format!("warning: server `more`'s env `K` {token}")),
        "{add}"
    );
    // It must start the server: an error, in the same words.
    let doctor = env
        .run(&["doctor", "-c", "cursor", "local", "--json"])
        .code(1)
        .json();
    assert_eq!(
        crate::doctor::result(&doctor, "local")["status"],
        "fail",
        "{doctor}"
    );
    assert!(
        doctor
            .to_string()
            .contains(&format!("env `API_TOKEN` {token}")),
        "{doctor}"
    );
    for args in [
        vec!["tools", "local", "-c", "cursor"],
        vec!["call", "local", "hello", "-c", "cursor"],
    ] {
        let run = said(&env.run(&args).code(2));
        assert!(
            run.contains(&format!("cannot be started: env `API_TOKEN` {token}")),
            "{args:?}: {run}"
        );
    }
    let remote = said(&env.run(&["tools", "remote", "-c", "cursor"]).code(2));
    assert!(
        remote.contains(&format!("cannot be started: header `X-Tenant` {tenant}")),
        "{remote}"
    );
}

/// Issue 40: bare `mcpctl` prints the help on stdout and exits 0 (as `gh` and `cargo`
/// do), and the top level groups its commands under headings, the first session's five
/// first, plumbing last.
#[test]
fn bare_mcpctl_prints_the_grouped_help_on_stdout_and_succeeds() {
    let env = TestEnv::new();
    let run = env.run(&[]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stderr, "");
    let help = &run.stdout;
    let at = |text: &str| {
        help.find(text)
            .unwrap_or_else(|| panic!("no `{text}` in the help:\n{help}"))
    };
    let everyday = at("Everyday commands:\n  clients ");
    let first_five: Vec<usize> = ["clients", "add", "list", "doctor", "remove"]
        .iter()
        .map(|name| at(&format!("\n  {name} ")))
        .collect();
    assert!(first_five.is_sorted() && everyday < first_five[0], "{help}");
    let plumbing = at("Plumbing: what clients start, shell set-up:\n");
    assert!(
        at("\n  run ") > plumbing && at("\n  bridge ") > plumbing,
        "{help}"
    );
    assert!(at("\n  add ") < at("\n  secret "), "{help}");
    assert!(!help.contains("\nCommands:\n"), "an ungrouped list: {help}");
    // `--help` and `help` give the same grouping.
    for args in [&["--help"][..], &["help"][..]] {
        let run = env.run(args);
        assert_eq!(run.code, 0, "{run:?}");
        assert!(run.stdout.contains("Everyday commands:"), "{}", run.stdout);
    }
}

/// Issue 40: `--dry-run --json` said `"action": "added"`, indistinguishable from a real
/// run. Every writing command's rows now carry `"dry_run": true` under `--dry-run`, and
/// a real run has no such field.
#[test]
fn dry_run_json_says_it_is_a_dry_run() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"{\n  \"mcpServers\": {}\n}\n");
    let rows = |args: &[&str]| -> Vec<serde_json::Value> {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let run = env.run(&all).ok();
        match run.json() {
            serde_json::Value::Array(rows) => rows,
            one => vec![one],
        }
    };
    let dry = |args: &[&str]| {
        let rows = rows(args);
        assert!(!rows.is_empty(), "{args:?}");
        for row in rows {
            assert_eq!(row["dry_run"], true, "{args:?}: {row}");
        }
    };
    dry(&[
        "add",
        "mem",
        "-c",
        "cursor",
        "--dry-run",
        "--",
        "npx",
        "-y",
        "m",
    ]);
    for row in rows(&["add", "mem", "-c", "cursor", "--", "npx", "-y", "m"]) {
        assert_eq!(row["action"], "added", "{row}");
        assert!(
            row.get("dry_run").is_none(),
            "a real run says dry_run: {row}"
        );
    }
    dry(&["disable", "mem", "-c", "cursor", "--dry-run"]);
    dry(&["remove", "mem", "-c", "cursor", "--dry-run"]);
    dry(&["undo", "--dry-run"]);
    assert!(
        String::from_utf8(env.read(".cursor/mcp.json"))
            .unwrap()
            .contains("\"mem\""),
        "a dry run wrote"
    );
}

/// Issue 40: `-c vsc` (the start of an id) gets a did-you-mean, `-c all` points to
/// `--all`, and neither lists every id there is.
#[test]
fn a_mistyped_client_gets_the_one_it_meant() {
    let env = TestEnv::new();
    let run = env.run(&["list", "-c", "vsc"]).code(2);
    assert!(
        run.stderr.contains("unknown client `vsc`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("did you mean `vscode`?"),
        "{}",
        run.stderr
    );
    let run = env
        .run(&["add", "x", "-c", "all", "--", "npx", "x"])
        .code(2);
    assert!(
        run.stderr.contains("`-c all` names no client"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("use `--all`"), "{}", run.stderr);
}

/// Issue 40: on a machine with no client, `list` said "no servers configured in 0
/// client(s): " and `doctor` "no servers configured in 0 clients"; both now say no client
/// was detected and where to see every client mcpctl knows.
#[test]
fn an_empty_machine_says_no_client_was_detected() {
    let env = TestEnv::new();
    for verb in ["list", "doctor"] {
        let run = env.run(&[verb]).ok();
        assert!(
            run.stderr.contains("no client detected here")
                && run.stderr.contains("mcpctl clients --known"),
            "{verb}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("0 client"), "{verb}: {}", run.stderr);
    }
}

/// Issue 40: `add -- node /missing/script.js` was written without a word; a script path
/// that does not exist is now named (the entry is still written, as for a command not on
/// PATH), and one that exists is not.
#[test]
fn add_names_a_script_path_that_does_not_exist() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"{}\n");
    let missing = env.dir.path().join("missing/server.js");
    let missing = missing.to_str().unwrap();
    let run = env
        .run(&["add", "s", "-c", "cursor", "--", "node", missing])
        .ok();
    assert!(
        run.stderr
            .contains(&format!("`{missing}` does not exist here")),
        "{}",
        run.stderr
    );
    let there = env.write("srv/server.js", b"// a server\n");
    let there = there.to_str().unwrap();
    let run = env
        .run(&["add", "t", "-c", "cursor", "--", "node", there])
        .ok();
    assert!(!run.stderr.contains("does not exist"), "{}", run.stderr);
}

/// Issue 40: `remove NAME` without a target listed every client rather than those that
/// have NAME. With four clients configured and NAME in two, the refusal names exactly
/// those two (fixed in 94ba948; this test fails on its parent).
#[test]
fn remove_without_a_target_names_only_the_clients_that_have_the_name() {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        br#"{"mcpServers":{"memory":{"command":"npx","args":["-y","m"]}}}"#,
    );
    env.write(
        ".codeium/windsurf/mcp_config.json",
        br#"{"mcpServers":{"fetch":{"command":"uvx","args":["f"]}}}"#,
    );
    env.write(
        ".gemini/settings.json",
        br#"{"mcpServers":{"memory":{"command":"npx","args":["-y","m"]}}}"#,
    );
    env.write(
        ".codex/config.toml",
        b"[mcp_servers.fetch]\ncommand = \"uvx\"\nargs = [\"f\"]\n",
    );
    let run = env.run(&["remove", "memory"]).code(2);
    assert!(
        run.stderr
            .contains("candidates detected here: cursor, gemini-cli\n"),
        "{}",
        run.stderr
    );
    for other in ["windsurf", "codex"] {
        assert!(!run.stderr.contains(other), "{other}: {}", run.stderr);
    }
    // Nothing was removed.
    assert!(env.read_str(".cursor/mcp.json").contains("memory"));
}

/// Issue 40: changing one argument everywhere (`add NAME --all -- …` over the entries
/// one `add` wrote) printed four lines of "already exists" per client, 24 for six: the
/// refusal is said in full once and each later client gets one line; then `--force`
/// replaces it with one line per client and nothing about "already exists".
#[test]
fn changing_one_argument_everywhere_says_the_difference_once() {
    let env = TestEnv::new();
    env.on_path("npx");
    env.write(".cursor/mcp.json", b"{}\n");
    env.write(".codeium/windsurf/mcp_config.json", b"{}\n");
    env.write(".gemini/settings.json", b"{}\n");
    env.write(".codex/config.toml", b"# codex\n");
    env.run(&["add", "mem", "--all", "--", "npx", "-y", "m@1"])
        .ok();
    let run = env
        .run(&["add", "mem", "--all", "--", "npx", "-y", "m@2"])
        .code(2);
    let out = format!("{}{}", run.stdout, run.stderr);
    assert_eq!(out.matches("existing:").count(), 1, "{out}");
    assert_eq!(out.matches("--force").count(), 1, "{out}");
    assert_eq!(out.matches("already exists").count(), 4, "{out}");
    assert!(out.lines().count() <= 4 + 3, "{out}");
    for client in ["cursor", "windsurf", "gemini-cli", "codex"] {
        assert!(
            out.lines()
                .any(|l| l.starts_with("failed") && l.contains(client)),
            "{client}: {out}"
        );
    }
    let run = env
        .run(&["add", "mem", "--all", "--force", "--", "npx", "-y", "m@2"])
        .ok();
    assert!(!run.stdout.contains("already exists"), "{}", run.stdout);
    assert!(!run.stderr.contains("already exists"), "{}", run.stderr);
    assert_eq!(
        run.stdout
            .lines()
            .filter(|l| l.starts_with("updated"))
            .count(),
        4,
        "{}",
        run.stdout
    );
    assert!(env.read_str(".codex/config.toml").contains("m@2"));
}

/// Issue 40: a VS Code snippet whose `env` value is a prompt (`${input:ID}`) could not go
/// into Codex, which expands no variables: the prompt becomes the variable named after
/// the env key it feeds, which Codex passes through by name (`env_vars`), and the note
/// says which variable to set.
#[test]
fn a_vscode_input_goes_into_codex_as_the_variable_its_env_key_names() {
    let env = TestEnv::new();
    env.on_path("npx");
    env.write(".codex/config.toml", b"# codex\n");
    env.write(".cursor/mcp.json", b"{}\n");
    let snippet = r#"{"inputs":[{"type":"promptString","id":"github_token","description":"GitHub Personal Access Token","password":true}],
        "servers":{"github":{"command":"npx","args":["-y","@modelcontextprotocol/server-github"],
        "env":{"GITHUB_PERSONAL_ACCESS_TOKEN":"${input:github_token}"}}}}"#;
    let run = env
        .run(&["add", "-c", "codex", "-c", "cursor", "--from-json", snippet])
        .ok();
    assert!(
        run.stderr.contains(
            "other clients get the variable GITHUB_PERSONAL_ACCESS_TOKEN instead (the env key it feeds)"
        ),
        "{}",
        run.stderr
    );
    let codex: toml::Value = toml::from_str(&env.read_str(".codex/config.toml")).unwrap();
    let github = &codex["mcp_servers"]["github"];
    assert_eq!(
        github["env_vars"],
        toml::Value::Array(vec!["GITHUB_PERSONAL_ACCESS_TOKEN".into()]),
        "{codex}"
    );
    assert!(github.get("env").is_none(), "{codex}");
    assert!(!env.read_str(".codex/config.toml").contains("input:"));
    assert_eq!(
        cursor_servers(&env)["github"]["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"],
        "${env:GITHUB_PERSONAL_ACCESS_TOKEN}"
    );
}

/// Issue 40: `import` wrote `description = ""` and `name = "…"` for every Goose server
/// (what Goose's row writes into every entry anyway), and dropped Codex's
/// `startup_timeout_sec`. Only what differs from a fresh entry is kept, timeouts
/// included: import, then apply on a file without the entry, writes the Codex entry back
/// byte for byte.
#[test]
#[cfg(unix)] // the fixture's entries spell npx unwrapped, which Windows wants as `cmd /c npx`
fn import_keeps_codex_timeouts_and_leaves_out_goose_defaults() {
    let env = TestEnv::new();
    env.write(crate::env::GOOSE, &fixture("goose/config.yaml"));
    let manifest = env.path("goose.toml");
    env.run(&[
        "import",
        "-c",
        "goose",
        "--keep-secrets",
        "--manifest",
        manifest.to_str().unwrap(),
    ])
    .ok();
    let toml = env.read_str("goose.toml");
    assert!(!toml.contains("description = \"\""), "{toml}");
    assert!(!toml.contains("name = "), "{toml}");
    assert!(!toml.contains("= []") && !toml.contains("= {}"), "{toml}");
    assert!(toml.contains("description = \"docs\""), "{toml}");

    let original = String::from_utf8(fixture("codex/config.toml")).unwrap();
    let entry = |text: &str| -> String {
        let start = text.find("[mcp_servers.context7]").expect(text);
        let end = text.find("ctx7-secret-value\"\n").expect(text);
        text[start..end].to_owned()
    };
    env.write(".codex/config.toml", original.as_bytes());
    let manifest = env.path("codex.toml");
    let manifest = manifest.to_str().unwrap();
    env.run(&[
        "import",
        "-c",
        "codex",
        "--keep-secrets",
        "--manifest",
        manifest,
    ])
    .ok();
    let toml = env.read_str("codex.toml");
    assert!(
        toml.contains("[servers.context7.client.codex]\nstartup_timeout_sec = 20.0\n"),
        "{toml}"
    );
    env.write(".codex/config.toml", b"model = \"gpt-5-codex\"\n");
    env.run(&["apply", "--manifest", manifest]).ok();
    assert_eq!(
        entry(&env.read_str(".codex/config.toml")),
        entry(&original),
        "{}",
        env.read_str(".codex/config.toml")
    );
}

/// Issue 40: `secret adopt --dry-run` succeeded where the real run failed for lack of a
/// Secret Service. The dry run asks the store whether it could keep the secret (writing
/// nothing) and fails the same way: same message, same exit code, no file changed.
#[test]
#[cfg(unix)] // Windows always has its Credential Manager
fn secret_adopt_dry_run_fails_as_the_real_run_does_without_a_secret_service() {
    let env = TestEnv::new();
    env.on_path("npx");
    let original = r#"{"mcpServers":{"gh":{"command":"npx","args":["-y","g"],"env":{"GITHUB_TOKEN":"ghp_dryRunLiteral0123456789abcdefghiXYZ"}}}}"#;
    env.write(".cursor/mcp.json", original.as_bytes());
    let real = env.run(&["secret", "adopt", "-c", "cursor"]).code(2);
    assert!(real.stderr.contains("no Secret Service"), "{}", real.stderr);
    let dry = env
        .run(&["secret", "adopt", "-c", "cursor", "--dry-run"])
        .code(2);
    assert_eq!(dry.stderr, real.stderr);
    assert!(!dry.stdout.contains("would move"), "{}", dry.stdout);
    assert_eq!(env.read_str(".cursor/mcp.json"), original);
}

/// Issue 40: the README's first command drew `info[MCP402] unpinned` in every file on
/// `check`. The README pins the package, and its first session then checks clean; `add`
/// of an unpinned package says so at once (the same rule as `check`) and how to pin it.
#[test]
fn the_readmes_first_command_checks_clean() {
    let env = TestEnv::new();
    env.on_path("npx");
    env.write(".cursor/mcp.json", b"{}\n");
    env.write(".codex/config.toml", b"# codex\n");
    std::fs::create_dir_all(env.path(crate::env::VSCODE).parent().unwrap()).unwrap();
    let line = crate::docs::readme_first_add();
    let args: Vec<&str> = line.split_whitespace().skip(1).collect();
    let add = env.run(&args).ok();
    assert!(!add.stderr.contains("pinned"), "{line}: {}", add.stderr);
    let check = env.run(&["check", "--user"]).ok();
    assert!(!check.stdout.contains("MCP"), "{line}: {}", check.stdout);
    assert!(
        check.stderr.contains("0 errors, 0 warnings, 0 infos"),
        "{}",
        check.stderr
    );
    let unpinned = env
        .run(&["add", "m2", "-c", "cursor", "--", "npx", "-y", "some-mcp"])
        .ok();
    assert!(
        unpinned
            .stderr
            .contains("`some-mcp` is not pinned: every start may fetch a new release; pin a version as `some-mcp@VERSION`"),
        "{}",
        unpinned.stderr
    );
}

/// Issue 40: MCP501 (`${K}` in a Cursor file, which Cursor does not expand) was not fixed
/// by `--fix`. It respells the reference as Cursor reads it (`${env:K}`), in place, leaves
/// Cursor's own `${workspaceFolder}` alone, and `check` is clean after.
#[test]
fn check_fix_respells_a_variable_as_cursor_reads_it() {
    let env = TestEnv::new();
    // A program no platform wraps in `cmd /c`, so only MCP501 is found on any OS.
    let original = "{\n  \"mcpServers\": {\n    \"gh\": { \"command\": \"github-mcp-server\", \"args\": [\"stdio\", \"${workspaceFolder}\"], \"env\": { \"GITHUB_TOKEN\": \"${GITHUB_TOKEN}\" } }\n  }\n}\n";
    env.write("proj/.cursor/mcp.json", original.as_bytes());
    let before = env.run_in("proj", &["check"]).ok();
    assert!(
        before.stdout.contains("warning[MCP501]") && before.stdout.contains("(fixable)"),
        "{}",
        before.stdout
    );
    env.run_in("proj", &["check", "--fix"]).ok();
    assert_eq!(
        env.read_str("proj/.cursor/mcp.json"),
        original.replace("\"${GITHUB_TOKEN}\"", "\"${env:GITHUB_TOKEN}\"")
    );
    let after = env.run_in("proj", &["check"]).ok();
    assert!(!after.stdout.contains("MCP"), "{}", after.stdout);
    assert!(
        after.stderr.contains("0 errors, 0 warnings, 0 infos"),
        "{}",
        after.stderr
    );
}

/// Issue 40: `--from-json` wrote a README's placeholder paths (`/Users/username/…`,
/// `/path/to/…`) and secrets (`<YOUR_TOKEN>`) without a remark. A placeholder path is
/// named, with its field, and written (the entry is right once the path is); a
/// placeholder secret is refused, nothing written, with the flags that give the real
/// value beside the snippet; `--force` writes it as it is.
#[test]
fn from_json_names_readme_placeholders_and_refuses_a_placeholder_secret() {
    let env = TestEnv::new();
    env.on_path("npx");
    env.write(".cursor/mcp.json", b"{}\n");
    let paths = r#"{"mcpServers":{"filesystem":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem@2025.8.21","/Users/username/Desktop","/path/to/other/allowed/dir"]}}}"#;
    let run = env.run(&["add", "-c", "cursor", "--from-json", paths]).ok();
    assert!(
        run.stderr.contains("`filesystem` has README placeholder paths `/Users/username/Desktop` (args), `/path/to/other/allowed/dir` (args): the entry is written"),
        "{}",
        run.stderr
    );
    assert!(cursor_servers(&env).get("filesystem").is_some());

    let token = r#"{"mcpServers":{"github":{"command":"npx","args":["-y","@modelcontextprotocol/server-github@2025.4.8"],"env":{"GITHUB_PERSONAL_ACCESS_TOKEN":"<YOUR_TOKEN>"}}}}"#;
    let before = env.read(".cursor/mcp.json");
    let run = env
        .run(&["add", "-c", "cursor", "--from-json", token])
        .code(2);
    assert!(
        run.stderr.contains(
            "env `GITHUB_PERSONAL_ACCESS_TOKEN` is `<YOUR_TOKEN>`, a README placeholder, not a secret"
        ) && run.stderr.contains("nothing was written"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("`--env GITHUB_PERSONAL_ACCESS_TOKEN=VALUE`"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("plain text"), "{}", run.stderr);
    assert_eq!(env.read(".cursor/mcp.json"), before);
    // The hint's way: the real reference beside the snippet.
    env.run(&[
        "add",
        "-c",
        "cursor",
        "--env",
        "GITHUB_PERSONAL_ACCESS_TOKEN=${GITHUB_TOKEN}",
        "--from-json",
        token,
    ])
    .ok();
    assert_eq!(
        cursor_servers(&env)["github"]["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"],
        "${env:GITHUB_TOKEN}"
    );
}

/// Issue 40: a Goose builtin was listed with transport `?`, and `list --json` had a
/// `builtin` field no doc mentioned. The table says `builtin`, and every field `list
/// --json` prints is named in docs/reference/json.md.
#[test]
fn a_goose_builtin_says_builtin_and_every_list_json_field_is_documented() {
    let env = TestEnv::new();
    env.write(crate::env::GOOSE, &fixture("goose/config.yaml"));
    let table = env.run(&["list", "-c", "goose"]).ok().stdout;
    let developer = table
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("developer"))
        .unwrap_or_else(|| panic!("{table}"));
    assert_eq!(
        developer.split_whitespace().nth(2),
        Some("builtin"),
        "{table}"
    );
    assert!(
        !table
            .lines()
            .any(|l| l.split_whitespace().any(|c| c == "?")),
        "{table}"
    );
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reference/json.md"),
    )
    .unwrap();
    let list_doc = doc
        .split("\n- `list`:")
        .nth(1)
        .and_then(|rest| rest.split("\n- `").next())
        .unwrap();
    let rows = env.run(&["list", "-c", "goose", "--json"]).ok().json();
    for row in rows.as_array().unwrap() {
        for key in row.as_object().unwrap().keys() {
            assert!(
                list_doc.contains(&format!("\"{key}\"")) || list_doc.contains(&format!("`{key}`")),
                "`list --json` prints `{key}`, which docs/reference/json.md does not name"
            );
        }
    }
}

/// Issue 40: `clients` counted the servers of the user file while `list -c X` showed every
/// scope; the count is now the entries `list -c X` shows.
#[test]
fn clients_counts_the_servers_list_shows_in_every_scope() {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        br#"{"mcpServers": {"a": {"command": "npx", "args": ["a"]}}}"#,
    );
    env.write(
        "proj/.cursor/mcp.json",
        br#"{"mcpServers": {"b": {"command": "npx", "args": ["b"]}}}"#,
    );
    let listed = env
        .run_in("proj", &["list", "-c", "cursor", "--json"])
        .ok()
        .json();
    assert_eq!(listed.as_array().unwrap().len(), 2, "{listed}");
    let clients = env.run_in("proj", &["clients", "--json"]).ok().json();
    let cursor = clients
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "cursor")
        .unwrap();
    assert_eq!(cursor["servers"], 2, "{cursor}");
    let table = env.run_in("proj", &["clients"]).ok().stdout;
    let row = table
        .lines()
        .find(|l| l.starts_with("cursor "))
        .unwrap_or_else(|| panic!("{table}"));
    assert_eq!(row.split_whitespace().nth(3), Some("2"), "{table}");
}

/// Issue 40: `disable`/`enable` said "previous version kept in FILE" for the first of the
/// files it backed up; like `add`, the note now counts every one.
#[test]
fn disable_and_enable_count_every_backup_they_kept() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"{}\n");
    env.write(".claude.json", b"{}\n");
    env.write(crate::env::VSCODE, b"{}\n");
    env.run(&[
        "add",
        "mem",
        "-c",
        "cursor",
        "-c",
        "claude-code",
        "-c",
        "vscode",
        "--",
        "npx",
        "mem",
    ])
    .ok();
    for verb in ["disable", "enable"] {
        let run = env
            .run(&[
                verb,
                "mem",
                "-c",
                "cursor",
                "-c",
                "claude-code",
                "-c",
                "vscode",
            ])
            .ok();
        assert!(
            run.stderr.contains("(and 2 more in the same directory)"),
            "{verb}: {}",
            run.stderr
        );
    }
}

/// Issue 40: `plan --check` (which records nothing) said `adopt … (recorded as mcpctl's)`,
/// and an adopted entry changed by hand was "edited by hand since mcpctl wrote it",
/// which mcpctl never did.
#[test]
#[cfg(unix)] // the hand-made entry spells npx unwrapped, which Windows wants as `cmd /c npx`
fn a_plan_says_apply_adopts_and_an_adopted_entry_is_not_called_written() {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        br#"{"mcpServers": {"memory": {"command": "npx", "args": ["-y", "m"]}}}"#,
    );
    env.write(
        crate::env::MANIFEST,
        b"clients = [\"cursor\"]\n\n[servers.memory]\ncommand = \"npx\"\nargs = [\"-y\", \"m\"]\n",
    );
    let check = env.run(&["plan", "--check"]).ok().stdout;
    assert!(!check.contains("recorded as mcpctl's"), "{check}");
    assert!(check.contains("`apply` records it as mcpctl's"), "{check}");
    env.run(&["apply"]).ok();
    let edited = env.read_str(".cursor/mcp.json").replace("\"m\"", "\"m2\"");
    env.write(".cursor/mcp.json", edited.as_bytes());
    let plan = env.run(&["plan"]).ok().stdout;
    assert!(!plan.contains("since mcpctl wrote it"), "{plan}");
    assert!(
        plan.contains("edited by hand since mcpctl wrote or adopted it"),
        "{plan}"
    );
}

/// Issue 40: `.pre-commit-hooks.yaml` offered a hook that installs `mcpctl@VERSION` from
/// npm, which is published only with that release: every hook it offers works from a
/// clone today (the npm form is in docs/guide/ci.md, marked with its release).
#[test]
fn every_pre_commit_hook_works_before_the_first_release() {
    let hooks = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml"),
    )
    .unwrap();
    for line in hooks.lines().filter(|l| !l.trim_start().starts_with('#')) {
        assert!(
            !line.contains("mcpctl@") && !line.contains("language: node"),
            "a hook installs a package not published yet: {line}"
        );
    }
    assert!(hooks.contains("language: rust"), "{hooks}");
}

/// Issue 40: the unset-variable hint ended at `mcpctl secret set VAR`, after which the same
/// warning came back (the entry still asks the environment for the variable). It names the
/// whole way now, and the way works: `secret set`, then `secret adopt SERVER` points the
/// entry at the stored secret, the warning is gone, and the server gets the value.
#[test]
#[cfg(unix)] // the secret comes from `printf`, the server is `sh`
fn the_unset_variable_hint_names_the_whole_way_and_following_it_works() {
    let env = TestEnv::new();
    let seen = env.dir.path().join("seen");
    let script = format!("printf %s \"$API_TOKEN\" > '{}'", seen.display());
    env.write(
        ".cursor/mcp.json",
        json!({"mcpServers": {"local": {
            "command": "sh",
            "args": ["-c", script],
            "env": {"API_TOKEN": "${MY_API_TOKEN}"}
        }}})
        .to_string()
        .as_bytes(),
    );
    // `list` points at `doctor NAME`, which names the way; `--json` has it per entry.
    let list = env.run(&["list", "-c", "cursor"]).ok();
    assert!(
        list.stderr.contains("`mcpctl doctor local`"),
        "{}",
        list.stderr
    );
    let doctor = env.run(&["doctor", "local"]);
    assert!(
        format!("{}{}", doctor.stdout, doctor.stderr)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains("`mcpctl secret set MY_API_TOKEN`, then `mcpctl secret adopt` points the entry at it"),
        "{}{}",
        doctor.stdout,
        doctor.stderr
    );
    let json = env.run(&["list", "-c", "cursor", "--json"]).ok().stdout;
    assert!(
        json.contains(
            "`mcpctl secret set MY_API_TOKEN`, then `mcpctl secret adopt local` points the entry at it"
        ),
        "{json}"
    );
    env.run(&[
        "secret",
        "set",
        "MY_API_TOKEN",
        "--command",
        "printf tok-123",
    ])
    .ok();
    let adopt = env.run(&["secret", "adopt", "local", "-c", "cursor"]).ok();
    let list = env.run(&["list", "-c", "cursor"]).ok();
    assert!(
        !list.stderr.contains("MY_API_TOKEN"),
        "{}{}{}",
        adopt.stdout,
        adopt.stderr,
        list.stderr
    );
    let file = env.read_str(".cursor/mcp.json");
    assert!(
        file.contains("API_TOKEN=MY_API_TOKEN") && !file.contains("${MY_API_TOKEN}"),
        "{file}"
    );
    assert!(!file.contains("tok-123"), "{file}");
    // What the client starts gives the server the value.
    let entry = &cursor_servers(&env)["local"];
    let args: Vec<&str> = entry["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let status = env
        .command_of(
            std::path::Path::new(entry["command"].as_str().unwrap()),
            &args,
        )
        .status()
        .unwrap();
    assert!(status.success(), "{entry}");
    assert_eq!(std::fs::read_to_string(&seen).unwrap(), "tok-123");
}

/// Issue 40: with no client detected, `add` without `-c` suggested "`-c ID` … or
/// `--all`", and `--all` then failed for the same reason: it says no client was detected
/// and how to name one.
#[test]
fn with_no_client_detected_add_does_not_suggest_all() {
    let env = TestEnv::new();
    let run = env.run(&["add", "x", "--", "npx", "x"]).code(2);
    assert!(
        run.stderr.contains("no client detected here"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("-c ID"), "{}", run.stderr);
    assert!(!run.stderr.contains("or `--all`"), "{}", run.stderr);
    assert!(
        run.stderr.contains("mcpctl clients --known"),
        "{}",
        run.stderr
    );
}

/// Issue 40: `tools` of a remote entry said "starting `NAME`", though nothing is started:
/// mcpctl connects to a URL.
#[test]
fn tools_of_a_remote_entry_says_connecting_not_starting() {
    let env = TestEnv::new();
    crate::doctor::cursor_config(&env, json!({"evhttp": {"url": "http://127.0.0.1:9/mcp"}}));
    let run = env.run(&["tools", "evhttp", "-c", "cursor", "--timeout", "5"]);
    assert_ne!(run.code, 0, "{run:?}");
    assert!(
        run.stderr.contains("connecting to `evhttp` from cursor"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("starting `evhttp`"), "{}", run.stderr);
}

/// Issue 40: `call --arg reasn=…` was passed to the server as is, which then missed
/// `reason`; a key the tool does not take that is near one it does is refused, naming it.
#[test]
#[ignore = "needs .ci/peers.sh"]
fn call_names_the_parameter_a_mistyped_argument_meant() {
    let env = TestEnv::new();
    crate::doctor::cursor_config(&env, json!({"py": crate::tools::python_entry()}));
    let run = env
        .run(&["call", "py", "fail", "--arg", "reasn=boom"])
        .code(2);
    assert!(
        run.stderr
            .contains("unknown argument `reasn`, did you mean `reason`?"),
        "{}",
        run.stderr
    );
}

/// Issue 40: `--scope globl` got clap's "a similar value exists: 'local'"; it means the
/// user scope, which `global` (and `-g`) also name.
#[test]
fn a_mistyped_global_scope_is_taken_for_global() {
    let env = TestEnv::new();
    for args in [
        &[
            "add", "x", "-c", "cursor", "--scope", "globl", "--", "npx", "x",
        ][..],
        &["list", "--scope", "globl"][..],
    ] {
        let run = env.run(args).code(2);
        assert!(
            run.stderr
                .contains("invalid scope `globl`: did you mean `--scope user` (also spelled `global`, or `-g`)?"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("'local'"), "{}", run.stderr);
    }
    // A value near no scope keeps clap's own message.
    let run = env.run(&["list", "--scope", "everywhere"]).code(2);
    assert!(run.stderr.contains("possible values"), "{}", run.stderr);
}

/// Issue 40: MCP209's hint named `mcpctl doctor URL`, a form that did not exist (the URL
/// was taken for a server name). It contacts the endpoint as doctor contacts a remote
/// entry and says what it speaks, with no config file naming it; a dead one fails.
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn doctor_url_checks_an_endpoint_no_config_file_names() {
    let env = TestEnv::new();
    let port = crate::secret_store::free_port();
    let _server = crate::secret_store::HttpFixture::start("http", port);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let run = env.run(&["doctor", &url]).ok();
    let row = run
        .stdout
        .lines()
        .find(|l| l.starts_with('✔'))
        .unwrap_or_else(|| panic!("{}{}", run.stdout, run.stderr));
    assert!(
        row.contains(&url) && row.contains("fixture-server") && row.contains("2 tools"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains(&format!("connecting to `{url}`")),
        "{}",
        run.stderr
    );
    let json = env.run(&["doctor", &url, "--json"]).ok().json();
    assert_eq!(json["results"][0]["status"], "ok", "{json}");
    assert_eq!(json["results"][0]["name"], url, "{json}");
    // Nothing listens here: a failure, exit 1.
    let dead = format!("http://127.0.0.1:{}/mcp", crate::secret_store::free_port());
    let run = env.run(&["doctor", &dead, "--timeout", "5"]).code(1);
    assert!(
        run.stdout.contains('✘') && run.stdout.contains(&dead),
        "{}",
        run.stdout
    );
}

/// Issue 40: doctor printed how tokens are estimated on every client's total line; it
/// says it once, under the totals.
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn doctor_says_how_tokens_are_estimated_once() {
    let env = TestEnv::new();
    let server = json!({"command": crate::doctor::fixture()});
    crate::doctor::cursor_config(&env, json!({"one": server}));
    env.write(
        ".claude.json",
        json!({"mcpServers": {"two": server}})
            .to_string()
            .as_bytes(),
    );
    let run = env.run(&["doctor"]).ok();
    let totals = run
        .stdout
        .lines()
        .filter(|l| l.contains(": tool definitions ≈"))
        .count();
    assert_eq!(totals, 2, "{}", run.stdout);
    assert_eq!(
        run.stdout.matches("compact JSON / 4").count(),
        1,
        "{}",
        run.stdout
    );
}

/// Issue 40: `add --secret` run from a source build wrote `<clone>/target/…/mcpctl` into
/// client files, so `cargo clean` broke every launcher entry. The installed `mcpctl` of
/// this version on PATH is preferred; without one the entry names the build, and a
/// warning says why that breaks and names `MCPCTL_EXE`.
#[test]
#[cfg(unix)] // the installed copy is a hard link named `mcpctl` (no `.exe`)
fn add_secret_from_a_source_build_prefers_the_installed_mcpctl() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"{}\n");
    let build = std::path::Path::new(env!("CARGO_BIN_EXE_mcpctl"));
    // Without an installed mcpctl: the build, and the warning.
    let run = env
        .run(&[
            "add", "a", "-c", "cursor", "--secret", "T=s", "--", "npx", "a",
        ])
        .ok();
    assert!(
        run.stderr.contains("a build in a source tree") && run.stderr.contains("MCPCTL_EXE"),
        "{}",
        run.stderr
    );
    assert_eq!(
        cursor_servers(&env)["a"]["command"],
        build.display().to_string()
    );
    // With one on PATH: that one, and no warning.
    let installed = env.dir.path().join("bin").join("mcpctl");
    std::fs::hard_link(build, &installed)
        .or_else(|_| std::fs::copy(build, &installed).map(|_| ()))
        .unwrap();
    let run = env
        .run(&[
            "add", "b", "-c", "cursor", "--secret", "T=s", "--", "npx", "b",
        ])
        .ok();
    assert!(!run.stderr.contains("source tree"), "{}", run.stderr);
    assert_eq!(
        cursor_servers(&env)["b"]["command"],
        installed.display().to_string()
    );
}

/// Issue 40: a plan repeated a note about the client (Goose and `${VAR}`) once per entry;
/// it is said once per file.
#[test]
fn a_plan_says_a_note_about_the_client_once() {
    let env = TestEnv::new();
    env.write(
        ".codeium/windsurf/mcp_config.json",
        b"{\"mcpServers\": {}}\n",
    );
    env.write(
        crate::env::MANIFEST,
        b"clients = [\"windsurf\"]\n\n[servers.a]\ncommand = \"npx\"\nargs = [\"a\"]\nenv = { A_TOKEN = \"${A_TOKEN}\" }\n\n[servers.b]\ncommand = \"npx\"\nargs = [\"b\"]\nenv = { B_TOKEN = \"${B_TOKEN}\" }\n",
    );
    let run = env.run(&["plan"]).ok();
    assert_eq!(
        run.stderr
            .matches("mcpctl does not know whether Windsurf (legacy) expands")
            .count(),
        1,
        "{}",
        run.stderr
    );
}

/// Issue 40: a literal token in an `Authorization` header got the advice to read it from
/// a variable named `AUTHORIZATION`; the variable is named after the server.
#[test]
fn a_header_secret_suggests_a_variable_named_after_the_server() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"{}\n");
    let token = format!("ghp_{}", "a1B2c3D4e5".repeat(4).get(..36).unwrap());
    let header = format!("Authorization: Bearer {token}");
    let add = env
        .run(&[
            "add",
            "docs",
            "-c",
            "cursor",
            "--url",
            "https://docs.example.com/mcp",
            "-H",
            &header,
        ])
        .ok();
    assert!(
        add.stderr
            .contains("-H 'Authorization: Bearer ${DOCS_TOKEN}'"),
        "{}",
        add.stderr
    );
    assert!(!add.stderr.contains("AUTHORIZATION"), "{}", add.stderr);
    let check = env.run(&["check", "--user", "-c", "cursor"]).code(1);
    assert!(check.stdout.contains("DOCS_TOKEN"), "{}", check.stdout);
    assert!(!check.stdout.contains("AUTHORIZATION"), "{}", check.stdout);
}

/// Issue 40: `clients`' CHECKED column was explained nowhere. It is VERIFIED, and the
/// command's help and the client reference say what it means.
#[test]
fn clients_says_what_its_verified_column_means() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"{}\n");
    let table = env.run(&["clients"]).ok().stdout;
    assert!(
        table.lines().next().unwrap().contains(" VERIFIED "),
        "{table}"
    );
    let help = env.run(&["clients", "--help"]).ok().stdout;
    assert!(help.contains("VERIFIED: the day"), "{help}");
}

/// Issue 40: `import --json` printed TOML. It prints a JSON object holding the manifest.
#[test]
fn import_json_prints_json() {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        br#"{"mcpServers": {"a": {"command": "npx", "args": ["a"]}}}"#,
    );
    let out = env.run(&["--json", "import", "-c", "cursor"]).ok().json();
    assert_eq!(out["servers"], json!(["a"]), "{out}");
    assert_eq!(out["written"], false, "{out}");
    assert!(
        out["document"].as_str().unwrap().contains("[servers.a]"),
        "{out}"
    );
}

/// Issue 40: `export --help` documented `--trust-project` as letting the manifest write
/// files, but `export` only prints.
#[test]
fn export_help_promises_no_writes() {
    let env = TestEnv::new();
    let help = env.run(&["export", "--help"]).ok().stdout;
    let own = help.split("Global options:").next().unwrap();
    assert!(!own.contains("--trust-project"), "{help}");
    assert!(!own.contains("write"), "{help}");
}

/// Issue 40: a name in two scopes got a hint naming only one of them.
#[test]
fn a_name_in_two_scopes_names_both_in_the_hint() {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        br#"{"mcpServers": {"x": {"command": "npx", "args": ["a"]}}}"#,
    );
    env.write(
        "proj/.cursor/mcp.json",
        br#"{"mcpServers": {"x": {"command": "npx", "args": ["b"]}}}"#,
    );
    let run = env.run_in("proj", &["remove", "x", "-c", "cursor"]);
    assert_ne!(run.code, 0, "{run:?}");
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(
        said.contains("say which: `--scope user` or `--scope project`"),
        "{said}"
    );
}

/// Issue 40: a TOML duplicate key was "duplicate key", naming no key; `check` and every
/// command reading the file name it.
#[test]
fn a_toml_duplicate_key_is_named() {
    let env = TestEnv::new();
    env.write(
        ".codex/config.toml",
        b"[mcp_servers.a]\ncommand = \"npx\"\ncommand = \"uvx\"\n",
    );
    let check = env.run(&["check", "--user", "-c", "codex"]).code(1);
    assert!(
        check.stdout.contains("duplicate key `command`"),
        "{}",
        check.stdout
    );
    let list = env.run(&["list", "-c", "codex"]);
    assert!(
        list.stderr
            .contains("3:1: not valid TOML: duplicate key `command`"),
        "{}",
        list.stderr
    );
}

/// Issue 40: `check --fix` reflowed a one-line entry into several lines to rename one
/// key (MCP201), and its diff header named the file by another path than the findings.
#[test]
fn check_fix_keeps_a_one_line_entry_and_names_the_file_as_the_findings_do() {
    let env = TestEnv::new();
    env.write(
        "proj/.cursor/mcp.json",
        b"{\n  \"mcpServers\": {\n    \"docs\": { \"serverUrl\": \"https://mcp.example.com/mcp\" },\n    \"other\": { \"command\": \"npx\", \"args\": [\"-y\", \"x@1\"] }\n  }\n}\n",
    );
    // The diff names the file as the findings do (`check` prints project paths with `/`
    // on every OS, so the same spelling under Wine).
    let shown = ".cursor/mcp.json";
    let dry = env.run_in("proj", &["check", "--fix", "--dry-run"]).code(1);
    assert!(
        dry.stdout
            .contains(&format!("--- a/{shown}\n+++ b/{shown}\n")),
        "{}",
        dry.stdout
    );
    assert!(
        dry.stdout.contains(&format!("\n{shown}:3:15: ")),
        "{}",
        dry.stdout
    );
    env.run_in("proj", &["check", "--fix"]).ok();
    let fixed = env.read_str("proj/.cursor/mcp.json");
    assert!(
        fixed.contains("\n    \"docs\": { \"url\": \"https://mcp.example.com/mcp\" },\n"),
        "{fixed}"
    );
}

/// Issue 40: the Goose `${VAR}` warning contradicted the README. The README says variables
/// are written the way each client expands them; for Goose mcpctl wrote `envs:
/// {TOKEN: "${TOKEN}"}` with "mcpctl does not know whether Goose expands", while the
/// clients page said Goose expands none. Goose passes `envs` as written and takes the
/// names listed in `env_keys` from its environment (or keyring), so a same-name
/// reference is written there, read back as the same entry, and a reference Goose would
/// keep as text is refused naming `env_keys`.
#[test]
#[cfg(unix)] // expects npx unwrapped (Windows writes `cmd /c npx`)
fn goose_gets_env_keys_for_a_variable_as_the_readme_says() {
    let env = TestEnv::new();
    let text = String::from_utf8(fixture("goose/config.yaml")).unwrap();
    env.write(crate::env::GOOSE, text.as_bytes());
    let run = env
        .run(&[
            "add",
            "github",
            "-c",
            "goose",
            "-e",
            "GITHUB_TOKEN=${GITHUB_TOKEN}",
            "-e",
            "MODE=fast",
            "--",
            "npx",
            "-y",
            "server-github",
        ])
        .ok();
    assert!(!run.stderr.contains("does not know"), "{}", run.stderr);
    let file = env.read_str(crate::env::GOOSE);
    assert!(
        file.contains("    envs:\n      MODE: fast\n    env_keys:\n    - GITHUB_TOKEN\n"),
        "{file}"
    );
    assert!(!file.contains("${GITHUB_TOKEN}"), "{file}");
    // Read back, it is the entry that was added: a second add is a no-op, list shows it.
    let again = env
        .run(&[
            "add",
            "github",
            "-c",
            "goose",
            "-e",
            "GITHUB_TOKEN=${GITHUB_TOKEN}",
            "-e",
            "MODE=fast",
            "--",
            "npx",
            "-y",
            "server-github",
        ])
        .ok();
    assert_eq!(env.read_str(crate::env::GOOSE), file, "{}", again.stderr);
    let rows = env.run(&["list", "-c", "goose", "--json"]).ok().json();
    let github = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "github")
        .unwrap()
        .to_string();
    assert!(github.contains("GITHUB_TOKEN"), "{github}");
    // A reference Goose would pass as text is refused, naming the way that works.
    let refused = env
        .run(&[
            "add",
            "other",
            "-c",
            "goose",
            "-e",
            "API_KEY=${XI_KEY}",
            "--",
            "npx",
            "-y",
            "other",
        ])
        .code(2);
    assert!(
        refused
            .stdout
            .contains("Goose expands no variables in env `API_KEY`")
            && refused.stdout.contains("`env_keys`"),
        "{}",
        refused.stdout
    );
    // The README and the clients page say the same.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(readme.contains("`env_keys` for Goose"), "README");
    let clients =
        std::fs::read_to_string(root.join("docs").join("reference").join("clients.md")).unwrap();
    assert!(
        clients.contains("`env_keys`")
            && !clients.contains("mcpctl warns\n  and writes the value as given"),
        "clients.md"
    );
}

/// Issue 40: `--deny-tools write_fil` (a typo of a tool `doctor`/`tools` measured) was
/// written silently, denying nothing. A name the server was measured not to have is
/// refused with the one it meant, or with the list; an unmeasured server's names are
/// taken as given.
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn deny_tools_names_the_measured_tool_a_typo_meant() {
    let env = TestEnv::new();
    let codex = ".codex/config.toml";
    let text = format!(
        "[mcp_servers.fx]\ncommand = {}\n",
        serde_json::Value::String(crate::doctor::fixture().to_owned())
    );
    env.write(codex, text.as_bytes());
    // Not measured yet: taken as given.
    env.run(&[
        "disable",
        "fx",
        "-c",
        "codex",
        "--deny-tools",
        "anything",
        "--dry-run",
    ])
    .ok();
    env.run(&["tools", "fx"]).ok();
    let typo = env
        .run(&["disable", "fx", "-c", "codex", "--deny-tools", "helo"])
        .code(2);
    let said = format!("{}{}", typo.stdout, typo.stderr);
    assert!(
        said.contains("`helo`") && said.contains("did you mean `hello`"),
        "{said}"
    );
    assert_eq!(env.read_str(codex), text, "nothing was written");
    let unknown = env
        .run(&[
            "disable",
            "fx",
            "-c",
            "codex",
            "--deny-tools",
            "hello,zzz_unrelated",
        ])
        .code(2);
    let said = format!("{}{}", unknown.stdout, unknown.stderr);
    assert!(
        said.contains("`zzz_unrelated`") && said.contains("hello, pid"),
        "{said}"
    );
    assert_eq!(env.read_str(codex), text, "nothing was written");
    // A measured name goes through.
    env.run(&["disable", "fx", "-c", "codex", "--deny-tools", "pid"])
        .ok();
    assert!(env.read_str(codex).contains("disabled_tools = [\"pid\"]"));
}

/// Issue 40: a usage error under `--json` was plain text. Under `--json` every error is
/// one JSON object on stderr (stdout stays empty, so `| jq` never takes it for a
/// result), with the exit code kept: 2 for a command line mcpctl cannot read.
#[test]
fn a_usage_error_under_json_is_json() {
    let env = TestEnv::new();
    for args in [
        &["list", "--bogus", "--json"][..],
        &["--json", "lst"],
        &["list", "--scope", "globl", "--json"],
        &["add", "--json"],
    ] {
        let run = env.run(args).code(2);
        assert_eq!(run.stdout, "", "{args:?}");
        let last = run.stderr.lines().last().unwrap_or_default();
        let error: serde_json::Value =
            serde_json::from_str(last).unwrap_or_else(|e| panic!("{args:?}: {e}: {}", run.stderr));
        assert!(
            error["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{args:?}: {error}"
        );
    }
    let run = env.run(&["list", "--bogus", "--json"]).code(2);
    let error: serde_json::Value = serde_json::from_str(run.stderr.trim()).unwrap();
    assert_eq!(
        error["error"]["message"],
        "unexpected argument '--bogus' found"
    );
    // (`mcpctl.exe list …` where the binary is named so.)
    assert!(
        error["error"]["usage"]
            .as_str()
            .is_some_and(|u| u.ends_with("list [OPTIONS] [NAME]")),
        "{error}"
    );
    // Without --json, and after `--`, the text is clap's own.
    let run = env.run(&["list", "--bogus"]).code(2);
    assert!(
        run.stderr.starts_with("error: unexpected argument"),
        "{}",
        run.stderr
    );
    // The reference documents it.
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("docs")
            .join("reference")
            .join("json.md"),
    )
    .unwrap();
    assert!(doc.contains("{\"error\": {\"message\""), "json.md");
}

/// Issue 40: doctor printed one MCP002/MCP003 line per comma (column dropped), the same
/// failure and its stderr tail once per client, and lines wider than the terminal. A
/// file's findings are one line per rule with every `line:column`, identical failures of
/// a server are one row (`✘ fs in 2 clients (…)`, its stderr tail once), and no line is
/// wider than `COLUMNS`.
#[test]
#[cfg(unix)] // the failing server is `sh`
fn doctor_says_each_failure_once_and_fits_the_terminal() {
    let env = TestEnv::new();
    let failing = json!({"command": "sh", "args": ["-c", "echo fsboom >&2; exit 1"]});
    env.write(
        ".claude.json",
        json!({"mcpServers": {"fs": failing}})
            .to_string()
            .as_bytes(),
    );
    crate::doctor::cursor_config(&env, json!({"fs": failing}));
    env.write(
        ".codeium/windsurf/mcp_config.json",
        b"{\n  // mine\n  \"mcpServers\": {\n    \"w1\": {\"command\": \"w1\", \"args\": [],},\n    \"w2\": {\"command\": \"w2\", \"args\": [],},\n  },\n}\n",
    );
    let run = env
        .command(&["doctor", "-c", "claude-code,cursor,windsurf"])
        .env("COLUMNS", "80")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert_eq!(stdout.matches("fsboom").count(), 1, "{stdout}");
    assert!(
        stdout.contains("✘ fs in 2 clients (claude-code, cursor)"),
        "{stdout}"
    );
    assert_eq!(stdout.matches("MCP003").count(), 1, "{stdout}");
    assert_eq!(stdout.matches("MCP002").count(), 1, "{stdout}");
    assert!(stdout.contains("MCP002, line 2:3"), "{stdout}");
    assert!(stdout.contains("MCP003, lines 4:"), "{stdout}");
    for line in stdout.lines() {
        assert!(line.chars().count() <= 80, "{line:?}\n{stdout}");
    }
    // The rows still count every client's verdict.
    assert!(stdout.contains("5 failed"), "{stdout}");
}

/// Issue 40: doctor took one NAME only, and a NAME filter still printed and counted an
/// unrelated file's row. Several NAMEs are taken; a file that could not be read is a
/// warning (it may hold them), not a row of theirs.
#[test]
#[cfg(unix)] // the failing server is `sh`
fn doctor_takes_several_names_and_counts_only_their_rows() {
    let env = TestEnv::new();
    let failing = json!({"command": "sh", "args": ["-c", "exit 1"]});
    crate::doctor::cursor_config(
        &env,
        json!({"alpha": failing, "beta": failing, "gamma": failing}),
    );
    env.write(".codeium/windsurf/mcp_config.json", b"{\"mcpServers\": {\n");
    let run = env.run(&["doctor", "alpha", "beta", "--no-spawn"]).code(0);
    assert!(
        run.stdout.contains("cursor/alpha") && run.stdout.contains("cursor/beta"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("cursor/gamma"), "{}", run.stdout);
    assert!(!run.stdout.contains("windsurf"), "{}", run.stdout);
    assert!(
        run.stdout.contains("0 failed, 0 warnings, 2 ok"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("mcp_config.json:2:1")
            && run.stderr.contains("may hold `alpha`, `beta`"),
        "{}",
        run.stderr
    );
    // A name nothing has is still an error, with the one meant.
    let typo = env.run(&["doctor", "alpha", "betta", "--no-spawn"]).code(2);
    assert!(
        typo.stderr.contains("`betta`") && typo.stderr.contains("beta"),
        "{}",
        typo.stderr
    );
}

/// Issue 40: `check`'s findings were not in file order: the unset-variable findings
/// (MCP503) came after every other, whatever their line. Each file's findings are
/// sorted by line and column.
#[test]
fn check_findings_are_in_file_order() {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        b"{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"npx\", \"args\": [\"-y\", \"server-a\"], \"env\": {\"K\": \"${env:UNSET_FIRST_HOUR_A}\"}},\n    \"b\": {\"command\": \"npx\", \"args\": [\"-y\", \"server-b\"]},\n    \"c\": {\"command\": \"npx\", \"args\": [\"-y\", \"server-c\"], \"env\": {\"K\": \"${env:UNSET_FIRST_HOUR_C}\"}}\n  }\n}\n",
    );
    let run = env.run(&["check", "--user", "--json"]);
    let findings = run.json();
    let places: Vec<(u64, u64)> = findings["findings"]
        .as_array()
        .or_else(|| findings.as_array())
        .unwrap_or_else(|| panic!("{findings}"))
        .iter()
        .map(|f| (f["line"].as_u64().unwrap(), f["column"].as_u64().unwrap()))
        .collect();
    assert!(places.len() >= 4, "{findings}");
    let mut sorted = places.clone();
    sorted.sort_unstable();
    assert_eq!(places, sorted, "{findings}");
}

/// Issue 40: `list` did not show which variables an entry sets. An ENV column names
/// them and the headers (never their values, which `--show-secrets` shows).
#[test]
fn list_names_the_variables_an_entry_sets_never_their_values() {
    let env = TestEnv::new();
    crate::doctor::cursor_config(
        &env,
        json!({
            "gh": {"command": "npx", "args": ["-y", "gh"], "env": {"GITHUB_TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "MODE": "fast"}},
            "web": {"url": "https://x.example/mcp", "headers": {"Authorization": "Bearer secret-value-123"}},
            "plain": {"command": "npx", "args": ["-y", "plain"]}
        }),
    );
    let run = env.run(&["list", "-c", "cursor"]).ok();
    assert!(run.stdout.contains(" ENV "), "{}", run.stdout);
    let gh = run.stdout.lines().find(|l| l.contains(" gh ")).unwrap();
    assert!(gh.contains(" GITHUB_TOKEN MODE "), "{}", run.stdout);
    let web = run.stdout.lines().find(|l| l.contains(" web ")).unwrap();
    assert!(web.contains(" Authorization "), "{}", run.stdout);
    for value in ["ghp_", "fast", "secret-value-123"] {
        assert!(!run.stdout.contains(value), "{value}: {}", run.stdout);
    }
}

/// Issue 40: README, install.md and BENCHMARKS.md gave three different set-up commands
/// (`cargo run --release`, `cargo run`, `cargo install`) and three different times, the
/// install command (`cargo install --path .`) built the opt-level-1 binary while
/// BENCHMARKS.md said users run `dist`, and the clone line was `git clone
/// "$MCPCTL_REPO"`, a URL the reader was told is "the URL you clone this repository
/// from". Now: one install command (`--profile dist`, the trade said) and one pair of
/// set-up commands in both files; every time they quote is a figure of BENCHMARKS.md's
/// build table; no unexplained repository variable.
#[test]
fn readme_install_and_benchmarks_give_one_set_up_and_its_measured_times() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |rel: &str| std::fs::read_to_string(root.join(rel)).unwrap();
    let (readme, install, bench) = (
        read("README.md"),
        read("docs/install.md"),
        read("BENCHMARKS.md"),
    );
    // The shell lines of the fenced `sh` blocks, comments dropped.
    let commands = |text: &str| -> Vec<String> {
        let mut out = Vec::new();
        let mut inside = false;
        for line in text.lines() {
            if line.starts_with("```") {
                inside = line == "```sh";
                continue;
            }
            if inside && line.starts_with("cargo ") {
                out.push(line.split(" #").next().unwrap().trim().to_owned());
            }
        }
        out
    };
    let (r, i) = (commands(&readme), commands(&install));
    let install_lines = |c: &[String]| -> Vec<String> {
        c.iter()
            .filter(|l| l.starts_with("cargo install"))
            .cloned()
            .collect()
    };
    assert_eq!(
        install_lines(&r),
        ["cargo install --locked --path . --profile dist"],
        "{r:?}"
    );
    assert_eq!(install_lines(&r), install_lines(&i), "{i:?}");
    for set_up in ["cargo run --release -- clients", "cargo test"] {
        assert!(
            r.iter().any(|l| l == set_up),
            "README lacks `{set_up}`: {r:?}"
        );
        assert!(
            i.iter().any(|l| l == set_up),
            "install.md lacks `{set_up}`: {i:?}"
        );
        assert!(
            bench.contains(&format!("`{set_up}")),
            "BENCHMARKS.md lacks `{set_up}`"
        );
    }
    // Every time quoted is one BENCHMARKS.md measured.
    let times = |text: &str| -> Vec<String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let number = |w: &str| {
            !w.is_empty()
                && w.trim_start_matches("**")
                    .chars()
                    .all(|c| c.is_ascii_digit())
        };
        words
            .windows(4)
            .filter(|w| {
                number(w[0])
                    && w[1] == "min"
                    && number(w[2])
                    && w[3].trim_end_matches(['*', ',', ')', '.']) == "s"
            })
            .map(|w| format!("{} min {} s", w[0].trim_start_matches("**"), w[2]))
            .collect()
    };
    let quoted: Vec<String> = times(&readme).into_iter().chain(times(&install)).collect();
    assert!(quoted.len() >= 3, "{quoted:?}");
    let measured = times(&bench);
    for t in &quoted {
        assert!(
            measured.contains(t),
            "`{t}` is quoted but not in BENCHMARKS.md: {measured:?}"
        );
    }
    for (file, text) in [("README.md", &readme), ("docs/install.md", &install)] {
        assert!(
            !text.contains("MCPCTL_REPO"),
            "{file} still names $MCPCTL_REPO"
        );
        assert!(!text.contains("DIST_"), "{file} has a placeholder left");
    }
    let ci = read("docs/guide/ci.md");
    assert!(
        !ci.contains("MCPCTL_REPO")
            && ci.contains("`MCPCTL_GIT` is the git URL of your team's mirror or fork"),
        "{ci}"
    );
}

/// Issue 40: `json.md` sent `doctor`, `tools` and `call` to "their sections above", which
/// did not exist: three of the most scripted commands had no documented JSON. Every
/// command of the help's groups but plumbing (whose output is for a client, not a
/// script) has its line in `json.md`, no line points at a section that is not there, and
/// every key `doctor --json` prints, top level and per result, is named there.
#[test]
fn json_md_documents_every_command_and_every_doctor_key() {
    let env = TestEnv::new();
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reference/json.md"),
    )
    .unwrap();
    for phrase in [
        "sections above",
        "section above",
        "sections below",
        "section below",
    ] {
        assert!(
            !doc.contains(phrase),
            "json.md points at a section: {phrase}"
        );
    }
    let leads: Vec<&str> = doc
        .lines()
        .map(|l| l.trim_start().trim_start_matches("- "))
        .filter_map(|l| l.split_once(": ").map(|(lead, _)| lead))
        .collect();
    let help = env.run(&["--help"]).ok().stdout;
    let mut group = String::new();
    let mut missing = Vec::new();
    for line in help.lines() {
        if !line.starts_with(' ') && line.ends_with(':') {
            if line.contains("ptions") {
                break; // the commands' groups are over
            }
            group = line.to_owned();
            continue;
        }
        let Some(command) = line
            .strip_prefix("  ")
            .filter(|l| l.starts_with(|c: char| c.is_ascii_lowercase()))
            .and_then(|l| l.split_whitespace().next())
        else {
            continue;
        };
        if group.is_empty() || group.starts_with("Plumbing") {
            continue;
        }
        let named = |lead: &&str| {
            lead.contains(&format!("`{command}`")) || lead.contains(&format!("`{command} "))
        };
        if !leads.iter().any(named) {
            missing.push(command.to_owned());
        }
    }
    assert!(missing.is_empty(), "json.md has no line for {missing:?}");
    // doctor's keys, from the real binary (a server that cannot be reached still has a
    // result with every key).
    crate::doctor::cursor_config(&env, json!({"web": {"url": "http://127.0.0.1:9/mcp"}}));
    let report = env.run(&["doctor", "--json"]).json();
    let mut keys: Vec<String> = report.as_object().unwrap().keys().cloned().collect();
    keys.extend(report["results"][0].as_object().unwrap().keys().cloned());
    let undocumented: Vec<&String> = keys
        .iter()
        .filter(|k| !doc.contains(&format!("\"{k}\"")))
        .collect();
    assert!(
        undocumented.is_empty(),
        "json.md lacks doctor's {undocumented:?}"
    );
}

/// Issue 40: `--all` meant "every client in the table, detected or not" in `clients` and
/// "every detected client" in `add`: a newcomer who saw 49 rows under `clients --all`
/// expected `add --all` to write 49 files. `--all` now means every detected client
/// wherever it is a flag; `clients --known` shows every client mcpctl knows (`--all`
/// there still works, with a note).
#[test]
fn all_means_every_detected_client_in_clients_and_add() {
    let env = TestEnv::new();
    crate::doctor::cursor_config(&env, json!({}));
    let help = env.run(&["clients", "--help"]).ok().stdout;
    assert!(
        help.contains("--known") && !help.contains("--all "),
        "{help}"
    );
    let add_help = env.run(&["add", "--help"]).ok().stdout;
    let all_line = add_help
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("--all"))
        .take(2)
        .collect::<String>();
    assert!(
        all_line.contains("detected") && all_line.contains("clients --known"),
        "{add_help}"
    );
    // What `clients` shows is what `add --all` writes to.
    let shown = env.run(&["clients"]).ok();
    let ids: Vec<&str> = shown
        .stdout
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(ids, ["cursor"], "{}", shown.stdout);
    assert!(shown.stderr.contains("`--known`"), "{}", shown.stderr);
    let known = env.run(&["clients", "--known"]).ok().stdout;
    assert!(known.lines().count() > 20, "{known}");
    env.run(&["add", "x", "--all", "--", "npx", "-y", "x-mcp"])
        .ok();
    let listed = env.run(&["list", "--json"]).ok().json();
    let clients: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["client"].as_str().unwrap())
        .collect();
    assert_eq!(clients, ["cursor"], "{listed}");
    // The old spelling keeps working and says the new one.
    let old = env.run(&["clients", "--all"]).ok();
    assert_eq!(old.stdout, env.run(&["clients", "--known"]).ok().stdout);
    assert!(old.stderr.contains("`clients --known`"), "{}", old.stderr);
}

/// Issue 40: `list` warned about each unset variable of each entry on stderr, every run
/// (a sentence per entry and client: three lines for one unset token shared by two
/// clients). Now one line names each variable once, with the servers using it and the
/// command that says what to do; `--json` keeps the whole sentence per row.
#[test]
fn list_says_unset_variables_in_one_line_however_many_entries() {
    let env = TestEnv::new();
    let servers = json!({
        "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${env:MCPCTL_TEST_UNSET_TOKEN}"}},
        "pg": {"command": "npx", "args": ["-y", "pg"], "env": {"DB_URL": "${env:MCPCTL_TEST_UNSET_DB}"}}
    });
    crate::doctor::cursor_config(&env, servers.clone());
    env.write(
        ".gemini/settings.json",
        serde_json::to_string_pretty(&json!({ "mcpServers": {"github": servers["github"]} }))
            .unwrap()
            .replace("${env:", "${")
            .as_bytes(),
    );
    let run = env.run(&["list"]).ok();
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", run.stderr);
    let line = warnings[0];
    assert_eq!(
        line.matches("MCPCTL_TEST_UNSET_TOKEN").count(),
        1,
        "each variable once: {line}"
    );
    assert!(
        line.contains("`${MCPCTL_TEST_UNSET_TOKEN}` (github)")
            && line.contains("`${MCPCTL_TEST_UNSET_DB}` (pg)")
            && line.contains("`mcpctl doctor github pg`"),
        "{line}"
    );
    let json = env.run(&["list", "--json"]).ok().json();
    let sentences = json
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["unset"].is_array())
        .count();
    assert_eq!(
        sentences, 3,
        "every entry keeps its sentence in --json: {json}"
    );
}

/// Issue 40: run through `cargo run` (no `mcpctl` on PATH), a hint said "try `mcpctl
/// add memory`", which that shell cannot run. After such a hint a note says how to run
/// this mcpctl: by its path, or `cargo run --` in the clone; a script reading the output
/// (no terminal, not `cargo run`) gets the hint alone.
#[test]
#[cfg(unix)] // compares the binary's path as this OS spells it
fn hints_say_how_to_run_mcpctl_when_it_is_not_on_path() {
    let mut env = TestEnv::new();
    let plain = env.run(&["install", "memory"]).code(2);
    assert!(
        plain.stderr.contains("`mcpctl add memory`"),
        "{}",
        plain.stderr
    );
    assert!(!plain.stderr.contains("not on PATH"), "{}", plain.stderr);
    // As `cargo run` starts it.
    env.extra_env.push((
        "CARGO_MANIFEST_DIR".to_owned(),
        env!("CARGO_MANIFEST_DIR").to_owned(),
    ));
    let run = env.run(&["install", "memory"]).code(2);
    assert!(
        run.stderr.contains("mcpctl is not on PATH") && run.stderr.contains("`cargo run -- …`"),
        "{}",
        run.stderr
    );
    let exe = std::path::Path::new(env!("CARGO_BIN_EXE_mcpctl"));
    assert!(
        run.stderr.contains(&format!("`{} …`", exe.display())),
        "{}",
        run.stderr
    );
    // A command that says no `mcpctl …` adds nothing.
    crate::doctor::cursor_config(
        &env,
        json!({"plain": {"command": "npx", "args": ["-y", "plain"]}}),
    );
    let quiet = env.run(&["list"]).ok();
    assert!(!quiet.stderr.contains("not on PATH"), "{}", quiet.stderr);
}

/// Issue 40: `add --help`'s example renamed a variable for Codex
/// (`--env 'ELEVENLABS_API_KEY=${XI_KEY}' -c codex`), which Codex cannot do and refuses.
/// Every `--env` example in `add --help` is run, against its client, as a dry run.
#[test]
fn add_help_env_examples_work_for_their_client() {
    let env = TestEnv::new();
    let help = env.run(&["add", "--help"]).ok().stdout;
    let mut tried = 0;
    for line in help.lines().filter(|l| l.contains("--env '")) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let client = words
            .iter()
            .position(|w| *w == "-c")
            .and_then(|i| words.get(i + 1))
            .unwrap_or_else(|| panic!("no -c in {line:?}"));
        let value = line
            .split("--env '")
            .nth(1)
            .and_then(|rest| rest.split('\'').next())
            .unwrap();
        let run = env.run(&[
            "add",
            "example",
            "-c",
            client,
            "--env",
            value,
            "--dry-run",
            "--",
            "npx",
            "-y",
            "example",
        ]);
        assert_eq!(run.code, 0, "{line}\n{}{}", run.stdout, run.stderr);
        tried += 1;
    }
    assert!(tried > 0, "{help}");
}

/// Issue 40: `json.md` called `clients --json`'s `verified` a boolean (`verified:
/// false`), but a checked row says the day it was checked. Every value is a
/// `YYYY-MM-DD` day or `false`, and the reference says so.
#[test]
fn clients_json_verified_is_a_day_or_false_as_json_md_says() {
    let env = TestEnv::new();
    let rows = env.run(&["clients", "--known", "--json"]).ok().json();
    let mut days = 0;
    for row in rows.as_array().unwrap() {
        match &row["verified"] {
            serde_json::Value::Bool(false) => {}
            serde_json::Value::String(day) => {
                let parts: Vec<&str> = day.split('-').collect();
                assert!(
                    parts.len() == 3 && parts.iter().all(|p| p.chars().all(|c| c.is_ascii_digit())),
                    "{row}"
                );
                days += 1;
            }
            other => panic!("{other}: {row}"),
        }
    }
    assert!(days > 0, "{rows}");
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("docs")
            .join("reference")
            .join("json.md"),
    )
    .unwrap();
    assert!(
        doc.contains("`verified`: the day the row was last checked"),
        "json.md"
    );
}
