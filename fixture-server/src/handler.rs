//! The fixture's MCP server logic, written against the official SDK: two tools, optional
//! pagination, and the faults a test can ask for. Every transport serves this handler.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use std::borrow::Cow;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, tool, tool_router};

use crate::Modes;

#[derive(Clone)]
pub(crate) struct Fixture {
    tool_router: ToolRouter<Self>,
    paginate: bool,
    repeat_cursor: bool,
    crash_on_tools_list: bool,
    /// Like server-everything: one more tool for a client that declares `roots` and
    /// answers `roots/list`.
    roots_tool: bool,
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

impl Fixture {
    pub(crate) fn new(modes: &Modes) -> Self {
        Self {
            tool_router: Self::tool_router(),
            paginate: modes.has("paginate"),
            repeat_cursor: modes.has("repeat-cursor"),
            crash_on_tools_list: modes.has("crash-on-tools-list"),
            era: if modes.has("modern") {
                Era::Modern
            } else if modes.has("dual") {
                Era::Dual
            } else {
                Era::Handshake
            },
            roots_tool: modes.has("roots-tool"),
        }
    }
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

    #[allow(deprecated, reason = "roots is what server-everything still uses")]
    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
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
            let mut tools = self.tool_router.list_all();
            let declares_roots = context
                .peer
                .peer_info()
                .is_some_and(|info| info.capabilities.roots.is_some());
            if self.roots_tool && declares_roots && context.peer.list_roots().await.is_ok() {
                let schema = serde_json::Map::from_iter([("type".to_owned(), "object".into())]);
                tools.push(Tool::new(
                    "roots_seen",
                    "The client shared its roots",
                    schema,
                ));
            }
            return Ok(ListToolsResult::with_all_items(tools));
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
