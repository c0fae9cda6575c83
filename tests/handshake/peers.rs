//! Real MCP servers from npm and PyPI (installed by `.ci/peers.sh`), skipped when absent.
