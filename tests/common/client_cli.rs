//! A client's own CLI as `.ci/clients.sh` installs it, and the environment every test
//! runs one in: found (a test fails when it is not; such tests are
//! `#[ignore = "needs .ci/clients.sh"]`), and quiet (no telemetry, update checks or other
//! traffic the test did not ask for).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Variables that keep a client CLI from phoning home or updating itself mid-test.
pub(crate) const QUIET: [(&str, &str); 3] = [
    ("DISABLE_TELEMETRY", "1"),
    ("DISABLE_AUTOUPDATER", "1"),
    ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
];

/// Where `.ci/clients.sh` puts an npm client's bin: one prefix per CLI, named like it.
pub(crate) fn npm_bin(bin: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".cache/clients")
        .join(bin)
        .join("node_modules/.bin")
        .join(bin)
}

/// The client CLI `bin`; fails the test, naming `what`, when it is not installed.
pub(crate) fn installed(bin: &str, what: &str) -> PathBuf {
    let path = npm_bin(bin);
    if !path.exists() {
        crate::peer::missing(&format!(
            "{what}: {} missing (run .ci/clients.sh)",
            path.display()
        ));
    }
    path
}

/// `cmd` with [`QUIET`] set.
pub(crate) fn quiet(cmd: &mut Command) -> &mut Command {
    cmd.envs(QUIET)
}
