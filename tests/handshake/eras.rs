//! Both protocol eras over stdio: `fixture-server` (the official Rust SDK) speaking only
//! the handshake era, only the modern era (2026-07-28), or both; hand-written servers
//! that ignore or die on `server/discover`; slow servers whose probe answer comes late.

use std::process::{Command, Stdio};

use indexmap::IndexMap;
use mcpctl::api::entry::{RemoteKind, Transport};
use mcpctl::api::handshake::{Era, Phase, ProbeError, Status, ToolCall, call, probe};

use crate::fixture::{
    Running, assert_no_survivors, fixture, free_port, generous, root, skip, wait_for_port,
};

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn a_handshake_only_server_gets_initialize_after_the_probe() {
    let dir = tempfile::tempdir().unwrap();
    let result = probe(&fixture(&[], dir.path()), &generous());
    assert_eq!(result.status, Status::Ok, "{result:#?}");
    assert_eq!(result.protocol_era, Some(Era::Handshake));
    assert_eq!(result.protocol_version.as_deref(), Some("2025-11-25"));
    let phases: Vec<Phase> = result.phases.iter().map(|p| p.phase).collect();
    assert_eq!(
        phases,
        [
            Phase::Spawn,
            Phase::Discover,
            Phase::Initialize,
            Phase::Initialized,
            Phase::ToolsList,
            Phase::Shutdown
        ]
    );
    assert_no_survivors(dir.path());
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn a_modern_only_server_is_spoken_to_without_initialize() {
    let dir = tempfile::tempdir().unwrap();
    let result = probe(&fixture(&["modern"], dir.path()), &generous());
    assert_eq!(result.status, Status::Ok, "{result:#?}");
    assert_eq!(result.protocol_era, Some(Era::Modern));
    assert_eq!(result.protocol_version.as_deref(), Some("2026-07-28"));
    assert_eq!(result.server_name.as_deref(), Some("fixture-server"));
    assert_eq!(result.tool_names, ["hello", "pid"]);
    let phases: Vec<Phase> = result.phases.iter().map(|p| p.phase).collect();
    assert_eq!(
        phases,
        [
            Phase::Spawn,
            Phase::Discover,
            Phase::ToolsList,
            Phase::Shutdown
        ]
    );
    assert_no_survivors(dir.path());
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn a_dual_era_server_is_spoken_to_in_the_modern_era() {
    let dir = tempfile::tempdir().unwrap();
    let result = probe(&fixture(&["dual"], dir.path()), &generous());
    assert_eq!(result.status, Status::Ok, "{result:#?}");
    assert_eq!(result.protocol_era, Some(Era::Modern));
    assert_eq!(result.tools, Some(2));
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn a_late_discover_answer_still_proves_the_modern_era() {
    // The server reads nothing for 1.5 s, far past the probe window: `initialize`
    // follows the probe, and the SDK (modern only) answers the probe, refuses
    // `initialize` and quits; mcpctl takes the late answer and starts it once more.
    let dir = tempfile::tempdir().unwrap();
    let result = probe(
        &fixture(&["modern", "slow-start=1500"], dir.path()),
        &generous(),
    );
    assert_eq!(result.status, Status::Ok, "{result:#?}");
    assert_eq!(result.protocol_era, Some(Era::Modern));
    assert_eq!(result.tools, Some(2));
    let spawns = result
        .phases
        .iter()
        .filter(|p| p.phase == Phase::Spawn)
        .count();
    assert_eq!(spawns, 2, "{result:#?}");
    assert_no_survivors(dir.path());

    // A dual-era server answers both; the late probe answer wins.
    let result = probe(
        &fixture(&["dual", "slow-start=1500"], dir.path()),
        &generous(),
    );
    assert_eq!(result.status, Status::Ok, "{result:#?}");
    assert_eq!(result.protocol_era, Some(Era::Modern));
    assert_eq!(result.tools, Some(2));
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn a_server_that_ignores_unknown_methods_falls_back_to_initialize() {
    let dir = tempfile::tempdir().unwrap();
    let result = probe(&fixture(&["ignore-unknown"], dir.path()), &generous());
    assert_eq!(result.status, Status::Ok, "{result:#?}");
    assert_eq!(result.protocol_era, Some(Era::Handshake));
    assert_eq!(result.tool_names, ["raw_tool"]);
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn a_server_that_quits_on_the_probe_is_started_again_for_initialize() {
    let dir = tempfile::tempdir().unwrap();
    let result = probe(&fixture(&["exit-on-unknown"], dir.path()), &generous());
    assert_eq!(result.status, Status::Ok, "{result:#?}");
    assert_eq!(result.protocol_era, Some(Era::Handshake));
    assert_eq!(result.tool_names, ["raw_tool"]);
    let spawns = result
        .phases
        .iter()
        .filter(|p| p.phase == Phase::Spawn)
        .count();
    assert_eq!(spawns, 2, "{result:#?}");
    assert_no_survivors(dir.path());
}

/// Issue 21: the probe sent `ping` after `server/discover`, but 2026-07-28 removed
/// `ping`: a modern server that quits on a method its era lacks answered the probe, then
/// died before `tools/list`. The probe now sends nothing the other era lacks.
#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn a_strict_modern_server_gets_no_method_its_era_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let result = probe(&fixture(&["strict-modern"], dir.path()), &generous());
    assert_eq!(result.status, Status::Ok, "{result:#?}");
    assert_eq!(result.protocol_era, Some(Era::Modern));
    assert_eq!(result.tool_names, ["raw_tool"]);
    let spawns = result
        .phases
        .iter()
        .filter(|p| p.phase == Phase::Spawn)
        .count();
    assert_eq!(spawns, 1, "started once: {result:#?}");
    assert!(
        !result.stderr_tail.iter().any(|l| l.contains("exiting")),
        "{:?}",
        result.stderr_tail
    );
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn a_server_that_dies_at_start_is_not_started_more_than_twice() {
    let dir = tempfile::tempdir().unwrap();
    let result = probe(&fixture(&["exit=3"], dir.path()), &generous());
    assert!(
        matches!(
            result.failure,
            Some(ProbeError::ExitedEarly { code: Some(3), .. })
        ),
        "{result:#?}"
    );
    let spawns = result
        .phases
        .iter()
        .filter(|p| p.phase == Phase::Spawn)
        .count();
    assert!(spawns <= 2, "{result:#?}");
}

fn hello() -> ToolCall {
    ToolCall {
        tool: "hello".into(),
        ..ToolCall::default()
    }
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn call_works_in_both_eras() {
    let dir = tempfile::tempdir().unwrap();
    for modes in [&[][..], &["modern"][..]] {
        let result = call(&fixture(modes, dir.path()), &generous(), &hello());
        assert_eq!(result.status, Status::Ok, "{modes:?}: {result:#?}");
        let answer = result.call_result.expect("a call result");
        assert_eq!(answer["content"][0]["text"], "hello", "{modes:?}");
        assert!(result.phases.iter().any(|p| p.phase == Phase::ToolsCall));
    }
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn call_of_an_unknown_tool_names_the_tools_there_are() {
    let dir = tempfile::tempdir().unwrap();
    let missing = ToolCall {
        tool: "nope".into(),
        ..ToolCall::default()
    };
    let result = call(&fixture(&[], dir.path()), &generous(), &missing);
    assert_eq!(
        result.failure,
        Some(ProbeError::UnknownTool {
            tool: "nope".into(),
            available: vec!["hello".into(), "pid".into()]
        })
    );
    assert_no_survivors(dir.path());
}

/// The official Python SDK (PyPI `mcp` 2.x) serving Streamable HTTP on a free loopback
/// port; fails the test when `.ci/peers.sh` did not install it.
fn python_http() -> (Running, u16) {
    let python = root().join(".cache/peers/venv/bin/python");
    if !python.is_file() {
        skip("the PyPI `mcp` venv is not installed (run .ci/peers.sh)");
    }
    let port = free_port();
    let child = Command::new(python)
        .arg(root().join("tests/fixtures/servers/python_mcp_server.py"))
        .args(["streamable-http", &port.to_string(), "roots"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("start the Python SDK server: {e}"));
    let mut server = Running(child);
    wait_for_port(port, &mut server);
    (server, port)
}

#[test]
#[ignore = "needs .ci/peers.sh"]
fn the_python_sdk_over_streamable_http_is_spoken_to_in_the_modern_era() {
    let (_server, port) = python_http();
    let transport = Transport::Remote {
        url: format!("http://127.0.0.1:{port}/mcp"),
        kind: RemoteKind::Http,
        headers: IndexMap::new(),
    };
    let result = probe(&transport, &generous());
    assert_eq!(result.status, Status::Ok, "{result:#?}");
    assert_eq!(result.protocol_era, Some(Era::Modern));
    assert_eq!(result.protocol_version.as_deref(), Some("2026-07-28"));
    assert_eq!(result.tool_names, ["add", "fail", "roots"]);
    // No session was opened, so none is deleted.
    assert!(!result.phases.iter().any(|p| p.phase == Phase::Shutdown));

    // tools/call carries `Mcp-Name`; the SDK checks it against the body.
    let add = ToolCall {
        tool: "add".into(),
        args: vec![("a".into(), "2".into()), ("b".into(), "3".into())],
        ..ToolCall::default()
    };
    let result = call(&transport, &generous(), &add);
    assert_eq!(result.status, Status::Ok, "{result:#?}");
    let answer = result.call_result.expect("a call result");
    assert_eq!(answer["content"][0]["text"], "5", "{answer}");
    assert_eq!(answer["structuredContent"]["result"], 5, "{answer}");

    // The roots asked for through input_required are answered over HTTP too.
    let roots = ToolCall {
        tool: "roots".into(),
        ..ToolCall::default()
    };
    let result = call(&transport, &generous(), &roots);
    assert_eq!(result.status, Status::Ok, "{result:#?}");
    let answer = result.call_result.expect("a call result");
    assert_eq!(
        answer["content"][0]["text"], "the client shared 0 roots",
        "{answer}"
    );
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn the_rust_sdk_over_streamable_http_in_each_era() {
    for (extra, era) in [
        (&[][..], Era::Handshake),
        (&["modern"][..], Era::Modern),
        (&["dual"][..], Era::Modern),
    ] {
        let (_server, port) = crate::http::fixture_http_with("http", extra);
        let transport =
            crate::http::remote(format!("http://127.0.0.1:{port}/mcp"), RemoteKind::Http);
        let result = probe(&transport, &generous());
        assert_eq!(result.status, Status::Ok, "{extra:?}: {result:#?}");
        assert_eq!(result.protocol_era, Some(era), "{extra:?}: {result:#?}");
        assert_eq!(result.tool_names, ["hello", "pid"], "{extra:?}");
        // Only the handshake era opens (and so deletes) a session.
        let deleted = result.phases.iter().any(|p| p.phase == Phase::Shutdown);
        assert_eq!(deleted, era == Era::Handshake, "{extra:?}: {result:#?}");
        let result = call(&transport, &generous(), &hello());
        let answer = result.call_result.expect("a call result");
        assert_eq!(answer["content"][0]["text"], "hello", "{extra:?}");
    }
}

#[test]
#[ignore = "needs cargo build -p fixture-server"]
fn the_modern_era_declares_roots_and_answers_for_them_like_the_handshake_era() {
    // The fixture shows `roots_seen` only to a client that declares `roots`; in the
    // modern era the declaration is the `_meta` on each request, and calling the tool
    // asks for the roots through an `input_required` result, which mcpctl answers with
    // none, as it answers `roots/list` in the handshake era.
    let (_server, port) = crate::http::fixture_http_with("http", &["modern", "roots-tool"]);
    let http = crate::http::remote(format!("http://127.0.0.1:{port}/mcp"), RemoteKind::Http);
    let dir = tempfile::tempdir().unwrap();
    let roots = ToolCall {
        tool: "roots_seen".into(),
        ..ToolCall::default()
    };
    for (modes, era) in [
        (&["roots-tool"][..], Era::Handshake),
        (&["modern", "roots-tool"][..], Era::Modern),
    ] {
        let stdio = fixture(modes, dir.path());
        let transports = if era == Era::Modern {
            vec![stdio, http.clone()]
        } else {
            vec![stdio]
        };
        for transport in transports {
            let result = probe(&transport, &generous());
            assert_eq!(result.protocol_era, Some(era), "{modes:?}: {result:#?}");
            assert_eq!(
                result.tool_names,
                ["hello", "pid", "roots_seen"],
                "{modes:?}: {result:#?}"
            );
            let result = call(&transport, &generous(), &roots);
            assert_eq!(result.status, Status::Ok, "{modes:?}: {result:#?}");
            let answer = result.call_result.expect("a call result");
            assert_eq!(
                answer["content"][0]["text"], "the client shared 0 roots",
                "{modes:?}: {answer}"
            );
        }
    }
}
