//! The MCP test handshake behind `mcpctl doctor`: proves a configured server works by
//! speaking the protocol to it — `initialize`, `notifications/initialized`, then
//! `tools/list` (following `nextCursor`) — over stdio or HTTP, within one deadline.
//!
//! Public API: [`prepare`] makes an entry runnable here (a [`Launch`] plan plus static
//! [`Finding`]s); [`probe_launch`] runs the handshake on a plan, [`probe_many`] on many in
//! parallel (identical plans probed once), and [`probe`] prepares and probes in one go;
//! each returns a [`Probe`] report: [`Status`] ok/warn/fail, what the
//! server said about itself, per-phase timings, at most one classified [`ProbeError`],
//! [`ProbeWarning`]s, and the tail of its stderr.
//!
//! This module never reads the process environment (the caller passes a snapshot in
//! [`ProbeOptions::parent_env`]), never prints, never leaves a spawned process running,
//! and never puts a header value into a message or `Debug` output.

pub mod bridge;
mod http;
mod jsonrpc;
pub(crate) mod lines;
pub mod prepare;
pub(crate) mod process;
mod session;
mod stdio;
pub mod tools;

use std::fmt;
use std::time::{Duration, Instant};

use indexmap::IndexMap;
use serde::Serialize;
use serde::ser::SerializeMap;

use crate::entry::Transport;
use crate::platform::Os;

pub use lines::clean_text;

/// A line of npm's own chatter about npm (`npm notice …`), not about the server.
fn is_npm_notice(line: &str) -> bool {
    line.trim_start().starts_with("npm notice")
}

/// Whether a stderr line says what is wrong (an error, something missing or refused).
#[must_use]
pub fn says_what_is_wrong(line: &str) -> bool {
    const WORDS: [&str; 14] = [
        "error",
        "fail",
        "fatal",
        "missing",
        "required",
        "not found",
        "no such",
        "denied",
        "invalid",
        "cannot",
        "can't",
        "unable",
        "not provided",
        "was provided",
    ];
    let lower = line.to_lowercase();
    WORDS.iter().any(|word| lower.contains(word))
}

/// At most `max` lines of a stderr record for a person: the first line, then the lines
/// that say what is wrong, then the last lines, in their original order.
#[must_use]
pub fn stderr_excerpt(lines: &[String], max: usize) -> Vec<String> {
    // npm's update notices ("npm notice New minor version…") say nothing about the server
    // and would push its own lines out of the excerpt.
    let owned: Vec<String> = lines
        .iter()
        .filter(|l| !is_npm_notice(l))
        .cloned()
        .collect();
    let lines = owned.as_slice();
    if lines.len() <= max {
        return lines.to_vec();
    }
    let mut keep = vec![false; lines.len()];
    keep[0] = true;
    let mut left = max.saturating_sub(1);
    for (index, line) in lines.iter().enumerate().skip(1) {
        if left > max / 2 && says_what_is_wrong(line) {
            keep[index] = true;
            left -= 1;
        }
    }
    for flag in keep.iter_mut().rev() {
        if left == 0 {
            break;
        }
        if !*flag {
            *flag = true;
            left -= 1;
        }
    }
    lines
        .iter()
        .zip(keep)
        .filter(|(_, kept)| *kept)
        .map(|(line, _)| line.clone())
        .collect()
}
pub use prepare::{Fix, Host, Launch, Level, prepare};
pub use tools::ToolCall;

/// The modern-era protocol version mcpctl speaks (no `initialize`; `server/discover`).
pub const MODERN_PROTOCOL_VERSION: &str = "2026-07-28";

/// Which generation of the protocol a server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    /// 2026-07-28 and later: `server/discover`, `_meta` on every request, no sessions.
    Modern,
    /// Up to 2025-11-25: `initialize`, `notifications/initialized`, sessions.
    Handshake,
}

impl fmt::Display for Era {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Era::Modern => "modern",
            Era::Handshake => "handshake",
        })
    }
}

/// The protocol version mcpctl asks for in `initialize`.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// Every version with an `initialize` handshake that mcpctl accepts, newest first.
pub const KNOWN_PROTOCOL_VERSIONS: [&str; 5] = [
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
    "2024-10-07",
];

/// How protocol versions `a` and `b` (dates, `YYYY-MM-DD`) are ordered: as dates, never
/// by whichever constant is mcpctl's; `None` when either is not a date.
#[must_use]
pub fn version_order(a: &str, b: &str) -> Option<std::cmp::Ordering> {
    fn date(version: &str) -> Option<(u32, u32, u32)> {
        let mut parts = version.split('-').map(|p| {
            (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
                .then(|| p.parse::<u32>().ok())
                .flatten()
        });
        let date = (parts.next()??, parts.next()??, parts.next()??);
        parts.next().is_none().then_some(date)
    }
    Some(date(a)?.cmp(&date(b)?))
}

/// How to probe.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    /// Deadline for the whole probe, from spawn or first connect to the last `tools/list`
    /// page. Ending the server afterwards adds at most about two seconds.
    pub timeout: Duration,
    /// What set `timeout`, for the message when it runs out.
    pub timeout_set_by: TimeoutSource,
    /// The environment mcpctl runs in. A stdio server gets this with the entry's `env`
    /// laid over it (and nothing else); remote headers expand `${VAR}` from it.
    pub parent_env: IndexMap<String, String>,
    /// The client capabilities to declare (a client's own, for `doctor --as`); `None`:
    /// mcpctl's.
    pub capabilities: Option<serde_json::Value>,
    /// How the conversation opens.
    pub opening: Opening,
}

/// How a probe opens the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Opening {
    /// `server/discover` first, `initialize` as the fallback: mcpctl's own way.
    #[default]
    Discover,
    /// As [`Opening::Discover`]; and when `server/discover` names no version that has
    /// `initialize`, a fresh start opened with `initialize` as well, as a client that
    /// speaks only that era opens ([`Probe::initialize`]): such a server may answer it
    /// all the same (the Python SDK 2.x does).
    DiscoverThenInitialize,
    /// `initialize` only, as a client of the handshake era.
    Initialize,
}

impl ProbeOptions {
    /// The time limit and what set it.
    pub(crate) fn budget(&self) -> Budget {
        Budget {
            after: self.timeout,
            set_by: self.timeout_set_by,
        }
    }
}

/// What set a probe's time limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeoutSource {
    /// `--timeout` (or its default).
    #[default]
    Option,
    /// The entry's own startup timeout (Codex `startup_timeout_sec`): the client gives
    /// up after that long too.
    Entry { key: &'static str },
}

/// A probe's time limit, for the timeout error.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    pub(crate) after: Duration,
    pub(crate) set_by: TimeoutSource,
}

impl Budget {
    /// The error for running out of time during `phase`.
    pub(crate) fn expired(self, phase: Phase) -> ProbeError {
        ProbeError::Timeout {
            phase,
            after: self.after,
            set_by: self.set_by,
        }
    }
}

/// The overall verdict of one probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The handshake completed with nothing to report.
    Ok,
    /// The server answered, but something needs attention (see `warnings`).
    Warn,
    /// The handshake did not complete (see `failure`).
    Fail,
}

/// A step of the handshake, used for timings and to say where something went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Resolving and starting a stdio server.
    Spawn,
    /// Opening the legacy SSE stream and waiting for its `endpoint` event.
    Connect,
    /// The `server/discover` probe that tells the protocol eras apart.
    Discover,
    /// The `initialize` request.
    Initialize,
    /// The `notifications/initialized` notification.
    Initialized,
    /// The `tools/list` requests.
    ToolsList,
    /// The `tools/call` request of `mcpctl call`.
    ToolsCall,
    /// Ending the server (stdio) or deleting the session (HTTP).
    Shutdown,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Spawn => "spawn",
            Phase::Connect => "connect",
            Phase::Discover => "server/discover",
            Phase::Initialize => "initialize",
            Phase::Initialized => "notifications/initialized",
            Phase::ToolsList => "tools/list",
            Phase::ToolsCall => "tools/call",
            Phase::Shutdown => "shutdown",
        })
    }
}

/// How long one phase took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PhaseTime {
    pub phase: Phase,
    pub elapsed_ms: u64,
}

/// The report of one probe; `--json` serialises it as is.
#[derive(Debug, Clone, Serialize)]
pub struct Probe {
    pub status: Status,
    pub server_name: Option<String>,
    pub server_version: Option<String>,
    /// The protocol era the server speaks, once known.
    pub protocol_era: Option<Era>,
    /// The protocol version the server answered with.
    pub protocol_version: Option<String>,
    /// The versions a modern-era server's `server/discover` names (empty in the
    /// handshake era): whether it also speaks `initialize` to older clients.
    pub supported_versions: Vec<String>,
    /// What a fresh start opened with `initialize` got, when
    /// [`Opening::DiscoverThenInitialize`] asked for it and `supported_versions` named no
    /// version that has `initialize`: the version it agreed, or what it got instead (to
    /// follow "got", as ": timed out …" or " -32022 …").
    #[serde(skip)]
    pub initialize: Option<Result<String, String>>,
    /// Number of tools, when `tools/list` completed (`None` when the server declares no
    /// `tools` capability or the probe failed earlier).
    pub tools: Option<usize>,
    pub tool_names: Vec<String>,
    /// Estimated tokens the tool definitions add to a client's context
    /// ([`tools::TOKEN_METHOD`]), when `tools/list` completed.
    pub tokens: Option<usize>,
    /// The tools exactly as the server listed them (`mcpctl tools`).
    #[serde(skip)]
    pub tool_definitions: Vec<serde_json::Value>,
    /// The `tools/call` result, when a call was asked for and answered.
    #[serde(skip)]
    pub call_result: Option<serde_json::Value>,
    /// The capabilities the server declared.
    pub capabilities: Option<serde_json::Value>,
    /// Length in characters of the server's `instructions`, if it sent any.
    pub instructions_chars: Option<usize>,
    pub phases: Vec<PhaseTime>,
    pub elapsed_ms: u64,
    pub failure: Option<ProbeError>,
    pub warnings: Vec<ProbeWarning>,
    /// The last lines the server wrote to stderr (ANSI escapes stripped, bounded).
    pub stderr_tail: Vec<String>,
}

/// Why a handshake failed. Each message says what happened and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    #[error(
        "command `{command}` not found on the server's PATH (install it, or use an absolute path)"
    )]
    NotFound { command: String },
    #[error("`{path}` is not executable ({})", if *.os == crate::platform::Os::Windows {
        "Windows starts a file by its extension: name the `.exe`, `.cmd` or `.bat`, or start a script through its interpreter (`node server.js`)"
    } else {
        "check its permissions with `ls -l`"
    })]
    NotExecutable {
        path: String,
        /// The OS the entry is for: what makes a file runnable differs.
        os: crate::platform::Os,
    },
    #[error("cannot start `{command}`: {reason}")]
    Spawn { command: String, reason: String },
    #[error("working directory `{cwd}` does not exist (fix the entry's `cwd`)")]
    MissingCwd { cwd: String },
    #[error("server exited with {} during {phase}{}", exit_description(*.code, *.signal), if *.said_why { " (its stderr tail shows why)" } else { " and wrote nothing to stderr" })]
    ExitedEarly {
        code: Option<i32>,
        signal: Option<i32>,
        phase: Phase,
        /// It wrote to stderr (so the report's tail may say why).
        said_why: bool,
    },
    #[error(
        "`{command}` is not an MCP server: it sent mcpctl's own {phase} request back (a command that echoes its input, such as `cat`)"
    )]
    EchoesInput { command: String, phase: Phase },
    #[error(
        "server closed its output during {phase} without answering (its stderr tail may show why)"
    )]
    ClosedEarly { phase: Phase },
    #[error("timed out after {} waiting for the {phase} reply ({})", seconds(*.after), raise(*.set_by))]
    Timeout {
        phase: Phase,
        after: Duration,
        set_by: TimeoutSource,
    },
    #[error(
        "server wrote a line that is not JSON-RPC on stdout during {phase}: `{line}` (an MCP server must log to stderr, never stdout)"
    )]
    NonJson { line: String, phase: Phase },
    #[error(
        "the server's HTTP reply to {phase} is not JSON-RPC: `{line}` (is this the MCP endpoint? they are usually `/mcp`)"
    )]
    NonJsonBody { line: String, phase: Phase },
    #[error("server answered {phase} with JSON-RPC error {code}{}: {message}", rpc_code_name(*.code))]
    JsonRpc {
        code: i64,
        message: String,
        phase: Phase,
    },
    #[error("server answered {phase} with a malformed result: {reason}")]
    BadResult { reason: String, phase: Phase },
    #[error("server speaks protocol version `{version}`, which mcpctl does not know (it supports {})", KNOWN_PROTOCOL_VERSIONS.join(", "))]
    UnsupportedVersion { version: String },
    #[error("server answered {phase} with HTTP {status}{}", http_detail(.detail))]
    Http {
        status: u16,
        phase: Phase,
        detail: String,
    },
    #[error("`{url}` is not a legacy SSE endpoint either: {reason}")]
    NotSse { url: String, reason: String },
    #[error(
        "server refused access during {phase} (HTTP 403): the credentials lack a scope it needs, or it rejects this client; log in again through your client"
    )]
    Forbidden { phase: Phase },
    #[error(
        "the server refused the key in header `{header}` (HTTP 401): no login helps, the client sends this key; check its value (or the variable it comes from) and that it is still valid"
    )]
    KeyRefused { header: String },
    #[error(
        "the server asks for a login (HTTP 401) but its OAuth metadata `{url}` answers 404: no client can find where to log in (tell the server's maintainer, or check the URL)"
    )]
    NoLoginMetadata { url: String },
    #[error("cannot connect to `{url}`: {reason}")]
    Connect { url: String, reason: String },
    #[error("invalid server URL `{url}`: {reason}")]
    BadUrl { url: String, reason: String },
    /// `unset`'s wording; `place` is where in the entry (`header `X``, `URL`).
    #[error("{}", crate::unset::sentence(.variable, .place, *.os))]
    UnsetVariable {
        variable: String,
        place: String,
        /// The OS whose environment lacks it (how to set it is said its way).
        os: crate::platform::Os,
    },
    #[error("HTTP error during {phase}: {reason}")]
    Transport { reason: String, phase: Phase },
    #[error("the server has no tool `{tool}`; it has: {}", if available.is_empty() { "no tools".to_owned() } else { available.join(", ") })]
    UnknownTool {
        tool: String,
        available: Vec<String>,
    },
    #[error("{reason}")]
    BadArgument { reason: String },
}

/// Something worth reporting about a server that did answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeWarning {
    #[error("server needs authorization (HTTP 401){}", resource_hint(.resource_metadata))]
    NeedsAuthorization { resource_metadata: Option<String> },
    #[error(
        "server wrote a line that is not JSON-RPC on stdout: `{line}` (clients may drop the connection; log to stderr instead)"
    )]
    NonJsonLine { line: String },
    #[error("server repeated tools/list cursor `{cursor}` after {pages} pages; stopped listing")]
    RepeatedCursor { cursor: String, pages: usize },
    #[error("tools/list still had more pages after {pages}; stopped listing")]
    TooManyPages { pages: usize },
    #[error(
        "server used legacy HTTP+SSE although the entry says Streamable HTTP (set the entry's transport to `sse`)"
    )]
    FellBackToSse,
    #[error("server did not exit after its input closed; mcpctl had to {how}")]
    SlowShutdown { how: String },
}

impl ProbeError {
    /// A stable snake_case name for scripts (`--json`).
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            ProbeError::NotFound { .. } => "not_found",
            ProbeError::NotExecutable { .. } => "not_executable",
            ProbeError::Spawn { .. } => "spawn",
            ProbeError::MissingCwd { .. } => "missing_cwd",
            ProbeError::ExitedEarly { .. } => "exited_early",
            ProbeError::EchoesInput { .. } => "not_mcp",
            ProbeError::ClosedEarly { .. } => "closed_early",
            ProbeError::Timeout { .. } => "timeout",
            ProbeError::NonJson { .. } | ProbeError::NonJsonBody { .. } => "non_json",
            ProbeError::JsonRpc { code, .. } if PROTOCOL_CODES.contains(code) => "protocol",
            ProbeError::JsonRpc { .. } => "json_rpc",
            ProbeError::BadResult { .. } => "bad_result",
            ProbeError::UnsupportedVersion { .. } => "unsupported_version",
            ProbeError::Http { .. } => "http",
            ProbeError::NotSse { .. } => "not_sse",
            ProbeError::Forbidden { .. } => "forbidden",
            ProbeError::KeyRefused { .. } => "key_refused",
            ProbeError::NoLoginMetadata { .. } => "no_login_metadata",
            ProbeError::Connect { .. } => "connect",
            ProbeError::BadUrl { .. } => "bad_url",
            ProbeError::UnsetVariable { .. } => "unset_variable",
            ProbeError::Transport { .. } => "transport",
            ProbeError::UnknownTool { .. } => "unknown_tool",
            ProbeError::BadArgument { .. } => "bad_argument",
        }
    }
}

impl ProbeWarning {
    /// A stable snake_case name for scripts (`--json`).
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            ProbeWarning::NeedsAuthorization { .. } => "needs_authorization",
            ProbeWarning::NonJsonLine { .. } => "non_json_line",
            ProbeWarning::RepeatedCursor { .. } => "repeated_cursor",
            ProbeWarning::TooManyPages { .. } => "too_many_pages",
            ProbeWarning::FellBackToSse => "fell_back_to_sse",
            ProbeWarning::SlowShutdown { .. } => "slow_shutdown",
        }
    }
}

/// Serialised as `{"kind": "...", "message": "..."}`.
impl Serialize for ProbeError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("kind", self.kind())?;
        map.serialize_entry("message", &self.to_string())?;
        map.end()
    }
}

/// Serialised as `{"kind": "...", "message": "..."}`.
impl Serialize for ProbeWarning {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("kind", self.kind())?;
        map.serialize_entry("message", &self.to_string())?;
        map.end()
    }
}

fn exit_description(code: Option<i32>, signal: Option<i32>) -> String {
    match (code, signal) {
        (Some(code), _) => format!("code {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        (None, None) => "an unknown status".to_owned(),
    }
}

fn seconds(duration: Duration) -> String {
    let secs = duration.as_secs_f64();
    if secs >= 1.0 && duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{secs:.1} s")
    }
}

fn raise(set_by: TimeoutSource) -> String {
    match set_by {
        TimeoutSource::Option => "raise with --timeout".to_owned(),
        TimeoutSource::Entry { key } => {
            format!("the entry's `{key}`, after which the client gives up too; raise it there")
        }
    }
}

/// The JSON-RPC error codes MCP 2026-07-28 reserves for the protocol: an answer with one
/// is a protocol error (client and server disagree about the protocol), not a fault of
/// the server's own.
pub const PROTOCOL_CODES: std::ops::RangeInclusive<i64> = -32099..=-32020;

/// The names MCP 2026-07-28 gives its own error codes (and the JSON-RPC ones a probe meets
/// most), so a message says what the number means.
fn rpc_code_name(code: i64) -> &'static str {
    match code {
        -32020 => {
            " (HeaderMismatch, a protocol error: the Mcp-Method/Mcp-Name headers disagree with the request body)"
        }
        -32021 => {
            " (MissingRequiredClientCapability, a protocol error: the server needs a capability mcpctl's probe does not declare)"
        }
        -32022 => " (UnsupportedProtocolVersion, a protocol error)",
        code if PROTOCOL_CODES.contains(&code) => {
            " (a protocol error: MCP 2026-07-28 reserves -32020..-32099 for them)"
        }
        -32601 => " (method not found)",
        -32602 => " (invalid params)",
        _ => "",
    }
}

fn http_detail(detail: &str) -> String {
    if detail.is_empty() {
        String::new()
    } else {
        format!(": {detail}")
    }
}

fn resource_hint(resource_metadata: &Option<String>) -> String {
    match resource_metadata {
        Some(url) => format!("; log in through your client (resource metadata: {url})"),
        None => "; log in through your client".to_owned(),
    }
}

/// What a handshake learns, filled in phase by phase by the transports.
#[derive(Debug, Default)]
pub(crate) struct Report {
    pub(crate) server_name: Option<String>,
    pub(crate) server_version: Option<String>,
    pub(crate) protocol_era: Option<Era>,
    pub(crate) protocol_version: Option<String>,
    pub(crate) supported_versions: Vec<String>,
    pub(crate) tool_definitions: Vec<serde_json::Value>,
    pub(crate) call_result: Option<serde_json::Value>,
    pub(crate) capabilities: Option<serde_json::Value>,
    pub(crate) instructions_chars: Option<usize>,
    pub(crate) phases: Vec<PhaseTime>,
    pub(crate) warnings: Vec<ProbeWarning>,
    pub(crate) stderr_tail: Vec<String>,
}

impl Report {
    /// Record that `phase` ran from `started` until now.
    pub(crate) fn phase(&mut self, phase: Phase, started: Instant) {
        self.phases.push(PhaseTime {
            phase,
            elapsed_ms: millis(started.elapsed()),
        });
    }

    /// Keep the listed tools.
    pub(crate) fn set_tools(&mut self, definitions: Vec<serde_json::Value>) {
        self.tool_definitions = definitions;
    }

    pub(crate) fn warn(&mut self, warning: ProbeWarning) {
        if !self.warnings.contains(&warning) {
            self.warnings.push(warning);
        }
    }

    fn finish(self, failure: Option<ProbeError>, started: Instant) -> Probe {
        let status = if failure.is_some() {
            Status::Fail
        } else if self.warnings.is_empty() {
            Status::Ok
        } else {
            Status::Warn
        };
        let listed = !self.tool_definitions.is_empty()
            || self.phases.iter().any(|p| p.phase == Phase::ToolsList);
        Probe {
            status,
            server_name: self.server_name,
            server_version: self.server_version,
            protocol_era: self.protocol_era,
            protocol_version: self.protocol_version,
            supported_versions: self.supported_versions,
            initialize: None,
            tools: listed.then_some(self.tool_definitions.len()),
            // Server-provided text never reaches a terminal with its control characters.
            tool_names: self
                .tool_definitions
                .iter()
                .map(|d| clean_text(tools::name_of(d)))
                .collect(),
            tokens: listed.then(|| tools::estimate_tokens(&self.tool_definitions)),
            tool_definitions: self.tool_definitions,
            call_result: self.call_result,
            capabilities: self.capabilities,
            instructions_chars: self.instructions_chars,
            phases: self.phases,
            elapsed_ms: millis(started.elapsed()),
            failure,
            warnings: self.warnings,
            stderr_tail: self.stderr_tail,
        }
    }
}

pub(crate) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Multi-line `text` from a server (a tool's output), safe to print: line breaks kept
/// (`\r\n` as `\n`), escape sequences and other control characters removed as by
/// [`clean_text`].
#[must_use]
pub fn printable_lines(text: &str) -> String {
    text.split('\n')
        .map(|line| clean_text(line.strip_suffix('\r').unwrap_or(line)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// How a transport is prepared on this machine when the caller has no client context
/// (tests, library use): its environment is `options.parent_env`, its directory the
/// current one.
fn prepared(transport: &Transport, options: &ProbeOptions) -> Result<Launch, ProbeError> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let host = Host {
        target_os: Os::host(),
        host_os: Os::host(),
        env: &options.parent_env,
        cwd: &cwd,
        wrap_windows: false,
    };
    prepare(transport, &host).launch
}

/// Prepare `transport` for this machine (its environment is `options.parent_env`, its
/// directory the current one) and probe it; a static failure is the probe's failure.
#[must_use]
pub fn probe(transport: &Transport, options: &ProbeOptions) -> Probe {
    match prepared(transport, options) {
        Ok(launch) => probe_launch(&launch, options),
        Err(error) => Report::default().finish(Some(error), Instant::now()),
    }
}

/// [`probe`], then call one of the server's tools: the result is in
/// [`Probe::call_result`]; an unknown tool or a bad argument is the probe's `failure`.
#[must_use]
pub fn call(transport: &Transport, options: &ProbeOptions, call: &ToolCall) -> Probe {
    match prepared(transport, options) {
        Ok(launch) => call_launch(&launch, options, call),
        Err(error) => Report::default().finish(Some(error), Instant::now()),
    }
}

/// Probe one prepared server: run the handshake and end the server (or its session)
/// afterwards. Checks nothing [`prepare`] already checked.
#[must_use]
pub fn probe_launch(launch: &Launch, options: &ProbeOptions) -> Probe {
    session(launch, options, None)
}

/// [`probe_launch`], then call one of the server's tools (see [`call`]).
#[must_use]
pub fn call_launch(launch: &Launch, options: &ProbeOptions, call: &ToolCall) -> Probe {
    session(launch, options, Some(call))
}

fn session(launch: &Launch, options: &ProbeOptions, call: Option<&ToolCall>) -> Probe {
    // One server: its report is complete with the handshake.
    let hurry = process::Hurry::now();
    let probe = handshake(launch, options, call).end(&hurry);
    initialize_too(probe, launch, options, &hurry)
}

/// `probe`, with what a fresh start opened with `initialize` got
/// ([`Opening::DiscoverThenInitialize`]) when its `server/discover` named no version that
/// has `initialize`: a client that speaks only that era tries nothing else.
fn initialize_too(
    mut probe: Probe,
    launch: &Launch,
    options: &ProbeOptions,
    hurry: &process::Hurry,
) -> Probe {
    let modern_only = probe.failure.is_none()
        && probe.protocol_era == Some(Era::Modern)
        && !probe
            .supported_versions
            .iter()
            .any(|v| KNOWN_PROTOCOL_VERSIONS.contains(&v.as_str()));
    if options.opening != Opening::DiscoverThenInitialize || !modern_only {
        return probe;
    }
    let options = ProbeOptions {
        opening: Opening::Initialize,
        ..options.clone()
    };
    let second = handshake(launch, &options, None).end(hurry);
    probe.initialize = Some(match (second.failure, second.protocol_era) {
        (None, Some(Era::Handshake)) => Ok(second.protocol_version.unwrap_or_default()),
        (Some(failure), _) => Err(format!(": {failure}")),
        (None, _) => Err(format!(" -32022 naming only {MODERN_PROTOCOL_VERSION}")),
    });
    probe
}

/// A handshake whose outcome is known; a stdio server may still have to be ended.
struct Handshaken {
    report: Report,
    started: Instant,
    outcome: Outcome,
}

enum Outcome {
    Done(Result<(), ProbeError>),
    /// A stdio server, its input closed (boxed: on Windows a running server's handles
    /// make it several times the size of `Done`, which clippy flags there).
    Closing(Box<stdio::Closing>),
}

impl Handshaken {
    /// End the server, if one still runs, and make the report (`hurry`: see
    /// [`process::Hurry`]).
    fn end(self, hurry: &process::Hurry) -> Probe {
        let Handshaken {
            mut report,
            started,
            outcome,
        } = self;
        let result = match outcome {
            Outcome::Done(result) => result,
            Outcome::Closing(closing) => closing.end(&mut report, hurry),
        };
        report.finish(result.err(), started)
    }
}

/// Run the handshake until its outcome is known (an HTTP session is closed too).
fn handshake(launch: &Launch, options: &ProbeOptions, call: Option<&ToolCall>) -> Handshaken {
    let started = Instant::now();
    let deadline = started + options.timeout;
    let mut report = Report::default();
    let outcome = match launch {
        Launch::Stdio {
            program,
            command,
            args,
            env,
            cwd,
        } => {
            let server = stdio::Server {
                program,
                command,
                args,
                env,
                cwd: cwd.as_deref(),
            };
            Outcome::Closing(Box::new(stdio::probe(
                &server,
                options,
                deadline,
                call,
                &mut report,
            )))
        }
        Launch::Remote { url, kind, headers } => Outcome::Done(http::probe(
            url,
            *kind,
            headers,
            options,
            deadline,
            call,
            &mut report,
        )),
    };
    Handshaken {
        report,
        started,
        outcome,
    }
}

/// Whether two probes are the same handshake (`probe_many` runs it once): the same plan,
/// time limit, environment and declared capabilities.
#[must_use]
pub fn same_probe(a: (&Launch, &ProbeOptions), b: (&Launch, &ProbeOptions)) -> bool {
    // A probe that also tries `initialize` serves one that does not.
    let opens = |o: &ProbeOptions| o.opening == Opening::Initialize;
    a.0 == b.0
        && opens(a.1) == opens(b.1)
        && a.1.timeout == b.1.timeout
        && a.1.timeout_set_by == b.1.timeout_set_by
        && a.1.capabilities == b.1.capabilities
        && a.1.parent_env == b.1.parent_env
}

/// Probe many servers on at most `jobs` threads, each with its own options (an entry may
/// carry its own timeout). Identical plans with the same time limit are probed once and
/// share the result. `on_done(index, probe)` runs as each result arrives (for every index
/// that shares it), from worker threads. Results come back in input order.
pub fn probe_many(
    items: Vec<(Launch, ProbeOptions)>,
    jobs: usize,
    on_done: impl Fn(usize, &Probe) + Sync,
) -> Vec<Probe> {
    // unique[k] = the first index of each distinct job; owner[i] = its k.
    let same = |a: &(Launch, ProbeOptions), b: &(Launch, ProbeOptions)| {
        same_probe((&a.0, &a.1), (&b.0, &b.1))
    };
    let mut unique: Vec<usize> = Vec::new();
    let mut owner: Vec<usize> = Vec::with_capacity(items.len());
    // Whether any item sharing unique[k] asks for `initialize` too.
    let mut also_initialize: Vec<bool> = Vec::new();
    for (index, item) in items.iter().enumerate() {
        match unique.iter().position(|&u| same(&items[u], item)) {
            Some(k) => {
                owner.push(k);
                if item.1.opening == Opening::DiscoverThenInitialize {
                    also_initialize[k] = true;
                }
            }
            None => {
                owner.push(unique.len());
                unique.push(index);
                also_initialize.push(item.1.opening == Opening::DiscoverThenInitialize);
            }
        }
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<Option<Probe>>> =
        std::sync::Mutex::new(vec![None; unique.len()]);
    let workers = jobs.clamp(1, unique.len().max(1));
    // Once every handshake is over, only mcpctl's exit waits for the servers' endings.
    let handshakes_over = std::sync::atomic::AtomicUsize::new(0);
    let hurry = process::Hurry::default();
    let (owner_ref, on_done, results_ref, hurry_ref) = (&owner, &on_done, &results, &hurry);
    // The result of probe `k`, to everyone who shares it.
    let deliver = move |k: usize, result: Probe| {
        for (index, _) in owner_ref.iter().enumerate().filter(|(_, o)| **o == k) {
            on_done(index, &result);
        }
        if let Ok(mut slots) = results_ref.lock() {
            slots[k] = Some(result);
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                // The ender of the last server this thread started.
                let mut last: Option<std::thread::ScopedJoinHandle<'_, ()>> = None;
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&first) = unique.get(k) else { break };
                    let (launch, options) = &items[first];
                    let handshaken = handshake(launch, options, None);
                    let also_initialize = also_initialize[k];
                    let over = handshakes_over.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    if over + 1 == unique.len() {
                        hurry.set();
                    }
                    // The slot is free once the outcome is known: many servers do not
                    // exit when their input closes, and ending one takes the grace
                    // period. It is ended on a thread of its own meanwhile; the verdicts
                    // still come in the order this thread started the servers (with one
                    // job, the order of the config).
                    let previous = last.take();
                    last = Some(scope.spawn(move || {
                        let mut result = handshaken.end(hurry_ref);
                        if also_initialize {
                            let options = ProbeOptions {
                                opening: Opening::DiscoverThenInitialize,
                                ..options.clone()
                            };
                            result = initialize_too(result, launch, &options, hurry_ref);
                        }
                        if let Some(previous) = previous {
                            let _ = previous.join();
                        }
                        deliver(k, result);
                    }));
                }
                // This thread started those servers, and on Linux a server dies with the
                // thread that started it (`PR_SET_PDEATHSIG`): it lives until they are
                // ended (each ender joins the one before it).
                if let Some(last) = last {
                    let _ = last.join();
                }
            });
        }
    });
    let slots = results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    owner
        .iter()
        .map(|&k| {
            slots[k].clone().unwrap_or_else(|| {
                // Only reachable if a worker panicked; report rather than panic again.
                Report::default().finish(
                    Some(ProbeError::Spawn {
                        command: String::new(),
                        reason: "the probe thread panicked".to_owned(),
                    }),
                    Instant::now(),
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {

    /// MCP 2026-07-28's error codes are named in the message, not only numbered.
    #[test]
    fn modern_error_codes_are_named() {
        for (code, name) in [
            (-32020, "HeaderMismatch"),
            (-32021, "MissingRequiredClientCapability"),
            (-32022, "UnsupportedProtocolVersion"),
        ] {
            let error = ProbeError::JsonRpc {
                code,
                message: "no".to_owned(),
                phase: Phase::Discover,
            };
            let text = error.to_string();
            assert!(text.contains(&format!("{code} ({name}")), "{text}");
        }
        let other = ProbeError::JsonRpc {
            code: -1,
            message: "no".to_owned(),
            phase: Phase::Discover,
        };
        assert!(other.to_string().contains("error -1: no"), "{other}");
    }
    use super::*;

    /// Issue 38 item 8: 2026-07-28 reserves -32020..-32099 for the protocol; an answer
    /// with such a code is a protocol error, not a fault of the server's own.
    #[test]
    fn reserved_codes_are_protocol_errors() {
        let error = |code| ProbeError::JsonRpc {
            code,
            message: "no".to_owned(),
            phase: Phase::ToolsList,
        };
        for code in [-32020, -32022, -32023, -32050, -32099] {
            let e = error(code);
            assert_eq!(e.kind(), "protocol", "{code}");
            assert!(e.to_string().contains("protocol error"), "{e}");
        }
        for code in [-32000, -32019, -32100, -32601, -32603] {
            let e = error(code);
            assert_eq!(e.kind(), "json_rpc", "{code}");
            assert!(!e.to_string().contains("protocol error"), "{e}");
        }
    }

    #[test]
    fn protocol_versions_compare_as_dates() {
        use std::cmp::Ordering::{Equal, Greater, Less};
        assert_eq!(version_order("2026-07-28", PROTOCOL_VERSION), Some(Greater));
        assert_eq!(version_order("2025-03-26", "2025-11-25"), Some(Less));
        assert_eq!(version_order("2025-11-25", "2025-11-25"), Some(Equal));
        assert_eq!(version_order("2025-9-01", "2025-10-01"), Some(Less));
        for odd in [
            "",
            "draft",
            "2025-11",
            "2025-11-25-x",
            "2025--25",
            "+2025-01-01",
        ] {
            assert_eq!(version_order(odd, "2025-11-25"), None, "{odd}");
        }
    }

    #[test]
    fn timeout_message_names_phase_and_flag() {
        let error = ProbeError::Timeout {
            phase: Phase::Initialize,
            after: Duration::from_secs(30),
            set_by: TimeoutSource::Option,
        };
        assert_eq!(
            error.to_string(),
            "timed out after 30 s waiting for the initialize reply (raise with --timeout)"
        );
        let error = ProbeError::Timeout {
            phase: Phase::ToolsList,
            after: Duration::from_millis(1500),
            set_by: TimeoutSource::Entry {
                key: "startup_timeout_ms",
            },
        };
        let message = error.to_string();
        assert!(message.starts_with("timed out after 1.5 s"), "{message}");
        assert!(message.contains("`startup_timeout_ms`"), "{message}");
        assert!(!message.contains("--timeout"), "{message}");
    }

    #[test]
    fn messages_are_lowercase_without_trailing_period() {
        let errors = [
            ProbeError::NotFound {
                command: "npx".into(),
            },
            ProbeError::ExitedEarly {
                code: Some(1),
                signal: None,
                phase: Phase::Initialize,
                said_why: true,
            },
            ProbeError::UnsupportedVersion {
                version: "1999-01-01".into(),
            },
            ProbeError::UnsetVariable {
                variable: "TOKEN".into(),
                place: "header `Authorization`".into(),
                os: crate::platform::Os::Linux,
            },
        ];
        for error in errors {
            let message = error.to_string();
            assert!(
                message.chars().next().is_some_and(char::is_lowercase),
                "{message}"
            );
            assert!(!message.ends_with('.'), "{message}");
        }
        let warning = ProbeWarning::NeedsAuthorization {
            resource_metadata: Some("https://x/.well-known/oauth-protected-resource".into()),
        };
        assert!(
            warning
                .to_string()
                .contains("resource metadata: https://x/")
        );
    }

    #[test]
    fn the_stderr_excerpt_prefers_the_first_and_telling_lines() {
        let mut lines: Vec<String> = (0..40).map(|i| format!("    at frame {i}")).collect();
        lines.insert(0, "starting".to_owned());
        lines.insert(20, "Error: API key is required".to_owned());
        let excerpt = stderr_excerpt(&lines, 6);
        assert_eq!(excerpt.len(), 6);
        assert_eq!(excerpt[0], "starting");
        assert_eq!(excerpt[1], "Error: API key is required");
        assert_eq!(excerpt[5], "    at frame 39");
        assert_eq!(stderr_excerpt(&lines[..3], 6), lines[..3]);
    }

    #[test]
    fn errors_serialise_as_kind_and_message() {
        let json = serde_json::to_value(ProbeError::UnsetVariable {
            variable: "TOKEN".into(),
            place: "header `Authorization`".into(),
            os: crate::platform::Os::Linux,
        })
        .unwrap();
        assert_eq!(json["kind"], "unset_variable");
        assert!(json["message"].as_str().unwrap().contains("${TOKEN}"));
    }
}
