//! What a test does when a peer it needs (a client CLI from npm, a server from npm or
//! PyPI, installed by `.ci/peers.sh` / `.ci/clients.sh`) is missing: under `CI=true` it
//! fails; elsewhere it says so in a line `.ci/run` counts into its closing `K skipped`.
//! Shared by the test crates through `#[path]`.

use std::io::Write;

/// The marker `.ci/run` counts; keep the two in step.
pub(crate) const SKIP_MARKER: &str = "mcpctl-test-skipped:";

/// Report that `what` is missing. Panics under `CI=true`; otherwise writes one line to
/// the real stderr (not the captured test output, so it shows in every run) and returns,
/// and the caller returns early.
#[allow(clippy::panic, reason = "failing the test is the point under CI")]
pub(crate) fn missing(what: &str) {
    let test = std::thread::current()
        .name()
        .unwrap_or("unnamed test")
        .to_owned();
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{test}: {what}; CI=true needs every peer (run .ci/peers.sh and .ci/clients.sh)");
    }
    let _ = writeln!(std::io::stderr(), "{SKIP_MARKER} {test}: {what}");
}
