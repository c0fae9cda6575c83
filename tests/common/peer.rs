//! What a test does when a peer it needs (a client CLI from npm, a server from npm or
//! PyPI, a Secret Service, tmux, ansible) is missing: it fails, naming what to install.
//! Such a test is `#[ignore = "needs .ci/SCRIPT"]`, so a plain `cargo test` reports it as
//! ignored; `.ci/run` installs the peers and runs `cargo test -- --include-ignored`.
//! Shared by the test crates through `#[path]`.

/// Fail the running test: `what` is missing.
#[allow(clippy::panic, reason = "failing the test is the point")]
pub(crate) fn missing(what: &str) -> ! {
    panic!("{what}: this test needs it (see its #[ignore] reason and docs/development.md)");
}
