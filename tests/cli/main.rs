//! Integration tests for the `mcpctl` binary (placeholder so `cargo test` runs at the
//! repository root until the command branches add their modules here).
