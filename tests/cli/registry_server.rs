//! A registry the tests start on 127.0.0.1: it serves `/v0.1` answers built from recorded
//! and hand-made `server.json` entries, and can be told to fail (HTTP 500, invalid JSON).
//! Tests never reach the network; the thread ends with the test process.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

#[derive(Default)]
struct State {
    /// Exact path-and-query → (status, body).
    routes: HashMap<String, (u16, String)>,
    /// Newest item per server name, for `?search=`.
    latest: Vec<Value>,
    /// Every version per server name, for `/versions`.
    versions: HashMap<String, Vec<Value>>,
    /// Request lines and user agents seen.
    log: Vec<String>,
    /// Answer every request with this instead.
    broken: Option<(u16, String)>,
}

pub struct RegistryServer {
    pub url: String,
    state: Arc<Mutex<State>>,
}

/// `/` → `%2F` and the rest as mcpctl encodes it.
pub fn encode(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&text[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A recorded sample as a registry item (`{"server": …, "_meta": …}`); github's own
/// `${VERSION}` is filled in as its release job does.
pub fn sample(file: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/registry")
        .join(file);
    let text = std::fs::read_to_string(path)
        .unwrap()
        .replace("${VERSION}", "0.24.0");
    let value: Value = serde_json::from_str(&text).unwrap();
    if value.get("server").is_some() {
        value
    } else if let Some(first) = value.get("servers").and_then(|s| s.get(0)) {
        first.clone()
    } else {
        json!({ "server": value })
    }
}

/// Every recorded sample file that holds one installable server.
pub const SAMPLES: &[&str] = &[
    "airtable.remote-header.item.json",
    "context7.server.json",
    "elevenlabs.pypi.item.json",
    "firecrawl.npm-and-remote.item.json",
    "github-mcp-server.server.json",
    "linear.two-remotes.item.json",
    "neon.remote-header.item.json",
    "playwright-mcp.server.json",
    "registry-example-with-package.json",
    "registry-example-with-remote.json",
    "terraform.oci.item.json",
];

impl RegistryServer {
    pub fn start() -> RegistryServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(State::default()));
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let _ = handle(stream, &shared);
            }
        });
        RegistryServer { url, state }
    }

    /// Serve `item` at `/versions/{its version}`; `latest` also at `/versions/latest` and
    /// in searches. `status`: `active`, `deprecated`, `deleted`.
    pub fn publish(&self, mut item: Value, latest: bool, status: &str, message: Option<&str>) {
        let name = item["server"]["name"].as_str().unwrap().to_owned();
        let version = item["server"]["version"].as_str().unwrap().to_owned();
        let mut official =
            json!({"status": status, "isLatest": latest, "publishedAt": "2026-11-01T00:00:00Z"});
        if let Some(message) = message {
            official["statusMessage"] = json!(message);
        }
        item["_meta"] = json!({ "io.modelcontextprotocol.registry/official": official });
        let mut state = self.state.lock().unwrap();
        let base = format!("/v0.1/servers/{}/versions", encode(&name));
        state.routes.insert(
            format!("{base}/{}", encode(&version)),
            (200, item.to_string()),
        );
        state
            .versions
            .entry(name.clone())
            .or_default()
            .push(item.clone());
        if latest {
            state
                .routes
                .insert(format!("{base}/latest"), (200, item.to_string()));
            state.latest.retain(|i| i["server"]["name"] != json!(name));
            state.latest.push(item);
        }
    }

    pub fn publish_sample(&self, file: &str) -> Value {
        let item = sample(file);
        self.publish(item.clone(), true, "active", None);
        item
    }

    /// Answer `path` (and query) with this status and body.
    pub fn route(&self, path: &str, status: u16, body: &str) {
        self.state
            .lock()
            .unwrap()
            .routes
            .insert(path.to_owned(), (status, body.to_owned()));
    }

    /// Answer every request with this status and body from now on.
    pub fn break_with(&self, status: u16, body: &str) {
        self.state.lock().unwrap().broken = Some((status, body.to_owned()));
    }

    pub fn log(&self) -> Vec<String> {
        self.state.lock().unwrap().log.clone()
    }
}

fn handle(stream: TcpStream, state: &Arc<Mutex<State>>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    let mut agent = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("user-agent:") {
            agent = value.trim().to_owned();
        }
    }
    let target = request.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let (status, body) = {
        let mut state = state.lock().unwrap();
        state.log.push(format!("{target} {agent}"));
        answer(&state, &target)
    };
    let mut stream = stream;
    // A 3xx route's body is where it redirects to.
    let (location, body) = if (300..400).contains(&status) {
        (format!("Location: {body}\r\n"), String::new())
    } else {
        (String::new(), body)
    };
    write!(
        stream,
        "HTTP/1.1 {status} X\r\n{location}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    stream.flush()
}

fn answer(state: &State, target: &str) -> (u16, String) {
    if let Some(broken) = &state.broken {
        return broken.clone();
    }
    if let Some(route) = state.routes.get(target) {
        return route.clone();
    }
    if let Some(query) = target.strip_prefix("/v0.1/servers?") {
        let mut search = String::new();
        let mut limit = 30;
        for pair in query.split('&') {
            match pair.split_once('=') {
                Some(("search", v)) => search = decode(v).to_lowercase(),
                Some(("limit", v)) => limit = v.parse().unwrap_or(30),
                _ => {}
            }
        }
        let servers: Vec<&Value> = state
            .latest
            .iter()
            .filter(|i| {
                i["server"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_lowercase()
                    .contains(&search)
            })
            .take(limit)
            .collect();
        return (
            200,
            json!({"servers": servers, "metadata": {"count": servers.len()}}).to_string(),
        );
    }
    if let Some(rest) = target.strip_prefix("/v0.1/servers/")
        && let Some(name) = rest.strip_suffix("/versions")
        && let Some(items) = state.versions.get(&decode(name))
    {
        return (
            200,
            json!({"servers": items, "metadata": {"count": items.len()}}).to_string(),
        );
    }
    (
        404,
        r#"{"title":"Not Found","status":404,"detail":"Server not found"}"#.to_owned(),
    )
}
