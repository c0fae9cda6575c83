//! `mcpctl login`/`logout` and the signed-in bridge (issue 42), end to end through the
//! binary against the TypeScript SDK's own OAuth example (`@modelcontextprotocol/sdk`
//! 1.32.2 `examples/server/simpleStreamableHttp.js --oauth`: protected-resource metadata,
//! authorization server metadata, dynamic client registration, an authorize endpoint
//! that approves at once, a token endpoint; installed by `.ci/peers.sh`). The grant lives
//! in a real Secret Service (`.ci/keyring.sh`). The browser is a script `$BROWSER` names
//! that follows the authorize redirect with curl, as a person's browser would.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
#[cfg(unix)]
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
#[cfg(unix)]
use serde_json::json;

#[cfg(unix)]
use crate::env::Run;
use crate::env::TestEnv;
#[cfg(unix)]
use crate::secret_store::{Peer, command_lines, files_holding, set_secret};
use crate::secret_store::{free_port, keyring_env};

const NEEDS: &str = "the SDK's OAuth example server (run .ci/peers.sh)";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The SDK's example server with `--oauth` on two loopback ports, ended on drop.
pub(crate) struct OauthServer {
    child: Child,
    pub(crate) mcp_port: u16,
    pub(crate) auth_port: u16,
}

impl OauthServer {
    pub(crate) fn start() -> OauthServer {
        OauthServer::start_with(None)
    }

    /// With `Some(ttl)`, the demo provider issues tokens that live `ttl` seconds and
    /// refresh tokens (tests/fixtures/servers/oauth_refresh.mjs).
    pub(crate) fn start_with(refresh_ttl: Option<u64>) -> OauthServer {
        let sdk = repo().join(".cache/peers/npm/node_modules/@modelcontextprotocol/sdk");
        let script = sdk.join("dist/esm/examples/server/simpleStreamableHttp.js");
        if !script.is_file() {
            crate::peer::missing(NEEDS);
        }
        let (mcp_port, auth_port) = (free_port(), free_port());
        let mut node = Command::new("node");
        node.arg("--require")
            .arg(repo().join("tests/fixtures/servers/loopback.cjs"));
        if let Some(ttl) = refresh_ttl {
            node.arg("--import")
                .arg(repo().join("tests/fixtures/servers/oauth_refresh.mjs"))
                .env("MCP_SDK_DIR", &sdk)
                .env("MCP_TOKEN_TTL", ttl.to_string());
        }
        let child = node
            .arg(&script)
            .arg("--oauth")
            .env("MCP_PORT", mcp_port.to_string())
            .env("MCP_AUTH_PORT", auth_port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| crate::peer::missing(&format!("node ({e})")));
        let server = OauthServer {
            child,
            mcp_port,
            auth_port,
        };
        let until = Instant::now() + Duration::from_secs(30);
        for port in [mcp_port, auth_port] {
            while TcpStream::connect(("127.0.0.1", port)).is_err() {
                assert!(Instant::now() < until, "nothing listened on {port}");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        server
    }

    /// The MCP endpoint, as the server names itself (`localhost`).
    pub(crate) fn url(&self) -> String {
        format!("http://localhost:{}/mcp", self.mcp_port)
    }

    /// The secret a login to [`OauthServer::url`] is kept under.
    pub(crate) fn secret(&self) -> String {
        format!("oauth.localhost-{}-mcp", self.mcp_port)
    }
}

impl Drop for OauthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(unix)]
/// A program on the test process's PATH (the test env's PATH holds only its own bin).
pub(crate) fn program(name: &str) -> PathBuf {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| crate::peer::missing(name))
}

#[cfg(unix)]
/// `$BROWSER` for `env`: a script that opens the URL (after `sed` edits it) by following
/// its redirects with curl, so the authorization server's redirect reaches mcpctl's
/// loopback listener.
pub(crate) fn browser(env: &mut TestEnv, sed: &str) {
    let script = env.dir.path().join("browser.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nurl=$(printf '%s' \"$1\" | {} '{sed}')\nexec {} -s -o /dev/null -L \"$url\"\n",
            program("sed").display(),
            program("curl").display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    env.extra_env
        .push(("BROWSER".to_owned(), script.display().to_string()));
}

/// The grant kept for `secret`, as JSON (the test reads the token to look for it).
pub(crate) fn grant(env: &TestEnv, secret: &str) -> Value {
    let run = env.run(&["secret", "get", secret, "--reveal"]).ok();
    serde_json::from_str(run.stdout.trim()).unwrap()
}

#[cfg(unix)]
pub(crate) fn assert_nowhere(token: &str, env: &TestEnv, runs: &[&Run]) {
    assert!(token.len() > 10, "{token}");
    for run in runs {
        assert!(
            !run.stdout.contains(token) && !run.stderr.contains(token),
            "the token was printed:\n{}\n{}",
            run.stdout,
            run.stderr
        );
    }
    assert_eq!(files_holding(env.dir.path(), token), Vec::<String>::new());
}

#[test]
#[ignore = "needs .ci/peers.sh and .ci/keyring.sh"]
#[cfg(unix)] // the browser is a shell script around curl
fn login_signs_in_through_the_browser_and_the_bridge_sends_the_token() {
    let server = OauthServer::start();
    let mut env = keyring_env();
    browser(&mut env, "s/^//");
    let url = server.url();
    let login = env.run(&["login", &url]).ok();
    assert!(
        login.stdout.contains(&format!(
            "✔ signed in to `localhost-{}-mcp` ({url}) at http://localhost:{}/",
            server.mcp_port, server.auth_port
        )),
        "{}",
        login.stdout
    );
    assert!(login.stderr.contains("/authorize?"), "{}", login.stderr);
    assert!(login.stderr.contains("code_challenge_method=S256"));
    let kept = grant(&env, &server.secret());
    assert_eq!(
        kept["issuer"],
        format!("http://localhost:{}/", server.auth_port)
    );
    assert_eq!(kept["scope"], "mcp:tools");
    assert!(kept["expires_at"].as_u64().unwrap() > 1_700_000_000);
    let token = kept["access_token"].as_str().unwrap().to_owned();

    let json = env.run(&["--json", "login", &url]).ok();
    assert_eq!(json.json()["kept_as"], server.secret());
    assert_eq!(json.json()["scope"], "mcp:tools");
    assert!(json.json().get("access_token").is_none());
    let token2 = grant(&env, &server.secret())["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(token, token2, "a second login gets a new token");

    let label = format!("localhost-{}-mcp", server.mcp_port);
    let mut bridge = Peer::start(env.command(&["bridge", &url, "--oauth", &label]));
    let init = bridge.handshake();
    assert_eq!(
        init["result"]["serverInfo"]["name"], "simple-streamable-http-server",
        "{init}"
    );
    let tools = bridge.request("tools/list", json!({}));
    assert!(
        tools["result"]["tools"].to_string().contains("greet"),
        "{tools}"
    );
    let argv = command_lines(bridge.pid());
    assert!(
        argv.contains("--oauth") && !argv.contains(&token2),
        "{argv}"
    );
    drop(bridge);
    assert_nowhere(&token, &env, &[&login]);
    assert_nowhere(&token2, &env, &[&login, &json]);

    let logout = env.run(&["logout", &url]).ok();
    assert!(logout.stdout.contains("signed out"), "{}", logout.stdout);
    let list = env.run(&["secret", "list", "--json"]).ok();
    assert!(!list.stdout.contains("oauth."), "{}", list.stdout);
    let after = env.run(&["bridge", &url, "--oauth", &label]).code(2);
    assert!(
        after
            .stderr
            .contains(&format!("not signed in to `{label}`"))
            && after.stderr.contains(&format!("mcpctl login {label}")),
        "{}",
        after.stderr
    );
}

#[test]
#[ignore = "needs .ci/peers.sh and .ci/keyring.sh"]
fn no_browser_prints_the_url_and_takes_the_redirected_url_pasted_back() {
    let server = OauthServer::start();
    let env = keyring_env();
    let url = server.url();
    let mut child = env
        .command(&["login", &url, "--no-browser"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    let authorize = loop {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "no URL printed:\n{seen}"
        );
        seen.push_str(&line);
        if line.contains("/authorize?") {
            break line.trim().to_owned();
        }
    };
    // The person's browser, elsewhere: the authorize endpoint redirects to 127.0.0.1,
    // which does not load there; the address bar holds the URL to paste.
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .max_redirects(0)
        .http_status_as_error(false)
        .build()
        .into();
    let answer = agent.get(&authorize).call().unwrap();
    assert_eq!(answer.status().as_u16(), 302);
    let landed = answer.headers()["location"].to_str().unwrap().to_owned();
    assert!(landed.starts_with("http://127.0.0.1:"), "{landed}");
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{landed}").unwrap();
    drop(stdin);
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{seen}{rest}");
    assert!(seen.contains("Open this URL"), "{seen}");
    assert!(rest.contains("Paste the address"), "{rest}");
    assert!(stdout.contains("✔ signed in"), "{stdout}");
    let kept = grant(&env, &server.secret());
    assert!(kept["access_token"].as_str().is_some_and(|t| t.len() > 10));
}

#[test]
#[ignore = "needs .ci/peers.sh and .ci/keyring.sh"]
#[cfg(unix)] // the browser is a shell script around curl
fn an_answer_with_another_state_is_refused() {
    let server = OauthServer::start();
    let mut env = keyring_env();
    // The redirect comes back with a state this sign-in never sent.
    browser(&mut env, "s/state=[^&]*/state=forged/");
    let login = env.run(&["login", &server.url()]).code(2);
    assert!(
        login.stderr.contains("`state` does not match"),
        "{}",
        login.stderr
    );
    let list = env.run(&["secret", "list"]).ok();
    assert!(!list.stdout.contains("oauth."), "{}", list.stdout);
}

/// A proxy in front of the real server that names itself as the authorization server in
/// the resource metadata while the real authorization server's metadata (forwarded as
/// is) names the real issuer: what a tampered resource metadata looks like.
fn spoofing_proxy(server: &OauthServer) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (mcp, auth) = (server.mcp_port, server.auth_port);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let _ = relay(stream, port, mcp, auth);
        }
    });
    port
}

fn relay(mut stream: TcpStream, me: u16, mcp: u16, auth: u16) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut first = String::new();
    reader.read_line(&mut first)?;
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        if line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let mut words = first.split_whitespace();
    let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or("/"));
    let to_auth = path.starts_with("/.well-known/oauth-authorization-server");
    let upstream = format!(
        "http://127.0.0.1:{}{path}",
        if to_auth { auth } else { mcp }
    );
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .max_redirects(0)
        .http_status_as_error(false)
        .build()
        .into();
    let response = if method == "POST" {
        agent
            .post(&upstream)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .send(&body[..])
    } else {
        agent.get(&upstream).call()
    }
    .map_err(std::io::Error::other)?;
    let status = response.status().as_u16();
    let www = response
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut text = response.into_body().read_to_string().unwrap_or_default();
    let rewrite = |s: &str| {
        s.replace(&format!("localhost:{mcp}"), &format!("127.0.0.1:{me}"))
            .replace(&format!("localhost:{auth}"), &format!("127.0.0.1:{me}"))
    };
    if !to_auth {
        text = rewrite(&text);
    }
    let www = www
        .map(|w| format!("WWW-Authenticate: {}\r\n", rewrite(&w)))
        .unwrap_or_default();
    write!(
        stream,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{www}Content-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    )
}

#[test]
#[ignore = "needs .ci/peers.sh and .ci/keyring.sh"]
fn an_authorization_server_with_another_issuer_is_refused() {
    let server = OauthServer::start();
    let env = keyring_env();
    let proxy = spoofing_proxy(&server);
    let url = format!("http://127.0.0.1:{proxy}/mcp");
    let login = env.run(&["login", &url, "--no-browser"]).code(2);
    assert!(
        login.stderr.contains(&format!(
            "names issuer `http://localhost:{}/`, not `http://127.0.0.1:{proxy}/`",
            server.auth_port
        )),
        "{}",
        login.stderr
    );
    // Refused before any URL was shown or client registered.
    assert!(!login.stderr.contains("/authorize?"), "{}", login.stderr);
}

#[test]
fn login_refuses_plain_http_to_another_machine() {
    let env = TestEnv::new();
    let login = env
        .run(&["login", "http://mcp.example.com/mcp", "--no-browser"])
        .code(2);
    assert!(
        login
            .stderr
            .contains("is not https (mcpctl sends sign-in requests only over https"),
        "{}",
        login.stderr
    );
}

#[test]
#[ignore = "needs .ci/peers.sh and .ci/keyring.sh"]
#[cfg(unix)] // the browser is a shell script around curl
fn a_token_near_its_expiry_is_renewed_with_the_refresh_token() {
    // Tokens that live 61 s: within a minute of expiry (mcpctl renews that early) after 1 s.
    let server = OauthServer::start_with(Some(61));
    let mut env = keyring_env();
    browser(&mut env, "s/^//");
    let url = server.url();
    let login = env.run(&["login", &url]).ok();
    assert!(
        login.stdout.contains("the token expires in "),
        "{}",
        login.stdout
    );
    assert!(
        !login.stderr.contains("no refresh token"),
        "{}",
        login.stderr
    );
    let first = grant(&env, &server.secret());
    assert!(first["refresh_token"].is_string(), "{first}");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!(first["expires_at"].as_u64().unwrap() <= now + 61, "{first}");
    std::thread::sleep(Duration::from_millis(1500));
    let label = format!("localhost-{}-mcp", server.mcp_port);
    let mut bridge = Peer::start(env.command(&["bridge", &url, "--oauth", &label]));
    let init = bridge.handshake();
    assert_eq!(
        init["result"]["serverInfo"]["name"], "simple-streamable-http-server",
        "{init}"
    );
    drop(bridge);
    let renewed = grant(&env, &server.secret());
    assert_ne!(renewed["access_token"], first["access_token"]);
    assert_ne!(renewed["refresh_token"], first["refresh_token"], "rotated");
    assert!(renewed["expires_at"].as_u64() > first["expires_at"].as_u64());
    for token in [&first, &renewed] {
        let token = token["access_token"].as_str().unwrap();
        assert_nowhere(token, &env, &[&login]);
    }
}

/// A remote entry in Cursor, checked by doctor before and after `add --login`.
#[test]
#[ignore = "needs .ci/peers.sh and .ci/keyring.sh"]
#[cfg(unix)] // the browser is a shell script around curl
fn doctor_says_sign_in_then_passes_through_the_bridge_then_says_sign_in_again() {
    let server = OauthServer::start_with(Some(3600));
    let mut env = keyring_env();
    browser(&mut env, "s/^//");
    let url = server.url();
    env.run(&["add", "docs", "-c", "cursor", "--url", &url])
        .ok();
    let before = env.run(&["doctor", "docs"]).ok();
    assert!(
        before
            .stdout
            .contains("server needs authorization (HTTP 401); sign in: `mcpctl login docs`"),
        "{}",
        before.stdout
    );

    let add = env
        .run(&[
            "add",
            "docs",
            "-c",
            "cursor,claude-code",
            "--url",
            &url,
            "--login",
            "--force",
        ])
        .ok();
    assert!(add.stderr.contains("/authorize?"), "{}", add.stderr);
    let cursor = crate::env::jsonc(env.read_str(".cursor/mcp.json").as_bytes());
    assert_eq!(
        cursor["mcpServers"]["docs"]["args"],
        json!(["bridge", url, "--oauth", "docs"])
    );
    assert_eq!(
        cursor["mcpServers"]["docs"]["command"],
        crate::secret_store::mcpctl_path().as_str()
    );
    let list = env.run(&["list", "--json"]).ok();
    for row in list.json().as_array().unwrap() {
        assert_eq!(row["url"], url.as_str(), "{row}");
        assert_eq!(row["via"], "bridge");
        assert_eq!(row["oauth"], "docs");
    }
    let table = env.run(&["list"]).ok();
    assert!(
        table
            .stdout
            .contains(&format!("{url} (via mcpctl bridge; signed in: docs)")),
        "{}",
        table.stdout
    );
    let after = env.run(&["doctor", "docs"]).ok();
    assert!(after.stdout.contains("✔ cursor/docs"), "{}", after.stdout);
    assert!(
        after.stdout.contains("✔ claude-code/docs"),
        "{}",
        after.stdout
    );
    assert!(
        // 1 h, 59 min, or less on a loaded machine.
        after.stdout.contains("signed in, token expires in "),
        "{}",
        after.stdout
    );
    let json = env.run(&["doctor", "docs", "--json"]).ok();
    let token = grant(&env, "oauth.docs")["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_nowhere(&token, &env, &[&add, &list, &table, &after, &json]);

    // The access token has expired and the server no longer knows the refresh token.
    let mut stale = grant(&env, "oauth.docs");
    stale["expires_at"] = json!(1);
    stale["refresh_token"] = json!("revoked-refresh-token");
    set_secret(&env, "oauth.docs", &stale.to_string()).ok();
    let expired = env.run(&["doctor", "docs"]).code(1);
    let words = expired
        .stdout
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        // The same failure in both clients is one row (issue 40).
        words.contains(
            "✘ docs in 2 clients (claude-code, cursor) the sign-in to `docs` has expired and could not be renewed"
        )
            && words.contains("invalid_grant")
            && words.contains("sign in again: mcpctl login docs"),
        "{}",
        expired.stdout
    );
}

#[test]
#[ignore = "needs .ci/peers.sh and .ci/keyring.sh"]
#[cfg(unix)] // the browser is a shell script around curl
fn login_on_an_existing_entry_rewrites_it_only_when_asked() {
    let server = OauthServer::start();
    let mut env = keyring_env();
    browser(&mut env, "s/^//");
    let url = server.url();
    // Not Gemini CLI: it starts no server in a folder it does not trust (the test's HOME).
    env.run(&["add", "docs", "-c", "cursor,claude-code", "--url", &url])
        .ok();
    let plain = env.read_str(".cursor/mcp.json");
    // No terminal to ask at: the entries stay, and login says how to rewrite them.
    let login = env.run(&["login", "docs", "--json"]).ok();
    assert_eq!(login.json()["rewritten"], json!([]));
    assert_eq!(login.json()["left"], json!(["claude-code", "cursor"]));
    assert_eq!(env.read_str(".cursor/mcp.json"), plain);
    let doctor = env.run(&["doctor", "docs", "-c", "cursor"]).ok();
    let words = doctor
        .stdout
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        words.contains(
            "⚠ cursor/docs server needs authorization (HTTP 401); Cursor signs in by itself (mcpctl has a sign-in: `mcpctl login docs --yes` makes Cursor use it)"
        ),
        "{}",
        doctor.stdout
    );

    let yes = env.run(&["login", "docs", "--yes"]).ok();
    assert!(
        yes.stdout.contains(
            "✔ `docs` in claude-code, cursor now reaches the server through mcpctl's bridge with this sign-in"
        ),
        "{}",
        yes.stdout
    );
    for file in [".cursor/mcp.json", ".claude.json"] {
        let entry = &crate::env::jsonc(env.read_str(file).as_bytes())["mcpServers"]["docs"];
        assert_eq!(
            entry["args"],
            json!(["bridge", url, "--oauth", "docs"]),
            "{file}"
        );
    }
    let after = env.run(&["doctor", "docs"]).ok();
    assert!(
        after.stdout.contains("0 failed, 0 warnings, 2 ok"),
        "{}",
        after.stdout
    );
    let token = grant(&env, "oauth.docs")["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_nowhere(&token, &env, &[&login, &doctor, &yes, &after]);
}

/// `CLI mcp list` of a client installed by `.ci/clients.sh`, in `env`, ANSI stripped.
#[cfg(unix)]
fn client_list(env: &TestEnv, bin: &str) -> String {
    let program = crate::client_cli::installed(bin, "signed-in server cross-check");
    let mut command = env.client_command(Path::new("timeout"));
    command
        .args(["-k", "5", "90"])
        .arg(program)
        .args(["mcp", "list"]);
    crate::client_cli::quiet(&mut command);
    let out = command.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    text.replace("\u{1b}[32m", "").replace("\u{1b}[0m", "")
}

#[test]
#[ignore = "needs .ci/peers.sh, .ci/clients.sh and .ci/keyring.sh"]
#[cfg(unix)] // the browser is a shell script around curl
fn claude_and_qwen_connect_to_the_signed_in_server_through_the_bridge() {
    let server = OauthServer::start();
    let mut env = keyring_env();
    browser(&mut env, "s/^//");
    for (k, v) in crate::client_cli::QUIET {
        env.extra_env.push((k.into(), v.into()));
    }
    let url = server.url();
    env.run(&[
        "add",
        "docs",
        "-c",
        "claude-code,qwen",
        "--url",
        &url,
        "--login",
    ])
    .ok();
    let bridge = format!("bridge {url} --oauth docs");
    let claude = client_list(&env, "claude");
    assert!(
        claude
            .lines()
            .any(|l| l.starts_with("docs: ") && l.contains(&bridge) && l.ends_with("✔ Connected")),
        "{claude}"
    );
    let qwen = client_list(&env, "qwen");
    assert!(
        qwen.lines()
            .any(|l| l.contains("docs: ") && l.contains(&bridge) && l.ends_with("- Connected")),
        "{qwen}"
    );
}

#[test]
#[ignore = "needs .ci/peers.sh and .ci/keyring.sh"]
#[cfg(unix)] // the browser is a shell script around curl
fn logout_revokes_the_tokens_where_the_server_offers_revocation() {
    let server = OauthServer::start_with(Some(3600));
    let mut env = keyring_env();
    browser(&mut env, "s/^//");
    let url = server.url();
    env.run(&["login", &url]).ok();
    let kept = grant(&env, &server.secret());
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let call = |token: &str| {
        agent
            .post(format!("http://127.0.0.1:{}/mcp", server.mcp_port))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("Authorization", format!("Bearer {token}"))
            .send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#)
            .unwrap()
            .status()
            .as_u16()
    };
    let access = kept["access_token"].as_str().unwrap();
    assert_eq!(call(access), 200);
    let logout = env.run(&["logout", &url, "--json"]).ok();
    assert_eq!(logout.json()["revoked"], true, "{}", logout.stdout);
    let list = env.run(&["secret", "list"]).ok();
    assert!(!list.stdout.contains("oauth."), "{}", list.stdout);
    // The server no longer takes the refresh token, nor the access token issued with it
    // (the example's token check answers an unknown token with 500, not 401).
    let refresh = agent
        .post(format!("http://127.0.0.1:{}/token", server.auth_port))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .send(format!(
            "grant_type=refresh_token&refresh_token={}&client_id={}",
            kept["refresh_token"].as_str().unwrap(),
            kept["client_id"].as_str().unwrap()
        ))
        .unwrap();
    assert_eq!(refresh.status().as_u16(), 400);
    assert_ne!(call(access), 200);
}

#[test]
#[ignore = "needs .ci/peers.sh and .ci/keyring.sh"]
#[cfg(unix)] // the browser is a shell script around curl
fn a_client_id_in_the_entrys_oauth_fields_is_used_with_its_callback_port() {
    let server = OauthServer::start();
    let mut env = keyring_env();
    browser(&mut env, "s/^//");
    let url = server.url();
    // Registered beforehand, as an administrator would, for one fixed redirect.
    let port = free_port();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let registered: Value = serde_json::from_str(
        &agent
            .post(format!("http://127.0.0.1:{}/register", server.auth_port))
            .header("Content-Type", "application/json")
            .send(
                json!({
                    "client_name": "pre-registered",
                    "redirect_uris": [format!("http://127.0.0.1:{port}/callback")],
                    "token_endpoint_auth_method": "none",
                    "grant_types": ["authorization_code"],
                    "response_types": ["code"]
                })
                .to_string(),
            )
            .unwrap()
            .into_body()
            .read_to_string()
            .unwrap(),
    )
    .unwrap();
    let id = registered["client_id"].as_str().unwrap();
    env.write(
        ".claude.json",
        json!({"mcpServers": {"docs": {"type": "http", "url": url,
            "oauth": {"clientId": id, "callbackPort": port}}}})
        .to_string()
        .as_bytes(),
    );
    let login = env.run(&["login", "docs", "--json"]).ok();
    assert_eq!(login.json()["client_id"], id, "{}", login.stdout);
    assert!(
        login.stderr.contains(&format!(
            "redirect_uri=http%3A%2F%2F127.0.0.1%3A{port}%2Fcallback"
        )),
        "{}",
        login.stderr
    );
    assert_eq!(login.json()["left"], json!(["claude-code"]));
}

/// `import` reads a signed-in bridge entry (`mcpctl bridge URL --oauth NAME`) as the
/// remote server plus `login = …`, and `apply` writes the bridge with the same sign-in
/// back into every client; a sign-in this machine does not have is said, with the
/// command that makes it. No token is involved: the manifest names the sign-in only.
#[test]
fn import_and_apply_keep_a_signed_in_bridge_entry() {
    let env = TestEnv::new();
    let mcpctl = crate::secret_store::mcpctl_path();
    let url = "https://docs.example.com/mcp";
    env.write(
        ".cursor/mcp.json",
        serde_json::json!({"mcpServers": {
            "docs": {"command": mcpctl, "args": ["bridge", url, "--oauth", "docs"]},
            "wiki": {"command": mcpctl, "args": ["bridge", "https://wiki.example.com/mcp",
                "--header", "X-Team=blue", "--oauth", "team-sso"]}
        }})
        .to_string()
        .as_bytes(),
    );
    env.run(&["import", "-c", "cursor", "--manifest", "team.toml"])
        .ok();
    let team = env.read_str("team.toml").replace("\r\n", "\n");
    assert!(
        team.contains(&format!("[servers.docs]\nurl = \"{url}\"\nlogin = true\n")),
        "{team}"
    );
    assert!(team.contains("login = \"team-sso\""), "{team}");
    assert!(!team.contains("bridge"), "{team}");
    env.run(&["plan", "--check", "--manifest", "team.toml"])
        .ok();

    // The same manifest on a machine whose Claude Code has neither server.
    let team = team.replace(
        "clients = [\"cursor\"]",
        "clients = [\"cursor\", \"claude-code\"]",
    );
    env.write("team.toml", team.as_bytes());
    let apply = env.run(&["apply", "--manifest", "team.toml"]).ok();
    let said = format!("{}{}", apply.stdout, apply.stderr);
    assert!(said.contains("mcpctl login docs"), "{said}");
    assert!(said.contains("mcpctl login team-sso"), "{said}");
    let claude = crate::env::jsonc(env.read_str(".claude.json").as_bytes());
    assert_eq!(
        claude["mcpServers"]["docs"]["args"],
        serde_json::json!(["bridge", url, "--oauth", "docs"]),
        "{claude}"
    );
    assert_eq!(
        claude["mcpServers"]["wiki"]["args"],
        serde_json::json!([
            "bridge",
            "https://wiki.example.com/mcp",
            "--header",
            "X-Team=blue",
            "--oauth",
            "team-sso"
        ]),
        "{claude}"
    );
    env.run(&["plan", "--check", "--manifest", "team.toml"])
        .ok();
    let list = env.run(&["list", "--json"]).ok();
    assert!(list.stdout.contains("\"oauth\""), "{}", list.stdout);

    env.write(
        "bad.toml",
        b"[servers.gh]\ncommand = \"npx\"\nlogin = true\n",
    );
    let bad = env.run(&["plan", "--manifest", "bad.toml"]).code(2);
    assert!(bad.stderr.contains("bad.toml:"), "{}", bad.stderr);
    assert!(bad.stderr.contains("`login`"), "{}", bad.stderr);
}
