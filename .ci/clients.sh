#!/usr/bin/env bash
# Install the real MCP client CLIs (peers of mcpctl) into .cache/clients/,
# pinned to versions verified to run offline on Node 20 (see docs/dev/peers.md).
# Idempotent: packages already present at the pinned version are skipped.
# A package that fails to install is reported and skipped; exit status is 0.
# Prints the bin directory (absolute path) as the last line on stdout.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="$ROOT/.cache/clients"
BIN="$PREFIX/node_modules/.bin"

PKGS=(
  "@anthropic-ai/claude-code@2.1.332"
  "@openai/codex@0.171.0"
  "@google/gemini-cli@0.61.0"
  "@qwen-code/qwen-code@0.24.4"
  "opencode-ai@1.18.33"
)

if ! command -v npm >/dev/null 2>&1; then
  echo "clients.sh: npm not found; no client CLIs installed" >&2
  echo "$BIN"
  exit 0
fi

mkdir -p "$PREFIX"

installed_version() { # $1 = package name; prints installed version or nothing
  local pj="$PREFIX/node_modules/$1/package.json"
  [[ -f "$pj" ]] || return 0
  node -e 'process.stdout.write(require(process.argv[1]).version||"")' "$pj" 2>/dev/null || true
}

missing=()
for spec in "${PKGS[@]}"; do
  name="${spec%@*}"; want="${spec##*@}"
  [[ "$(installed_version "$name")" == "$want" ]] || missing+=("$spec")
done

npm_install() {
  npm install --prefix "$PREFIX" --no-audit --no-fund --loglevel=error "$@" \
    >"$PREFIX/npm-install.log" 2>&1
}

failed=()
if ((${#missing[@]})); then
  echo "clients.sh: installing ${missing[*]}" >&2
  if ! npm_install "${missing[@]}"; then
    # One bad package fails the whole batch: retry one at a time to find it.
    for spec in "${missing[@]}"; do
      npm_install "$spec" || failed+=("$spec")
    done
  fi
fi

for spec in "${PKGS[@]}"; do
  name="${spec%@*}"; want="${spec##*@}"
  if [[ "$(installed_version "$name")" != "$want" ]]; then
    case " ${failed[*]-} " in *" $spec "*) ;; *) failed+=("$spec") ;; esac
  fi
done

if ((${#failed[@]})); then
  echo "clients.sh: FAILED to install: ${failed[*]} (log: $PREFIX/npm-install.log)" >&2
else
  echo "clients.sh: all ${#PKGS[@]} clients present" >&2
fi
echo "$BIN"
exit 0
