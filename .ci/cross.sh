#!/usr/bin/env bash
# Lint for the other OSes the release ships: clippy -D warnings over every target (the
# library, the binary and all tests) for Windows (x86_64-pc-windows-gnu) and macOS
# (aarch64 and x86_64), so `cfg(windows)` / `cfg(target_os = "macos")` code and the tests'
# Unix-only parts are compiled at least once per run. Needs rustup; installs the MinGW C
# compiler (ring's build script compiles C for Windows) with apt when it is missing.
# macOS needs no SDK: ring's C is handed to a stand-in compiler (.ci/apple/cc.sh), since
# clippy never links.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mingw-w64 >/dev/null
fi
rustup target add x86_64-pc-windows-gnu aarch64-apple-darwin x86_64-apple-darwin

echo "== cargo clippy --target x86_64-pc-windows-gnu"
cargo clippy --all-targets --target x86_64-pc-windows-gnu -- -D warnings
cargo clippy -p fixture-server --all-targets --target x86_64-pc-windows-gnu -- -D warnings

stub="$PWD/.ci/apple/cc.sh"
for target in aarch64-apple-darwin x86_64-apple-darwin; do
  echo "== cargo clippy --target $target"
  env "CC_${target//-/_}=$stub" "AR_${target//-/_}=ar" \
    cargo clippy --all-targets --target "$target" -- -D warnings
done
