//! The transport-independent handshake: `initialize` (checking the negotiated protocol
//! version), `notifications/initialized`, then `tools/list` across pages.
//!
//! Talks only through [`Channel`]; never spawns, connects or sleeps itself.

use std::time::Instant;

use serde_json::{Value, json};

use super::{KNOWN_PROTOCOL_VERSIONS, PROTOCOL_VERSION, Phase, ProbeError, ProbeWarning, Report};

/// Most `tools/list` pages read before giving up on a server that never stops paging.
pub(crate) const MAX_PAGES: usize = 100;

/// A connection to a server that can carry JSON-RPC messages.
pub(crate) trait Channel {
    /// Send a request and wait (until `deadline`) for the response with its id.
    fn request(
        &mut self,
        method: &str,
        params: &Value,
        phase: Phase,
        deadline: Instant,
        report: &mut Report,
    ) -> Result<Value, ProbeError>;

    /// Send a notification.
    fn notify(
        &mut self,
        method: &str,
        phase: Phase,
        deadline: Instant,
        report: &mut Report,
    ) -> Result<(), ProbeError>;

    /// Called once the protocol version is agreed (HTTP sends it as a header from then on).
    fn negotiated(&mut self, _version: &str) {}
}

/// Run the handshake over `channel`, recording what the server says into `report`.
pub(crate) fn run(
    channel: &mut impl Channel,
    deadline: Instant,
    report: &mut Report,
) -> Result<(), ProbeError> {
    let started = Instant::now();
    let params = json!({
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": super::jsonrpc::client_capabilities(),
        "clientInfo": {"name": "mcpctl", "version": env!("CARGO_PKG_VERSION")},
    });
    let result = channel.request("initialize", &params, Phase::Initialize, deadline, report)?;
    report.phase(Phase::Initialize, started);

    let server_info = result.get("serverInfo");
    // Server-provided text never reaches a terminal with its control characters.
    let text = |value: Option<&Value>| value.and_then(Value::as_str).map(super::clean_text);
    report.server_name = text(server_info.and_then(|info| info.get("name")));
    report.server_version = text(server_info.and_then(|info| info.get("version")));
    report.capabilities = result.get("capabilities").cloned();
    report.instructions_chars = result
        .get("instructions")
        .and_then(Value::as_str)
        .map(|text| text.chars().count());
    let Some(version) = text(result.get("protocolVersion")) else {
        return Err(ProbeError::BadResult {
            reason: "no `protocolVersion` string".to_owned(),
            phase: Phase::Initialize,
        });
    };
    report.protocol_version = Some(version.clone());
    if !KNOWN_PROTOCOL_VERSIONS.contains(&version.as_str()) {
        return Err(ProbeError::UnsupportedVersion { version });
    }
    // An older version the spec still has is information (`protocol_version` in the
    // report), not a warning: clients accept it.
    channel.negotiated(&version);

    let started = Instant::now();
    channel.notify(
        "notifications/initialized",
        Phase::Initialized,
        deadline,
        report,
    )?;
    report.phase(Phase::Initialized, started);

    let has_tools = result
        .get("capabilities")
        .and_then(|capabilities| capabilities.get("tools"))
        .is_some_and(|tools| !tools.is_null());
    if !has_tools {
        return Ok(());
    }
    let started = Instant::now();
    list_tools(channel, deadline, report)?;
    report.phase(Phase::ToolsList, started);
    Ok(())
}

fn list_tools(
    channel: &mut impl Channel,
    deadline: Instant,
    report: &mut Report,
) -> Result<(), ProbeError> {
    let mut names = Vec::new();
    let mut seen_cursors: Vec<String> = Vec::new();
    let mut params = json!({});
    for page in 1..=MAX_PAGES {
        let result = channel.request("tools/list", &params, Phase::ToolsList, deadline, report)?;
        let Some(tools) = result.get("tools").and_then(Value::as_array) else {
            return Err(ProbeError::BadResult {
                reason: "no `tools` array".to_owned(),
                phase: Phase::ToolsList,
            });
        };
        names.extend(tools.iter().map(|tool| {
            tool.get("name")
                .and_then(Value::as_str)
                .map_or_else(|| "(unnamed)".to_owned(), super::clean_text)
        }));
        let Some(cursor) = result.get("nextCursor").and_then(Value::as_str) else {
            return finish(report, names);
        };
        if seen_cursors.iter().any(|seen| seen == cursor) {
            report.warn(ProbeWarning::RepeatedCursor {
                cursor: super::jsonrpc::quote(cursor),
                pages: page,
            });
            return finish(report, names);
        }
        seen_cursors.push(cursor.to_owned());
        params = json!({ "cursor": cursor });
    }
    report.warn(ProbeWarning::TooManyPages { pages: MAX_PAGES });
    finish(report, names)
}

fn finish(report: &mut Report, names: Vec<String>) -> Result<(), ProbeError> {
    report.tools = Some(names.len());
    report.tool_names = names;
    Ok(())
}
