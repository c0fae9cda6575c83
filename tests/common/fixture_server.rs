//! Builds the rmcp-based `fixture-server` once per test binary (shared by the `cli` and
//! `handshake` test crates through `#[path]`). `.ci/run` builds it in a step of its own
//! first; under a bare `cargo test` the first build takes about a minute, and the test
//! binary says so once rather than seeming to hang.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

/// Path of the `fixture-server` binary, built once per test run with the same cargo.
pub(crate) fn fixture_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        // The real stderr, not the captured test output: shown once per test binary.
        let _ = writeln!(
            std::io::stderr(),
            "note: building fixture-server for the handshake tests (cargo build -p fixture-server; a minute the first time)"
        );
        let output = Command::new(cargo)
            .args([
                "build",
                "--quiet",
                "-p",
                "fixture-server",
                "--message-format=json",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("run cargo build -p fixture-server");
        assert!(
            output.status.success(),
            "building fixture-server failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .find_map(|message| {
                let executable = message.get("executable")?.as_str()?;
                (message["target"]["name"] == "fixture-server").then(|| PathBuf::from(executable))
            })
            .expect("cargo reported no fixture-server executable")
    })
}

/// Whether `pid` still runs (a zombie awaiting reaping by init counts as gone).
#[cfg(unix)]
#[allow(dead_code, reason = "not every test crate asks")]
pub(crate) fn alive(pid: i32) -> bool {
    // Zombies may linger briefly until init reaps them.
    for _ in 0..50 {
        // SAFETY: signal 0 only checks existence.
        let exists = unsafe { libc::kill(pid, 0) } == 0;
        if !exists {
            return false;
        }
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let zombie = state
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
        if zombie {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// Whether `pid` still runs. Terminating a Job Object is asynchronous: a process gets a
/// second to disappear from `tasklist`.
#[cfg(windows)]
#[allow(dead_code, reason = "not every test crate asks")]
pub(crate) fn alive(pid: i32) -> bool {
    for _ in 0..50 {
        let listed = Command::new("tasklist")
            .args(["/FI", &format!("PID eq {pid}"), "/NH", "/FO", "CSV"])
            .output()
            .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains(&format!("\"{pid}\"")));
        if !listed {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}
