//! Hand-written stdio replies for misbehaviour the SDK will not produce: a protocol
//! version the spec never had, a server `ping` (plus a notification and an unknown
//! request) sent before the `initialize` reply, silence or exit on unknown methods, or
//! (`evil-name`) a name and a tool name carrying terminal escapes that would clear the
//! screen and forge a line, and bidi overrides that would reorder what follows.

use std::io::{BufRead, Write};

/// How the hand-written server misbehaves.
pub(crate) struct Quirks {
    /// Answer `initialize` with a version the spec never had.
    pub(crate) odd_version: bool,
    /// Send a notification, a `ping` and `roots/list` before the `initialize` reply.
    pub(crate) ping_first: bool,
    /// Name itself and its tool with terminal escapes.
    pub(crate) evil_name: bool,
    /// Exit on a request it does not know (else: never answer it).
    pub(crate) exit_on_unknown: bool,
    /// Speak only the modern era (2026-07-28) and exit on any request it lacks, `ping`
    /// and `initialize` included (`strict-modern`).
    pub(crate) strict_modern: bool,
}

pub(crate) fn serve(quirks: &Quirks) {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let mut send = |value: serde_json::Value| {
        let _ = writeln!(out, "{value}");
        let _ = out.flush();
    };
    let (name, tool) = if quirks.evil_name {
        (
            "raw\u{1b}[2J\r\u{1b}[32m✔ forged\u{202e}\u{2066}\u{1b}[0m",
            "raw_tool\u{1b}]0;owned\u{7}\u{202d}",
        )
    } else {
        ("raw-fixture", "raw_tool")
    };
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        let id = message.get("id").cloned();
        let method = message.get("method").and_then(|m| m.as_str());
        if quirks.strict_modern {
            modern(method, id, &mut send);
            continue;
        }
        match method {
            Some("initialize") => {
                let version = if quirks.odd_version {
                    "1999-01-01".to_owned()
                } else if !quirks.ping_first {
                    message["params"]["protocolVersion"]
                        .as_str()
                        .unwrap_or("2025-11-25")
                        .to_owned()
                } else {
                    send(
                        serde_json::json!({"jsonrpc":"2.0","method":"notifications/message",
                        "params":{"level":"info","data":"warming up"}}),
                    );
                    send(serde_json::json!({"jsonrpc":"2.0","id":"srv-ping","method":"ping"}));
                    send(
                        serde_json::json!({"jsonrpc":"2.0","id":"srv-roots","method":"roots/list"}),
                    );
                    message["params"]["protocolVersion"]
                        .as_str()
                        .unwrap_or("2025-11-25")
                        .to_owned()
                };
                send(serde_json::json!({"jsonrpc":"2.0","id":id,"result":{
                    "protocolVersion": version, "capabilities":{"tools":{}},
                    "serverInfo":{"name": name, "version":"0.0.0\u{7}"}}}));
            }
            Some("tools/list") => {
                send(
                    serde_json::json!({"jsonrpc":"2.0","id":id,"result":{"tools":[
                    {"name": tool, "inputSchema":{"type":"object"}}]}}),
                );
            }
            Some("ping") => send(serde_json::json!({"jsonrpc":"2.0","id":id,"result":{}})),
            Some(method) if quirks.exit_on_unknown && id.is_some() => {
                eprintln!("fixture: unknown request `{method}`; exiting as asked");
                std::process::exit(4);
            }
            Some(_) => {}
            None => eprintln!("fixture: client answered {line}"),
        }
    }
}

/// One request to the strict modern-era server: `server/discover` and `tools/list` are
/// answered; any other request ends the process, as a server that takes an unknown method
/// for a protocol violation would (2026-07-28 has no `ping` and no `initialize`).
fn modern(
    method: Option<&str>,
    id: Option<serde_json::Value>,
    send: &mut impl FnMut(serde_json::Value),
) {
    match method {
        Some("server/discover") => send(serde_json::json!({"jsonrpc":"2.0","id":id,"result":{
            "resultType":"complete", "supportedVersions":["2026-07-28"],
            "capabilities":{"tools":{}},
            "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"strict-modern","version":"0.0.0"}}}})),
        Some("tools/list") => send(serde_json::json!({"jsonrpc":"2.0","id":id,"result":{
            "resultType":"complete",
            "tools":[{"name":"raw_tool","inputSchema":{"type":"object"}}]}})),
        Some(method) if id.is_some() => {
            eprintln!("fixture: `{method}` is not a 2026-07-28 method; exiting");
            std::process::exit(4);
        }
        _ => {}
    }
}
