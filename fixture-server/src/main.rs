//! A small MCP server for mcpctl's handshake tests, built on the official Rust SDK (rmcp)
//! so the tests speak to an implementation mcpctl did not write.
//!
//! Modes are argv words (several may be combined): `banner`, `exit=N`, `silent`,
//! `ignore-sigterm`, `crash-on-tools-list`, `odd-version`, `ping-first`, `slow-start=MS`,
//! `modern` (2026-07-28 only: `server/discover`, refuses `initialize`), `dual` (both
//! protocol eras, the SDK's default; without either the fixture speaks only the
//! handshake era), `ignore-unknown` (a hand-written handshake server that never answers
//! methods it does not know, such as `server/discover`), `exit-on-unknown` (one that
//! quits on them),
//! `paginate`, `repeat-cursor`, `spawn-child`, `http-401=PORT`, `http-401-bare=PORT`, `http-403=PORT`. With `FIXTURE_PID_FILE`
//! set, it writes its pid (and its grandchild's) there, one per line, so a test can check
//! that nothing outlived the probe. Only `odd-version`, `ping-first`, `silent` and
//! `http-401` answer by hand: the SDK cannot misbehave in those ways. This is test code: it
//! must never be published or linked into mcpctl.

use std::io::{BufRead, Read, Write};
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use std::borrow::Cow;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt, tool, tool_router};

#[derive(Clone)]
struct Fixture {
    tool_router: ToolRouter<Self>,
    paginate: bool,
    repeat_cursor: bool,
    crash_on_tools_list: bool,
    era: Era,
}

/// Which protocol eras the SDK server speaks.
#[derive(Clone, Copy)]
enum Era {
    /// `initialize` only; `server/discover` gets -32022 naming the handshake versions.
    Handshake,
    /// 2026-07-28 only; `initialize` gets -32022 naming it.
    Modern,
    /// Both, decided per connection by the first request (the SDK's default).
    Dual,
}

#[tool_router]
impl Fixture {
    #[tool(description = "Say hello")]
    async fn hello(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text("hello")]))
    }

    #[tool(description = "Report the fixture's pid")]
    async fn pid(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text(
            std::process::id().to_string(),
        )]))
    }
}

const PAGE_SIZE: usize = 10;
const PAGED_TOOLS: usize = 95;

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("fixture-server", "0.0.0"))
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        match self.era {
            Era::Handshake => {
                Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
            }
            Era::Modern => Cow::Owned(vec![ProtocolVersion::V_2026_07_28]),
            Era::Dual => Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS),
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        if self.crash_on_tools_list {
            eprintln!("fixture: crashing on tools/list as asked");
            std::process::exit(3);
        }
        if self.repeat_cursor {
            let mut page = ListToolsResult::with_all_items(self.tool_router.list_all());
            page.next_cursor = Some("same-cursor".to_owned());
            return Ok(page);
        }
        if !self.paginate {
            return Ok(ListToolsResult::with_all_items(self.tool_router.list_all()));
        }
        let start: usize = request
            .and_then(|r| r.cursor)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let end = (start + PAGE_SIZE).min(PAGED_TOOLS);
        let schema = serde_json::Map::from_iter([("type".to_owned(), "object".into())]);
        let tools = (start..end)
            .map(|i| Tool::new(format!("tool_{i:03}"), "paged tool", schema.clone()))
            .collect();
        let mut page = ListToolsResult::with_all_items(tools);
        page.next_cursor = (end < PAGED_TOOLS).then(|| end.to_string());
        Ok(page)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.tool_router
            .call(ToolCallContext::new(self, request, context))
            .await
    }
}

fn main() {
    let modes: Vec<String> = std::env::args().skip(1).collect();
    let has = |mode: &str| modes.iter().any(|m| m == mode);
    let value = |prefix: &str| modes.iter().find_map(|m| m.strip_prefix(prefix));

    let mut pids = vec![std::process::id()];
    if has("spawn-child") {
        // Deliberately leaked: only a process-group kill can end it.
        let child = std::process::Command::new("sleep")
            .arg("1000")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("spawn sleep");
        pids.push(child.id());
    }
    if let Some(path) = std::env::var_os("FIXTURE_PID_FILE") {
        let text: String = pids.iter().map(|p| format!("{p}\n")).collect();
        std::fs::write(path, text).expect("write pid file");
    }
    if has("ignore-sigterm") {
        // SAFETY: setting a signal disposition to SIG_IGN has no handler to race with.
        unsafe {
            libc::signal(libc::SIGTERM, libc::SIG_IGN);
        }
    }
    eprintln!("fixture: starting with modes {modes:?}");
    if let Some(ms) = value("slow-start=") {
        std::thread::sleep(Duration::from_millis(ms.parse().expect("slow-start=MS")));
    }
    if let Some(code) = value("exit=") {
        eprintln!("fixture: \x1b[31mfatal\x1b[0m: exiting with code {code} as asked");
        std::process::exit(code.parse().expect("exit=N"));
    }
    if has("banner") {
        println!("fixture-server v0.0.0 starting (this banner breaks the protocol)");
    }
    if let Some(port) = value("http-401=") {
        serve_401(port, true);
    } else if let Some(port) = value("http-401-bare=") {
        serve_401(port, false);
    } else if let Some(port) = value("http-403=") {
        serve_403(port);
    } else if has("silent") {
        // Read and never answer; exit at end of input.
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
    } else if has("odd-version")
        || has("ping-first")
        || has("ignore-unknown")
        || has("exit-on-unknown")
    {
        serve_raw(
            has("odd-version"),
            has("ping-first"),
            has("exit-on-unknown"),
        );
    } else {
        let era = if has("modern") {
            Era::Modern
        } else if has("dual") {
            Era::Dual
        } else {
            Era::Handshake
        };
        serve_sdk(Fixture {
            tool_router: Fixture::tool_router(),
            paginate: has("paginate"),
            repeat_cursor: has("repeat-cursor"),
            crash_on_tools_list: has("crash-on-tools-list"),
            era,
        });
    }
    if has("ignore-sigterm") {
        // A stubborn server: outlives its input and SIGTERM; only SIGKILL ends it.
        loop {
            std::thread::sleep(Duration::from_secs(1000));
        }
    }
}

fn serve_sdk(fixture: Fixture) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(async {
        match fixture.serve(rmcp::transport::stdio()).await {
            Ok(service) => {
                let _ = service.waiting().await;
            }
            // A modern-only server refusing `initialize` ends here, as the SDK decides.
            Err(error) => {
                eprintln!("fixture: the SDK ended the connection: {error}");
                std::process::exit(1);
            }
        }
    });
}

/// Hand-written replies for misbehaviour the SDK will not produce: a protocol version
/// the spec never had, a server `ping` (plus a notification and an unknown request)
/// sent before the `initialize` reply, silence or exit on methods it does not know.
fn serve_raw(odd_version: bool, ping_first: bool, exit_on_unknown: bool) {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let mut send = |value: serde_json::Value| {
        let _ = writeln!(out, "{value}");
        let _ = out.flush();
    };
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        let id = message.get("id").cloned();
        match message.get("method").and_then(|m| m.as_str()) {
            Some("initialize") => {
                let version = if odd_version {
                    "1999-01-01".to_owned()
                } else if !ping_first {
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
                    "serverInfo":{"name":"raw-fixture","version":"0.0.0"}}}));
            }
            Some("tools/list") => {
                send(
                    serde_json::json!({"jsonrpc":"2.0","id":id,"result":{"tools":[
                    {"name":"raw_tool","inputSchema":{"type":"object"}}]}}),
                );
            }
            Some("ping") => send(serde_json::json!({"jsonrpc":"2.0","id":id,"result":{}})),
            Some(method) if exit_on_unknown && id.is_some() => {
                eprintln!("fixture: unknown request `{method}`; exiting as asked");
                std::process::exit(4);
            }
            Some(_) => {}
            None => eprintln!("fixture: client answered {line}"),
        }
    }
}

/// An HTTP endpoint that always answers 401 with an RFC 9728 `WWW-Authenticate` header,
/// like a remote server that needs an OAuth login.
/// Answer every request with 403 (a token without the scope the server needs).
fn serve_403(port: &str) {
    let listener = std::net::TcpListener::bind(format!("127.0.0.1:{port}")).expect("bind");
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        let mut buffer = [0u8; 4096];
        let _ = stream.read(&mut buffer);
        let body = r#"{"error":"insufficient_scope"}"#;
        let _ = write!(
            stream,
            "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        );
    }
}

/// Answer every request with 401. `named`: the challenge names its resource metadata;
/// otherwise only `/.well-known/oauth-protected-resource/mcp` serves it (RFC 9728
/// discovery, which a client must fall back to).
fn serve_401(port: &str, named: bool) {
    let listener = std::net::TcpListener::bind(format!("127.0.0.1:{port}")).expect("bind");
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        let mut request = Vec::new();
        let mut buffer = [0u8; 4096];
        while !request.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => request.extend_from_slice(&buffer[..n]),
            }
        }
        let head = String::from_utf8_lossy(&request);
        if !named && head.starts_with("GET /.well-known/oauth-protected-resource/mcp ") {
            let body = format!(
                r#"{{"resource":"http://127.0.0.1:{port}/mcp","authorization_servers":["https://auth.example"]}}"#
            );
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{body}",
                body.len()
            );
            continue;
        }
        let body = r#"{"error":"invalid_token"}"#;
        if !named {
            let _ = write!(
                stream,
                "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm=\"mcp\"\r\n\
                 Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            continue;
        }
        let _ = write!(
            stream,
            "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer error=\"invalid_token\", \
             resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp\", \
             scope=\"tools:read\"\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        );
    }
}
