//! Shared helpers: finding and launching `fixture-server`, probe options, and checking
//! that no process outlived a probe.
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers fail the test by panicking"
)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use indexmap::IndexMap;
use mcpctl::api::entry::Transport;
use mcpctl::api::handshake::ProbeOptions;

/// The repository root.
pub(crate) fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[path = "../common/fixture_server.rs"]
mod fixture_server;
pub(crate) use fixture_server::{alive, fixture_binary};

/// Probe options with this test process's environment as the parent snapshot.
pub(crate) fn options(timeout: Duration) -> ProbeOptions {
    ProbeOptions {
        timeout,
        timeout_set_by: mcpctl::api::handshake::TimeoutSource::Option,
        parent_env: std::env::vars().collect(),
        capabilities: None,
        opening: mcpctl::api::handshake::Opening::Discover,
    }
}

pub(crate) fn generous() -> ProbeOptions {
    options(Duration::from_secs(60))
}

/// A fixture entry in `modes`, writing its pids to a file in `dir`.
pub(crate) fn fixture(modes: &[&str], dir: &Path) -> Transport {
    let mut env = IndexMap::new();
    env.insert(
        "FIXTURE_PID_FILE".to_owned(),
        pid_file(dir).display().to_string(),
    );
    Transport::Stdio {
        command: fixture_binary().display().to_string(),
        args: modes.iter().map(|m| (*m).to_owned()).collect(),
        env,
        cwd: None,
    }
}

pub(crate) fn pid_file(dir: &Path) -> PathBuf {
    dir.join("pids")
}

/// Assert that every pid the fixture wrote is gone (a zombie awaiting reaping by init
/// counts as gone: it cannot run or hold resources).
pub(crate) fn assert_no_survivors(dir: &Path) {
    let text = std::fs::read_to_string(pid_file(dir)).expect("fixture wrote no pid file");
    let pids: Vec<i32> = text.lines().map(|l| l.parse().unwrap()).collect();
    assert!(!pids.is_empty());
    for pid in pids {
        assert!(!alive(pid), "process {pid} survived the probe");
    }
}

#[path = "../common/peer.rs"]
mod peer;
/// A peer is missing: fails the test (see `common/peer.rs`).
pub(crate) use peer::missing as skip;

/// A server process killed when the test ends.
pub(crate) struct Running(pub(crate) std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub(crate) fn wait_for_port(port: u16, server: &mut Running) {
    let until = std::time::Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            server.0.try_wait().unwrap().is_none(),
            "server exited before listening"
        );
        assert!(
            std::time::Instant::now() < until,
            "server never listened on {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `transport` prepared for this machine (it must be runnable here).
pub(crate) fn launch(transport: &Transport) -> mcpctl::api::handshake::Launch {
    let env = generous().parent_env;
    let cwd = std::env::current_dir().unwrap();
    let host = mcpctl::api::handshake::Host {
        target_os: mcpctl::api::platform::Os::host(),
        host_os: mcpctl::api::platform::Os::host(),
        env: &env,
        cwd: &cwd,
        wrap_windows: false,
    };
    mcpctl::api::handshake::prepare(transport, &host)
        .launch
        .unwrap()
}

/// The probe's failure as the user reads it ("" when it did not fail).
pub(crate) fn failure_message(probe: &mcpctl::api::handshake::Probe) -> String {
    probe
        .failure
        .as_ref()
        .map(ToString::to_string)
        .unwrap_or_default()
}
