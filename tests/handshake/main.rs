//! Integration tests for the MCP test handshake (`mcpctl::handshake`), against real
//! servers: `fixture-server` (the official Rust SDK) over every transport and in
//! each of its misbehaving modes, and servers from npm and PyPI installed by
//! `.ci/peers.sh`. Tests never assert wall-clock times; a missing peer fails under
//! `CI=true` and is a counted skip elsewhere.

mod eras;
mod fixture;
mod http;
mod peers;
mod stdio;
