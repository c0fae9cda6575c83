#!/usr/bin/env python3
"""Write a realistic ~/.claude.json of a given size: what Claude Code writes (2-space JSON,
no final newline), bookkeeping keys, top-level mcpServers, and per-project objects whose
`history` holds pasted prompts with quotes, backslashes, newlines, tabs and non-ASCII.

Usage: bench/gen_claude_json.py FILE SIZE   (SIZE: 17 or 17M = MiB, 50K = KiB)
Used by bench/claude_json.sh and bench/write_path.py.
"""
import json, random, sys
path, size = sys.argv[1], sys.argv[2]
# "17" or "17M": MiB; "50K": KiB.
target = int(size[:-1]) * 1024 if size.endswith("K") else int(size.rstrip("M")) * 1024 * 1024
rng = random.Random(42)
words = ("fix the failing test in src/lib.rs refactor parser add \"quoted\" C:\\Users\\dev\\repo "
         "path/to/file.ts\tTAB newline\\n literal émoji ✓ 日本語 unicode <html> & ampersand "
         "`code` {braces} [brackets] 100% $HOME ${TOKEN} backslash\\ end").split(" ")
def prompt():
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(4, 30)))
             for _ in range(rng.randint(1, 6))]
    return "\n".join(lines)
doc = {
    "numStartups": 412, "installMethod": "npm", "autoUpdates": False,
    "firstStartTime": "2025-03-01T09:12:44.120Z", "userID": "%064x" % rng.getrandbits(256),
    "tipsHistory": {f"tip-{i}": rng.randint(1, 400) for i in range(40)},
    "mcpServers": {
        "github": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_" + "x" * 36}},
        "memory": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {}},
        "docs": {"type": "http", "url": "https://docs.example.com/mcp", "headers": {"X-Api-Key": "k"}},
    },
    "projects": {},
}
i = 0
size = len(json.dumps(doc, indent=2, ensure_ascii=False).encode())
while size < target:
    p = {
        "allowedTools": ["Bash(git status)", "Edit", f"Bash(npm run test:{i})"],
        "history": [{"display": prompt(), "pastedContents": {}} if rng.random() < 0.5 else prompt()
                    for _ in range(rng.randint(80, 160) // (10 if target < 2 << 20 else 1))],
        "mcpContextUris": [], "mcpServers": {}, "enabledMcpjsonServers": [],
        "disabledMcpjsonServers": [], "hasTrustDialogAccepted": True,
        "projectOnboardingSeenCount": rng.randint(0, 5),
        "lastCost": round(rng.random() * 3, 6), "lastDuration": rng.randint(1000, 9000000),
        "lastTotalInputTokens": rng.randint(0, 10**6), "lastSessionId": "%032x" % rng.getrandbits(128),
    }
    key = f"/home/dev/src/project-{i:04d}/{'sub/' * (i % 3)}repo"
    doc["projects"][key] = p
    size += len(json.dumps({key: p}, indent=2, ensure_ascii=False).encode()) + 2
    i += 1
with open(path, "w", encoding="utf-8") as f:
    f.write(json.dumps(doc, indent=2, ensure_ascii=False))
