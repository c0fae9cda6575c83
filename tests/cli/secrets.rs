//! Issue 20, item 4: no command prints a secret. Every command's text and `--json` output
//! runs over entries holding a secret in an argument (`--api-key sk-…`, `--token=…`), in
//! a URL query (`?api_key=…`), in URL userinfo (`https://user:pass@…`) and in env and
//! header values, and none of those values may appear.

use crate::env::TestEnv;

/// Every secret the fixtures hold, as written.
const SECRETS: &[&str] = &[
    "sk-proj-ArgSecret0123456789abcdefXYZ",
    "Zx9Qw8Er7Ty6Ui5Op4AsDf",
    "hunter2Passw0rdQ",
    "QuerySecretf8Kd92LmQz71",
    "ghp_EnvSecret0123456789abcdefghijKLMNOP",
    "HeaderSecretR0p9Xv2Lq8Wm",
];

fn setup() -> TestEnv {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        br#"{
  "mcpServers": {
    "leaky": {
      "command": "node",
      "args": ["/nonexistent/server.js", "--api-key", "sk-proj-ArgSecret0123456789abcdefXYZ", "--token=Zx9Qw8Er7Ty6Ui5Op4AsDf"],
      "env": { "GITHUB_TOKEN": "ghp_EnvSecret0123456789abcdefghijKLMNOP" }
    },
    "remote": {
      "url": "https://alice:hunter2Passw0rdQ@127.0.0.1:9/mcp?api_key=QuerySecretf8Kd92LmQz71",
      "headers": { "X-Api-Key": "HeaderSecretR0p9Xv2Lq8Wm" }
    }
  }
}
"#,
    );
    env.write(".claude.json", b"{\n  \"mcpServers\": {}\n}\n");
    env
}

/// The manifest a careless teammate commits, secrets and all.
const MANIFEST: &str = r#"clients = ["claude-code"]

[servers.leaky]
command = "node"
args = ["/nonexistent/server.js", "--api-key", "sk-proj-ArgSecret0123456789abcdefXYZ", "--token=Zx9Qw8Er7Ty6Ui5Op4AsDf"]
env = { GITHUB_TOKEN = "ghp_EnvSecret0123456789abcdefghijKLMNOP" }

[servers.remote]
url = "https://alice:hunter2Passw0rdQ@127.0.0.1:9/mcp?api_key=QuerySecretf8Kd92LmQz71"
headers = { X-Api-Key = "HeaderSecretR0p9Xv2Lq8Wm" }
"#;

fn leaks(text: &str) -> Vec<&'static str> {
    SECRETS
        .iter()
        .copied()
        .filter(|s| text.contains(s))
        .collect()
}

#[test]
fn no_command_prints_a_secret() {
    let env = setup();
    let manifest = env.write("team.toml", MANIFEST.as_bytes());
    let manifest = manifest.to_str().unwrap();
    let imported = env.path("imported.toml");
    let imported = imported.to_str().unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec!["list"],
        vec!["list", "leaky"],
        vec!["list", "remote", "-c", "cursor"],
        vec!["doctor", "--no-spawn"],
        vec!["doctor", "--timeout", "5"],
        vec!["tools", "leaky", "-c", "cursor", "--timeout", "5"],
        vec!["tools", "remote", "-c", "cursor", "--timeout", "5"],
        vec!["call", "remote", "echo", "-c", "cursor", "--timeout", "5"],
        vec!["check"],
        vec!["add", "leaky", "-c", "cursor", "--", "node", "other.js"],
        vec![
            "add",
            "remote",
            "-c",
            "cursor",
            "--url",
            "https://example.com/mcp",
        ],
        vec![
            "add",
            "fresh",
            "-c",
            "cursor",
            "--dry-run",
            "--",
            "node",
            "s.js",
            "--api-key",
            "sk-proj-ArgSecret0123456789abcdefXYZ",
        ],
        vec![
            "add",
            "fresh",
            "-c",
            "cursor",
            "--dry-run",
            "--url",
            "https://alice:hunter2Passw0rdQ@example.com/mcp?api_key=QuerySecretf8Kd92LmQz71",
        ],
        vec!["remove", "leaky", "-c", "cursor", "--dry-run"],
        vec!["remove", "remote", "-c", "cursor", "--dry-run"],
        vec!["disable", "leaky", "-c", "cursor", "--dry-run"],
        vec!["disable", "remote", "-c", "cursor", "--dry-run"],
        vec![
            "copy",
            "leaky",
            "--from",
            "cursor",
            "-c",
            "claude-code",
            "--dry-run",
        ],
        vec![
            "copy",
            "remote",
            "--from",
            "cursor",
            "-c",
            "claude-code",
            "--dry-run",
        ],
        vec!["plan", "--manifest", manifest],
        vec!["plan", "--manifest", manifest, "--check"],
        vec!["apply", "--manifest", manifest, "--dry-run"],
        vec!["import", "-c", "cursor", "--manifest", imported],
    ];
    let mut found = Vec::new();
    let run_all = |commands: &[Vec<&str>], found: &mut Vec<String>| {
        for args in commands {
            for json in [false, true] {
                let mut argv = args.clone();
                if json {
                    argv.insert(0, "--json");
                }
                let run = env.run(&argv);
                let leaked = leaks(&format!("{}{}", run.stdout, run.stderr));
                if !leaked.is_empty() {
                    found.push(format!(
                        "mcpctl {}: {leaked:?}\n{}{}",
                        argv.join(" "),
                        run.stdout,
                        run.stderr
                    ));
                }
            }
        }
    };
    run_all(&commands, &mut found);
    // A manifest that teams commit holds no literal secret.
    let written = std::fs::read_to_string(imported).unwrap_or_default();
    let leaked = leaks(&written);
    if !leaked.is_empty() {
        found.push(format!(
            "import wrote {leaked:?} into the manifest:\n{written}"
        ));
    }
    // Real writes, then what looks back at them.
    env.run(&["copy", "leaky", "--from", "cursor", "-c", "claude-code"]);
    env.run(&["copy", "remote", "--from", "cursor", "-c", "claude-code"]);
    env.run(&["remove", "leaky", "-c", "claude-code"]);
    let later: Vec<Vec<&str>> = vec![
        vec!["backups"],
        vec!["restore", "-c", "claude-code", "--dry-run"],
        vec!["restore", "-c", "claude-code", "--dry-run", "--backup", "2"],
        vec!["undo", "--dry-run"],
        vec!["outdated"],
    ];
    run_all(&later, &mut found);
    assert!(
        found.is_empty(),
        "secrets printed:\n\n{}",
        found.join("\n\n")
    );
}

/// Redaction and `check` follow the client's own row: a client whose env map is called
/// `variables` (a word no other client uses) has its values hidden in the add-conflict
/// message and its literal secrets flagged, like any other client's.
#[test]
#[cfg(unix)] // its own client row has only a Linux path
fn a_new_field_word_is_redacted_and_linted_by_its_row() {
    let env = TestEnv::new();
    let table = env.write(
        "extra.toml",
        b"[[client]]\nid = \"my-agent\"\nname = \"My Agent\"\nformat = \"json\"\nservers_key = [\"mcpServers\"]\ndialect = \"standard\"\nfields = { env_key = \"variables\", headers_key = \"wire_headers\" }\npaths.linux = \"{home}/.my-agent/mcp.json\"\nsource = \"local\"\n",
    );
    let table = table.to_str().unwrap();
    env.write(
        ".my-agent/mcp.json",
        br#"{"mcpServers": {
  "db": {"command": "db-mcp", "variables": {"DB_DSN": "plainDsnValue42", "API_TOKEN": "f8Kd92LmQz71XvB3nR0p"}},
  "web": {"url": "https://example.com/mcp", "wire_headers": {"X-Session": "plainHeaderValue7"}}
}}
"#,
    );
    for args in [
        vec!["add", "db", "-c", "my-agent", "--", "other"],
        vec![
            "add",
            "web",
            "-c",
            "my-agent",
            "--url",
            "https://example.com/other",
        ],
        vec!["list", "-c", "my-agent"],
        vec!["--json", "list", "-c", "my-agent"],
    ] {
        let mut argv = vec!["--clients", table];
        argv.extend(args);
        let run = env.run(&argv);
        let all = format!("{}{}", run.stdout, run.stderr);
        for secret in [
            "plainDsnValue42",
            "f8Kd92LmQz71XvB3nR0p",
            "plainHeaderValue7",
        ] {
            assert!(
                !all.contains(secret),
                "mcpctl {argv:?} printed {secret}:\n{all}"
            );
        }
    }
    let run = env.run(&["--clients", table, "check", "-c", "my-agent", "--user"]);
    assert!(
        run.stdout.contains("MCP401") && run.stdout.contains("variables.API_TOKEN"),
        "{}{}",
        run.stdout,
        run.stderr
    );
}

/// `restore --dry-run` hides every env and header value as `list` does, not only the
/// ones that look like secrets (issue 20: it printed even env values).
#[test]
fn restore_dry_run_hides_env_values_as_list_does() {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        b"{\n  \"mcpServers\": {\n    \"db\": { \"command\": \"db-mcp\", \"env\": { \"DB_DSN\": \"plainDsnValue42\" } }\n  }\n}\n",
    );
    env.run(&["remove", "db", "-c", "cursor"]).ok();
    for json in [false, true] {
        let mut argv = vec!["restore", "-c", "cursor", "--dry-run"];
        if json {
            argv.insert(0, "--json");
        }
        let run = env.run(&argv).ok();
        let all = format!("{}{}", run.stdout, run.stderr);
        assert!(!all.contains("plainDsnValue42"), "{all}");
    }
}

/// Issue 39, G3: a server that repeats a secret mcpctl gave it (on stderr, in a tool's
/// description, in a JSON-RPC error) never gets it printed: every value mcpctl passed to
/// the server is hidden in what `doctor`, `tools` and `call` show of its answers, text
/// and `--json`. The values here match no token pattern and sit under no secret-sounding
/// name in the server's text, so only knowing what was passed can hide them: an env
/// value, a secret from the store (through the launcher), and an argument.
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn what_a_server_echoes_of_its_secrets_is_never_printed() {
    let env = TestEnv::new();
    let fixture = crate::fixture_server::fixture_binary()
        .display()
        .to_string();
    let env_value = "Opensesame4Kq9Zt7Wx";
    let stored = "tok_storedEcho_31337";
    let arg_value = "Wq3rT8yUi2oP5aSd";
    env.run(&[
        "secret",
        "set",
        "db",
        "--command",
        "printf 'tok_%s_%s' storedEcho 31337",
    ])
    .ok();
    env.run(&[
        "add",
        "stored",
        "-c",
        "cursor",
        "--secret",
        "MY_PASSWORD=db",
        "--",
        &fixture,
        "echo-env=MY_PASSWORD",
    ])
    .ok();
    let config = env.read_str(".cursor/mcp.json");
    let mut config: serde_json::Value = crate::env::jsonc(config.as_bytes());
    let servers = config["mcpServers"].as_object_mut().unwrap();
    servers.insert(
        "literal".to_owned(),
        serde_json::json!({"command": fixture, "args": ["echo-env=MY_PASSWORD"], "env": {"MY_PASSWORD": env_value}}),
    );
    servers.insert(
        "dead".to_owned(),
        serde_json::json!({"command": fixture, "args": ["echo-env=MY_PASSWORD", "exit=1"], "env": {"MY_PASSWORD": env_value}}),
    );
    servers.insert(
        "flag".to_owned(),
        serde_json::json!({"command": fixture, "args": ["--api-key", arg_value, "echo-env=ECHO"], "env": {"ECHO": arg_value}}),
    );
    env.write(".cursor/mcp.json", config.to_string().as_bytes());
    let commands: Vec<Vec<&str>> = vec![
        vec!["doctor", "-c", "cursor"],
        vec!["doctor", "dead", "-c", "cursor"],
        vec!["tools", "literal", "-c", "cursor"],
        vec!["tools", "stored", "-c", "cursor"],
        vec!["tools", "dead", "-c", "cursor"],
        vec!["tools", "flag", "-c", "cursor"],
        vec!["call", "literal", "login", "-c", "cursor"],
        vec!["call", "stored", "login", "-c", "cursor"],
        vec!["call", "flag", "login", "-c", "cursor"],
    ];
    let mut found = Vec::new();
    for args in &commands {
        for json in [false, true] {
            let mut argv = args.clone();
            if json {
                argv.insert(0, "--json");
            }
            let run = env.run(&argv);
            let text = format!("{}{}", run.stdout, run.stderr);
            let leaked: Vec<&str> = [env_value, stored, arg_value]
                .into_iter()
                .filter(|v| text.contains(v))
                .collect();
            if !leaked.is_empty() {
                found.push(format!("mcpctl {}: {leaked:?}\n{text}", argv.join(" ")));
            }
        }
    }
    assert!(
        found.is_empty(),
        "echoed secrets printed:\n\n{}",
        found.join("\n\n")
    );
    // What the server said is still shown, the secret hidden.
    let tools = env.run(&["tools", "literal", "-c", "cursor"]).ok();
    assert!(
        tools.stdout.contains("Log in as <redacted>"),
        "{}",
        tools.stdout
    );
    let call = env
        .run(&["call", "literal", "login", "-c", "cursor"])
        .code(2);
    assert!(
        call.stderr.contains("login refused for <redacted>"),
        "{}",
        call.stderr
    );
}

/// Issue 39, F11: a literal secret argument whose value matches no token pattern
/// (`--api-key VALUE`, `--token=VALUE`) is hidden where a pretty-printed file or diff puts
/// the flag and its value on lines of their own, as it is on one line.
const ARG_SECRET: &str = "Wq3rT8yUi2oP5aSdQ";

/// Cursor holds `leaky` (the secret argument); Claude Code's file is pretty-printed, so
/// what is written there puts each argument on its own line; the manifest asks for it.
fn arg_secret_setup() -> (TestEnv, String) {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        format!(
            "{{\n  \"mcpServers\": {{\n    \"leaky\": {{\n      \"command\": \"node\",\n      \"args\": [\n        \"s.js\",\n        \"--api-key\",\n        \"{ARG_SECRET}\"\n      ]\n    }}\n  }}\n}}\n"
        )
        .as_bytes(),
    );
    env.write(
        ".claude.json",
        b"{\n  \"mcpServers\": {\n    \"x\": {\n      \"command\": \"a\",\n      \"args\": [\n        \"b\"\n      ]\n    }\n  }\n}\n",
    );
    let manifest = env.write(
        "team.toml",
        format!("clients = [\"claude-code\"]\n\n[servers.leaky]\ncommand = \"node\"\nargs = [\"s.js\", \"--api-key\", \"{ARG_SECRET}\"]\n").as_bytes(),
    );
    let manifest = manifest.to_str().unwrap().to_owned();
    (env, manifest)
}

fn assert_hidden(env: &TestEnv, args: &[&str]) {
    let run = env.run(args);
    let text = format!("{}{}", run.stdout, run.stderr);
    assert!(
        !text.contains(ARG_SECRET),
        "mcpctl {} printed the secret argument:\n{text}",
        args.join(" ")
    );
}

#[test]
fn list_json_hides_a_secret_argument_on_its_own_line() {
    let (env, _) = arg_secret_setup();
    assert_hidden(&env, &["list", "--json"]);
    assert_hidden(&env, &["list", "leaky", "--json"]);
    let json = env.run(&["list", "--json"]).ok().json();
    let leaky = json
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["name"] == "leaky")
        .unwrap();
    assert_eq!(leaky["args"][2], "<redacted>", "{json}");
}

#[test]
fn plan_hides_a_secret_argument_on_its_own_line() {
    let (env, manifest) = arg_secret_setup();
    assert_hidden(&env, &["plan", "--manifest", &manifest]);
}

#[test]
fn apply_dry_run_hides_a_secret_argument_on_its_own_line() {
    let (env, manifest) = arg_secret_setup();
    assert_hidden(&env, &["apply", "--manifest", &manifest, "--dry-run"]);
}

#[test]
fn dry_run_diffs_hide_a_secret_argument_on_its_own_line() {
    let (env, _) = arg_secret_setup();
    assert_hidden(
        &env,
        &[
            "copy",
            "leaky",
            "--from",
            "cursor",
            "-c",
            "claude-code",
            "--dry-run",
        ],
    );
    assert_hidden(
        &env,
        &[
            "add",
            "fresh",
            "-c",
            "claude-code",
            "--dry-run",
            "--",
            "node",
            "s.js",
            "--api-key",
            ARG_SECRET,
        ],
    );
    // A YAML list puts `- VALUE` under `- --api-key`.
    assert_hidden(
        &env,
        &[
            "add",
            "fresh",
            "-c",
            "continue",
            "--dry-run",
            "--",
            "node",
            "s.js",
            "--api-key",
            ARG_SECRET,
        ],
    );
}

/// Issue 39, G10: `export` of an entry holding a literal secret (an argument, a URL
/// query) is refused, naming the entry and the manifest: an allow-list holds the command
/// line as written, so it would publish the secret, and a redacted one never matches.
#[test]
fn export_refuses_an_entry_holding_a_literal_secret() {
    let env = TestEnv::new();
    let manifest = env.write(
        "team.toml",
        format!(
            "[servers.leaky]\ncommand = \"node\"\nargs = [\"s.js\", \"--api-key\", \"{ARG_SECRET}\"]\n\n[servers.remote]\nurl = \"https://example.com/mcp?api_key=QuerySecretf8Kd92LmQz71\"\n\n[servers.fine]\ncommand = \"node\"\nargs = [\"ok.js\"]\n"
        )
        .as_bytes(),
    );
    let manifest = manifest.to_str().unwrap();
    for format in ["claude-managed", "copilot-managed", "codex-requirements"] {
        for json in [false, true] {
            let mut argv = vec!["export", "--manifest", manifest, "--format", format];
            if json {
                argv.insert(0, "--json");
            }
            let run = env.run(&argv).code(2);
            assert!(
                run.stdout.is_empty() && !run.stdout.contains("<redacted>"),
                "{format}: {}",
                run.stdout
            );
            for needle in ["`leaky`", "`remote`", "team.toml", "--api-key", "api_key"] {
                assert!(
                    run.stderr.contains(needle),
                    "{format}: no {needle}: {}",
                    run.stderr
                );
            }
            assert!(!run.stderr.contains(ARG_SECRET), "{}", run.stderr);
            assert!(
                !run.stderr.contains("QuerySecretf8Kd92LmQz71"),
                "{}",
                run.stderr
            );
        }
    }
    // Without them, the rest exports.
    let clean = env.write(
        "clean.toml",
        b"[servers.fine]\ncommand = \"node\"\nargs = [\"ok.js\"]\n",
    );
    env.run(&[
        "export",
        "--manifest",
        clean.to_str().unwrap(),
        "--format",
        "claude-managed",
    ])
    .ok();
}

/// Issue 39, G3 over HTTP: a remote server that repeats a header value mcpctl sent it
/// (in a tool's description, in a JSON-RPC error) never gets it printed.
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn what_a_remote_server_echoes_of_its_header_is_never_printed() {
    let env = TestEnv::new();
    let header = "plainHeaderValue7Zq";
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = std::process::Command::new(crate::fixture_server::fixture_binary())
        .args([format!("http={port}"), "echo-header=X-Team-Key".to_owned()])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < until,
            "nothing listened on {port}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    env.write(
        ".cursor/mcp.json",
        serde_json::json!({"mcpServers": {"web": {"url": format!("http://127.0.0.1:{port}/mcp"), "headers": {"X-Team-Key": header}}}})
            .to_string()
            .as_bytes(),
    );
    let mut found = Vec::new();
    for args in [
        vec!["tools", "web", "-c", "cursor"],
        vec!["call", "web", "login", "-c", "cursor"],
        vec!["doctor", "web", "-c", "cursor"],
    ] {
        for json in [false, true] {
            let mut argv = args.clone();
            if json {
                argv.insert(0, "--json");
            }
            let run = env.run(&argv);
            let text = format!("{}{}", run.stdout, run.stderr);
            if text.contains(header) {
                found.push(format!("mcpctl {}:\n{text}", argv.join(" ")));
            }
        }
    }
    let tools = env.run(&["tools", "web", "-c", "cursor"]);
    let _ = server.kill();
    let _ = server.wait();
    assert!(
        found.is_empty(),
        "echoed header printed:\n\n{}",
        found.join("\n\n")
    );
    assert!(
        tools.stdout.contains("Log in as <redacted>"),
        "{}",
        tools.stdout
    );
}
