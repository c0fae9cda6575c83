//! mcpctl: manage MCP server entries across AI clients, losslessly.
//!
//! Data flow: `clients.toml` → `clients` (table) → `platform` (paths) → `fs` (bytes) →
//! `formats` (document) → `entry` (dialect) → `commands` (verb) → `output` (printing).

pub mod clients;
pub mod entry;
pub mod formats;
pub mod handshake;
pub mod platform;

use std::ffi::OsString;
use std::process::ExitCode;

/// Run mcpctl with these arguments; the only place an error becomes an exit code.
pub fn run<I: IntoIterator<Item = OsString>>(_args: I) -> ExitCode {
    ExitCode::SUCCESS
}
