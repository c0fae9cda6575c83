#!/usr/bin/env bash
# Plan/apply linearity: a manifest of N servers for three clients (Claude Code's
# ~/.claude.json, Cursor's ~/.cursor/mcp.json, Codex's TOML ~/.codex/config.toml), timed at
# N/10 and at N in one interleaved run (variables are ones every client can take: Codex
# passes a variable only under its own name): `plan` with every entry to add, `apply`, then
# `plan` with every entry in sync; then `apply` of a manifest whose servers each have their
# own env value (every value is a secret the diff is redacted of). Prints CPU time (user + sys, /usr/bin/time) medians,
# the µs per entry at each size and the ratio between them (1.0 = linear; quadratic work
# shows as ~10), and the goal: N = 10,000 under 2 s of CPU.
#
# usage: bench/plan_scale.sh [-n RUNS] [N]   (defaults: 3 runs, N = 10000)
# Needs target/perf/mcpctl (cargo build --profile perf), python3 and /usr/bin/time.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${MCPCTL:-$ROOT/target/perf/mcpctl}"
RUNS=3
if [[ "${1:-}" == "-n" ]]; then RUNS=$2; shift 2; fi
N=${1:-10000}
SMALL=$((N / 10))
[[ -x "$BIN" ]] || { echo "plan_scale.sh: build first: cargo build --profile perf" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "plan_scale.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
mkdir -p "$ROOT/.cache"
WORK="$(mktemp -d "$ROOT/.cache/bench-plan.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

manifest() { # manifest N FILE [distinct]: every fifth server remote, the rest stdio with env
  python3 - "$1" "$2" "${3:-}" <<'PY'
import sys
n, path, distinct = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "distinct"
out = ['clients = ["claude-code", "cursor", "codex"]', ""]
for i in range(n):
    if i % 5 == 4:
        out += [f"[servers.remote{i}]", f'url = "https://mcp{i}.example.com/mcp"',
                f'headers = {{ X-Api-Key = "${{DOCS_KEY}}" }}', ""]
    else:
        out += [f"[servers.local{i}]", 'command = "npx"', f'args = ["-y", "@example/server-{i}@1.0.{i}"]',
                f'env = {{ API_KEY = "${{API_KEY}}", MODE = "fast{i if distinct else i % 7}" }}', ""]
open(path, "w").write("\n".join(out))
PY
}

# cpu_ms SIZE ARGS...: user+sys ms of one run in the HOME of SIZE (exit 0 or 1 accepted)
cpu_ms() {
  local size=$1; shift
  local home="$WORK/h$size"
  HOME="$home" XDG_CONFIG_HOME="$home/.config" MCPCTL_STATE_DIR="$home/state" NO_COLOR=1 \
    MCPCTL_MANIFEST="${MANIFEST:-$WORK/m$size.toml}" /usr/bin/time -f '%U %S' -o "$WORK/t" \
    "$BIN" "$@" >/dev/null 2>"$WORK/err" || [[ $? -eq 1 ]] \
    || { echo "plan_scale.sh: mcpctl $* failed:" >&2; cat "$WORK/err" >&2; exit 1; }
  awk '{ printf "%d\n", ($1 + $2) * 1000 }' "$WORK/t"
}
fresh() { # an empty HOME with the three client files absent
  rm -rf "$WORK/h$1"; mkdir -p "$WORK/h$1/.cursor" "$WORK/h$1/.codex"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

for size in "$SMALL" "$N"; do
  manifest "$size" "$WORK/m$size.toml"
  # Every server with its own env value (a token, a path): each value is a secret the
  # diff is redacted of, so this is the shape where that must stay linear too.
  manifest "$size" "$WORK/d$size.toml" distinct
done
declare -A T
for ((r = 0; r < RUNS; r++)); do
  for size in "$SMALL" "$N"; do # interleaved: both sizes see the same load
    fresh "$size"
    T[add,$size]+="$(cpu_ms "$size" plan --json) "
    T[apply,$size]+="$(cpu_ms "$size" apply) "
    T[ok,$size]+="$(cpu_ms "$size" plan --json) "
    fresh "$size"
    T[distinct,$size]+="$(MANIFEST="$WORK/d$size.toml" cpu_ms "$size" apply) "
  done
done
ok=$(HOME="$WORK/h$N" XDG_CONFIG_HOME="$WORK/h$N/.config" MCPCTL_STATE_DIR="$WORK/h$N/state" \
  MCPCTL_MANIFEST="$WORK/m$N.toml" "$BIN" plan --json | grep -c '"action": "ok"' || true)
echo "plan/apply over 3 clients (claude-code, cursor, codex), $RUNS interleaved runs, median CPU (user+sys); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "in sync after apply at N = $N: $ok of $((N * 3)) entries ok"
echo
echo "| command | $SMALL servers ms | µs/entry | $N servers ms | µs/entry | ratio (1 = linear) | goal: $N servers < 2,000 ms | met? |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for what in add apply ok distinct; do
  s=$(tr ' ' '\n' <<<"${T[$what,$SMALL]}" | grep . | median)
  l=$(tr ' ' '\n' <<<"${T[$what,$N]}" | grep . | median)
  label=$what; [[ $what == add ]] && label="plan (all add)"; [[ $what == ok ]] && label="plan (in sync)"
  [[ $what == distinct ]] && label="apply, each server its own env value"
  awk -v l="$label" -v s="$s" -v b="$l" -v ns="$SMALL" -v nb="$N" 'BEGIN {
    us = s * 1000 / (ns * 3); ub = b * 1000 / (nb * 3)
    printf "| %s | %d | %.1f | %d | %.1f | %.2f | 2,000 | %s |\n", l, s, us, b, ub, (us > 0 ? ub / us : 0), (b < 2000 ? "yes" : "no") }'
done
