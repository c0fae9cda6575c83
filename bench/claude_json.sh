#!/usr/bin/env bash
# Big-file benchmark: add + remove of one server in a realistic 17 MB ~/.claude.json
# (a large `projects` map with long `history` arrays), against two `cp`s of that file and
# against two durable copies (`cp` then `sync FILE`, i.e. fsync, as mcpctl's write does).
# Prints Markdown tables: mean wall time (hyperfine, or a bash loop) and peak RSS.
#
# Usage: bench/claude_json.sh [--install] [-n N] [--size MB] [--state-dir DIR] [--mcpctl BIN] [--other BIN]
#   --install       apt-get install hyperfine and time if missing (also when CI=true)
#   -n N            timed runs per command (default 10), after 2 warm-up runs
#   --size MB       size of the generated ~/.claude.json (default 17)
#   --state-dir DIR MCPCTL_STATE_DIR (where backups go); default: inside the bench HOME.
#                   Use a tmpfs (e.g. /dev/shm/x) to see the cost of the backup write.
#   --mcpctl BIN    the build measured (default target/perf/mcpctl)
#   --other BIN     a second build run in the same loop (e.g. main's, for before/after);
#                   for interleaved rounds and medians use bench/write_path.py
# Needs target/perf/mcpctl (cargo build --profile perf) and python3.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MCPCTL="$ROOT/target/perf/mcpctl"
OTHER=""
N=10
SIZE_MB=17
STATE_DIR=""
INSTALL=0
[[ "${CI:-}" == "true" ]] && INSTALL=1
while (($#)); do
  case "$1" in
    --install) INSTALL=1 ;;
    -n) N="$2"; shift ;;
    --size) SIZE_MB="$2"; shift ;;
    --state-dir) STATE_DIR="$2"; shift ;;
    --mcpctl) MCPCTL="$2"; shift ;;
    --other) OTHER="$2"; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "claude_json.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

[[ -x "$MCPCTL" ]] || { echo "claude_json.sh: build first: cargo build --profile perf" >&2; exit 2; }
[[ -z "$OTHER" || -x "$OTHER" ]] || { echo "claude_json.sh: no build at $OTHER" >&2; exit 2; }
if ((INSTALL)) && { ! command -v hyperfine >/dev/null || [[ ! -x /usr/bin/time ]]; }; then
  { apt-get install -y hyperfine time || { apt-get update && apt-get install -y hyperfine time; }; } \
    >/dev/null 2>&1 || echo "claude_json.sh: apt-get install failed" >&2
fi
HAVE_HYPERFINE=0
command -v hyperfine >/dev/null 2>&1 && HAVE_HYPERFINE=1

mkdir -p "$ROOT/.cache"
BENCH_TMP="$(mktemp -d "$ROOT/.cache/bench-claude.XXXXXX")"
[[ -n "${KEEP:-}" ]] || trap 'rm -rf "$BENCH_TMP"' EXIT
HOME_DIR="$BENCH_TMP/home"
STATE_DIR="${STATE_DIR:-$BENCH_TMP/state}"
mkdir -p "$HOME_DIR" "$STATE_DIR"
FILE="$HOME_DIR/.claude.json"

# --- generate a realistic ~/.claude.json (see bench/gen_claude_json.py)
python3 "$ROOT/bench/gen_claude_json.py" "$FILE" "$SIZE_MB"
BYTES=$(stat -c %s "$FILE")
SUM_BEFORE=$(sha256sum "$FILE" | cut -d' ' -f1)
PROJECTS=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["projects"]))' "$FILE")

export HOME="$HOME_DIR" USERPROFILE="$HOME_DIR" XDG_CONFIG_HOME="$HOME_DIR/.config"
export MCPCTL_STATE_DIR="$STATE_DIR" NO_COLOR=1
unset CLAUDE_CONFIG_DIR
cd "$HOME_DIR"

# The two commands, as scripts so hyperfine and the loop run the same thing.
CP="$BENCH_TMP/cp-pair.sh"
PAIR="$BENCH_TMP/mcpctl-pair.sh"
printf '#!/usr/bin/env bash\nset -e\ncp %q %q\ncp %q %q\n' \
  "$FILE" "$BENCH_TMP/copy1" "$FILE" "$BENCH_TMP/copy2" >"$CP"
printf '#!/usr/bin/env bash\nset -e\n%q add x -c claude-code -q -- npx -y pkg\n%q remove x -c claude-code -q\n' \
  "$MCPCTL" "$MCPCTL" >"$PAIR"
OTHER_PAIR="$BENCH_TMP/other-pair.sh"
NAMES=(cp-pair durable-pair mcpctl-pair)
if [[ -n "$OTHER" ]]; then
  printf '#!/usr/bin/env bash\nset -e\n%q add x -c claude-code -q -- npx -y pkg\n%q remove x -c claude-code -q\n' \
    "$OTHER" "$OTHER" >"$OTHER_PAIR"
  NAMES+=(other-pair)
fi
DURABLE="$BENCH_TMP/durable-pair.sh"
printf '#!/usr/bin/env bash\nset -e\ncp %q %q\nsync %q\ncp %q %q\nsync %q\n' \
  "$FILE" "$BENCH_TMP/copy1" "$BENCH_TMP/copy1" "$FILE" "$BENCH_TMP/copy2" "$BENCH_TMP/copy2" >"$DURABLE"
# Backups (one 17 MB copy per write) are never pruned by mcpctl: clear them between runs
# (outside the timed part) so the disk does not fill.
CLEAN="rm -rf $STATE_DIR/backups"

bash "$PAIR" >/dev/null || { echo "claude_json.sh: mcpctl add/remove failed" >&2; exit 1; }
[[ "$(sha256sum "$FILE" | cut -d' ' -f1)" == "$SUM_BEFORE" ]] \
  || { echo "claude_json.sh: add+remove changed the file" >&2; exit 1; }

declare -A MEAN MEANV
if ((HAVE_HYPERFINE)); then
  hyperfine -N --warmup 2 --runs "$N" --prepare "$CLEAN" --style none --output null \
    --export-json "$BENCH_TMP/h.json" -n cp-pair "bash $CP" -n durable-pair "bash $DURABLE" \
    -n mcpctl-pair "bash $PAIR" ${OTHER:+-n other-pair "bash $OTHER_PAIR"} >/dev/null
  while read -r name mean sd; do MEAN[$name]="$mean ± $sd"; MEANV[$name]=$mean; done < <(
    python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(r["command"], "%.1f" % (r["mean"]*1000), "%.1f" % (r["stddev"]*1000))' "$BENCH_TMP/h.json")
  METHOD="hyperfine -N, 2 warm-up + $N runs"
else
  for name in "${NAMES[@]}"; do
    script="$CP"; [[ $name == mcpctl-pair ]] && script="$PAIR"; [[ $name == durable-pair ]] && script="$DURABLE"
    [[ $name == other-pair ]] && script="$OTHER_PAIR"
    bash "$script"; bash "$script"; $CLEAN
    total=0
    for ((i = 0; i < N; i++)); do
      t0=$(date +%s%N); bash "$script"; t1=$(date +%s%N); $CLEAN
      total=$((total + t1 - t0))
    done
    MEAN[$name]="$((total / N / 1000000))"
  done
  METHOD="bash loop, 2 warm-up + $N runs"
fi
[[ "$(sha256sum "$FILE" | cut -d' ' -f1)" == "$SUM_BEFORE" ]] \
  || { echo "claude_json.sh: file changed during the runs" >&2; exit 1; }

peak() { # peak RSS in KiB of one command
  if [[ -x /usr/bin/time ]]; then
    /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1
  else echo "n/a"; fi
}
RSS_CP=$(peak cp "$FILE" "$BENCH_TMP/copy1")
RSS_ADD=$(peak "$MCPCTL" add x -c claude-code -q -- npx -y pkg)
RSS_RM=$(peak "$MCPCTL" remove x -c claude-code -q)

echo "file: ~/.claude.json, $BYTES bytes, $PROJECTS projects; MCPCTL_STATE_DIR=$STATE_DIR"
echo
echo "| command | mean ms | method |"
echo "| --- | --- | --- |"
echo "| 2 × cp of the file | ${MEAN[cp-pair]} | $METHOD |"
echo "| 2 × durable copy (cp + fsync) | ${MEAN[durable-pair]} | $METHOD |"
echo "| mcpctl add + remove ($MCPCTL) | ${MEAN[mcpctl-pair]} | $METHOD |"
[[ -n "$OTHER" ]] && echo "| mcpctl add + remove ($OTHER) | ${MEAN[other-pair]} | $METHOD |"
if [[ -n "${MEANV[cp-pair]:-}" ]]; then
  python3 -c 'import sys; c,m=map(float,sys.argv[1:]); print(f"\nratio mcpctl/cp = {m/c:.2f} (no fsync in cp: the stricter figure)")' \
    "${MEANV[cp-pair]}" "${MEANV[mcpctl-pair]}"
  python3 -c 'import sys; c,m=map(float,sys.argv[1:]); print(f"ratio mcpctl/durable copies = {m/c:.2f} (target <= 3)")' \
    "${MEANV[durable-pair]}" "${MEANV[mcpctl-pair]}"
fi
echo
echo "| process | peak RSS KiB | peak RSS MiB |"
echo "| --- | --- | --- |"
for row in "cp:$RSS_CP" "mcpctl add:$RSS_ADD" "mcpctl remove:$RSS_RM"; do
  name="${row%%:*}"; kb="${row#*:}"
  mib="n/a"; [[ "$kb" =~ ^[0-9]+$ ]] && mib=$(python3 -c "print(f'{$kb/1024:.1f}')")
  echo "| $name | $kb | $mib |"
done
