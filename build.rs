//! Turns `clients.toml`, the client table edited by hand, into JSON in `OUT_DIR`, which
//! `ClientTable::builtin` reads at start-up: serde_json reads it in a fraction of the time
//! the TOML parser takes, and every command starts by loading the table (BENCHMARKS.md,
//! "Earlier figures that still matter"). A table that is not TOML fails the build; the
//! table's own checks run in the tests (`clients::tests`), not at every start.

use std::error::Error;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo::rerun-if-changed=clients.toml");
    let root =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").ok_or("CARGO_MANIFEST_DIR unset")?);
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR unset")?);
    let text = std::fs::read_to_string(root.join("clients.toml"))?;
    let table: serde_json::Value =
        toml::from_str(&text).map_err(|e| format!("clients.toml: {e}"))?;
    #[expect(
        clippy::disallowed_methods,
        reason = "a build output in OUT_DIR, not a client file"
    )]
    std::fs::write(out.join("clients.json"), serde_json::to_string(&table)?)?;
    Ok(())
}
