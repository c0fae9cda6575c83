//! The bridge (`mcpctl bridge URL`): a stdio MCP server to the client, a Streamable HTTP
//! (or legacy HTTP+SSE) client to the remote server, so a client that can only hold
//! literal headers runs a remote server whose header needs a secret from the store.
//!
//! Messages pass through unchanged: each line from stdin is POSTed as it is; each message
//! from the server (a JSON body, or each `message` event of an SSE reply or of the GET
//! stream) is written to stdout as one line (re-serialized only when the server spread it
//! over several lines). The bridge adds only what the transport needs: the headers given,
//! `Mcp-Session-Id` once the server names one, `MCP-Protocol-Version` (from the
//! `initialize` result, or a modern request's `_meta`), and `Mcp-Method`/`Mcp-Name`. A
//! request the server cannot be reached for gets a JSON-RPC error reply, so the client
//! does not wait for ever. When the initialize POST answers 400, 404 or 405, the bridge
//! falls back to HTTP+SSE as the spec says. Header values are never shown.

use std::io::{BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;

use super::http::{ACCEPT_BOTH, SseReader, content_type, header_value, resolve_url};
use super::lines::read_line;
use super::prepare::Secret;
use crate::entry::RemoteKind;

/// Longest message read from stdin or the server.
const MAX_MESSAGE: usize = 16 * 1024 * 1024;
/// How long connecting to the server may take (replies may take as long as they need).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// The `_meta` key a modern-era request carries its protocol version in.
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// Where messages for the client go: stdout, one line each, never interleaved.
#[derive(Clone)]
struct Out(Arc<Mutex<std::io::Stdout>>);

impl Out {
    fn send(&self, message: &str) {
        let message = message.trim();
        if message.is_empty() {
            return;
        }
        let line = if message.contains('\n') {
            serde_json::from_str::<Value>(message)
                .map_or_else(|_| message.replace(['\r', '\n'], " "), |v| v.to_string())
        } else {
            message.to_owned()
        };
        let out = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let mut out = out.lock();
        let _ = out
            .write_all(line.as_bytes())
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush());
    }

    /// A JSON-RPC error reply to request `id`, for a failure of the bridge itself.
    fn fail(&self, id: &Value, message: &str) {
        log(message);
        let reply = serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": { "code": -32000, "message": format!("mcpctl bridge: {message}") },
        });
        self.send(&reply.to_string());
    }
}

#[expect(
    clippy::print_stderr,
    reason = "the bridge's log is its stderr, which clients keep"
)]
fn log(message: &str) {
    eprintln!("mcpctl bridge: {message}");
}

/// What the connection has learned from the server.
#[derive(Default)]
struct Learned {
    session: Option<String>,
    version: Option<String>,
    /// The id of the `initialize` request in flight, whose result names the version.
    initialize: Option<Value>,
}

type Shared = Arc<Mutex<Learned>>;

fn learned(shared: &Shared) -> std::sync::MutexGuard<'_, Learned> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Note the protocol version when `message` answers the `initialize` in flight.
fn note_version(shared: &Shared, message: &str) {
    let mut learned = learned(shared);
    let Some(id) = learned.initialize.clone() else {
        return;
    };
    let Ok(value) = serde_json::from_str::<Value>(message) else {
        return;
    };
    if value.get("id") == Some(&id) {
        learned.initialize = None;
        if let Some(version) = value
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str)
        {
            learned.version = Some(version.to_owned());
        }
    }
}

/// Relay every message until the client closes stdin.
pub fn serve(url: &str, kind: RemoteKind, headers: Vec<(String, Secret)>) -> anyhow::Result<()> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(CONNECT_TIMEOUT))
        .user_agent(concat!("mcpctl/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut bridge = Bridge {
        agent,
        url: url.to_owned(),
        headers,
        out: Out(Arc::new(Mutex::new(std::io::stdout()))),
        shared: Shared::default(),
        legacy: None,
        streaming: false,
    };
    if kind == RemoteKind::Sse {
        bridge.connect_legacy()?;
    }
    let mut stdin = BufReader::new(std::io::stdin().lock());
    while let Some(line) = read_line(&mut stdin, MAX_MESSAGE)? {
        let text = String::from_utf8_lossy(&line.kept);
        if text.trim().is_empty() {
            continue;
        }
        bridge.relay(text.trim());
    }
    bridge.close();
    Ok(())
}

struct Bridge {
    agent: ureq::Agent,
    url: String,
    headers: Vec<(String, Secret)>,
    out: Out,
    shared: Shared,
    /// The legacy transport's POST endpoint, once connected over HTTP+SSE.
    legacy: Option<String>,
    /// The GET stream for server-initiated messages is open (or was tried).
    streaming: bool,
}

/// What the bridge reads from a client message to route it.
struct Routing {
    id: Option<Value>,
    method: Option<String>,
    name: Option<String>,
    version: Option<String>,
}

fn routing(text: &str) -> Routing {
    let value = serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
    let method = value
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let params = value.get("params");
    let name = match method.as_deref() {
        Some("tools/call" | "prompts/get") => params.and_then(|p| p.get("name")),
        Some("resources/read") => params.and_then(|p| p.get("uri")),
        _ => None,
    }
    .and_then(Value::as_str)
    .map(str::to_owned);
    let version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str)
        .map(str::to_owned);
    Routing {
        id: method.as_ref().and_then(|_| value.get("id").cloned()),
        method,
        name,
        version,
    }
}

impl Bridge {
    fn relay(&mut self, text: &str) {
        let route = routing(text);
        if route.method.as_deref() == Some("initialize") {
            learned(&self.shared).initialize = route.id.clone();
        }
        if let Some(endpoint) = self.legacy.clone() {
            self.post_legacy(&endpoint, text, &route);
            return;
        }
        let response = match self.post(text, &route) {
            Ok(response) => response,
            Err(error) => {
                if let Some(id) = &route.id {
                    self.out.fail(id, &error);
                } else {
                    log(&error);
                }
                return;
            }
        };
        let status = response.status().as_u16();
        if matches!(status, 400 | 404 | 405)
            && route.method.as_deref() == Some("initialize")
            && learned(&self.shared).session.is_none()
        {
            // The spec's backwards-compatibility rule: the server may speak HTTP+SSE.
            drain(response);
            match self.connect_legacy() {
                Ok(()) => {
                    log("the server answered the initialize POST with HTTP 4xx; using HTTP+SSE");
                    if let Some(endpoint) = self.legacy.clone() {
                        self.post_legacy(&endpoint, text, &route);
                    }
                }
                Err(error) => {
                    if let Some(id) = &route.id {
                        self.out.fail(
                            id,
                            &format!(
                                "HTTP {status} from {}, and no HTTP+SSE either: {error}",
                                self.url
                            ),
                        );
                    }
                }
            }
            return;
        }
        if let Some(session) = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .filter(|_| response.status().is_success())
        {
            learned(&self.shared).session = Some(session.to_owned());
        }
        self.answer(response, &route);
        if route.method.as_deref() == Some("notifications/initialized") {
            self.open_stream();
        }
    }

    fn post(
        &self,
        text: &str,
        route: &Routing,
    ) -> Result<ureq::http::Response<ureq::Body>, String> {
        let (session, version) = {
            let learned = learned(&self.shared);
            (learned.session.clone(), learned.version.clone())
        };
        let mut request = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", ACCEPT_BOTH);
        if let Some(session) = &session {
            request = request.header("Mcp-Session-Id", session);
        }
        if let Some(version) = route.version.as_ref().or(version.as_ref()) {
            request = request.header("MCP-Protocol-Version", version);
        }
        if let Some(method) = &route.method {
            request = request.header("Mcp-Method", method);
        }
        if let Some(name) = &route.name {
            request = request.header("Mcp-Name", header_value(name));
        }
        for (name, value) in &self.headers {
            request = request.header(name, &value.0);
        }
        request
            .send(text)
            .map_err(|e| format!("cannot reach {}: {e}", self.url))
    }

    /// Pass the server's answer to a POST on to the client.
    fn answer(&self, response: ureq::http::Response<ureq::Body>, route: &Routing) {
        let status = response.status();
        let sse = content_type(&response).starts_with("text/event-stream");
        if status.is_success() && sse {
            let out = self.out.clone();
            let shared = self.shared.clone();
            let reader = BufReader::new(response.into_body().into_reader());
            // A reply stream may stay open while the server works: read it aside, so the
            // client's next messages (a cancel, a ping) still get through.
            std::thread::spawn(move || pump(reader, &out, &shared));
            return;
        }
        let mut body = String::new();
        let _ = response
            .into_body()
            .into_reader()
            .take(MAX_MESSAGE as u64)
            .read_to_string(&mut body);
        let message = body.trim();
        if status.is_success() {
            if !message.is_empty() {
                note_version(&self.shared, message);
                self.out.send(message);
            }
            return;
        }
        // A JSON-RPC error the server sent with its 4xx is the answer itself.
        let rpc = serde_json::from_str::<Value>(message)
            .ok()
            .filter(|v| v.get("jsonrpc").is_some() && v.get("id").is_some_and(|id| !id.is_null()));
        match (rpc, &route.id) {
            (Some(_), _) => self.out.send(message),
            (None, Some(id)) => self.out.fail(id, &http_failure(status.as_u16(), &self.url)),
            (None, None) => log(&http_failure(status.as_u16(), &self.url)),
        }
    }

    /// The GET stream of a Streamable HTTP session, for messages the server starts
    /// (requests, notifications). A server without one answers 405: nothing to do.
    fn open_stream(&mut self) {
        if self.streaming {
            return;
        }
        self.streaming = true;
        let (session, version) = {
            let learned = learned(&self.shared);
            (learned.session.clone(), learned.version.clone())
        };
        let Some(session) = session else {
            return;
        };
        let mut request = self
            .agent
            .get(&self.url)
            .header("Accept", "text/event-stream")
            .header("Mcp-Session-Id", &session);
        if let Some(version) = &version {
            request = request.header("MCP-Protocol-Version", version);
        }
        for (name, value) in &self.headers {
            request = request.header(name, &value.0);
        }
        let out = self.out.clone();
        let shared = self.shared.clone();
        std::thread::spawn(move || {
            let Ok(response) = request.call() else {
                return;
            };
            if response.status().is_success()
                && content_type(&response).starts_with("text/event-stream")
            {
                pump(
                    BufReader::new(response.into_body().into_reader()),
                    &out,
                    &shared,
                );
            }
        });
    }

    /// Open the HTTP+SSE stream, wait for its `endpoint` event, and relay its messages
    /// from then on.
    fn connect_legacy(&mut self) -> anyhow::Result<()> {
        let mut request = self
            .agent
            .get(&self.url)
            .header("Accept", "text/event-stream");
        for (name, value) in &self.headers {
            request = request.header(name, &value.0);
        }
        let response = request
            .call()
            .map_err(|e| anyhow::anyhow!("cannot reach {}: {e}", self.url))?;
        if !response.status().is_success() {
            anyhow::bail!("{}", http_failure(response.status().as_u16(), &self.url));
        }
        if !content_type(&response).starts_with("text/event-stream") {
            anyhow::bail!("{} did not answer the GET with an event stream", self.url);
        }
        let mut events = SseReader::new(BufReader::new(response.into_body().into_reader()));
        let endpoint = loop {
            match events.next_event()? {
                Some(event) if event.event == "endpoint" => {
                    break resolve_url(&self.url, event.data.trim());
                }
                Some(_) => {}
                None => anyhow::bail!(
                    "the event stream of {} ended before its `endpoint` event",
                    self.url
                ),
            }
        };
        self.legacy = Some(endpoint);
        let out = self.out.clone();
        let shared = self.shared.clone();
        std::thread::spawn(move || {
            loop {
                match events.next_event() {
                    Ok(Some(event)) if event.event == "message" => {
                        note_version(&shared, &event.data);
                        out.send(&event.data);
                    }
                    Ok(Some(_)) => {}
                    Ok(None) | Err(_) => {
                        log("the server closed its event stream");
                        // The client sees the server go, as with a stdio server exiting.
                        std::process::exit(0);
                    }
                }
            }
        });
        Ok(())
    }

    fn post_legacy(&self, endpoint: &str, text: &str, route: &Routing) {
        let mut request = self
            .agent
            .post(endpoint)
            .header("Content-Type", "application/json");
        for (name, value) in &self.headers {
            request = request.header(name, &value.0);
        }
        match request.send(text) {
            Ok(response) if response.status().is_success() => drain(response),
            Ok(response) => {
                let failure = http_failure(response.status().as_u16(), endpoint);
                drain(response);
                match &route.id {
                    Some(id) => self.out.fail(id, &failure),
                    None => log(&failure),
                }
            }
            Err(e) => {
                let failure = format!("cannot reach {endpoint}: {e}");
                match &route.id {
                    Some(id) => self.out.fail(id, &failure),
                    None => log(&failure),
                }
            }
        }
    }

    /// End the session (Streamable HTTP); a server that cannot delete sessions says 405.
    fn close(&self) {
        let (session, version) = {
            let learned = learned(&self.shared);
            (learned.session.clone(), learned.version.clone())
        };
        let Some(session) = session.filter(|_| self.legacy.is_none()) else {
            return;
        };
        let mut request = self
            .agent
            .delete(&self.url)
            .config()
            .timeout_global(Some(Duration::from_secs(2)))
            .build()
            .header("Mcp-Session-Id", &session);
        if let Some(version) = &version {
            request = request.header("MCP-Protocol-Version", version);
        }
        for (name, value) in &self.headers {
            request = request.header(name, &value.0);
        }
        let _ = request.call();
    }
}

/// Relay every `message` event of an SSE response to the client.
fn pump(reader: impl BufRead, out: &Out, shared: &Shared) {
    let mut events = SseReader::new(reader);
    while let Ok(Some(event)) = events.next_event() {
        if event.event == "message" {
            note_version(shared, &event.data);
            out.send(&event.data);
        }
    }
}

fn drain(response: ureq::http::Response<ureq::Body>) {
    let _ = std::io::copy(
        &mut response.into_body().into_reader().take(MAX_MESSAGE as u64),
        &mut std::io::sink(),
    );
}

fn http_failure(status: u16, url: &str) -> String {
    match status {
        401 => format!(
            "HTTP 401 from {url}: the server wants authorization (is the header's secret right? mcpctl secret set …)"
        ),
        403 => format!("HTTP 403 from {url}: the credential lacks a permission the server needs"),
        404 => format!("HTTP 404 from {url} (wrong path, or the session ended)"),
        other => format!("HTTP {other} from {url}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routing_reads_method_name_and_modern_version() {
        let r = routing(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hello","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        );
        assert_eq!(r.id, Some(Value::from(7)));
        assert_eq!(r.method.as_deref(), Some("tools/call"));
        assert_eq!(r.name.as_deref(), Some("hello"));
        assert_eq!(r.version.as_deref(), Some("2026-07-28"));
        let reply = routing(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#);
        assert_eq!((reply.id, reply.method), (None, None));
    }

    #[test]
    fn the_initialize_result_names_the_version() {
        let shared = Shared::default();
        learned(&shared).initialize = Some(Value::from(1));
        note_version(
            &shared,
            r#"{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"x"}}"#,
        );
        assert_eq!(learned(&shared).version, None);
        note_version(
            &shared,
            r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}"#,
        );
        assert_eq!(learned(&shared).version.as_deref(), Some("2025-11-25"));
        assert_eq!(learned(&shared).initialize, None);
    }
}
