//! Integration tests for the MCP test handshake (`mcpctl::handshake`), against real
//! servers: `fixture-server` (the official Rust SDK, built on demand) in each of its
//! misbehaving modes, and, when `.ci/peers.sh` has installed them, servers from npm and
//! PyPI. Tests never assert wall-clock times and never fail because a peer is absent.

mod eras;
mod fixture;
mod http;
mod peers;
mod stdio;
