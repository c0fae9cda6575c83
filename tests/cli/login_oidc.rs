//! `mcpctl login` against a real authorization server that offers what the SDK's demo
//! does not (issue 42): Client ID Metadata Documents (CIMD) and the device flow (RFC
//! 8628). The authorization server is oidc-provider 9.13.3 (installed by `.ci/peers.sh`)
//! with its own pages; the MCP server is the TypeScript SDK's, behind the SDK's bearer
//! check; tests/fixtures/servers/oidc_mcp.mjs says what is glue. The person is
//! [`Person`]: an HTTP client with a cookie jar that reads the authorization server's
//! pages and submits their forms (the sign-in, the consent, the device code), as someone
//! at a browser would. The grant lives in a real Secret Service (`.ci/keyring.sh`).

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::env::TestEnv;
use crate::login::{assert_nowhere, grant, program};
use crate::secret_store::{Peer, command_lines, free_port, keyring_env};

const NEEDS: &str = "oidc-provider and the SDK (run .ci/peers.sh)";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// oidc-provider and the SDK's MCP server on loopback (and, with `doc`, the https host
/// of mcpctl's client-metadata document), ended on drop.
struct OidcServer {
    child: Child,
    mcp_port: u16,
    as_port: u16,
    doc_port: u16,
    _certs: tempfile::TempDir,
}

struct Setup {
    /// Advertise `client_id_metadata_document_supported`.
    cimd: bool,
    /// Seconds a device code lives.
    device_ttl: u64,
}

impl OidcServer {
    fn start(setup: Setup) -> OidcServer {
        let npm = repo().join(".cache/peers/npm/node_modules");
        let (sdk, oidc) = (
            npm.join("@modelcontextprotocol/sdk"),
            npm.join("oidc-provider"),
        );
        if !oidc.join("lib/index.js").is_file() || !sdk.is_dir() {
            crate::peer::missing(NEEDS);
        }
        // The document host's certificate, trusted by the authorization server's node.
        let certs = tempfile::tempdir().unwrap();
        let (cert, key) = (certs.path().join("cert.pem"), certs.path().join("key.pem"));
        let made = Command::new(program("openssl"))
            .args(["req", "-x509", "-newkey", "ec", "-pkeyopt"])
            .args(["ec_paramgen_curve:P-256", "-nodes", "-days", "1"])
            .args(["-subj", "/CN=localhost"])
            .args(["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
            .arg("-keyout")
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(made.success(), "openssl made no certificate");
        let (mcp_port, as_port, doc_port) = (free_port(), free_port(), free_port());
        let child = Command::new("node")
            .arg(repo().join("tests/fixtures/servers/oidc_mcp.mjs"))
            .env("MCP_SDK_DIR", &sdk)
            .env("OIDC_PROVIDER_DIR", &oidc)
            .env("AS_PORT", as_port.to_string())
            .env("MCP_PORT", mcp_port.to_string())
            .env("DOC_PORT", doc_port.to_string())
            .env("DOC_CERT", &cert)
            .env("DOC_KEY", &key)
            .env("DOC_FILE", repo().join("docs/client-metadata.json"))
            .env("NODE_EXTRA_CA_CERTS", &cert)
            .env("CIMD", if setup.cimd { "1" } else { "0" })
            .env("DEVICE_TTL", setup.device_ttl.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| crate::peer::missing(&format!("node ({e})")));
        let server = OidcServer {
            child,
            mcp_port,
            as_port,
            doc_port,
            _certs: certs,
        };
        let until = Instant::now() + Duration::from_secs(30);
        for port in [as_port, mcp_port, doc_port] {
            while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
                assert!(Instant::now() < until, "nothing listened on {port}");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        server
    }

    fn url(&self) -> String {
        format!("http://localhost:{}/mcp", self.mcp_port)
    }

    fn label(&self) -> String {
        format!("localhost-{}-mcp", self.mcp_port)
    }

    /// Where mcpctl's client-metadata document is served.
    fn document(&self) -> String {
        format!(
            "https://localhost:{}/mcpctl/client-metadata.json",
            self.doc_port
        )
    }

    /// How often the document host was asked for the document.
    fn fetches(&self) -> u64 {
        let out = Command::new(program("curl"))
            .args([
                "-sk",
                &format!("https://127.0.0.1:{}/fetches", self.doc_port),
            ])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
    }
}

impl Drop for OidcServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Someone at a browser: keeps the authorization server's cookies, follows its
/// redirects, and submits each page's form: the sign-in (`login`, `password`), the
/// consent, the device code (typing `code` where the page asks for `user_code`), the
/// confirmation (or its abort, with `abort`). Stops at a page with no form, or once sent
/// to 127.0.0.1 (mcpctl's loopback listener, which it then visits, as a browser does).
struct Person {
    agent: ureq::Agent,
    cookies: Vec<(String, String)>,
    code: Option<String>,
    abort: bool,
}

impl Person {
    fn new() -> Person {
        Person {
            agent: ureq::Agent::config_builder()
                .max_redirects(0)
                .http_status_as_error(false)
                .build()
                .into(),
            cookies: Vec::new(),
            code: None,
            abort: false,
        }
    }

    fn keep_cookies(&mut self, response: &ureq::http::Response<ureq::Body>) {
        for header in response.headers().get_all("set-cookie") {
            let text = header.to_str().unwrap_or("");
            let pair = text.split(';').next().unwrap_or("");
            if let Some((name, value)) = pair.split_once('=') {
                self.cookies.retain(|(n, _)| n != name);
                self.cookies.push((name.to_owned(), value.to_owned()));
            }
        }
    }

    fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Visit `url` and go on until done; the last page's text.
    fn visit(&mut self, url: &str) -> String {
        let mut url = url.to_owned();
        let mut form: Option<Vec<(String, String)>> = None;
        let mut aborted = false;
        for _ in 0..20 {
            let response = match form.take() {
                None => self
                    .agent
                    .get(&url)
                    .header("Cookie", self.cookie_header())
                    .call(),
                Some(fields) => {
                    let body = fields
                        .iter()
                        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
                        .collect::<Vec<_>>()
                        .join("&");
                    self.agent
                        .post(&url)
                        .header("Cookie", self.cookie_header())
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .send(body)
                }
            }
            .unwrap();
            self.keep_cookies(&response);
            let status = response.status().as_u16();
            if (300..400).contains(&status) {
                let location = response.headers()["location"].to_str().unwrap().to_owned();
                url = join(&url, &location);
                if url.starts_with("http://127.0.0.1:") {
                    return self
                        .agent
                        .get(&url)
                        .call()
                        .unwrap()
                        .into_body()
                        .read_to_string()
                        .unwrap();
                }
                continue;
            }
            let page = response.into_body().read_to_string().unwrap();
            let Some((action, mut fields)) = first_form(&page).filter(|_| !aborted) else {
                return page;
            };
            for (name, value) in &mut fields {
                match name.as_str() {
                    "login" => *value = "a-person".to_owned(),
                    "password" => *value = "any".to_owned(),
                    "user_code" if value.is_empty() => {
                        *value = self.code.clone().expect("the page asks for the code");
                    }
                    _ => {}
                }
            }
            if self.abort && fields.iter().any(|(n, _)| n == "confirm") {
                fields.retain(|(n, _)| n != "confirm");
                fields.push(("abort".to_owned(), "yes".to_owned()));
                aborted = true;
            }
            url = join(&url, &action);
            form = Some(fields);
        }
        panic!("the person went round in circles at {url}");
    }
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn join(base: &str, location: &str) -> String {
    if location.contains("://") {
        return location.to_owned();
    }
    let origin_end = base[base.find("://").unwrap() + 3..]
        .find('/')
        .map_or(base.len(), |i| i + base.find("://").unwrap() + 3);
    format!("{}{location}", &base[..origin_end])
}

/// The value of attribute `name` in one tag.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let at = tag.find(&format!("{name}=\""))? + name.len() + 2;
    Some(tag[at..at + tag[at..].find('"')?].to_owned())
}

/// The first `<form>`'s action and its `<input>` fields.
fn first_form(page: &str) -> Option<(String, Vec<(String, String)>)> {
    let start = page.find("<form")?;
    let end = page[start..]
        .find("</form>")
        .map_or(page.len(), |e| start + e);
    let form = &page[start..end];
    let action = attribute(&form[..form.find('>')?], "action")?;
    let fields = form
        .split("<input")
        .skip(1)
        .filter_map(|rest| {
            let tag = &rest[..rest.find('>')?];
            Some((
                attribute(tag, "name")?,
                attribute(tag, "value").unwrap_or_default(),
            ))
        })
        .collect();
    Some((action, fields))
}

/// `$BROWSER` for `env`: writes the URL it is given to `url.txt` for the test's person.
fn browser(env: &mut TestEnv) -> std::path::PathBuf {
    let script = env.dir.path().join("browser.sh");
    let file = env.dir.path().join("url.txt");
    std::fs::write(
        &script,
        format!("#!/bin/sh\nprintf '%s' \"$1\" > '{}'\n", file.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    env.extra_env
        .push(("BROWSER".to_owned(), script.display().to_string()));
    file
}

fn wait_for_file(file: &Path) -> String {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(text) = std::fs::read_to_string(file)
            && !text.is_empty()
        {
            return text;
        }
        assert!(Instant::now() < until, "the browser was never opened");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A login run in the background; its output once it ends.
struct Running {
    child: Child,
    stderr: BufReader<std::process::ChildStderr>,
    seen: String,
}

impl Running {
    fn start(env: &TestEnv, args: &[&str]) -> Running {
        let mut child = env
            .command(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = BufReader::new(child.stderr.take().unwrap());
        Running {
            child,
            stderr,
            seen: String::new(),
        }
    }

    /// Read stderr until a line has `needle`; that line.
    fn line_with(&mut self, needle: &str) -> String {
        loop {
            let mut line = String::new();
            assert!(
                self.stderr.read_line(&mut line).unwrap() > 0,
                "`{needle}` never said:\n{}",
                self.seen
            );
            self.seen.push_str(&line);
            if line.contains(needle) {
                return line;
            }
        }
    }

    /// Exit status, stdout, stderr.
    fn finish(mut self) -> (bool, String, String) {
        let mut rest = String::new();
        self.stderr.read_to_string(&mut rest).unwrap();
        let output = self.child.wait_with_output().unwrap();
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            self.seen + &rest,
        )
    }
}

/// What a background run said, to look for a token in.
fn said(stdout: &str, stderr: &str) -> crate::env::Run {
    crate::env::Run {
        code: 0,
        stdout: stdout.to_owned(),
        stderr: stderr.to_owned(),
    }
}

/// The `whoami` tool through `mcpctl bridge URL --oauth LABEL`: the client id the
/// server's bearer check found for the token (so the authorization server issued it).
fn whoami(env: &TestEnv, url: &str, label: &str, token: &str) -> String {
    let mut bridge = Peer::start(env.command(&["bridge", url, "--oauth", label]));
    let init = bridge.handshake();
    assert_eq!(
        init["result"]["serverInfo"]["name"], "oidc-protected-server",
        "{init}"
    );
    let argv = command_lines(bridge.pid());
    assert!(argv.contains("--oauth") && !argv.contains(token), "{argv}");
    let called = bridge.request("tools/call", json!({"name": "whoami", "arguments": {}}));
    called["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{called}"))
        .to_owned()
}

/// CIMD: where the authorization server says `client_id_metadata_document_supported`
/// and a document URL is set, that URL is the client id: no registration, the server
/// fetches the document (its host counts the fetch) and issues the token to that client
/// (the MCP server's bearer check names it). With the URL from the environment too.
#[test]
#[ignore = "needs .ci/peers.sh and .ci/keyring.sh"]
fn cimd_names_mcpctl_by_its_document_url_where_the_server_accepts_one() {
    let server = OidcServer::start(Setup {
        cimd: true,
        device_ttl: 600,
    });
    let mut env = keyring_env();
    let opened = browser(&mut env);
    let (url, label, document) = (server.url(), server.label(), server.document());
    assert_eq!(server.fetches(), 0);
    let mut login = Running::start(
        &env,
        &["login", &url, "--client-metadata-url", &document, "--json"],
    );
    login.line_with("Opening the browser");
    let authorize = wait_for_file(&opened);
    assert!(
        authorize.contains("client_id=https%3A%2F%2Flocalhost%3A"),
        "{authorize}"
    );
    let landed = Person::new().visit(&authorize);
    assert!(landed.contains("mcpctl has the answer"), "{landed}");
    let (ok, stdout, stderr) = login.finish();
    assert!(ok, "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        report["registration"], "client-metadata-document",
        "{report}"
    );
    assert_eq!(report["client_id"], document.as_str());
    assert_eq!(report["client_metadata_document_unused"], Value::Null);
    assert_eq!(report["way"], "browser");
    assert!(
        server.fetches() >= 1,
        "the authorization server fetched the document"
    );
    let kept = grant(&env, &format!("oauth.{label}"));
    assert_eq!(kept["client_id"], document.as_str());
    let token = kept["access_token"].as_str().unwrap().to_owned();
    assert_eq!(whoami(&env, &url, &label, &token), document);

    // The same from MCPCTL_CLIENT_METADATA_URL, said in words.
    std::fs::remove_file(&opened).unwrap();
    env.extra_env
        .push(("MCPCTL_CLIENT_METADATA_URL".to_owned(), document.clone()));
    let mut again = Running::start(&env, &["login", &url]);
    again.line_with("Opening the browser");
    Person::new().visit(&wait_for_file(&opened));
    let (ok, stdout2, stderr2) = again.finish();
    assert!(ok, "{stdout2}{stderr2}");
    assert!(
        stderr2.contains(&format!(
            "mcpctl named itself by its client-metadata document {document}"
        )),
        "{stderr2}"
    );
    let token2 = grant(&env, &format!("oauth.{label}"))["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let runs = [said(&stdout, &stderr), said(&stdout2, &stderr2)];
    assert_nowhere(&token, &env, &[&runs[0], &runs[1]]);
    assert_nowhere(&token2, &env, &[&runs[0], &runs[1]]);
}

/// No document URL: CIMD is skipped, said (`--json` too), and mcpctl registers itself
/// (RFC 7591); a URL set for a server that does not accept documents is not used either
/// (never fetched), and that is said.
#[test]
#[ignore = "needs .ci/peers.sh and .ci/keyring.sh"]
fn without_a_document_url_or_the_servers_support_mcpctl_registers_itself_and_says_why() {
    let server = OidcServer::start(Setup {
        cimd: true,
        device_ttl: 600,
    });
    let mut env = keyring_env();
    let opened = browser(&mut env);
    let url = server.url();
    let mut login = Running::start(&env, &["login", &url]);
    login.line_with("Opening the browser");
    Person::new().visit(&wait_for_file(&opened));
    let (ok, stdout, stderr) = login.finish();
    assert!(ok, "{stdout}{stderr}");
    let words = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains(&format!(
            "http://localhost:{} accepts a client-metadata document (CIMD), but no URL of one is set (--client-metadata-url or MCPCTL_CLIENT_METADATA_URL): mcpctl registered itself (RFC 7591)",
            server.as_port
        )),
        "{stderr}"
    );
    let kept = grant(&env, &format!("oauth.{}", server.label()));
    assert!(!kept["client_id"].as_str().unwrap().starts_with("https://"));

    let plain = OidcServer::start(Setup {
        cimd: false,
        device_ttl: 600,
    });
    std::fs::remove_file(&opened).unwrap();
    let mut login = Running::start(
        &env,
        &[
            "login",
            &plain.url(),
            "--client-metadata-url",
            &plain.document(),
            "--json",
        ],
    );
    login.line_with("Opening the browser");
    Person::new().visit(&wait_for_file(&opened));
    let (ok, stdout, stderr) = login.finish();
    assert!(ok, "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["registration"], "dynamic", "{report}");
    assert!(
        report["client_metadata_document_unused"]
            .as_str()
            .unwrap()
            .contains("does not accept client-metadata documents"),
        "{report}"
    );
    assert_eq!(plain.fetches(), 0);

    let bad = env
        .run(&[
            "login",
            &url,
            "--client-metadata-url",
            "http://example.com/c.json",
        ])
        .code(2);
    assert!(
        bad.stderr.contains("must be https with a path"),
        "{}",
        bad.stderr
    );
}

/// `--no-browser` where the server offers the device flow: mcpctl shows where to go and
/// the code, the person types the code into the authorization server's own page, signs
/// in and confirms; mcpctl, polling, gets the tokens. The bridge then sends them.
#[test]
#[ignore = "needs .ci/peers.sh and .ci/keyring.sh"]
fn no_browser_uses_the_device_flow_where_offered_and_the_person_confirms_the_code() {
    let server = OidcServer::start(Setup {
        cimd: false,
        device_ttl: 600,
    });
    let env = keyring_env();
    let (url, label) = (server.url(), server.label());
    let mut login = Running::start(&env, &["login", &url, "--no-browser", "--json"]);
    let at = login.line_with("/device?user_code=");
    let code_line = login.line_with("the code");
    let code = code_line
        .split("the code ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .to_owned();
    assert!(at.trim().ends_with(&code), "{at}");
    // The person goes to the plain page and types the code.
    let page = format!("http://localhost:{}/device", server.as_port);
    let mut person = Person::new();
    person.code = Some(code.clone());
    let done = person.visit(&page);
    assert!(done.contains("Sign-in Success"), "{done}");
    let (ok, stdout, stderr) = login.finish();
    assert!(ok, "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["way"], "device", "{report}");
    assert_eq!(report["scope"], "mcp:tools");
    let kept = grant(&env, &format!("oauth.{label}"));
    let token = kept["access_token"].as_str().unwrap().to_owned();
    assert_eq!(
        whoami(&env, &url, &label, &token),
        kept["client_id"].as_str().unwrap()
    );
    assert_nowhere(&token, &env, &[&said(&stdout, &stderr)]);
    assert!(!stderr.contains(&token));
}

/// The device flow's ends other than a sign-in: the person aborts at the confirmation
/// (`access_denied`), or nobody confirms before the code expires (`expired_token`);
/// each is said and nothing is kept. `--device` where the server does not offer it is
/// refused before anything is asked.
#[test]
#[ignore = "needs .ci/peers.sh and .ci/keyring.sh"]
fn a_declined_or_expired_device_code_is_said_and_nothing_is_kept() {
    let server = OidcServer::start(Setup {
        cimd: false,
        device_ttl: 600,
    });
    let env = keyring_env();
    let mut login = Running::start(&env, &["login", &server.url(), "--device"]);
    let at = login.line_with("/device?user_code=");
    let mut person = Person::new();
    person.abort = true;
    let page = person.visit(at.trim());
    assert!(
        page.contains("The Sign-in request was interrupted"),
        "{page}"
    );
    let (ok, stdout, stderr) = login.finish();
    assert!(!ok, "{stdout}");
    assert!(stderr.contains("the sign-in was declined"), "{stderr}");

    let short = OidcServer::start(Setup {
        cimd: false,
        device_ttl: 3,
    });
    let started = Instant::now();
    let (ok, _, stderr) = Running::start(&env, &["login", &short.url(), "--device"]).finish();
    assert!(!ok);
    assert!(stderr.contains("the code expired"), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(30));
    let list = env.run(&["secret", "list", "--json"]).ok();
    assert!(!list.stdout.contains("oauth."), "{}", list.stdout);

    let sdk = crate::login::OauthServer::start();
    let refused = env.run(&["login", &sdk.url(), "--device"]).code(2);
    assert!(
        refused.stderr.contains("does not offer the device flow"),
        "{}",
        refused.stderr
    );
}
