#!/usr/bin/env python3
"""What the secret store's launcher and bridge cost (issue 23), side by side in one run.

1. Start-up: spawn to the `initialize` reply, the fixture server started directly (its
   secret in its environment) against `mcpctl run --secret … -- fixture-server` (the
   secret resolved from the store, then exec). The store is the OS keychain when a Secret
   Service answers (DBUS_SESSION_BUS_ADDRESS; `eval "$(bash .ci/keyring.sh)"`), and a
   command provider (`printf`) always.
2. Per request: `tools/call hello` round trips against the fixture's Streamable HTTP
   mode, straight from this script over HTTP/1.1 keep-alive, against the same calls
   through `mcpctl bridge` over stdio.

Usage: bench/secrets.py [--mcpctl PATH] [-n N] [-r REQUESTS]
  --mcpctl  the binary (default target/release/mcpctl, else target/debug/mcpctl)
  -n        start-ups per variant (default 30), interleaved
  -r        requests per variant (default 300)
Build first: cargo build --release && cargo build -p fixture-server
Prints a Markdown table (median and mean, ms).
"""

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


def fixture():
    for profile in ("release", "debug"):
        path = os.path.join(ROOT, "target", profile, "fixture-server")
        if os.path.exists(path):
            return path
    sys.exit("secrets.py: build the fixture first: cargo build -p fixture-server")


def startup(argv, env):
    """ms from spawn to the initialize reply."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    proc.stdin.write((json.dumps(INIT) + "\n").encode())
    proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = (time.perf_counter() - start) * 1000
    assert b'"result"' in line, line
    proc.stdin.close()
    proc.wait()
    return elapsed


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sse_message(body):
    """The JSON-RPC message in a JSON or SSE reply body."""
    text = body.decode()
    if text.lstrip().startswith("{"):
        return json.loads(text)
    for line in text.splitlines():
        if line.startswith("data:") and line[5:].strip():
            return json.loads(line[5:])
    raise ValueError(text)


def direct_http(port, requests):
    conn = http.client.HTTPConnection("127.0.0.1", port)
    conn.connect()
    # http.client writes headers and body apart: without this, Nagle's algorithm and the
    # server's delayed ACK add ~40 ms to every request.
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

    def post(message, session=None):
        headers = dict(base)
        if session:
            headers["Mcp-Session-Id"] = session
            headers["MCP-Protocol-Version"] = "2025-11-25"
        conn.request("POST", "/mcp", json.dumps(message), headers)
        response = conn.getresponse()
        return response, response.read()

    response, _ = post(INIT)
    session = response.getheader("mcp-session-id")
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    times = []
    for i in range(requests):
        call = {"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call", "params": {"name": "hello"}}
        headers = dict(base, **{"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"})
        # ACK at once: the server writes an SSE reply in pieces, and Nagle holds each
        # piece until the previous one is acknowledged (ureq's sockets do the same).
        if hasattr(socket, "TCP_QUICKACK"):
            conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
        start = time.perf_counter()
        conn.request("POST", "/mcp", json.dumps(call), headers)
        response = conn.getresponse()
        # The reply counts when its message arrives (as the bridge passes it on), not when
        # the server closes the stream; the rest is drained outside the timing.
        message = None
        while message is None:
            line = response.readline()
            if not line:
                break
            text = line.decode().strip()
            if text.startswith("{"):
                message = json.loads(text)
            elif text.startswith("data:") and text[5:].strip():
                message = json.loads(text[5:])
        times.append((time.perf_counter() - start) * 1000)
        response.read()
        assert message["result"]["content"][0]["text"] == "hello", message
    conn.close()
    return times


def bridged(mcpctl, port, requests, env):
    proc = subprocess.Popen(
        [mcpctl, "bridge", f"http://127.0.0.1:{port}/mcp", "--header", "X-Bench=1"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
    )

    def send(message):
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()

    def reply(want):
        while True:
            message = json.loads(proc.stdout.readline())
            if message.get("id") == want and "method" not in message:
                return message
            if "method" in message and "id" in message:  # roots/list from the server
                send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no"}})

    send(INIT)
    reply(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    times = []
    for i in range(requests):
        start = time.perf_counter()
        send({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call", "params": {"name": "hello"}})
        message = reply(10 + i)
        times.append((time.perf_counter() - start) * 1000)
        assert message["result"]["content"][0]["text"] == "hello"
    proc.stdin.close()
    proc.wait()
    return times


def row(label, times):
    return f"| {label} | {statistics.median(times):.2f} | {statistics.mean(times):.2f} | {len(times)} |"


def main():
    parser = argparse.ArgumentParser(add_help=True)
    parser.add_argument("--mcpctl")
    parser.add_argument("-n", type=int, default=30)
    parser.add_argument("-r", type=int, default=300)
    args = parser.parse_args()
    mcpctl = args.mcpctl or next(
        p for p in (os.path.join(ROOT, "target", x, "mcpctl") for x in ("release", "debug"))
        if os.path.exists(p)
    )
    server = fixture()
    state = tempfile.mkdtemp(prefix="mcpctl-bench-secrets-")
    env = dict(os.environ, MCPCTL_STATE_DIR=state, MCPCTL_KEYRING_SERVICE="mcpctl-bench")
    subprocess.run([mcpctl, "secret", "set", "bench-cmd", "--command", "printf tok_bench"],
                   env=env, check=True, capture_output=True)
    variants = [
        ("fixture-server started directly (secret in its env)", [server], dict(env, TOKEN="tok_bench")),
        ("`mcpctl run`, secret from a command provider (`printf`)",
         [mcpctl, "run", "--secret", "TOKEN=bench-cmd", "--", server], env),
    ]
    keychain = subprocess.run([mcpctl, "secret", "set", "bench-kc"], input=b"tok_bench\n",
                              env=env, capture_output=True)
    if keychain.returncode == 0:
        variants.append(("`mcpctl run`, secret from the OS keychain (Secret Service)",
                         [mcpctl, "run", "--secret", "TOKEN=bench-kc", "--", server], env))
    else:
        print("note: no Secret Service; keychain variant left out", file=sys.stderr)
    times = {label: [] for label, _, _ in variants}
    for _ in range(args.n):
        for label, argv, e in variants:
            times[label].append(startup(argv, e))

    port = free_port()
    http_server = subprocess.Popen([server, f"http={port}"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), 0.1).close()
                break
            except OSError:
                time.sleep(0.02)
        direct = direct_http(port, args.r)
        bridge = bridged(mcpctl, port, args.r, env)
    finally:
        http_server.kill()
        subprocess.run([mcpctl, "secret", "rm", "bench-kc"], env=env, capture_output=True)

    print(f"mcpctl: {mcpctl}; load average {os.getloadavg()[0]:.1f}")
    print()
    print("| start-up to the initialize reply | median ms | mean ms | runs |")
    print("|---|---|---|---|")
    for label, _, _ in variants:
        print(row(label, times[label]))
    print()
    print("| `tools/call hello` round trip (Streamable HTTP fixture) | median ms | mean ms | calls |")
    print("|---|---|---|---|")
    print(row("direct HTTP/1.1 keep-alive from the client", direct))
    print(row("through `mcpctl bridge` (stdio in, HTTP out)", bridge))


if __name__ == "__main__":
    main()
