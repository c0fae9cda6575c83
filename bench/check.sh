#!/usr/bin/env bash
# Times `mcpctl check` over 1,000 generated project files of mixed clients (Claude Code
# .mcp.json, Cursor, VS Code, Gemini CLI, OpenCode, Codex TOML, Roo) in a temp dir, and
# prints files/s beside `cat` of the same files (the reading floor), in one interleaved
# run. One mcpctl process checks all files: nothing is spawned per file.
#
# usage: bench/check.sh [path/to/mcpctl] [files] [runs]
#        (defaults: target/perf/mcpctl, 1000, 10; builds it if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/perf/mcpctl}
FILES=${2:-1000}
RUNS=${3:-10}
if [ ! -x "$BIN" ]; then
  echo "building $BIN" >&2
  cargo build --profile perf --quiet
fi
BIN=$(realpath "$BIN")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

kinds=(claude cursor vscode gemini opencode codex roo)
list="$WORK/files.txt"
: > "$list"
for i in $(seq 1 "$FILES"); do
  kind=${kinds[$((i % ${#kinds[@]}))]}
  dir="$WORK/p$i"
  case $kind in
    claude) rel=.mcp.json; mkdir -p "$dir"
      printf '{\n  "mcpServers": {\n    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] },\n    "github": { "command": "github-mcp-server", "args": ["stdio"], "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}" } },\n    "docs": { "type": "http", "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer ${DOCS_TOKEN}" } }\n  }\n}\n' > "$dir/$rel" ;;
    cursor) rel=.cursor/mcp.json; mkdir -p "$dir/.cursor"
      printf '{\n  "mcpServers": {\n    "fs": { "command": "mcp-fs", "args": ["/Users/alice/src"], "env": { "API_KEY": "${env:API_KEY}" } },\n    "remote": { "url": "http://mcp.example.com/mcp" }\n  }\n}\n' > "$dir/$rel" ;;
    vscode) rel=.vscode/mcp.json; mkdir -p "$dir/.vscode"
      printf '{\n  // team servers\n  "inputs": [{ "type": "promptString", "id": "tok", "password": true }],\n  "servers": {\n    "github": { "type": "stdio", "command": "github-mcp-server", "env": { "T": "${input:tok}" } },\n    "docs": { "url": "https://mcp.example.com/mcp" },\n  }\n}\n' > "$dir/$rel" ;;
    gemini) rel=.gemini/settings.json; mkdir -p "$dir/.gemini"
      printf '{\n  "theme": "GitHub",\n  "mcpServers": {\n    "docs": { "url": "https://mcp.example.com/mcp", "timeout": 30000, "trust": false }\n  }\n}\n' > "$dir/$rel" ;;
    opencode) rel=opencode.json; mkdir -p "$dir"
      printf '{\n  "$schema": "https://opencode.ai/config.json",\n  "mcp": {\n    "memory": { "type": "local", "command": ["npx", "-y", "@modelcontextprotocol/server-memory@2025.8.4"], "environment": { "A": "{env:A}" } },\n    "bad": { "type": "local", "command": "npx", "args": ["x"] }\n  }\n}\n' > "$dir/$rel" ;;
    codex) rel=.codex/config.toml; mkdir -p "$dir/.codex"
      printf 'model = "o4"\n\n[mcp_servers.github]\ncommand = "github-mcp-server"\nargs = ["stdio"]\nenv_vars = ["GITHUB_PERSONAL_ACCESS_TOKEN"]\n\n[mcp_servers.docs]\nurl = "https://mcp.example.com/mcp"\n' > "$dir/$rel" ;;
    roo) rel=.roo/mcp.json; mkdir -p "$dir/.roo"
      printf '{\n  "mcpServers": {\n    "docs": { "url": "https://mcp.example.com/mcp", "alwaysAllow": [] },\n    "db": { "command": "mcp-db", "env": { "DB_PASSWORD": "Tr0ub4dor3xQ9vLmZp2" } }\n  }\n}\n' > "$dir/$rel" ;;
  esac
  echo "p$i/$rel" >> "$list"
done

cd "$WORK"
mapfile -t paths < "$list"
echo "checking $FILES files with $BIN" >&2
# Sanity run (exit 1 is expected: the files have errors on purpose).
status=0
"$BIN" check --format json "${paths[@]}" > "$WORK/out.json" || status=$?
[ "$status" -le 1 ] || { echo "mcpctl check failed with exit $status" >&2; exit 1; }
echo "findings per run: $(grep -c '"code"' "$WORK/out.json")" >&2

# One interleaved run: mcpctl check, then `cat` of the same files (reading them is the
# floor), RUNS times each; medians of wall and of CPU (user + sys, /usr/bin/time).
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
timed() { # timed OUT CMD...: appends "wall_ms cpu_ms" of one run to OUT
  local out=$1; shift
  local t0 t1
  t0=$(date +%s%N)
  if [[ -x /usr/bin/time ]]; then
    /usr/bin/time -f '%U %S' -o "$WORK/t" "$@" > /dev/null 2>&1 || true
  else
    "$@" > /dev/null 2>&1 || true; echo "0 0" > "$WORK/t"
  fi
  t1=$(date +%s%N)
  # (a last line: time first notes a non-zero exit, which check's findings give)
  tail -1 "$WORK/t" | awk -v w=$(((t1 - t0) / 1000000)) '{ printf "%d %d\n", w, ($1 + $2) * 1000 }' >> "$out"
}
: > "$WORK/mcpctl.t"; : > "$WORK/cat.t"
for _ in $(seq 1 "$RUNS"); do
  timed "$WORK/mcpctl.t" "$BIN" check --format json "${paths[@]}"
  timed "$WORK/cat.t" cat "${paths[@]}"
done
row() { # row LABEL FILE
  local wall cpu
  wall=$(cut -d' ' -f1 "$2" | median); cpu=$(cut -d' ' -f2 "$2" | median)
  awk -v l="$1" -v w="$wall" -v c="$cpu" -v f="$FILES" 'BEGIN {
    printf "| %s | %d | %s | %d | %s |\n", l, w, (w > 0 ? sprintf("%.0f", f * 1000 / w) : "-"), c, (c > 0 ? sprintf("%.0f", f * 1000 / c) : "> " f * 100) }'
}
echo "check over $FILES files, $RUNS interleaved runs, medians; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| command | wall ms | files/s (wall) | CPU ms | files/s (CPU) |"
echo "| --- | --- | --- | --- | --- |"
row "mcpctl check --format json" "$WORK/mcpctl.t"
row "cat (reading the files)" "$WORK/cat.t"
echo
echo "goal: >= 12,000 files/s"
