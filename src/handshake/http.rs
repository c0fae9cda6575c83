//! The remote handshake: Streamable HTTP (POST per message, JSON or SSE replies,
//! `Mcp-Session-Id`, `MCP-Protocol-Version`, DELETE at the end) and legacy HTTP+SSE (GET
//! stream, `endpoint` event, POSTs to it), chosen by the entry or by the spec's fallback
//! when the initialize POST answers 400, 404 or 405. A 401 is a warning, not a failure:
//! the server is up and wants a login; unless the entry sends a key of its own (the key
//! is wrong: no login replaces it) or the OAuth metadata the 401 names answers 404 (no
//! client can log in).
//!
//! Header values arrive expanded by `prepare`; they are sent and never shown: not in
//! errors, warnings or `Debug` output.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::jsonrpc::RpcError;
use super::jsonrpc::{self, Incoming};
use super::lines::read_line;
use super::prepare::Secret;
use super::session::{self, Channel, HTTP_PROBE_WINDOW, Plan, Reply};
use super::{
    Budget, Era, MODERN_PROTOCOL_VERSION, Phase, ProbeError, ProbeOptions, ProbeWarning, Report,
    ToolCall,
};
use crate::entry::RemoteKind;

/// Longest SSE line or JSON body kept.
const MAX_MESSAGE: usize = 16 * 1024 * 1024;
/// Time allowed for the closing DELETE of a session.
const DELETE_TIMEOUT: Duration = Duration::from_secs(2);
pub(super) const ACCEPT_BOTH: &str = "application/json, text/event-stream";
/// JSON-RPC error codes only a modern-era server sends (header mismatch, missing client
/// capability, unsupported protocol version).
const MODERN_ERRORS: [i64; 3] = [-32020, -32021, -32022];

/// The entry's headers, expanded, values hidden.
#[derive(Debug)]
struct Headers(Vec<(String, Secret)>);

pub(crate) fn probe(
    url: &str,
    kind: RemoteKind,
    headers: &[(String, Secret)],
    options: &ProbeOptions,
    deadline: Instant,
    call: Option<&ToolCall>,
    report: &mut Report,
) -> Result<(), ProbeError> {
    let key = key_header(headers);
    let headers = Headers(headers.to_vec());
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .user_agent(concat!("mcpctl/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let http = Http {
        agent: agent.clone(),
        headers,
        budget: options.budget(),
        challenge: None,
    };
    let mut plan = Plan {
        deadline,
        budget: options.budget(),
        discover: options.opening != super::Opening::Initialize,
        call,
        capabilities: options.capabilities.clone(),
    };
    let result = match kind {
        RemoteKind::Http => streamable(http, url, &mut plan, report),
        RemoteKind::Sse => legacy(http, url, &mut plan, report),
    };
    match result {
        Outcome::Done(result) => result,
        // A key the entry sends itself was refused: logging in through the client does
        // not replace it.
        Outcome::NeedsLogin(_) if let Some(header) = key => Err(ProbeError::KeyRefused { header }),
        // The metadata the challenge names is not there: no client can log in.
        Outcome::NeedsLogin(Some(named)) if not_found(&agent, &named, deadline) => {
            Err(ProbeError::NoLoginMetadata { url: named })
        }
        Outcome::NeedsLogin(resource_metadata) => {
            let resource_metadata =
                resource_metadata.or_else(|| discover_metadata(&agent, url, deadline));
            report.warn(ProbeWarning::NeedsAuthorization { resource_metadata });
            Ok(())
        }
    }
}

/// The first header the entry sends that carries a key of its own (`Authorization`,
/// `X-Api-Key`, a name like a secret's).
fn key_header(headers: &[(String, Secret)]) -> Option<String> {
    headers
        .iter()
        .find(|(name, _)| crate::secrets::secret_name(name))
        .map(|(name, _)| name.clone())
}

/// Whether `url` answers 404 (or 410) to a GET before `deadline`.
fn not_found(agent: &ureq::Agent, url: &str, deadline: Instant) -> bool {
    let left = deadline.saturating_duration_since(Instant::now());
    !left.is_zero()
        && agent
            .get(url)
            .config()
            .timeout_global(Some(left))
            .build()
            .header("Accept", "application/json")
            .call()
            .is_ok_and(|response| matches!(response.status().as_u16(), 404 | 410))
}

/// How a remote probe ended: normally, or at a 401 (carrying `resource_metadata`).
enum Outcome {
    Done(Result<(), ProbeError>),
    NeedsLogin(Option<String>),
}

/// What both HTTP transports share.
struct Http {
    agent: ureq::Agent,
    headers: Headers,
    budget: Budget,
    /// Set on a 401: the `resource_metadata` URL, if the server named one.
    challenge: Option<Option<String>>,
}

/// Winsock's answers for a name that does not resolve (`WSAHOST_NOT_FOUND`,
/// `WSANO_DATA`): what getaddrinfo's error is on Windows. No Unix errno has these values.
const WINSOCK_HOST_NOT_FOUND: [i32; 2] = [11001, 11004];

/// "cannot resolve host `mcp.example.com`": the host of `url`, named, with what to check.
fn unresolved(url: &str) -> String {
    let host = url
        .parse::<ureq::http::Uri>()
        .ok()
        .and_then(|uri| uri.host().map(str::to_owned));
    match host {
        Some(host) => {
            format!("cannot resolve host `{host}` (check its spelling in the URL, and your DNS)")
        }
        None => "host not found (check the URL and your DNS)".to_owned(),
    }
}

impl Http {
    fn timeout(&self, phase: Phase) -> ProbeError {
        self.budget.expired(phase)
    }

    /// Time left before `deadline`, or the timeout error.
    fn remaining(&self, deadline: Instant, phase: Phase) -> Result<Duration, ProbeError> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            Err(self.timeout(phase))
        } else {
            Ok(left)
        }
    }

    fn classify(&self, error: ureq::Error, url: &str, phase: Phase) -> ProbeError {
        match error {
            ureq::Error::Timeout(_) => self.timeout(phase),
            ureq::Error::HostNotFound => ProbeError::Connect {
                url: url.to_owned(),
                reason: unresolved(url),
            },
            // getaddrinfo's own words ("failed to lookup address information: Name or
            // service not known") name no host; Windows' ("Host not found. (os error
            // 11001)") neither.
            ureq::Error::Io(io)
                if io.to_string().contains("failed to lookup address")
                    || io
                        .raw_os_error()
                        .is_some_and(|code| WINSOCK_HOST_NOT_FOUND.contains(&code)) =>
            {
                ProbeError::Connect {
                    url: url.to_owned(),
                    reason: unresolved(url),
                }
            }
            ureq::Error::ConnectionFailed => ProbeError::Connect {
                url: url.to_owned(),
                reason: "connection failed (is the server running?)".to_owned(),
            },
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
                ProbeError::Connect {
                    url: url.to_owned(),
                    reason: "connection refused (is the server running?)".to_owned(),
                }
            }
            ureq::Error::BadUri(reason) => ProbeError::BadUrl {
                url: url.to_owned(),
                reason,
            },
            other => ProbeError::Transport {
                reason: other.to_string(),
                phase,
            },
        }
    }

    /// A non-2xx answer as an error; a 401 also records the challenge.
    fn status_error(
        &mut self,
        response: ureq::http::Response<ureq::Body>,
        phase: Phase,
    ) -> ProbeError {
        let status = response.status().as_u16();
        if status == 401 {
            let metadata = response
                .headers()
                .get_all("www-authenticate")
                .iter()
                .filter_map(|value| value.to_str().ok())
                .find_map(resource_metadata);
            self.challenge = Some(metadata);
        }
        if status == 403 {
            return ProbeError::Forbidden { phase };
        }
        let html = content_type(&response).starts_with("text/html");
        let mut body = String::new();
        let _ = response
            .into_body()
            .into_reader()
            .take(4096)
            .read_to_string(&mut body);
        http_error(status, html, &body, phase)
    }

    fn post(
        &self,
        url: &str,
        body: String,
        extra: &[(&str, &str)],
        deadline: Instant,
        phase: Phase,
    ) -> Result<ureq::http::Response<ureq::Body>, ProbeError> {
        let mut request = self
            .agent
            .post(url)
            .config()
            .timeout_global(Some(self.remaining(deadline, phase)?))
            .build()
            .header("Content-Type", "application/json")
            .header("Accept", ACCEPT_BOTH);
        for (name, value) in extra {
            request = request.header(*name, *value);
        }
        for (name, value) in &self.headers.0 {
            request = request.header(name, &value.0);
        }
        request
            .send(body)
            .map_err(|error| self.classify(error, url, phase))
    }

    /// The outcome once a channel failed: a recorded 401 wins over its error.
    fn outcome(&mut self, result: Result<(), ProbeError>) -> Outcome {
        match self.challenge.take() {
            Some(metadata) => Outcome::NeedsLogin(metadata),
            None => Outcome::Done(result),
        }
    }
}

/// A non-2xx answer (other than 401/403) as an error: an HTML page as its text, and the
/// usual path suggested for a 404.
fn http_error(status: u16, html: bool, body: &str, phase: Phase) -> ProbeError {
    let text = if html || body.trim_start().starts_with('<') {
        html_text(body)
    } else {
        body.trim().to_owned()
    };
    let mut detail = jsonrpc::quote(&text);
    if status == 404 {
        detail.push_str(" (wrong path? MCP endpoints are usually `/mcp`)");
    }
    ProbeError::Http {
        status,
        phase,
        detail,
    }
}

pub(super) fn content_type(response: &ureq::http::Response<ureq::Body>) -> String {
    response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase()
}

// ---------------------------------------------------------------------------------
// Streamable HTTP

struct Streamable {
    http: Http,
    url: String,
    session: Option<String>,
    version: Option<String>,
    /// Set once the modern era is agreed: no sessions, routing headers on every POST.
    modern: bool,
    /// Replies read from POST responses, waiting for [`Channel::receive`].
    replies: VecDeque<Reply>,
}

fn streamable(http: Http, url: &str, plan: &mut Plan<'_>, report: &mut Report) -> Outcome {
    let mut channel = Streamable {
        http,
        url: url.to_owned(),
        session: None,
        version: None,
        modern: false,
        replies: VecDeque::new(),
    };
    let result = session::run(&mut channel, plan, report);
    if let Err(ProbeError::Http {
        status: 400 | 404 | 405,
        phase: Phase::Initialize,
        ..
    }) = &result
    {
        // The spec's backwards-compatibility rule: try the legacy transport.
        let fallback = legacy(channel.http, url, plan, report);
        return match fallback {
            Outcome::Done(Err(ProbeError::NotSse { .. })) => Outcome::Done(result),
            Outcome::Done(Ok(())) => {
                report.warn(ProbeWarning::FellBackToSse);
                Outcome::Done(Ok(()))
            }
            other => other,
        };
    }
    if let Some(session) = channel.session.take() {
        let started = Instant::now();
        let mut request = channel
            .http
            .agent
            .delete(url)
            .config()
            .timeout_global(Some(DELETE_TIMEOUT))
            .build()
            .header("Mcp-Session-Id", &session);
        if let Some(version) = &channel.version {
            request = request.header("MCP-Protocol-Version", version);
        }
        for (name, value) in &channel.http.headers.0 {
            request = request.header(name, &value.0);
        }
        // 405 (sessions cannot be deleted) and errors are fine: the probe is over.
        let _ = request.call();
        report.phase(Phase::Shutdown, started);
    }
    channel.http.outcome(result)
}

impl Streamable {
    /// POST one message; a request's reply (or a modern-era error the server sent with
    /// a 4xx) is queued for `receive`.
    fn post(
        &mut self,
        body: String,
        routing: Option<(&str, &Value)>,
        deadline: Instant,
        phase: Phase,
    ) -> Result<ureq::http::Response<ureq::Body>, ProbeError> {
        let mut extra: Vec<(&str, String)> = Vec::new();
        if let Some(session) = self.session.as_ref().filter(|_| !self.modern) {
            extra.push(("Mcp-Session-Id", session.clone()));
        }
        let discover = routing.is_some_and(|(method, _)| method == "server/discover");
        let version = if discover {
            Some(MODERN_PROTOCOL_VERSION)
        } else {
            self.version.as_deref()
        };
        if let Some(version) = version {
            extra.push(("MCP-Protocol-Version", version.to_owned()));
        }
        if let Some((method, params)) = routing.filter(|_| self.modern || discover) {
            extra.push(("Mcp-Method", method.to_owned()));
            let named = match method {
                "tools/call" | "prompts/get" => params.get("name"),
                "resources/read" => params.get("uri"),
                _ => None,
            };
            if let Some(name) = named.and_then(Value::as_str) {
                extra.push(("Mcp-Name", header_value(name)));
            }
        }
        let extra: Vec<(&str, &str)> = extra.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let response = self.http.post(&self.url, body, &extra, deadline, phase)?;
        if response.status().is_success()
            && !self.modern
            && let Some(session) = response
                .headers()
                .get("mcp-session-id")
                .and_then(|value| value.to_str().ok())
        {
            self.session = Some(session.to_owned());
        }
        Ok(response)
    }

    /// Handle one message from the server; `Some` when it is the awaited response.
    fn handle(
        &mut self,
        data: &str,
        want: u64,
        phase: Phase,
        deadline: Instant,
    ) -> Option<Result<Reply, ProbeError>> {
        match jsonrpc::parse(data) {
            Incoming::Response { id, outcome } if id.as_u64() == Some(want) => {
                Some(Ok(Reply { id: want, outcome }))
            }
            Incoming::Request { id, method } => {
                let reply = jsonrpc::reply_to_server(&id, &method);
                let _ = self.post(reply, None, deadline, phase);
                None
            }
            Incoming::Invalid(line) => Some(Err(ProbeError::NonJsonBody { line, phase })),
            Incoming::Response { .. } | Incoming::Notification => None,
        }
    }

    /// The reply to request `want` in a successful POST response (JSON or SSE).
    fn read_reply(
        &mut self,
        response: ureq::http::Response<ureq::Body>,
        want: u64,
        deadline: Instant,
        phase: Phase,
    ) -> Result<Reply, ProbeError> {
        let sse = content_type(&response).starts_with("text/event-stream");
        let mut reader = BufReader::new(response.into_body().into_reader());
        if !sse {
            let mut body = String::new();
            (&mut reader)
                .take(MAX_MESSAGE as u64)
                .read_to_string(&mut body)
                .map_err(|error| self.read_error(&error, deadline, phase))?;
            // A JSON body holds the response (or, before 2025-06-18, possibly a batch).
            let messages = match serde_json::from_str::<Value>(&body) {
                Ok(Value::Array(items)) => items.iter().map(Value::to_string).collect(),
                _ => vec![body],
            };
            for message in messages {
                if let Some(result) = self.handle(&message, want, phase, deadline) {
                    return result;
                }
            }
            return Err(ProbeError::BadResult {
                reason: "the JSON body held no response with the request's id".to_owned(),
                phase,
            });
        }
        let mut events = SseReader::new(reader);
        loop {
            match events.next_event() {
                Ok(Some(event)) => {
                    if event.event != "message" {
                        continue;
                    }
                    if let Some(result) = self.handle(&event.data, want, phase, deadline) {
                        return result;
                    }
                }
                Ok(None) => {
                    return Err(ProbeError::BadResult {
                        reason: "the SSE stream ended without a response (resuming a \
                                 closed stream is not supported)"
                            .to_owned(),
                        phase,
                    });
                }
                Err(error) => return Err(self.read_error(&error, deadline, phase)),
            }
        }
    }
}

impl Channel for Streamable {
    fn send(
        &mut self,
        id: u64,
        method: &str,
        params: &Value,
        phase: Phase,
        until: Instant,
        _report: &mut Report,
    ) -> Result<(), ProbeError> {
        let response = self.post(
            jsonrpc::request(id, method, params),
            Some((method, params)),
            until,
            phase,
        )?;
        let status = response.status().as_u16();
        let reply = if response.status().is_success() {
            self.read_reply(response, id, until, phase)?
        } else if matches!(status, 401 | 403) {
            return Err(self.http.status_error(response, phase));
        } else {
            let html = content_type(&response).starts_with("text/html");
            let mut body = String::new();
            let _ = response
                .into_body()
                .into_reader()
                .take(64 * 1024)
                .read_to_string(&mut body);
            let error = serde_json::from_str::<Value>(&body)
                .ok()
                .and_then(|message| message.get("error").map(jsonrpc::rpc_error));
            match error {
                // A modern server's refusal, or any answer to the probe: the session
                // decides the era from it.
                Some(error)
                    if method == "server/discover" || MODERN_ERRORS.contains(&error.code) =>
                {
                    Reply {
                        id,
                        outcome: Err(error),
                    }
                }
                None if method == "server/discover" => Reply {
                    id,
                    outcome: Err(RpcError {
                        code: 0,
                        message: format!("HTTP {status}"),
                        data: None,
                    }),
                },
                _ => return Err(http_error(status, html, &body, phase)),
            }
        };
        self.replies.push_back(reply);
        Ok(())
    }

    fn receive(
        &mut self,
        _phase: Phase,
        _until: Instant,
        _report: &mut Report,
    ) -> Result<Option<Reply>, ProbeError> {
        Ok(self.replies.pop_front())
    }

    fn notify(
        &mut self,
        method: &str,
        phase: Phase,
        deadline: Instant,
        _report: &mut Report,
    ) -> Result<(), ProbeError> {
        let response = self.post(jsonrpc::notification(method), None, deadline, phase)?;
        if response.status().is_success() {
            Ok(())
        } else {
            Err(self.http.status_error(response, phase))
        }
    }

    fn negotiated(&mut self, version: &str, era: Era) {
        self.version = Some(version.to_owned());
        self.modern = era == Era::Modern;
        if self.modern {
            self.session = None;
        }
    }

    fn probe_window(&self) -> Duration {
        HTTP_PROBE_WINDOW
    }
}

impl Streamable {
    fn read_error(&self, error: &std::io::Error, deadline: Instant, phase: Phase) -> ProbeError {
        if Instant::now() >= deadline || error.kind() == std::io::ErrorKind::TimedOut {
            self.http.timeout(phase)
        } else {
            ProbeError::Transport {
                reason: format!("reading the reply failed: {error}"),
                phase,
            }
        }
    }
}

/// A header value as the 2026-07-28 HTTP transport carries it: printable ASCII as is,
/// anything else base64 in the `=?base64?…?=` sentinel.
pub(super) fn header_value(value: &str) -> String {
    use base64::Engine as _;
    let plain = value.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && value.trim() == value
        && !(value.starts_with("=?base64?") && value.ends_with("?="));
    if plain {
        value.to_owned()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value)
        )
    }
}

// ---------------------------------------------------------------------------------
// Legacy HTTP+SSE

/// What the SSE reader thread reports.
enum Stream {
    Event(Event),
    Closed(String),
}

struct Legacy {
    http: Http,
    endpoint: String,
    events: Receiver<Stream>,
}

fn legacy(mut http: Http, url: &str, plan: &mut Plan<'_>, report: &mut Report) -> Outcome {
    let started = Instant::now();
    let connected = connect_sse(&mut http, url, plan.deadline);
    let (endpoint, events) = match connected {
        Ok(connected) => connected,
        Err(error) => return http.outcome(Err(error)),
    };
    report.phase(Phase::Connect, started);
    let mut channel = Legacy {
        http,
        endpoint,
        events,
    };
    // HTTP+SSE predates `server/discover`: only the handshake era speaks it.
    plan.discover = false;
    let result = session::run(&mut channel, plan, report);
    // Dropping the receiver ends the reader thread at its next event; the GET's
    // global timeout bounds it otherwise.
    channel.http.outcome(result)
}

/// Open the GET stream and wait for its `endpoint` event.
fn connect_sse(
    http: &mut Http,
    url: &str,
    deadline: Instant,
) -> Result<(String, Receiver<Stream>), ProbeError> {
    let phase = Phase::Connect;
    let mut request = http
        .agent
        .get(url)
        .config()
        .timeout_global(Some(http.remaining(deadline, phase)?))
        .build()
        .header("Accept", "text/event-stream");
    for (name, value) in &http.headers.0 {
        request = request.header(name, &value.0);
    }
    let response = request
        .call()
        .map_err(|error| http.classify(error, url, phase))?;
    if !response.status().is_success() {
        let error = http.status_error(response, phase);
        return Err(match error {
            ProbeError::Http { status, .. } if status != 401 => ProbeError::NotSse {
                url: url.to_owned(),
                reason: format!("GET answered HTTP {status}"),
            },
            other => other,
        });
    }
    if !content_type(&response).starts_with("text/event-stream") {
        return Err(ProbeError::NotSse {
            url: url.to_owned(),
            reason: "GET did not answer with an event stream".to_owned(),
        });
    }
    let (sender, events) = std::sync::mpsc::channel();
    let reader = BufReader::new(response.into_body().into_reader());
    std::thread::spawn(move || {
        let mut events = SseReader::new(reader);
        loop {
            let item = match events.next_event() {
                Ok(Some(event)) => Stream::Event(event),
                Ok(None) => Stream::Closed("the server closed the event stream".to_owned()),
                Err(error) => Stream::Closed(format!("reading the event stream failed: {error}")),
            };
            let closed = matches!(item, Stream::Closed(_));
            if sender.send(item).is_err() || closed {
                return;
            }
        }
    });
    loop {
        let left = http.remaining(deadline, phase)?;
        match events.recv_timeout(left) {
            Ok(Stream::Event(event)) if event.event == "endpoint" => {
                return Ok((resolve_url(url, event.data.trim()), events));
            }
            Ok(Stream::Event(_)) => {}
            Ok(Stream::Closed(_)) | Err(RecvTimeoutError::Disconnected) => {
                return Err(ProbeError::NotSse {
                    url: url.to_owned(),
                    reason: "the event stream ended before its `endpoint` event".to_owned(),
                });
            }
            Err(RecvTimeoutError::Timeout) => return Err(http.timeout(phase)),
        }
    }
}

impl Channel for Legacy {
    fn send(
        &mut self,
        id: u64,
        method: &str,
        params: &Value,
        phase: Phase,
        until: Instant,
        _report: &mut Report,
    ) -> Result<(), ProbeError> {
        self.post(jsonrpc::request(id, method, params), until, phase)
    }

    fn receive(
        &mut self,
        phase: Phase,
        until: Instant,
        _report: &mut Report,
    ) -> Result<Option<Reply>, ProbeError> {
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            let event = match self.events.recv_timeout(left) {
                Ok(Stream::Event(event)) => event,
                Ok(Stream::Closed(reason)) => {
                    return Err(ProbeError::Transport { reason, phase });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(ProbeError::Transport {
                        reason: "the event stream ended".to_owned(),
                        phase,
                    });
                }
                Err(RecvTimeoutError::Timeout) => return Ok(None),
            };
            if event.event != "message" {
                continue;
            }
            match jsonrpc::parse(&event.data) {
                Incoming::Response { id, outcome } => {
                    if let Some(id) = id.as_u64() {
                        return Ok(Some(Reply { id, outcome }));
                    }
                }
                Incoming::Request { id, method } => {
                    self.post(jsonrpc::reply_to_server(&id, &method), until, phase)?;
                }
                Incoming::Invalid(line) => return Err(ProbeError::NonJsonBody { line, phase }),
                Incoming::Notification => {}
            }
        }
    }

    fn notify(
        &mut self,
        method: &str,
        phase: Phase,
        deadline: Instant,
        _report: &mut Report,
    ) -> Result<(), ProbeError> {
        self.post(jsonrpc::notification(method), deadline, phase)
    }
}

impl Legacy {
    /// POST one message to the endpoint; the reply, if any, arrives on the stream.
    fn post(&mut self, body: String, deadline: Instant, phase: Phase) -> Result<(), ProbeError> {
        let endpoint = self.endpoint.clone();
        let response = self.http.post(&endpoint, body, &[], deadline, phase)?;
        if response.status().is_success() {
            Ok(())
        } else {
            Err(self.http.status_error(response, phase))
        }
    }
}

// ---------------------------------------------------------------------------------
// Parsing helpers

/// One server-sent event. `event` defaults to `message`.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Event {
    pub(super) event: String,
    pub(super) data: String,
}

/// A server-sent-events parser (the WHATWG rules a client needs: `event`, multi-line
/// `data`, comments, and no dispatch for an event with empty data, such as the priming
/// event of 2025-11-25 servers).
pub(super) struct SseReader<R> {
    reader: R,
}

impl<R: BufRead> SseReader<R> {
    pub(super) fn new(reader: R) -> Self {
        Self { reader }
    }

    /// The next event with data, `Ok(None)` at the end of the stream.
    pub(super) fn next_event(&mut self) -> std::io::Result<Option<Event>> {
        let mut event = String::new();
        let mut data = String::new();
        let mut has_data = false;
        loop {
            let Some(line) = read_line(&mut self.reader, MAX_MESSAGE)? else {
                return Ok(None);
            };
            let line = String::from_utf8_lossy(&line.kept);
            if line.is_empty() {
                if has_data {
                    if event.is_empty() {
                        event.push_str("message");
                    }
                    return Ok(Some(Event { event, data }));
                }
                event.clear();
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((&line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "event" => value.clone_into(&mut event),
                "data" => {
                    if has_data {
                        data.push('\n');
                    }
                    data.push_str(value);
                    has_data = !data.is_empty() || has_data;
                }
                _ => {} // id, retry: resumption is not needed for a probe
            }
        }
    }
}

/// The words of an HTML page (a web server's error page), tags and extra space dropped.
fn html_text(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => {
                in_tag = true;
                text.push(' ');
            }
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Resolve the `endpoint` event's URI against the SSE URL (absolute, scheme-relative,
/// absolute-path or relative-path references).
pub(super) fn resolve_url(base: &str, reference: &str) -> String {
    if reference.contains("://") {
        return reference.to_owned();
    }
    let (scheme, rest) = base.split_once("://").unwrap_or(("http", base));
    if let Some(authority_and_path) = reference.strip_prefix("//") {
        return format!("{scheme}://{authority_and_path}");
    }
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let origin = format!("{scheme}://{}", &rest[..authority_end]);
    if reference.starts_with('/') {
        return format!("{origin}{reference}");
    }
    let path = &rest[authority_end..];
    let path = &path[..path.find(['?', '#']).unwrap_or(path.len())];
    let directory = &path[..path.rfind('/').map_or(0, |slash| slash + 1)];
    let directory = if directory.is_empty() { "/" } else { directory };
    format!("{origin}{directory}{reference}")
}

/// Where RFC 9728 puts a resource's metadata when the 401 does not say: the path-aware
/// well-known URL first (`/.well-known/oauth-protected-resource/mcp`), then the root one.
fn metadata_candidates(url: &str) -> Vec<String> {
    let Some(scheme_end) = url.find("://") else {
        return Vec::new();
    };
    let after = &url[scheme_end + 3..];
    let host_end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let origin = &url[..scheme_end + 3 + host_end];
    let path = after[host_end..]
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .trim_end_matches('/');
    let root = format!("{origin}/.well-known/oauth-protected-resource");
    if path.is_empty() {
        vec![root]
    } else {
        vec![format!("{root}{path}"), root]
    }
}

/// The first well-known metadata URL that answers 200 with a JSON object.
fn discover_metadata(agent: &ureq::Agent, url: &str, deadline: Instant) -> Option<String> {
    metadata_candidates(url).into_iter().find(|candidate| {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        let Ok(response) = agent
            .get(candidate)
            .config()
            .timeout_global(Some(left))
            .build()
            .header("Accept", "application/json")
            .call()
        else {
            return false;
        };
        if response.status().as_u16() != 200 {
            return false;
        }
        let mut body = String::new();
        let _ = response
            .into_body()
            .into_reader()
            .take(64 * 1024)
            .read_to_string(&mut body);
        serde_json::from_str::<Value>(&body).is_ok_and(|v| v.is_object())
    })
}

/// The `resource_metadata` parameter of a `WWW-Authenticate` header (RFC 9728).
fn resource_metadata(header: &str) -> Option<String> {
    crate::oauth::discover::auth_param(header, "resource_metadata")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(text: &str) -> Vec<Event> {
        let mut reader = SseReader::new(text.as_bytes());
        std::iter::from_fn(|| reader.next_event().unwrap()).collect()
    }

    #[test]
    fn sse_skips_priming_events_and_comments() {
        let stream = "id: 7b1c\ndata:\n\n: keep-alive\n\
                      event: message\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";
        assert_eq!(
            events(stream),
            [Event {
                event: "message".into(),
                data: r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.into()
            }]
        );
    }

    #[test]
    fn sse_reads_endpoint_multiline_data_and_crlf() {
        let stream = "event: endpoint\r\ndata: /message?sessionId=abc\r\n\r\n\
                      data: line one\ndata:line two\n\nretry: 100\n\ndata: cut off";
        assert_eq!(
            events(stream),
            [
                Event {
                    event: "endpoint".into(),
                    data: "/message?sessionId=abc".into()
                },
                Event {
                    event: "message".into(),
                    data: "line one\nline two".into()
                },
            ]
        );
    }

    #[test]
    fn endpoint_urls_resolve_against_the_stream_url() {
        let base = "http://127.0.0.1:3001/mcp/sse?x=1";
        assert_eq!(
            resolve_url(base, "/message?sessionId=a"),
            "http://127.0.0.1:3001/message?sessionId=a"
        );
        assert_eq!(
            resolve_url(base, "message?sessionId=a"),
            "http://127.0.0.1:3001/mcp/message?sessionId=a"
        );
        assert_eq!(
            resolve_url("https://h.example", "messages"),
            "https://h.example/messages"
        );
        assert_eq!(resolve_url(base, "//other:1/m"), "http://other:1/m");
        assert_eq!(
            resolve_url(base, "https://x.example/m"),
            "https://x.example/m"
        );
    }

    #[test]
    fn well_known_metadata_candidates_are_path_aware() {
        assert_eq!(
            metadata_candidates("https://api.example.com/v1/mcp?x=1"),
            [
                "https://api.example.com/.well-known/oauth-protected-resource/v1/mcp",
                "https://api.example.com/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            metadata_candidates("http://127.0.0.1:9/"),
            ["http://127.0.0.1:9/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn www_authenticate_yields_resource_metadata() {
        assert_eq!(
            resource_metadata(
                r#"Bearer error="invalid_token", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read""#
            )
            .as_deref(),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource")
        );
        assert_eq!(
            resource_metadata("Bearer Resource_Metadata=https://a.example/m, scope=x").as_deref(),
            Some("https://a.example/m")
        );
        assert_eq!(
            resource_metadata(r#"Bearer realm="x", not_resource_metadata="y""#),
            None
        );
        assert_eq!(resource_metadata(r#"Bearer realm="mcp""#), None);
    }
}
