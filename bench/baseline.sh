#!/usr/bin/env bash
# Baseline: time one "add + remove" pair of an MCP stdio server entry, per tool,
# against a throw-away HOME. Prints a Markdown table of mean ms per pair.
#
# Usage: bench/baseline.sh [--install] [-n N] [--home-parent DIR]
#   --install  apt-get install hyperfine if missing (also done when CI=true)
#   -n N       iterations per tool (default 10)
#   --home-parent DIR  where the throw-away HOME goes (default .cache/; e.g. /dev/shm
#              to take disk fsync latency out of the comparison)
# Clients come from .cache/clients/<bin>/node_modules/.bin/<bin> (run .ci/clients.sh first:
# one prefix per CLI).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
client() { echo "$ROOT/.cache/clients/$1/node_modules/.bin/$1"; }
MCPCTL="$ROOT/target/perf/mcpctl"
N=10
INSTALL=0
HOME_PARENT="$ROOT/.cache"
[[ "${CI:-}" == "true" ]] && INSTALL=1
while (($#)); do
  case "$1" in
    --install) INSTALL=1 ;;
    -n) N="$2"; shift ;;
    --home-parent) HOME_PARENT="$2"; shift ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "baseline.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

if ! command -v hyperfine >/dev/null 2>&1 && ((INSTALL)); then
  echo "baseline.sh: installing hyperfine (Debian package)" >&2
  { apt-get install -y hyperfine || { apt-get update && apt-get install -y hyperfine; }; } \
    >/dev/null 2>&1 || echo "baseline.sh: hyperfine install failed; using bash loop" >&2
fi
HAVE_HYPERFINE=0
command -v hyperfine >/dev/null 2>&1 && HAVE_HYPERFINE=1

# Throw-away HOME outside /tmp (codex refuses to create its helper links under /tmp
# and warns on every call). Removed on exit.
mkdir -p "$HOME_PARENT"
BENCH_TMP="$(mktemp -d "$HOME_PARENT/bench-home.XXXXXX")"
trap 'rm -rf "$BENCH_TMP"' EXIT
export HOME="$BENCH_TMP" USERPROFILE="$BENCH_TMP" XDG_CONFIG_HOME="$BENCH_TMP/.config"
export CODEX_HOME="$BENCH_TMP/.codex" CLAUDE_CONFIG_DIR="$BENCH_TMP/.claude-cfg"
export GEMINI_CLI_HOME="$BENCH_TMP"
mkdir -p "$CODEX_HOME" "$CLAUDE_CONFIG_DIR" "$XDG_CONFIG_HOME"
unset ANTHROPIC_API_KEY OPENAI_API_KEY GEMINI_API_KEY
# claude: no telemetry / update checks (there is no network anyway).
export DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
cd "$BENCH_TMP"
# A small, realistic Codex config that every tool edits (codex and mcpctl read it).
cat >"$CODEX_HOME/config.toml" <<'TOML'
model = "gpt-5-codex"
approval_policy = "on-request"

[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]

[mcp_servers.context7.env]
CONTEXT7_API_KEY = "ctx7-key"

[profiles.fast]
model = "gpt-5-mini"
TOML

ROWS=()

# run_pair NAME "ADD CMD" "REMOVE CMD": measures mean wall ms of one add+remove.
# The pair is written to a small script so hyperfine and the bash loop run the same thing.
run_pair() {
  local name="$1" pair="$BENCH_TMP/$1.pair.sh" mean
  printf '#!/usr/bin/env bash\nset -e\n%s\n%s\n' "$2" "$3" >"$pair"
  # Warm-up (first run creates config files, fills OS caches); also checks the pair works.
  if ! bash "$pair" >"$BENCH_TMP/$name.warmup.log" 2>&1; then
    echo "baseline.sh: $name add/remove failed:" >&2
    cat "$BENCH_TMP/$name.warmup.log" >&2
    ROWS+=("| $name | failed | - |"); return 0
  fi
  if ((HAVE_HYPERFINE)); then
    if ! hyperfine -N --runs "$N" --warmup 1 --style none --output null \
        --export-json "$BENCH_TMP/$name.json" "bash $pair" >/dev/null 2>&1; then
      ROWS+=("| $name | failed (hyperfine) | - |"); return 0
    fi
    mean="$(node -e 'const r=require(process.argv[1]).results[0];
      process.stdout.write((r.mean*1000).toFixed(0)+" ± "+(r.stddev*1000).toFixed(0))' "$BENCH_TMP/$name.json")"
    ROWS+=("| $name | $mean | hyperfine, $N runs |")
  else
    local i t0 t1 total=0
    for ((i = 0; i < N; i++)); do
      t0=$(date +%s%N)
      bash "$pair" >/dev/null 2>&1 || { ROWS+=("| $name | failed (run $i) | - |"); return 0; }
      t1=$(date +%s%N)
      total=$((total + t1 - t0))
    done
    mean=$((total / N / 1000000))
    ROWS+=("| $name | $mean | bash loop, $N runs |")
  fi
}

bench_codex() {
  [[ -x "$(client codex)" ]] || { ROWS+=("| codex | skipped (not installed) | - |"); return 0; }
  run_pair codex \
    "\"$(client codex)\" mcp add x -- npx -y pkg </dev/null" \
    "\"$(client codex)\" mcp remove x </dev/null"
}

bench_claude() {
  [[ -x "$(client claude)" ]] || { ROWS+=("| claude | skipped (not installed) | - |"); return 0; }
  run_pair claude \
    "\"$(client claude)\" mcp add -s user x -- npx -y pkg </dev/null" \
    "\"$(client claude)\" mcp remove -s user x </dev/null"
}

# mcpctl on the same small Codex config (CODEX_HOME above), backups inside BENCH_TMP.
bench_mcpctl() {
  [[ -x "$MCPCTL" ]] || { ROWS+=("| mcpctl | skipped (no target/perf/mcpctl) | - |"); return 0; }
  export MCPCTL_STATE_DIR="$BENCH_TMP/mcpctl-state"
  run_pair mcpctl \
    "\"$MCPCTL\" add x -c codex -- npx -y pkg </dev/null" \
    "\"$MCPCTL\" remove x -c codex </dev/null"
}

bench_codex
bench_claude
bench_mcpctl

echo "| tool | mean ms per add+remove | method |"
echo "| --- | --- | --- |"
printf '%s\n' "${ROWS[@]}"
