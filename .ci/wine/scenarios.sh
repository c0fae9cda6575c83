#!/usr/bin/env bash
# The scenario suite of the Windows job: the real mcpctl.exe under Wine, started through
# cmd.exe with the search path spelled `Path` as on a real Windows desktop (Wine spells it
# `PATH`, which hides case-sensitivity defects), on Windows-shaped client files in the
# prefix's user profile (seed.sh). Each scenario asserts exit codes and output or file
# bytes; the script exits 1 when one fails.
#
# A scenario that today's mcpctl gets wrong asserts the right behaviour and is marked
# with the issue-37 item that fixes it: its failure is reported as XFAIL and does not fail
# the job; once it passes it is reported as XPASS (drop the mark then).
#
# Needs: WINEPREFIX booted (with the bcryptprimitives.dll stand-in, see ../wine.sh),
# MCPCTL_EXE and FIXTURE_EXE (Linux paths of the cross-built .exe files).
set -uo pipefail
: "${WINEPREFIX:?}" "${MCPCTL_EXE:?}" "${FIXTURE_EXE:?}"
export WINEDEBUG=-all

tools="$WINEPREFIX/drive_c/tools"
mkdir -p "$tools"
cp "$MCPCTL_EXE" "$tools/mcpctl.exe"
cp "$FIXTURE_EXE" "$tools/fixture-server.exe"
# m.cmd: mcpctl with C:\tools first on the search path, the variable renamed `Path`.
printf '@ECHO OFF\r\nSET "P=C:\\tools;%%PATH%%"\r\nSET PATH=\r\nSET "Path=%%P%%"\r\nSET P=\r\n"C:\\tools\\mcpctl.exe" %%*\r\n' \
  >"$tools/m.cmd"
# upper.cmd: the same with the variable spelled `PATH` (Wine's spelling), the control
# that shows a `Path` failure is the spelling's alone.
printf '@ECHO OFF\r\nSET "PATH=C:\\tools;%%PATH%%"\r\n"C:\\tools\\mcpctl.exe" %%*\r\n' \
  >"$tools/upper.cmd"

# The prefix's user (the one profile besides Public; its name may have spaces and
# non-ASCII letters, which cmd's `echo` would print in the console code page).
user="$(ls "$WINEPREFIX/drive_c/users" | grep -vx Public | head -n 1)"
winprofile="C:\\users\\$user"
profile="$WINEPREFIX/drive_c/users/$user"
echo "user profile: $winprofile"
here="$(cd "$(dirname "$0")" && pwd)"
orig="$(mktemp -d)"
out="$orig/.out" err="$orig/.err"
trap 'rm -rf "$orig"' EXIT
bash "$here/seed.sh" "$profile" "$winprofile"
bash "$here/seed.sh" "$orig" "$winprofile"
cd "$profile/proj"

# mc [CMD] ARGS...: run mcpctl.exe through m.cmd (or CMD.cmd); stdout in $out, stderr in
# $err, the exit code in $rc.
rc=0
mc() {
  local script=m
  case "${1:-}" in upper.cmd) script=upper; shift ;; esac
  # Wine hands the Linux environment on: this script's inputs are not mcpctl's.
  env -u MCPCTL_EXE -u FIXTURE_EXE wine cmd /c "C:\\tools\\$script.cmd" "$@" >"$out" 2>"$err"
  rc=$?
}

# Assertions: each failed one is printed and marks the scenario failed.
bad=0
no() {
  echo "    FAIL: $*"
  echo "    stdout: $(head -c 1500 "$out")"
  echo "    stderr: $(head -c 1500 "$err")"
  bad=1
}
expect_rc() { [ "$rc" = "$1" ] || no "exit code $rc, expected $1"; }
expect_out() { grep -qF -- "$1" "$out" || no "stdout lacks: $1"; }
expect_err() { grep -qF -- "$1" "$err" || no "stderr lacks: $1"; }
# expect_json PYTHON-EXPRESSION: true of `j`, stdout parsed as JSON.
expect_json() {
  python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' \
    "$out" "$1" 2>/dev/null || no "JSON: $1"
}
expect_same() { cmp -s "$profile/$1" "$orig/$1" || no "$1 is not byte-identical to the original"; }
# expect_bytes FILE PYTHON-EXPRESSION: true of `b`, the file's bytes.
expect_bytes() {
  python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); sys.exit(0 if eval(sys.argv[2]) else 1)' \
    "$profile/$1" "$2" || no "$1: $2"
}

passed=0 failed=0 xfailed=0 xpassed=0
# scenario NAME ITEM: run the function NAME; ITEM is "-" or the issue-37 item it awaits.
scenario() {
  local name=$1 item=$2
  bad=0
  "$name"
  if [ "$bad" = 0 ] && [ "$item" = - ]; then
    echo "ok     $name"
    passed=$((passed + 1))
  elif [ "$bad" = 0 ]; then
    echo "XPASS  $name: expected to fail until item $item; it passes, drop the mark"
    xpassed=$((xpassed + 1))
  elif [ "$item" = - ]; then
    echo "FAILED $name"
    failed=$((failed + 1))
  else
    echo "XFAIL  $name (expected to fail until issue 37 item $item)"
    xfailed=$((xfailed + 1))
  fi
}

CLIENT_FILES=(
  .claude.json
  AppData/Roaming/Claude/claude_desktop_config.json
  .cursor/mcp.json
  AppData/Roaming/Code/User/mcp.json
  .codeium/windsurf/mcp_config.json
  .codex/config.toml
)

version() {
  mc --version
  expect_rc 0
  expect_out "mcpctl "
}

clients_are_detected_at_their_windows_paths() {
  mc clients --json
  expect_rc 0
  local id
  for id in claude-code claude-desktop cursor vscode windsurf codex; do
    expect_json "[c for c in j if c['id'] == '$id' and c['detected'] and c['exists']]"
  done
  expect_json "[c for c in j if c['id'] == 'claude-desktop' and c['path'].lower() == r'''$winprofile\\AppData\\Roaming\\Claude\\claude_desktop_config.json'''.lower()]"
  expect_json "[c for c in j if c['id'] == 'vscode' and c['path'].lower() == r'''$winprofile\\AppData\\Roaming\\Code\\User\\mcp.json'''.lower()]"
}

list_reads_crlf_bom_jsonc_and_toml() {
  mc list --json
  expect_rc 0
  expect_json "{(r['client'], r['name']) for r in j} >= {('claude-desktop', 'filesystem'), ('cursor', 'github'), ('vscode', 'fetch'), ('codex', 'docs')}"
  expect_json "[r for r in j if r['name'] == 'github' and r['wrapped'] and r['command'] == 'npx']"
  expect_json "[r for r in j if r['name'] == 'filesystem' and r['args'][-1] == r'C:\\Users\\alice\\Desktop']"
}

check_flags_unwrapped_npx() {
  mc check --user
  expect_rc 1
  expect_out "claude_desktop_config.json:4:18: error[MCP301]"
  expect_out "config.toml:5:11: error[MCP301]"
}

add_then_remove_is_byte_identical() {
  mc add mem -c claude-desktop -c cursor -c vscode -c windsurf -c codex -- npx -y @modelcontextprotocol/server-memory
  expect_rc 0
  # Wrapped for Windows, in each file's own line endings, BOM kept.
  expect_bytes .codex/config.toml "b'\r\n[mcp_servers.mem]\r\ncommand = \"cmd\"\r\nargs = [\"/c\", \"npx\", \"-y\", \"@modelcontextprotocol/server-memory\"]\r\n' in b"
  expect_bytes AppData/Roaming/Claude/claude_desktop_config.json "b'\"mem\"' in b and b.count(b'\n') == b.count(b'\r\n')"
  expect_bytes AppData/Roaming/Code/User/mcp.json "b'// My servers' in b and b'\"mem\"' in b and b.count(b'\n') == b.count(b'\r\n')"
  expect_bytes .cursor/mcp.json "b.startswith(b'\xef\xbb\xbf') and b'\"mem\"' in b"
  mc remove mem --all
  expect_rc 0
  local f
  for f in "${CLIENT_FILES[@]}"; do expect_same "$f"; done
}

doctor_starts_the_fixture_server_by_its_path() {
  mc add fx -c cursor -- 'C:\tools\fixture-server.exe'
  expect_rc 0
  mc doctor fx
  expect_rc 0
  expect_out "fixture-server 0.0.0"
  expect_out "0 failed"
  mc remove fx -c cursor
  expect_rc 0
  expect_same .cursor/mcp.json
}

# doctor through `cmd /c NAME`, NAME found on the search path: the Windows way to start a
# command by name. With `PATH` spelled `PATH` (control) and as Windows spells it, `Path`.
doctor_finds_cmd_on_path_spelled_PATH() {
  mc add fxw -c windsurf -- cmd /c fixture-server
  expect_rc 0
  mc upper.cmd doctor fxw
  expect_rc 0
  expect_out "fixture-server 0.0.0"
}
doctor_finds_cmd_on_path_spelled_Path() {
  mc doctor fxw
  expect_rc 0
  expect_out "fixture-server 0.0.0"
  mc remove fxw -c windsurf
  expect_rc 0
  expect_same .codeium/windsurf/mcp_config.json
}

# Claude Code's `local` scope: entries under projects["C:/users/NAME/proj"], the key in
# Claude Code's own forward-slash form (seed.sh), read from the project directory.
claude_local_scope_is_read_from_claudes_key() {
  mc list --json -c claude-code
  expect_rc 0
  expect_json "[r for r in j if r['name'] == 'loc' and r['scope'] == 'local']"
}
claude_local_scope_is_written_under_claudes_key() {
  local key
  key="$(printf '%s' "$winprofile\\proj" | tr '\\' /)"
  mc add loc2 -c claude-code -s local -- 'C:\tools\fixture-server.exe'
  expect_rc 0
  python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["projects"]; sys.exit(0 if "loc2" in p.get(sys.argv[2], {}).get("mcpServers", {}) else 1)' \
    "$profile/.claude.json" "$key" || no ".claude.json has no loc2 under projects[\"$key\"]"
  mc remove loc2 -c claude-code -s local
}

# A batch file under Program Files, its path and an argument with spaces (item 3): written
# so that cmd.exe parses it when a client starts it with an argument list, and started.
program_files_cmd_with_spaces_is_started() {
  mkdir -p "$WINEPREFIX/drive_c/Program Files/Srv"
  printf '@ECHO OFF\r\n"C:\\tools\\fixture-server.exe" %%*\r\n' \
    >"$WINEPREFIX/drive_c/Program Files/Srv/srv.cmd"
  mc add pf -c cursor -- 'C:\Program Files\Srv\srv.cmd' 'a b'
  expect_rc 0
  mc doctor pf
  expect_rc 0
  expect_out "fixture-server 0.0.0"
  mc remove pf -c cursor
  expect_rc 0
  expect_same .cursor/mcp.json
}

# A config path over 260 characters (item 5): written, backed up and put back.
long_config_path_is_written_and_removed() {
  local seg1 seg2 dir
  seg1="$(printf 'd%.0s' $(seq 130))" seg2="$(printf 'e%.0s' $(seq 130))"
  dir="$profile/$seg1/$seg2"
  mkdir -p "$dir"
  cp "$orig/.codex/config.toml" "$dir/config.toml"
  CODEX_HOME="$winprofile\\$seg1\\$seg2" mc add x -c codex -- node x.js
  expect_rc 0
  grep -q 'mcp_servers.x' "$dir/config.toml" || no "the long-path config.toml has no x"
  CODEX_HOME="$winprofile\\$seg1\\$seg2" mc remove x -c codex
  expect_rc 0
  cmp -s "$dir/config.toml" "$orig/.codex/config.toml" || no "the long-path config.toml is not byte-identical"
  rm -rf "${profile:?}/$seg1"
}

# doctor over Streamable HTTP to the fixture server on loopback.
doctor_reaches_a_loopback_http_server() {
  local port=$((20000 + RANDOM % 20000)) server i
  wine 'C:\tools\fixture-server.exe' "http=$port" >/dev/null 2>&1 &
  server=$!
  for i in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$port/" && break
    sleep 0.2
  done
  mc add web -c vscode --url "http://127.0.0.1:$port/mcp"
  expect_rc 0
  mc doctor web
  expect_rc 0
  expect_out "fixture-server 0.0.0"
  mc remove web -c vscode
  expect_rc 0
  expect_same AppData/Roaming/Code/User/mcp.json
  kill "$server" 2>/dev/null
  wait "$server" 2>/dev/null
}

scenario version -
scenario clients_are_detected_at_their_windows_paths -
scenario list_reads_crlf_bom_jsonc_and_toml -
scenario check_flags_unwrapped_npx -
scenario add_then_remove_is_byte_identical -
scenario doctor_starts_the_fixture_server_by_its_path -
scenario doctor_finds_cmd_on_path_spelled_PATH -
scenario doctor_finds_cmd_on_path_spelled_Path -
scenario claude_local_scope_is_read_from_claudes_key -
scenario claude_local_scope_is_written_under_claudes_key -
scenario program_files_cmd_with_spaces_is_started -
scenario long_config_path_is_written_and_removed -
scenario doctor_reaches_a_loopback_http_server -

echo "scenarios: $passed passed, $failed failed, $xfailed expected failures, $xpassed unexpected passes"
[ "$failed" = 0 ]
