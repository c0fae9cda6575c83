#!/usr/bin/env python3
"""The write path against its limit (issue 26): `mcpctl add` + `remove` of one server in a
realistic ~/.claude.json, against two durable copies of the file (`cp` then `sync FILE`,
i.e. the copy's fsync: one durable write each, what an add and a remove are at least).

The commands run interleaved (each round runs every command once, in a shuffled order) and
the figures are medians, so a shared machine's load moves all of them alike; the load
average is printed before and after. Also printed: peak RSS of an add and of a remove
(/usr/bin/time), against the file's size, and the fsyncs of one add and one remove
(`strace -f -c`), when those tools are installed. A third baseline is what one mcpctl
write promises, done by hand: two atomic durable replaces (copy to a new name, fsync, rename
over the file, fsync the directory: two sync waits in a row, as an add has).

Usage: bench/write_path.py [--size 17M|50K] [-n ROUNDS] [--mcpctl BIN] [--other BIN]...
  --size SIZE   the file (default 17M; 50K for the small-file figure)
  -n ROUNDS     interleaved rounds (default 15), after 2 warm-up rounds
  --mcpctl BIN  the build measured (default target/perf/mcpctl: cargo build --profile perf)
  --other BIN   another build measured in the same rounds (e.g. main's, for before/after);
                may be given more than once
Prints Markdown rows for BENCHMARKS.md ("Write path").
"""

import argparse
import hashlib
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def timed(argv_list, env):
    """Wall ms of running each argv in turn (one 'pair')."""
    t0 = time.perf_counter()
    for argv in argv_list:
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - t0) * 1000


def peak_rss_kib(argv, env):
    if not os.access("/usr/bin/time", os.X_OK):
        return None
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, env=env, check=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return int(out.stderr.strip().splitlines()[-1])


def fsyncs(argv, env):
    """fsync + fdatasync calls of one run (the syscalls that wait for the disk), and
    sync_file_range calls (which only start writeback), by `strace -f -c`; None without
    strace."""
    if not shutil.which("strace"):
        return None
    out = subprocess.run(["strace", "-f", "-c", "-e", "trace=fsync,fdatasync,sync_file_range,syncfs"]
                         + argv, env=env, check=True, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    waits = starts = 0
    for line in out.stderr.splitlines():
        parts = line.split()
        if parts and parts[-1] in ("fsync", "fdatasync", "syncfs"):
            waits += int(parts[3])
        elif parts and parts[-1] == "sync_file_range":
            starts += int(parts[3])
    return f"{waits}" + (f" (+{starts} sync_file_range)" if starts else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="17M")
    ap.add_argument("-n", type=int, default=15)
    ap.add_argument("--mcpctl", default=os.path.join(ROOT, "target/perf/mcpctl"))
    ap.add_argument("--other", action="append", default=[])
    args = ap.parse_args()
    builds = {"mcpctl": args.mcpctl}
    for i, other in enumerate(args.other):
        builds["other" if i == 0 else f"other{i + 1}"] = other
    for name, path in builds.items():
        if not os.access(path, os.X_OK):
            sys.exit(f"write_path.py: no {name} build at {path} (cargo build --profile perf)")

    os.makedirs(os.path.join(ROOT, ".cache"), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="bench-write.", dir=os.path.join(ROOT, ".cache"))
    try:
        home = os.path.join(tmp, "home")
        state = os.path.join(tmp, "state")
        os.makedirs(home)
        path = os.path.join(home, ".claude.json")
        subprocess.run([sys.executable, os.path.join(ROOT, "bench/gen_claude_json.py"), path,
                        args.size], check=True)
        size = os.path.getsize(path)
        before = sha(path)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
               "XDG_CONFIG_HOME": os.path.join(home, ".config"), "MCPCTL_STATE_DIR": state,
               "NO_COLOR": "1"}
        copies = [os.path.join(tmp, "copy1"), os.path.join(tmp, "copy2")]
        pairs = {"durable": [["cp", path, copies[0]], ["sync", copies[0]],
                             ["cp", path, copies[1]], ["sync", copies[1]]]}
        # The same durability as one mcpctl write, by hand: a new file beside the old one,
        # its fsync, a rename over the old one and the directory's fsync (two sync waits
        # in a row; `sync FILE` alone leaves the name undurable). Twice, like add + remove.
        replace_dir = os.path.join(tmp, "replace")
        os.makedirs(replace_dir)
        target, new = os.path.join(replace_dir, "config.json"), os.path.join(replace_dir, "config.new")
        shutil.copyfile(path, target)
        pairs["replace"] = [["cp", path, new], ["sync", new], ["mv", new, target],
                            ["sync", replace_dir]] * 2
        for name, binary in builds.items():
            pairs[name] = [[binary, "add", "x", "-c", "claude-code", "-q", "--", "npx", "-y", "pkg"],
                           [binary, "remove", "x", "-c", "claude-code", "-q"]]

        def clean():
            # Backups (a hard link per write) and journal records are not what is measured:
            # cleared between rounds, outside the timed part.
            for sub in ("backups", "journal"):
                shutil.rmtree(os.path.join(state, sub), ignore_errors=True)
            for c in copies:
                if os.path.exists(c):
                    os.remove(c)

        load_before = os.getloadavg()
        times = {name: [] for name in pairs}
        rng = random.Random(1)
        for round_ in range(args.n + 2):
            order = list(pairs)
            rng.shuffle(order)
            for name in order:
                clean()
                ms = timed(pairs[name], env)
                if round_ >= 2:
                    times[name].append(ms)
        load_after = os.getloadavg()
        clean()
        if sha(path) != before:
            sys.exit("write_path.py: add + remove changed the file")

        med = {name: statistics.median(v) for name, v in times.items()}
        spread = {name: (min(v), max(v)) for name, v in times.items()}
        print(f"file: ~/.claude.json, {size:,} bytes ({args.size}); {args.n} interleaved rounds "
              f"after 2 warm-up; load average {load_before[0]:.1f} before, {load_after[0]:.1f} after")
        print()
        print("| command | median ms | min–max ms | vs 2 durable copies | vs 2 atomic durable replaces |")
        print("|---|---|---|---|---|")
        labels = {"durable": "2 × durable copy (`cp` + `sync FILE`)",
                  "replace": "2 × atomic durable replace (`cp` to a new name, `sync`, `mv` over, `sync DIR`)"}
        labels.update({name: f"mcpctl add + remove ({binary})" for name, binary in builds.items()})
        for name in pairs:
            lo, hi = spread[name]
            print(f"| {labels[name]} | {med[name]:.1f} | {lo:.1f}–{hi:.1f} | "
                  f"{med[name] / med['durable']:.2f}× | {med[name] / med['replace']:.2f}× |")
        goal = 1.5 if size > 1 << 20 else 1.2
        ratio = med["mcpctl"] / med["durable"]
        print(f"\ngoal (issue 26): ≤ {goal}× two durable copies → "
              f"{'met' if ratio <= goal else 'not met'} ({ratio:.2f}×)")
        print()
        print("| build | peak RSS add / remove | × file size | fsync + fdatasync add / remove |")
        print("|---|---|---|---|")
        for name in builds:
            add, remove = pairs[name]
            rss = [peak_rss_kib(add, env), peak_rss_kib(remove, env)]
            syncs = [fsyncs(add, env), fsyncs(remove, env)]
            clean()
            if None in rss:
                rss_text, ratio = "n/a", "n/a"
            else:
                rss_text = f"{rss[0] / 1024:.1f} / {rss[1] / 1024:.1f} MiB"
                ratio = f"{max(rss) * 1024 / size:.2f}×"
            sync_text = "n/a" if None in syncs else f"{syncs[0]} / {syncs[1]}"
            print(f"| {name} | {rss_text} | {ratio} | {sync_text} |")
        print("\ngoal (issue 26): peak RSS ≤ 3× the file (17 MB); fsyncs: 2 waits in a row")
    finally:
        if not os.environ.get("KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
