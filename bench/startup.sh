#!/usr/bin/env bash
# Binary size and start-up time of the shipped binary (profile `dist`: fat LTO, one
# codegen unit, stripped) against `perf` (the benchmark profile: `release` with 4 codegen units, as it was): file sizes, then `mcpctl --version`
# and `mcpctl clients` (a temp HOME with three clients' config files) under hyperfine,
# and the instructions each run executes (valgrind, if installed: unlike wall time, the
# same on a busy machine).
#
# usage: bench/startup.sh [--install] [runs]     (default 50 runs; builds what is missing)
#   --install  apt-get install hyperfine if missing
set -euo pipefail
cd "$(dirname "$0")/.."
INSTALL=0
if [ "${1:-}" = --install ]; then INSTALL=1; shift; fi
RUNS=${1:-50}
if ! command -v hyperfine >/dev/null 2>&1 && ((INSTALL)); then
  { apt-get install -y hyperfine || { apt-get update && apt-get install -y hyperfine; }; } >/dev/null 2>&1 ||
    echo "startup.sh: hyperfine install failed" >&2
fi
for profile in perf dist; do
  [ -x "target/$profile/mcpctl" ] || cargo build --quiet --profile "$profile"
done
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

echo "== size"
strip -o "$WORK/perf-stripped" target/perf/mcpctl
for file in target/perf/mcpctl "$WORK/perf-stripped" target/dist/mcpctl; do
  bytes=$(stat -c %s "$file")
  awk -v f="$file" -v b="$bytes" 'BEGIN { printf "%-40s %9d bytes  %5.2f MiB\n", f, b, b / 1048576 }'
done

# A HOME with a few clients, so `clients` has files to find and parse.
export HOME="$WORK/home" XDG_CONFIG_HOME="$WORK/home/.config"
mkdir -p "$HOME/.cursor" "$HOME/.codex" "$XDG_CONFIG_HOME/Code/User"
printf '{\n  "mcpServers": {\n    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] }\n  }\n}\n' >"$HOME/.cursor/mcp.json"
printf 'model = "o3"\n\n[mcp_servers.memory]\ncommand = "npx"\nargs = ["-y", "@modelcontextprotocol/server-memory"]\n' >"$HOME/.codex/config.toml"
printf '{\n  // servers\n  "servers": {}\n}\n' >"$XDG_CONFIG_HOME/Code/User/mcp.json"

echo "== start-up (hyperfine -N, $RUNS runs, 5 warm-ups)"
if command -v hyperfine >/dev/null 2>&1; then
  for args in "--version" "clients"; do
    hyperfine -N --warmup 5 --runs "$RUNS" --style basic \
      -n "perf $args" "target/perf/mcpctl $args" \
      -n "dist $args" "target/dist/mcpctl $args" 2>&1 | grep -E '^(Benchmark|  Time|  Range)'
  done
else
  echo "hyperfine not installed (bench/startup.sh --install)"
fi

if command -v valgrind >/dev/null 2>&1; then
  echo "== instructions per run (valgrind --tool=callgrind)"
  for profile in perf dist; do
    for args in "--version" "clients"; do
      # shellcheck disable=SC2086 # $args is one or two words on purpose
      refs=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "target/$profile/mcpctl" $args 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
      printf '%-8s %-10s %12s instructions\n' "$profile" "$args" "$refs"
    done
  done
fi
