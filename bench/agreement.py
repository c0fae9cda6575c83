#!/usr/bin/env python3
"""How often `mcpctl doctor`'s per-client verdict agrees with each client's own
`mcp list` (Claude Code, Gemini CLI, Qwen Code connect to every server when listing;
Codex's list does not connect, so it is not compared) on the same entries: 22 servers
(fixture-server in every mode that matters to a client: eras, transports, environment,
failures) written into each client's file, plus a second home whose files the clients
reject (a comment in ~/.claude.json, a trailing comma in Gemini's and Qwen's settings).

An entry "works" for a client when its list says Connected; for doctor when the
client's row is ok or warn. Prints per client `agree/N` and the disagreements.

Usage: bench/agreement.py [--mcpctl PATH]...   (one column per mcpctl build; default
target/debug/mcpctl). Needs the fixture server (cargo build -p fixture-server) and the
clients from .ci/clients.sh.
"""

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# `.ci/clients.sh` installs one prefix per CLI, named like its bin.
CLIENT_DIR = os.path.join(ROOT, ".cache/clients")


def client_bin(name):
    return os.path.join(CLIENT_DIR, name, "node_modules/.bin", name)
FIXTURE = os.path.join(ROOT, "target/debug/fixture-server")
CLIENTS = {"claude-code": "claude", "gemini-cli": "gemini", "qwen-code": "qwen"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port):
    until = time.time() + 30
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
    `$VAR` in a settings file's strings itself)."""
    path = os.path.join(SCRIPTS, f"needs-{var.lower()}.sh")
    with open(path, "w") as fh:
        fh.write(f'#!/bin/sh\ntest -n "${var}" || exit 3\nexec "{FIXTURE}"\n')
    os.chmod(path, 0o755)
    return [path]


def entries(ports):
    """name -> (kind, value): ("stdio", argv, env) or ("http"|"sse", url)."""
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
        "needs-pythonpath": needs("PYTHONPATH"),
        "needs-token": needs("AGREE_TOKEN"),
        "excluded": [f],
    }
    out = {n: ("stdio", argv, {}) for n, argv in stdio.items()}
    out["needs-pythonpath"] = ("stdio", needs("PYTHONPATH"), {"PYTHONPATH": "/opt/lib"})
    out["http"] = ("http", f"http://127.0.0.1:{ports['http']}/mcp")
    out["http-modern"] = ("http", f"http://127.0.0.1:{ports['modern']}/mcp")
    out["http-on-sse"] = ("http", f"http://127.0.0.1:{ports['sse']}/sse")
    out["sse"] = ("sse", f"http://127.0.0.1:{ports['sse']}/sse")
    out["http-401"] = ("http", f"http://127.0.0.1:{ports['401']}/mcp")
    return out


def entry_for(client, spec):
    kind = spec[0]
    if kind == "stdio":
        e = {"command": spec[1][0], "args": spec[1][1:]}
        if spec[2]:
            e["env"] = spec[2]
        return e
    url = spec[1]
    if client == "claude-code":
        return {"type": kind, "url": url}
    if kind == "http":
        return {"httpUrl": url}
    return {"url": url, "type": "sse"} if client == "gemini-cli" else {"url": url}


def write_home(home, servers, broken=False):
    os.makedirs(os.path.join(home, ".gemini"), exist_ok=True)
    os.makedirs(os.path.join(home, ".qwen"), exist_ok=True)
    files = {
        "claude-code": ".claude.json",
        "gemini-cli": ".gemini/settings.json",
        "qwen-code": ".qwen/settings.json",
    }
    for client, rel in files.items():
        doc = {"mcpServers": {n: entry_for(client, s) for n, s in servers.items()}}
        if client == "gemini-cli":
            doc["mcp"] = {"excluded": ["excluded"]}
        text = json.dumps(doc, indent=2)
        if broken and client == "claude-code":
            text = "{\n  // a note\n" + text[1:]
        elif broken:
            text = text[: text.rindex("}")].rstrip() + ",\n}\n"
        with open(os.path.join(home, rel), "w") as fh:
            fh.write(text)
    with open(os.path.join(home, ".gemini/trustedFolders.json"), "w") as fh:
        json.dump({home: "TRUST_FOLDER"}, fh)


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
    }
    return env


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def client_works(home, client, names):
    out = subprocess.run(
        ["timeout", "-k", "5", "120", client_bin(CLIENTS[client]), "mcp", "list"],
        cwd=home, env=env_of(home), capture_output=True, text=True,
    )
    text = ANSI.sub("", out.stdout + out.stderr)
    works = {}
    for name in names:
        line = next(
            (l.strip() for l in text.splitlines()
             if re.match(rf"^\W*{re.escape(name)}: ", l.strip())),
            "",
        )
        works[name] = line.endswith("Connected") and "Disconnected" not in line
    return works


def doctor_works(home, mcpctl, names):
    out = subprocess.run(
        [mcpctl, "doctor", "--json", "--timeout", "20", "-c", ",".join(CLIENTS)],
        cwd=home, env=env_of(home), capture_output=True, text=True,
    )
    report = json.loads(out.stdout)
    works = {c: {n: False for n in names} for c in CLIENTS}
    for r in report["results"]:
        if r["client"] in works and r["name"] in names:
            works[r["client"]][r["name"]] = r["status"] in ("ok", "warn")
    return works


def main():
    builds = []
    args = sys.argv[1:]
    while args:
        if args[0] == "--mcpctl":
            builds.append(os.path.abspath(args[1]))
            args = args[2:]
        else:
            sys.exit(__doc__)
    builds = builds or [os.path.join(ROOT, "target/debug/mcpctl")]
    ports = {k: free_port() for k in ("http", "modern", "sse", "401")}
    servers = [
        subprocess.Popen([FIXTURE, f"http={ports['http']}"], stderr=subprocess.DEVNULL),
        subprocess.Popen([FIXTURE, f"http={ports['modern']}", "modern"], stderr=subprocess.DEVNULL),
        subprocess.Popen([FIXTURE, f"sse={ports['sse']}"], stderr=subprocess.DEVNULL),
        subprocess.Popen([FIXTURE, f"http-401={ports['401']}"], stderr=subprocess.DEVNULL),
    ]
    try:
        for port in ports.values():
            wait_port(port)
        table = entries(ports)
        broken = {"rejected-a": ("stdio", [FIXTURE], {}), "rejected-b": ("stdio", [FIXTURE, "dual"], {})}
        homes = []
        for servers_here, is_broken in ((table, False), (broken, True)):
            home = tempfile.mkdtemp(prefix="mcpctl-agree-")
            write_home(home, servers_here, is_broken)
            homes.append((home, list(servers_here)))
        truth = {c: {} for c in CLIENTS}
        for home, names in homes:
            for client in CLIENTS:
                truth[client].update(client_works(home, client, names))
        columns = []
        for mcpctl in builds:
            verdict = {c: {} for c in CLIENTS}
            for home, names in homes:
                for client, works in doctor_works(home, mcpctl, names).items():
                    verdict[client].update(works)
            columns.append((mcpctl, verdict))
        total = sum(len(n) for _, n in homes)
        print(f"entries per client: {total}")
        for client in CLIENTS:
            cells = []
            for mcpctl, verdict in columns:
                agree = sum(truth[client][n] == verdict[client][n] for n in truth[client])
                cells.append(f"{agree}/{total}")
            print(f"{client:12} " + "  ".join(cells))
            for mcpctl, verdict in columns:
                for n in truth[client]:
                    if truth[client][n] != verdict[client][n]:
                        print(f"    {os.path.relpath(mcpctl, ROOT) if mcpctl.startswith(ROOT) else mcpctl}: {n}: "
                              f"client {'works' if truth[client][n] else 'broken'}, doctor "
                              f"{'works' if verdict[client][n] else 'broken'}")
    finally:
        for s in servers:
            s.kill()


if __name__ == "__main__":
    main()
