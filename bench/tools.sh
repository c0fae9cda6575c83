#!/usr/bin/env bash
# `mcpctl tools` on real servers from the registries (installed by .ci/peers.sh):
# server-everything (TypeScript SDK, handshake era) and the official Python SDK server
# (PyPI mcp 2.x, modern era): mean wall time, tool count and token estimate; then
# `mcpctl doctor` over both (plus server-memory), to compare builds with --mcpctl.
#
# Usage: bench/tools.sh [-r RUNS] [--mcpctl PATH]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS=5
MCPCTL=""
while (($#)); do
  case "$1" in
    -r) RUNS="$2"; shift ;;
    --mcpctl) MCPCTL="$2"; shift ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "tools.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
cd "$ROOT"
if [ -z "$MCPCTL" ]; then
  cargo build --profile perf --quiet
  MCPCTL="$ROOT/target/perf/mcpctl"
fi
NPM="$ROOT/.cache/peers/npm/node_modules/@modelcontextprotocol"
PY="$ROOT/.cache/peers/venv/bin/python"
for need in "$NPM/server-everything/dist/index.js" "$NPM/server-memory/dist/index.js" "$PY"; do
  [ -e "$need" ] || { echo "tools.sh: $need missing (run .ci/peers.sh)" >&2; exit 2; }
done

mkdir -p "$ROOT/.cache"
TMP="$(mktemp -d "$ROOT/.cache/bench-tools.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
export HOME="$TMP" USERPROFILE="$TMP" XDG_CONFIG_HOME="$TMP/.config" MCPCTL_STATE_DIR="$TMP/state"
cd "$TMP"
mkdir -p .cursor
cat >.cursor/mcp.json <<EOF
{"mcpServers": {
  "everything": {"command": "node", "args": ["$NPM/server-everything/dist/index.js", "stdio"]},
  "memory": {"command": "node", "args": ["$NPM/server-memory/dist/index.js"],
             "env": {"MEMORY_FILE_PATH": "$TMP/memory.jsonl"}},
  "python": {"command": "$PY", "args": ["$ROOT/tests/fixtures/servers/python_mcp_server.py"]}
}}
EOF

ms() { echo $(( $(date +%s%N) / 1000000 )); }
time_cmd() { # name, command...: mean wall ms over RUNS
  local name="$1"; shift
  "$@" >/dev/null 2>&1 || true # warm-up
  local total=0 start end
  for _ in $(seq "$RUNS"); do
    start=$(ms); "$@" >"$TMP/$name.out" 2>/dev/null || true; end=$(ms)
    total=$((total + end - start))
  done
  echo $((total / RUNS))
}

echo "| command | mean wall ms ($RUNS runs) | result |"
echo "|---|---|---|"
for server in everything python; do
  wall=$(time_cmd "tools-$server" "$MCPCTL" tools "$server" -c cursor --json)
  summary=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(f\"{d['protocol_era']} {d['protocol_version']}, {len(d['tools'])} tools, ≈ {d['tokens']} tokens\")" "$TMP/tools-$server.out" 2>/dev/null || echo "n/a (older build?)")
  echo "| \`mcpctl tools $server --json\` | $wall | $summary |"
done
wall=$(time_cmd doctor "$MCPCTL" doctor -c cursor)
echo "| \`mcpctl doctor -c cursor\` (everything, memory, python) | $wall | $(tail -n 1 "$TMP/doctor.out") |"
