#!/usr/bin/env bash
# Scale: `mcpctl check` and `mcpctl doctor --no-spawn` on one Cursor file with N entries
# (default 10,000 and 100,000), to show both are linear in entries per file. Each entry is
# `npx -y pkg-N` (an unpinned package: one finding per entry, so findings scale too).
# Prints a Markdown table of wall time (best of R runs) and peak RSS of `check`,
# `doctor --no-spawn` and `doctor --no-spawn --json`, each against the issue's limit of
# 100 MiB (issue 26) as a ratio.
#
# usage: bench/scale.sh [path/to/mcpctl] [runs] [sizes...]
#        (defaults: target/perf/mcpctl, 3, 10000 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/perf/mcpctl}
RUNS=${2:-3}
shift $(( $# > 2 ? 2 : $# )) || true
SIZES=("$@")
[[ ${#SIZES[@]} -gt 0 ]] || SIZES=(10000 100000)
[[ -x "$BIN" ]] || { echo "scale.sh: build first: cargo build --profile perf" >&2; exit 2; }
BIN=$(realpath "$BIN")
mkdir -p .cache
# Resolved: with `.cache` a symlink (a worktree's), HOME and the working directory would
# name the file by two paths, and it would be read as a user and a project file.
WORK=$(cd "$(mktemp -d "$PWD/.cache/bench-scale.XXXXXX")" && pwd -P)
trap 'rm -rf "$WORK"' EXIT
export HOME="$WORK/home" MCPCTL_STATE_DIR="$WORK/state" NO_COLOR=1 XDG_CONFIG_HOME="$WORK/home/.config"
mkdir -p "$HOME/.cursor"
cd "$HOME"

best_ms() { # best wall time in ms of RUNS runs of "$@" (exit 0 or 1 accepted)
  local best=""
  for ((r = 0; r < RUNS; r++)); do
    local t0 t1 ms
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || [[ $? -eq 1 ]] || { echo "scale.sh: $* failed" >&2; exit 1; }
    t1=$(date +%s%N)
    ms=$(((t1 - t0) / 1000000))
    [[ -z "$best" || $ms -lt $best ]] && best=$ms
  done
  echo "$best"
}
peak_kib() {
  if [[ -x /usr/bin/time ]]; then /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; else echo n/a; fi
}

LIMIT_MIB=100
echo "| entries | file MB | check ms | check µs/entry | doctor --no-spawn ms | doctor µs/entry | check peak MiB (/ ${LIMIT_MIB} MiB) | doctor peak MiB (/ ${LIMIT_MIB}) | doctor --json peak MiB (/ ${LIMIT_MIB}) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for n in "${SIZES[@]}"; do
  python3 - "$HOME/.cursor/mcp.json" "$n" <<'PY'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
servers = {f"server-{i}": {"command": "npx", "args": ["-y", f"pkg-{i}"], "env": {"LEVEL": str(i % 7)}}
           for i in range(n)}
with open(path, "w") as f:
    json.dump({"mcpServers": servers}, f, indent=2)
PY
  mb=$(python3 -c "import os,sys; print(f'{os.path.getsize(sys.argv[1])/1e6:.1f}')" "$HOME/.cursor/mcp.json")
  check=$(best_ms "$BIN" check -c cursor --user)
  doctor=$(best_ms "$BIN" doctor -c cursor --no-spawn)
  rss_c=$(peak_kib "$BIN" check -c cursor --user)
  rss_d=$(peak_kib "$BIN" doctor -c cursor --no-spawn)
  rss_j=$(peak_kib "$BIN" doctor -c cursor --no-spawn --json)
  # Peak RSS in MiB and its ratio to the limit.
  mib() { [[ "$1" =~ ^[0-9]+$ ]] && python3 -c "print(f'{$1/1024:.0f} ({$1/1024/$LIMIT_MIB:.2f}×)')" || echo n/a; }
  echo "| $n | $mb | $check | $(python3 -c "print(f'{$check*1000/$n:.1f}')") | $doctor | $(python3 -c "print(f'{$doctor*1000/$n:.1f}')") | $(mib "$rss_c") | $(mib "$rss_d") | $(mib "$rss_j") |"
done
