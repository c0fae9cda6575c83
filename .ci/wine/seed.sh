#!/usr/bin/env bash
# seed.sh PROFILE WINPROFILE — Windows-shaped client config files under a user profile
# (PROFILE: the Linux path of %USERPROFILE% in the Wine prefix; WINPROFILE: the same as
# Windows spells it, e.g. C:\users\alice), as Windows editors and the clients leave them:
# CRLF, a UTF-8 BOM, JSONC, tabs, TOML. Used by scenarios.sh.
set -euo pipefail
P=$1
# Claude Code keys projects by the forward-slash form of the directory (C:/Users/...).
key=$(printf '%s' "$2\\proj" | tr '\\' /)
crlf() { sed 's/$/\r/'; }
mkdir -p "$P/AppData/Roaming/Claude" "$P/.cursor" "$P/AppData/Roaming/Code/User" \
  "$P/.codeium/windsurf" "$P/.codex" "$P/AppData/Local" "$P/proj"
# Claude Desktop: CRLF, 2-space, one server with a Windows path argument, unwrapped npx.
crlf >"$P/AppData/Roaming/Claude/claude_desktop_config.json" <<'J'
{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "C:\\Users\\alice\\Desktop"]
    }
  },
  "globalShortcut": "Ctrl+Space"
}
J
# Cursor: LF, UTF-8 BOM, an already wrapped server.
{
  printf '\xef\xbb\xbf'
  cat <<'J'
{
  "mcpServers": {
    "github": {
      "command": "cmd",
      "args": ["/c", "npx", "-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "${env:GITHUB_TOKEN}" }
    }
  }
}
J
} >"$P/.cursor/mcp.json"
# VS Code: JSONC, CRLF, comments and trailing commas.
crlf >"$P/AppData/Roaming/Code/User/mcp.json" <<'J'
{
  // My servers
  "servers": {
    "fetch": {
      "type": "stdio",
      "command": "uvx",
      "args": ["mcp-server-fetch"], // python
    },
  },
  "inputs": []
}
J
# Windsurf: LF, tabs.
printf '{\n\t"mcpServers": {}\n}\n' >"$P/.codeium/windsurf/mcp_config.json"
# Codex: TOML, CRLF, a comment and an existing table.
crlf >"$P/.codex/config.toml" <<'J'
# Codex settings
model = "gpt-5-codex"

[mcp_servers.docs]
command = "npx"
args = ["-y", "mcp-remote", "https://example.invalid/mcp"]
J
# Claude Code: ~/.claude.json, LF, 2-space, one `local` server of the project `proj`.
cat >"$P/.claude.json" <<J
{
  "numStartups": 3,
  "mcpServers": {},
  "projects": {
    "$key": {
      "allowedTools": [],
      "mcpServers": {
        "loc": {
          "type": "stdio",
          "command": "C:\\\\tools\\\\fixture-server.exe",
          "args": []
        }
      }
    }
  }
}
J
