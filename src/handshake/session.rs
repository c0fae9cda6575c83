//! The transport-independent session: find out which protocol era the server speaks
//! (`server/discover` first, `initialize` as the fallback, as the 2026-07-28 stdio and HTTP
//! transport pages prescribe), then `tools/list` across pages, then at most one
//! `tools/call`.
//!
//! Era detection (`mcp-notes.md` §1.2, `design.md` §13): a `DiscoverResult` naming a
//! modern version we speak means the modern era; any other answer, or none within
//! [`PROBE_WINDOW`] (sooner for a server seen to have read the probe and gone quiet, see
//! [`Channel::quiet`]), means the handshake era. The probe's id stays outstanding while
//! `initialize` is sent on the same connection, so a slow server's late `DiscoverResult`
//! (or a -32022 answer to `initialize` naming modern versions) still proves the modern
//! era. A stdio server that quits on the probe, or right after a late `DiscoverResult`
//! when the `initialize` that followed it upset it, is started once more.
//!
//! Talks only through [`Channel`]; never spawns, connects or sleeps itself.

use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::jsonrpc::RpcError;
use super::tools::{self, ToolCall};
use super::{
    Budget, Era, KNOWN_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION, PROTOCOL_VERSION, Phase,
    ProbeError, ProbeWarning, Report,
};

/// Most `tools/list` pages read before giving up on a server that never stops paging.
pub(crate) const MAX_PAGES: usize = 100;

/// Most rounds of `input_required` answers a `tools/call` gets (the SDKs' default).
const MAX_INPUT_ROUNDS: usize = 10;

/// How long a stdio server gets to answer `server/discover` before `initialize` follows
/// it. Short, because the probe stays outstanding: a server that answers late is still
/// recognised, and a handshake-era server that ignores unknown methods costs at most this.
pub(crate) const PROBE_WINDOW: Duration = Duration::from_millis(300);

/// How often, inside the probe window, to look whether the server has gone quiet (see
/// [`Channel::quiet`]); quiet at two looks in a row ends the window.
const QUIET_LOOK: Duration = Duration::from_millis(10);

/// How long an HTTP server gets to answer the `server/discover` POST. A POST cannot stay
/// outstanding, and remote servers have network latency, so this one is longer.
pub(crate) const HTTP_PROBE_WINDOW: Duration = Duration::from_secs(5);

/// JSON-RPC error codes that only a modern-era server sends.
const HEADER_MISMATCH: i64 = -32020;
const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// One response read from a server.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) id: u64,
    pub(crate) outcome: Result<Value, RpcError>,
}

/// A connection to a server that can carry JSON-RPC messages.
pub(crate) trait Channel {
    /// Send request `id`. `until` bounds a transport that waits for its reply while
    /// sending (an HTTP POST); such a transport keeps the reply for [`Channel::receive`].
    fn send(
        &mut self,
        id: u64,
        method: &str,
        params: &Value,
        phase: Phase,
        until: Instant,
        report: &mut Report,
    ) -> Result<(), ProbeError>;

    /// The next response to any request, waiting until `until`; `Ok(None)` when none
    /// arrived by then.
    fn receive(
        &mut self,
        phase: Phase,
        until: Instant,
        report: &mut Report,
    ) -> Result<Option<Reply>, ProbeError>;

    /// Send a notification.
    fn notify(
        &mut self,
        method: &str,
        phase: Phase,
        deadline: Instant,
        report: &mut Report,
    ) -> Result<(), ProbeError>;

    /// Called once the era and protocol version are agreed (HTTP sends the version as a
    /// header from then on, and drops sessions in the modern era).
    fn negotiated(&mut self, _version: &str, _era: Era) {}

    /// How long `server/discover` may take before the handshake era is assumed.
    fn probe_window(&self) -> Duration {
        PROBE_WINDOW
    }

    /// Whether the server has taken every message sent to it and is not answering: it
    /// read them, none of its processes is at work, and nothing it wrote is on its way.
    /// `false` where that cannot be told (HTTP; no `/proc`).
    fn quiet(&mut self) -> bool {
        false
    }

    /// Start the server again after it quit. `Ok(false)`: this transport cannot.
    fn restart(&mut self, _report: &mut Report) -> Result<bool, ProbeError> {
        Ok(false)
    }
}

/// What the session is asked to do.
pub(crate) struct Plan<'a> {
    pub(crate) deadline: Instant,
    /// The whole probe's timeout, for messages.
    pub(crate) budget: Budget,
    /// Probe `server/discover` first (not for legacy HTTP+SSE, which predates it).
    pub(crate) discover: bool,
    /// Call this tool after listing.
    pub(crate) call: Option<&'a ToolCall>,
    /// The client capabilities to declare; `None`: mcpctl's.
    pub(crate) capabilities: Option<Value>,
}

impl Plan<'_> {
    fn capabilities(&self) -> Value {
        self.capabilities
            .clone()
            .unwrap_or_else(super::jsonrpc::client_capabilities)
    }
}

/// How the era question was settled.
enum Negotiated {
    /// A `DiscoverResult` naming [`MODERN_PROTOCOL_VERSION`].
    Modern(Value),
    /// An `InitializeResult`.
    Handshake(Value),
}

/// What one `server/discover` answer says.
enum Verdict {
    Modern(Value),
    Handshake,
    Fail(ProbeError),
}

/// Run the session over `channel`, recording what the server says into `report`.
pub(crate) fn run(
    channel: &mut impl Channel,
    plan: &Plan<'_>,
    report: &mut Report,
) -> Result<(), ProbeError> {
    let mut session = Session {
        channel,
        plan,
        next_id: 1,
        modern: false,
        sent_initialize: false,
        restarted: false,
    };
    let negotiated = if plan.discover {
        session.negotiate(report)?
    } else {
        session.initialize(None, report)?
    };
    match negotiated {
        Negotiated::Modern(discovered) => session.modern(&discovered, report),
        Negotiated::Handshake(initialized) => session.handshake(&initialized, report),
    }
}

struct Session<'c, 'p, C> {
    channel: &'c mut C,
    plan: &'p Plan<'p>,
    next_id: u64,
    /// Requests carry the modern `_meta` envelope.
    modern: bool,
    /// `initialize` went to this process (a modern-only server may quit on it).
    sent_initialize: bool,
    /// The one restart has been used.
    restarted: bool,
}

impl<C: Channel> Session<'_, '_, C> {
    fn id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn timeout(&self, phase: Phase) -> ProbeError {
        self.plan.budget.expired(phase)
    }

    /// Start the server again, once; `Ok(false)` when that is not possible.
    fn restart(&mut self, report: &mut Report) -> Result<bool, ProbeError> {
        if self.restarted {
            return Ok(false);
        }
        self.restarted = true;
        self.sent_initialize = false;
        self.channel.restart(report)
    }

    /// Send `server/discover` and settle the era.
    fn negotiate(&mut self, report: &mut Report) -> Result<Negotiated, ProbeError> {
        let started = Instant::now();
        let window = (started + self.channel.probe_window()).min(self.plan.deadline);
        let id = self.id();
        let sent = self.channel.send(
            id,
            "server/discover",
            &modern_params(Map::new(), self.plan.capabilities()),
            Phase::Discover,
            window,
            report,
        );
        // Nothing follows the probe inside the window: the only request a handshake-era
        // server takes before `initialize` is `ping`, which 2026-07-28 removed (a strict
        // modern server quits on it), so no method is safe in both eras. A server that
        // ignores unknown methods would cost the whole window; one seen to have read the
        // probe and gone quiet ends it (as if it had run out: the probe stays outstanding).
        let answer = match sent {
            Ok(()) => self.probe_answer(id, window, report),
            Err(error) => Err(error),
        };
        report.phase(Phase::Discover, started);
        match answer {
            Ok(Some(outcome)) => match judge(outcome) {
                Verdict::Modern(result) => Ok(Negotiated::Modern(result)),
                Verdict::Handshake => self.initialize(None, report),
                Verdict::Fail(error) => Err(error),
            },
            // No answer in the window: the handshake era, unless a late answer says not.
            Ok(None) => self.initialize(Some(id), report),
            // An HTTP POST that outlived the window.
            Err(ProbeError::Timeout { .. }) if Instant::now() < self.plan.deadline => {
                self.initialize(None, report)
            }
            Err(error) if gone(&error) => {
                if self.restart(report)? {
                    self.initialize(None, report)
                } else {
                    Err(error)
                }
            }
            Err(error) => Err(error),
        }
    }

    /// The reply to probe `id`, waiting until `window` ends, or `Ok(None)` as soon as the
    /// server has been [quiet](Channel::quiet) at two looks in a row without answering.
    fn probe_answer(
        &mut self,
        id: u64,
        window: Instant,
        report: &mut Report,
    ) -> Result<Option<Result<Value, RpcError>>, ProbeError> {
        let mut quiet_looks = 0;
        loop {
            let look = (Instant::now() + QUIET_LOOK).min(window);
            match self.channel.receive(Phase::Discover, look, report)? {
                Some(reply) if reply.id == id => return Ok(Some(reply.outcome)),
                Some(_) => {}
                None if Instant::now() >= window => return Ok(None),
                None if self.channel.quiet() => {
                    quiet_looks += 1;
                    if quiet_looks >= 2 {
                        return Ok(None);
                    }
                }
                None => quiet_looks = 0,
            }
        }
    }

    /// The reply to `id`, waiting until `until` (other replies are dropped).
    fn receive_until(
        &mut self,
        id: u64,
        phase: Phase,
        until: Instant,
        report: &mut Report,
    ) -> Result<Option<Result<Value, RpcError>>, ProbeError> {
        loop {
            match self.channel.receive(phase, until, report)? {
                Some(reply) if reply.id == id => return Ok(Some(reply.outcome)),
                Some(_) => {}
                None => return Ok(None),
            }
        }
    }

    /// Send `initialize`. `pending`: the id of a `server/discover` still unanswered, whose
    /// late `DiscoverResult` would prove the modern era after all.
    fn initialize(
        &mut self,
        mut pending: Option<u64>,
        report: &mut Report,
    ) -> Result<Negotiated, ProbeError> {
        let started = Instant::now();
        let id = self.id();
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": self.plan.capabilities(),
            "clientInfo": client_info(),
        });
        self.sent_initialize = true;
        self.channel.send(
            id,
            "initialize",
            &params,
            Phase::Initialize,
            self.plan.deadline,
            report,
        )?;
        loop {
            let Some(reply) =
                self.channel
                    .receive(Phase::Initialize, self.plan.deadline, report)?
            else {
                return Err(self.timeout(Phase::Initialize));
            };
            if Some(reply.id) == pending {
                pending = None;
                if let Verdict::Modern(result) = judge(reply.outcome) {
                    // The probe took until now, not just its window.
                    if let Some(probe) = report
                        .phases
                        .iter_mut()
                        .rev()
                        .find(|p| p.phase == Phase::Discover)
                    {
                        probe.elapsed_ms += super::millis(started.elapsed());
                    }
                    return Ok(Negotiated::Modern(result));
                }
                continue;
            }
            if reply.id != id {
                continue;
            }
            report.phase(Phase::Initialize, started);
            return match reply.outcome {
                Ok(result) => Ok(Negotiated::Handshake(result)),
                Err(error) if error.code == UNSUPPORTED_PROTOCOL_VERSION => {
                    let supported =
                        version_list(error.data.as_ref().and_then(|d| d.get("supported")));
                    if supported.iter().any(|v| v == MODERN_PROTOCOL_VERSION) {
                        // The probe reached the server after all and settled its era.
                        self.rediscover(report)
                    } else if !supported.is_empty()
                        && supported
                            .iter()
                            .all(|v| !KNOWN_PROTOCOL_VERSIONS.contains(&v.as_str()))
                    {
                        Err(ProbeError::UnsupportedVersion {
                            version: supported.join(", "),
                        })
                    } else {
                        Err(rpc_failure(error, Phase::Initialize))
                    }
                }
                Err(error) => Err(rpc_failure(error, Phase::Initialize)),
            };
        }
    }

    /// `server/discover` again, for a server whose answer to `initialize` proved the
    /// modern era; it must answer now.
    fn rediscover(&mut self, report: &mut Report) -> Result<Negotiated, ProbeError> {
        let result = match self.request("server/discover", Map::new(), Phase::Discover, report) {
            Err(error) if gone(&error) && self.restart(report)? => {
                self.request("server/discover", Map::new(), Phase::Discover, report)?
            }
            other => other?,
        };
        match judge(Ok(result)) {
            Verdict::Modern(result) => Ok(Negotiated::Modern(result)),
            Verdict::Fail(error) => Err(error),
            Verdict::Handshake => Err(ProbeError::BadResult {
                reason: format!(
                    "the server refused `initialize` for the modern era but its \
                     `server/discover` does not name {MODERN_PROTOCOL_VERSION}"
                ),
                phase: Phase::Discover,
            }),
        }
    }

    /// Send a request and wait for its reply until the deadline. In the modern era the
    /// `_meta` envelope goes into `params`.
    fn request(
        &mut self,
        method: &str,
        params: Map<String, Value>,
        phase: Phase,
        report: &mut Report,
    ) -> Result<Value, ProbeError> {
        let params = if self.modern || method == "server/discover" {
            modern_params(params, self.plan.capabilities())
        } else {
            Value::Object(params)
        };
        let id = self.id();
        let deadline = self.plan.deadline;
        self.channel
            .send(id, method, &params, phase, deadline, report)?;
        match self.receive_until(id, phase, deadline, report)? {
            Some(outcome) => outcome.map_err(|error| rpc_failure(error, phase)),
            None => Err(self.timeout(phase)),
        }
    }

    /// The modern era: no handshake; every request carries `_meta`.
    fn modern(&mut self, discovered: &Value, report: &mut Report) -> Result<(), ProbeError> {
        report.protocol_era = Some(Era::Modern);
        report.protocol_version = Some(MODERN_PROTOCOL_VERSION.to_owned());
        report.supported_versions = version_list(discovered.get("supportedVersions"));
        let info = discovered
            .get("_meta")
            .and_then(|meta| meta.get("io.modelcontextprotocol/serverInfo"));
        record_server(report, discovered, info);
        self.modern = true;
        self.channel
            .negotiated(MODERN_PROTOCOL_VERSION, Era::Modern);
        if !has_tools(discovered) {
            return Ok(());
        }
        match self.use_tools(report) {
            // The `initialize` sent after a late probe answer may have ended a
            // modern-only server; one more start settles it.
            Err(error) if gone(&error) && self.sent_initialize && self.restart(report)? => {
                self.use_tools(report)
            }
            other => other,
        }
    }

    /// The handshake era: check the version, `notifications/initialized`, then the tools.
    fn handshake(&mut self, initialized: &Value, report: &mut Report) -> Result<(), ProbeError> {
        report.protocol_era = Some(Era::Handshake);
        record_server(report, initialized, initialized.get("serverInfo"));
        let Some(version) = initialized.get("protocolVersion").and_then(Value::as_str) else {
            return Err(ProbeError::BadResult {
                reason: "no `protocolVersion` string".to_owned(),
                phase: Phase::Initialize,
            });
        };
        report.protocol_version = Some(version.to_owned());
        if !KNOWN_PROTOCOL_VERSIONS.contains(&version) {
            return Err(ProbeError::UnsupportedVersion {
                version: version.to_owned(),
            });
        }
        // An older version the spec still has is information (`protocol_version` in the
        // report), not a warning: clients accept it.
        self.channel.negotiated(version, Era::Handshake);

        let started = Instant::now();
        self.channel.notify(
            "notifications/initialized",
            Phase::Initialized,
            self.plan.deadline,
            report,
        )?;
        report.phase(Phase::Initialized, started);
        if !has_tools(initialized) {
            return Ok(());
        }
        self.use_tools(report)
    }

    /// `tools/list` across pages, then the requested `tools/call`, if any.
    fn use_tools(&mut self, report: &mut Report) -> Result<(), ProbeError> {
        let started = Instant::now();
        self.list_tools(report)?;
        report.phase(Phase::ToolsList, started);
        let Some(call) = self.plan.call else {
            return Ok(());
        };
        let started = Instant::now();
        let arguments = tools::arguments(call, &report.tool_definitions)?;
        let params = json!({"name": call.tool, "arguments": arguments});
        let Value::Object(params) = params else {
            return Ok(());
        };
        let result = self.call_tool(params, report)?;
        report.phase(Phase::ToolsCall, started);
        report.call_result = Some(result);
        Ok(())
    }

    /// `tools/call`, answering what the server asks for before it answers (modern era:
    /// an `input_required` result; the call is sent again with `inputResponses` and the
    /// `requestState`), for at most [`MAX_INPUT_ROUNDS`] rounds.
    fn call_tool(
        &mut self,
        mut params: Map<String, Value>,
        report: &mut Report,
    ) -> Result<Value, ProbeError> {
        for _ in 0..MAX_INPUT_ROUNDS {
            let result = self.request("tools/call", params.clone(), Phase::ToolsCall, report)?;
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(result);
            }
            params.insert(
                "inputResponses".to_owned(),
                input_responses(result.get("inputRequests"))?,
            );
            match result.get("requestState") {
                Some(state) => params.insert("requestState".to_owned(), state.clone()),
                None => params.remove("requestState"),
            };
        }
        Err(ProbeError::BadResult {
            reason: format!("the server still asked for input after {MAX_INPUT_ROUNDS} rounds"),
            phase: Phase::ToolsCall,
        })
    }

    fn list_tools(&mut self, report: &mut Report) -> Result<(), ProbeError> {
        let mut definitions = Vec::new();
        let mut seen_cursors: Vec<String> = Vec::new();
        let mut params = Map::new();
        for page in 1..=MAX_PAGES {
            let result = self.request("tools/list", params, Phase::ToolsList, report)?;
            let Some(tools) = result.get("tools").and_then(Value::as_array) else {
                return Err(ProbeError::BadResult {
                    reason: "no `tools` array".to_owned(),
                    phase: Phase::ToolsList,
                });
            };
            definitions.extend(tools.iter().cloned());
            let Some(cursor) = result.get("nextCursor").and_then(Value::as_str) else {
                report.set_tools(definitions);
                return Ok(());
            };
            if seen_cursors.iter().any(|seen| seen == cursor) {
                report.warn(ProbeWarning::RepeatedCursor {
                    cursor: super::jsonrpc::quote(cursor),
                    pages: page,
                });
                report.set_tools(definitions);
                return Ok(());
            }
            seen_cursors.push(cursor.to_owned());
            params = Map::new();
            params.insert("cursor".to_owned(), Value::from(cursor));
        }
        report.warn(ProbeWarning::TooManyPages { pages: MAX_PAGES });
        report.set_tools(definitions);
        Ok(())
    }
}

/// The answers to an `input_required` result's `inputRequests`, keyed as asked: the
/// same answers a handshake-era server gets to its requests (`roots/list`: none;
/// `elicitation/create`: declined). A request mcpctl cannot answer (sampling needs a
/// model) fails the call, naming it.
fn input_responses(requests: Option<&Value>) -> Result<Value, ProbeError> {
    let mut answers = Map::new();
    for (key, request) in requests.and_then(Value::as_object).into_iter().flatten() {
        let method = request.get("method").and_then(Value::as_str).unwrap_or("");
        let Some(answer) = super::jsonrpc::answer_to_server(method) else {
            return Err(ProbeError::BadResult {
                reason: format!(
                    "the tool asked the client for `{}`, which mcpctl cannot answer (try it from a client)",
                    super::jsonrpc::quote(method)
                ),
                phase: Phase::ToolsCall,
            });
        };
        answers.insert(key.clone(), answer);
    }
    Ok(Value::Object(answers))
}

fn client_info() -> Value {
    json!({"name": "mcpctl", "version": env!("CARGO_PKG_VERSION")})
}

/// `params` with the modern era's `_meta` envelope added.
fn modern_params(mut params: Map<String, Value>, capabilities: Value) -> Value {
    params.insert(
        "_meta".to_owned(),
        json!({
            "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL_VERSION,
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": client_info(),
        }),
    );
    Value::Object(params)
}

/// What one answer to `server/discover` says about the era.
fn judge(outcome: Result<Value, RpcError>) -> Verdict {
    match outcome {
        Ok(result) => {
            let versions = version_list(result.get("supportedVersions"));
            if versions.iter().any(|v| v == MODERN_PROTOCOL_VERSION) {
                Verdict::Modern(result)
            } else if only_unknown(&versions) {
                Verdict::Fail(ProbeError::UnsupportedVersion {
                    version: versions.join(", "),
                })
            } else {
                // Naming only handshake-era versions (or none) is a legacy advertisement.
                Verdict::Handshake
            }
        }
        Err(error) if error.code == UNSUPPORTED_PROTOCOL_VERSION => {
            let versions = version_list(error.data.as_ref().and_then(|d| d.get("supported")));
            if only_unknown(&versions) {
                Verdict::Fail(ProbeError::UnsupportedVersion {
                    version: versions.join(", "),
                })
            } else {
                Verdict::Handshake
            }
        }
        Err(error)
            if matches!(
                error.code,
                HEADER_MISMATCH | MISSING_REQUIRED_CLIENT_CAPABILITY
            ) =>
        {
            Verdict::Fail(rpc_failure(error, Phase::Discover))
        }
        // Any other error: the handshake era (never keyed to one error code).
        Err(_) => Verdict::Handshake,
    }
}

/// Versions listed, none of which mcpctl speaks.
fn only_unknown(versions: &[String]) -> bool {
    !versions.is_empty()
        && versions
            .iter()
            .all(|v| v != MODERN_PROTOCOL_VERSION && !KNOWN_PROTOCOL_VERSIONS.contains(&v.as_str()))
}

/// The strings of a version list (`supportedVersions`, or `data.supported` of -32022).
fn version_list(list: Option<&Value>) -> Vec<String> {
    list.and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(super::jsonrpc::quote)
                .collect()
        })
        .unwrap_or_default()
}

fn rpc_failure(error: RpcError, phase: Phase) -> ProbeError {
    ProbeError::JsonRpc {
        code: error.code,
        message: error.message,
        phase,
    }
}

/// The server is gone: a stdio server exited or closed its output.
fn gone(error: &ProbeError) -> bool {
    matches!(
        error,
        ProbeError::ExitedEarly { .. } | ProbeError::ClosedEarly { .. }
    )
}

fn has_tools(result: &Value) -> bool {
    result
        .get("capabilities")
        .and_then(|capabilities| capabilities.get("tools"))
        .is_some_and(|tools| !tools.is_null())
}

/// What the server says about itself, in either era (`info`: `serverInfo`, or the
/// `DiscoverResult`'s `_meta` entry). Its text never reaches a terminal with control
/// characters.
fn record_server(report: &mut Report, result: &Value, info: Option<&Value>) {
    let text = |key: &str| {
        info.and_then(|info| info.get(key))
            .and_then(Value::as_str)
            .filter(|text| !text.is_empty())
            .map(super::clean_text)
    };
    report.server_name = text("name");
    report.server_version = text("version");
    report.capabilities = result.get("capabilities").cloned();
    report.instructions_chars = result
        .get("instructions")
        .and_then(Value::as_str)
        .map(|text| text.chars().count());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(code: i64, data: Option<Value>) -> Result<Value, RpcError> {
        Err(RpcError {
            code,
            message: "m".into(),
            data,
        })
    }

    #[test]
    fn discover_answers_decide_the_era() {
        let modern = json!({"supportedVersions": ["2026-07-28"], "capabilities": {}});
        assert!(matches!(judge(Ok(modern)), Verdict::Modern(_)));
        // A discover-answering server naming only handshake versions is a legacy one.
        let legacy = json!({"supportedVersions": ["2025-11-25"], "capabilities": {}});
        assert!(matches!(judge(Ok(legacy)), Verdict::Handshake));
        assert!(matches!(judge(Ok(json!({}))), Verdict::Handshake));
        assert!(matches!(
            judge(Ok(json!({"supportedVersions": ["2099-01-01"]}))),
            Verdict::Fail(ProbeError::UnsupportedVersion { .. })
        ));
        // Method not found, invalid params, "server not initialized": all the handshake era.
        for code in [-32601, -32602, -32000, 0] {
            assert!(
                matches!(judge(error(code, None)), Verdict::Handshake),
                "{code}"
            );
        }
        // -32022 naming handshake versions: an SDK server pinned to the handshake era.
        let pinned = json!({"supported": ["2025-06-18", "2025-11-25"], "requested": "2026-07-28"});
        assert!(matches!(
            judge(error(-32022, Some(pinned))),
            Verdict::Handshake
        ));
        let future = json!({"supported": ["2099-01-01"]});
        assert!(matches!(
            judge(error(-32022, Some(future))),
            Verdict::Fail(ProbeError::UnsupportedVersion { .. })
        ));
        assert!(matches!(
            judge(error(-32021, None)),
            Verdict::Fail(ProbeError::JsonRpc { code: -32021, .. })
        ));
    }

    /// A scripted server: each request sent gets the replies `answer` gives for it.
    struct Scripted<F> {
        answer: F,
        replies: std::collections::VecDeque<Reply>,
        sent: Vec<String>,
    }

    impl<F: FnMut(u64, &str) -> Vec<Reply>> Channel for Scripted<F> {
        fn send(
            &mut self,
            id: u64,
            method: &str,
            _params: &Value,
            _phase: Phase,
            _until: Instant,
            _report: &mut Report,
        ) -> Result<(), ProbeError> {
            self.sent.push(method.to_owned());
            let replies = (self.answer)(id, method);
            self.replies.extend(replies);
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
            _phase: Phase,
            _deadline: Instant,
            _report: &mut Report,
        ) -> Result<(), ProbeError> {
            self.sent.push(method.to_owned());
            Ok(())
        }
    }

    fn plan() -> Plan<'static> {
        Plan {
            deadline: Instant::now() + Duration::from_secs(5),
            budget: Budget {
                after: Duration::from_secs(5),
                set_by: super::super::TimeoutSource::Option,
            },
            discover: true,
            call: None,
            capabilities: None,
        }
    }

    #[test]
    fn unsupported_version_on_initialize_sends_the_probe_again() {
        // The probe's answer was lost (an HTTP POST past its window), but the server
        // settled on the modern era and refuses `initialize` naming it.
        let mut discovers = 0;
        let mut channel = Scripted {
            answer: |id, method: &str| match method {
                "server/discover" => {
                    discovers += 1;
                    if discovers == 1 {
                        Vec::new()
                    } else {
                        vec![Reply {
                            id,
                            outcome: Ok(json!({"supportedVersions": ["2026-07-28"],
                                "capabilities": {"tools": {}}})),
                        }]
                    }
                }
                "initialize" => vec![Reply {
                    id,
                    outcome: error(-32022, Some(json!({"supported": ["2026-07-28"]}))),
                }],
                _ => vec![Reply {
                    id,
                    outcome: Ok(json!({"tools": [{"name": "t"}]})),
                }],
            },
            replies: std::collections::VecDeque::new(),
            sent: Vec::new(),
        };
        let mut report = Report::default();
        run(&mut channel, &plan(), &mut report).unwrap();
        assert_eq!(report.protocol_era, Some(Era::Modern));
        assert_eq!(report.tool_definitions.len(), 1);
        assert_eq!(
            channel.sent,
            [
                "server/discover",
                "initialize",
                "server/discover",
                "tools/list"
            ]
        );
    }

    #[test]
    fn a_late_probe_answer_during_initialize_wins() {
        let mut channel = Scripted {
            answer: |id, method: &str| match method {
                "server/discover" => Vec::new(),
                // The probe's answer arrives first, then the initialize reply.
                "initialize" => vec![
                    Reply {
                        id: id - 1,
                        outcome: Ok(json!({"supportedVersions": ["2026-07-28"],
                            "capabilities": {}})),
                    },
                    Reply {
                        id,
                        outcome: Ok(json!({"protocolVersion": "2025-11-25"})),
                    },
                ],
                _ => Vec::new(),
            },
            replies: std::collections::VecDeque::new(),
            sent: Vec::new(),
        };
        let mut report = Report::default();
        run(&mut channel, &plan(), &mut report).unwrap();
        assert_eq!(report.protocol_era, Some(Era::Modern));
        assert_eq!(channel.sent, ["server/discover", "initialize"]);
    }

    #[test]
    fn modern_params_carry_the_envelope() {
        let mut params = Map::new();
        params.insert("cursor".into(), "c".into());
        let params = modern_params(params, super::super::jsonrpc::client_capabilities());
        assert_eq!(params["cursor"], "c");
        let meta = &params["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        // The capabilities a handshake-era `initialize` declares, not `{}`.
        let capabilities = &meta["io.modelcontextprotocol/clientCapabilities"];
        assert!(capabilities["roots"].is_object(), "{capabilities}");
        assert!(capabilities["elicitation"].is_object(), "{capabilities}");
        assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["name"], "mcpctl");
    }
}
