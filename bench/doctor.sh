#!/usr/bin/env bash
# doctor over N slow-starting servers: mcpctl probes them in parallel, so the whole run
# should take about the slowest server's time, not the sum. Compared, in the same run,
# with `mcpctl doctor --jobs 1` (the sum) and `claude mcp list` (Claude Code's own
# health check) over the same ~/.claude.json.
#
# Usage: bench/doctor.sh [-n SERVERS] [-r RUNS] [-m MODE] [--fast] [--mcpctl PATH]
#   -m MODE        one more fixture-server mode word per server (e.g. `ignore-unknown`:
#                  a handshake-era server that never answers `server/discover`)
#   --fast         no slow start: every server answers at once (the probe window's
#                  worst case, with -m ignore-unknown)
#   --mcpctl PATH  time another build (e.g. one from before a change) on the same servers
#   --no-claude    skip `claude mcp list`
# Needs: target/perf/mcpctl and the fixture server (both built here if missing);
# claude from .cache/clients (run .ci/clients.sh) — skipped when absent.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N=8
RUNS=3
MODE=""
FAST=0
MCPCTL=""
NO_CLAUDE=0
while (($#)); do
  case "$1" in
    -n) N="$2"; shift ;;
    -r) RUNS="$2"; shift ;;
    -m) MODE="$2"; shift ;;
    --fast) FAST=1 ;;
    --no-claude) NO_CLAUDE=1 ;;
    --mcpctl) MCPCTL="$2"; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "doctor.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
cd "$ROOT"
cargo build --profile perf --quiet
cargo build --profile perf --quiet -p fixture-server
MCPCTL="${MCPCTL:-$ROOT/target/perf/mcpctl}"
FIXTURE="$ROOT/target/perf/fixture-server"
CLAUDE="$ROOT/.cache/clients/claude/node_modules/.bin/claude"

mkdir -p "$ROOT/.cache"
TMP="$(mktemp -d "$ROOT/.cache/bench-doctor.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
export HOME="$TMP" USERPROFILE="$TMP" XDG_CONFIG_HOME="$TMP/.config" MCPCTL_STATE_DIR="$TMP/state"
export DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
unset CLAUDE_CONFIG_DIR ANTHROPIC_API_KEY
cd "$TMP"

# Servers start in 1.0 s .. 3.0 s, spread evenly; the slowest is 3.0 s (--fast: at once).
python3 - "$N" "$FIXTURE" "$MODE" "$FAST" >"$TMP/.claude.json" <<'PY'
import json, sys
n, fixture, mode, fast = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] == "1"
servers = {}
for i in range(n):
    ms = 0 if fast else 1000 + (2000 * i) // max(n - 1, 1)
    args = [f"slow-start={ms}"] + ([mode] if mode else [])
    # Distinct env per server, so doctor does not share one probe among identical entries.
    servers[f"slow{i}"] = {"type": "stdio", "command": fixture, "args": args, "env": {"BENCH_SERVER": str(i)}}
print(json.dumps({"numStartups": 1, "hasCompletedOnboarding": True, "mcpServers": servers}, indent=2))
PY

ms() { echo $(( $(date +%s%N) / 1000000 )); }
time_cmd() { # name, command...: mean wall ms over RUNS
  local name="$1"; shift
  "$@" >/dev/null 2>&1 || true # warm-up
  local total=0 start end
  for _ in $(seq "$RUNS"); do
    start=$(ms); "$@" >"$TMP/$name.out" 2>&1 || true; end=$(ms)
    total=$((total + end - start))
  done
  echo $((total / RUNS))
}

echo "| command | servers | mean wall ms ($RUNS runs) |"
echo "|---|---|---|"
echo "| \`mcpctl doctor -c claude-code\` (parallel, --jobs 8) | $N | $(time_cmd par "$MCPCTL" doctor -c claude-code --jobs 8) |"
echo "| \`mcpctl doctor -c claude-code --jobs 1\` (sequential) | $N | $(time_cmd seq "$MCPCTL" doctor -c claude-code --jobs 1) |"
if [ "$NO_CLAUDE" = 1 ]; then
  :
elif [ -x "$CLAUDE" ]; then
  echo "| \`claude mcp list\` | $N | $(time_cmd claude "$CLAUDE" mcp list) |"
else
  echo "| \`claude mcp list\` | $N | skipped (run .ci/clients.sh) |"
fi
echo
[ "$FAST" = 1 ] || echo "slowest server: 3000 ms; sum of start times: $(python3 -c "n=$N; print(sum(1000 + (2000*i)//max(n-1,1) for i in range(n)))") ms"
tail -n 1 "$TMP/par.out" | sed 's/^/mcpctl doctor says: /'
