//! The bridge (`mcpctl bridge URL`): a stdio MCP server to the client, a Streamable HTTP
//! (or legacy HTTP+SSE) client to the remote server, so a client that can only hold
//! literal headers runs a remote server whose header needs a secret from the store.
//!
//! Messages pass through unchanged: each line from stdin is POSTed as it is; each message
//! from the server (a JSON body, or each `message` event of an SSE reply or of the GET
//! stream) is written to stdout as one line (re-serialized only when the server spread it
//! over several lines). The bridge adds only what the transport needs: the headers given,
//! `Mcp-Session-Id` once the server names one, `MCP-Protocol-Version` (from the
//! `initialize` result, or a modern request's `_meta`), and `Mcp-Method`/`Mcp-Name`. When
//! the initialize POST answers 400, 404 or 405, the bridge falls back to HTTP+SSE as the
//! spec says. Header values are never shown.
//!
//! Every request gets exactly one answer line: the server's reply, or a JSON-RPC error
//! from the bridge when the server cannot be reached, drops the connection in the middle
//! of its reply, ends its stream without answering, or does not answer within
//! `--timeout`. Nothing that is not a whole JSON message reaches the client. Requests
//! after `initialize` are relayed concurrently, so one slow reply holds up no other (a
//! `notifications/cancelled` included); a cancelled request's late reply is dropped, as
//! the spec says its sender ignores it.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::http::{ACCEPT_BOTH, SseReader, content_type, header_value, resolve_url};
use super::lines::read_line;
use super::prepare::Secret;
use crate::entry::RemoteKind;

/// Longest message read from stdin or the server.
const MAX_MESSAGE: usize = 16 * 1024 * 1024;
/// How long connecting to the server may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// How often the watch over unanswered requests looks at the clock.
const WATCH_EVERY: Duration = Duration::from_millis(100);
/// The `_meta` key a modern-era request carries its protocol version in.
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Where messages for the client go: stdout, one whole line each, never interleaved.
#[derive(Clone)]
struct Out(Arc<Mutex<std::io::Stdout>>);

impl Out {
    /// Write one message as one line. Text that is not a whole JSON message (a reply cut
    /// off in the middle) is never written: the client would fail to parse it and wait
    /// for the answer for ever.
    fn write(&self, message: &str) -> bool {
        let message = message.trim();
        if message.is_empty() {
            return false;
        }
        let Ok(value) = serde_json::from_str::<Value>(message) else {
            log("dropped a message from the server that is not whole JSON");
            return false;
        };
        let line = if message.contains(['\n', '\r']) {
            value.to_string()
        } else {
            message.to_owned()
        };
        let out = lock(&self.0);
        let mut out = out.lock();
        let _ = out
            .write_all(line.as_bytes())
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush());
        true
    }
}

#[expect(
    clippy::print_stderr,
    reason = "the bridge's log is its stderr, which clients keep"
)]
fn log(message: &str) {
    eprintln!("mcpctl bridge: {message}");
}

/// The requests sent and not answered yet, by id, with the time each may take.
#[derive(Default)]
struct Pending {
    open: Mutex<HashMap<String, (Value, Instant)>>,
    /// Signalled whenever a request is answered, so the end of input can wait for the rest.
    answered: Condvar,
}

impl Pending {
    fn key(id: &Value) -> String {
        id.to_string()
    }

    fn open(&self, id: &Value, timeout: Duration) {
        lock(&self.open).insert(Self::key(id), (id.clone(), Instant::now() + timeout));
    }

    /// Take `id` out; whether it was still waiting for its answer.
    fn close(&self, id: &Value) -> bool {
        let was = lock(&self.open).remove(&Self::key(id)).is_some();
        self.answered.notify_all();
        was
    }

    fn is_open(&self, id: &Value) -> bool {
        lock(&self.open).contains_key(&Self::key(id))
    }

    /// The requests whose time is up (still open: [`Link::fail`] answers and closes them).
    fn expired(&self) -> Vec<Value> {
        let now = Instant::now();
        lock(&self.open)
            .values()
            .filter(|(_, until)| *until <= now)
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// Every request still open.
    fn ids(&self) -> Vec<Value> {
        lock(&self.open)
            .values()
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// Wait until every request is answered (each has its own deadline, which the watch
    /// enforces).
    fn wait_empty(&self) {
        let mut open = lock(&self.open);
        while !open.is_empty() {
            open = self
                .answered
                .wait_timeout(open, WATCH_EVERY)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

/// What the connection has learned from the server.
#[derive(Default)]
struct Learned {
    session: Option<String>,
    version: Option<String>,
    /// The id of the `initialize` request in flight, whose result names the version.
    initialize: Option<Value>,
    /// The GET stream for server-initiated messages is open (or was tried).
    streaming: bool,
}

/// Note the protocol version when `value` answers the `initialize` in flight.
fn note_version(learned: &Mutex<Learned>, value: &Value) {
    let mut learned = lock(learned);
    let Some(id) = learned.initialize.clone() else {
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

/// Where a signed-in bridge gets its `Authorization: Bearer` token for each request
/// (`mcpctl bridge --oauth NAME`: the grant in the secret store, renewed before it
/// expires); `Err` says why there is none.
pub type Bearer = Box<dyn Fn() -> Result<Secret, String> + Send + Sync>;

/// Everything the relaying threads share.
struct Link {
    agent: ureq::Agent,
    url: String,
    fixed: Vec<(String, Secret)>,
    bearer: Option<Bearer>,
    out: Out,
    learned: Mutex<Learned>,
    pending: Pending,
    timeout: Duration,
    /// The legacy transport's POST endpoint, once connected over HTTP+SSE.
    legacy: Mutex<Option<String>>,
}

/// Relay every message until the client closes stdin, then wait for the replies still
/// due (each within `timeout`).
pub fn serve(
    url: &str,
    kind: RemoteKind,
    headers: Vec<(String, Secret)>,
    bearer: Option<Bearer>,
    timeout: Duration,
) -> anyhow::Result<()> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(CONNECT_TIMEOUT))
        .user_agent(concat!("mcpctl/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let link = Arc::new(Link {
        agent,
        url: url.to_owned(),
        fixed: headers,
        bearer,
        out: Out(Arc::new(Mutex::new(std::io::stdout()))),
        learned: Mutex::default(),
        pending: Pending::default(),
        timeout,
        legacy: Mutex::default(),
    });
    if kind == RemoteKind::Sse {
        connect_legacy(&link)?;
    }
    let watch = Arc::clone(&link);
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(WATCH_EVERY);
            for id in watch.pending.expired() {
                watch.fail(
                    &id,
                    &format!(
                        "no reply from {} within {} s (mcpctl bridge --timeout)",
                        watch.url,
                        watch.timeout.as_secs()
                    ),
                );
            }
        }
    });
    let mut stdin = BufReader::new(std::io::stdin().lock());
    while let Some(line) = read_line(&mut stdin, MAX_MESSAGE)? {
        let text = String::from_utf8_lossy(&line.kept);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let route = routing(text);
        if let Some(id) = &route.id {
            link.pending.open(id, link.timeout);
        }
        if route.method.as_deref() == Some("notifications/cancelled") {
            // The spec: the sender ignores a reply that still comes, so none is owed.
            if let Some(id) = &route.cancels {
                link.pending.close(id);
            }
        }
        // `initialize` (the session and version come from its answer) and notifications
        // (`notifications/initialized` must be in before the requests after it) go in
        // order; every other request goes on its own, so none waits for another's reply.
        if route.id.is_none() || route.method.as_deref() == Some("initialize") {
            link.relay(text, &route);
        } else {
            let link = Arc::clone(&link);
            let text = text.to_owned();
            std::thread::spawn(move || link.relay(&text, &route));
        }
    }
    link.pending.wait_empty();
    link.close();
    Ok(())
}

/// What the bridge reads from a client message to route it.
struct Routing {
    id: Option<Value>,
    method: Option<String>,
    name: Option<String>,
    version: Option<String>,
    /// The request a `notifications/cancelled` cancels.
    cancels: Option<Value>,
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
    let cancels = params.and_then(|p| p.get("requestId")).cloned();
    Routing {
        id: method
            .as_ref()
            .and_then(|_| value.get("id").cloned())
            .filter(|id| !id.is_null()),
        method,
        name,
        version,
        cancels,
    }
}

/// The id a message answers: a response (`result` or `error`) carries the request's id
/// and no method.
fn answers(value: &Value) -> Option<&Value> {
    if value.get("method").is_some() {
        return None;
    }
    value.get("id").filter(|id| !id.is_null())
}

impl Link {
    /// The headers of one request: the fixed ones, and the bearer token when signed in
    /// (fetched per request, so a renewed token is used as soon as there is one).
    fn headers(&self) -> Vec<(String, Secret)> {
        let mut headers = self.fixed.clone();
        if let Some(bearer) = &self.bearer {
            match bearer() {
                Ok(token) => headers.push((
                    "Authorization".to_owned(),
                    Secret(format!("Bearer {}", token.0)),
                )),
                Err(why) => log(&why),
            }
        }
        headers
    }

    fn learned(&self) -> MutexGuard<'_, Learned> {
        lock(&self.learned)
    }

    /// Pass one message from the server to the client: a reply only while its request
    /// waits for one (not after a cancel or the timeout), anything else as it comes.
    fn deliver(&self, message: &str) {
        let Ok(value) = serde_json::from_str::<Value>(message.trim()) else {
            log("dropped a message from the server that is not whole JSON");
            return;
        };
        let mut batch = match &value {
            Value::Array(items) => items.iter().collect(),
            one => vec![one],
        };
        batch.retain(|v| answers(v).is_none_or(|id| self.pending.is_open(id)));
        if batch.is_empty() {
            return;
        }
        note_version(&self.learned, &value);
        if self.out.write(message) {
            for id in batch.iter().filter_map(|v| answers(v)) {
                self.pending.close(id);
            }
        }
    }

    /// A JSON-RPC error reply to request `id`, for a failure of the bridge itself, unless
    /// the request was answered (or cancelled) meanwhile.
    fn fail(&self, id: &Value, message: &str) {
        log(message);
        if !self.pending.close(id) {
            return;
        }
        let reply = serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": { "code": -32000, "message": format!("mcpctl bridge: {message}") },
        });
        self.out.write(&reply.to_string());
    }

    /// Fail `route`'s request, or only log when it is a notification.
    fn fail_route(&self, route: &Routing, message: &str) {
        match &route.id {
            Some(id) => self.fail(id, message),
            None => log(message),
        }
    }

    fn relay(self: &Arc<Self>, text: &str, route: &Routing) {
        if route.method.as_deref() == Some("initialize") {
            self.learned().initialize = route.id.clone();
        }
        let legacy = lock(&self.legacy).clone();
        if let Some(endpoint) = legacy {
            self.post_legacy(&endpoint, text, route);
            return;
        }
        let response = match self.post(text, route) {
            Ok(response) => response,
            Err(error) => {
                self.fail_route(route, &error);
                return;
            }
        };
        let status = response.status().as_u16();
        if matches!(status, 400 | 404 | 405)
            && route.method.as_deref() == Some("initialize")
            && self.learned().session.is_none()
        {
            // The spec's backwards-compatibility rule: the server may speak HTTP+SSE.
            drain(response);
            match connect_legacy(self) {
                Ok(()) => {
                    log("the server answered the initialize POST with HTTP 4xx; using HTTP+SSE");
                    let legacy = lock(&self.legacy).clone();
                    if let Some(endpoint) = legacy {
                        self.post_legacy(&endpoint, text, route);
                    }
                }
                Err(error) => self.fail_route(
                    route,
                    &format!(
                        "HTTP {status} from {}, and no HTTP+SSE either: {error}",
                        self.url
                    ),
                ),
            }
            return;
        }
        if let Some(session) = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .filter(|_| response.status().is_success())
        {
            self.learned().session = Some(session.to_owned());
        }
        self.answer(response, route);
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
            let learned = self.learned();
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
        for (name, value) in &self.headers() {
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
        let reader = response.into_body().into_reader();
        if status.is_success() && sse {
            // Read on this request's own thread: the reply stream may stay open while the
            // server works, and other requests go on meanwhile.
            let ended = self.pump(BufReader::new(reader), route.id.as_ref());
            if let Some(id) = &route.id
                && self.pending.is_open(id)
            {
                self.fail(
                    id,
                    &format!(
                        "{} ended its reply stream without answering ({ended})",
                        self.url
                    ),
                );
            }
            return;
        }
        let mut body = Vec::new();
        let read = reader.take(MAX_MESSAGE as u64).read_to_end(&mut body);
        let body = String::from_utf8_lossy(&body);
        let message = body.trim();
        let whole = serde_json::from_str::<Value>(message).ok();
        if status.is_success() {
            match (whole, &route.id) {
                (Some(_), _) => self.deliver(message),
                (None, Some(id)) if read.is_err() || !message.is_empty() => self.fail(
                    id,
                    &format!(
                        "{} closed the connection in the middle of its reply",
                        self.url
                    ),
                ),
                (None, Some(id)) => self.fail(
                    id,
                    &format!(
                        "{} answered HTTP {} with no reply",
                        self.url,
                        status.as_u16()
                    ),
                ),
                (None, None) => {}
            }
            return;
        }
        // A JSON-RPC error the server sent with its 4xx is the answer itself.
        match (whole.filter(|v| answers(v).is_some()), &route.id) {
            (Some(_), _) => self.deliver(message),
            (None, _) => self.fail_route(route, &http_failure(status.as_u16(), &self.url)),
        }
    }

    /// Relay every `message` event of an SSE stream to the client, until the reply to
    /// `until` has gone out or the stream ends; says how it ended.
    fn pump(&self, reader: impl BufRead, until: Option<&Value>) -> &'static str {
        let mut events = SseReader::new(reader);
        loop {
            match events.next_event() {
                Ok(Some(event)) if event.event == "message" => {
                    self.deliver(&event.data);
                    if until.is_some_and(|id| !self.pending.is_open(id)) {
                        return "answered";
                    }
                }
                Ok(Some(_)) => {}
                Ok(None) => return "the stream closed",
                Err(_) => return "the connection dropped",
            }
        }
    }

    /// The GET stream of a Streamable HTTP session, for messages the server starts
    /// (requests, notifications). A server without one answers 405: nothing to do.
    fn open_stream(self: &Arc<Self>) {
        let (session, version) = {
            let mut learned = self.learned();
            if learned.streaming {
                return;
            }
            learned.streaming = true;
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
        for (name, value) in &self.headers() {
            request = request.header(name, &value.0);
        }
        let link = Arc::clone(self);
        std::thread::spawn(move || {
            let Ok(response) = request.call() else {
                return;
            };
            if response.status().is_success()
                && content_type(&response).starts_with("text/event-stream")
            {
                link.pump(BufReader::new(response.into_body().into_reader()), None);
            }
        });
    }

    fn post_legacy(&self, endpoint: &str, text: &str, route: &Routing) {
        let mut request = self
            .agent
            .post(endpoint)
            .header("Content-Type", "application/json");
        for (name, value) in &self.headers() {
            request = request.header(name, &value.0);
        }
        match request.send(text) {
            Ok(response) if response.status().is_success() => drain(response),
            Ok(response) => {
                let failure = http_failure(response.status().as_u16(), endpoint);
                drain(response);
                self.fail_route(route, &failure);
            }
            Err(e) => self.fail_route(route, &format!("cannot reach {endpoint}: {e}")),
        }
    }

    /// End the session (Streamable HTTP); a server that cannot delete sessions says 405.
    fn close(&self) {
        let (session, version) = {
            let learned = self.learned();
            (learned.session.clone(), learned.version.clone())
        };
        let Some(session) = session.filter(|_| lock(&self.legacy).is_none()) else {
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
        for (name, value) in &self.headers() {
            request = request.header(name, &value.0);
        }
        let _ = request.call();
    }
}

/// Open the HTTP+SSE stream, wait for its `endpoint` event, and relay its messages from
/// then on. When the stream ends, every request still waiting gets an error, and the
/// bridge ends: the client sees the server go, as with a stdio server exiting.
fn connect_legacy(link: &Arc<Link>) -> anyhow::Result<()> {
    let mut request = link
        .agent
        .get(&link.url)
        .header("Accept", "text/event-stream");
    for (name, value) in &link.headers() {
        request = request.header(name, &value.0);
    }
    let response = request
        .call()
        .map_err(|e| anyhow::anyhow!("cannot reach {}: {e}", link.url))?;
    if !response.status().is_success() {
        anyhow::bail!("{}", http_failure(response.status().as_u16(), &link.url));
    }
    if !content_type(&response).starts_with("text/event-stream") {
        anyhow::bail!("{} did not answer the GET with an event stream", link.url);
    }
    let mut events = SseReader::new(BufReader::new(response.into_body().into_reader()));
    let endpoint = loop {
        match events.next_event()? {
            Some(event) if event.event == "endpoint" => {
                break resolve_url(&link.url, event.data.trim());
            }
            Some(_) => {}
            None => anyhow::bail!(
                "the event stream of {} ended before its `endpoint` event",
                link.url
            ),
        }
    };
    *lock(&link.legacy) = Some(endpoint);
    let link = Arc::clone(link);
    std::thread::spawn(move || {
        loop {
            match events.next_event() {
                Ok(Some(event)) if event.event == "message" => link.deliver(&event.data),
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => {
                    log("the server closed its event stream");
                    for id in link.pending.ids() {
                        link.fail(&id, &format!("{} closed its event stream", link.url));
                    }
                    std::process::exit(0);
                }
            }
        }
    });
    Ok(())
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
        let learned = Mutex::new(Learned {
            initialize: Some(Value::from(1)),
            ..Learned::default()
        });
        let reply = |text: &str| serde_json::from_str::<Value>(text).unwrap_or_default();
        note_version(
            &learned,
            &reply(r#"{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"x"}}"#),
        );
        assert_eq!(lock(&learned).version, None);
        note_version(
            &learned,
            &reply(r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}"#),
        );
        assert_eq!(lock(&learned).version.as_deref(), Some("2025-11-25"));
        assert_eq!(lock(&learned).initialize, None);
    }

    #[test]
    fn a_cancel_names_its_request_and_a_reply_is_known_by_its_id() {
        let cancel = routing(
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#,
        );
        assert_eq!((cancel.id, cancel.cancels), (None, Some(Value::from(5))));
        let reply = serde_json::json!({"jsonrpc": "2.0", "id": 5, "result": {}});
        assert_eq!(answers(&reply), Some(&Value::from(5)));
        let request = serde_json::json!({"jsonrpc": "2.0", "id": 5, "method": "ping"});
        assert_eq!(answers(&request), None);
    }

    #[test]
    fn a_request_is_open_until_answered_and_late_ones_are_found() {
        let pending = Pending::default();
        pending.open(&Value::from(1), Duration::ZERO);
        pending.open(&Value::from("a"), Duration::from_secs(60));
        assert_eq!(pending.expired(), [Value::from(1)]);
        assert!(pending.close(&Value::from(1)));
        assert!(!pending.close(&Value::from(1)), "answered once only");
        assert!(pending.is_open(&Value::from("a")));
        assert_eq!(pending.ids(), [Value::from("a")]);
    }
}
