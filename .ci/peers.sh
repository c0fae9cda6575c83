#!/bin/sh
# Install real MCP servers from the registries into .cache/peers/ (gitignored) so the
# handshake tests can speak to independent implementations. Safe to re-run; the tests
# that need them are `#[ignore = "needs .ci/peers.sh"]` and fail, when run, without them.
#   npm:  @modelcontextprotocol/server-everything, @modelcontextprotocol/server-memory,
#         @modelcontextprotocol/sdk 1.32.2 (its examples/server/simpleStreamableHttp.js
#         --oauth is the OAuth server tests/cli/login.rs signs in to; pinned because the
#         login tests were verified against this release's demo provider),
#         oidc-provider 9.13.3 (a real authorization server with Client ID Metadata
#         Documents and the device flow, for tests/fixtures/servers/oidc_mcp.mjs; pinned:
#         its CIMD support is a draft-02 feature that may change between releases)
#   PyPI: mcp 2.3.0 (into a venv), used by tests/fixtures/servers/python_mcp_server.py;
#         pinned because 2.x serves both protocol eras (2026-07-28 and the handshake era)
#         and the era tests were verified against this release
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
peers="$root/.cache/peers"
mkdir -p "$peers/npm"

if command -v npm >/dev/null 2>&1; then
    npm install --no-audit --no-fund --prefix "$peers/npm" \
        @modelcontextprotocol/server-everything @modelcontextprotocol/server-memory \
        @modelcontextprotocol/sdk@1.32.2 oidc-provider@9.13.3
else
    echo "peers: npm not found; tests of the node servers will fail" >&2
fi

if command -v python3 >/dev/null 2>&1; then
    [ -x "$peers/venv/bin/python" ] || python3 -m venv "$peers/venv"
    "$peers/venv/bin/python" -m pip install --quiet "mcp==2.3.0"
else
    echo "peers: python3 not found; tests of the python servers will fail" >&2
fi
