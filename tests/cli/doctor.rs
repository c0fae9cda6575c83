//! Integration tests for `mcpctl doctor`: real configs pointing at the rmcp-based
//! `fixture-server` (and real registry servers when `.ci/peers.sh` installed them).

use std::process::Command;

use serde_json::{Value, json};

use crate::env::TestEnv;

use crate::fixture_server;

/// The fixture-server binary (shared with tools.rs).
pub(crate) fn fixture() -> &'static str {
    fixture_server::fixture_binary().to_str().unwrap()
}

pub(crate) fn cursor_config(env: &TestEnv, servers: Value) {
    env.write(
        ".cursor/mcp.json",
        serde_json::to_string_pretty(&json!({ "mcpServers": servers }))
            .unwrap()
            .as_bytes(),
    );
}

pub(crate) fn result<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {report}"))
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn doctor_reports_ok_failures_and_warnings_per_server() {
    let env = TestEnv::new();
    let bin = fixture();
    cursor_config(
        &env,
        json!({
            "good": {"command": bin, "args": []},
            "banner": {"command": bin, "args": ["banner"]},
            "dies": {"command": bin, "args": ["exit=3"]},
            "silent": {"command": bin, "args": ["silent"]},
            "missing": {"command": "definitely-not-installed-mcp", "args": []},
            "script": {"command": "node", "args": ["/nonexistent/server/index.js"]},
            "off": {"command": bin, "disabled": true}
        }),
    );
    let run = env
        .run(&["doctor", "-c", "cursor", "--json", "--timeout", "3"])
        .code(1);
    let report = run.json();
    let good = result(&report, "good");
    assert_eq!(good["status"], "ok");
    assert_eq!(good["server_name"], "fixture-server");
    assert_eq!(good["protocol_version"], "2025-11-25");
    assert_eq!(good["tools"], 2);
    assert_eq!(result(&report, "banner")["status"], "warn");
    let dies = result(&report, "dies");
    assert_eq!(dies["status"], "fail");
    assert!(dies["error"].as_str().unwrap().contains("code 3"), "{dies}");
    let silent = result(&report, "silent");
    assert!(
        silent["error"].as_str().unwrap().contains("timed out"),
        "{silent}"
    );
    assert!(
        result(&report, "missing")["error"]
            .as_str()
            .unwrap()
            .contains("not found")
    );
    // `node` is in the Linux machine's /usr/bin; on Windows the command is not found.
    if cfg!(unix) {
        assert!(
            result(&report, "script")["error"]
                .as_str()
                .unwrap()
                .contains("does not exist")
        );
    }
    assert_eq!(result(&report, "off")["status"], "skipped");
    assert_eq!(report["summary"]["ok"], 1);
    assert_eq!(report["summary"]["fail"], 4);
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn doctor_human_output_and_exit_codes() {
    let env = TestEnv::new();
    let bin = fixture();
    cursor_config(&env, json!({ "good": {"command": bin} }));
    let run = env.run(&["doctor", "-c", "cursor"]).ok();
    assert!(
        run.stdout.contains("✔ cursor/good") && run.stdout.contains("fixture-server 0.0.0"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("0 failed, 0 warnings, 1 ok"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("this starts the commands"),
        "{}",
        run.stderr
    );

    cursor_config(
        &env,
        json!({ "banner": {"command": bin, "args": ["banner"]} }),
    );
    env.run(&["doctor", "-c", "cursor"]).ok();
    env.run(&["doctor", "-c", "cursor", "--strict"]).code(1);
}

#[test]
fn doctor_no_spawn_starts_nothing() {
    let env = TestEnv::new();
    let marker = env.path("started");
    let script = env.write(
        "server.sh",
        format!("#!/bin/sh\ntouch '{}'\n", marker.display()).as_bytes(),
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    cursor_config(&env, json!({ "s": {"command": script} }));
    let run = env
        .run(&["doctor", "-c", "cursor", "--no-spawn", "--json"])
        .ok();
    assert_eq!(result(&run.json(), "s")["status"], "ok");
    assert!(!marker.exists(), "--no-spawn started the server");
}

#[test]
fn doctor_flags_windows_wrapping_and_unset_variables() {
    let env = TestEnv::new();
    cursor_config(
        &env,
        json!({ "mem": {"command": "npx", "args": ["-y", "x"], "env": {"T": "${MCPCTL_TEST_UNSET}"}} }),
    );
    let run = env.run(&[
        "--platform",
        "windows",
        "doctor",
        "-c",
        "cursor",
        "--no-spawn",
        "--json",
    ]);
    let report = run.json();
    let checks = result(&report, "mem")["checks"].to_string();
    assert!(
        checks.contains("without `cmd /c` will fail on Windows"),
        "{checks}"
    );
    assert!(checks.contains("MCPCTL_TEST_UNSET"), "{checks}");
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn doctor_identical_entries_in_two_clients_start_once() {
    let env = TestEnv::new();
    let bin = fixture();
    let pids = env.path("pids");
    cursor_config(
        &env,
        json!({ "same": {"command": bin, "env": {"FIXTURE_PID_FILE": pids.to_str().unwrap()}} }),
    );
    env.write(
        ".codeium/windsurf/mcp_config.json",
        serde_json::to_string(&json!({"mcpServers": { "same": {"command": bin, "env": {"FIXTURE_PID_FILE": pids.to_str().unwrap()}} }})).unwrap().as_bytes(),
    );
    let run = env.run(&["doctor", "-c", "cursor,windsurf", "--json"]).ok();
    let report = run.json();
    assert_eq!(report["summary"]["ok"], 2);
    let started = std::fs::read_to_string(&pids).unwrap();
    assert_eq!(
        started.lines().count(),
        1,
        "started more than once: {started}"
    );
}

#[test]
fn doctor_unparsable_file_is_a_failure_not_a_crash() {
    let env = TestEnv::new();
    env.write(".cursor/mcp.json", b"{ \"mcpServers\": { ");
    let run = env.run(&["doctor", "-c", "cursor", "--json"]).code(1);
    assert_eq!(run.json()["results"][0]["status"], "fail");
}

#[test]
fn doctor_fails_an_entry_the_client_would_ignore() {
    // Windsurf reads `serverUrl`; an entry with `url` never reaches the server, however
    // healthy the server is, so doctor must not call it ok.
    let env = TestEnv::new();
    env.write(
        ".codeium/windsurf/mcp_config.json",
        br#"{"mcpServers":{"web":{"url":"https://mcp.example.com/mcp"},"fine":{"serverUrl":"https://mcp.example.com/mcp"}}}"#,
    );
    let run = env
        .run(&["doctor", "-c", "windsurf", "--no-spawn", "--json"])
        .code(1);
    let report = run.json();
    let web = result(&report, "web");
    assert_eq!(web["status"], "fail");
    assert!(web["error"].as_str().unwrap().contains("MCP201"), "{web}");
    assert_eq!(result(&report, "fine")["status"], "ok");
}

#[cfg(unix)]
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn interrupting_doctor_leaves_no_server_behind() {
    // The servers run in process groups of their own, so Ctrl-C at the terminal does not
    // reach them; doctor must end them itself when it is interrupted.
    let env = TestEnv::new();
    let bin = fixture();
    let pids = env.path("pids");
    cursor_config(
        &env,
        json!({ "hang": {"command": bin, "args": ["silent", "spawn-child"], "env": {"FIXTURE_PID_FILE": pids.to_str().unwrap()}} }),
    );
    let mut doctor = env
        .command(&["doctor", "-c", "cursor", "--timeout", "120"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while std::fs::read_to_string(&pids).map_or(true, |t| t.lines().count() < 2) {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "fixture never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = Command::new("kill")
        .args(["-INT", &doctor.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    doctor.wait().unwrap();
    for pid in std::fs::read_to_string(&pids).unwrap().lines() {
        let pid: i32 = pid.parse().unwrap();
        assert!(
            !fixture_server::alive(pid),
            "server process {pid} outlived the interrupted doctor"
        );
    }
}

#[test]
fn doctor_skips_switches_and_extension_servers() {
    // Zed's extension-provided servers and OpenCode's `{"enabled": false}` switches have
    // no command or URL of their own; they are not broken entries.
    let env = TestEnv::new();
    env.write(
        crate::env::ZED,
        br#"{ "context_servers": { "postgres-ext": { "source": "extension", "settings": { "url": "x" } } } }"#,
    );
    let run = env.run(&["doctor", "-c", "zed", "--json"]).ok();
    assert_eq!(result(&run.json(), "postgres-ext")["status"], "skipped");
    let list = env.run(&["list", "-c", "zed", "--json"]).ok();
    assert!(list.json()[0].get("error").is_none(), "{}", list.stdout);
}

/// A TCP port nobody listens on right now.
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Kills the server when the test ends, however it ends.
/// Wait (up to 30 s) until something listens on the loopback `port`.
pub(crate) fn wait_listening(port: u16) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < until,
            "nothing listened on {port}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

pub(crate) struct KillOnDrop(pub(crate) std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
#[ignore = "needs .ci/peers.sh"]
fn doctor_against_real_servers_from_the_registries() {
    // End to end through the binary: real servers from npm and PyPI (installed into
    // .cache/peers by .ci/peers.sh), configured in two clients, stdio and Streamable HTTP.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let npm = root.join(".cache/peers/npm/node_modules/@modelcontextprotocol");
    let everything = npm.join("server-everything/dist/index.js");
    let memory = npm.join("server-memory/dist/index.js");
    let python = root.join(".cache/peers/venv/bin/python");
    if !everything.is_file() || !memory.is_file() || !python.is_file() {
        crate::peer::missing("registry servers are not installed (run .ci/peers.sh)");
    }
    let port = free_port();
    let http = KillOnDrop(
        Command::new("node")
            .arg("--require")
            .arg(root.join("tests/fixtures/servers/loopback.cjs"))
            .arg(&everything)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < until,
            "server-everything never listened"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let env = TestEnv::new();
    let node = |script: &std::path::Path, args: &[&str]| {
        let mut all = vec![script.to_str().unwrap().to_owned()];
        all.extend(args.iter().map(|a| (*a).to_owned()));
        json!({"type": "stdio", "command": "node", "args": all})
    };
    env.write(
        ".claude.json",
        serde_json::to_string_pretty(&json!({"mcpServers": {
            "everything": node(&everything, &["stdio"]),
            "memory": node(&memory, &[]),
            "python": {"type": "stdio", "command": python.to_str().unwrap(), "args": [root.join("tests/fixtures/servers/python_mcp_server.py").to_str().unwrap()]}
        }}))
        .unwrap()
        .as_bytes(),
    );
    // The official Python SDK over Streamable HTTP too: the modern era on both transports.
    let py_port = free_port();
    let mut py_http = KillOnDrop(
        Command::new(&python)
            .arg(root.join("tests/fixtures/servers/python_mcp_server.py"))
            .args(["streamable-http", &py_port.to_string()])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", py_port)).is_err() {
        assert!(
            py_http.0.try_wait().unwrap().is_none() && std::time::Instant::now() < until,
            "the Python SDK server never listened"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    env.write(
        crate::env::VSCODE,
        serde_json::to_string_pretty(&json!({"servers": {
            "everything-http": {"type": "http", "url": format!("http://127.0.0.1:{port}/mcp")},
            "python-http": {"type": "http", "url": format!("http://127.0.0.1:{py_port}/mcp")}
        }}))
        .unwrap()
        .as_bytes(),
    );
    let mut run_env = env.command(&[
        "doctor",
        "-c",
        "claude-code,vscode",
        "--json",
        "--timeout",
        "60",
    ]);
    run_env.env("PATH", std::env::var("PATH").unwrap());
    let output = run_env.output().unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    // Both protocol eras: the TypeScript SDK speaks the handshake era, the Python SDK
    // (mcp 2.x) the modern one, over stdio and HTTP alike.
    for (name, era) in [
        ("everything", "handshake"),
        ("memory", "handshake"),
        ("python", "modern"),
        ("everything-http", "handshake"),
        ("python-http", "modern"),
    ] {
        let r = result(&report, name);
        assert!(r["status"] == "ok" || r["status"] == "warn", "{name}: {r}");
        assert!(r["tools"].as_u64().is_some_and(|n| n > 0), "{name}: {r}");
        assert!(r["tokens"].as_u64().is_some_and(|n| n > 0), "{name}: {r}");
        assert!(r["server_name"].is_string(), "{name}: {r}");
        assert_eq!(r["protocol_era"], era, "{name}: {r}");
    }
    drop(py_http);
    drop(http);
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
#[cfg(unix)] // its premise is that `cmd` does not exist here
fn doctor_with_platform_windows_starts_wrapped_entries_unwrapped_here() {
    // `cmd` does not exist on Linux: checking a Windows config here starts what `cmd /c`
    // would run.
    let env = TestEnv::new();
    let bin = fixture();
    cursor_config(
        &env,
        json!({ "w": {"command": "cmd", "args": ["/c", bin]} }),
    );
    let run = env
        .run(&["--platform", "windows", "doctor", "-c", "cursor", "--json"])
        .ok();
    let report = run.json();
    let w = result(&report, "w");
    assert_eq!(w["status"], "ok", "{w}");
    assert_eq!(w["server_name"], "fixture-server");
    assert!(w["checks"].to_string().contains("started here as"), "{w}");
    // Without --platform windows the same entry cannot start on this OS.
    let run = env
        .run(&["doctor", "-c", "cursor", "--json", "--no-spawn"])
        .code(1);
    assert_eq!(result(&run.json(), "w")["status"], "fail");
}

/// Issue 37 item 1: real Windows spells the search path `Path`. With it (and no `PATH`),
/// `--platform windows` finds a server's command and the clients found by their command.
#[test]
fn windows_path_spelled_path_finds_commands_and_clients() {
    let env = TestEnv::new();
    env.on_path("my-mcp-server");
    env.on_path("gemini");
    cursor_config(&env, json!({ "s": {"command": "my-mcp-server"} }));
    let run = |args: &[&str]| {
        let mut command = env.command(args);
        command
            .env_remove("PATH")
            .env("Path", env.dir.path().join("bin"));
        crate::env::Run::of(command)
    };
    let report = run(&[
        "--platform",
        "windows",
        "doctor",
        "-c",
        "cursor",
        "--json",
        "--no-spawn",
    ])
    .json();
    let s = result(&report, "s");
    assert!(
        s["checks"].to_string().contains("`my-mcp-server` found"),
        "{s}"
    );
    let clients = run(&["--platform", "windows", "clients", "--json"])
        .ok()
        .json();
    let gemini = clients
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "gemini-cli")
        .unwrap_or_else(|| panic!("{clients}"));
    assert_eq!(gemini["detected"], true, "{gemini}");
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn doctor_names_the_scope_that_wins() {
    // Claude Code: local (projects.<dir> in ~/.claude.json) beats project (.mcp.json)
    // beats user (~/.claude.json mcpServers).
    let env = TestEnv::new();
    let dir = env.home().display().to_string();
    let server = json!({"command": fixture(), "args": []});
    env.write(
        ".claude.json",
        serde_json::to_string_pretty(&json!({
            "mcpServers": {"twice": server, "thrice": server},
            "projects": {dir: {"mcpServers": {"thrice": server}}}
        }))
        .unwrap()
        .as_bytes(),
    );
    env.write(
        ".mcp.json",
        serde_json::to_string_pretty(&json!({"mcpServers": {"twice": server, "thrice": server}}))
            .unwrap()
            .as_bytes(),
    );
    let run = env
        .run(&["doctor", "-c", "claude-code", "--no-spawn", "--json"])
        .ok();
    let report = run.json();
    let scopes = |name: &str| -> Vec<(String, String, String)> {
        report["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["name"] == name)
            .map(|r| {
                let check = r["checks"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|c| c["check"] == "scopes")
                    .unwrap_or_else(|| panic!("no scopes check in {r}"));
                (
                    r["scope"].as_str().unwrap().to_owned(),
                    check["status"].as_str().unwrap().to_owned(),
                    check["message"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let mut twice = scopes("twice");
    twice.sort();
    assert_eq!(twice.len(), 2, "{twice:?}");
    assert_eq!(
        (twice[0].0.as_str(), twice[0].1.as_str()),
        ("project", "ok")
    );
    assert_eq!((twice[1].0.as_str(), twice[1].1.as_str()), ("user", "warn"));
    assert!(twice[1].2.ends_with("project wins"), "{twice:?}");
    let mut thrice = scopes("thrice");
    thrice.sort();
    let verdicts: Vec<(&str, &str)> = thrice
        .iter()
        .map(|(scope, status, _)| (scope.as_str(), status.as_str()))
        .collect();
    assert_eq!(
        verdicts,
        [("local", "ok"), ("project", "warn"), ("user", "warn")]
    );
    assert!(
        thrice.iter().all(|(_, _, m)| m.ends_with("local wins")),
        "{thrice:?}"
    );
}

/// doctor --json in `dir` (relative to HOME) as the project directory.
fn doctor_in(env: &TestEnv, dir: &str, args: &[&str]) -> Value {
    std::fs::create_dir_all(env.path(dir)).unwrap();
    let mut all = vec!["doctor", "--json", "--timeout", "10"];
    all.extend(args);
    let out = env
        .command(&all)
        .current_dir(env.path(dir))
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

fn trust_check(result: &Value) -> (String, String) {
    let check = result["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "trust")
        .unwrap_or_else(|| panic!("no trust check in {result}"));
    (
        check["status"].as_str().unwrap().to_owned(),
        check["message"].as_str().unwrap().to_owned(),
    )
}

#[test]
#[cfg(unix)] // the server is `touch`, a Unix program
fn doctor_never_starts_unapproved_project_servers() {
    // A cloned repository's .mcp.json and .cursor/mcp.json: nothing in them may run.
    let env = TestEnv::new();
    let marker = env.path("repo/pwned");
    let evil = json!({"mcpServers": {"evil": {"command": "touch", "args": [marker]}}});
    env.write("repo/.mcp.json", evil.to_string().as_bytes());
    env.write("repo/.cursor/mcp.json", evil.to_string().as_bytes());
    env.write(".claude.json", b"{}");
    let report = doctor_in(&env, "repo", &["-c", "claude-code,cursor"]);
    assert!(!marker.exists(), "an unapproved project server was started");
    for client in ["claude-code", "cursor"] {
        let result = report["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["client"] == client && r["name"] == "evil")
            .unwrap_or_else(|| panic!("no {client} result in {report}"));
        assert_eq!(result["status"], "skipped", "{result}");
        let (status, message) = trust_check(result);
        assert_eq!(status, "skipped");
        assert!(message.contains("--trust-project"), "{message}");
    }
    let claude = result(&report, "evil");
    assert!(trust_check(claude).1.contains("~/.claude.json"), "{claude}");

    // The explicit flag starts them.
    doctor_in(&env, "repo", &["-c", "cursor", "--trust-project"]);
    assert!(marker.exists(), "--trust-project did not start the server");
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn doctor_starts_project_servers_the_client_approved() {
    let env = TestEnv::new();
    let server = json!({"command": fixture(), "args": []});
    env.write(
        "repo/.mcp.json",
        json!({"mcpServers": {"yes": server, "no": server, "refused": server}})
            .to_string()
            .as_bytes(),
    );
    let project = crate::env::claude_key(&env.path("repo").display().to_string());
    let approvals = |entry: Value| {
        env.write(
            ".claude.json",
            json!({"projects": {&project: entry}})
                .to_string()
                .as_bytes(),
        );
        doctor_in(&env, "repo", &["-c", "claude-code"])
    };
    let report = approvals(json!({
        "enabledMcpjsonServers": ["yes"],
        "disabledMcpjsonServers": ["refused"]
    }));
    assert_eq!(result(&report, "yes")["status"], "ok", "{report}");
    assert_eq!(result(&report, "yes")["tools"], 2);
    assert!(
        trust_check(result(&report, "yes"))
            .1
            .contains("approved in Claude Code")
    );
    assert_eq!(result(&report, "no")["status"], "skipped");
    assert_eq!(result(&report, "refused")["status"], "skipped");
    assert!(
        trust_check(result(&report, "refused"))
            .1
            .contains("refused")
    );

    let report = approvals(json!({
        "enableAllProjectMcpServers": true,
        "disabledMcpjsonServers": ["refused"]
    }));
    assert_eq!(result(&report, "no")["status"], "ok", "{report}");
    assert_eq!(result(&report, "refused")["status"], "skipped");
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn doctor_reads_codex_project_trust() {
    let env = TestEnv::new();
    let project = env.path("repo").display().to_string();
    let server = format!("[mcp_servers.fx]\ncommand = {:?}\n", fixture());
    env.write("repo/.codex/config.toml", server.as_bytes());
    env.write(".codex/config.toml", b"model = \"o3\"\n");
    let report = doctor_in(&env, "repo", &["-c", "codex"]);
    assert_eq!(result(&report, "fx")["status"], "skipped", "{report}");
    env.write(
        ".codex/config.toml",
        format!("model = \"o3\"\n\n[projects.{project:?}]\ntrust_level = \"trusted\"\n").as_bytes(),
    );
    let report = doctor_in(&env, "repo", &["-c", "codex"]);
    assert_eq!(result(&report, "fx")["status"], "ok", "{report}");
}

/// Run mcpctl with its stdout already closed (`mcpctl ... | true`); the exit code.
fn exit_with_closed_stdout(env: &TestEnv, args: &[&str]) -> i32 {
    let mut child = env
        .command(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait().unwrap().code().unwrap_or(-1)
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn a_closed_stdout_keeps_the_verdict() {
    let env = TestEnv::new();
    cursor_config(
        &env,
        json!({"dies": {"command": fixture(), "args": ["exit=3"]}}),
    );
    assert_eq!(
        exit_with_closed_stdout(&env, &["doctor", "-c", "cursor"]),
        1
    );
    assert_eq!(
        exit_with_closed_stdout(&env, &["doctor", "-c", "cursor", "--json"]),
        1
    );
    // check: an error finding (a `url` where Windsurf reads `serverUrl`).
    env.write(
        ".codeium/windsurf/mcp_config.json",
        br#"{"mcpServers": {"web": {"url": "https://example.com/mcp"}}}"#,
    );
    let open = env.run(&["check", "--user", "-c", "windsurf"]);
    assert_eq!(open.code, 1, "{}{}", open.stdout, open.stderr);
    assert_eq!(
        exit_with_closed_stdout(&env, &["check", "--user", "-c", "windsurf"]),
        1
    );
    // A would-be 0 stays 0.
    cursor_config(&env, json!({"good": {"command": fixture(), "args": []}}));
    assert_eq!(
        exit_with_closed_stdout(&env, &["doctor", "-c", "cursor"]),
        0
    );
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn doctor_json_tells_tools_capabilities_and_what_it_started() {
    let env = TestEnv::new();
    let bin = fixture();
    cursor_config(
        &env,
        json!({
            "good": {"command": bin, "args": []},
            "dies": {"command": bin, "args": ["exit=3"]}
        }),
    );
    let run = env.run(&["doctor", "-c", "cursor", "--json"]).code(1);
    let report = run.json();
    let good = result(&report, "good");
    assert_eq!(good["tool_names"], json!(["hello", "pid"]));
    assert!(good["capabilities"]["tools"].is_object(), "{good}");
    assert_eq!(good["instructions_chars"], Value::Null);
    assert_eq!(good["started"], Value::Null);
    let dies = result(&report, "dies");
    // (On Windows mcpctl names the file it found with a `\` before its name even when the
    // command was spelled with `/`, as `fixture()` is there.)
    assert_eq!(
        dies["started"].as_str().unwrap().replace('\\', "/"),
        format!("{bin} exit=3")
    );
    // Without a terminal, a CI log gets the verdict rows, not "[n/N]" progress lines.
    let run = env.run(&["doctor", "-c", "cursor"]).code(1);
    assert!(run.stdout.contains("✘ cursor/dies"), "{}", run.stdout);
    assert!(!run.stderr.contains("[1/2]"), "{}", run.stderr);
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn a_timeout_among_parallel_starts_suggests_fewer_jobs() {
    let env = TestEnv::new();
    let bin = fixture();
    cursor_config(
        &env,
        json!({
            "one": {"command": bin, "args": ["silent"]},
            "two": {"command": bin, "args": ["silent", "x"]}
        }),
    );
    let run = env
        .run(&[
            "doctor",
            "-c",
            "cursor",
            "--json",
            "--timeout",
            "1",
            "--jobs",
            "2",
        ])
        .code(1);
    let report = run.json();
    let error = result(&report, "one")["error"].as_str().unwrap().to_owned();
    assert!(error.contains("lower --jobs"), "{error}");
    let run = env
        .run(&["doctor", "one", "-c", "cursor", "--json", "--timeout", "1"])
        .code(1);
    let error = result(&run.json(), "one")["error"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(!error.contains("--jobs"), "{error}");
}

/// Issue 21: Claude Code 2.1.332 falls back from Streamable HTTP to SSE (`claude mcp
/// list` connects), Gemini CLI does not (`gemini mcp list`: Disconnected). This test said
/// Claude Code failed.
#[test]
#[ignore = "needs .ci/clients.sh"]
fn an_http_entry_on_a_legacy_sse_endpoint_fails_only_where_the_client_does_not_fall_back() {
    let env = TestEnv::new();
    let port = free_port();
    let _server = KillOnDrop(
        Command::new(fixture())
            .arg(format!("sse={port}"))
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_listening(port);
    let url = format!("http://127.0.0.1:{port}/sse");
    env.write(
        ".claude.json",
        json!({"mcpServers": {"old": {"type": "http", "url": url}}})
            .to_string()
            .as_bytes(),
    );
    env.write(
        ".gemini/settings.json",
        json!({"mcpServers": {"old": {"httpUrl": url}}})
            .to_string()
            .as_bytes(),
    );
    env.trust_in_gemini();
    cursor_config(&env, json!({"old": {"url": url}}));
    let report = env
        .run(&["doctor", "-c", "claude-code,gemini-cli,cursor", "--json"])
        .code(1)
        .json();
    let by_client = |client: &str| {
        report["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["client"] == client)
            .unwrap()
            .clone()
    };
    let gemini = by_client("gemini-cli");
    assert_eq!(gemini["status"], "fail", "{gemini}");
    let error = gemini["error"].as_str().unwrap();
    assert!(
        error.contains("does not fall back") && error.contains("`sse`"),
        "{error}"
    );
    for client in ["claude-code", "cursor"] {
        let row = by_client(client);
        assert_eq!(row["status"], "warn", "{row}");
    }
    {
        let run = crate::loading::client(&env, "claude", &["mcp", "list"]);
        let line = crate::loading::listed_line(&run, "old").unwrap_or_default();
        assert!(
            line.ends_with("Connected"),
            "claude: {}{}",
            run.stdout,
            run.stderr
        );
    }
    let run = crate::loading::client(&env, "gemini", &["mcp", "list"]);
    let line = crate::loading::listed_line(&run, "old").unwrap_or_default();
    assert!(
        line.ends_with("Disconnected"),
        "gemini: {}{}",
        run.stdout,
        run.stderr
    );
}

#[test]
#[cfg(unix)] // its npx is a sh script
fn a_silent_launcher_timeout_may_be_downloading() {
    let env = TestEnv::new();
    let npx = env.write("tools/npx", b"#!/bin/sh\nexec sleep 30\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&npx, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    cursor_config(
        &env,
        json!({"slow": {"command": npx, "args": ["-y", "@example/server"]}}),
    );
    let report = env
        .run(&["doctor", "-c", "cursor", "--json", "--timeout", "1"])
        .code(1)
        .json();
    let error = result(&report, "slow")["error"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(error.contains("may be downloading"), "{error}");
}

#[test]
#[cfg(unix)] // the server is a sh script
fn the_stderr_excerpt_keeps_the_line_that_says_what_is_wrong() {
    // @sentry/mcp-server: the reason was line 1 of 61, and the excerpt showed the end.
    let env = TestEnv::new();
    let script = "echo 'No access token was provided.' >&2; i=0; \
                  while [ $i -lt 60 ]; do echo \"    at frame $i\" >&2; i=$((i+1)); done; exit 1";
    cursor_config(
        &env,
        json!({"sentry": {"command": "sh", "args": ["-c", script]}}),
    );
    let run = env.run(&["doctor", "-c", "cursor"]).code(1);
    assert!(
        run.stdout.contains("│ No access token was provided."),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("│     at frame 59"), "{}", run.stdout);
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn a_codex_entry_startup_timeout_governs_its_handshake() {
    let env = TestEnv::new();
    let bin = fixture();
    env.write(
        ".codex/config.toml",
        format!(
            "[mcp_servers.slow]\ncommand = {bin:?}\nargs = [\"silent\"]\nstartup_timeout_sec = 1\n\n\
             [mcp_servers.slow_ms]\ncommand = {bin:?}\nargs = [\"silent\", \"ms\"]\nstartup_timeout_ms = 1500\n"
        )
        .as_bytes(),
    );
    // --timeout would allow a minute; Codex gives up after the entry's own limit.
    let run = env
        .run(&["doctor", "-c", "codex", "--json", "--timeout", "60"])
        .code(1);
    let report = run.json();
    let error = result(&report, "slow")["error"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(error.contains("timed out after 1 s"), "{error}");
    assert!(error.contains("`startup_timeout_sec`"), "{error}");
    assert!(!error.contains("--timeout"), "{error}");
    let error = result(&report, "slow_ms")["error"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(error.contains("timed out after 1.5 s"), "{error}");
    assert!(error.contains("`startup_timeout_ms`"), "{error}");
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn a_startup_timeout_key_the_client_does_not_read_is_ignored() {
    let env = TestEnv::new();
    let bin = fixture();
    cursor_config(
        &env,
        json!({"silent": {"command": bin, "args": ["silent"], "startup_timeout_sec": 30}}),
    );
    let run = env
        .run(&["doctor", "-c", "cursor", "--json", "--timeout", "1"])
        .code(1);
    let error = result(&run.json(), "silent")["error"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(error.contains("timed out after 1 s"), "{error}");
    assert!(error.contains("--timeout"), "{error}");
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn rows_stream_as_each_server_finishes() {
    // A server that never answers must not hold back the row of one that did: the
    // healthy server's row is on stdout while the silent one is still being waited for.
    let env = TestEnv::new();
    let bin = fixture();
    cursor_config(
        &env,
        json!({
            "hung": {"command": bin, "args": ["silent"]},
            "good": {"command": bin, "args": []}
        }),
    );
    let mut child = env
        .command(&["doctor", "-c", "cursor", "--jobs", "2", "--timeout", "120"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut first = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut first).unwrap();
    // The row arrived while "hung" still runs: the process has not exited.
    let running = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(first.starts_with("✔ cursor/good"), "{first}");
    assert!(running);
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn json_stays_one_document_at_the_end() {
    let env = TestEnv::new();
    let bin = fixture();
    cursor_config(
        &env,
        json!({
            "good": {"command": bin, "args": []},
            "off": {"command": bin, "disabled": true}
        }),
    );
    let run = env.run(&["doctor", "-c", "cursor", "--json"]).ok();
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["summary"]["ok"], 1);
    assert!(!run.stdout.contains('✔'), "{}", run.stdout);
    assert!(!run.stderr.contains("checking"), "{}", run.stderr);
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn doctor_reports_an_older_protocol_version_as_information() {
    let env = TestEnv::new();
    cursor_config(
        &env,
        json!({"old": {"command": fixture(), "args": ["older"]}}),
    );
    let run = env
        .run(&["doctor", "-c", "cursor", "--json", "--strict"])
        .ok();
    let report = run.json();
    let old = result(&report, "old");
    assert_eq!(old["status"], "ok", "{old}");
    assert_eq!(old["protocol_version"], "2025-03-26");
    let protocol = old["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "protocol")
        .unwrap_or_else(|| panic!("no protocol check in {old}"));
    assert_eq!(protocol["status"], "ok");
    assert!(
        protocol["message"].as_str().unwrap().contains("older than"),
        "{protocol}"
    );
    assert_eq!(report["summary"]["warn"], 0);
    let run = env.run(&["doctor", "-c", "cursor", "--strict"]).ok();
    assert!(
        run.stdout.contains("✔ cursor/old") && run.stdout.contains("handshake 2025-03-26"),
        "{}",
        run.stdout
    );
}

/// Issue 38 item 2: a server on 2026-07-28 was said to speak a protocol "older than
/// mcpctl's 2025-11-25". Versions are dates: a modern server is not older than anything
/// mcpctl speaks, and the handshake it makes is not called `initialize`.
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn doctor_compares_protocol_versions_as_dates() {
    let env = TestEnv::new();
    cursor_config(
        &env,
        json!({
            "new": {"command": fixture(), "args": ["modern"]},
            "old": {"command": fixture(), "args": ["older"]},
        }),
    );
    let report = env.run(&["doctor", "-c", "cursor", "--json"]).ok().json();
    let new = result(&report, "new");
    assert_eq!(new["protocol_version"], "2026-07-28", "{new}");
    let checks = new["checks"].to_string();
    assert!(!checks.contains("older than"), "{new}");
    assert!(!checks.contains("initialize"), "{new}");
    assert!(checks.contains("server/discover"), "{new}");
    let old = result(&report, "old")["checks"].to_string();
    assert!(
        old.contains("speaks protocol 2025-03-26, older than mcpctl's 2025-11-25"),
        "{old}"
    );
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn tools_honours_the_entry_startup_timeout_too() {
    let env = TestEnv::new();
    env.write(
        ".codex/config.toml",
        format!(
            "[mcp_servers.slow]\ncommand = {:?}\nargs = [\"silent\"]\nstartup_timeout_sec = 1\n",
            fixture()
        )
        .as_bytes(),
    );
    let run = env
        .run(&["tools", "slow", "-c", "codex", "--timeout", "60"])
        .code(2);
    assert!(
        run.stderr.contains("timed out after 1 s") && run.stderr.contains("`startup_timeout_sec`"),
        "{}",
        run.stderr
    );
}

/// `kill -9` of mcpctl cannot run its clean-up, so the servers it started must die with
/// it by themselves (Linux: `PR_SET_PDEATHSIG`; issue 20).
#[cfg(target_os = "linux")]
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn servers_die_when_mcpctl_is_killed() {
    let env = TestEnv::new();
    let pids = env.path("pids");
    cursor_config(
        &env,
        json!({
            "slow": {"command": fixture(), "args": ["slow-start=600000"],
                     "env": {"FIXTURE_PID_FILE": pids.display().to_string()}}
        }),
    );
    let mut mcpctl = env
        .command(&["doctor", "-c", "cursor", "--timeout", "600"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut waited = 0;
    while std::fs::read_to_string(&pids).map_or(true, |t| t.trim().is_empty()) {
        assert!(waited < 6000, "the server never started");
        std::thread::sleep(std::time::Duration::from_millis(10));
        waited += 1;
    }
    mcpctl.kill().unwrap();
    mcpctl.wait().unwrap();
    let pid: i32 = std::fs::read_to_string(&pids)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let survived = fixture_server::alive(pid);
    if survived {
        // SAFETY: the fixture's own pid, which it wrote.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
    assert!(!survived, "server {pid} outlived mcpctl's kill -9");
}

/// Issue 39 F21: `kill -9` of mcpctl ended the server it started, but not what the
/// server started: a child in its process group that does not read stdin, and one that
/// `setsid`s away. Nothing a server started outlives mcpctl's death either.
#[cfg(target_os = "linux")]
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn what_a_server_started_dies_when_mcpctl_is_killed() {
    let env = TestEnv::new();
    let pids = env.path("pids");
    let children = env.path("children");
    let script = format!(
        "sleep 1000 & echo $! >> {c}; (setsid sh -c 'echo $$ >> {c}; exec sleep 1000' </dev/null >/dev/null 2>&1 &); \
         while [ $(wc -l < {c}) -lt 2 ]; do sleep 0.01; done; exec {fixture} slow-start=600000",
        c = children.display(),
        fixture = fixture()
    );
    cursor_config(
        &env,
        json!({
            "slow": {"command": "sh", "args": ["-c", script],
                     "env": {"FIXTURE_PID_FILE": pids.display().to_string()}}
        }),
    );
    let mut mcpctl = env
        .command(&["doctor", "-c", "cursor", "--timeout", "600"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut waited = 0;
    while std::fs::read_to_string(&pids).map_or(true, |t| t.trim().is_empty()) {
        assert!(waited < 6000, "the server never started");
        std::thread::sleep(std::time::Duration::from_millis(10));
        waited += 1;
    }
    mcpctl.kill().unwrap();
    mcpctl.wait().unwrap();
    let mut all: Vec<i32> = std::fs::read_to_string(&children)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    all.push(
        std::fs::read_to_string(&pids)
            .unwrap()
            .trim()
            .parse()
            .unwrap(),
    );
    let survivors: Vec<i32> = all
        .into_iter()
        .filter(|pid| fixture_server::alive(*pid))
        .collect();
    for pid in &survivors {
        // SAFETY: pids the test's own server script wrote.
        unsafe {
            libc::kill(*pid, libc::SIGKILL);
        }
    }
    assert!(
        survivors.is_empty(),
        "{survivors:?} outlived mcpctl's kill -9"
    );
}

/// A server that stays after its input closes must not hold its job slot while it is
/// being ended (issue 26): with one job, the second server starts before the first one
/// is told to stop, and both are still ended (by SIGTERM, not by mcpctl's death) before
/// doctor exits.
#[cfg(unix)]
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn the_next_server_starts_while_a_lingering_one_is_ended() {
    let env = TestEnv::new();
    let log = env.path("events");
    let server = json!({"command": fixture(), "args": ["linger"],
                        "env": {"FIXTURE_LOG": log.display().to_string()}});
    let mut other = server.clone();
    other["args"] = json!(["linger", "second"]);
    cursor_config(&env, json!({ "first": server, "second": other }));
    let run = env
        .run(&["doctor", "-c", "cursor", "--jobs", "1", "--json"])
        .ok();
    assert_eq!(run.json()["summary"]["ok"], 2, "{}", run.stdout);
    let events = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = events.lines().collect();
    let starts: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("start "))
        .collect();
    assert_eq!(starts.len(), 2, "{events}");
    let at = |line: String| lines.iter().position(|l| *l == line);
    let first_ended = at(format!("end {}", starts[0]));
    let second_started = at(format!("start {}", starts[1]));
    assert!(
        first_ended.is_some(),
        "the first server was not ended by SIGTERM: {events}"
    );
    assert!(
        at(format!("end {}", starts[1])).is_some(),
        "the second server was not ended before doctor exited: {events}"
    );
    assert!(
        second_started < first_ended,
        "the second server waited for the first one's ending: {events}"
    );
}

/// Servers start in the order of the config, run after run: doctor learns no order and
/// keeps no start times (issue 36; an older mcpctl started the slowest of the last run
/// first).
#[cfg(unix)]
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn servers_start_in_config_order_every_run() {
    let env = TestEnv::new();
    let log = env.path("events");
    let server = |name: &str, args: &[&str]| {
        let mut argv = vec![name];
        argv.extend_from_slice(args);
        json!({"command": fixture(), "args": argv,
               "env": {"FIXTURE_LOG": log.display().to_string(),
                       "FIXTURE_PID_FILE": env.path(name).display().to_string()}})
    };
    cursor_config(
        &env,
        json!({
            "medium": server("medium", &["slow-start=1000"]),
            "quick": server("quick", &[]),
            "slow": server("slow", &["slow-start=2000"]),
        }),
    );
    // The names in the order their servers started in the run just made.
    let started = || {
        let pid_of = |name: &str| {
            std::fs::read_to_string(env.path(name))
                .unwrap()
                .lines()
                .next()
                .unwrap()
                .to_owned()
        };
        let names = ["medium", "quick", "slow"].map(|n| (pid_of(n), n));
        let order: Vec<&str> = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .filter_map(|l| l.strip_prefix("start "))
            .filter_map(|pid| names.iter().find(|(p, _)| p == pid).map(|(_, n)| *n))
            .collect();
        std::fs::remove_file(&log).unwrap();
        order
    };
    let doctor = ["doctor", "-c", "cursor", "--jobs", "2", "--json"];
    for _ in 0..2 {
        assert_eq!(env.run(&doctor).ok().json()["summary"]["ok"], 3);
        // `slow` waits for the slot `quick` leaves, so it starts after `quick` (an older
        // mcpctl started it first). `medium` starts beside `quick`, but its first line
        // may come late on a loaded machine (once after `slow`'s), so it is not compared.
        let order = started();
        let at = |name: &str| order.iter().position(|n| *n == name);
        assert!(
            at("quick") < at("slow") && at("slow").is_some(),
            "{order:?}"
        );
        let cache = env.state("tokens.json");
        assert!(cache.get("starts").is_none(), "{cache}");
    }
}

/// The token cache is only a cache: a damaged one, one an older mcpctl wrote with start
/// times in it, or one that cannot be read or written, changes no verdict and fails
/// nothing (and a damaged one is written anew, without the start times).
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn an_old_or_damaged_token_cache_fails_nothing() {
    let env = TestEnv::new();
    let bin = fixture();
    cursor_config(
        &env,
        json!({
            "one": {"command": bin, "args": ["one"]},
            "two": {"command": bin, "args": ["two"]},
        }),
    );
    let doctor = ["doctor", "-c", "cursor", "--jobs", "2", "--json"];
    let cache = env.dir.path().join("state/tokens.json");
    std::fs::create_dir_all(cache.parent().unwrap()).unwrap();
    for damaged in [
        "{\"version\":1,\"servers\":{},\"starts\":{\"sha256:x\":{\"ms\":\"soon\"}}}",
        "{\"version\":1,\"starts\":[",
    ] {
        std::fs::write(&cache, damaged.as_bytes()).unwrap();
        let run = env.run(&doctor).ok();
        assert_eq!(run.json()["summary"]["ok"], 2, "{damaged}: {}", run.stdout);
        let cache = env.state("tokens.json");
        assert_eq!(cache["servers"].as_object().unwrap().len(), 2, "{cache}");
        assert!(cache.get("starts").is_none(), "{cache}");
    }
    // Not text: it cannot be read (nor, as mcpctl never rewrites what it cannot read,
    // remembered); the verdicts stand.
    std::fs::write(&cache, b"\x00\xffnot json").unwrap();
    let run = env.run(&doctor).ok();
    assert_eq!(run.json()["summary"]["ok"], 2, "{}", run.stdout);
    // Not a file at all: the same.
    std::fs::remove_file(&cache).unwrap();
    std::fs::create_dir_all(&cache).unwrap();
    let run = env.run(&doctor).ok();
    assert_eq!(run.json()["summary"]["ok"], 2, "{}", run.stdout);
}

/// Issue 38 item 5: an entry that sends a key of its own and gets 401 was "⚠ log in
/// through your client" with exit 0, though no login helps: the key is wrong. And a 401
/// whose OAuth metadata URL answers 404 leaves every client unable to log in. Both are
/// ✘ now; a 401 to an entry with no key, whose metadata is there, stays a ⚠.
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn a_refused_key_and_a_login_without_metadata_are_failures() {
    let start = |mode: &str| {
        let port = free_port();
        let server = KillOnDrop(
            Command::new(fixture())
                .arg(format!("{mode}={port}"))
                .stdin(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap(),
        );
        wait_listening(port);
        (server, format!("http://127.0.0.1:{port}/mcp"))
    };
    let (_login, login) = start("http-401-bare");
    let (_gone, gone) = start("http-401-gone");
    let mut env = TestEnv::new();
    env.extra_env
        .push(("TEAM_KEY".into(), "not-the-right-key".into()));
    cursor_config(
        &env,
        json!({
            "bearer": {"url": login, "headers": {"Authorization": "Bearer ${env:TEAM_KEY}"}},
            "api-key": {"url": login, "headers": {"X-Api-Key": "${env:TEAM_KEY}"}},
            "login": {"url": login, "headers": {"X-Client": "mcpctl-test"}},
            "gone": {"url": gone},
        }),
    );
    let run = env.run(&["doctor", "-c", "cursor", "--json"]).code(1);
    assert!(!run.stdout.contains("not-the-right-key"), "{}", run.stdout);
    let report = run.json();
    for (name, header) in [("bearer", "Authorization"), ("api-key", "X-Api-Key")] {
        let row = result(&report, name);
        assert_eq!(row["status"], "fail", "{row}");
        let error = row["error"].as_str().unwrap();
        assert!(
            error.contains("the server refused the key") && error.contains(header),
            "{error}"
        );
        assert!(!error.contains("log in"), "{error}");
    }
    let row = result(&report, "gone");
    assert_eq!(row["status"], "fail", "{row}");
    let error = row["error"].as_str().unwrap();
    assert!(error.contains("answers 404"), "{error}");
    assert_eq!(result(&report, "login")["status"], "warn");
    // The key alone: the exit status says it too.
    let run = env.run(&["doctor", "-c", "cursor", "api-key"]).code(1);
    assert!(
        run.stdout.contains("✘ cursor/api-key") && run.stdout.contains("refused the key"),
        "{}",
        run.stdout
    );
}
