//! A handshake's outcome folded into a doctor result: the verdict as the entry's client
//! sees it, the messages that say what to do, and what was started.

use crate::clients::Client;
use crate::clients::loading::EraName;
use crate::doctor::probe::{DoctorResult, Status};
use crate::handshake::{self, Era, Launch, Probe, ProbeWarning, Status as ProbeStatus};

use super::rows::plural;

/// Fold a probe into the result. `busy`: how many servers were probed at once.
pub(super) fn merge_probe(
    result: &mut DoctorResult,
    client: &Client,
    launch: &Launch,
    probe: Probe,
    busy: usize,
) {
    let fell_back = probe.warnings.contains(&ProbeWarning::FellBackToSse);
    let signs_in_by_itself = result.checks.iter().any(|c| c.check == "client sign-in");
    let era_mismatch = probe
        .protocol_era
        .filter(|_| probe.failure.is_none())
        .and_then(|era| era_mismatch(client, era, &probe.supported_versions, &probe.initialize));
    let (status, message) = match (&probe.status, &probe.failure) {
        _ if era_mismatch.is_some() => (Status::Fail, era_mismatch.clone().unwrap_or_default()),
        (ProbeStatus::Fail, Some(f @ handshake::ProbeError::Timeout { .. }))
            if probe.stderr_tail.is_empty() && launcher(&result.target).is_some() =>
        {
            (
                Status::Fail,
                format!(
                    "{f}; `{}` said nothing: it may be downloading the package or waiting for its registry (run it once by hand, or raise --timeout)",
                    launcher(&result.target).unwrap_or_default()
                ),
            )
        }
        (ProbeStatus::Warn, _) if fell_back && !client.fields.sse_fallback => (
            Status::Fail,
            format!(
                "`{}` serves only legacy SSE, and {} does not fall back to it (it reports \"MCP endpoint not found\"); set the entry's transport to `sse`",
                result.target, client.name
            ),
        ),
        (ProbeStatus::Fail, Some(f @ handshake::ProbeError::Timeout { .. })) if busy > 1 => (
            Status::Fail,
            format!(
                "{f}; {} other server{} started at the same time: if it passes alone \
                 (`mcpctl doctor {}`), lower --jobs",
                busy - 1,
                plural(busy - 1),
                result.name
            ),
        ),
        (ProbeStatus::Fail, Some(f @ handshake::ProbeError::UnsupportedVersion { .. }))
            if client.loading.any_version =>
        {
            (
                Status::Warn,
                format!(
                    "{f}; {} goes on whatever version the server names, so it connects (mcpctl stopped there: its tools were not listed)",
                    client.name
                ),
            )
        }
        (ProbeStatus::Fail, Some(f)) => (Status::Fail, f.to_string()),
        (ProbeStatus::Fail, None) => (Status::Fail, "handshake failed".to_owned()),
        (ProbeStatus::Warn, _) => (
            Status::Warn,
            probe
                .warnings
                .iter()
                .map(|w| match w {
                    // The server names where to sign in: mcpctl can, for every client.
                    ProbeWarning::NeedsAuthorization {
                        resource_metadata: Some(_),
                    } if signs_in_by_itself => format!(
                        "server needs authorization (HTTP 401); {} signs in by itself (mcpctl has a sign-in: `mcpctl login {} --yes` makes {} use it)",
                        client.name, result.name, client.name
                    ),
                    ProbeWarning::NeedsAuthorization {
                        resource_metadata: Some(_),
                    } => format!(
                        "server needs authorization (HTTP 401); sign in: `mcpctl login {}`",
                        result.name
                    ),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join("; "),
        ),
        (ProbeStatus::Ok, _) => (
            Status::Ok,
            match probe.protocol_era {
                Some(Era::Modern) => "server/discover and tools/list succeeded",
                _ => "initialize, notifications/initialized and tools/list succeeded",
            }
            .to_owned(),
        ),
    };
    result.record("handshake", status, message);
    if let (None, Some(Ok(version))) = (&era_mismatch, &probe.initialize) {
        result.record(
            "protocol",
            Status::Ok,
            format!(
                "names only {} in `server/discover` but answers `initialize` too (protocol \
                 {version}): {} connects through it",
                crate::handshake::MODERN_PROTOCOL_VERSION,
                client.name
            ),
        );
    }
    // Compared, as dates, with the newest version mcpctl speaks in the server's era.
    let newest = match probe.protocol_era {
        Some(Era::Modern) => handshake::MODERN_PROTOCOL_VERSION,
        _ => handshake::PROTOCOL_VERSION,
    };
    if let Some(version) = &probe.protocol_version
        && handshake::version_order(version, newest) == Some(std::cmp::Ordering::Less)
        && probe.failure.is_none()
    {
        result.record(
            "protocol",
            Status::Ok,
            format!("speaks protocol {version}, older than mcpctl's {newest} (clients accept it)"),
        );
    }
    result.tool_tokens = handshake::tools::per_tool_tokens(&probe.tool_definitions);
    if status == Status::Fail {
        result.started = Some(started(launch, &result.target));
    }
    result.tool_definitions = take_findings(result, probe);
}

/// Move what the probe learned (server, protocol, tools, timings, stderr) into the
/// result; the tool definitions are handed back for a caller that keeps them.
pub(super) fn take_findings(result: &mut DoctorResult, probe: Probe) -> Vec<serde_json::Value> {
    result.server_name = probe.server_name;
    result.server_version = probe.server_version;
    result.protocol_era = probe.protocol_era;
    result.protocol_version = probe.protocol_version;
    result.tools = probe.tools;
    result.tokens = probe.tokens;
    result.tool_names = probe.tool_names;
    result.capabilities = probe.capabilities;
    result.instructions_chars = probe.instructions_chars;
    result.elapsed_ms = Some(probe.elapsed_ms);
    result.phases = probe.phases;
    result.stderr_tail = probe.stderr_tail;
    probe.tool_definitions
}

/// What was started, for a failure report: the resolved program with the entry's
/// arguments as written (`target` minus its command), or the URL as written.
fn started(launch: &Launch, target: &str) -> String {
    match launch {
        Launch::Stdio { program, .. } => {
            let args = target.split_once(' ').map_or("", |(_, rest)| rest);
            format!("{} {args}", program.display())
                .trim_end()
                .to_owned()
        }
        Launch::Remote { .. } => target.to_owned(),
    }
}

/// The package launcher a command line starts with (`npx`, `uvx`, `pnpm dlx`, `bunx`,
/// `pipx run`, `yarn dlx`), which may spend minutes downloading before the server runs.
fn launcher(target: &str) -> Option<String> {
    let mut words = target.split_whitespace();
    let command = words.next()?;
    let stem = command
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(command)
        .trim_end_matches(".cmd")
        .trim_end_matches(".exe");
    let second = words.next().unwrap_or("");
    match (stem, second) {
        ("npx" | "uvx" | "bunx" | "pnpx", _) => Some(stem.to_owned()),
        ("pnpm" | "yarn", "dlx") | ("pipx", "run") => Some(format!("{stem} {second}")),
        _ => None,
    }
}

/// Why `client` cannot use a server that answered in `era` naming `supported` versions,
/// if it cannot. `initialize`: what a fresh start opened with `initialize` got, if that
/// was tried ([`Probe::initialize`]); a server that answered it is dual-era.
#[must_use]
pub fn era_mismatch(
    client: &Client,
    era: Era,
    supported: &[String],
    initialize: &Option<Result<String, String>>,
) -> Option<String> {
    match era {
        Era::Modern => {
            let older = supported
                .iter()
                .any(|v| crate::handshake::KNOWN_PROTOCOL_VERSIONS.contains(&v.as_str()))
                || matches!(initialize, Some(Ok(_)));
            (!older && client.loading.speaks(EraName::Modern) == Some(false)).then(|| {
                let got = match initialize {
                    Some(Err(got)) => format!(", and a fresh `initialize` got{got}"),
                    _ => " (it gets -32022)".to_owned(),
                };
                format!(
                    "speaks only {}: {} speaks only the `initialize` era{got}, so it connects to nothing",
                    crate::handshake::MODERN_PROTOCOL_VERSION,
                    client.name
                )
            })
        }
        Era::Handshake => (client.loading.speaks(EraName::Handshake) == Some(false)).then(|| {
            format!(
                "speaks only the `initialize` era: {} speaks only {}",
                client.name,
                crate::handshake::MODERN_PROTOCOL_VERSION
            )
        }),
    }
}
