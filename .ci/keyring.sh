#!/usr/bin/env bash
# A real Secret Service for the secret-store tests (issue 23): Debian's gnome-keyring on a
# D-Bus session bus of its own, its login keyring created and unlocked with a test
# password. Prints `export NAME=VALUE` lines on stdout for the caller to eval:
#
#   eval "$(bash .ci/keyring.sh)"
#
# (.ci/run does that before `cargo test`). Everything else goes to stderr. Installs the
# packages with apt-get when they are missing (CI runs as root on a fresh Debian). The
# keyring's files live in a folder of this run's own under .cache/keyring/ (gitignored),
# never in the real HOME: worktrees share .cache, and two runs at once (a landing check
# and a worktree's own tests) must not delete each other's keyring. The daemons' pids are
# exported as MCPCTL_CI_KEYRING_PIDS so the caller can end them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data="$root/.cache/keyring"

if ! command -v gnome-keyring-daemon >/dev/null 2>&1 || ! command -v dbus-daemon >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "keyring: gnome-keyring or dbus is missing and apt-get cannot install it here; keyring tests will fail" >&2
    exit 0
  fi
  echo "keyring: installing gnome-keyring and dbus (apt-get)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends gnome-keyring dbus dbus-daemon dbus-session-bus-common >&2
fi

# Runs older than a day are over (their daemons end with the session that started them).
mkdir -p "$data"
find "$data" -mindepth 1 -maxdepth 1 -type d -name 'run.*' -mmin +1440 -exec rm -rf {} + 2>/dev/null || true
data=$(mktemp -d "$data/run.XXXXXX")
mkdir -p "$data/home" "$data/runtime"
chmod 700 "$data/runtime"

# A session bus of our own: the address and pid on two lines.
info=$(dbus-daemon --session --fork --print-address=1 --print-pid=1)
address=$(printf '%s\n' "$info" | sed -n 1p)
bus_pid=$(printf '%s\n' "$info" | sed -n 2p)

# --unlock reads the login password from stdin and creates the login keyring with it
# (the default collection the Secret Service hands out); --daemonize returns once the
# daemon is up and prints its control variables, which the tests do not need.
keyring_out=$(printf 'mcpctl-ci-password' |
  env HOME="$data/home" XDG_DATA_HOME="$data/home/.local/share" XDG_RUNTIME_DIR="$data/runtime" \
    DBUS_SESSION_BUS_ADDRESS="$address" \
    gnome-keyring-daemon --unlock --components=secrets --daemonize)
keyring_pid=$(printf '%s\n' "$keyring_out" | sed -n 's/^GNOME_KEYRING_PID=//p')
# The daemon that owns the Secret Service name on this bus (--daemonize does not say).
# It may take a moment to claim the name: up to 10 s.
if [ -z "$keyring_pid" ] && command -v dbus-send >/dev/null 2>&1; then
  for _ in $(seq 50); do
    keyring_pid=$(DBUS_SESSION_BUS_ADDRESS="$address" dbus-send --session --print-reply \
      --dest=org.freedesktop.DBus /org/freedesktop/DBus \
      org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets 2>/dev/null |
      sed -n 's/^ *uint32 //p') || keyring_pid=""
    [ -n "$keyring_pid" ] && break
    sleep 0.2
  done
fi

echo "keyring: gnome-keyring-daemon (pid ${keyring_pid:-?}) on $address" >&2
printf 'export DBUS_SESSION_BUS_ADDRESS=%q\n' "$address"
printf 'export MCPCTL_CI_KEYRING_PIDS=%q\n' "$bus_pid ${keyring_pid}"
