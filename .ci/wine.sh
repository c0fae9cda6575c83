#!/usr/bin/env bash
# The Windows job: the real `mcpctl.exe` (x86_64-pc-windows-gnu, a debug build: the
# release one takes ~10 min cold on 2 cores) under Wine. Installs MinGW and 64-bit Wine
# from Debian when missing, cross-builds into .cache/wine/target (gitignored, kept between
# runs like the peers), boots a throwaway Wine prefix, then runs
#   1. the library's unit tests under Wine (cargo's runner),
#   2. the `cli` integration tests against mcpctl.exe: the test binary is built for
#      Windows too and runs under Wine, so `CARGO_BIN_EXE_mcpctl` is the .exe (tests that
#      assume Unix are `#[cfg(unix)]`, each saying why), then the ignored ones that need
#      only the fixture server (fixture-server.exe, beside the test binary), then the
#      `handshake` tests (the probe itself: timeouts, Job Objects, ending a server's
#      tree) the same way, and
#   3. the scenario suite (.ci/wine/scenarios.sh): mcpctl.exe under cmd.exe with the
#      search path spelled `Path`, on Windows-shaped client files.
# Known Wine gaps are worked around here and in .ci/wine/, never in mcpctl:
#   - Debian 12's Wine 8.0 lacks bcryptprimitives.dll (every Rust >= 1.78 .exe then exits
#     53 silently): a stand-in built from .ci/wine/bcryptprimitives.c;
#   - Wine starts as Windows 7 (Node refuses it): `winecfg -v win10`;
#   - Wine spells the search path `PATH`, real Windows `Path`: scenarios.sh renames it.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
triple=x86_64-pc-windows-gnu

if ! command -v wine >/dev/null || ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mingw-w64 wine64 >/dev/null
fi
rustup target add "$triple"

export CARGO_TARGET_DIR="$root/.cache/wine/target"
# Each stage's start, in seconds since the job began: the job's budget is ≤ 5 min warm.
stage() { echo "== wine: [${SECONDS} s] $*"; }
exe="$CARGO_TARGET_DIR/$triple/debug"
stage "cross-build mcpctl.exe, fixture-server.exe, the unit and cli tests (debug)"
cargo build --target "$triple" -p mcpctl-cli --bin mcpctl
cargo build --target "$triple" -p fixture-server
cargo test --target "$triple" --lib --no-run
cargo test --target "$triple" --test cli --no-run
cargo test --target "$triple" --test handshake --no-run

# Throwaway prefixes, their wineservers ended and the folder removed at exit.
scratch="$(mktemp -d)"
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
end_wine() {
  for prefix in "$scratch"/*/; do
    WINEPREFIX="$prefix" wineserver -k 2>/dev/null || true
  done
  rm -rf "$scratch"
}
trap end_wine EXIT
x86_64-w64-mingw32-gcc -O2 -shared -o "$scratch/bcryptprimitives.dll" \
  .ci/wine/bcryptprimitives.c -ladvapi32
# boot NAME USER: a Windows 10 prefix $scratch/NAME whose user (profile folder) is USER.
boot() {
  # USER for every later wine call too: Wine builds %USERPROFILE% from it at each start.
  export WINEPREFIX="$scratch/$1" USER="$2"
  stage "boot a prefix for user '$2' (Windows 10, bcryptprimitives.dll stand-in)"
  wineboot -i >/dev/null 2>&1 || true
  wine winecfg -v win10 >/dev/null 2>&1
  cp "$scratch/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"
}

boot plain "$(id -un)"
stage "library unit tests (cargo test --target $triple --lib)"
CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine cargo test --target "$triple" --lib
stage "the cli tests against mcpctl.exe (cargo test --target $triple --test cli)"
# The kill-at-every-step sweeps start mcpctl some hundreds of times each (7 minutes under
# Wine on 2 cores): the one for `add` runs here, the others on Linux only.
sweeps=()
# (All twelve pass under Wine when run: 552 s for the whole faults module on 2 busy cores.)
for sweep in disable_and_enable_loses_nothing apply_to_three_files_loses_nothing \
  a_profile_switch_loses_nothing undo_reaches_a_state_some_command_made \
  redo_reaches_a_state_some_command_made restore_reaches_a_state_some_command_made \
  a_profile_switch_then_undo_reaches_a_state_some_command_made; do
  sweeps+=(--skip "faults::kill_at_every_step_of_$sweep")
done
CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine cargo test --target "$triple" --test cli -- \
  --exact "${sweeps[@]}" --skip records::kill_at_every_step_of_a_big_file_write_loses_nothing
stage "the cli tests that need only the fixture server"
# One name per test: word splitting is the point.
# shellcheck disable=SC2046
CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine cargo test --target "$triple" --test cli -- \
  --ignored --exact $(bash .ci/ignored.sh "needs cargo build -p fixture-server")

stage "the handshake tests (the probe in the library, fixture-server.exe)"
CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine cargo test --target "$triple" --test handshake
# shellcheck disable=SC2046
CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine cargo test --target "$triple" --test handshake -- \
  --ignored --exact $(bash .ci/ignored.sh "needs cargo build -p fixture-server")
scenarios() {
  MCPCTL_EXE="$exe/mcpctl.exe" FIXTURE_EXE="$exe/fixture-server.exe" bash .ci/wine/scenarios.sh
}
stage "scenarios (.ci/wine/scenarios.sh)"
scenarios
# The Linux build of the same tree (.ci/run built it; built here when run alone), outside
# the cross-build's target directory.
stage "the simulation (--platform windows) and mcpctl.exe agree (.ci/wine/agree.sh)"
env -u CARGO_TARGET_DIR cargo build --quiet
MCPCTL_EXE="$exe/mcpctl.exe" LINUX_MCPCTL="$root/target/debug/mcpctl" bash .ci/wine/agree.sh
# The scenarios again for a user whose name has spaces and non-ASCII letters (Wine takes
# the profile's name from USER when the prefix is made; it ignores USERPROFILE set from
# Linux).
boot spaced 'Zoë Ünal Smith'
stage "scenarios for user 'Zoë Ünal Smith'"
scenarios
stage "done"
