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
