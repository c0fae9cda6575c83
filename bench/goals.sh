#!/usr/bin/env bash
# Every goal of the proportion rule (docs/dev/proportion.md, issue 36), measured side by
# side in one run: each round runs every measurement once, in a shuffled order, so a
# shared machine's load moves them alike; figures are medians over the rounds (peak
# memory: the largest of the rounds). Prints one Markdown table:
#   figure | mcpctl | peer or limit | ratio | goal | met?
#
# The goals:
#   - 17 MB ~/.claude.json, add + remove: wall ≤ 2× two durable copies of the file
#   - 50 KB ~/.claude.json, add: wall ≤ 1.2× one durable copy
#     (a durable copy = `cp` to a new name, `sync` it, `mv` it over the target, `sync` the
#     directory: what one mcpctl write promises, by hand, as bench/write_path.py's floor;
#     the same four steps done inside this script, without starting processes, are
#     printed beside it)
#   - 1,000 manifest servers × 3 clients (Claude Code, Cursor, Codex): plan < 1 s of CPU
#   - peak memory (/usr/bin/time -f %M) of check, list and add on the 17 MB file ≤ 3× the file
#   - start-up (`--version`, `clients`, `list` on a 5 KB file of ten servers) ≤ 5 ms wall
#     (median of 9 runs a round; their CPU time, less moved by a busy machine, beside it)
#
# usage: bench/goals.sh [-n ROUNDS] [--no-build] [--mcpctl BIN]
#   -n ROUNDS     interleaved rounds after one warm-up round (default 21; 1-2 min on 2 cores)
#   --no-build    measure target/perf/mcpctl as it is (default: cargo build --profile perf)
#   --mcpctl BIN  measure another build (implies --no-build)
# Needs python3 and /usr/bin/time (installed from Debian's `time` package when missing).
# Reuses bench/gen_claude_json.py for the files and bench/plan_scale.sh's manifest shape.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/target/perf/mcpctl"
ROUNDS=21
BUILD=1
while (($#)); do
  case "$1" in
    -n) ROUNDS="$2"; shift ;;
    --no-build) BUILD=0 ;;
    --mcpctl) BIN="$2"; BUILD=0; shift ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "goals.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

if [[ ! -x /usr/bin/time ]]; then
  { apt-get install -y time || { apt-get update && apt-get install -y time; }; } >/dev/null 2>&1 \
    || { echo "goals.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
fi
if ((BUILD)); then
  (cd "$ROOT" && cargo build --quiet --profile perf)
fi
[[ -x "$BIN" ]] || { echo "goals.sh: no build at $BIN (cargo build --profile perf)" >&2; exit 2; }

mkdir -p "$ROOT/.cache"
WORK="$(mktemp -d "$ROOT/.cache/bench-goals.XXXXXX")"
[[ -n "${KEEP:-}" ]] || trap 'rm -rf "$WORK"' EXIT

python3 - "$ROOT" "$BIN" "$WORK" "$ROUNDS" <<'PY'
import hashlib, os, random, resource, shutil, statistics, subprocess, sys, time

root, binary, work, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
gen = os.path.join(root, "bench/gen_claude_json.py")


def home(name):
    path = os.path.join(work, name)
    os.makedirs(path)
    return path


def env_of(home_dir, **extra):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home_dir,
           "USERPROFILE": home_dir, "XDG_CONFIG_HOME": os.path.join(home_dir, ".config"),
           "MCPCTL_STATE_DIR": os.path.join(home_dir, ".state"), "NO_COLOR": "1"}
    env.update(extra)
    return env


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(argv, env, ok=(0,)):
    done = subprocess.run(argv, env=env, cwd=env["HOME"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    if done.returncode not in ok:
        sys.exit(f"goals.sh: {' '.join(argv)} exited {done.returncode}:\n"
                 + done.stderr.decode(errors="replace"))


def wall_ms(argv, env, ok=(0,)):
    t0 = time.perf_counter()
    run(argv, env, ok)
    return (time.perf_counter() - t0) * 1000


def cpu_ms(argv, env, ok=(0,)):
    """User + system CPU of the child, from this process's children's rusage."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run(argv, env, ok)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000


def peak_kib(argv, env, ok=(0,)):
    out = os.path.join(work, "time.out")
    run(["/usr/bin/time", "-f", "%M", "-o", out] + argv, env, ok)
    with open(out) as f:
        return int(f.read().split()[-1])


def durable_copy_by_hand(src, directory):
    """`cp` to a new name, `sync` it, `mv` it over the target, `sync` the directory."""
    tmp, target = os.path.join(directory, "copy.tmp"), os.path.join(directory, "copy.json")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    t0 = time.perf_counter()
    for argv in (["cp", src, tmp], ["sync", tmp], ["mv", tmp, target], ["sync", directory]):
        subprocess.run(argv, env=env, check=True)
    return (time.perf_counter() - t0) * 1000


def durable_copy(src, directory):
    """The same four steps in this process: no process started."""
    tmp, target = os.path.join(directory, "copy.tmp"), os.path.join(directory, "copy.json")
    t0 = time.perf_counter()
    shutil.copyfile(src, tmp)
    fd = os.open(tmp, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
    os.rename(tmp, target)
    fd = os.open(directory, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
    return (time.perf_counter() - t0) * 1000


def clean(home_dir):
    # Backups and journal records are not what is measured: cleared outside the timing.
    for sub in ("backups", "journal"):
        shutil.rmtree(os.path.join(home_dir, ".state", sub), ignore_errors=True)


# --- the files
big_home, small_home, common_home, plan_home = (home(n) for n in ("big", "small", "common", "plan"))
big = os.path.join(big_home, ".claude.json")
small = os.path.join(small_home, ".claude.json")
subprocess.run([sys.executable, gen, big, "17M"], check=True)
subprocess.run([sys.executable, gen, small, "50K"], check=True)
big_size, small_size = os.path.getsize(big), os.path.getsize(small)
sums = {big: sha(big), small: sha(small)}
copies = {big: home("big-copies"), small: home("small-copies")}
for src, directory in copies.items():
    shutil.copyfile(src, os.path.join(directory, "copy.json"))

# The common case: ten servers in a 5 KB ~/.claude.json, and Cursor's and Codex's files.
common = ['{', '  "numStartups": 12,', '  "installMethod": "npm",', '  "mcpServers": {']
for i in range(10):
    comma = "," if i < 9 else ""
    common.append(f'    "server-{i}": {{\n      "type": "stdio",\n      "command": "npx",\n'
                  f'      "args": ["-y", "@example/server-{i}@1.{i}.0"],\n'
                  f'      "env": {{ "LOG_LEVEL": "info" }}\n    }}{comma}')
common.append('  },\n  "projects": {')
projects = []
for i in range(14):
    projects.append(f'    "/home/dev/src/project-{i:02d}": {{\n      "allowedTools": ["Edit"],\n'
                    f'      "history": [{{ "display": "fix the failing test in src/lib.rs, take {i}" }}],\n'
                    f'      "mcpServers": {{}},\n      "hasTrustDialogAccepted": true\n    }}')
common.append(",\n".join(projects) + "\n  }\n}")
with open(os.path.join(common_home, ".claude.json"), "w") as f:
    f.write("\n".join(common))
common_size = os.path.getsize(os.path.join(common_home, ".claude.json"))
os.makedirs(os.path.join(common_home, ".cursor"))
with open(os.path.join(common_home, ".cursor/mcp.json"), "w") as f:
    f.write('{\n  "mcpServers": {\n    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] }\n  }\n}\n')
os.makedirs(os.path.join(common_home, ".codex"))
with open(os.path.join(common_home, ".codex/config.toml"), "w") as f:
    f.write('model = "o3"\n\n[mcp_servers.memory]\ncommand = "npx"\nargs = ["-y", "@modelcontextprotocol/server-memory"]\n')

# bench/plan_scale.sh's manifest: every fifth server remote, the rest stdio with env.
manifest = os.path.join(work, "manifest.toml")
lines = ['clients = ["claude-code", "cursor", "codex"]', ""]
for i in range(1000):
    if i % 5 == 4:
        lines += [f"[servers.remote{i}]", f'url = "https://mcp{i}.example.com/mcp"',
                  'headers = { X-Api-Key = "${DOCS_KEY}" }', ""]
    else:
        lines += [f"[servers.local{i}]", 'command = "npx"', f'args = ["-y", "@example/server-{i}@1.0.{i}"]',
                  f'env = {{ API_KEY = "${{API_KEY}}", MODE = "fast{i % 7}" }}', ""]
with open(manifest, "w") as f:
    f.write("\n".join(lines))


def fresh_plan_home():
    shutil.rmtree(plan_home)
    for sub in (".cursor", ".codex"):
        os.makedirs(os.path.join(plan_home, sub))


big_env, small_env, common_env = env_of(big_home), env_of(small_home), env_of(common_home)
plan_env = env_of(plan_home, MCPCTL_MANIFEST=manifest)
add = [binary, "add", "x", "-c", "claude-code", "-q", "--", "npx", "-y", "pkg"]
remove = [binary, "remove", "x", "-c", "claude-code", "-q"]


# --- the measurements: name -> function returning {figure: value}
def big_write():
    clean(big_home)
    ms = wall_ms(add, big_env) + wall_ms(remove, big_env)
    clean(big_home)
    return {"big mcpctl": ms}


def big_copies():
    return {"big copies": durable_copy_by_hand(big, copies[big])
            + durable_copy_by_hand(big, copies[big])}


def big_copies_here():
    return {"big copies here": durable_copy(big, copies[big]) + durable_copy(big, copies[big])}


def small_add():
    clean(small_home)
    ms = wall_ms(add, small_env)
    run(remove, small_env)
    clean(small_home)
    return {"small mcpctl": ms}


def small_copy():
    return {"small copy": durable_copy_by_hand(small, copies[small])}


def small_copy_here():
    return {"small copy here": durable_copy(small, copies[small])}


def plan():
    # A plan exits 1 when something is to change (and when a variable is unset).
    fresh_plan_home()
    out = {"plan add": cpu_ms([binary, "plan", "--json"], plan_env, ok=(0, 1))}
    out["apply"] = cpu_ms([binary, "apply"], plan_env, ok=(0, 1))
    out["plan ok"] = cpu_ms([binary, "plan", "--json"], plan_env, ok=(0, 1))
    return out


def memory():
    clean(big_home)
    out = {"peak check": peak_kib([binary, "check", "-c", "claude-code", big], big_env, ok=(0, 1)),
           "peak list": peak_kib([binary, "list", "-c", "claude-code"], big_env),
           "peak add": peak_kib(add, big_env),
           "peak remove": peak_kib(remove, big_env)}
    clean(big_home)
    return out


def startup():
    out = {}
    for name, argv in (("version", [binary, "--version"]), ("clients", [binary, "clients"]),
                       ("list", [binary, "list"])):
        out[name] = statistics.median(wall_ms(argv, common_env) for _ in range(9))
        out[name + " cpu"] = statistics.median(cpu_ms(argv, common_env) for _ in range(9))
    return out


measures = [big_write, big_copies, big_copies_here, small_add, small_copy, small_copy_here,
            plan, memory, startup]
values = {}
load_before = os.getloadavg()
started = time.perf_counter()
rng = random.Random(36)
for round_ in range(rounds + 1):
    order = measures[:]
    rng.shuffle(order)
    for measure in order:
        for figure, value in measure().items():
            if round_ > 0:  # the first round warms the page cache and the binary
                values.setdefault(figure, []).append(value)
load_after = os.getloadavg()
for path, digest in sums.items():
    if sha(path) != digest:
        sys.exit(f"goals.sh: add + remove changed {path}")

med = {k: statistics.median(v) for k, v in values.items()}
top = {k: max(v) for k, v in values.items()}
mib = 1024 * 1024
print(f"mcpctl {binary}; {rounds} interleaved rounds after one warm-up, "
      f"{time.perf_counter() - started:.0f} s; load average {load_before[0]:.1f} before, "
      f"{load_after[0]:.1f} after; big file {big_size:,} bytes, small {small_size:,}, "
      f"common {common_size:,}")
print()
print("| figure | mcpctl | peer or limit | ratio | goal | met? |")
print("|---|---|---|---|---|---|")


def row(figure, value, peer, ratio, goal, met):
    verdict = "—" if met is None else "yes" if met else "**no**"
    print(f"| {figure} | {value} | {peer} | {ratio:.2f}× | {goal} | {verdict} |")


r = med["big mcpctl"] / med["big copies"]
row("17 MB `~/.claude.json`, add + remove, wall (median)", f"{med['big mcpctl']:.1f} ms",
    f"2 durable copies {med['big copies']:.1f} ms (no process started: "
    f"{med['big copies here']:.1f} ms)", r, "≤ 2×", r <= 2)
r = med["small mcpctl"] / med["small copy"]
row("50 KB `~/.claude.json`, add, wall (median)", f"{med['small mcpctl']:.1f} ms",
    f"1 durable copy {med['small copy']:.1f} ms (no process started: "
    f"{med['small copy here']:.1f} ms)", r, "≤ 1.2×", r <= 1.2)
for key, label in (("plan add", "all to add"), ("plan ok", "in sync")):
    row(f"`plan`, 1,000 manifest servers × 3 clients, {label}, CPU (median)", f"{med[key]:.0f} ms",
        "limit 1,000 ms", med[key] / 1000, "< 1 s", med[key] < 1000)
print(f"| `apply` of the same (no goal), CPU (median) | {med['apply']:.0f} ms | — | — | — | — |")
for cmd in ("check", "list", "add", "remove"):
    kib = top[f"peak {cmd}"]
    r = kib * 1024 / big_size
    goal, met = ("≤ 3×", r <= 3) if cmd != "remove" else ("(no goal)", None)
    row(f"peak memory, `{cmd}` on the 17 MB file (largest)", f"{kib / 1024:.1f} MiB",
        f"the file {big_size / mib:.1f} MiB", r, goal, met)
for key, label in (("version", "`mcpctl --version`"), ("clients", "`mcpctl clients`"),
                   ("list", "`mcpctl list`, ten servers in 5 KB")):
    row(f"start-up, {label}, wall (median)", f"{med[key]:.1f} ms (CPU {med[key + ' cpu']:.1f} ms)",
        "limit 5 ms", med[key] / 5, "≤ 5 ms", med[key] <= 5)
PY
