//! The secret store, the launcher and the bridge (issue 23), end to end through the
//! binary: values kept in a real Secret Service (gnome-keyring, started by
//! `.ci/keyring.sh`; those tests are `#[ignore = "needs .ci/keyring.sh"]`), a
//! small script as the command provider, and the real fixture server behind `mcpctl run`
//! (stdio) and `mcpctl bridge` (Streamable HTTP and legacy SSE). Each test checks the
//! secret reaches the server's environment or headers and nowhere else: not a client
//! file, not the launcher's command line, not mcpctl's output or state files.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

use crate::env::{Run, TestEnv};
use crate::fixture_server::fixture_binary;

/// A test environment whose mcpctl reaches the Secret Service this test process sees,
/// under a keychain service of its own (never a person's `mcpctl` items). Fails the test
/// when no Secret Service answers.
pub(crate) fn keyring_env() -> TestEnv {
    let mut env = TestEnv::new();
    for var in ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"] {
        if let Ok(value) = std::env::var(var) {
            env.extra_env.push((var.to_owned(), value));
        }
    }
    let unique = env
        .dir
        .path()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    env.extra_env.push((
        "MCPCTL_KEYRING_SERVICE".to_owned(),
        format!("mcpctl-test-{unique}"),
    ));
    let probe = env.run(&["secret", "get", "availability-probe", "--reveal"]);
    if probe.stderr.contains("no Secret Service") {
        crate::peer::missing(
            "no Secret Service on the session bus (run `eval \"$(bash .ci/keyring.sh)\"`)",
        );
    }
    env
}

/// `mcpctl secret set NAME` with `value` on stdin.
pub(crate) fn set_secret(env: &TestEnv, name: &str, value: &str) -> Run {
    let mut command = env.command(&["secret", "set", name]);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{value}\n").as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Every file under `dir` that holds `needle` (state files, client files).
pub(crate) fn files_holding(dir: &Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_holding(&path, needle));
        } else if std::fs::read(&path)
            .is_ok_and(|bytes| String::from_utf8_lossy(&bytes).contains(needle))
        {
            found.push(path.display().to_string());
        }
    }
    found
}

/// A client's end of a stdio MCP connection to a process the test started.
pub(crate) struct Peer {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Peer {
    pub(crate) fn start(mut command: Command) -> Peer {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = command.spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Peer {
            child,
            stdin,
            stdout,
            next: 1,
        }
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// Send a request and read lines until its response.
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            let read = self.stdout.read_line(&mut line).unwrap();
            assert!(
                read > 0,
                "the connection closed before the reply to {method}"
            );
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not one JSON message per line ({e}): {line:?}"));
            if message["id"] == json!(id) && message.get("method").is_none() {
                return message;
            }
            // A request of the server's (`roots/list` before `tools/list`): a client
            // without roots says it does not know the method.
            if let (Some(_), Some(server_id)) = (message.get("method"), message.get("id")) {
                let reply = json!({"jsonrpc": "2.0", "id": server_id, "error": {"code": -32601, "message": "no roots"}});
                self.send(&reply);
            }
        }
    }

    /// `initialize` and `notifications/initialized`, as a client does first.
    pub(crate) fn handshake(&mut self) -> Value {
        let reply = self.request(
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "secrets-test", "version": "0"}
            }),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        reply
    }

    /// The text a fixture tool answers.
    fn tool_text(&mut self, tool: &str, arguments: Value) -> String {
        let reply = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        reply["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text in {reply}"))
            .to_owned()
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Close stdin and wait for the process to end.
    fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.child.wait().unwrap()
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The command line of process `pid` as `ps` and `/proc/PID/cmdline` show it.
pub(crate) fn command_lines(pid: u32) -> String {
    let ps = Command::new("ps")
        .args(["-ww", "-o", "args=", "-p", &pid.to_string()])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let proc = std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default();
    format!("{ps}\n{proc}")
}

#[test]
#[ignore = "needs .ci/keyring.sh"]
fn keyring_store_sets_resolves_and_deletes_without_showing_the_value() {
    let env = keyring_env();
    // A real token's shape: trust's scrub would hide it from any output but `--reveal`.
    let value = "ghp_keyringTestValue0123456789abcdefABCDEF";
    let set = set_secret(&env, "github", value).ok();
    assert!(
        set.stderr.contains("kept in the OS keychain"),
        "{}",
        set.stderr
    );

    let list = env.run(&["secret", "list", "--json"]).ok();
    assert_eq!(list.json()[0]["name"], "github");
    assert_eq!(list.json()[0]["backend"], "keychain");
    let human = env.run(&["secret", "list"]).ok();
    assert!(human.stdout.contains("github"), "{}", human.stdout);

    let refused = env.run(&["secret", "get", "github"]).code(2);
    assert!(refused.stderr.contains("--reveal"), "{}", refused.stderr);
    let revealed = env.run(&["secret", "get", "github", "--reveal"]).ok();
    assert_eq!(revealed.stdout, format!("{value}\n"));

    for run in [&set, &list, &human, &refused] {
        assert!(!run.stdout.contains(value) && !run.stderr.contains(value));
    }
    assert_eq!(files_holding(env.dir.path(), value), Vec::<String>::new());

    env.run(&["secret", "rm", "github"]).ok();
    let gone = env.run(&["secret", "get", "github", "--reveal"]).code(2);
    assert!(
        gone.stderr
            .contains("secret `github` is not set (mcpctl secret set github)"),
        "{}",
        gone.stderr
    );
    assert_eq!(
        env.run(&["secret", "list", "--json"]).ok().json(),
        json!([])
    );
    env.run(&["secret", "rm", "github"]).code(2);
}

#[test]
fn a_secret_is_never_taken_from_the_command_line() {
    let env = TestEnv::new();
    // clap refuses a second positional: there is no way to pass a value in argv.
    env.run(&["secret", "set", "github", "ghp_onTheCommandLine"])
        .code(2);
    let empty = env.run(&["secret", "set", "github"]).code(2);
    assert!(empty.stderr.contains("is empty"), "{}", empty.stderr);
}

/// A provider script that prints its argument's token, as `pass show NAME` would.
#[cfg(unix)] // only Unix-only tests use it
fn provider_script(env: &TestEnv) -> String {
    let path = env.write(
        "bin/fake-pass",
        b"#!/bin/sh\n# a tiny password manager: `fake-pass show NAME`\n[ \"$1\" = show ] || { echo \"usage: fake-pass show NAME\" >&2; exit 64; }\n[ \"$2\" = docs ] || { echo \"fake-pass: $2 is not in the store\" >&2; exit 1; }\nprintf 'tok_fromProvider_42\\n'\n",
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    path.display().to_string()
}

#[test]
#[cfg(unix)] // the password manager is a sh script
fn the_command_provider_runs_its_command_and_stores_only_the_command() {
    let env = TestEnv::new();
    let script = provider_script(&env);
    env.run(&[
        "secret",
        "set",
        "docs",
        "--command",
        &format!("{script} show docs"),
    ])
    .ok();
    env.run(&[
        "secret",
        "set",
        "gone",
        "--command",
        &format!("{script} show gone"),
    ])
    .ok();
    let list = env.run(&["secret", "list", "--json"]).ok().json();
    assert_eq!(list[0]["name"], "docs");
    assert_eq!(list[0]["backend"], "command");
    assert_eq!(list[0]["command"], format!("{script} show docs"));

    let revealed = env.run(&["secret", "get", "docs", "--reveal"]).ok();
    assert_eq!(revealed.stdout, "tok_fromProvider_42\n");
    let failed = env.run(&["secret", "get", "gone", "--reveal"]).code(2);
    assert!(
        failed
            .stderr
            .contains("exited with 1: fake-pass: gone is not in the store"),
        "{}",
        failed.stderr
    );
    assert_eq!(
        files_holding(&env.dir.path().join("state"), "tok_fromProvider_42"),
        Vec::<String>::new()
    );

    // The launcher resolves it the same way.
    let run = env
        .run(&[
            "run",
            "--secret",
            "DOCS_KEY=docs",
            "--",
            "sh",
            "-c",
            "printf %s \"$DOCS_KEY\"",
        ])
        .ok();
    assert_eq!(run.stdout, "tok_fromProvider_42");
    let missing = env
        .run(&[
            "run",
            "--secret",
            "DOCS_KEY=gone",
            "--",
            "sh",
            "-c",
            "echo started",
        ])
        .code(2);
    assert!(!missing.stdout.contains("started"), "{}", missing.stdout);
    assert!(
        missing.stderr.contains("secret `gone`"),
        "{}",
        missing.stderr
    );
}

#[test]
#[ignore = "needs .ci/keyring.sh"]
fn the_launcher_gives_the_server_its_secret_in_the_environment_only() {
    let env = keyring_env();
    let value = "ghp_launcherValue_abcdef987";
    set_secret(&env, "github", value).ok();

    let mut command = env.command(&[
        "run",
        "--secret",
        "GITHUB_PERSONAL_ACCESS_TOKEN=github",
        "--",
        &fixture_binary().display().to_string(),
    ]);
    command.stdin(Stdio::piped());
    let mut server = Peer::start(command);
    let init = server.handshake();
    assert_eq!(init["result"]["serverInfo"]["name"], "fixture-server");
    assert_eq!(
        server.tool_text("env", json!({"name": "GITHUB_PERSONAL_ACCESS_TOKEN"})),
        value
    );
    // The launcher became the server (exec): the same process, no mcpctl left between.
    assert_eq!(server.tool_text("pid", json!({})), server.pid().to_string());
    let lines = command_lines(server.pid());
    assert!(lines.contains("fixture-server"), "{lines}");
    assert!(
        !lines.contains(value),
        "the secret is on a command line: {lines}"
    );
    assert!(server.finish().success());
    assert_eq!(files_holding(env.dir.path(), value), Vec::<String>::new());
}

#[test]
#[ignore = "needs .ci/keyring.sh"]
fn the_launcher_names_a_missing_secret_before_starting_anything() {
    let env = keyring_env();
    let run = env
        .run(&[
            "run",
            "--secret",
            "GITHUB_TOKEN=github",
            "--",
            "sh",
            "-c",
            "echo started",
        ])
        .code(2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains("secret `github` is not set (mcpctl secret set github)"),
        "{}",
        run.stderr
    );
}

/// A TCP port nobody listens on right now.
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The fixture server on a loopback port (`http=PORT` or `sse=PORT`), ended on drop.
pub(crate) struct HttpFixture(Child);

impl HttpFixture {
    pub(crate) fn start(mode: &str, port: u16) -> HttpFixture {
        let child = Command::new(fixture_binary())
            .arg(format!("{mode}={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
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
        HttpFixture(child)
    }
}

impl Drop for HttpFixture {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
#[ignore = "needs .ci/keyring.sh"]
fn the_bridge_sends_the_header_secret_and_passes_messages_through() {
    let env = keyring_env();
    let value = "docs_bridgeValue_5551212";
    set_secret(&env, "docs", value).ok();
    let port = free_port();
    let _server = HttpFixture::start("http", port);

    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut bridge = Peer::start(env.command(&[
        "bridge",
        &url,
        "--header",
        "Authorization=Bearer {secret:docs}",
    ]));
    let init = bridge.handshake();
    assert_eq!(init["result"]["serverInfo"]["name"], "fixture-server");
    let tools = bridge.request("tools/list", json!({}));
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["hello", "pid"]);
    assert_eq!(
        bridge.tool_text("header", json!({"name": "authorization"})),
        format!("Bearer {value}")
    );
    assert_eq!(bridge.tool_text("hello", json!({})), "hello");
    let lines = command_lines(bridge.pid());
    assert!(lines.contains("{secret:docs}"), "{lines}");
    assert!(
        !lines.contains(value),
        "the secret is on a command line: {lines}"
    );
    assert!(bridge.finish().success());
    assert_eq!(files_holding(env.dir.path(), value), Vec::<String>::new());
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn the_bridge_speaks_legacy_sse_too() {
    // No secret needed to prove the transport: a literal header and the SSE fixture.
    let env = TestEnv::new();
    let port = free_port();
    let _server = HttpFixture::start("sse", port);
    let url = format!("http://127.0.0.1:{port}/sse");
    let mut bridge = Peer::start(env.command(&[
        "bridge",
        &url,
        "--transport",
        "sse",
        "--header",
        "X-Trace=1",
    ]));
    let init = bridge.handshake();
    assert_eq!(init["result"]["serverInfo"]["name"], "fixture-server");
    assert_eq!(bridge.tool_text("hello", json!({})), "hello");
    bridge.finish();

    // Without --transport: the initialize POST gets a 404, and the bridge falls back to
    // HTTP+SSE as the spec says.
    let mut bridge = Peer::start(env.command(&["bridge", &url]));
    let init = bridge.handshake();
    assert_eq!(init["result"]["serverInfo"]["name"], "fixture-server");
    assert_eq!(bridge.tool_text("hello", json!({})), "hello");
    bridge.finish();
}

/// mcpctl's own binary as `add` writes it into a launcher entry: its real path (on
/// Windows without the `\\?\` prefix `canonicalize` gives).
pub(crate) fn mcpctl_path() -> String {
    let path = std::fs::canonicalize(env!("CARGO_BIN_EXE_mcpctl"))
        .unwrap()
        .display()
        .to_string();
    match path.strip_prefix(r"\\?\") {
        Some(plain) => plain.to_owned(),
        None => path,
    }
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
#[cfg(unix)] // the secret's command is `printf`, a Unix program
fn add_writes_the_launcher_and_every_command_sees_the_server_behind_it() {
    let env = TestEnv::new();
    let value = "tok_launcherEntry_31337";
    // The command spells the value in pieces, so the stored command does not hold it.
    env.run(&[
        "secret",
        "set",
        "github",
        "--command",
        "printf 'tok_%s_%s' launcherEntry 31337",
    ])
    .ok();
    let fixture = fixture_binary().display().to_string();
    let add = env
        .run(&[
            "add",
            "gh",
            "-c",
            "cursor",
            "--secret",
            "GITHUB_TOKEN=github",
            "--",
            &fixture,
        ])
        .ok();
    cursor_launcher_entry(&env, &fixture);

    let list = env.run(&["list", "--json"]).ok();
    let row = &list.json()[0];
    assert_eq!(row["command"], fixture.as_str());
    assert_eq!(row["via"], "launcher");
    assert_eq!(
        row["secrets"],
        json!([{"to": "GITHUB_TOKEN", "secret": "github"}])
    );
    let human = env.run(&["list"]).ok();
    let words = human
        .stdout
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        words.contains("(via mcpctl run; secrets: github)"),
        "{}",
        human.stdout
    );

    let doctor = env.run(&["doctor", "gh", "-c", "cursor", "--json"]).ok();
    let result = &doctor.json()["results"][0];
    assert_eq!(result["status"], "ok", "{}", doctor.stdout);
    let checks = result["checks"].to_string();
    assert!(
        checks.contains("`github` resolved from the secret store"),
        "{checks}"
    );
    let tools = env.run(&["tools", "gh", "-c", "cursor"]).ok();
    assert!(tools.stdout.contains("hello"), "{}", tools.stdout);
    let call = env.run(&["call", "gh", "hello", "-c", "cursor"]).ok();
    assert!(call.stdout.contains("hello"), "{}", call.stdout);

    // `remove` takes the entry, never the secret.
    env.run(&["remove", "gh", "-c", "cursor"]).ok();
    let secrets = env.run(&["secret", "list", "--json"]).ok().json();
    assert_eq!(secrets[0]["name"], "github");

    for run in [&add, &list, &human, &doctor, &tools, &call] {
        assert!(!run.stdout.contains(value) && !run.stderr.contains(value));
    }
    assert_eq!(files_holding(env.dir.path(), value), Vec::<String>::new());
}

#[test]
fn windows_wrapping_applies_to_what_the_launcher_starts() {
    let env = TestEnv::new();
    env.run(&[
        "--platform",
        "windows",
        "add",
        "gh",
        "-c",
        "cursor",
        "--secret",
        "GITHUB_TOKEN=github",
        "--",
        "npx",
        "-y",
        "@modelcontextprotocol/server-github",
    ])
    .ok();
    let file = env.read_str(".cursor/mcp.json");
    let entry = &crate::env::jsonc(file.as_bytes())["mcpServers"]["gh"];
    assert_eq!(entry["command"], mcpctl_path().as_str(), "{file}");
    assert_eq!(
        entry["args"],
        json!([
            "run",
            "--secret",
            "GITHUB_TOKEN=github",
            "--",
            "cmd",
            "/c",
            "npx",
            "-y",
            "@modelcontextprotocol/server-github"
        ])
    );
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
#[cfg(unix)] // the secret's command is `printf`, a Unix program
fn add_writes_the_bridge_for_a_header_secret_and_doctor_reaches_the_server() {
    let env = TestEnv::new();
    let value = "tok_bridgeEntry_2718281";
    env.run(&[
        "secret",
        "set",
        "docs",
        "--command",
        "printf 'tok_%s_%s' bridgeEntry 2718281",
    ])
    .ok();
    let port = free_port();
    let _server = HttpFixture::start("http", port);
    let url = format!("http://127.0.0.1:{port}/mcp");
    env.run(&[
        "add",
        "docs",
        "-c",
        "cursor",
        "--url",
        &url,
        "--header",
        "Authorization=Bearer {secret:docs}",
    ])
    .ok();
    let file = env.read_str(".cursor/mcp.json");
    let entry = &crate::env::jsonc(file.as_bytes())["mcpServers"]["docs"];
    assert_eq!(entry["command"], mcpctl_path().as_str(), "{file}");
    assert_eq!(
        entry["args"],
        json!([
            "bridge",
            url,
            "--header",
            "Authorization=Bearer {secret:docs}"
        ])
    );
    let list = env.run(&["list", "--json"]).ok();
    assert_eq!(list.json()[0]["url"], url.as_str());
    assert_eq!(list.json()[0]["via"], "bridge");
    assert_eq!(
        list.json()[0]["headers"]["Authorization"],
        "Bearer {secret:docs}"
    );
    let doctor = env.run(&["doctor", "docs", "-c", "cursor", "--json"]).ok();
    assert_eq!(
        doctor.json()["results"][0]["status"],
        "ok",
        "{}",
        doctor.stdout
    );
    for run in [&list, &doctor] {
        assert!(!run.stdout.contains(value) && !run.stderr.contains(value));
    }
    assert_eq!(files_holding(env.dir.path(), value), Vec::<String>::new());
}

#[test]
#[ignore = "needs .ci/keyring.sh"]
fn doctor_names_a_missing_secret_and_how_to_set_it() {
    let env = keyring_env();
    let fixture = fixture_binary().display().to_string();
    let add = env
        .run(&[
            "add",
            "gh",
            "-c",
            "cursor",
            "--secret",
            "GITHUB_TOKEN=github",
            "--",
            &fixture,
        ])
        .ok();
    assert!(
        add.stderr.contains("mcpctl secret set github"),
        "{}",
        add.stderr
    );
    let doctor = env.run(&["doctor", "gh", "-c", "cursor"]).code(1);
    assert!(
        doctor
            .stdout
            .contains("secret `github` is not set (mcpctl secret set github)"),
        "{}",
        doctor.stdout
    );
}

/// Without a Secret Service (the test environment has no session bus), `secret set` says
/// so, names the command provider, and keeps nothing anywhere: no plaintext fallback.
#[cfg(target_os = "linux")]
#[test]
fn without_a_secret_service_nothing_falls_back_to_a_file() {
    let env = TestEnv::new();
    let value = "tok_noSecretService_8080";
    let set = set_secret(&env, "github", value).code(2);
    assert!(set.stderr.contains("no Secret Service"), "{}", set.stderr);
    assert!(
        set.stderr.contains("mcpctl secret set github --command"),
        "{}",
        set.stderr
    );
    assert_eq!(files_holding(env.dir.path(), value), Vec::<String>::new());
    assert_eq!(
        env.run(&["secret", "list", "--json"]).ok().json(),
        json!([])
    );
}

/// A Cursor file with a literal token in one server's env, a comment and another
/// server around it; Codex has the same server with the same token.
fn literal_token_files(env: &TestEnv, value: &str) -> (String, String) {
    let fixture = fixture_binary().display().to_string();
    let cursor = format!(
        "{{\n  // my servers\n  \"mcpServers\": {{\n    \"other\": {{ \"command\": \"npx\", \"args\": [\"-y\", \"other\"] }},\n    \"gh\": {{\n      \"command\": \"{fixture}\",\n      \"env\": {{ \"GITHUB_TOKEN\": \"{value}\", \"LOG\": \"debug\" }}\n    }}\n  }},\n  \"editor.fontSize\": 13\n}}\n"
    );
    let codex = format!(
        "model = \"o3\"  # mine\n\n[mcp_servers.gh]\ncommand = \"{fixture}\"\nenv = {{ GITHUB_TOKEN = \"{value}\" }}\n"
    );
    env.write(".cursor/mcp.json", cursor.as_bytes());
    env.write(".codex/config.toml", codex.as_bytes());
    (cursor, codex)
}

#[test]
#[ignore = "needs .ci/keyring.sh"]
fn secret_adopt_moves_a_literal_into_the_keychain_and_rewrites_the_entry_in_place() {
    let env = keyring_env();
    let value = "ghp_adoptThisLiteral0123456789abcdefXYZ";
    let (cursor, codex) = literal_token_files(&env, value);

    // A dry run stores and writes nothing, and shows the diff without the value.
    let dry = env
        .run(&["secret", "adopt", "-c", "cursor,codex", "--dry-run"])
        .ok();
    assert!(
        dry.stdout.contains("would move") || dry.stderr.contains("dry run"),
        "{}",
        dry.stderr
    );
    assert!(dry.stdout.contains("mcpctl"), "{}", dry.stdout);
    assert_eq!(env.read_str(".cursor/mcp.json"), cursor);
    assert_eq!(
        env.run(&["secret", "list", "--json"]).ok().json(),
        json!([])
    );

    let run = env
        .run(&["secret", "adopt", "-c", "cursor,codex", "--json"])
        .ok();
    let rows = run.json();
    assert_eq!(rows.as_array().unwrap().len(), 2, "{rows:#}");
    for row in rows.as_array().unwrap() {
        assert_eq!(row["secret"], "gh", "one value, one secret: {rows:#}");
        assert_eq!(row["field"], "GITHUB_TOKEN");
        assert_eq!(row["action"], "moved");
    }
    let secrets = env.run(&["secret", "list", "--json"]).ok().json();
    assert_eq!(secrets.as_array().unwrap().len(), 1, "{secrets:#}");
    assert_eq!(secrets[0]["backend"], "keychain");
    let got = env.run(&["secret", "get", "gh", "--reveal"]).ok();
    assert_eq!(got.stdout.trim_end(), value);

    // Rewritten in place: the launcher form, the other variable kept, every other byte
    // as it was.
    let file = env.read_str(".cursor/mcp.json");
    let entry = &crate::env::jsonc(file.as_bytes())["mcpServers"]["gh"];
    let fixture = fixture_binary().display().to_string();
    assert_eq!(entry["command"], mcpctl_path().as_str(), "{file}");
    assert_eq!(
        entry["args"],
        json!(["run", "--secret", "GITHUB_TOKEN=gh", "--", fixture])
    );
    assert_eq!(entry["env"], json!({"LOG": "debug"}));
    let head = cursor.split("    \"gh\"").next().unwrap();
    assert!(file.starts_with(head), "{file}");
    assert!(
        file.ends_with("  },\n  \"editor.fontSize\": 13\n}\n"),
        "{file}"
    );
    let toml = env.read_str(".codex/config.toml");
    assert!(
        toml.starts_with("model = \"o3\"  # mine\n\n[mcp_servers.gh]\n"),
        "{toml}"
    );
    assert!(toml.contains("GITHUB_TOKEN=gh"), "{toml}");

    // The entry as written starts the server with the secret in its environment.
    let mut command = Command::new(entry["command"].as_str().unwrap());
    command.args(
        entry["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap()),
    );
    for (k, v) in &env.extra_env {
        command.env(k, v);
    }
    command.env("HOME", env.dir.path());
    let mut server = Peer::start(command);
    server.handshake();
    assert_eq!(
        server.tool_text("env", json!({"name": "GITHUB_TOKEN"})),
        value
    );
    assert!(!command_lines(server.pid()).contains(value));
    assert!(server.finish().success());

    // The value is in no output, and in no file but the backups of the files as they
    // were (which `undo` restores).
    for r in [&dry, &run] {
        assert!(
            !r.stdout.contains(value) && !r.stderr.contains(value),
            "{}{}",
            r.stdout,
            r.stderr
        );
    }
    for path in files_holding(env.dir.path(), value) {
        assert!(path.contains("/backups/"), "the secret is still in {path}");
    }
    // Nothing left to adopt.
    let again = env.run(&["secret", "adopt", "-c", "cursor,codex"]).ok();
    assert!(again.stderr.contains("nothing to move"), "{}", again.stderr);

    // `undo` puts both files back byte for byte; the secret stays in the store.
    let undo = env.run(&["undo"]).ok();
    assert!(
        undo.stderr.contains("undid `secret adopt`"),
        "{}",
        undo.stderr
    );
    assert_eq!(env.read_str(".cursor/mcp.json"), cursor);
    assert_eq!(env.read_str(".codex/config.toml"), codex);
    let secrets = env.run(&["secret", "list", "--json"]).ok().json();
    assert_eq!(secrets[0]["name"], "gh");
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
#[cfg(unix)] // Windows always has its Credential Manager
fn secret_adopt_without_a_secret_service_changes_no_file() {
    let env = TestEnv::new();
    let value = "ghp_noServiceLiteral0123456789abcdefXYZ";
    let (cursor, codex) = literal_token_files(&env, value);
    let run = env.run(&["secret", "adopt", "-c", "cursor,codex"]).code(2);
    assert!(
        run.stderr.contains("no client file was changed"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--command"), "{}", run.stderr);
    assert!(!run.stderr.contains(value));
    assert_eq!(env.read_str(".cursor/mcp.json"), cursor);
    assert_eq!(env.read_str(".codex/config.toml"), codex);
}

#[test]
#[ignore = "needs .ci/keyring.sh"]
fn check_fix_secrets_moves_a_project_files_literal_into_the_store() {
    let env = keyring_env();
    let value = "ghp_checkFixLiteral0123456789abcdefXYZ";
    let fixture = fixture_binary().display().to_string();
    let original = format!(
        "{{\n  \"mcpServers\": {{\n    \"gh\": {{\n      \"command\": \"{fixture}\",\n      \"env\": {{ \"GITHUB_TOKEN\": \"{value}\" }}\n    }}\n  }}\n}}\n"
    );
    env.write("proj/.mcp.json", original.as_bytes());
    let project = env.path("proj").display().to_string();

    let before = env.run(&["--project", &project, "check"]).code(1);
    assert!(before.stdout.contains("MCP401"), "{}", before.stdout);
    // Without --secrets, --fix leaves the secret alone.
    env.run(&["--project", &project, "check", "--fix"]).code(1);
    assert_eq!(env.read_str("proj/.mcp.json"), original);

    let dry = env
        .run(&[
            "--project",
            &project,
            "check",
            "--fix",
            "--secrets",
            "--dry-run",
        ])
        .code(1);
    assert!(
        dry.stderr.contains("would move into the OS keychain"),
        "{}",
        dry.stderr
    );
    assert_eq!(env.read_str("proj/.mcp.json"), original);

    let fixed = env
        .run(&["--project", &project, "check", "--fix", "--secrets"])
        .ok();
    assert!(
        fixed
            .stderr
            .contains("env `GITHUB_TOKEN` of `gh` → secret `gh`"),
        "{}",
        fixed.stderr
    );
    assert!(!fixed.stdout.contains("MCP401"), "{}", fixed.stdout);
    let file = env.read_str("proj/.mcp.json");
    assert!(
        file.contains("GITHUB_TOKEN=gh") && !file.contains(value),
        "{file}"
    );
    let got = env.run(&["secret", "get", "gh", "--reveal"]).ok();
    assert_eq!(got.stdout.trim_end(), value);
    for r in [&before, &dry, &fixed] {
        assert!(!r.stdout.contains(value) && !r.stderr.contains(value));
    }
    backup_is_said(&env, value, &fixed.stderr);

    // `backups --purge-secrets` deletes that backup (`--dry-run` only lists it).
    let dry = env
        .run(&[
            "--project",
            &project,
            "backups",
            "--purge-secrets",
            "--dry-run",
            "--json",
        ])
        .ok();
    let rows = dry.json();
    assert_eq!(rows.as_array().unwrap().len(), 1, "{rows:#}");
    assert_eq!(rows[0]["action"], "would delete");
    assert_eq!(rows[0]["secrets"], json!(["gh: env GITHUB_TOKEN"]));
    assert_eq!(files_holding(env.dir.path(), value).len(), 1);
    let purge = env
        .run(&["--project", &project, "backups", "--purge-secrets"])
        .ok();
    assert!(purge.stdout.contains("deleted"), "{}", purge.stdout);
    assert_eq!(files_holding(env.dir.path(), value), Vec::<String>::new());
    for r in [&dry, &purge] {
        assert!(!r.stdout.contains(value) && !r.stderr.contains(value));
    }
    let again = env
        .run(&["--project", &project, "backups", "--purge-secrets"])
        .ok();
    assert!(
        again.stderr.contains("nothing to delete") || again.stdout.contains("nothing to delete"),
        "{}",
        again.stdout
    );
}

/// The only files still holding `value` are the backups of the files it was moved out
/// of, and `said` says so and names each for `rm`.
fn backup_is_said(env: &TestEnv, value: &str, said: &str) {
    let holding = files_holding(env.dir.path(), value);
    assert!(!holding.is_empty());
    let words = said.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("still hold") && words.contains("the plaintext secret"),
        "{said}"
    );
    for path in holding {
        assert!(path.contains("/backups/"), "the secret is still in {path}");
        assert!(words.contains(&format!("'{path}'")), "{said}");
    }
}

/// The manifest names secrets (`secrets = { VAR = "NAME" }`), never holds them: `apply`
/// writes the launcher form `add --secret` writes into every client, a secret not set on
/// this machine is said (with `mcpctl secret set NAME`) without stopping the write, the
/// client's entry starts the server with the value from the store, and `import` of the
/// launcher entries gives the `secrets` table back (a round trip `plan --check` calls in
/// sync).
#[test]
#[ignore = "needs .ci/keyring.sh"]
fn a_manifests_secrets_become_the_launcher_form_and_import_gives_them_back() {
    let env = keyring_env();
    let value = "ghp_manifestSecret_0123456789abcdef";
    let fixture = fixture_binary().display().to_string();
    env.write(
        crate::env::MANIFEST,
        format!(
            "clients = [\"cursor\", \"codex\"]\n\n[servers.gh]\ncommand = \"{fixture}\"\nenv = {{ LOG = \"debug\" }}\nsecrets = {{ GITHUB_TOKEN = \"github\" }}\n"
        )
        .as_bytes(),
    );
    let plan = env.run(&["plan"]).ok();
    assert!(
        plan.stdout.contains("\"GITHUB_TOKEN=github\""),
        "{}",
        plan.stdout
    );
    assert!(
        plan.stderr.contains("mcpctl secret set github"),
        "a secret not set here is said: {}",
        plan.stderr
    );
    let apply = env.run(&["apply"]).ok();
    let said = format!("{}{}", apply.stdout, apply.stderr);
    assert!(said.contains("mcpctl secret set github"), "{said}");
    let entry = &cursor_launcher_entry(&env, &fixture);
    assert_eq!(entry["env"], json!({"LOG": "debug"}));
    let codex = env.read_str(".codex/config.toml");
    assert!(codex.contains("GITHUB_TOKEN=github"), "{codex}");

    set_secret(&env, "github", value).ok();
    let check = env.run(&["plan", "--check"]).ok();
    assert!(
        !check.stderr.contains("secret set"),
        "set now: {}",
        check.stderr
    );
    // The client's entry, started the way a client starts it, gets the value.
    let mut command = env.client_command(Path::new(entry["command"].as_str().unwrap()));
    command
        .args(
            entry["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap()),
        )
        .env("MCPCTL_STATE_DIR", env.dir.path().join("state"));
    for (k, v) in entry["env"].as_object().unwrap() {
        command.env(k, v.as_str().unwrap());
    }
    let mut server = Peer::start(command);
    server.handshake();
    assert_eq!(
        server.tool_text("env", json!({"name": "GITHUB_TOKEN"})),
        value
    );
    assert_eq!(server.tool_text("env", json!({"name": "LOG"})), "debug");
    assert!(server.finish().success());

    // Back to a manifest: the server behind the launcher, and its secrets.
    let import = env
        .run(&["import", "-c", "cursor,codex", "--manifest", "team.toml"])
        .ok();
    let team = env.read_str("team.toml");
    assert!(
        team.contains("secrets = { GITHUB_TOKEN = \"github\" }"),
        "{team}"
    );
    assert!(team.contains(&format!("command = \"{fixture}\"")), "{team}");
    assert!(!team.contains(&mcpctl_path()), "{team}");
    env.run(&["plan", "--check", "--manifest", "team.toml"])
        .ok();

    for run in [&plan, &apply, &check, &import] {
        assert!(!run.stdout.contains(value) && !run.stderr.contains(value));
    }
    assert_eq!(files_holding(env.dir.path(), value), Vec::<String>::new());
}

/// A launcher entry is the same server whichever mcpctl binary starts it (a project file
/// written on a teammate's machine): in sync, with a note when that binary is not here.
/// A remote server's `secrets` name headers: the bridge, and `import` gives back its
/// `{secret:NAME}` headers. A bad secret name is the manifest's error, with its position.
#[test]
#[cfg(unix)] // entries spell npx unwrapped
fn manifest_secrets_compare_by_server_and_reach_remote_servers_through_the_bridge() {
    let env = TestEnv::new();
    env.write(
        ".cursor/mcp.json",
        br#"{"mcpServers": {"gh": {"command": "/home/teammate/.cargo/bin/mcpctl", "args": ["run", "--secret", "GITHUB_TOKEN=github", "--", "npx", "-y", "server-github"]}}}"#,
    );
    env.run(&["secret", "set", "docs", "--command", "printf docs-key"])
        .ok();
    env.write(
        crate::env::MANIFEST,
        b"clients = [\"cursor\"]\n\n[servers.gh]\ncommand = \"npx\"\nargs = [\"-y\", \"server-github\"]\nsecrets = { GITHUB_TOKEN = \"github\" }\n\n[servers.docs]\nurl = \"https://docs.example.com/mcp\"\nsecrets = { X-Api-Key = \"docs\" }\n",
    );
    let plan = env.run(&["plan", "--json"]).ok().json();
    let action = |name: &str| {
        plan.as_array()
            .unwrap()
            .iter()
            .find(|i| i["name"] == name)
            .map(|i| i["action"].as_str().unwrap().to_owned())
    };
    assert_eq!(action("gh").as_deref(), Some("adopt"), "{plan}");
    assert_eq!(action("docs").as_deref(), Some("add"), "{plan}");
    let text = env.run(&["plan"]).ok();
    assert!(
        text.stderr.contains(
            "starts mcpctl at `/home/teammate/.cargo/bin/mcpctl`, which is not on this machine"
        ),
        "{}",
        text.stderr
    );
    assert!(
        text.stderr.contains("mcpctl secret set github")
            && !text.stderr.contains("secret set docs"),
        "github is not set, docs is: {}",
        text.stderr
    );
    env.run(&["apply"]).ok();
    let file = env.read_str(".cursor/mcp.json");
    let docs = &crate::env::jsonc(file.as_bytes())["mcpServers"]["docs"];
    assert_eq!(
        docs["args"],
        json!([
            "bridge",
            "https://docs.example.com/mcp",
            "--header",
            "X-Api-Key={secret:docs}"
        ]),
        "{file}"
    );
    env.run(&["plan", "--check"]).ok();
    env.run(&["import", "-c", "cursor", "--manifest", "back.toml"])
        .ok();
    let back = env.read_str("back.toml");
    assert!(
        back.contains("headers = { X-Api-Key = \"{secret:docs}\" }"),
        "{back}"
    );
    assert!(
        back.contains("secrets = { GITHUB_TOKEN = \"github\" }"),
        "{back}"
    );
    env.run(&["plan", "--check", "--manifest", "back.toml"])
        .ok();

    env.write(
        "bad.toml",
        b"[servers.gh]\ncommand = \"npx\"\nsecrets = { GITHUB_TOKEN = \"not a name\" }\n",
    );
    let bad = env.run(&["plan", "--manifest", "bad.toml"]).code(2);
    assert!(bad.stderr.contains("bad.toml:3:"), "{}", bad.stderr);
    assert!(
        bad.stderr.contains("`not a name` is not a secret name"),
        "{}",
        bad.stderr
    );
}

/// Cursor's `gh` entry, checked to be mcpctl's launcher starting `fixture` with secret
/// `github` as `GITHUB_TOKEN`.
fn cursor_launcher_entry(env: &TestEnv, fixture: &str) -> Value {
    let file = env.read_str(".cursor/mcp.json");
    let entry = crate::env::jsonc(file.as_bytes())["mcpServers"]["gh"].clone();
    assert_eq!(entry["command"], mcpctl_path().as_str(), "{file}");
    assert_eq!(
        entry["args"],
        json!(["run", "--secret", "GITHUB_TOKEN=github", "--", fixture])
    );
    entry
}

/// Issue 37 item 4: the launcher entry wraps what it starts for Windows whatever the
/// mcpctl binary is called (a versioned file name, a renamed copy), and reads back as
/// the launcher.
#[test]
fn add_secret_wraps_the_launched_shim_on_windows_whatever_mcpctl_is_called() {
    let env = TestEnv::new();
    for name in ["mcpctl-0.1.0.exe", "renamed-copy.exe"] {
        let copy = env.dir.path().join("copies").join(name);
        std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
        std::fs::copy(env!("CARGO_BIN_EXE_mcpctl"), &copy).unwrap();
        let server = format!("s-{}", &name[..6]);
        let add = env.command_of(
            &copy,
            &[
                "--platform",
                "windows",
                "add",
                &server,
                "-c",
                "cursor",
                "--secret",
                "API_TOKEN=tok",
                "--",
                "npx",
                "-y",
                "pkg",
            ],
        );
        Run::of(add).ok();
        let file = env.read_str(".cursor/mcp.json");
        let entry = &crate::env::jsonc(file.as_bytes())["mcpServers"][&server];
        assert_eq!(entry["command"], copy.display().to_string(), "{file}");
        assert_eq!(
            entry["args"],
            json!([
                "run",
                "--secret",
                "API_TOKEN=tok",
                "--",
                "cmd",
                "/c",
                "npx",
                "-y",
                "pkg"
            ]),
            "{file}"
        );
        // Read back as the launcher: the server behind it and its secret.
        let list = env
            .run(&["--platform", "windows", "list", "-c", "cursor", "--json"])
            .ok()
            .json();
        let row = list
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == server.as_str())
            .unwrap_or_else(|| panic!("{list}"));
        assert_eq!(row["via"], "launcher", "{row}");
    }
}

/// Run through `npx mcpctl`, this binary lives in npx's cache, which npx clears: the
/// launcher entry starts the installed `mcpctl` of the same version instead, and without
/// one nothing is written and the hint says how to install it (issue 26: never npx).
#[cfg(unix)]
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn from_npx_the_launcher_entry_starts_the_installed_mcpctl_never_the_cache() {
    use std::os::unix::fs::PermissionsExt;
    let mut env = TestEnv::new();
    let cached = env
        .home()
        .join(".npm/_npx/9f1c2e/node_modules/mcpctl-linux-x64/bin/mcpctl");
    env.extra_env
        .push(("MCPCTL_EXE".to_owned(), cached.display().to_string()));
    let version = env!("CARGO_PKG_VERSION");
    let fixture = fixture_binary().display().to_string();
    let add = |env: &TestEnv| {
        env.run(&[
            "add",
            "gh",
            "-c",
            "cursor",
            "--secret",
            "GITHUB_TOKEN=github",
            "--",
            &fixture,
        ])
    };
    let refused = add(&env).code(2);
    assert!(refused.stderr.contains("npx's cache"), "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains(&format!("npm install -g mcpctl@{version}")),
        "{}",
        refused.stderr
    );
    assert!(!env.path(".cursor/mcp.json").exists());

    // An older install on PATH is not this version: still refused, and said.
    let installed = env.dir.path().join("bin/mcpctl");
    let script = |says: &str| {
        std::fs::write(&installed, format!("#!/bin/sh\necho 'mcpctl {says}'\n")).unwrap();
        std::fs::set_permissions(&installed, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    script("0.0.0-old");
    let old = add(&env).code(2);
    assert!(old.stderr.contains("is mcpctl 0.0.0-old"), "{}", old.stderr);

    script(version);
    add(&env).ok();
    let file = env.read_str(".cursor/mcp.json");
    let entry = &crate::env::jsonc(file.as_bytes())["mcpServers"]["gh"];
    assert_eq!(entry["command"], installed.display().to_string(), "{file}");
    assert!(!file.contains("_npx"), "{file}");
}

/// `import --store-secrets`: each literal secret of the imported entries goes into the
/// store (as `secret adopt` moves it), the client entries become the launcher form in
/// place, and the manifest names the secret; `apply` right after changes nothing. Off a
/// terminal, without the flag, import only says the flag exists.
#[test]
#[ignore = "needs .ci/keyring.sh"]
fn import_store_secrets_moves_literals_into_the_store_and_names_them_in_the_manifest() {
    let env = keyring_env();
    let value = "ghp_importThisLiteral0123456789abcdefXY";
    let (cursor, _codex) = literal_token_files(&env, value);

    let hinted = env
        .run(&["import", "-c", "cursor,codex", "--manifest", "plain.toml"])
        .ok();
    assert!(
        hinted.stderr.contains("mcpctl import --store-secrets"),
        "{}",
        hinted.stderr
    );
    assert_eq!(env.read_str(".cursor/mcp.json"), cursor);
    assert_eq!(
        env.run(&["secret", "list", "--json"]).ok().json(),
        json!([])
    );

    let run = env
        .run(&[
            "import",
            "-c",
            "cursor,codex",
            "--manifest",
            "mcpctl.toml",
            "--store-secrets",
        ])
        .ok();
    let manifest = env.read_str("mcpctl.toml");
    assert!(
        manifest.contains("secrets = { GITHUB_TOKEN = \"gh\" }"),
        "{manifest}"
    );
    assert!(!manifest.contains(value), "{manifest}");
    let got = env.run(&["secret", "get", "gh", "--reveal"]).ok();
    assert_eq!(got.stdout.trim_end(), value);
    let fixture = fixture_binary().display().to_string();
    let file = env.read_str(".cursor/mcp.json");
    let entry = &crate::env::jsonc(file.as_bytes())["mcpServers"]["gh"];
    assert_eq!(entry["command"], mcpctl_path().as_str(), "{file}");
    assert_eq!(
        entry["args"],
        json!(["run", "--secret", "GITHUB_TOKEN=gh", "--", fixture])
    );
    assert_eq!(entry["env"], json!({"LOG": "debug"}));
    assert!(file.starts_with("{\n  // my servers\n"), "{file}");
    assert!(
        env.read_str(".codex/config.toml")
            .contains("GITHUB_TOKEN=gh"),
        "codex"
    );
    // The manifest and the files agree.
    env.run(&["plan", "--check", "--manifest", "mcpctl.toml"])
        .ok();
    for r in [&hinted, &run] {
        assert!(!r.stdout.contains(value) && !r.stderr.contains(value));
    }
    backup_is_said(&env, value, &run.stderr);
}

/// On a terminal, `import` without `--store-secrets` asks once when it finds literal
/// secrets; yes moves them as the flag does.
#[cfg(unix)]
#[test]
#[ignore = "needs .ci/keyring.sh"]
fn import_on_a_terminal_asks_once_to_store_the_literals() {
    use std::time::{Duration, Instant};

    use crate::registry::pty;
    let env = keyring_env();
    let value = "ghp_importAskedLiteral0123456789abcdefX";
    literal_token_files(&env, value);
    let mut terminal = pty::open();
    let seen = pty::collect(&terminal.master);
    let mut child = env
        .command(&["import", "-c", "cursor,codex", "--manifest", "mcpctl.toml"])
        .stdin(Stdio::from(terminal.slave.try_clone().unwrap()))
        .stderr(Stdio::from(terminal.slave.try_clone().unwrap()))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    pty::answer(
        &seen,
        &mut terminal.master,
        "move them into mcpctl's secret store",
        "y",
    );
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            panic!("import did not finish:\n{}", seen.lock().unwrap());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let shown = seen.lock().unwrap().clone();
    assert!(status.success(), "{shown}");
    assert_eq!(
        shown.matches("[Y/n]").count(),
        1,
        "asked more than once: {shown}"
    );
    assert!(!shown.contains(value), "{shown}");
    let manifest = env.read_str("mcpctl.toml");
    assert!(
        manifest.contains("secrets = { GITHUB_TOKEN = \"gh\" }"),
        "{manifest}"
    );
    assert!(
        env.read_str(".cursor/mcp.json").contains("GITHUB_TOKEN=gh"),
        "{shown}"
    );
}

/// `add -e TOKEN=<literal>` writes the literal (as asked) and says how to keep it in the
/// store instead: `mcpctl secret set NAME` and `--secret TOKEN=NAME` (a header:
/// `{secret:NAME}`), not an export.
#[test]
fn add_with_a_literal_secret_points_at_the_store() {
    let env = TestEnv::new();
    let run = env
        .run(&[
            "add",
            "gh",
            "-c",
            "cursor",
            "-e",
            "GITHUB_TOKEN=ghp_literalForAddHint0123456789abcdefXY",
            "--",
            "npx",
            "-y",
            "server-github",
        ])
        .ok();
    assert!(
        run.stderr.contains("mcpctl secret set gh"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("--secret GITHUB_TOKEN=gh"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("export"), "{}", run.stderr);
    let run = env
        .run(&[
            "add",
            "docs",
            "-c",
            "cursor",
            "--url",
            "https://example.com/mcp",
            "-H",
            "Authorization: Bearer sk_live_literalForAddHint0123456789",
        ])
        .ok();
    assert!(
        run.stderr
            .contains("-H 'Authorization: Bearer {secret:docs}'"),
        "{}",
        run.stderr
    );
}

/// Issue 39: after a secret moves into the store, the backups of the files it was in
/// still held it in plaintext. `backups` marks them; `secret adopt --yes` (and `backups
/// --scrub-secrets` later) keeps them again with the value replaced by the stored
/// secret's name, as the file has it now; and `undo` still walks back through every
/// command to a file that works: undoing the adopt leaves the entry naming the stored
/// secret, undoing the `add` before it takes the entry out.
#[test]
#[ignore = "needs .ci/keyring.sh"]
fn adopting_with_yes_scrubs_the_value_out_of_every_backup_and_undo_still_works() {
    let env = keyring_env();
    let value = "ghp_scrubThisLiteral0123456789abcdefXYZ";
    let fixture = fixture_binary().display().to_string();
    let first = "{\n  // mine\n  \"mcpServers\": {\n    \"other\": { \"command\": \"npx\", \"args\": [\"-y\", \"other\"] }\n  }\n}\n";
    env.write(".cursor/mcp.json", first.as_bytes());
    let token = format!("GITHUB_TOKEN={value}");
    env.run(&["add", "gh", "-c", "cursor", "-e", &token, "--", &fixture])
        .ok();
    let added = env.read_str(".cursor/mcp.json");
    assert!(added.contains(value), "{added}");
    // A second version holding it: the entry edited by mcpctl again.
    env.run(&[
        "add",
        "gh",
        "-c",
        "cursor",
        "-e",
        &token,
        "-e",
        "LOG=debug",
        "--force",
        "--",
        &fixture,
    ])
    .ok();
    let edited = env.read_str(".cursor/mcp.json");
    assert_ne!(edited, added);

    // `backups` marks the version that holds the plaintext, never printing it.
    let listed = env.run(&["backups", "-c", "cursor", "--json"]).ok();
    let rows = listed.json();
    let marked: Vec<&Value> = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["secrets"].as_array().is_some_and(|s| !s.is_empty()))
        .collect();
    assert_eq!(marked.len(), 1, "{rows:#}");
    assert_eq!(marked[0]["secrets"], json!(["gh: env GITHUB_TOKEN"]));
    assert!(!listed.stdout.contains(value));
    let human = env.run(&["backups", "-c", "cursor"]).ok();
    assert!(
        human.stdout.contains("plaintext secret"),
        "{}",
        human.stdout
    );
    assert!(
        human.stderr.contains("--scrub-secrets") || human.stdout.contains("--scrub-secrets"),
        "{}{}",
        human.stdout,
        human.stderr
    );

    let adopt = env.run(&["secret", "adopt", "-c", "cursor", "--yes"]).ok();
    assert!(
        adopt.stderr.contains("scrubbed 2 backups"),
        "{}",
        adopt.stderr
    );
    assert!(!adopt.stdout.contains(value) && !adopt.stderr.contains(value));
    let adopted = env.read_str(".cursor/mcp.json");
    assert!(adopted.contains("GITHUB_TOKEN=gh"), "{adopted}");
    // The value is in no file under the home: not a client file, not a backup, not a
    // journal record.
    assert_eq!(files_holding(env.dir.path(), value), Vec::<String>::new());
    let rows = env.run(&["backups", "-c", "cursor", "--json"]).ok().json();
    assert!(
        rows.as_array()
            .unwrap()
            .iter()
            .all(|r| r["secrets"] == json!([])),
        "{rows:#}"
    );
    // Every kept version still proves its bytes (`restore` and `undo` take it).
    assert_eq!(rows.as_array().unwrap().len(), 3, "{rows:#}");

    // Undo of the adopt: the entry keeps naming the stored secret (the plaintext is in
    // no version mcpctl keeps), and the file is one mcpctl can read and start.
    let undo = env.run(&["undo"]).ok();
    assert!(undo.stderr.contains("secret adopt"), "{}", undo.stderr);
    let after_undo = env.read_str(".cursor/mcp.json");
    assert!(after_undo.contains("GITHUB_TOKEN=gh"), "{after_undo}");
    assert!(!after_undo.contains(value));
    // The `add --force` before it: back to the first `add`'s shape, scrubbed.
    let undo = env.run(&["undo"]).ok();
    assert!(undo.stderr.contains("undid"), "{}", undo.stderr);
    let back = env.read_str(".cursor/mcp.json");
    assert!(
        back.contains("GITHUB_TOKEN=gh") && !back.contains("LOG"),
        "{back}"
    );
    // And the first `add`: the file as it was before mcpctl wrote it, byte for byte.
    let undo = env.run(&["undo"]).ok();
    assert!(undo.stderr.contains("undid"), "{}", undo.stderr);
    assert_eq!(env.read_str(".cursor/mcp.json"), first);
    // Redo brings the scrubbed versions back, never the plaintext.
    env.run(&["redo"]).ok();
    env.run(&["redo"]).ok();
    env.run(&["redo"]).ok();
    assert_eq!(env.read_str(".cursor/mcp.json"), adopted);
    assert_eq!(files_holding(env.dir.path(), value), Vec::<String>::new());
    let list = env.run(&["list", "-c", "cursor", "--json"]).ok();
    assert!(list.stdout.contains("gh"), "{}", list.stdout);
}

/// `check --fix --secrets` without `--yes` (no terminal to ask on) leaves the backup and
/// says how; `backups --scrub-secrets` then scrubs it (`--dry-run` only lists it), and
/// `undo` of the fix still succeeds.
#[test]
#[ignore = "needs .ci/keyring.sh"]
fn backups_scrub_secrets_scrubs_what_a_fix_left_and_undo_still_works() {
    let env = keyring_env();
    let value = "ghp_scrubLaterLiteral0123456789abcdefXYZ";
    let fixture = fixture_binary().display().to_string();
    let original = format!(
        "{{\n  \"mcpServers\": {{\n    \"gh\": {{\n      \"command\": \"{fixture}\",\n      \"env\": {{ \"GITHUB_TOKEN\": \"{value}\" }}\n    }}\n  }}\n}}\n"
    );
    env.write("proj/.mcp.json", original.as_bytes());
    let project = env.path("proj").display().to_string();
    let fixed = env
        .run(&["--project", &project, "check", "--fix", "--secrets"])
        .ok();
    assert!(fixed.stderr.contains("--scrub-secrets"), "{}", fixed.stderr);
    let now = env.read_str("proj/.mcp.json");
    assert_eq!(files_holding(env.dir.path(), value).len(), 1);

    let dry = env
        .run(&[
            "--project",
            &project,
            "backups",
            "--scrub-secrets",
            "--dry-run",
            "--json",
        ])
        .ok();
    let rows = dry.json();
    assert_eq!(rows.as_array().unwrap().len(), 1, "{rows:#}");
    assert_eq!(rows[0]["action"], "would scrub");
    assert_eq!(
        rows[0]["secrets"],
        json!(["gh: env GITHUB_TOKEN → secret gh"])
    );
    assert_eq!(files_holding(env.dir.path(), value).len(), 1);
    let scrub = env
        .run(&["--project", &project, "backups", "--scrub-secrets"])
        .ok();
    assert!(scrub.stdout.contains("scrubbed"), "{}", scrub.stdout);
    assert_eq!(files_holding(env.dir.path(), value), Vec::<String>::new());
    for r in [&fixed, &dry, &scrub] {
        assert!(!r.stdout.contains(value) && !r.stderr.contains(value));
    }
    let again = env
        .run(&["--project", &project, "backups", "--scrub-secrets"])
        .ok();
    assert!(
        again.stdout.contains("nothing to scrub") || again.stderr.contains("nothing to scrub"),
        "{}",
        again.stdout
    );
    // Undo of the fix succeeds and leaves the entry naming the stored secret.
    let undo = env.run(&["--project", &project, "undo"]).ok();
    assert!(undo.stderr.contains("undid"), "{}", undo.stderr);
    assert_eq!(env.read_str("proj/.mcp.json"), now);
}

/// Issue 39 (G11): `secret rm` of a secret that entries still name says which entries
/// (they cannot start without it) and how to set it again; `add --secret` of a secret
/// the store does not hold says so at once.
#[test]
fn secret_rm_names_the_entries_that_still_use_it_and_add_warns_of_an_unset_secret() {
    let env = TestEnv::new();
    let add = env
        .run(&[
            "add",
            "gh",
            "-c",
            "cursor",
            "--secret",
            "GITHUB_TOKEN=nosuch",
            "--",
            "npx",
            "-y",
            "server-github",
        ])
        .ok();
    assert!(
        add.stderr
            .contains("secret `nosuch` is not in the store yet")
            && add.stderr.contains("mcpctl secret set nosuch"),
        "{}",
        add.stderr
    );
    env.run(&["secret", "set", "gh", "--command", "printf tok"])
        .ok();
    env.run(&[
        "add",
        "gh",
        "-c",
        "cursor,codex",
        "--force",
        "--secret",
        "GITHUB_TOKEN=gh",
        "--",
        "npx",
        "-y",
        "server-github",
    ])
    .ok();
    env.run(&[
        "add",
        "docs",
        "-c",
        "cursor",
        "--url",
        "https://example.com/mcp",
        "-H",
        "Authorization: Bearer {secret:gh}",
    ])
    .ok();
    env.run(&["add", "other", "-c", "cursor", "--", "npx", "other"])
        .ok();
    let rm = env.run(&["secret", "rm", "gh"]).ok();
    // Paths as this OS writes them, compared in one spelling (`~\.cursor\…` on Windows).
    let words = rm
        .stderr
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('\\', "/");
    assert!(words.contains("still name secret `gh`"), "{}", rm.stderr);
    for user in [
        "`gh` (cursor, ~/.cursor/mcp.json)",
        "`gh` (codex, ~/.codex/config.toml)",
        "`docs` (cursor, ~/.cursor/mcp.json)",
    ] {
        assert!(words.contains(user), "{user}: {}", rm.stderr);
    }
    assert!(!words.contains("`other`"), "{}", rm.stderr);
    assert!(words.contains("mcpctl secret set gh"), "{}", rm.stderr);
    // A secret no entry names is removed without a word of warning.
    env.run(&["secret", "set", "spare", "--command", "printf x"])
        .ok();
    let quiet = env.run(&["secret", "rm", "spare"]).ok();
    assert!(!quiet.stderr.contains("warning"), "{}", quiet.stderr);
}

/// Issue 39 (G11): a command provider that prints several lines (a password manager's
/// whole record) is refused, saying how many lines and how to print only the secret,
/// never printing what it printed.
#[test]
#[cfg(unix)] // the provider is `printf`, a Unix program
fn a_provider_that_prints_several_lines_is_refused_with_the_way_to_pick_one() {
    let env = TestEnv::new();
    env.run(&[
        "secret",
        "set",
        "pw",
        "--command",
        "printf 'tok3n-value\\nlogin: me\\nurl: https://x\\n'",
    ])
    .ok();
    let got = env.run(&["secret", "get", "pw", "--reveal"]).code(2);
    assert!(got.stderr.contains("printed 3 lines"), "{}", got.stderr);
    assert!(got.stderr.contains("| head -n 1"), "{}", got.stderr);
    assert!(!got.stdout.contains("tok3n-value"), "{}", got.stdout);
    assert!(!got.stderr.contains("tok3n-value\n"), "{}", got.stderr);
    // One line (with its final newline) is the value.
    env.run(&[
        "secret",
        "set",
        "one",
        "--command",
        "printf 'tok3n-value\\n'",
    ])
    .ok();
    let one = env.run(&["secret", "get", "one", "--reveal"]).ok();
    assert_eq!(one.stdout.trim_end(), "tok3n-value");
}

/// `command` run to its end, or killed after `limit` (then `None`): stdout, stderr, the
/// exit code and how long it took.
#[cfg(unix)]
fn run_bounded(
    mut command: Command,
    limit: std::time::Duration,
) -> Option<(Run, std::time::Duration)> {
    let started = std::time::Instant::now();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    loop {
        if child.try_wait().unwrap().is_some() {
            let took = started.elapsed();
            let output = child.wait_with_output().unwrap();
            return Some((
                Run {
                    code: output.status.code().unwrap_or(-1),
                    stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
                    stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
                },
                took,
            ));
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Issue 39 (G8): the launcher on a session bus that takes the connection and never
/// answers (a socket nobody reads) stops waiting after `MCPCTL_KEYRING_TIMEOUT` seconds
/// and says the Secret Service did not answer, naming the bus; it used to hang for ever,
/// and with it the client that started the server.
#[cfg(unix)]
#[test]
fn the_launcher_stops_waiting_for_a_bus_that_never_answers_and_says_so() {
    let mut env = TestEnv::new();
    let socket = env.dir.path().join("bus");
    // Listening, never accepting: the connection is made and nothing ever answers.
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let address = format!("unix:path={}", socket.display());
    env.extra_env
        .push(("DBUS_SESSION_BUS_ADDRESS".to_owned(), address.clone()));
    env.extra_env
        .push(("MCPCTL_KEYRING_TIMEOUT".to_owned(), "1".to_owned()));
    let command = env.command(&["run", "--secret", "TOKEN=gh", "--", "true"]);
    let (run, took) = run_bounded(command, std::time::Duration::from_secs(20))
        .expect("mcpctl run still waits for the bus after 20 s");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    let words = run.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("the Secret Service did not answer within 1 s"),
        "{}",
        run.stderr
    );
    assert!(words.contains(&address), "{}", run.stderr);
    assert!(words.contains("MCPCTL_KEYRING_TIMEOUT"), "{}", run.stderr);
    assert!(
        !words.contains("no Secret Service answers"),
        "{}",
        run.stderr
    );
}

/// Issue 39 (G8), with a real Secret Service on a bus of its own (`.ci/keyring.sh`): a
/// locked keyring is said to be locked, with how to unlock it (not "no Secret
/// Service"); and with the bus daemon stopped (SIGSTOP) the launcher stops waiting and
/// says the bus hangs.
#[cfg(unix)]
#[test]
#[ignore = "needs .ci/keyring.sh"]
fn a_locked_keyring_is_said_locked_and_a_stopped_bus_is_not_waited_for() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let started = Command::new("bash")
        .arg(root.join(".ci/keyring.sh"))
        .stderr(Stdio::null())
        .output()
        .unwrap();
    let exports = String::from_utf8_lossy(&started.stdout).into_owned();
    let value_of = |name: &str| {
        exports.lines().find_map(|l| {
            l.strip_prefix(&format!("export {name}="))
                .map(|v| v.replace('\\', ""))
        })
    };
    let Some(address) = value_of("DBUS_SESSION_BUS_ADDRESS") else {
        crate::peer::missing("no Secret Service could be started (.ci/keyring.sh)");
    };
    let pids: Vec<String> = value_of("MCPCTL_CI_KEYRING_PIDS")
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    /// Ends the test's own bus and keyring daemons however the test ends.
    struct Daemons(Vec<String>);
    impl Drop for Daemons {
        fn drop(&mut self) {
            for pid in &self.0 {
                let _ = Command::new("kill").args(["-CONT", pid]).status();
                let _ = Command::new("kill").arg(pid).status();
            }
        }
    }
    let daemons = Daemons(pids);
    let mut env = TestEnv::new();
    env.extra_env
        .push(("DBUS_SESSION_BUS_ADDRESS".to_owned(), address.clone()));
    env.extra_env.push((
        "MCPCTL_KEYRING_SERVICE".to_owned(),
        "mcpctl-test-locked".to_owned(),
    ));
    env.extra_env
        .push(("MCPCTL_KEYRING_TIMEOUT".to_owned(), "3".to_owned()));
    let set = set_secret(&env, "gh", "ghp_lockedKeyring0123456789abcdefXYZ");
    assert_eq!(set.code, 0, "{}", set.stderr);

    // Lock the collection; this daemon has no prompter to ask for the password.
    let locked = Command::new("dbus-send")
        .env("DBUS_SESSION_BUS_ADDRESS", &address)
        .args([
            "--session",
            "--print-reply",
            "--dest=org.freedesktop.secrets",
            "/org/freedesktop/secrets",
            "org.freedesktop.Secret.Service.Lock",
            "array:objpath:/org/freedesktop/secrets/collection/login",
        ])
        .output()
        .unwrap();
    assert!(locked.status.success(), "{locked:?}");
    let command = env.command(&["run", "--secret", "TOKEN=gh", "--", "true"]);
    let (run, _) = run_bounded(command, std::time::Duration::from_secs(30))
        .expect("mcpctl run still waits for a locked keyring after 30 s");
    assert_eq!(run.code, 2, "{}", run.stderr);
    let words = run.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("is locked"), "{}", run.stderr);
    assert!(words.contains("unlock it"), "{}", run.stderr);
    assert!(
        !words.contains("no Secret Service answers"),
        "{}",
        run.stderr
    );

    // The bus daemon stopped: it takes connections into its backlog and never answers.
    let bus_pid = daemons.0.first().cloned().unwrap_or_default();
    assert!(
        Command::new("kill")
            .args(["-STOP", &bus_pid])
            .status()
            .unwrap()
            .success()
    );
    let command = env.command(&["run", "--secret", "TOKEN=gh", "--", "true"]);
    let outcome = run_bounded(command, std::time::Duration::from_secs(30));
    let _ = Command::new("kill").args(["-CONT", &bus_pid]).status();
    let (run, took) = outcome.expect("mcpctl run still waits for a stopped bus after 30 s");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(took < std::time::Duration::from_secs(15), "{took:?}");
    let words = run.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("the Secret Service did not answer within 3 s"),
        "{}",
        run.stderr
    );
    drop(daemons);
}
