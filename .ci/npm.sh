#!/usr/bin/env bash
# The npm package, end to end and offline: assemble the launcher and this platform's
# package around an mcpctl binary, `npm pack` them, install the two tarballs into a temp
# project with no registry reachable, and run `npx mcpctl` from there.
#
#   bash .ci/npm.sh [BINARY]      (default: target/debug/mcpctl)
set -euo pipefail
cd "$(dirname "$0")/.."

binary="${1:-target/debug/mcpctl}"
[ -x "$binary" ] || { echo "npm.sh: $binary is not an executable (build it first)" >&2; exit 2; }
platform="$(node -p 'process.platform + "-" + process.arch')"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A debug binary is mostly debug info (70 MB); packing a stripped copy is 10x faster.
if command -v strip >/dev/null 2>&1; then
  strip -o "$work/mcpctl" "$binary"
  binary="$work/mcpctl"
fi
node npm/assemble.mjs --out "$work/packages" "$platform=$binary"
mkdir -p "$work/tarballs" "$work/project" "$work/home"
for package in "$work/packages"/*/; do
  (cd "$work/tarballs" && npm pack --silent "$package" >/dev/null)
done
ls "$work/tarballs"

# Offline: an empty cache, no registry to reach. The other platforms' packages are
# optional dependencies that cannot be fetched here; npm must skip them, as it skips
# them by os/cpu on a real install.
export npm_config_cache="$work/npm-cache" npm_config_registry="http://127.0.0.1:9/" \
  npm_config_offline=true npm_config_audit=false npm_config_fund=false \
  npm_config_update_notifier=false
cd "$work/project"
echo '{"name":"npm-smoke","private":true}' > package.json
npm install --no-save --loglevel=error "$work/tarballs/mcpctl-$platform-$version.tgz" \
  "$work/tarballs/mcpctl-$version.tgz"

# A temp HOME: `clients` must not read the real user's config files.
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config"
out="$(npx --no-install mcpctl --version)"
echo "npx mcpctl --version: $out"
[ "$out" = "mcpctl $version" ] || { echo "npm.sh: expected 'mcpctl $version'" >&2; exit 1; }
npx --no-install mcpctl clients --known >/dev/null
npx --no-install mcpctl clients --json | node -e 'JSON.parse(require("fs").readFileSync(0, "utf8"))'
echo "npx mcpctl clients: ok"
# The launcher passes the binary's exit code through (2: usage error).
status=0
npx --no-install mcpctl --no-such-flag 2>/dev/null || status=$?
[ "$status" = 2 ] || { echo "npm.sh: expected exit 2 from a usage error, got $status" >&2; exit 1; }
echo "npm package: ok (mcpctl $version, $platform, offline install)"
