//! Integration tests for the MCP Registry commands (`add NAMESPACE/NAME`, `search`,
//! `outdated`, `update`) against a registry started on 127.0.0.1 by the test itself.

use serde_json::{Value, json};

use crate::env::{TestEnv, fixture, jsonc};
use crate::registry_server::{RegistryServer, SAMPLES, sample};

const FOUR: &str = "claude-code,cursor,vscode,codex";

fn env_with(server: &RegistryServer) -> TestEnv {
    let mut env = TestEnv::new();
    env.extra_env
        .push(("MCPCTL_REGISTRY".to_owned(), server.url.clone()));
    for tool in ["npx", "uvx", "docker", "dnx"] {
        env.on_path(tool);
    }
    env
}

/// A registry URL nobody answers at (a port just released).
fn closed_url() -> String {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", closed.local_addr().unwrap())
}

fn cursor(env: &TestEnv) -> Value {
    jsonc(&env.read(".cursor/mcp.json"))
}

#[test]
fn every_sample_installs_into_four_clients_and_passes_doctor() {
    let server = RegistryServer::start();
    let mut env = env_with(&server);
    for file in SAMPLES {
        let item = server.publish_sample(file);
        let name = item["server"]["name"].as_str().unwrap().to_owned();
        let run = env.run(&["add", &name, "-c", FOUR, "--no-input"]).ok();
        assert!(
            run.stderr.contains(" as "),
            "{file}: no final command shown\n{}",
            run.stderr
        );
    }
    // The variables the installs said to export.
    for var in [
        "AIRTABLE_TOKEN",
        "ELEVENLABS_API_KEY",
        "FIRECRAWL_TOKEN",
        "FIRECRAWL_API_KEY",
        "GITHUB_PERSONAL_ACCESS_TOKEN",
        "API_KEY",
        "REMOTE_WEATHER_AUTHORIZATION",
    ] {
        env.extra_env.push((var.to_owned(), "set".to_owned()));
    }
    let run = env.run(&["doctor", "--no-spawn", "-c", FOUR, "--json"]);
    let report = run.json();
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), SAMPLES.len() * 4, "{report:#}");
    for r in results {
        assert_ne!(r["status"], "fail", "{r:#}");
        for check in r["checks"].as_array().unwrap() {
            assert_ne!(check["status"], "fail", "{r:#}");
        }
    }
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Spot checks of what each client got.
    let claude = jsonc(&env.read(".claude.json"));
    assert_eq!(
        claude["mcpServers"]["github-mcp-server"]["args"],
        json!([
            "run",
            "-i",
            "--rm",
            "-e",
            "GITHUB_PERSONAL_ACCESS_TOKEN",
            "ghcr.io/github/github-mcp-server:0.24.0"
        ])
    );
    assert_eq!(
        claude["mcpServers"]["airtable"]["headers"]["Authorization"],
        "Bearer ${AIRTABLE_TOKEN}"
    );
    let cursor = cursor(&env);
    assert_eq!(
        cursor["mcpServers"]["elevenlabs"]["env"]["ELEVENLABS_API_KEY"],
        "${env:ELEVENLABS_API_KEY}"
    );
    assert_eq!(
        cursor["mcpServers"]["linear"]["url"],
        "https://mcp.linear.app/mcp"
    );
    let codex = env.read_str(".codex/config.toml");
    assert!(
        codex.contains("bearer_token_env_var = \"FIRECRAWL_TOKEN\""),
        "{codex}"
    );
    assert!(
        codex.contains("env_vars = [\"ELEVENLABS_API_KEY\"]"),
        "{codex}"
    );
    // Every request carried mcpctl's user agent.
    assert!(server.log().iter().all(|l| l.contains("mcpctl/")));
}

#[test]
fn secrets_are_references_and_literal_secrets_are_refused() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    server.publish_sample("elevenlabs.pypi.item.json");
    let run = env
        .run(&[
            "add",
            "io.elevenlabs/mcp",
            "-c",
            "cursor",
            "--env",
            "ELEVENLABS_API_KEY=sk_live_abc",
        ])
        .code(2);
    assert!(run.stderr.contains("never written"), "{}", run.stderr);
    assert!(!env.path(".cursor/mcp.json").exists());
    let run = env
        .run(&[
            "add",
            "io.elevenlabs/mcp",
            "-c",
            "cursor",
            "--env",
            "ELEVENLABS_API_KEY=${XI_KEY}",
        ])
        .ok();
    assert!(
        run.stderr.contains("uvx elevenlabs-mcp==0.9.1"),
        "{}",
        run.stderr
    );
    assert_eq!(
        cursor(&env)["mcpServers"]["elevenlabs"],
        json!({"command": "uvx", "args": ["elevenlabs-mcp==0.9.1"], "env": {"ELEVENLABS_API_KEY": "${env:XI_KEY}"}})
    );
}

#[test]
#[cfg(unix)] // expects the unwrapped form Windows writes as `cmd /c`
fn missing_required_inputs_are_listed_under_no_input_and_nothing_is_written() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    server.publish(
        json!({"server": {
            "name": "io.github.acme/db",
            "version": "1.0.0",
            "packages": [{
                "registryType": "npm", "identifier": "@acme/db-mcp", "version": "1.0.0",
                "packageArguments": [{"type": "named", "name": "--schema", "isRequired": true}],
                "environmentVariables": [
                    {"name": "DB_HOST", "isRequired": true, "description": "Database host"},
                    {"name": "DB_PORT", "isRequired": true, "default": "5432"},
                    {"name": "DB_PASSWORD", "isRequired": true, "isSecret": true}
                ]
            }]
        }}),
        true,
        "active",
        None,
    );
    let run = env
        .run(&["add", "io.github.acme/db", "-c", "cursor", "--no-input"])
        .code(2);
    assert!(run.stderr.contains("--env DB_HOST=VALUE"), "{}", run.stderr);
    assert!(run.stderr.contains("--var schema=VALUE"), "{}", run.stderr);
    assert!(!run.stderr.contains("DB_PASSWORD"), "{}", run.stderr);
    assert!(!env.path(".cursor/mcp.json").exists());
    env.run(&[
        "add",
        "io.github.acme/db",
        "-c",
        "cursor",
        "--env",
        "DB_HOST=db.internal",
        "--var",
        "schema=public",
    ])
    .ok();
    assert_eq!(
        cursor(&env)["mcpServers"]["db"],
        json!({
            "command": "npx",
            "args": ["-y", "@acme/db-mcp@1.0.0", "--schema", "public"],
            "env": {"DB_HOST": "db.internal", "DB_PORT": "5432", "DB_PASSWORD": "${env:DB_PASSWORD}"}
        })
    );
}

#[test]
fn deleted_is_refused_and_deprecated_warns() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    let mut gone = sample("playwright-mcp.server.json");
    gone["server"]["name"] = json!("io.github.old/gone");
    server.publish(gone, true, "deleted", Some("malware"));
    let run = env
        .run(&["add", "io.github.old/gone", "-c", "cursor"])
        .code(2);
    assert!(
        run.stderr.contains("deleted") && run.stderr.contains("malware"),
        "{}",
        run.stderr
    );
    assert!(!env.path(".cursor/mcp.json").exists());
    let mut old = sample("playwright-mcp.server.json");
    old["server"]["name"] = json!("io.github.old/aging");
    server.publish(old, true, "deprecated", Some("use io.github.new/shiny"));
    let run = env
        .run(&["add", "io.github.old/aging", "-c", "cursor"])
        .ok();
    assert!(
        run.stderr.contains("deprecated: use io.github.new/shiny"),
        "{}",
        run.stderr
    );
}

#[test]
fn registry_errors_name_the_url_and_write_nothing() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    server.publish_sample("context7.server.json");
    // Unknown name: closest names from a search.
    let run = env
        .run(&["add", "io.github.upstash/context8", "-c", "cursor"])
        .code(2);
    assert!(run.stderr.contains(&server.url), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("closest names: io.github.upstash/context7"),
        "{}",
        run.stderr
    );
    // A version that does not exist: the versions there.
    let run = env
        .run(&["add", "io.github.upstash/context7@9.9.9", "-c", "cursor"])
        .code(2);
    assert!(
        run.stderr.contains("versions there: 1.0.0"),
        "{}",
        run.stderr
    );
    // An answer about another server (a broken subregistry) is not installed.
    server.route(
        "/v0.1/servers/io.github.upstash%2Fimpostor/versions/latest",
        200,
        &sample("context7.server.json").to_string(),
    );
    let run = env
        .run(&["add", "io.github.upstash/impostor", "-c", "cursor"])
        .code(2);
    assert!(
        run.stderr
            .contains("answered with `io.github.upstash/context7@1.0.0`"),
        "{}",
        run.stderr
    );
    // HTTP 500.
    server.break_with(500, "upstream exploded");
    let run = env
        .run(&["add", "io.github.upstash/context7", "-c", "cursor"])
        .code(2);
    assert!(
        run.stderr.contains("HTTP 500") && run.stderr.contains(&server.url),
        "{}",
        run.stderr
    );
    // Not JSON.
    server.break_with(200, "<html>captive portal</html>");
    let run = env
        .run(&["add", "io.github.upstash/context7", "-c", "cursor"])
        .code(2);
    assert!(
        run.stderr.contains("not valid registry JSON"),
        "{}",
        run.stderr
    );
    // Unreachable: a port nobody listens on.
    let url = closed_url();
    let run = env
        .run(&[
            "add",
            "io.github.upstash/context7",
            "-c",
            "cursor",
            "--registry",
            &url,
        ])
        .code(2);
    assert!(
        run.stderr.contains("cannot reach the registry") && run.stderr.contains(&url),
        "{}",
        run.stderr
    );
    assert!(!env.path(".cursor/mcp.json").exists());
}

#[test]
fn search_lists_servers_and_answers_offline_from_the_cache() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    for file in SAMPLES {
        server.publish_sample(file);
    }
    let run = env.run(&["search", "github"]).ok();
    assert!(
        run.stdout.contains("io.github.github/github-mcp-server")
            && run.stdout.contains("0.24.0")
            && run.stdout.contains("oci"),
        "{}",
        run.stdout
    );
    let run = env.run(&["search", "fire", "--json"]).ok();
    let hits = run.json();
    assert_eq!(hits[0]["name"], "dev.firecrawl/mcp");
    assert_eq!(hits[0]["runs"], json!(["npm", "remote"]));
    assert_eq!(hits[0]["entry_name"], "firecrawl");
    let run = env
        .run(&["search", "io.github", "--limit", "2", "--json"])
        .ok();
    assert_eq!(run.json().as_array().unwrap().len(), 2);
    // The registry goes away: the cache answers, with a note.
    let url = closed_url();
    let state = env.dir.path().join("state/registry-cache");
    for entry in std::fs::read_dir(&state).unwrap() {
        let path = entry.unwrap().path();
        let moved = state.join(format!(
            "{}.json",
            url.trim_start_matches("http://").replace(':', "_")
        ));
        std::fs::copy(&path, moved).unwrap();
    }
    let run = env.run(&["search", "github", "--registry", &url]).ok();
    assert!(run.stderr.contains("cached result"), "{}", run.stderr);
    assert!(
        run.stdout.contains("io.github.github/github-mcp-server"),
        "{}",
        run.stdout
    );
}

#[test]
#[cfg(unix)] // expects the unwrapped form Windows writes as `cmd /c`
fn forms_can_be_chosen_and_mcpb_is_refused() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    server.publish_sample("firecrawl.npm-and-remote.item.json");
    env.run(&[
        "add",
        "dev.firecrawl/mcp",
        "-c",
        "cursor",
        "--package",
        "npm",
        "--name",
        "crawl",
    ])
    .ok();
    assert_eq!(
        cursor(&env)["mcpServers"]["crawl"]["args"],
        json!(["-y", "firecrawl-mcp@3.11.0"])
    );
    // Claude Desktop takes no remote in its file: it gets the package.
    env.run(&[
        "add",
        "dev.firecrawl/mcp",
        "-c",
        "claude-desktop,cursor",
        "--platform",
        "macos",
    ])
    .ok();
    let desktop = jsonc(&env.read("Library/Application Support/Claude/claude_desktop_config.json"));
    assert_eq!(
        crate::env::command_of(&desktop["mcpServers"]["firecrawl"]),
        "npx"
    );
    assert_eq!(
        cursor(&env)["mcpServers"]["firecrawl"]["url"],
        "https://mcp.firecrawl.dev/v2/mcp"
    );
    let bundle = crate::registry_server::sample("api-list-response.mcpb.example.json");
    server.publish(bundle, true, "active", None);
    let run = env
        .run(&[
            "add",
            "io.github.GuillaumeLessard/qector-desktop",
            "-c",
            "cursor",
        ])
        .code(2);
    assert!(run.stderr.contains("mcpb"), "{}", run.stderr);
    assert!(run.stderr.contains("Claude Desktop"), "{}", run.stderr);
}

#[test]
fn windows_targets_get_cmd_c_and_dry_run_shows_the_command() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    server.publish_sample("context7.server.json");
    let run = env
        .run(&[
            "add",
            "io.github.upstash/context7",
            "-c",
            "cursor",
            "--platform",
            "windows",
            "--dry-run",
        ])
        .ok();
    assert!(
        run.stderr
            .contains("as npm: npx -y @upstash/context7-mcp@1.0.26"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains("\"cmd\""), "{}", run.stdout);
    assert!(run.stdout.contains("\"/c\""), "{}", run.stdout);
    assert!(!env.path(".cursor/mcp.json").exists());
}

#[test]
fn a_name_collision_needs_force() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    server.publish_sample("linear.two-remotes.item.json");
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    let run = env
        .run(&["add", "app.linear/linear", "-c", "cursor"])
        .code(2);
    assert!(run.stdout.contains("already exists"), "{}", run.stdout);
    assert!(run.stdout.contains("--force"), "{}", run.stdout);
    assert_eq!(env.read(".cursor/mcp.json"), fixture("cursor/mcp.json"));
}

fn publish_db(server: &RegistryServer, version: &str, latest: bool) {
    server.publish(
        json!({"server": {
            "name": "io.github.acme/db",
            "version": version,
            "packages": [{
                "registryType": "npm", "identifier": "@acme/db-mcp", "version": version,
                "packageArguments": [{"type": "named", "name": "--schema", "isRequired": true}],
                "environmentVariables": [
                    {"name": "DB_PASSWORD", "isRequired": true, "isSecret": true}
                ]
            }]
        }}),
        latest,
        "active",
        None,
    );
}

#[test]
fn outdated_and_update_rewrite_in_place_with_the_same_inputs() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    publish_db(&server, "1.0.0", true);
    env.write(".cursor/mcp.json", &fixture("cursor/mcp.json"));
    env.run(&[
        "add",
        "io.github.acme/db",
        "-c",
        "cursor,claude-code",
        "--var",
        "schema=public",
    ])
    .ok();
    let installed = env.read_str(".cursor/mcp.json");
    let run = env.run(&["outdated", "--json"]).ok();
    assert_eq!(run.json(), json!([]));
    publish_db(&server, "1.2.0", true);
    let run = env.run(&["outdated", "--json"]).ok();
    assert_eq!(
        run.json(),
        json!([{
            "name": "db", "server": "io.github.acme/db", "installed": "1.0.0",
            "latest": "1.2.0", "status": "active", "clients": ["cursor", "claude-code"], "registry": server.url
        }])
    );
    let run = env.run(&["outdated"]).ok();
    assert!(
        run.stdout.contains("1.0.0") && run.stdout.contains("1.2.0"),
        "{}",
        run.stdout
    );
    env.run(&["update", "db"]).ok();
    assert_eq!(
        env.read_str(".cursor/mcp.json"),
        installed.replace("@acme/db-mcp@1.0.0", "@acme/db-mcp@1.2.0"),
        "only the version changes"
    );
    assert_eq!(env.run(&["outdated", "--json"]).ok().json(), json!([]));
    let run = env.run(&["update", "db"]).ok();
    assert!(run.stderr.contains("newest version"), "{}", run.stderr);
    // A removed entry is not followed any more.
    env.run(&["remove", "db", "-c", "claude-code"]).ok();
    publish_db(&server, "1.3.0", true);
    let run = env.run(&["outdated", "--json"]).ok();
    assert_eq!(run.json()[0]["clients"], json!(["cursor"]));
}

#[test]
fn update_leaves_a_hand_edited_entry_alone_without_force() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    publish_db(&server, "1.0.0", true);
    env.run(&[
        "add",
        "io.github.acme/db",
        "-c",
        "cursor",
        "--var",
        "schema=public",
    ])
    .ok();
    let edited = env
        .read_str(".cursor/mcp.json")
        .replace("public", "private");
    env.write(".cursor/mcp.json", edited.as_bytes());
    publish_db(&server, "2.0.0", true);
    let run = env.run(&["update", "db"]).code(2);
    assert!(
        run.stdout.contains("edited by hand") || run.stderr.contains("edited by hand"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(env.read_str(".cursor/mcp.json"), edited);
    env.run(&["update", "db", "--force"]).ok();
    assert!(
        env.read_str(".cursor/mcp.json")
            .contains("@acme/db-mcp@2.0.0")
    );
    let run = env.run(&["update", "nothing-here"]).code(2);
    assert!(run.stderr.contains("outdated"), "{}", run.stderr);
}

#[test]
#[cfg(unix)] // expects the unwrapped form Windows writes as `cmd /c`
fn nuget_installs_as_dnx_and_windows_wraps_it() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    server.publish(
        json!({"server": {
            "name": "io.github.contoso/weather",
            "version": "1.2.0",
            "packages": [{
                "registryType": "nuget", "identifier": "Contoso.WeatherMcp", "version": "1.2.0",
                "runtimeHint": "dnx", "transport": {"type": "stdio"},
                "packageArguments": [{"type": "named", "name": "--units", "value": "metric"}]
            }]
        }}),
        true,
        "active",
        None,
    );
    env.run(&["add", "io.github.contoso/weather", "-c", "cursor"])
        .ok();
    assert_eq!(
        cursor(&env)["mcpServers"]["weather"],
        json!({"command": "dnx", "args": ["Contoso.WeatherMcp@1.2.0", "--yes", "--", "--units", "metric"]})
    );
    env.run(&[
        "add",
        "io.github.contoso/weather",
        "-c",
        "cursor",
        "--platform",
        "windows",
        "--name",
        "weather-win",
    ])
    .ok();
    let win = cursor(&env);
    assert_eq!(win["mcpServers"]["weather-win"]["command"], "cmd");
    assert_eq!(win["mcpServers"]["weather-win"]["args"][1], "dnx");
}

/// A pseudo-terminal for the prompt test: the child gets the slave side as stdin and
/// stderr (mcpctl prompts only when both are terminals); the test types on the master.
#[cfg(unix)]
pub(crate) mod pty {
    use std::fs::File;
    use std::io::{Read, Write};
    use std::os::fd::FromRawFd;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    pub struct Pty {
        pub master: File,
        pub slave: File,
    }

    pub fn open() -> Pty {
        let (mut master, mut slave) = (0, 0);
        // SAFETY: openpty writes two new descriptors; null name/termios/winsize are allowed.
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                // `*mut` on macOS, `*const` on Linux: a null `*mut` fits both.
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        assert_eq!(rc, 0, "openpty failed");
        // SAFETY: both descriptors are fresh and owned by nobody else.
        unsafe {
            Pty {
                master: File::from_raw_fd(master),
                slave: File::from_raw_fd(slave),
            }
        }
    }

    /// Everything the child writes to the terminal, collected by a thread.
    pub fn collect(master: &File) -> Arc<Mutex<String>> {
        let seen = Arc::new(Mutex::new(String::new()));
        let shared = Arc::clone(&seen);
        let mut reader = master.try_clone().unwrap();
        std::thread::spawn(move || {
            let mut buf = [0u8; 1024];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                shared
                    .lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        seen
    }

    /// Wait until the terminal shows `text` (a prompt), then type `keys`.
    pub fn answer(seen: &Arc<Mutex<String>>, master: &mut File, text: &str, keys: &str) {
        let start = Instant::now();
        while !seen.lock().unwrap().contains(text) {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "no prompt `{text}`; terminal shows:\n{}",
                seen.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        master.write_all(keys.as_bytes()).unwrap();
        master.flush().unwrap();
    }
}

/// `add io.github.acme/db` on a terminal, `env` its environment: answers `--schema`
/// with `public`, then the hidden prompt for `DB_PASSWORD` with `secret` (empty: skip).
/// The terminal's text, and the exit status.
#[cfg(unix)]
fn add_db_on_a_terminal(env: &TestEnv, secret: &str) -> (String, std::process::ExitStatus) {
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    let mut terminal = pty::open();
    let seen = pty::collect(&terminal.master);
    let mut child = env
        .command(&["add", "io.github.acme/db", "-c", "cursor"])
        .stdin(Stdio::from(terminal.slave.try_clone().unwrap()))
        .stderr(Stdio::from(terminal.slave.try_clone().unwrap()))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    pty::answer(
        &seen,
        &mut terminal.master,
        "argument `--schema`",
        "public\r",
    );
    pty::answer(
        &seen,
        &mut terminal.master,
        "kept in mcpctl's secret store as `db-password`",
        &format!("{secret}\r"),
    );
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            panic!(
                "mcpctl did not finish; terminal shows:\n{}",
                seen.lock().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let shown = seen.lock().unwrap().clone();
    (shown, status)
}

/// On a terminal a required input is asked for, and a secret only with a hidden prompt
/// for the store; an empty answer leaves the secret to the environment, as off a
/// terminal (and the note then offers the store).
#[cfg(unix)]
#[test]
fn a_terminal_is_prompted_for_required_inputs_and_secrets_only_hidden() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    publish_db(&server, "1.0.0", true);
    let (shown, status) = add_db_on_a_terminal(&env, "");
    assert!(status.success(), "terminal shows:\n{shown}");
    assert!(
        shown.contains("--secret DB_PASSWORD=db-password"),
        "{shown}"
    );
    assert_eq!(
        cursor(&env)["mcpServers"]["db"],
        json!({
            "command": "npx",
            "args": ["-y", "@acme/db-mcp@1.0.0", "--schema", "public"],
            "env": {"DB_PASSWORD": "${env:DB_PASSWORD}"}
        })
    );
    // The prompted value is recorded: `update` reuses it without asking.
    publish_db(&server, "1.1.0", true);
    env.run(&["update", "db"]).ok();
    assert_eq!(
        cursor(&env)["mcpServers"]["db"]["args"],
        json!(["-y", "@acme/db-mcp@1.1.0", "--schema", "public"])
    );
}

/// Answered at the hidden prompt, a registry secret goes into the OS keychain and the
/// entry is the launcher naming it: the value is on no terminal, in no file.
#[cfg(unix)]
#[test]
#[ignore = "needs .ci/keyring.sh"]
fn a_terminal_answer_for_a_registry_secret_is_kept_in_the_store() {
    let mut env = crate::secret_store::keyring_env();
    let server = RegistryServer::start();
    env.extra_env
        .push(("MCPCTL_REGISTRY".to_owned(), server.url.clone()));
    env.on_path("npx");
    publish_db(&server, "1.0.0", true);
    let value = "pw_typedAtThePrompt_4711";
    let (shown, status) = add_db_on_a_terminal(&env, value);
    assert!(status.success(), "terminal shows:\n{shown}");
    assert!(!shown.contains(value), "echoed:\n{shown}");
    assert!(!shown.contains("export"), "{shown}");
    let entry = &cursor(&env)["mcpServers"]["db"];
    assert_eq!(
        entry["args"],
        json!([
            "run",
            "--secret",
            "DB_PASSWORD=db-password",
            "--",
            "npx",
            "-y",
            "@acme/db-mcp@1.0.0",
            "--schema",
            "public"
        ]),
        "{entry}"
    );
    assert!(entry.get("env").is_none(), "{entry}");
    let got = env.run(&["secret", "get", "db-password", "--reveal"]).ok();
    assert_eq!(got.stdout.trim_end(), value);
    // `update` keeps the secret where it is: still the launcher, naming it.
    publish_db(&server, "1.1.0", true);
    let update = env.run(&["update", "db"]).ok();
    assert!(!update.stderr.contains("export"), "{}", update.stderr);
    assert_eq!(
        cursor(&env)["mcpServers"]["db"]["args"],
        json!([
            "run",
            "--secret",
            "DB_PASSWORD=db-password",
            "--",
            "npx",
            "-y",
            "@acme/db-mcp@1.1.0",
            "--schema",
            "public"
        ])
    );
    assert_eq!(
        crate::secret_store::files_holding(env.dir.path(), value),
        Vec::<String>::new()
    );
}

#[test]
fn a_manifest_server_from_the_registry_renders_per_client_pinned() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    server.publish_sample("context7.server.json");
    server.publish_sample("firecrawl.npm-and-remote.item.json");
    let firecrawl = sample("firecrawl.npm-and-remote.item.json");
    let firecrawl_name = firecrawl["server"]["name"].as_str().unwrap();
    let firecrawl_version = firecrawl["server"]["version"].as_str().unwrap();
    env.write(
        "mcpctl.toml",
        format!(
            "clients = [\"cursor\", \"claude-desktop\"]\n\n[servers.context7]\nregistry = \"io.github.upstash/context7@1.0.0\"\n\n[servers.firecrawl]\nregistry = \"{firecrawl_name}@{firecrawl_version}\"\n"
        )
        .as_bytes(),
    );
    let run = env
        .run(&["--platform", "macos", "apply", "--manifest", "mcpctl.toml"])
        .ok();
    // Cursor speaks HTTP: firecrawl's remote; context7 has only a package.
    let cursor = cursor(&env);
    assert_eq!(
        cursor["mcpServers"]["context7"]["args"],
        json!(["-y", "@upstash/context7-mcp@1.0.26"]),
        "{cursor:#}"
    );
    assert!(
        cursor["mcpServers"]["firecrawl"]["url"].is_string(),
        "{cursor:#}\n{}",
        run.stderr
    );
    // Its key: the store through the manifest's `secrets`, or an export.
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(
        said.contains("secrets = { FIRECRAWL_API_KEY = \"firecrawl-api-key\" }"),
        "{said}"
    );
    // Claude Desktop speaks only stdio: firecrawl's npm package.
    let desktop = jsonc(&env.read("Library/Application Support/Claude/claude_desktop_config.json"));
    assert_eq!(
        crate::env::command_of(&desktop["mcpServers"]["firecrawl"]),
        "npx",
        "{desktop:#}"
    );
    // A second plan is in sync; an unpinned registry name is refused with the fix.
    env.run(&[
        "--platform",
        "macos",
        "plan",
        "--check",
        "--manifest",
        "mcpctl.toml",
    ])
    .ok();
    env.write(
        "bad.toml",
        b"[servers.c]\nregistry = \"io.github.upstash/context7\"\n",
    );
    let run = env.run(&["plan", "--manifest", "bad.toml"]).code(2);
    assert!(
        run.stderr.contains("io.github.upstash/context7@VERSION"),
        "{}",
        run.stderr
    );
}

/// Registry 1.8's `cargo` packages: without a Rust toolchain `add` refuses and writes
/// nothing; with one it runs `cargo install --locked CRATE@VERSION`, then writes the
/// crate's binary as the command.
#[test]
#[cfg(unix)] // its cargo is a sh script
fn cargo_package_needs_a_toolchain_then_runs_the_binary() {
    let server = RegistryServer::start();
    let item = json!({
        "server": {
            "name": "io.github.example/rust-server",
            "description": "A server written in Rust",
            "version": "0.3.1",
            "packages": [{
                "registryType": "cargo",
                "identifier": "rust-mcp-server",
                "version": "0.3.1",
                "transport": { "type": "stdio" }
            }]
        }
    });
    server.publish(item, true, "active", None);
    let env = env_with(&server);
    let name = "io.github.example/rust-server";
    let run = env
        .run(&["add", name, "-c", "cursor", "--no-input"])
        .code(2);
    assert!(
        run.stderr.contains("needs a Rust toolchain"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("cargo install --locked rust-mcp-server@0.3.1"),
        "{}",
        run.stderr
    );
    assert!(!env.path(".cursor/mcp.json").exists());
    env.on_path("cargo");
    let dry = env
        .run(&["add", name, "-c", "cursor", "--no-input", "--dry-run"])
        .ok();
    assert!(
        dry.stderr
            .contains("would run `cargo install --locked rust-mcp-server@0.3.1` first"),
        "{}",
        dry.stderr
    );
    assert!(!env.path(".cursor/mcp.json").exists());
    env.run(&["add", name, "-c", "cursor", "--no-input"]).ok();
    assert_eq!(
        cursor(&env)["mcpServers"]["rust-server"],
        json!({"command": "rust-mcp-server", "args": []})
    );
}

/// `outdated` shows what the registry now says about an installed server: deprecated or
/// deleted, with the publisher's `statusMessage`, even when no newer version exists.
#[test]
fn outdated_shows_deprecated_and_deleted_with_the_status_message() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    publish_db(&server, "1.0.0", true);
    env.run(&[
        "add",
        "io.github.acme/db",
        "-c",
        "cursor",
        "--var",
        "schema=public",
    ])
    .ok();
    assert_eq!(env.run(&["outdated", "--json"]).ok().json(), json!([]));
    let db = |version: &str| {
        json!({"server": {
            "name": "io.github.acme/db",
            "version": version,
            "packages": [{"registryType": "npm", "identifier": "@acme/db-mcp", "version": version}]
        }})
    };
    server.publish(
        db("1.0.0"),
        true,
        "deprecated",
        Some("moved to io.github.acme/db2"),
    );
    let rows = env.run(&["outdated", "--json"]).ok().json();
    assert_eq!(rows[0]["status"], "deprecated", "{rows:#}");
    assert_eq!(rows[0]["status_message"], "moved to io.github.acme/db2");
    assert_eq!(rows[0]["latest"], "1.0.0");
    let human = env.run(&["outdated"]).ok();
    assert!(
        human
            .stdout
            .contains("deprecated: moved to io.github.acme/db2"),
        "{}",
        human.stdout
    );
    server.publish(db("1.0.0"), true, "deleted", Some("malware"));
    let rows = env.run(&["outdated", "--json"]).ok().json();
    assert_eq!(
        (&rows[0]["status"], &rows[0]["status_message"]),
        (&json!("deleted"), &json!("malware"))
    );
}

/// MCP209 (SSE deprecated) names the Streamable HTTP URL the server's registry entry lists
/// beside its SSE one, once mcpctl has fetched that entry; it no longer guesses `/mcp`.
#[test]
fn sse_finding_names_the_registry_entrys_streamable_http_remote() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    server.publish_sample("linear.two-remotes.item.json");
    for (name, url) in [
        ("linear", "https://mcp.linear.app/sse"),
        ("other", "https://events.example.com/sse"),
    ] {
        env.run(&[
            "add",
            name,
            "-c",
            "claude-code",
            "--url",
            url,
            "--transport",
            "sse",
        ])
        .ok();
    }
    env.run(&["search", "linear"]).ok();
    let findings = env
        .run(&["check", "--user", "-c", "claude-code", "--format", "json"])
        .json();
    let message = |server: &str| {
        findings
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["code"] == "MCP209" && f["message"].as_str().unwrap().contains(server))
            .unwrap_or_else(|| panic!("no MCP209 for {server}: {findings:#}"))["message"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let linear = message("`linear`");
    assert!(
        linear.contains("registry entry `app.linear/linear`"),
        "{linear}"
    );
    assert!(
        linear.contains("--url https://mcp.linear.app/mcp --transport http"),
        "{linear}"
    );
    let other = message("`other`");
    assert!(!other.contains("events.example.com/mcp"), "{other}");
}

/// A secret input the store can fill is offered the store, not `export` (issue 23): a
/// literal is refused with `mcpctl secret set` and `--secret`; given `--secret`, the
/// entry is the launcher and the variable is not listed as one to export; a header takes
/// `{secret:NAME}` and becomes the bridge.
#[test]
fn registry_secrets_point_at_the_store_and_a_stored_one_is_never_to_export() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    server.publish_sample("elevenlabs.pypi.item.json");
    server.publish_sample("airtable.remote-header.item.json");
    let literal = env
        .run(&[
            "add",
            "io.elevenlabs/mcp",
            "-c",
            "cursor",
            "--env",
            "ELEVENLABS_API_KEY=sk_live_abc",
        ])
        .code(2);
    assert!(
        literal
            .stderr
            .contains("mcpctl secret set elevenlabs-api-key"),
        "{}",
        literal.stderr
    );
    assert!(
        literal
            .stderr
            .contains("--secret ELEVENLABS_API_KEY=elevenlabs-api-key"),
        "{}",
        literal.stderr
    );
    assert!(!literal.stderr.contains("export"), "{}", literal.stderr);

    // Nothing given: the entry reads the variable, and the note offers the store first.
    let dry = env
        .run(&["add", "io.elevenlabs/mcp", "-c", "cursor", "--dry-run"])
        .ok();
    assert!(
        dry.stderr
            .contains("--secret ELEVENLABS_API_KEY=elevenlabs-api-key"),
        "{}",
        dry.stderr
    );

    let stored = env
        .run(&[
            "add",
            "io.elevenlabs/mcp",
            "-c",
            "cursor",
            "--secret",
            "ELEVENLABS_API_KEY=elevenlabs",
        ])
        .ok();
    assert!(
        !stored.stderr.contains("ELEVENLABS_API_KEY=…"),
        "{}",
        stored.stderr
    );
    assert!(!stored.stderr.contains("export"), "{}", stored.stderr);
    let entry = &cursor(&env)["mcpServers"]["elevenlabs"];
    assert_eq!(
        entry["args"],
        json!([
            "run",
            "--secret",
            "ELEVENLABS_API_KEY=elevenlabs",
            "--",
            "uvx",
            "elevenlabs-mcp==0.9.1"
        ]),
        "{entry}"
    );
    assert!(entry.get("env").is_none(), "{entry}");

    let header = env
        .run(&[
            "add",
            "com.airtable/mcp",
            "-c",
            "cursor",
            "--header",
            "Authorization=Bearer {secret:airtable}",
        ])
        .ok();
    assert!(!header.stderr.contains("export"), "{}", header.stderr);
    let entry = &cursor(&env)["mcpServers"]["airtable"];
    assert_eq!(entry["args"][0], "bridge", "{entry}");
    assert!(
        entry["args"]
            .as_array()
            .unwrap()
            .contains(&json!("Authorization=Bearer {secret:airtable}")),
        "{entry}"
    );
}

/// Issue 40: `search --json` called `io.github.example/weather`'s namespace `github`; a
/// registry given as the listing's address (`…/v0.1/servers`) doubled the path; and a
/// read-only command's registry error ended "nothing was written".
#[test]
fn search_names_the_namespace_and_takes_a_copied_listing_address() {
    let server = RegistryServer::start();
    let env = TestEnv::new();
    for file in SAMPLES {
        server.publish_sample(file);
    }
    let listing = format!("{}/v0.1/servers", server.url.trim_end_matches('/'));
    let run = env
        .run(&["search", "github", "--json", "--registry", &listing])
        .ok();
    let hits = run.json();
    let hit = hits
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "io.github.github/github-mcp-server")
        .unwrap_or_else(|| panic!("{hits}"));
    assert_eq!(hit["namespace"], "io.github.github", "{hit}");
    assert_eq!(hit["verified_by"], "github", "{hit}");
    let run = env.run(&["search", "github", "--registry", &closed_url()]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        !run.stderr.contains("nothing was written"),
        "a read-only command: {}",
        run.stderr
    );
}
