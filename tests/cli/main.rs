//! Integration tests: run the built `mcpctl` binary against a temporary HOME.
