#!/usr/bin/env bash
# Simulation and real binary agree (issue 37): the same Windows-shaped client files are
# read by the Linux binary with `--platform windows` (how every Windows rule is tested on
# Linux) and by the real mcpctl.exe under Wine, and their answers are compared for
# `clients --json`, `list --json`, and `add --dry-run` of a stdio and of a `--secret`
# server. Paths are compared as the user sees them under the profile (`~/…`, one
# separator); every other difference is a bug in one of the two, and fails the job.
#
# Needs: WINEPREFIX booted (see ../wine.sh), MCPCTL_EXE (the cross-built .exe) and
# LINUX_MCPCTL (the Linux build of the same tree).
set -uo pipefail
: "${WINEPREFIX:?}" "${MCPCTL_EXE:?}" "${LINUX_MCPCTL:?}"
export WINEDEBUG=-all
here="$(cd "$(dirname "$0")" && pwd)"

tools="$WINEPREFIX/drive_c/tools"
mkdir -p "$tools"
cp "$MCPCTL_EXE" "$tools/mcpctl.exe"
# Real Windows spells the search path `Path`; C:\tools (mcpctl alone) is all it holds,
# as the simulation's is one empty folder: no client is detected by a command on either.
printf '@ECHO OFF\r\nSET PATH=\r\nSET "Path=C:\\tools"\r\n"C:\\tools\\mcpctl.exe" %%*\r\n' >"$tools/agree.cmd"

winprofile="$(wine cmd /c echo %USERPROFILE% | tr -d '\r\n')"
profile="$(winepath -u "$winprofile")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sim="$work/home"
mkdir -p "$sim" "$work/empty" "$work/out/wine" "$work/out/sim"
bash "$here/seed.sh" "$profile" "$winprofile"
bash "$here/seed.sh" "$sim" "$winprofile"
rm -rf "$profile/.mcpctl-agree-state"

# run NAME ARGS...: both binaries, from the profile folder, outputs kept by NAME.
run() {
  local name=$1
  shift
  # Wine hands the Linux environment to Windows programs: MCPCTL_EXE (this script's
  # input) would name the launcher for mcpctl.exe, so it is left out.
  (cd "$profile" && env -u MCPCTL_EXE MCPCTL_STATE_DIR="$winprofile\\.mcpctl-agree-state" NO_COLOR=1 \
    wine cmd /c "C:\\tools\\agree.cmd" "$@" >"$work/out/wine/$name" 2>"$work/out/wine/$name.err")
  echo "$?" >"$work/out/wine/$name.rc"
  (cd "$sim" && env -i HOME="$sim" USERPROFILE="$sim" APPDATA="$sim/AppData/Roaming" \
    LOCALAPPDATA="$sim/AppData/Local" Path="$work/empty" PATH="$work/empty" NO_COLOR=1 \
    MCPCTL_STATE_DIR="$work/state" MCPCTL_EXE='C:\tools\mcpctl.exe' \
    "$LINUX_MCPCTL" --platform windows "$@" >"$work/out/sim/$name" 2>"$work/out/sim/$name.err")
  echo "$?" >"$work/out/sim/$name.rc"
}

run clients clients --json
run list list --json
run add-stdio add agree-s -c cursor --dry-run -- npx -y @example/agree
run add-secret add agree-t -c cursor --dry-run --secret API_KEY=agree-key -- npx -y @example/agree

python3 - "$work/out" "$sim" "$winprofile" "$work" <<'PY'
import json, os, re, sys
out, sim, winprofile, work = sys.argv[1:5]

def norm(text):
    """Paths as the user reads them under the profile: `~/…`, forward slashes."""
    text = text.replace("\r\n", "\n")
    text = text.replace("\\\\", "/").replace("\\", "/")
    for home in (sim, winprofile.replace("\\", "/")):
        text = re.sub(re.escape(home), "~", text, flags=re.I)
    # The launcher's own path: C:\tools\mcpctl.exe under Wine, the override in the sim.
    text = re.sub(r"[^\s\"']*C:/tools/mcpctl\.exe", "<mcpctl>", text, flags=re.I)
    text = text.replace(work, "<work>")
    return text

differences = 0
# Both answering nothing alike would agree: the seeded files must be seen.
with open(os.path.join(out, "sim", "list")) as f:
    seen = json.load(f)
if not isinstance(seen, list) or len(seen) < 4:
    print(f"DIFFER list: the simulation saw {len(seen) if isinstance(seen, list) else seen!r} entries, not the seeded ones")
    differences += 1
for name in sorted(os.listdir(os.path.join(out, "wine"))):
    if name.endswith((".err", ".rc")):
        continue
    pair = {}
    for side in ("wine", "sim"):
        base = os.path.join(out, side, name)
        with open(base, encoding="utf-8", errors="replace") as f:
            text = norm(f.read())
        with open(base + ".rc") as f:
            rc = f.read().strip()
        try:
            value = json.loads(text)
        except ValueError:
            value = text
        pair[side] = (rc, value)
    if pair["wine"] == pair["sim"]:
        print(f"agree  {name}")
        continue
    differences += 1
    print(f"DIFFER {name}: exit {pair['wine'][0]} (mcpctl.exe) / {pair['sim'][0]} (--platform windows)")
    a = json.dumps(pair["wine"][1], indent=1, sort_keys=True).splitlines() if not isinstance(pair["wine"][1], str) else pair["wine"][1].splitlines()
    b = json.dumps(pair["sim"][1], indent=1, sort_keys=True).splitlines() if not isinstance(pair["sim"][1], str) else pair["sim"][1].splitlines()
    import difflib
    for line in list(difflib.unified_diff(a, b, "mcpctl.exe", "--platform windows", lineterm=""))[:60]:
        print("    " + line)
    for side in ("wine", "sim"):
        err = open(os.path.join(out, side, name + ".err"), errors="replace").read().strip()
        if err:
            print(f"    {side} stderr: {err[:400]}")
sys.exit(1 if differences else 0)
PY
