#!/usr/bin/env python3
"""doctor against its physical floor (issue 26).

doctor cannot finish before its slowest server has answered, nor before the machine has
spent the CPU every server needs to start: floor = max(slowest server alone, sum of the
servers' start CPU / cores). This script measures each server *alone* (spawn ->
`initialize` reply, wall time and CPU from wait4's rusage of the server), computes the
floor, then runs `mcpctl doctor -c claude-code` over all of them and, if the Claude Code
CLI is in .cache/clients, `claude mcp list` over the same ~/.claude.json, **interleaved**
(each round runs both in a shuffled order; the figures are medians). It also gives the CPU
doctor and the servers it started used per run (rusage of children), beside the sum of the
servers' start CPU alone: on a loaded machine the wall time measures the run queue, the
CPU what doctor costs.

Sets of servers (each printed as its own row):
  real     the registry servers under .cache/peers (server-everything and server-memory
           from npm, four copies of the official Python SDK server from PyPI), if present
  fixture  N fixture servers that work 100..600 ms of CPU before serving (`busy-start`),
           every other one staying after its input closes until SIGTERM (`linger`)
  fast     N fixture servers of 20 ms start CPU, half lingering: where doctor may beat
           `claude mcp list` by 2x
  ignore   the same, but hand-written handshake-era servers that never answer
           `server/discover` (`ignore-unknown`): what the probe window costs

Besides the ratios, each row gives the list schedule: the servers' alone times packed in
config order onto --jobs workers (default: cores), the best doctor can do without
knowing the start costs in advance, against the floor's perfect packing; and, from one
`doctor --json` run, the slowest `discover` phase and the slowest `shutdown` phase (what
the probe window and the exit grace cost at most; a shutdown that overlaps later
handshakes costs no wall time, so the slowest one is usually not the last).

Usage: bench/doctor_floor.py [-n N] [-r ROUNDS] [--sets real,fixture,fast,ignore]
                             [--jobs J] [--mcpctl PATH] [--before PATH] [--no-claude]
Needs: target/perf/mcpctl and target/perf/fixture-server (built here unless --mcpctl).
"""
import argparse
import json
import os
import random
import resource
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INITIALIZE = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "doctor-floor", "version": "0"}},
}) + "\n"


def cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def servers_of(kind, n, fixture, tmp):
    """name -> Claude Code stdio entry."""
    out = {}
    if kind == "real":
        npm = ROOT / ".cache/peers/npm/node_modules/@modelcontextprotocol"
        py = ROOT / ".cache/peers/venv/bin/python"
        script = ROOT / "tests/fixtures/servers/python_mcp_server.py"
        if not (npm / "server-everything/dist/index.js").exists() or not py.exists():
            return None
        out["everything"] = {"type": "stdio", "command": "node",
                             "args": [str(npm / "server-everything/dist/index.js"), "stdio"]}
        out["memory"] = {"type": "stdio", "command": "node",
                         "args": [str(npm / "server-memory/dist/index.js")],
                         "env": {"MEMORY_FILE_PATH": str(tmp / "memory.jsonl")}}
        for i in range(4):
            # Distinct env: doctor shares one handshake among identical entries.
            out[f"python{i}"] = {"type": "stdio", "command": str(py), "args": [str(script)],
                                 "env": {"BENCH_SERVER": str(i)}}
        return out
    for i in range(n):
        if kind == "fixture":
            busy = 100 + (500 * i) // max(n - 1, 1)
        else:
            busy = 20
        # `dual`: answers `server/discover`; `ignore-unknown`: a hand-written handshake-era
        # server that never answers it.
        era = "ignore-unknown" if kind == "ignore" else "dual"
        args = [f"busy-start={busy}", era] + (["linger"] if i % 2 == 0 else [])
        out[f"{kind}{i}"] = {"type": "stdio", "command": str(fixture), "args": args,
                             "env": {"BENCH_SERVER": str(i)}}
    return out


def alone(entry, env):
    """(wall s, CPU s) of one server from spawn to its initialize reply."""
    full = dict(env)
    full.update(entry.get("env", {}))
    command = shutil.which(entry["command"], path=full.get("PATH")) or entry["command"]
    started = time.perf_counter()
    proc = subprocess.Popen([command, *entry["args"]], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=full,
                            start_new_session=True)
    proc.stdin.write(INITIALIZE.encode())
    proc.stdin.flush()
    buffer = b""
    answered = None
    deadline = started + 60
    fd = proc.stdout.fileno()
    while answered is None and time.perf_counter() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        buffer += chunk
        for line in buffer.split(b"\n")[:-1]:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == 1:
                answered = time.perf_counter()
        buffer = buffer.rsplit(b"\n", 1)[-1]
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    if answered is None:
        raise SystemExit(f"doctor_floor.py: {entry['command']} {entry['args']} never answered")
    return answered - started, usage.ru_utime + usage.ru_stime


def list_schedule(walls, jobs):
    """Makespan of `walls` (config order) started on `jobs` workers as each frees."""
    free = [0.0] * max(jobs, 1)
    for wall in walls:
        start = min(free)
        free[free.index(start)] = start + wall
    return max(free)


def phases(report):
    """(slowest discover ms, slowest shutdown ms) of a doctor --json report."""
    results = []

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("phases"), list):
                results.append(node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(report)
    discover = [p["elapsed_ms"] for r in results for p in r["phases"]
                if p.get("phase") == "discover"]
    shutdown = [p["elapsed_ms"] for r in results for p in r["phases"]
                if p.get("phase") == "shutdown"]
    return (max(discover) if discover else None, max(shutdown) if shutdown else None)


def timed(argv, env, cwd):
    """(wall s, run, CPU s of the command and everything it reaped)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    run = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, run, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=8, help="fixture servers per set")
    parser.add_argument("-r", "--rounds", type=int, default=5)
    parser.add_argument("--sets", default="real,fixture,fast,ignore")
    parser.add_argument("--jobs", type=int, default=None, help="doctor --jobs (default: its own)")
    parser.add_argument("--mcpctl", default=None)
    parser.add_argument("--before", default=None,
                        help="another build (e.g. main before a change), run in the same rounds")
    parser.add_argument("--no-claude", action="store_true")
    args = parser.parse_args()

    if args.mcpctl is None:
        subprocess.run(["cargo", "build", "--profile", "perf", "--quiet"], cwd=ROOT, check=True)
    subprocess.run(["cargo", "build", "--profile", "perf", "--quiet", "-p", "fixture-server"],
                   cwd=ROOT, check=True)
    mcpctl = str(Path(args.mcpctl).resolve()) if args.mcpctl else str(ROOT / "target/perf/mcpctl")
    fixture = ROOT / "target/perf/fixture-server"
    claude = ROOT / ".cache/clients/claude/node_modules/.bin/claude"
    use_claude = claude.exists() and not args.no_claude
    n_cores = cores()

    (ROOT / ".cache").mkdir(exist_ok=True)
    rows = []
    for kind in args.sets.split(","):
        tmp = Path(tempfile.mkdtemp(prefix=f"bench-floor-{kind}.", dir=ROOT / ".cache"))
        try:
            servers = servers_of(kind, args.n, fixture, tmp)
            if servers is None:
                print(f"# {kind}: skipped (run .ci/peers.sh)", file=sys.stderr)
                continue
            env = {k: v for k, v in os.environ.items()
                   if k not in ("CLAUDE_CONFIG_DIR", "ANTHROPIC_API_KEY")}
            env.update(HOME=str(tmp), USERPROFILE=str(tmp), XDG_CONFIG_HOME=str(tmp / ".config"),
                       MCPCTL_STATE_DIR=str(tmp / "state"), DISABLE_TELEMETRY="1",
                       DISABLE_AUTOUPDATER="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
            (tmp / ".claude.json").write_text(json.dumps(
                {"numStartups": 1, "hasCompletedOnboarding": True, "mcpServers": servers},
                indent=2))

            # Each server alone, a few times each (medians), before the interleaved runs.
            solo = {}
            for name, entry in servers.items():
                alone(entry, env)  # warm the page cache
                walls, cpus = zip(*(alone(entry, env) for _ in range(3)))
                solo[name] = (statistics.median(walls), statistics.median(cpus))
            slowest = max(w for w, _ in solo.values())
            cpu_sum = sum(c for _, c in solo.values())
            floor = max(slowest, cpu_sum / n_cores)
            packed = list_schedule([w for w, _ in solo.values()], args.jobs or n_cores)

            doctor = [mcpctl, "doctor", "-c", "claude-code"]
            if args.jobs:
                doctor += ["--jobs", str(args.jobs)]
            commands = {"doctor": doctor}
            # Each build its own state directory (doctor remembers token estimates there).
            envs = {"doctor": env}
            if args.before:
                commands["before"] = [str(Path(args.before).resolve()), *doctor[1:]]
                envs["before"] = dict(env, MCPCTL_STATE_DIR=str(tmp / "state-before"))
            if use_claude:
                commands["claude"] = [str(claude), "mcp", "list"]
                envs["claude"] = env
            for name, argv in commands.items():  # warm-up
                timed(argv, envs[name], tmp)
            walls = {name: [] for name in commands}
            cpus = {name: [] for name in commands}
            for _ in range(args.rounds):
                order = list(commands)
                random.shuffle(order)
                for name in order:
                    wall, run, cpu = timed(commands[name], envs[name], tmp)
                    walls[name].append(wall)
                    cpus[name].append(cpu)
                    if name == "doctor" and run.returncode != 0:
                        print(f"# {kind}: doctor exited {run.returncode}:\n{run.stdout}",
                              file=sys.stderr)
            _, run, _ = timed(doctor + ["--json"], env, tmp)
            try:
                discover_ms, shutdown_ms = phases(json.loads(run.stdout))
            except ValueError:
                discover_ms, shutdown_ms = None, None
            load = os.getloadavg()[0]
            doctor_wall = statistics.median(walls["doctor"])
            claude_wall = statistics.median(walls["claude"]) if use_claude else None
            before_wall = statistics.median(walls["before"]) if args.before else None
            doctor_cpu = statistics.median(cpus["doctor"])
            before_cpu = statistics.median(cpus["before"]) if args.before else None
            print(f"# {kind}: each server alone (wall s, CPU s):", file=sys.stderr)
            for name, (w, c) in solo.items():
                print(f"#   {name:12} {w:6.3f} {c:6.3f}", file=sys.stderr)
            rows.append((kind, len(servers), slowest, cpu_sum, floor, packed, doctor_wall,
                         claude_wall, before_wall, before_cpu, doctor_cpu, discover_ms,
                         shutdown_ms, load))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    print(f"| set | servers | slowest alone s | start CPU s (sum) | floor s ({n_cores} cores) "
          f"| list schedule s | doctor s | doctor / floor | `claude mcp list` s | doctor / claude "
          f"| before s (/ floor; CPU s) | doctor + servers CPU s | slowest discover / shutdown ms | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (kind, count, slowest, cpu_sum, floor, packed, doctor_wall, claude_wall,
         before_wall, before_cpu, doctor_cpu, discover_ms, shutdown_ms, load) in rows:
        before_cell = (f"{before_wall:.2f} ({before_wall / floor:.2f}×; {before_cpu:.2f})"
                       if before_wall else "—")
        claude_cells = (f"{claude_wall:.2f} | {doctor_wall / claude_wall:.2f}×"
                        if claude_wall else "— | —")
        ms = lambda v: "—" if v is None else str(v)
        print(f"| {kind} | {count} | {slowest:.2f} | {cpu_sum:.2f} | {floor:.2f} | "
              f"{packed:.2f} ({packed / floor:.2f}×) | "
              f"{doctor_wall:.2f} | **{doctor_wall / floor:.2f}×** | {claude_cells} | {before_cell} "
              f"| {doctor_cpu:.2f} | {ms(discover_ms)} / {ms(shutdown_ms)} | {load:.1f} |")


if __name__ == "__main__":
    main()
