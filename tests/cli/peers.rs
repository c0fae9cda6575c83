//! Cross-checks against the clients' own CLIs (installed by `.ci/clients.sh` into
//! `.cache/clients/<bin>/`, one prefix each): what mcpctl writes must be read back by the client with the right
//! fields, and what the client writes must be read by mcpctl. The tests are
//! `#[ignore = "needs .ci/clients.sh"]`; run, a test whose client is not installed fails.
//! Facts about each CLI: docs/dev/peers.md.

use crate::client_cli::{self, npm_bin};
use crate::env::{Run, TestEnv};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const URL: &str = "https://example.com/mcp";
const SSE_URL: &str = "https://example.com/sse";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The stdio server used in every check: the real memory server when `.ci/peers.sh`
/// installed it (starts fast, so clients that health-check on `list` connect), else the
/// same path, which fails fast; only the fields the client reports are asserted.
fn memory_server() -> String {
    repo()
        .join(".cache/peers/npm/node_modules/@modelcontextprotocol/server-memory/dist/index.js")
        .display()
        .to_string()
}

struct Peer {
    env: TestEnv,
    bin: PathBuf,
    /// Arguments before the client's own (Vibe's script, run by its venv's python).
    prefix: Vec<String>,
}

/// The client's CLI in a fresh `TestEnv`; fails the test when it is not installed.
fn peer(bin: &str) -> Peer {
    peer_at(client_cli::installed(bin, &format!("{bin} cross-check")))
}

/// A fresh `TestEnv` for the client program at `path`.
fn peer_at(path: PathBuf) -> Peer {
    let mut env = TestEnv::new();
    // No telemetry, update checks or keys from the outer environment.
    for (k, v) in client_cli::QUIET {
        env.extra_env.push((k.into(), v.into()));
    }
    Peer {
        env,
        bin: path,
        prefix: Vec::new(),
    }
}

impl Peer {
    /// Run the client's CLI (killed after 60 s so a prompt can never hang the suite).
    fn client(&self, args: &[&str]) -> Run {
        let out = self
            .env
            .client_command(Path::new("timeout"))
            .args(["-k", "5", "60"])
            .arg(&self.bin)
            .args(&self.prefix)
            .args(args)
            .output()
            .unwrap();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: strip_ansi(&String::from_utf8_lossy(&out.stdout)),
            stderr: strip_ansi(&String::from_utf8_lossy(&out.stderr)),
        }
    }

    fn mcpctl(&self, args: &[&str]) -> Run {
        self.env.run(args)
    }

    /// `mcpctl add` of the stdio server (with an env var), the HTTP server (with a header)
    /// and, when `sse`, the SSE server (with a header).
    fn mcpctl_add_all(&self, id: &str, sse: bool) {
        let mem = memory_server();
        self.mcpctl(&["add", "mem", "-c", id, "-e", "K=v", "--", "node", &mem])
            .ok();
        self.mcpctl(&["add", "web", "-c", id, "--url", URL, "-H", "X-Api-Key=k"])
            .ok();
        if sse {
            self.mcpctl(&[
                "add",
                "ev",
                "-c",
                id,
                "--url",
                SSE_URL,
                "--transport",
                "sse",
                "-H",
                "X-Api-Key=k",
            ])
            .ok();
        }
    }

    /// `mcpctl list --json --show-secrets` for one client, by server name.
    fn mcpctl_rows(&self, id: &str) -> Vec<Value> {
        let run = self
            .mcpctl(&["list", "--json", "-c", id, "--show-secrets"])
            .ok();
        let rows = run.json();
        rows.as_array().unwrap().clone()
    }
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ params final-byte (0x40..=0x7e)
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&c) {
                        break;
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The rest of the line that lists `name` as `name: ...` (after an optional status glyph),
/// in the combined output of a text listing (`gemini/qwen/claude mcp list`).
fn listed<'a>(run: &'a Run, name: &str) -> Option<&'a str> {
    let prefix = format!("{name}: ");
    run.stdout
        .lines()
        .chain(run.stderr.lines())
        .map(str::trim)
        .find_map(|line| {
            let line = line
                .strip_prefix(|c: char| !c.is_ascii())
                .map_or(line, str::trim_start);
            line.strip_prefix(prefix.as_str())
        })
}

#[track_caller]
fn assert_listed(run: &Run, name: &str, expected_start: &str) {
    let rest = listed(run, name).unwrap_or_else(|| {
        panic!(
            "{name} not listed\nstdout:\n{}\nstderr:\n{}",
            run.stdout, run.stderr
        )
    });
    assert!(
        rest.starts_with(expected_start),
        "{name}: expected `{expected_start}…`, got `{rest}`"
    );
}

#[track_caller]
fn assert_not_listed(run: &Run, name: &str) {
    assert!(
        listed(run, name).is_none(),
        "{name} still listed\nstdout:\n{}\nstderr:\n{}",
        run.stdout,
        run.stderr
    );
}

/// The trimmed lines of `claude mcp get NAME`.
fn claude_get(peer: &Peer, name: &str) -> Vec<String> {
    let run = peer.client(&["mcp", "get", name]).ok();
    run.stdout.lines().map(|l| l.trim().to_owned()).collect()
}

#[track_caller]
fn assert_has_lines(lines: &[String], expected: &[&str]) {
    for want in expected {
        assert!(
            lines.iter().any(|l| l == want),
            "missing line `{want}` in:\n{}",
            lines.join("\n")
        );
    }
}

/// `mcpctl check` on the files the client's own CLI wrote: no warning, no error (issue 9:
/// fields the clients write themselves are not findings).
#[track_caller]
fn assert_check_clean(p: &Peer, id: &str) {
    let run = p.mcpctl(&[
        "check",
        "--user",
        "-c",
        id,
        "--platform",
        "linux",
        "--deny",
        "warning",
        "--format",
        "json",
    ]);
    let findings = run.json();
    let serious: Vec<&Value> = findings
        .as_array()
        .unwrap()
        .iter()
        // The cross-checks add SSE servers on purpose: MCP209 (SSE deprecated) is expected.
        // MCP503 (a variable unset here) is about this environment, not the file.
        .filter(|f| f["severity"] != "info" && f["code"] != "MCP209" && f["code"] != "MCP503")
        .collect();
    assert!(serious.is_empty(), "check on {id}'s own file: {serious:#?}");
    // `--deny warning` exits 1 for the expected MCP209 (or MCP503) alone.
    let sse_warned = findings
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["code"] == "MCP209" || f["code"] == "MCP503");
    assert!(
        run.code == 0 || (run.code == 1 && sse_warned),
        "exit {}: {}",
        run.code,
        run.stderr
    );
}

fn row<'a>(rows: &'a [Value], name: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in mcpctl list: {rows:#?}"))
}

/// The fields of one `mcpctl list --json` row that the cross-checks compare.
fn fields(row: &Value) -> Value {
    json!({
        "transport": row["transport"],
        "command": row["command"],
        "args": row["args"],
        "url": row["url"],
        "env": row["env"],
        "headers": row["headers"],
    })
}

fn stdio_fields(command: &str, args: &[&str]) -> Value {
    json!({"transport": "stdio", "command": command, "args": args, "url": null,
           "env": {"K": "v"}, "headers": {}})
}

fn remote_fields(transport: &str, url: &str, headers: Value) -> Value {
    json!({"transport": transport, "command": null, "args": [], "url": url,
           "env": {}, "headers": headers})
}

// ---------------------------------------------------------------- Claude Code

#[test]
#[ignore = "needs .ci/clients.sh"]
fn claude_reads_what_mcpctl_writes() {
    let p = peer("claude");
    p.mcpctl_add_all("claude-code", true);
    // Local scope: `projects["<cwd>"].mcpServers` of the same file (cwd is HOME here).
    p.mcpctl(&[
        "add",
        "loc",
        "-c",
        "claude-code",
        "--scope",
        "local",
        "--",
        "true",
    ])
    .ok();
    let mem = memory_server();
    assert_has_lines(
        &claude_get(&p, "loc"),
        &[
            "Scope: Local config (private to you in this project)",
            "Type: stdio",
            "Command: true",
        ],
    );
    assert_has_lines(
        &claude_get(&p, "mem"),
        &[
            "Type: stdio",
            "Command: node",
            &format!("Args: {mem}"),
            "K=v",
        ],
    );
    assert_has_lines(
        &claude_get(&p, "web"),
        &["Type: http", &format!("URL: {URL}"), "X-Api-Key: k"],
    );
    assert_has_lines(
        &claude_get(&p, "ev"),
        &["Type: sse", &format!("URL: {SSE_URL}"), "X-Api-Key: k"],
    );
    p.mcpctl(&["remove", "web", "-c", "claude-code"]).ok();
    let list = p.client(&["mcp", "list"]).ok();
    assert_not_listed(&list, "web");
    assert_listed(&list, "mem", &format!("node {mem}"));
    assert_listed(&list, "ev", &format!("{SSE_URL} (SSE)"));
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn mcpctl_reads_what_claude_writes() {
    let p = peer("claude");
    // Name (and URL) before -e/-H: those flags are variadic and swallow what follows.
    let add = |args: &[&str]| {
        let mut all = vec!["mcp", "add", "-s", "user"];
        all.extend_from_slice(args);
        p.client(&all).ok();
    };
    add(&["mem", "-e", "K=v", "--", "node", "/srv/mem.js"]);
    add(&["-t", "http", "web", URL, "-H", "X-Api-Key: k"]);
    add(&["-t", "sse", "ev", SSE_URL, "-H", "X-Api-Key: k"]);
    // claude's default scope is local: `projects["<cwd>"]` (cwd is HOME here).
    p.client(&["mcp", "add", "loc", "--", "true"]).ok();
    let rows = p.mcpctl_rows("claude-code");
    assert_eq!(rows.len(), 4, "{rows:#?}");
    assert_check_clean(&p, "claude-code");
    assert_eq!(row(&rows, "loc")["scope"], "local");
    assert_eq!(row(&rows, "loc")["command"], "true");
    assert_eq!(row(&rows, "mem")["scope"], "user");
    assert_eq!(
        fields(row(&rows, "mem")),
        stdio_fields("node", &["/srv/mem.js"])
    );
    let header = json!({"X-Api-Key": "k"});
    assert_eq!(
        fields(row(&rows, "web")),
        remote_fields("http", URL, header.clone())
    );
    assert_eq!(
        fields(row(&rows, "ev")),
        remote_fields("sse", SSE_URL, header)
    );
    for name in ["mem", "web", "ev"] {
        p.mcpctl(&["remove", name, "-c", "claude-code"]).ok();
    }
    p.mcpctl(&["remove", "loc", "-c", "claude-code", "--scope", "local"])
        .ok();
    let list = p.client(&["mcp", "list"]).ok();
    for name in ["mem", "web", "ev", "loc"] {
        assert_not_listed(&list, name);
    }
    assert!(
        list.stdout.contains("No MCP servers configured"),
        "{}",
        list.stdout
    );
    assert!(p.mcpctl_rows("claude-code").is_empty());
}

// ---------------------------------------------------------------- Codex

/// `codex mcp list --json`, by name.
fn codex_list(p: &Peer) -> Vec<Value> {
    let run = p.client(&["mcp", "list", "--json"]).ok();
    run.json().as_array().unwrap().clone()
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn codex_reads_what_mcpctl_writes() {
    let p = peer("codex");
    p.mcpctl_add_all("codex", false);
    // Codex has no SSE: mcpctl must refuse rather than write something codex misreads.
    p.mcpctl(&[
        "add",
        "ev",
        "-c",
        "codex",
        "--url",
        SSE_URL,
        "--transport",
        "sse",
    ])
    .code(2);
    let list = codex_list(&p);
    assert_eq!(list.len(), 2, "{list:#?}");
    let mem = &row(&list, "mem")["transport"];
    assert_eq!(mem["type"], "stdio");
    assert_eq!(mem["command"], "node");
    assert_eq!(mem["args"], json!([memory_server()]));
    assert_eq!(mem["env"], json!({"K": "v"}));
    let web = &row(&list, "web")["transport"];
    assert_eq!(web["type"], "streamable_http");
    assert_eq!(web["url"], URL);
    assert_eq!(web["http_headers"], json!({"X-Api-Key": "k"}));
    p.mcpctl(&["remove", "web", "-c", "codex"]).ok();
    let list = codex_list(&p);
    let names: Vec<&Value> = list.iter().map(|r| &r["name"]).collect();
    assert_eq!(names, [&json!("mem")]);
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn mcpctl_reads_what_codex_writes() {
    let p = peer("codex");
    p.client(&[
        "mcp",
        "add",
        "mem",
        "--env",
        "K=v",
        "--",
        "node",
        "/srv/mem.js",
    ])
    .ok();
    // `codex mcp add` has no header flag (docs/dev/peers.md).
    p.client(&["mcp", "add", "web", "--url", URL]).ok();
    let rows = p.mcpctl_rows("codex");
    assert_eq!(rows.len(), 2, "{rows:#?}");
    assert_check_clean(&p, "codex");
    assert_eq!(
        fields(row(&rows, "mem")),
        stdio_fields("node", &["/srv/mem.js"])
    );
    assert_eq!(
        fields(row(&rows, "web")),
        remote_fields("http", URL, json!({}))
    );
    p.mcpctl(&["remove", "mem", "-c", "codex"]).ok();
    p.mcpctl(&["remove", "web", "-c", "codex"]).ok();
    assert!(codex_list(&p).is_empty());
    assert!(p.mcpctl_rows("codex").is_empty());
}

// ---------------------------------------------------------------- Gemini CLI, Qwen Code

/// gemini and qwen list the same way: `○ name: target (transport) - status`.
fn gemini_like_reads_what_mcpctl_writes(bin: &str, id: &str) {
    let p = peer(bin);
    p.mcpctl_add_all(id, true);
    let mem = memory_server();
    let list = p.client(&["mcp", "list"]).ok();
    assert_listed(&list, "mem", &format!("node {mem} (stdio)"));
    assert_listed(&list, "web", &format!("{URL} (http)"));
    assert_listed(&list, "ev", &format!("{SSE_URL} (sse)"));
    p.mcpctl(&["remove", "web", "-c", id]).ok();
    let list = p.client(&["mcp", "list"]).ok();
    assert_not_listed(&list, "web");
    assert_listed(&list, "mem", &format!("node {mem} (stdio)"));
    assert_listed(&list, "ev", &format!("{SSE_URL} (sse)"));
}

fn mcpctl_reads_what_gemini_like_writes(bin: &str, id: &str) {
    let p = peer(bin);
    // gemini's default scope is the project (cwd): always say `-s user`.
    for args in [
        &["-e", "K=v", "mem", "node", "/srv/mem.js"][..],
        &["-t", "http", "-H", "X-Api-Key: k", "web", URL],
        &["-t", "sse", "-H", "X-Api-Key: k", "ev", SSE_URL],
    ] {
        let mut all = vec!["mcp", "add", "-s", "user"];
        all.extend_from_slice(args);
        p.client(&all).ok();
    }
    let rows = p.mcpctl_rows(id);
    assert_eq!(rows.len(), 3, "{rows:#?}");
    assert_check_clean(&p, id);
    assert_eq!(
        fields(row(&rows, "mem")),
        stdio_fields("node", &["/srv/mem.js"])
    );
    let header = json!({"X-Api-Key": "k"});
    assert_eq!(
        fields(row(&rows, "web")),
        remote_fields("http", URL, header.clone())
    );
    assert_eq!(
        fields(row(&rows, "ev")),
        remote_fields("sse", SSE_URL, header)
    );
    for name in ["mem", "web", "ev"] {
        p.mcpctl(&["remove", name, "-c", id]).ok();
    }
    let list = p.client(&["mcp", "list"]).ok();
    for name in ["mem", "web", "ev"] {
        assert_not_listed(&list, name);
    }
    let text = format!("{}{}", list.stdout, list.stderr);
    assert!(text.contains("No MCP servers configured"), "{text}");
    assert!(p.mcpctl_rows(id).is_empty());
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn gemini_reads_what_mcpctl_writes() {
    gemini_like_reads_what_mcpctl_writes("gemini", "gemini-cli");
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn mcpctl_reads_what_gemini_writes() {
    mcpctl_reads_what_gemini_like_writes("gemini", "gemini-cli");
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn qwen_reads_what_mcpctl_writes() {
    gemini_like_reads_what_mcpctl_writes("qwen", "qwen-code");
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn mcpctl_reads_what_qwen_writes() {
    mcpctl_reads_what_gemini_like_writes("qwen", "qwen-code");
}

/// `qwen mcp reconnect --all`: one line per server, `- NAME: Skipped - REASON` for one Qwen
/// will not start (`qwen mcp list` connects to every server regardless, and 0.24.4's
/// `reconnect NAME` refuses any name: "server-name and all are mutually exclusive").
fn qwen_skipped(p: &Peer, name: &str) -> Option<String> {
    let run = p.client(&["mcp", "reconnect", "--all"]);
    let prefix = format!("- {name}: Skipped - ");
    run.stdout
        .lines()
        .chain(run.stderr.lines())
        .find_map(|l| l.trim().strip_prefix(prefix.as_str()).map(str::to_owned))
}

/// Qwen Code's switch is its `mcp.excluded` list: Qwen skips what `disable` lists there,
/// starts it again after `enable`, and the file is byte-identical.
#[test]
#[ignore = "needs .ci/clients.sh"]
fn qwen_sees_what_disable_writes() {
    let p = peer("qwen");
    for (name, target) in [("off", "/nonexistent/off.js"), ("on", "/nonexistent/on.js")] {
        p.mcpctl(&["add", name, "-c", "qwen-code", "--", "node", target])
            .ok();
    }
    // Qwen migrates the file when it reads it (`"$version": 4` is added): the bytes
    // compared are those after its first read.
    assert_eq!(qwen_skipped(&p, "off"), None);
    let file = p.env.path(".qwen/settings.json");
    let before = std::fs::read(&file).unwrap();
    p.mcpctl(&["disable", "off", "-c", "qwen-code"]).ok();
    assert_eq!(
        qwen_skipped(&p, "off").as_deref(),
        Some("server is excluded in settings (mcp.excluded)")
    );
    assert_eq!(qwen_skipped(&p, "on"), None);
    p.mcpctl(&["enable", "off", "-c", "qwen-code"]).ok();
    assert_eq!(qwen_skipped(&p, "off"), None);
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

// ---------------------------------------------------------------- opencode

/// The `mcp` map of `opencode debug config` (the resolved configuration).
fn opencode_mcp(p: &Peer) -> Value {
    let run = p.client(&["debug", "config"]).ok();
    run.json()["mcp"].clone()
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn opencode_reads_what_mcpctl_writes() {
    let p = peer("opencode");
    p.mcpctl_add_all("opencode", false);
    let mcp = opencode_mcp(&p);
    assert_eq!(
        mcp["mem"],
        json!({"type": "local", "command": ["node", memory_server()], "environment": {"K": "v"}})
    );
    // `debug config` masks header values.
    assert_eq!(
        mcp["web"],
        json!({"type": "remote", "url": URL, "headers": {"X-Api-Key": "***"}})
    );
    p.mcpctl(&["remove", "web", "-c", "opencode"]).ok();
    let mcp = opencode_mcp(&p);
    let names: Vec<&String> = mcp.as_object().unwrap().keys().collect();
    assert_eq!(names, ["mem"]);
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn mcpctl_reads_what_opencode_writes() {
    // `opencode mcp add` prompts (and hangs) only without a name; with one it does not
    // (docs/dev/peers.md). It creates opencode.jsonc when no config exists.
    let p = peer("opencode");
    p.client(&[
        "mcp",
        "add",
        "mem",
        "--env",
        "K=v",
        "--",
        "node",
        "/srv/mem.js",
    ])
    .ok();
    p.client(&["mcp", "add", "web", "--url", URL, "--header", "X-Api-Key=k"])
        .ok();
    let rows = p.mcpctl_rows("opencode");
    assert_eq!(rows.len(), 2, "{rows:#?}");
    assert_check_clean(&p, "opencode");
    assert_eq!(
        row(&rows, "mem")["path"],
        p.env
            .path(".config/opencode/opencode.jsonc")
            .display()
            .to_string()
    );
    assert_eq!(
        fields(row(&rows, "mem")),
        stdio_fields("node", &["/srv/mem.js"])
    );
    assert_eq!(
        fields(row(&rows, "web")),
        remote_fields("http", URL, json!({"X-Api-Key": "k"}))
    );
    p.mcpctl(&["remove", "mem", "-c", "opencode"]).ok();
    p.mcpctl(&["remove", "web", "-c", "opencode"]).ok();
    assert_eq!(opencode_mcp(&p), json!({}));
    assert!(p.mcpctl_rows("opencode").is_empty());
}

/// `opencode mcp list` marks a server `NAME disabled` when `enabled` is false: it sees what
/// `disable` writes, and `enable` gives the file back byte for byte.
#[test]
#[ignore = "needs .ci/clients.sh"]
fn opencode_sees_what_disable_writes() {
    let p = peer("opencode");
    p.mcpctl(&[
        "add",
        "mem",
        "-c",
        "opencode",
        "--",
        "node",
        "/nonexistent/mem.js",
    ])
    .ok();
    p.mcpctl(&[
        "add",
        "web",
        "-c",
        "opencode",
        "--url",
        "http://127.0.0.1:9/mcp",
    ])
    .ok();
    let disabled = |name: &str| {
        let run = p.client(&["mcp", "list"]);
        let want = format!("{name} disabled");
        run.stdout
            .lines()
            .chain(run.stderr.lines())
            .any(|l| l.trim_end().ends_with(&want))
    };
    // opencode adds `$schema` to the file when it reads it: the bytes compared are those
    // after its first read.
    assert!(!disabled("mem"));
    let file = p.env.path(".config/opencode/opencode.json");
    let before = std::fs::read(&file).unwrap();
    p.mcpctl(&["disable", "mem", "-c", "opencode"]).ok();
    assert_eq!(opencode_mcp(&p)["mem"]["enabled"], false);
    assert!(disabled("mem"));
    assert!(!disabled("web"));
    p.mcpctl(&["enable", "mem", "-c", "opencode"]).ok();
    assert!(!disabled("mem"));
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

// ---------------------------------------------------------------- mcpctl apply

/// One manifest applied to Claude Code, Codex and Gemini CLI: each client's own CLI reads
/// the server with the fields the manifest gave (env, header), in its own spelling.
#[test]
#[ignore = "needs .ci/clients.sh"]
fn clients_read_what_apply_writes() {
    let p = peer("claude");
    let bin = npm_bin;
    for name in ["codex", "gemini"] {
        if !bin(name).exists() {
            crate::peer::missing(&format!(
                "{name} cross-check of apply: not installed (run .ci/clients.sh)"
            ));
        }
    }
    let other = |name: &str, args: &[&str]| {
        let out = p
            .env
            .client_command(Path::new("timeout"))
            .args(["-k", "5", "60"])
            .arg(bin(name))
            .args(args)
            .output()
            .unwrap();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: strip_ansi(&String::from_utf8_lossy(&out.stdout)),
            stderr: strip_ansi(&String::from_utf8_lossy(&out.stderr)),
        }
    };
    let mem = memory_server();
    let manifest = format!(
        "clients = [\"claude-code\", \"codex\", \"gemini-cli\"]\n\n[servers.mem]\ncommand = \"node\"\nargs = [\"{mem}\"]\nenv = {{ K = \"v\" }}\n\n[servers.web]\nurl = \"{URL}\"\nheaders = {{ X-Api-Key = \"k\" }}\n"
    );
    p.env
        .write(".config/mcpctl/mcpctl.toml", manifest.as_bytes());
    p.mcpctl(&["apply"]).ok();

    assert_has_lines(
        &claude_get(&p, "mem"),
        &[
            "Type: stdio",
            "Command: node",
            &format!("Args: {mem}"),
            "K=v",
        ],
    );
    assert_has_lines(
        &claude_get(&p, "web"),
        &["Type: http", &format!("URL: {URL}"), "X-Api-Key: k"],
    );

    let codex = other("codex", &["mcp", "list", "--json"]).ok().json();
    let codex = codex.as_array().unwrap();
    let mem_row = &row(codex, "mem")["transport"];
    assert_eq!(mem_row["command"], "node");
    assert_eq!(mem_row["args"], json!([mem]));
    assert_eq!(mem_row["env"], json!({"K": "v"}));
    let web_row = &row(codex, "web")["transport"];
    assert_eq!(web_row["type"], "streamable_http");
    assert_eq!(web_row["http_headers"], json!({"X-Api-Key": "k"}));

    let gemini = other("gemini", &["mcp", "list"]).ok();
    assert_listed(&gemini, "mem", &format!("node {mem} (stdio)"));
    assert_listed(&gemini, "web", &format!("{URL} (http)"));

    // Everything in sync afterwards, as the clients left the files.
    p.mcpctl(&["plan", "--check"]).ok();
}

// ---------------------------------------------------------------- disable / enable

/// Codex reads `enabled = false` and `disabled_tools` as mcpctl writes them, and
/// `enable` gives its file back byte for byte.
#[test]
#[ignore = "needs .ci/clients.sh"]
fn codex_sees_what_disable_writes() {
    let p = peer("codex");
    p.mcpctl_add_all("codex", false);
    let config = p.env.path(".codex/config.toml");
    let before = std::fs::read(&config).unwrap();
    p.mcpctl(&["disable", "mem", "-c", "codex"]).ok();
    p.mcpctl(&["disable", "web", "-c", "codex", "--deny-tools", "a,b"])
        .ok();
    let list = codex_list(&p);
    assert_eq!(row(&list, "mem")["enabled"], false, "{list:#?}");
    assert_eq!(row(&list, "web")["enabled"], true, "{list:#?}");
    let web = p.client(&["mcp", "get", "web", "--json"]).ok().json();
    assert_eq!(web["disabled_tools"], json!(["a", "b"]), "{web:#}");
    p.mcpctl(&["enable", "mem", "-c", "codex"]).ok();
    p.mcpctl(&["enable", "web", "-c", "codex", "--deny-tools", "a,b"])
        .ok();
    assert_eq!(row(&codex_list(&p), "mem")["enabled"], true);
    assert_eq!(std::fs::read(&config).unwrap(), before);
}

/// A `budget --max` cut is read by Codex itself: `codex mcp get NAME --json` shows the
/// tools the cut denied in `disabled_tools`, and one `undo` gives the file back.
#[test]
#[ignore = "needs .ci/clients.sh and .ci/peers.sh"]
fn codex_reads_the_tools_a_budget_cut_denies() {
    let p = peer("codex");
    let mem = memory_server();
    p.mcpctl(&["add", "mem", "-c", "codex", "--", "node", &mem])
        .ok();
    let config = p.env.path(".codex/config.toml");
    let before = std::fs::read(&config).unwrap();
    let report = p
        .mcpctl(&["budget", "--measure", "-c", "codex", "--json"])
        .ok()
        .json();
    let total = report["clients"][0]["tokens"].as_u64().unwrap();
    let max = (total - 1).to_string();
    let cut = p
        .mcpctl(&["budget", "--max", &max, "-c", "codex", "--apply", "--json"])
        .ok()
        .json();
    let denied: Vec<Value> = cut["cuts"][0]["changes"][0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["tool"].clone())
        .collect();
    assert_eq!(denied.len(), 1, "{cut:#}");
    let got = p.client(&["mcp", "get", "mem", "--json"]).ok().json();
    assert_eq!(got["disabled_tools"], Value::Array(denied), "{got:#}");
    p.mcpctl(&["undo"]).ok();
    assert_eq!(std::fs::read(&config).unwrap(), before);
}

/// `codex mcp get NAME --json` run with the working directory at `rel` (under HOME).
fn codex_get_in(p: &Peer, rel: &str, name: &str) -> Value {
    let dir = p.env.path(rel);
    std::fs::create_dir_all(&dir).unwrap();
    let out = p
        .env
        .client_command(Path::new("timeout"))
        .args(["-k", "5", "60"])
        .arg(&p.bin)
        .args(["mcp", "get", name, "--json"])
        .current_dir(&dir)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "codex mcp get {name} in {rel}: {e}\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Issue 41, the cut in the project scope: in a project Codex trusts, `budget --max
/// --apply` writes `disabled_tools` alone into the project's `.codex/config.toml`, and Codex
/// itself merges it into the user's entry: `codex mcp get` run in the project shows the
/// denied tool (beside the one the user denied, since the project's list replaces the
/// user's) and the user's command and variable; run elsewhere it shows the user's list
/// only. The user's file is untouched; one `undo` removes the file the cut created.
#[test]
#[ignore = "needs .ci/clients.sh and .ci/peers.sh"]
fn codex_reads_a_budget_cut_only_in_the_trusted_project() {
    let p = peer("codex");
    let mem = memory_server();
    p.mcpctl(&["add", "mem", "-c", "codex", "-e", "K=v", "--", "node", &mem])
        .ok();
    p.mcpctl(&[
        "disable",
        "mem",
        "-c",
        "codex",
        "--deny-tools",
        "read_graph",
    ])
    .ok();
    let config = p.env.path(".codex/config.toml");
    let proj = p.env.path("proj").display().to_string();
    let mut user = std::fs::read_to_string(&config).unwrap();
    user.push_str(&format!(
        "\n[projects.{proj:?}]\ntrust_level = \"trusted\"\n"
    ));
    std::fs::write(&config, &user).unwrap();
    let report = p
        .env
        .run_in("proj", &["budget", "--measure", "-c", "codex", "--json"])
        .ok()
        .json();
    let total = report["clients"][0]["tokens"].as_u64().unwrap();
    let max = (total - 1).to_string();
    let cut = p
        .env
        .run_in(
            "proj",
            &["budget", "--max", &max, "-c", "codex", "--apply", "--json"],
        )
        .ok()
        .json();
    let denied = cut["cuts"][0]["changes"][0]["tools"][0]["tool"]
        .as_str()
        .unwrap_or_else(|| panic!("{cut:#}"))
        .to_owned();
    assert_eq!(std::fs::read_to_string(&config).unwrap(), user);
    let here = codex_get_in(&p, "proj", "mem");
    assert_eq!(
        here["disabled_tools"],
        json!(["read_graph", denied]),
        "{here:#}"
    );
    assert_eq!(here["transport"]["command"], "node", "{here:#}");
    assert_eq!(here["transport"]["env"]["K"], "v", "{here:#}");
    let elsewhere = codex_get_in(&p, "other", "mem");
    assert_eq!(
        elsewhere["disabled_tools"],
        json!(["read_graph"]),
        "{elsewhere:#}"
    );
    p.env.run_in("proj", &["undo"]).ok();
    assert!(!p.env.path("proj/.codex/config.toml").exists());
    assert_eq!(
        codex_get_in(&p, "proj", "mem")["disabled_tools"],
        json!(["read_graph"])
    );
}

/// Gemini CLI shows a server mcpctl disabled as `Disabled` (its enablement file), and
/// mcpctl reads what `gemini mcp enable/disable` write.
#[test]
#[ignore = "needs .ci/clients.sh"]
fn gemini_sees_what_disable_writes() {
    let p = peer("gemini");
    // A trusted folder: gemini reports each server's own state, not "untrusted".
    p.env.trust_in_gemini();
    p.mcpctl(&[
        "add",
        "off",
        "-c",
        "gemini-cli",
        "--",
        "node",
        "/nonexistent/off.js",
    ])
    .ok();
    p.mcpctl(&[
        "add",
        "on",
        "-c",
        "gemini-cli",
        "--url",
        "http://127.0.0.1:9/mcp",
    ])
    .ok();
    p.mcpctl(&["disable", "off", "-c", "gemini-cli"]).ok();
    let list = p.client(&["mcp", "list"]).ok();
    let off = listed(&list, "off").unwrap_or_default();
    assert!(off.ends_with("- Disabled"), "off: `{off}`\n{}", list.stdout);
    let on = listed(&list, "on").unwrap_or_default();
    assert!(!on.ends_with("- Disabled"), "on: `{on}`\n{}", list.stdout);
    // The other way round: the file as gemini's own switch writes it
    // (`JSON.stringify(config, null, 2)`, names lower-cased). `gemini mcp enable/disable`
    // themselves cannot be used: in 0.61.0 they look the name up among the keys of
    // `{mcpServers, blockedServerNames}` and always answer "not found" (docs/dev/peers.md).
    p.env.write(
        ".gemini/mcp-server-enablement.json",
        b"{\n  \"on\": {\n    \"enabled\": false\n  }\n}",
    );
    let rows = p.mcpctl_rows("gemini-cli");
    assert_eq!(row(&rows, "off")["disabled"], false);
    assert_eq!(row(&rows, "on")["disabled"], true);
    p.mcpctl(&["enable", "on", "-c", "gemini-cli"]).ok();
    let list = p.client(&["mcp", "list"]).ok();
    let on = listed(&list, "on").unwrap_or_default();
    assert!(!on.ends_with("- Disabled"), "on: `{on}`\n{}", list.stdout);
}

/// Claude Code reads the per-project `disabledMcpServers` mcpctl writes for a local
/// entry, and does not see a parked user entry until `enable` puts it back (even after
/// Claude Code rewrote its file in between).
#[test]
#[ignore = "needs .ci/clients.sh"]
fn claude_sees_what_disable_writes() {
    let p = peer("claude");
    p.mcpctl(&[
        "add",
        "loc",
        "-c",
        "claude-code",
        "--scope",
        "local",
        "--",
        "true",
    ])
    .ok();
    p.mcpctl(&[
        "add",
        "usr",
        "-c",
        "claude-code",
        "--url",
        "http://127.0.0.1:9/mcp",
    ])
    .ok();
    p.mcpctl(&["disable", "loc", "-c", "claude-code"]).ok();
    assert_has_lines(
        &claude_get(&p, "loc"),
        &["Status: ⊘ Disabled for this project (re-enable via /mcp)"],
    );
    p.mcpctl(&["disable", "usr", "-c", "claude-code"]).ok();
    let run = p.client(&["mcp", "get", "usr"]);
    assert_ne!(run.code, 0, "a parked entry must be gone: {}", run.stdout);
    p.mcpctl(&["enable", "usr", "-c", "claude-code"]).ok();
    p.mcpctl(&["enable", "loc", "-c", "claude-code"]).ok();
    let usr = claude_get(&p, "usr");
    assert_has_lines(&usr, &["URL: http://127.0.0.1:9/mcp"]);
    let loc = claude_get(&p, "loc");
    assert!(
        !loc.iter().any(|l| l.contains("Disabled")),
        "{}",
        loc.join("\n")
    );
    let rows = p.mcpctl_rows("claude-code");
    assert!(rows.iter().all(|r| r["disabled"] == false), "{rows:#?}");
}

/// Issue 38 item 8, re-checked with claude 2.1.332: a maintainer said Claude Code honours
/// `disabledMcpServers` in user and project *settings* files (anthropics/claude-code#11085),
/// but this build still connects a server listed there (it reads the list only under the
/// project's entry of `~/.claude.json`). So `disable` of a user entry keeps parking it and
/// writes no settings file; re-run this against a newer build before switching.
#[test]
#[ignore = "needs .ci/clients.sh"]
fn claude_ignores_disabled_servers_in_settings_files_so_disable_parks() {
    let p = peer("claude");
    p.mcpctl(&["add", "usr", "-c", "claude-code", "--", "true"])
        .ok();
    let off = br#"{ "disabledMcpServers": ["usr"] }"#;
    for rel in [
        ".claude/settings.json",
        "proj/.claude/settings.json",
        "proj/.claude/settings.local.json",
    ] {
        p.env.write(rel, off);
    }
    let project = p.env.path("proj");
    let mut cmd = p.env.client_command(Path::new("timeout"));
    cmd.current_dir(&project)
        .args(["-k", "5", "60"])
        .arg(&p.bin)
        .args(["mcp", "get", "usr"]);
    let out = client_cli::quiet(&mut cmd).output().unwrap();
    let shown = strip_ansi(&String::from_utf8_lossy(&out.stdout));
    let status = shown
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("Status:"))
        .unwrap_or_else(|| panic!("no status: {shown}"));
    assert!(!status.contains("Disabled"), "{status}");
    // So mcpctl's switch for a user entry stays parking, not a settings list.
    p.env.write(".claude/settings.json", b"{}");
    p.mcpctl(&["disable", "usr", "-c", "claude-code"]).ok();
    assert_eq!(p.env.read_str(".claude/settings.json"), "{}");
    let run = p.client(&["mcp", "get", "usr"]);
    assert_ne!(run.code, 0, "a parked entry must be gone: {}", run.stdout);
}

/// mcpctl reads the three servers the client's own `mcp add` wrote (`mem` with `K=v`,
/// `web` and `ev` with `X-Api-Key: k`) with exactly those fields, and `check` finds
/// nothing wrong in the client's own file.
#[track_caller]
fn assert_reads_the_three(p: &Peer, id: &str) {
    let rows = p.mcpctl_rows(id);
    assert_eq!(rows.len(), 3, "{rows:#?}");
    assert_check_clean(p, id);
    assert_eq!(
        fields(row(&rows, "mem")),
        stdio_fields("node", &["/srv/mem.js"])
    );
    let header = json!({"X-Api-Key": "k"});
    assert_eq!(
        fields(row(&rows, "web")),
        remote_fields("http", URL, header.clone())
    );
    assert_eq!(
        fields(row(&rows, "ev")),
        remote_fields("sse", SSE_URL, header)
    );
}

// ---------------------------------------------------------------- GitHub Copilot CLI

/// `copilot mcp list --json`: the `mcpServers` map (with `enabled` per server).
fn copilot_list(p: &Peer) -> Value {
    p.client(&["mcp", "list", "--json"]).ok().json()["mcpServers"].clone()
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn copilot_reads_what_mcpctl_writes() {
    let p = peer("copilot");
    p.mcpctl_add_all("copilot-cli", true);
    let list = copilot_list(&p);
    let mem = &list["mem"];
    assert_eq!(
        (&mem["type"], &mem["command"], &mem["args"], &mem["env"]),
        (
            &json!("local"),
            &json!("node"),
            &json!([memory_server()]),
            &json!({"K": "v"})
        ),
        "{list:#}"
    );
    assert_eq!(mem["enabled"], true);
    for (name, kind, url) in [("web", "http", URL), ("ev", "sse", SSE_URL)] {
        let server = &list[name];
        assert_eq!(
            (&server["type"], &server["url"], &server["headers"]),
            (&json!(kind), &json!(url), &json!({"X-Api-Key": "k"})),
            "{list:#}"
        );
    }
    p.mcpctl(&["remove", "web", "-c", "copilot-cli"]).ok();
    let list = copilot_list(&p);
    let names: Vec<&String> = list.as_object().unwrap().keys().collect();
    assert_eq!(names, ["mem", "ev"]);
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn mcpctl_reads_what_copilot_writes() {
    let p = peer("copilot");
    p.client(&[
        "mcp",
        "add",
        "mem",
        "--env",
        "K=v",
        "--",
        "node",
        "/srv/mem.js",
    ])
    .ok();
    for (kind, name, url) in [("http", "web", URL), ("sse", "ev", SSE_URL)] {
        p.client(&[
            "mcp",
            "add",
            "--transport",
            kind,
            "--header",
            "X-Api-Key: k",
            name,
            url,
        ])
        .ok();
    }
    assert_reads_the_three(&p, "copilot-cli");
    for name in ["mem", "web", "ev"] {
        p.mcpctl(&["remove", name, "-c", "copilot-cli"]).ok();
    }
    assert_eq!(copilot_list(&p), json!({}));
}

/// Copilot's own switch is `disabledMcpServers` in settings.json: its list shows what
/// `mcpctl disable` did, mcpctl shows what `copilot mcp disable` did, and the servers file
/// comes back byte for byte.
#[test]
#[ignore = "needs .ci/clients.sh"]
fn copilot_sees_what_disable_writes() {
    let p = peer("copilot");
    p.mcpctl_add_all("copilot-cli", false);
    let servers = p.env.path(".copilot/mcp-config.json");
    let before = std::fs::read(&servers).unwrap();
    p.mcpctl(&["disable", "mem", "-c", "copilot-cli"]).ok();
    let list = copilot_list(&p);
    assert_eq!(list["mem"]["enabled"], false, "{list:#}");
    assert_eq!(list["web"]["enabled"], true, "{list:#}");
    p.client(&["mcp", "disable", "web"]).ok();
    let rows = p.mcpctl_rows("copilot-cli");
    assert_eq!(row(&rows, "web")["disabled"], true, "{rows:#?}");
    p.mcpctl(&["enable", "mem", "-c", "copilot-cli"]).ok();
    p.client(&["mcp", "enable", "web"]).ok();
    let list = copilot_list(&p);
    assert_eq!(
        (&list["mem"]["enabled"], &list["web"]["enabled"]),
        (&json!(true), &json!(true))
    );
    let rows = p.mcpctl_rows("copilot-cli");
    assert_eq!(row(&rows, "web")["disabled"], false);
    assert_eq!(std::fs::read(&servers).unwrap(), before);
}

/// A client without a switch in its file: `disable` parks `mem` (the client's own list,
/// `names`, no longer has it) and `enable` gives the file back byte for byte.
#[track_caller]
fn assert_park_round_trip(p: &Peer, id: &str, rel: &str, names: &dyn Fn() -> Vec<Value>) {
    p.mcpctl_add_all(id, false);
    let file = p.env.path(rel);
    let before = std::fs::read(&file).unwrap();
    p.mcpctl(&["disable", "mem", "-c", id]).ok();
    assert_eq!(names(), [json!("web")]);
    p.mcpctl(&["enable", "mem", "-c", id]).ok();
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert_eq!(names(), [json!("mem"), json!("web")]);
}

// ---------------------------------------------------------------- Amp

/// `amp mcp list --json` (local settings only: the account part needs the network, and
/// amp says so on stderr), by name.
fn amp_list(p: &Peer) -> Vec<Value> {
    let run = p.client(&["mcp", "list", "--json"]);
    serde_json::from_str::<Value>(&run.stdout)
        .unwrap_or_else(|e| panic!("amp mcp list --json: {e}\n{}\n{}", run.stdout, run.stderr))
        .as_array()
        .unwrap()
        .clone()
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn amp_reads_what_mcpctl_writes() {
    let p = peer("amp");
    p.mcpctl_add_all("amp", false);
    let list = amp_list(&p);
    assert_eq!(
        row(&list, "mem")["spec"],
        json!({"command": "node", "args": [memory_server()], "env": {"K": "v"}})
    );
    assert_eq!(
        row(&list, "web")["spec"],
        json!({"url": URL, "headers": {"X-Api-Key": "k"}})
    );
    p.mcpctl(&["remove", "web", "-c", "amp"]).ok();
    let names: Vec<Value> = amp_list(&p).iter().map(|r| r["name"].clone()).collect();
    assert_eq!(names, [json!("mem")]);
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn mcpctl_reads_what_amp_writes() {
    let p = peer("amp");
    p.client(&[
        "mcp",
        "add",
        "mem",
        "--env",
        "K=v",
        "--",
        "node",
        "/srv/mem.js",
    ])
    .ok();
    p.client(&["mcp", "add", "web", "--header", "X-Api-Key=k", URL])
        .ok();
    let rows = p.mcpctl_rows("amp");
    assert_eq!(rows.len(), 2, "{rows:#?}");
    assert_check_clean(&p, "amp");
    assert_eq!(
        fields(row(&rows, "mem")),
        stdio_fields("node", &["/srv/mem.js"])
    );
    assert_eq!(
        fields(row(&rows, "web")),
        remote_fields("http", URL, json!({"X-Api-Key": "k"}))
    );
    p.client(&["mcp", "remove", "web"]).ok();
    p.mcpctl(&["remove", "mem", "-c", "amp"]).ok();
    assert!(p.mcpctl_rows("amp").is_empty());
    assert!(amp_list(&p).is_empty());
}

/// Amp has no switch in its file: `disable` parks the entry, so amp no longer lists it,
/// and `enable` puts the file back byte for byte.
#[test]
#[ignore = "needs .ci/clients.sh"]
fn amp_sees_what_disable_writes() {
    let p = peer("amp");
    assert_park_round_trip(&p, "amp", ".config/amp/settings.json", &|| {
        amp_list(&p).iter().map(|r| r["name"].clone()).collect()
    });
}

// ---------------------------------------------------------------- Augment (Auggie CLI)

/// `auggie mcp list --json` `servers` (the account part needs the network: a warning).
fn auggie_list(p: &Peer) -> Vec<Value> {
    let run = p.client(&["mcp", "list", "--json"]);
    let start = run.stdout.find('{').unwrap_or(0);
    serde_json::from_str::<Value>(&run.stdout[start..]).unwrap_or_else(|e| {
        panic!(
            "auggie mcp list --json: {e}\n{}\n{}",
            run.stdout, run.stderr
        )
    })["servers"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn auggie_reads_what_mcpctl_writes() {
    let p = peer("auggie");
    p.mcpctl_add_all("augment", true);
    let list = auggie_list(&p);
    let mem = row(&list, "mem");
    assert_eq!(
        (&mem["transport"], &mem["command"]),
        (&json!("stdio"), &json!(format!("node {}", memory_server()))),
        "{list:#?}"
    );
    for (name, kind, url) in [("web", "http", URL), ("ev", "sse", SSE_URL)] {
        let server = row(&list, name);
        assert_eq!(
            (&server["transport"], &server["url"]),
            (&json!(kind), &json!(url)),
            "{list:#?}"
        );
    }
    p.mcpctl(&["remove", "web", "-c", "augment"]).ok();
    let names: Vec<Value> = auggie_list(&p).iter().map(|r| r["name"].clone()).collect();
    assert_eq!(names, [json!("mem"), json!("ev")]);
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn mcpctl_reads_what_auggie_writes() {
    let p = peer("auggie");
    p.client(&[
        "mcp",
        "add",
        "mem",
        "-e",
        "K=v",
        "--",
        "node",
        "/srv/mem.js",
    ])
    .ok();
    for (kind, name, url) in [("http", "web", URL), ("sse", "ev", SSE_URL)] {
        p.client(&[
            "mcp",
            "add",
            name,
            "-t",
            kind,
            "-u",
            url,
            "-H",
            "X-Api-Key: k",
        ])
        .ok();
    }
    assert_reads_the_three(&p, "augment");
    for name in ["mem", "web", "ev"] {
        p.client(&["mcp", "remove", name]).ok();
    }
    assert!(p.mcpctl_rows("augment").is_empty());
}

/// Auggie has no switch in its file: `disable` parks, `enable` restores the bytes.
#[test]
#[ignore = "needs .ci/clients.sh"]
fn auggie_sees_what_disable_writes() {
    let p = peer("auggie");
    assert_park_round_trip(&p, "augment", ".augment/settings.json", &|| {
        auggie_list(&p).iter().map(|r| r["name"].clone()).collect()
    });
}

// ---------------------------------------------------------------- Factory Droid

/// The words of `droid mcp list`'s line for `name` (`mem stdio disabled [user]`).
fn droid_line(run: &Run, name: &str) -> Option<Vec<String>> {
    run.stdout
        .lines()
        .map(|l| l.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
        .find(|words| words.first().is_some_and(|w| w == name))
}

fn droid_list(p: &Peer) -> Run {
    p.client(&["mcp", "list"]).ok()
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn droid_reads_what_mcpctl_writes() {
    let p = peer("droid");
    p.mcpctl_add_all("factory", true);
    let list = droid_list(&p);
    for (name, kind) in [("mem", "stdio"), ("web", "http"), ("ev", "sse")] {
        let line = droid_line(&list, name).unwrap_or_else(|| panic!("{name}: {}", list.stdout));
        assert_eq!(
            line.get(1).map(String::as_str),
            Some(kind),
            "{}",
            list.stdout
        );
    }
    p.mcpctl(&["remove", "web", "-c", "factory"]).ok();
    assert!(droid_line(&droid_list(&p), "web").is_none());
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn mcpctl_reads_what_droid_writes() {
    let p = peer("droid");
    p.client(&["mcp", "add", "mem", "--env", "K=v", "node", "/srv/mem.js"])
        .ok();
    for (kind, name, url) in [("http", "web", URL), ("sse", "ev", SSE_URL)] {
        p.client(&[
            "mcp",
            "add",
            name,
            "--type",
            kind,
            "--header",
            "X-Api-Key: k",
            url,
        ])
        .ok();
    }
    assert_reads_the_three(&p, "factory");
    for name in ["mem", "web", "ev"] {
        p.client(&["mcp", "remove", name]).ok();
    }
    assert!(p.mcpctl_rows("factory").is_empty());
}

/// Droid reads `"disabled": true` as mcpctl writes it; `enable` restores the bytes.
#[test]
#[ignore = "needs .ci/clients.sh"]
fn droid_sees_what_disable_writes() {
    let p = peer("droid");
    p.mcpctl_add_all("factory", false);
    let file = p.env.path(".factory/mcp.json");
    let before = std::fs::read(&file).unwrap();
    p.mcpctl(&["disable", "mem", "-c", "factory"]).ok();
    let line = droid_line(&droid_list(&p), "mem").unwrap();
    assert_eq!(
        line.get(2).map(String::as_str),
        Some("disabled"),
        "{line:?}"
    );
    p.mcpctl(&["enable", "mem", "-c", "factory"]).ok();
    assert_eq!(std::fs::read(&file).unwrap(), before);
    let line = droid_line(&droid_list(&p), "mem").unwrap();
    assert_ne!(
        line.get(2).map(String::as_str),
        Some("disabled"),
        "{line:?}"
    );
}

// ---------------------------------------------------------------- Kilo Code CLI

/// The `mcp` map of `kilo debug config` (the resolved configuration, as opencode's).
fn kilo_mcp(p: &Peer) -> Value {
    let run = p.client(&["debug", "config"]).ok();
    run.json()["mcp"].clone()
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn kilo_reads_what_mcpctl_writes() {
    let p = peer("kilo");
    p.mcpctl_add_all("kilo", false);
    let mcp = kilo_mcp(&p);
    assert_eq!(
        mcp["mem"],
        json!({"type": "local", "command": ["node", memory_server()], "environment": {"K": "v"}})
    );
    assert_eq!(mcp["web"]["type"], "remote");
    assert_eq!(mcp["web"]["url"], URL);
    p.mcpctl(&["remove", "web", "-c", "kilo"]).ok();
    let mcp = kilo_mcp(&p);
    let names: Vec<&String> = mcp.as_object().unwrap().keys().collect();
    assert_eq!(names, ["mem"]);
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn mcpctl_reads_what_kilo_writes() {
    let p = peer("kilo");
    p.client(&[
        "mcp",
        "add",
        "mem",
        "--env",
        "K=v",
        "--",
        "node",
        "/srv/mem.js",
    ])
    .ok();
    p.client(&["mcp", "add", "web", "--url", URL, "--header", "X-Api-Key=k"])
        .ok();
    let rows = p.mcpctl_rows("kilo");
    assert_eq!(rows.len(), 2, "{rows:#?}");
    assert_check_clean(&p, "kilo");
    assert_eq!(
        fields(row(&rows, "mem")),
        stdio_fields("node", &["/srv/mem.js"])
    );
    assert_eq!(
        fields(row(&rows, "web")),
        remote_fields("http", URL, json!({"X-Api-Key": "k"}))
    );
    // `kilo mcp` has no remove: mcpctl's remove is the only one, and kilo agrees.
    p.mcpctl(&["remove", "mem", "-c", "kilo"]).ok();
    p.mcpctl(&["remove", "web", "-c", "kilo"]).ok();
    assert_eq!(kilo_mcp(&p), json!({}));
}

/// Kilo reads `"enabled": false` as mcpctl writes it; `enable` restores the bytes. Kilo
/// rewrites its file when it reads it (it adds `$schema` and a default `permission`), so
/// the bytes compared are those after its first read.
#[test]
#[ignore = "needs .ci/clients.sh"]
fn kilo_sees_what_disable_writes() {
    let p = peer("kilo");
    p.mcpctl_add_all("kilo", false);
    let file = p.env.path(".config/kilo/kilo.jsonc");
    assert_eq!(kilo_mcp(&p)["web"]["type"], "remote");
    let before = std::fs::read(&file).unwrap();
    p.mcpctl(&["disable", "web", "-c", "kilo"]).ok();
    assert_eq!(kilo_mcp(&p)["web"]["enabled"], false);
    p.mcpctl(&["enable", "web", "-c", "kilo"]).ok();
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

// ---------------------------------------------------------------- Cline CLI

const CLINE_FILE: &str = ".cline/data/settings/cline_mcp_settings.json";

/// `cline config mcp --json`: `[{name, transportType, disabled, path}]`, by name. Cline
/// refuses the whole file when one entry does not fit its schema, so this also shows that
/// every entry parsed.
fn cline_list(p: &Peer) -> Vec<Value> {
    let run = p.client(&["config", "mcp", "--json"]);
    serde_json::from_str::<Value>(&run.stdout)
        .unwrap_or_else(|e| panic!("cline config mcp --json: {e}\n{}\n{}", run.stdout, run.stderr))
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!({"name": r["name"], "transport": r["transportType"], "disabled": r["disabled"]}))
        .collect()
}

fn cline_row(name: &str, transport: &str, disabled: bool) -> Value {
    json!({"name": name, "transport": transport, "disabled": disabled})
}

/// mcpctl writes → Cline lists it; `disable` → Cline sees it off, `enable` → the file is
/// byte-identical; Cline's own remove of mcpctl's entry → mcpctl no longer lists it.
#[test]
#[ignore = "needs .ci/clients.sh"]
fn cline_reads_what_mcpctl_writes() {
    let p = peer("cline");
    p.mcpctl_add_all("cline-cli", true);
    assert_eq!(
        cline_list(&p),
        [
            cline_row("ev", "sse", false),
            cline_row("mem", "stdio", false),
            cline_row("web", "streamableHttp", false)
        ]
    );
    // The shape Cline's own `mcp add` writes.
    let file = crate::env::jsonc(&p.env.read(CLINE_FILE));
    assert_eq!(
        file["mcpServers"]["mem"],
        json!({"transport": {"type": "stdio", "command": "node", "args": [memory_server()], "env": {"K": "v"}}})
    );
    let before = p.env.read(CLINE_FILE);
    p.mcpctl(&["disable", "mem", "-c", "cline-cli"]).ok();
    assert_eq!(cline_list(&p)[1], cline_row("mem", "stdio", true));
    p.mcpctl(&["enable", "mem", "-c", "cline-cli"]).ok();
    assert_eq!(p.env.read(CLINE_FILE), before);
    p.client(&["mcp", "remove", "web"]).ok();
    p.mcpctl(&["remove", "ev", "-c", "cline-cli"]).ok();
    let names: Vec<Value> = p
        .mcpctl_rows("cline-cli")
        .iter()
        .map(|r| r["name"].clone())
        .collect();
    assert_eq!(names, [json!("mem")]);
    assert_eq!(cline_list(&p), [cline_row("mem", "stdio", false)]);
}

/// Cline's `mcp add --yes` nests each entry under `transport`: mcpctl lists it exactly,
/// `check` has nothing to say, and mcpctl's disable and remove are what Cline then sees.
#[test]
#[ignore = "needs .ci/clients.sh"]
fn mcpctl_reads_what_cline_writes() {
    let p = peer("cline");
    p.client(&["mcp", "add", "mem", "--yes", "--", "node", "/srv/mem.js"])
        .ok();
    p.client(&[
        "mcp",
        "add",
        "web",
        URL,
        "--transport",
        "http",
        "--header",
        "X-Api-Key: k",
        "--yes",
    ])
    .ok();
    let rows = p.mcpctl_rows("cline-cli");
    assert_eq!(rows.len(), 2, "{rows:#?}");
    assert_check_clean(&p, "cline-cli");
    assert_eq!(
        fields(row(&rows, "mem")),
        json!({"transport": "stdio", "command": "node", "args": ["/srv/mem.js"], "url": null,
               "env": {}, "headers": {}})
    );
    assert_eq!(
        fields(row(&rows, "web")),
        remote_fields("http", URL, json!({"X-Api-Key": "k"}))
    );
    let before = p.env.read(CLINE_FILE);
    p.mcpctl(&["disable", "web", "-c", "cline-cli"]).ok();
    assert_eq!(cline_list(&p)[1], cline_row("web", "streamableHttp", true));
    p.mcpctl(&["enable", "web", "-c", "cline-cli"]).ok();
    assert_eq!(p.env.read(CLINE_FILE), before);
    p.mcpctl(&["remove", "mem", "-c", "cline-cli"]).ok();
    p.mcpctl(&["remove", "web", "-c", "cline-cli"]).ok();
    assert!(cline_list(&p).is_empty());
}

// ---------------------------------------------------------------- Mistral Vibe

/// Vibe from its venv (`.ci/clients.sh`), run through the venv's own python so the
/// script's shebang (an absolute path at install time) does not matter.
fn vibe() -> Peer {
    let python = repo().join(".cache/clients/vibe/bin/python");
    let script = repo().join(".cache/clients/vibe/bin/vibe");
    if !python.exists() || !script.exists() {
        crate::peer::missing(&format!(
            "vibe cross-check: {} missing (run .ci/clients.sh; needs Python >= 3.12)",
            script.display()
        ));
    }
    let mut p = peer_at(python);
    p.prefix = vec![script.display().to_string()];
    p
}

/// `vibe mcp` has no list: a second `vibe mcp add` of the same URL is refused with the
/// name of the entry vibe already read, which is what shows it parsed mcpctl's entry.
#[test]
#[ignore = "needs .ci/clients.sh"]
fn vibe_reads_what_mcpctl_writes() {
    let p = vibe();
    p.mcpctl(&[
        "add",
        "web",
        "-c",
        "mistral-vibe",
        "--url",
        URL,
        "-H",
        "X-Api-Key=k",
        "-H",
        "Authorization=Bearer ${WEB_KEY}",
    ])
    .ok();
    // The shape vibe's own `mcp add --header X-Api-Key=k --api-key-env WEB_KEY` writes.
    let text = String::from_utf8(p.env.read(".vibe/config.toml")).unwrap();
    let doc: toml::Value = toml::from_str(&text).unwrap();
    assert_eq!(
        serde_json::to_value(&doc["mcp_servers"][0]["auth"]).unwrap(),
        json!({"type": "static", "api_key_env": "WEB_KEY", "headers": {"X-Api-Key": "k"}}),
        "{text}"
    );
    let again = p.client(&["mcp", "add", "other", "--url", URL, "--transport", "http"]);
    assert!(
        again.stderr.contains("already configured as `web`"),
        "{}\n{}",
        again.stdout,
        again.stderr
    );
    p.client(&["mcp", "remove", "web"]).ok();
    assert!(p.mcpctl_rows("mistral-vibe").is_empty());
}

#[test]
#[ignore = "needs .ci/clients.sh"]
fn mcpctl_reads_what_vibe_writes() {
    let p = vibe();
    p.client(&[
        "mcp",
        "add",
        "mem",
        "--transport",
        "stdio",
        "--command",
        "node",
        "--arg",
        "/srv/mem.js",
        "--env",
        "K=v",
    ])
    .ok();
    // Static auth (without a key or header vibe tries an OAuth login): `--header` goes
    // under `[mcp_servers.auth.headers]`, `--api-key-env` is `auth.api_key_env`, sent as
    // `Authorization: Bearer <the variable's value>`.
    p.client(&[
        "mcp",
        "add",
        "web",
        "--url",
        URL,
        "--transport",
        "http",
        "--header",
        "X-Api-Key=k",
        "--api-key-env",
        "WEB_KEY",
    ])
    .ok();
    let rows = p.mcpctl_rows("mistral-vibe");
    assert_eq!(rows.len(), 2, "{rows:#?}");
    assert_check_clean(&p, "mistral-vibe");
    assert_eq!(
        fields(row(&rows, "mem")),
        stdio_fields("node", &["/srv/mem.js"])
    );
    assert_eq!(
        fields(row(&rows, "web")),
        remote_fields(
            "http",
            URL,
            json!({"X-Api-Key": "k", "Authorization": "Bearer ${WEB_KEY}"})
        )
    );
    p.mcpctl(&["disable", "mem", "-c", "mistral-vibe"]).ok();
    assert_eq!(row(&p.mcpctl_rows("mistral-vibe"), "mem")["disabled"], true);
    p.mcpctl(&["enable", "mem", "-c", "mistral-vibe"]).ok();
    p.mcpctl(&["remove", "mem", "-c", "mistral-vibe"]).ok();
    // vibe no longer has `mem`: its own remove says so.
    let gone = p.client(&["mcp", "remove", "mem"]);
    let said = format!("{}{}", gone.stdout, gone.stderr);
    assert!(said.contains("`mem` is not configured"), "{said}");
    p.client(&["mcp", "remove", "web"]).ok();
    assert!(p.mcpctl_rows("mistral-vibe").is_empty());
}

/// The capabilities `[client.loading] capabilities` records for `id` in clients.toml.
fn row_capabilities(id: &str) -> Value {
    let text = std::fs::read_to_string(repo().join("clients.toml")).unwrap();
    let table: toml::Value = toml::from_str(&text).unwrap();
    let row = table["client"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"].as_str() == Some(id))
        .unwrap_or_else(|| panic!("no row `{id}`"));
    let capabilities = row
        .get("loading")
        .and_then(|l| l.get("capabilities"))
        .unwrap_or_else(|| panic!("`{id}` records no capabilities"));
    serde_json::to_value(capabilities).unwrap()
}

/// What the client sent in `initialize`, from the fixture's `log-requests` file.
fn initialize_sent(log: &Path) -> Value {
    let text = std::fs::read_to_string(log)
        .unwrap_or_else(|e| panic!("the client never started the server ({e})"));
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|m| m["method"] == "initialize")
        .unwrap_or_else(|| panic!("no initialize in {text}"))["params"]
        .clone()
}

/// Issue 38 item 6 / 41: `tools --as`, `doctor -c` and `budget` declare what each client
/// declares, from its row. Each client CLI that connects from the command line starts the
/// fixture server (its `log-requests` mode keeps every line it was sent) with an entry
/// `mcpctl add` wrote, and the `initialize` it sends carries exactly the row's
/// capabilities: OpenCode and Kilo `{roots}`, Amp and Factory Droid none.
#[test]
#[ignore = "needs .ci/clients.sh and cargo build -p fixture-server"]
fn clients_declare_the_capabilities_their_rows_record() {
    let fixture = crate::fixture_server::fixture_binary()
        .display()
        .to_string();
    // (row, CLI, its command that connects to every server, extra environment)
    type Case<'a> = (&'a str, &'a str, &'a [&'a str], &'a [(&'a str, &'a str)]);
    let cases: [Case<'_>; 4] = [
        ("opencode", "opencode", &["mcp", "list"], &[]),
        ("kilo", "kilo", &["mcp", "list"], &[]),
        // `amp mcp doctor` wants a key before it starts anything; none is checked offline.
        (
            "amp",
            "amp",
            &["mcp", "doctor"],
            &[("AMP_API_KEY", "sgamp_test")],
        ),
        ("factory", "droid", &["mcp", "list"], &[]),
    ];
    for (id, bin, args, extra) in cases {
        let mut p = peer(bin);
        for (k, v) in extra {
            p.env.extra_env.push(((*k).into(), (*v).into()));
        }
        let log = p.env.path("requests.log");
        let mode = format!("log-requests={}", log.display());
        p.mcpctl(&["add", "fx", "-c", id, "--", &fixture, &mode])
            .ok();
        let run = p.client(args);
        let sent = initialize_sent(&log);
        assert_eq!(
            sent["capabilities"],
            row_capabilities(id),
            "{id}: {bin} sent {sent:#}\n{}\n{}",
            run.stdout,
            run.stderr
        );
    }
}

/// server-everything's script from `.ci/peers.sh` (fails the test when missing).
fn everything_server() -> String {
    let script = repo().join(
        ".cache/peers/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    if !script.is_file() {
        crate::peer::missing("server-everything is not installed (run .ci/peers.sh)");
    }
    script.display().to_string()
}

/// Each server's tool names as `amp mcp doctor` lists them (it starts every server and
/// lists its tools: "NAME (user settings): connected (N tools: a, b)").
fn amp_tools(p: &Peer) -> Vec<(String, Vec<String>)> {
    let run = p.client(&["mcp", "doctor"]).ok();
    run.stdout
        .lines()
        .filter_map(|line| {
            let (name, rest) = line.split_once(" (")?;
            let tools = rest.split_once("tools: ")?.1.strip_suffix(')')?;
            Some((
                name.trim().to_owned(),
                tools.split(", ").map(str::to_owned).collect(),
            ))
        })
        .collect()
}

/// Issue 41, a second client's own tool listing: `amp mcp doctor` starts each server and
/// names its tools. It lists server-everything's 13 — what `budget --measure -c amp`
/// counts, declaring Amp's (empty) capabilities — and once a `budget --max` cut switched
/// the server off (Amp has no tool filter: parked), none of them; one `undo` brings them
/// back.
#[test]
#[ignore = "needs .ci/clients.sh, .ci/peers.sh and cargo build -p fixture-server"]
fn amp_lists_what_budget_counts_and_nothing_of_a_server_a_cut_switched_off() {
    let mut p = peer("amp");
    // `amp mcp doctor` asks for a key before it starts anything; none is checked offline.
    p.env
        .extra_env
        .push(("AMP_API_KEY".into(), "sgamp_test".into()));
    let everything = everything_server();
    let fixture = crate::fixture_server::fixture_binary()
        .display()
        .to_string();
    p.mcpctl(&[
        "add",
        "everything",
        "-c",
        "amp",
        "--",
        "node",
        &everything,
        "stdio",
    ])
    .ok();
    p.mcpctl(&["add", "fx", "-c", "amp", "--", &fixture]).ok();
    let config = p.env.path(".config/amp/settings.json");
    let before = std::fs::read(&config).unwrap();
    let listed = amp_tools(&p);
    let report = p
        .mcpctl(&["budget", "--measure", "-c", "amp", "--json"])
        .ok()
        .json();
    let amp = &report["clients"][0];
    for (name, tools) in &listed {
        let counted: Vec<String> = row(amp["servers"].as_array().unwrap(), name)["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(&counted, tools, "{name}: amp lists {tools:?}");
    }
    let everything_tools = &listed.iter().find(|(n, _)| n == "everything").unwrap().1;
    assert_eq!(everything_tools.len(), 13, "{listed:?}");
    // A budget only the fixture fits: the cut switches server-everything off.
    let max = (n_of(&row(amp["servers"].as_array().unwrap(), "fx")["tokens"]) + 1).to_string();
    p.mcpctl(&["budget", "--max", &max, "-c", "amp", "--apply"])
        .ok();
    let after = amp_tools(&p);
    assert_eq!(
        after.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        ["fx"],
        "{after:?}"
    );
    p.mcpctl(&["undo"]).ok();
    assert_eq!(std::fs::read(&config).unwrap(), before);
    assert_eq!(amp_tools(&p), listed);
}

fn n_of(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Issue 41, a second client's own reading of a cut: GitHub Copilot CLI's tool filter is
/// an allow-list (`tools`); a `budget --max` cut writes the list without the costliest
/// tool, and `copilot mcp get NAME --json` shows exactly that list. One `undo` restores the
/// file byte for byte.
#[test]
#[ignore = "needs .ci/clients.sh and .ci/peers.sh"]
fn copilot_reads_the_tools_a_budget_cut_denies() {
    let p = peer("copilot");
    let mem = memory_server();
    p.mcpctl(&["add", "mem", "-c", "copilot-cli", "--", "node", &mem])
        .ok();
    let config = p.env.path(".copilot/mcp-config.json");
    let before = std::fs::read(&config).unwrap();
    let report = p
        .mcpctl(&["budget", "--measure", "-c", "copilot-cli", "--json"])
        .ok()
        .json();
    let server = &report["clients"][0]["servers"][0];
    let tools: Vec<String> = server["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(tools.len(), 9, "{server:#}");
    let max = (n_of(&report["clients"][0]["tokens"]) - 1).to_string();
    let cut = p
        .mcpctl(&[
            "budget",
            "--max",
            &max,
            "-c",
            "copilot-cli",
            "--apply",
            "--json",
        ])
        .ok()
        .json();
    let denied: Vec<String> = cut["cuts"][0]["changes"][0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["tool"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(denied.len(), 1, "{cut:#}");
    let got = p.client(&["mcp", "get", "mem", "--json"]).ok().json();
    let allowed: Vec<String> = got["mem"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{got:#}"))
        .iter()
        .map(|t| t.as_str().unwrap().to_owned())
        .collect();
    let kept: Vec<String> = tools.into_iter().filter(|t| !denied.contains(t)).collect();
    assert_eq!(allowed, kept, "{got:#}");
    p.mcpctl(&["undo"]).ok();
    assert_eq!(std::fs::read(&config).unwrap(), before);
}
