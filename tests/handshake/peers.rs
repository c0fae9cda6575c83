//! Real MCP servers from npm and PyPI, installed into `.cache/peers/` by `.ci/peers.sh`.
//! The tests are `#[ignore = "needs .ci/peers.sh"]`; run, they fail when their server is
//! missing (`common/peer.rs`).

use std::path::PathBuf;

use indexmap::IndexMap;
use mcpctl::api::entry::Transport;
use mcpctl::api::handshake::{Era, Status, probe};

use crate::fixture::{generous, root, skip};

fn peers() -> PathBuf {
    root().join(".cache/peers")
}

/// `node <prefix>/node_modules/@modelcontextprotocol/<package>/dist/index.js`; fails the
/// test when it is not installed.
pub(crate) fn node_server(package: &str, args: &[&str]) -> Transport {
    let script = peers().join(format!(
        "npm/node_modules/@modelcontextprotocol/{package}/dist/index.js"
    ));
    if !script.is_file() {
        skip(&format!("{package} is not installed (run .ci/peers.sh)"));
    }
    let mut all = vec![script.display().to_string()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    Transport::Stdio {
        command: "node".into(),
        args: all,
        env: IndexMap::new(),
        cwd: None,
    }
}

#[test]
#[ignore = "needs .ci/peers.sh"]
fn server_everything_over_stdio() {
    let transport = node_server("server-everything", &["stdio"]);
    let result = probe(&transport, &generous());
    assert_eq!(result.status, Status::Ok, "{result:#?}");
    assert!(result.tools.is_some_and(|n| n >= 10), "{result:#?}");
    assert!(result.tool_names.iter().any(|t| t == "echo"));
    // The TypeScript SDK (1.x) speaks only the handshake era.
    assert_eq!(result.protocol_era, Some(Era::Handshake), "{result:#?}");
}

#[test]
#[ignore = "needs .ci/peers.sh"]
fn server_memory_over_stdio() {
    let transport = node_server("server-memory", &[]);
    let dir = tempfile::tempdir().unwrap();
    let Transport::Stdio {
        command,
        args,
        mut env,
        ..
    } = transport
    else {
        unreachable!()
    };
    // Keep its knowledge graph out of the package directory.
    env.insert(
        "MEMORY_FILE_PATH".into(),
        dir.path().join("memory.jsonl").display().to_string(),
    );
    let transport = Transport::Stdio {
        command,
        args,
        env,
        cwd: None,
    };
    let result = probe(&transport, &generous());
    assert_eq!(result.status, Status::Ok, "{result:#?}");
    assert!(result.tool_names.iter().any(|t| t == "create_entities"));
}

#[test]
#[ignore = "needs .ci/peers.sh"]
fn python_sdk_server_over_stdio() {
    let python = peers().join("venv/bin/python");
    if !python.is_file() {
        skip("the PyPI `mcp` venv is not installed (run .ci/peers.sh)");
    }
    let transport = Transport::Stdio {
        command: python.display().to_string(),
        args: vec![
            root()
                .join("tests/fixtures/servers/python_mcp_server.py")
                .display()
                .to_string(),
            "roots".to_owned(),
        ],
        env: IndexMap::new(),
        cwd: None,
    };
    let result = probe(&transport, &generous());
    assert_eq!(result.status, Status::Ok, "{result:#?}");
    assert_eq!(result.server_name.as_deref(), Some("python-fixture"));
    assert_eq!(result.tool_names, ["add", "fail", "roots"]);
    // mcp 2.x serves both eras and decides from the first request: the probe.
    assert_eq!(result.protocol_era, Some(Era::Modern), "{result:#?}");
    assert_eq!(result.protocol_version.as_deref(), Some("2026-07-28"));
    // Its `roots` tool asks for the roots with an input_required result; mcpctl answers
    // with none, as a client with no roots to share.
    let roots = mcpctl::api::handshake::ToolCall {
        tool: "roots".into(),
        ..Default::default()
    };
    let result = mcpctl::api::handshake::call(&transport, &generous(), &roots);
    assert_eq!(result.status, Status::Ok, "{result:#?}");
    let answer = result.call_result.expect("a call result");
    assert_eq!(
        answer["content"][0]["text"], "the client shared 0 roots",
        "{answer}"
    );
}
