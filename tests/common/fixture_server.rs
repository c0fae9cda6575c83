//! The rmcp-based `fixture-server` (shared by the `cli` and `handshake` test crates through
//! `#[path]`), built beforehand by `cargo build -p fixture-server`: `.ci/run` and
//! `.ci/land.sh` build it before `cargo test`. A test never builds it; one that needs it
//! is `#[ignore = "needs cargo build -p fixture-server"]` and fails, saying so, when the
//! binary is missing.

use std::path::{Path, PathBuf};
#[cfg(windows)]
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

/// Path of the built `fixture-server`: beside this test binary's `deps/` folder (the
/// target directory and profile the tests were built for, `CARGO_TARGET_DIR` included),
/// else in the debug folder of `CARGO_TARGET_DIR` or `target/`. Fails the test when it is
/// in none of them.
#[allow(
    clippy::panic,
    reason = "a missing binary fails the test that needs it"
)]
pub(crate) fn fixture_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let name = format!("fixture-server{}", std::env::consts::EXE_SUFFIX);
        let beside_tests = std::env::current_exe()
            .ok()
            .and_then(|exe| Some(exe.parent()?.parent()?.join(&name)));
        let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join("target"),
            PathBuf::from,
        );
        let places: Vec<PathBuf> = beside_tests
            .into_iter()
            .chain([target.join("debug").join(&name)])
            .collect();
        places
            .iter()
            .find(|path| path.is_file())
            // On Windows with `/` (which Windows takes too): tests write the path into
            // JSON and TOML strings with `format!`, where a `\` would be an escape.
            .map(|path| {
                if cfg!(windows) {
                    PathBuf::from(path.to_string_lossy().replace('\\', "/"))
                } else {
                    path.clone()
                }
            })
            .unwrap_or_else(|| {
                panic!(
                    "fixture-server is not built (looked for {}): run `cargo build -p fixture-server` first",
                    places
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
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
