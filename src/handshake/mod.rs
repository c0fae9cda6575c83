//! The MCP test handshake used by `doctor` (placeholder).
