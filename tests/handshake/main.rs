//! Integration tests for the MCP test handshake (`mcpctl::handshake`), against real
//! servers: `fixture-server` (the official Rust SDK) over every transport and in
//! each of its misbehaving modes, and servers from npm and PyPI installed by
//! `.ci/peers.sh`. Tests never assert wall-clock times. Tests that need the built
//! `fixture-server` or a peer are `#[ignore]`d with the step that provides it; run, they
//! fail when it is missing (`cargo test -- --include-ignored` in CI).

mod eras;
mod fixture;
mod http;
mod peers;
mod stdio;
