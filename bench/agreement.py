#!/usr/bin/env python3
"""How often `mcpctl doctor`'s per-client verdict agrees with each client's own view of
the same entries, written in each client's own format, for the eight clients whose CLI
installs and can tell whether a server works:

  claude-code, gemini-cli, qwen-code  `mcp list` connects: "Connected"
  opencode, kilo                      `mcp list` connects: "✓ NAME" / "✗ NAME"
  factory (droid)                     `mcp list` connects: "NAME ... connected"
  amp                                 `amp mcp doctor` connects: "NAME (...): connected"
  codex                               `codex mcp list` starts nothing, so a session:
                                      `codex exec` (model on a closed port) logs
                                      "MCP server startup failed server_name=NAME"

Entries (over 27 per client): the fixture server (tests/common/fixture_server.rs) in every
mode that matters to a client (eras, transports, environment, failures), the Python SDK
2.x on stdio and Streamable HTTP, the TypeScript SDK's memory server, a 401 with a wrong
static key and one with OAuth metadata, an unset variable, a server Gemini CLI's *system*
settings exclude, then a second home whose files the clients reject (a comment in
~/.claude.json, a trailing comma elsewhere) and a third whose folder Gemini CLI does not
trust.

An entry "works" for a client when the client says so as above; for doctor when the
client's row is ok or warn, except a ⚠ that the server needs a sign-in (HTTP 401), which
no client connects to before one either. Prints per client `agree/N` and each
disagreement with what the client said and doctor's status.

Usage: bench/agreement.py [--mcpctl PATH]... [--clients ID,...] [--min PERCENT]
  --mcpctl  one column per mcpctl build (default target/debug/mcpctl)
  --clients only these client ids
  --min     exit 1 when a client whose CLI ran agrees on fewer than PERCENT% of its
            entries (the last build's column)
Needs the fixture server (cargo build -p fixture-server), the clients from
.ci/clients.sh and the peers from .ci/peers.sh (a missing client is reported and left out).
"""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# `.ci/clients.sh` installs one prefix per CLI, named like its bin.
CLIENT_DIR = os.path.join(ROOT, ".cache/clients")
PEERS = os.path.join(ROOT, ".cache/peers")
FIXTURE = os.path.join(ROOT, "target/debug/fixture-server")
PYTHON = os.path.join(PEERS, "venv/bin/python")
PY_SERVER = os.path.join(ROOT, "tests/fixtures/servers/python_mcp_server.py")
TS_MEMORY = os.path.join(
    PEERS, "npm/node_modules/@modelcontextprotocol/server-memory/dist/index.js"
)

# client id -> the CLI's bin name.
CLIENTS = {
    "claude-code": "claude",
    "gemini-cli": "gemini",
    "qwen-code": "qwen",
    "opencode": "opencode",
    "kilo": "kilo",
    "amp": "amp",
    "factory": "droid",
    "codex": "codex",
}


def client_bin(name):
    return os.path.join(CLIENT_DIR, name, "node_modules/.bin", name)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port):
    until = time.time() + 60
    while time.time() < until:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"nothing listened on {port}")


SCRIPTS = tempfile.mkdtemp(prefix="mcpctl-agree-bin-")


def needs(var):
    """A server that starts only when `var` reaches it (a script file: Gemini CLI expands
    `$VAR` in a settings file's strings itself). What it got is kept in `seen-VAR`, the
    evidence when a client passes a reference it could not expand as a literal."""
    path = os.path.join(SCRIPTS, f"needs-{var.lower()}.sh")
    seen = os.path.join(SCRIPTS, f"seen-{var.lower()}")
    with open(path, "w") as fh:
        fh.write(f'#!/bin/sh\nprintf "%s\\n" "${var}" >>"{seen}"\n'
                 f'test -n "${var}" || exit 3\nexec "{FIXTURE}"\n')
    os.chmod(path, 0o755)
    return [path]


def entries(ports):
    """name -> spec: {"kind": "stdio", "argv", "env", "pass"} or {"kind": "http"|"sse",
    "url", "headers"}. `env` values are literal; `pass` names variables the entry passes
    from the client's environment by reference (each client's own syntax)."""
    f = FIXTURE
    stdio = {
        "legacy": [f],
        "modern": [f, "modern"],
        "dual": [f, "dual"],
        "strict-modern": [f, "strict-modern"],
        "older": [f, "older"],
        "paginate": [f, "paginate"],
        "exits": [f, "exit=1"],
        "missing": ["/nonexistent/mcp-server"],
        "banner": [f, "banner"],
        "ignores-unknown": [f, "ignore-unknown"],
        "quits-on-unknown": [f, "exit-on-unknown"],
        "slow": [f, "slow-start=2000"],
        "crashes": [f, "crash-on-tools-list"],
        "odd-version": [f, "odd-version"],
        "needs-token": needs("AGREE_TOKEN"),
        "excluded": [f],
        "sys-excluded": [f, "dual"],
        "python-sdk": [PYTHON, PY_SERVER],
        "typescript-sdk": ["node", TS_MEMORY],
    }
    out = {n: {"kind": "stdio", "argv": argv, "env": {}, "pass": []} for n, argv in stdio.items()}
    out["needs-pythonpath"] = {
        "kind": "stdio", "argv": needs("PYTHONPATH"), "env": {"PYTHONPATH": "/opt/lib"}, "pass": [],
    }
    out["unset-variable"] = {
        "kind": "stdio", "argv": needs("AGREE_UNSET"), "env": {}, "pass": ["AGREE_UNSET"],
    }
    remote = {
        "http": ("http", f"http://127.0.0.1:{ports['http']}/mcp", {}),
        "http-modern": ("http", f"http://127.0.0.1:{ports['modern']}/mcp", {}),
        "http-on-sse": ("http", f"http://127.0.0.1:{ports['sse']}/sse", {}),
        "sse": ("sse", f"http://127.0.0.1:{ports['sse']}/sse", {}),
        "http-401-oauth": ("http", f"http://127.0.0.1:{ports['401']}/mcp", {}),
        "http-401-key": ("http", f"http://127.0.0.1:{ports['401bare']}/mcp", {"X-Api-Key": "wrong-key"}),
        "python-sdk-http": ("http", f"http://127.0.0.1:{ports['python']}/mcp", {}),
    }
    for name, (kind, url, headers) in remote.items():
        out[name] = {"kind": kind, "url": url, "headers": headers}
    return out


def ref(client, var):
    """A reference to `var` in the client's own syntax."""
    if client in ("opencode", "kilo"):
        return "{env:" + var + "}"
    return "${" + var + "}"


def stdio_env(client, spec):
    env = dict(spec["env"])
    for var in spec["pass"]:
        env[var] = ref(client, var)
    return env


def entry_for(client, spec):
    """The entry in `client`'s own format (None: the client cannot express it)."""
    kind = spec["kind"]
    if kind == "stdio":
        argv, env = spec["argv"], stdio_env(client, spec)
        if client in ("opencode", "kilo"):
            e = {"type": "local", "command": argv}
            if env:
                e["environment"] = env
            return e
        if client == "codex":
            e = {"command": argv[0], "args": argv[1:]}
            if spec["env"]:
                e["env"] = dict(spec["env"])
            if spec["pass"]:
                e["env_vars"] = list(spec["pass"])
            return e
        e = {"command": argv[0], "args": argv[1:]}
        if client in ("claude-code", "factory"):
            e = {"type": "stdio", **e}
        if env:
            e["env"] = env
        return e
    url, headers = spec["url"], spec["headers"]
    if client in ("opencode", "kilo"):
        # One remote type: Streamable HTTP, then SSE.
        e = {"type": "remote", "url": url}
        if headers:
            e["headers"] = headers
        return e
    if client == "codex":
        if kind == "sse":
            return None
        e = {"url": url}
        if headers:
            e["http_headers"] = headers
        return e
    if client in ("claude-code", "factory"):
        e = {"type": kind, "url": url}
    elif client in ("gemini-cli", "qwen-code"):
        e = {"httpUrl": url} if kind == "http" else {"url": url}
        if kind == "sse" and client == "gemini-cli":
            e["type"] = "sse"
    else:  # amp: `url` (Streamable HTTP, then SSE)
        e = {"url": url}
    if headers:
        e["headers"] = headers
    return e


FILES = {
    "claude-code": ".claude.json",
    "gemini-cli": ".gemini/settings.json",
    "qwen-code": ".qwen/settings.json",
    "opencode": ".config/opencode/opencode.json",
    "kilo": ".config/kilo/kilo.json",
    "amp": ".config/amp/settings.json",
    "factory": ".factory/mcp.json",
    "codex": ".codex/config.toml",
}
SERVERS_KEY = {"opencode": "mcp", "kilo": "mcp", "amp": "amp.mcpServers"}


def toml_value(v):
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(v)


def write_home(home, servers, clients, broken=False, trusted=True, system=None):
    for client in clients:
        rel = FILES[client]
        os.makedirs(os.path.dirname(os.path.join(home, rel)), exist_ok=True)
        mine = {}
        for n, s in servers.items():
            e = entry_for(client, s)
            if e is not None:
                mine[n] = e
        if client == "codex":
            text = "".join(
                f"[mcp_servers.{json.dumps(n)}]\n"
                + "".join(f"{k} = {toml_value(v)}\n" for k, v in e.items())
                + "\n"
                for n, e in mine.items()
            )
        else:
            doc = {SERVERS_KEY.get(client, "mcpServers"): mine}
            if client == "gemini-cli":
                doc["mcp"] = {"excluded": ["excluded"]}
            text = json.dumps(doc, indent=2)
            if broken and client == "claude-code":
                text = "{\n  // a note\n" + text[1:]
            elif broken:
                text = text[: text.rindex("}")].rstrip() + ",\n}\n"
        with open(os.path.join(home, rel), "w") as fh:
            fh.write(text)
    if trusted:
        os.makedirs(os.path.join(home, ".gemini"), exist_ok=True)
        with open(os.path.join(home, ".gemini/trustedFolders.json"), "w") as fh:
            json.dump({home: "TRUST_FOLDER"}, fh)


def system_settings():
    """Gemini CLI's system settings file, excluding `sys-excluded`: in a folder only root
    writes (Gemini CLI skips the file otherwise), under the repository's target/."""
    folder = os.path.join(ROOT, "target/agreement-system")
    os.makedirs(folder, exist_ok=True)
    os.chmod(folder, 0o755)
    path = os.path.join(folder, "settings.json")
    with open(path, "w") as fh:
        json.dump({"mcp": {"excluded": ["sys-excluded"]}}, fh)
    os.chmod(path, 0o644)
    return path


SYSTEM = None


def env_of(home):
    env = {
        "HOME": home,
        "PATH": os.environ["PATH"],
        "XDG_CONFIG_HOME": os.path.join(home, ".config"),
        "NO_COLOR": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "AGREE_TOKEN": "t",
        "MCPCTL_STATE_DIR": os.path.join(home, ".state"),
        # `amp mcp doctor` asks for a login without a key; it checks local servers only.
        "AMP_API_KEY": "sgamp_agreement",
    }
    if SYSTEM:
        env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"] = SYSTEM
    return env


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def run_client(home, client, args, timeout=180, extra=None):
    out = subprocess.run(
        ["timeout", "-k", "5", str(timeout), client_bin(CLIENTS[client]), *args],
        cwd=home, env={**env_of(home), **(extra or {})}, capture_output=True, text=True,
        stdin=subprocess.DEVNULL,
    )
    return ANSI.sub("", out.stdout + "\n" + out.stderr)


def client_view(home, client, names):
    """name -> (works, what the client said)."""
    if client in ("claude-code", "gemini-cli", "qwen-code"):
        text = run_client(home, client, ["mcp", "list"])
        out = {}
        for name in names:
            line = next(
                (l.strip() for l in text.splitlines()
                 if re.match(rf"^\W*{re.escape(name)}: ", l.strip())),
                "",
            )
            out[name] = (line.endswith("Connected") and "Disconnected" not in line, line)
        return out
    if client in ("opencode", "kilo"):
        # `●  ✓ NAME connected` / `●  ✗ NAME failed`, the reason on the next line.
        text = run_client(home, client, ["mcp", "list"])
        lines = [l.strip(" │●") for l in text.splitlines()]
        out = {}
        for name in names:
            at = next(
                (i for i, l in enumerate(lines)
                 if re.match(rf"^[✓✗]\s+{re.escape(name)}(\s|$)", l.strip())),
                None,
            )
            line = "" if at is None else lines[at].strip()
            if at is not None and line.startswith("✗") and at + 1 < len(lines):
                line += " — " + lines[at + 1].strip()
            out[name] = (line.startswith("✓"), line)
        return out
    if client == "factory":
        text = run_client(home, client, ["mcp", "list"])
        out = {}
        for name in names:
            line = next(
                (l.strip() for l in text.splitlines()
                 if l.split() and l.split()[0] == name),
                "",
            )
            out[name] = (bool(re.search(r"\bconnected\b", line)), line)
        return out
    if client == "amp":
        text = run_client(home, client, ["mcp", "doctor"])
        out = {}
        for name in names:
            # Its last word on the server (it retries and reports each attempt).
            lines = [l.strip() for l in text.splitlines()
                     if l.strip().startswith(f"{name} (")]
            last = lines[-1] if lines else ""
            out[name] = (": connected" in last, last)
        return out
    if client == "codex":
        # `codex mcp list` starts nothing; a session does: `codex exec` starts every
        # server of the file before it asks the model (here a provider on a closed port,
        # so it asks nobody), and logs each that fails (`MCP server startup failed
        # server_name="NAME" error=...`). One it names not within its startup timeout
        # (10 s by default) started.
        text = run_client(home, client, [
            "exec", "--skip-git-repo-check",
            "-c", 'model_providers.agreement={name="agreement",base_url="http://127.0.0.1:9/v1",wire_api="responses"}',
            "-c", "model_provider=agreement",
            "hi",
        ], timeout=45, extra={"RUST_LOG": "codex_mcp=info", "OPENAI_API_KEY": "agreement"})
        listed = {n for n in names if any(
            m.group(1) == n for m in re.finditer(r'startup failed server_name="([^"]*)"', text))}
        out = {}
        for name in names:
            why = next((l.split("error=", 1)[-1][:120] for l in text.splitlines()
                        if f'server_name="{name}"' in l), "")
            out[name] = (name not in listed, why or "started (no failure logged)")
        return out
    raise ValueError(client)


def doctor_works(home, mcpctl, clients, names):
    out = subprocess.run(
        [mcpctl, "doctor", "--json", "--timeout", "20", "-c", ",".join(clients)],
        cwd=home, env=env_of(home), capture_output=True, text=True,
    )
    report = json.loads(out.stdout)
    works = {c: {} for c in clients}
    for r in report["results"]:
        if r["client"] in works and r["name"] in names:
            # ⚠ "needs authorization (HTTP 401); sign in": like the client's own "needs
            # authentication", not a server that works before someone signs in.
            sign_in = any("needs authorization" in c["message"] for c in r["checks"]
                          if c["status"] == "warn")
            status = "warn (sign in)" if r["status"] == "warn" and sign_in else r["status"]
            works[r["client"]][r["name"]] = (r["status"] in ("ok", "warn") and not sign_in, status)
    return works


def main():
    global SYSTEM
    builds, only, minimum = [], None, None
    args = sys.argv[1:]
    while args:
        if args[0] == "--mcpctl" and len(args) > 1:
            builds.append(os.path.abspath(args[1]))
        elif args[0] == "--clients" and len(args) > 1:
            only = args[1].split(",")
        elif args[0] == "--min" and len(args) > 1:
            minimum = float(args[1])
        else:
            sys.exit(__doc__)
        args = args[2:]
    builds = builds or [os.path.join(ROOT, "target/debug/mcpctl")]
    clients = [c for c in CLIENTS if only is None or c in only]
    missing = [c for c in clients if not os.path.exists(client_bin(CLIENTS[c]))]
    for c in missing:
        print(f"{c}: not installed ({client_bin(CLIENTS[c])}), left out")
    clients = [c for c in clients if c not in missing]
    for need in (FIXTURE, PYTHON, TS_MEMORY):
        if not os.path.exists(need):
            sys.exit(f"missing {need}: run `cargo build -p fixture-server` and .ci/peers.sh")
    SYSTEM = system_settings()
    ports = {k: free_port() for k in ("http", "modern", "sse", "401", "401bare", "python")}
    servers = [
        subprocess.Popen([FIXTURE, f"http={ports['http']}"], stderr=subprocess.DEVNULL),
        subprocess.Popen([FIXTURE, f"http={ports['modern']}", "modern"], stderr=subprocess.DEVNULL),
        subprocess.Popen([FIXTURE, f"sse={ports['sse']}"], stderr=subprocess.DEVNULL),
        subprocess.Popen([FIXTURE, f"http-401={ports['401']}"], stderr=subprocess.DEVNULL),
        subprocess.Popen([FIXTURE, f"http-401-bare={ports['401bare']}"], stderr=subprocess.DEVNULL),
        subprocess.Popen([PYTHON, PY_SERVER, "streamable-http", str(ports["python"])],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
    ]
    homes = []
    try:
        for port in ports.values():
            wait_port(port)
        table = entries(ports)
        broken = {
            "rejected-a": {"kind": "stdio", "argv": [FIXTURE], "env": {}, "pass": []},
            "rejected-b": {"kind": "stdio", "argv": [FIXTURE, "dual"], "env": {}, "pass": []},
        }
        untrusted = {
            "untrusted-a": {"kind": "stdio", "argv": [FIXTURE], "env": {}, "pass": []},
            "untrusted-b": {"kind": "stdio", "argv": [FIXTURE, "dual"], "env": {}, "pass": []},
        }
        for servers_here, kw in (
            (table, {}),
            (broken, {"broken": True}),
            (untrusted, {"trusted": False}),
        ):
            home = tempfile.mkdtemp(prefix="mcpctl-agree-")
            write_home(home, servers_here, clients, **kw)
            homes.append((home, servers_here))
        truth = {c: {} for c in clients}
        for home, servers_here in homes:
            for client in clients:
                # Only what the client's format can say (Codex has no SSE).
                names = [n for n, spec in servers_here.items() if entry_for(client, spec)]
                truth[client].update(client_view(home, client, names))
        columns = []
        for mcpctl in builds:
            verdict = {c: {} for c in clients}
            for home, servers_here in homes:
                names = list(servers_here)
                for client, works in doctor_works(home, mcpctl, clients, names).items():
                    verdict[client].update(works)
            columns.append((mcpctl, verdict))
        failed = False
        print(f"{'client':12} " + "  ".join(
            os.path.relpath(m, ROOT) if m.startswith(ROOT) else m for m, _ in columns))
        for client in clients:
            cells = []
            for mcpctl, verdict in columns:
                names = [n for n in truth[client] if n in verdict[client]]
                agree = sum(truth[client][n][0] == verdict[client][n][0] for n in names)
                share = 100.0 * agree / len(names) if names else 0.0
                cells.append(f"{agree}/{len(names)} ({share:.0f}%)")
            print(f"{client:12} " + "  ".join(cells))
            for mcpctl, verdict in columns:
                for n in truth[client]:
                    if n not in verdict[client]:
                        continue
                    (cw, said), (dw, status) = truth[client][n], verdict[client][n]
                    if cw != dw:
                        label = os.path.relpath(mcpctl, ROOT) if mcpctl.startswith(ROOT) else mcpctl
                        print(f"    {label}: {n}: client {'works' if cw else 'broken'} "
                              f"({said or 'not listed'}), doctor {status}")
            if minimum is not None and names and share < minimum:
                failed = True
        for var in ("AGREE_UNSET",):
            seen = os.path.join(SCRIPTS, f"seen-{var.lower()}")
            if os.path.exists(seen):
                with open(seen) as fh:
                    got = sorted({l.rstrip("\n") for l in fh})
                print(f"the {var} server (its variable unset) received: "
                      + ", ".join(repr(g) for g in got))
        if failed:
            print(f"agreement under {minimum}% for a client", file=sys.stderr)
            sys.exit(1)
    finally:
        for s in servers:
            s.kill()
        for home, _ in homes:
            shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(SCRIPTS, ignore_errors=True)


if __name__ == "__main__":
    main()
