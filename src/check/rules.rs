//! The rule table: every code `check` can report, with its default severity, title,
//! rationale and a fixed example. `--explain`, the SARIF rule list and `docs/check.md`
//! are all generated from `RULES`; a rule that is not in this table cannot be reported.
//!
//! Codes are stable: never renumber or reuse one. Groups: MCP0xx syntax, MCP1xx shape,
//! MCP2xx client dialect, MCP3xx portability, MCP4xx security, MCP5xx references.

use super::Severity;

/// One lint rule.
#[derive(Debug)]
pub struct Rule {
    pub code: &'static str,
    /// Kebab-case name (SARIF `name`).
    pub name: &'static str,
    /// The severity it usually has; some rules depend on scope or platform (see
    /// `explanation`).
    pub severity: Severity,
    /// `--fix` can repair it.
    pub fixable: bool,
    pub title: &'static str,
    pub explanation: &'static str,
    /// A corrected entry (or file) showing the fix.
    pub example: &'static str,
}

/// Every rule, in code order.
pub const RULES: &[Rule] = &[
    Rule {
        code: "MCP001",
        name: "parse-error",
        severity: Severity::Error,
        fixable: false,
        title: "the file does not parse",
        explanation: "The client cannot read a file with a syntax error and usually drops every server in it, often without saying so. When a file does not parse, `check` reports only this finding for it and `--fix` leaves it alone.",
        example: "{\n  \"mcpServers\": {\n    \"memory\": { \"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-memory@2025.8.4\"] }\n  }\n}",
    },
    Rule {
        code: "MCP002",
        name: "comment-in-strict-json",
        severity: Severity::Error,
        fixable: false,
        title: "comment in a file the client reads as strict JSON",
        explanation: "Clients whose table row says `format = \"json\"` (Claude Code, Cursor, Windsurf, Cline, Roo, Kiro, ...) parse the file with a strict JSON parser: a `//` or `/* */` comment makes the whole file invalid. Move the note into a README, or into a key the client ignores.",
        example: "{\n  \"mcpServers\": {\n    \"github\": { \"command\": \"github-mcp-server\", \"args\": [\"stdio\"] }\n  }\n}",
    },
    Rule {
        code: "MCP003",
        name: "trailing-comma-in-strict-json",
        severity: Severity::Error,
        fixable: false,
        title: "trailing comma in a file the client reads as strict JSON",
        explanation: "A comma before `}` or `]` is accepted by JSONC readers (VS Code, Zed, OpenCode) but rejected by the strict JSON parsers of Claude Code, Cursor, Windsurf and others, which then load no server from the file.",
        example: "{ \"mcpServers\": { \"memory\": { \"command\": \"mcp-memory\", \"args\": [] } } }",
    },
    Rule {
        code: "MCP004",
        name: "duplicate-key",
        severity: Severity::Error,
        fixable: false,
        title: "the same key appears twice in one object",
        explanation: "JSON parsers disagree about duplicate keys: most keep the last one silently, so the first definition (often a whole server) is lost without a message. Rename or merge the two.",
        example: "{ \"mcpServers\": { \"github\": { \"command\": \"github-mcp-server\" }, \"github-work\": { \"command\": \"github-mcp-server\" } } }",
    },
    Rule {
        code: "MCP005",
        name: "bom-refused",
        severity: Severity::Error,
        fixable: false,
        title: "byte-order mark in a file the client refuses",
        explanation: "Gemini CLI exits at start-up (exit code 52, measured with gemini-cli 0.61) when its settings file begins with a UTF-8 byte-order mark, which some Windows editors add. Save the file as UTF-8 without BOM; mcpctl keeps a BOM that is there but never adds one.",
        example: "{\n  \"mcpServers\": {\n    \"time\": { \"command\": \"uvx\", \"args\": [\"mcp-server-time\"] }\n  }\n}",
    },
    Rule {
        code: "MCP101",
        name: "servers-not-object",
        severity: Severity::Error,
        fixable: false,
        title: "the servers key (or a parent of it) is not an object",
        explanation: "Each client reads its servers from an object keyed by server name (`mcpServers`, `servers`, `mcp`, `context_servers`, `[mcp_servers]`). A list or a string there is rejected, or read as no servers at all. The file's top level must be an object (a table in TOML) too.",
        example: "{ \"mcpServers\": { \"memory\": { \"command\": \"mcp-memory\" } } }",
    },
    Rule {
        code: "MCP102",
        name: "entry-not-object",
        severity: Severity::Error,
        fixable: false,
        title: "a server entry is not an object",
        explanation: "Every value in the servers map must be an object describing one server. A string such as a command line is not understood by any client.",
        example: "{ \"mcpServers\": { \"memory\": { \"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-memory@2025.8.4\"] } } }",
    },
    Rule {
        code: "MCP103",
        name: "command-and-url",
        severity: Severity::Error,
        fixable: false,
        title: "an entry has both `command` and a URL",
        explanation: "A server is either local (a `command` the client starts) or remote (a URL it connects to). Clients pick one silently (Claude Code, Cursor) or reject the entry (Roo Code, Codex). Split it into two entries or remove one side.",
        example: "{ \"mcpServers\": { \"docs\": { \"type\": \"http\", \"url\": \"https://mcp.example.com/mcp\" } } }",
    },
    Rule {
        code: "MCP104",
        name: "no-command-or-url",
        severity: Severity::Error,
        fixable: false,
        title: "an entry has neither `command` nor a URL",
        explanation: "Without `command` (local server) or `url` (remote server; `serverUrl` in Windsurf and Antigravity, `httpUrl` in Gemini and Qwen) the client has nothing to start or connect to. Extension entries in Zed (`source`/`settings`) and bare `enabled`/`disabled` toggles are not flagged.",
        example: "{ \"mcpServers\": { \"memory\": { \"command\": \"mcp-memory\" } } }",
    },
    Rule {
        code: "MCP105",
        name: "command-or-url-type",
        severity: Severity::Error,
        fixable: false,
        title: "`command` or the URL is empty or has the wrong type",
        explanation: "`command` must be a non-empty string naming the program (a non-empty list `[program, arg...]` in OpenCode and Kilo), and a URL must be a non-empty string. A list in `command` for other clients is rejected: put the program in `command` and the rest in `args`.",
        example: "{ \"mcpServers\": { \"memory\": { \"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-memory@2025.8.4\"] } } }",
    },
    Rule {
        code: "MCP106",
        name: "args-not-strings",
        severity: Severity::Error,
        fixable: false,
        title: "`args` is not a list of strings",
        explanation: "Clients pass `args` to the process as strings; a string instead of a list, or numbers and booleans inside it, make the entry invalid. Quote numbers: `\"8080\"`.",
        example: "{ \"command\": \"mcp-server\", \"args\": [\"--port\", \"8080\"] }",
    },
    Rule {
        code: "MCP107",
        name: "map-not-strings",
        severity: Severity::Error,
        fixable: false,
        title: "`env` or `headers` is not an object of strings",
        explanation: "Environment variables and HTTP headers are name → string maps. A list (`[\"KEY=value\"]`) or a number value is rejected by most clients' schemas and silently dropped by others. Quote numbers and booleans.",
        example: "{ \"command\": \"mcp-server\", \"env\": { \"PORT\": \"8080\", \"DEBUG\": \"true\" } }",
    },
    Rule {
        code: "MCP108",
        name: "name-not-portable",
        severity: Severity::Warning,
        fixable: false,
        title: "the server name has characters this client rejects",
        explanation: "Claude Code and Codex accept only letters, digits, `-` and `_` in server names (they become parts of tool names). Other characters make the client skip or rename the server.",
        example: "{ \"mcpServers\": { \"github-work\": { \"command\": \"github-mcp-server\" } } }",
    },
    Rule {
        code: "MCP201",
        name: "wrong-url-key",
        severity: Severity::Error,
        fixable: true,
        title: "the URL is under a key this client does not read",
        explanation: "Clients spell the remote URL differently: Windsurf and Antigravity read `serverUrl` (a Cursor-style `url` does not connect), most others read `url`, Gemini and Qwen also `httpUrl`. The spelling comes from the client table (`fields.url_key`). `--fix` renames the key.",
        example: "{ \"mcpServers\": { \"docs\": { \"serverUrl\": \"https://mcp.example.com/mcp\" } } }",
    },
    Rule {
        code: "MCP202",
        name: "command-array-shape",
        severity: Severity::Error,
        fixable: false,
        title: "`args`, `env` or a string `command` in an OpenCode or Kilo file",
        explanation: "OpenCode and Kilo (`dialect = \"command-array\"`) take the program and its arguments as one list in `command` and the environment in `environment`; their schema rejects unknown keys, so `args` or `env` makes the whole config file invalid, not just the entry.",
        example: "{ \"mcp\": { \"memory\": { \"type\": \"local\", \"command\": [\"npx\", \"-y\", \"@modelcontextprotocol/server-memory@2025.8.4\"], \"environment\": { \"MEMORY_FILE\": \"memory.json\" } } } }",
    },
    Rule {
        code: "MCP203",
        name: "remote-type-required",
        severity: Severity::Error,
        fixable: true,
        title: "remote entry without the `type` this client requires",
        explanation: "Roo Code and VS Code need `type` on remote entries (`streamable-http`/`sse` in Roo, `http`/`sse` in VS Code); without it Roo rejects the entry. `--fix` adds the client's HTTP type (its SSE type when the URL path ends in `/sse`).",
        example: "{ \"servers\": { \"docs\": { \"type\": \"http\", \"url\": \"https://mcp.example.com/mcp\" } } }",
    },
    Rule {
        code: "MCP204",
        name: "untyped-remote-is-sse",
        severity: Severity::Warning,
        fixable: false,
        title: "remote entry without `type` is read as legacy SSE",
        explanation: "Cline and Gemini CLI treat a `url` without `type` as the legacy HTTP+SSE transport (Qwen too; it reads Streamable HTTP from `httpUrl`). Most current servers speak Streamable HTTP only, so the connection fails. Add the HTTP type (`streamableHttp` in Cline, `http` in Gemini), or `type: \"sse\"` if the server really is SSE. Not fixed automatically: only you know which transport the server speaks. URLs whose path ends in `/sse` are not flagged.",
        example: "{ \"mcpServers\": { \"docs\": { \"type\": \"streamableHttp\", \"url\": \"https://mcp.example.com/mcp\" } } }",
    },
    Rule {
        code: "MCP205",
        name: "foreign-servers-key",
        severity: Severity::Error,
        fixable: false,
        title: "servers under another client's key",
        explanation: "Each client reads one key: VS Code's `mcp.json` reads `servers` (not `mcpServers`), OpenCode reads `mcp`, Zed `context_servers`, Claude-style clients `mcpServers`. Servers copied under another client's key are ignored without a message.",
        example: "// .vscode/mcp.json\n{ \"servers\": { \"memory\": { \"type\": \"stdio\", \"command\": \"mcp-memory\" } } }",
    },
    Rule {
        code: "MCP206",
        name: "unknown-key",
        severity: Severity::Warning,
        fixable: false,
        title: "entry key this client does not document",
        explanation: "The key is not one the client reads (its modelled fields from the client table plus its documented extras, `fields.extra_keys`). It is ignored at best, and a typo (`evn`, `arg`) means the setting you meant is missing. Clients whose extras are unverified are not checked.",
        example: "{ \"mcpServers\": { \"memory\": { \"command\": \"mcp-memory\", \"env\": { \"MEMORY_FILE\": \"m.json\" } } } }",
    },
    Rule {
        code: "MCP207",
        name: "unsupported-transport",
        severity: Severity::Error,
        fixable: false,
        title: "the client cannot use this kind of server",
        explanation: "Some clients take only local servers from their file (Claude Desktop adds remote servers through Settings → Connectors; Junie documents stdio only), and Codex speaks Streamable HTTP but not legacy SSE. Wrap a remote server with a local proxy such as `npx -y mcp-remote URL`, or configure it where the client takes it.",
        example: "{ \"mcpServers\": { \"docs\": { \"command\": \"npx\", \"args\": [\"-y\", \"mcp-remote@0.1.29\", \"https://mcp.example.com/mcp\"] } } }",
    },
    Rule {
        code: "MCP208",
        name: "unknown-type-value",
        severity: Severity::Error,
        fixable: false,
        title: "`type` has a value this client does not accept",
        explanation: "Transport names differ: `http` (Claude Code, VS Code, Gemini), `streamableHttp` (Cline), `streamable-http` (Roo), `local`/`remote` (OpenCode, Kilo). A value from another client is rejected by schema-checking clients or read as the wrong transport.",
        example: "{ \"mcpServers\": { \"docs\": { \"type\": \"streamableHttp\", \"url\": \"https://mcp.example.com/mcp\" } } }",
    },
    Rule {
        code: "MCP301",
        name: "unwrapped-windows-shim",
        severity: Severity::Error,
        fixable: true,
        title: "`npx` (or another batch shim) without `cmd /c` fails on Windows",
        explanation: "On Windows `npx`, `npm`, `pnpm`, `yarn`, `tsx` and other npm bins are `.cmd` batch shims that clients cannot start directly (`spawn npx ENOENT`, `Connection closed`). Error with `--platform windows`; a warning in project files checked for another OS, since teammates may be on Windows (but a wrapped entry fails on macOS and Linux: see MCP302). `--fix` wraps the command only with `--platform windows`.",
        example: "{ \"mcpServers\": { \"memory\": { \"command\": \"cmd\", \"args\": [\"/c\", \"npx\", \"-y\", \"@modelcontextprotocol/server-memory@2025.8.4\"] } } }",
    },
    Rule {
        code: "MCP302",
        name: "cmd-wrapper-off-windows",
        severity: Severity::Error,
        fixable: true,
        title: "`cmd /c` entry in a file used on macOS or Linux",
        explanation: "`cmd` exists only on Windows; on macOS and Linux the server fails to start. Error in user files checked for macOS/Linux (`--fix` unwraps them); a warning in project files, which teammates on either OS may share (no fix: pick the wrapping your team needs, or keep per-OS user entries).",
        example: "{ \"mcpServers\": { \"memory\": { \"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-memory@2025.8.4\"] } } }",
    },
    Rule {
        code: "MCP303",
        name: "absolute-home-path",
        severity: Severity::Warning,
        fixable: false,
        title: "absolute home-directory path in a project file",
        explanation: "`/Users/alice/...`, `/home/bob/...` or `C:\\Users\\carol\\...` in a committed file works only on its author's machine. Use a path relative to the project, a variable the client expands (`${workspaceFolder}`, `${userHome}` in VS Code and Cursor), or a command on PATH.",
        example: "{ \"servers\": { \"fs\": { \"type\": \"stdio\", \"command\": \"mcp-fs\", \"args\": [\"${workspaceFolder}/docs\"] } } }",
    },
    Rule {
        code: "MCP304",
        name: "cmd-metacharacter",
        severity: Severity::Warning,
        fixable: false,
        title: "argument with cmd.exe metacharacters after `cmd /c`",
        explanation: "`cmd /c` re-parses its arguments: `&`, `|`, `<`, `>`, `^`, `%`, `!` and `\"` are interpreted by cmd.exe, so a URL with `&` runs a second command. Pass the value through an environment variable, or start the server with `node path/to/bin.js` instead of a shim.",
        example: "{ \"command\": \"cmd\", \"args\": [\"/c\", \"npx\", \"-y\", \"mcp-remote@0.1.29\", \"https://mcp.example.com/mcp\"], \"env\": { \"QUERY\": \"a=1&b=2\" } }",
    },
    Rule {
        code: "MCP401",
        name: "plaintext-secret",
        severity: Severity::Error,
        fixable: false,
        title: "secret in plain text",
        explanation: "A token (GitHub `ghp_`/`github_pat_`, OpenAI `sk-`, Anthropic `sk-ant-`, AWS `AKIA`, Slack `xox?-`, Google `AIza`, a literal `Bearer` token, or a long random value under a key like TOKEN/KEY/SECRET/PASSWORD) is written into the file. Error in project files (they are committed and shared); a warning in user files. Reference it with the client's variable syntax instead (`${VAR}` in Claude Code, `${env:VAR}` in Cursor, `${input:id}` in VS Code, `{env:VAR}` in OpenCode, `env_vars` in Codex) and rotate the exposed token. `check` never prints the value.",
        example: "{ \"mcpServers\": { \"github\": { \"command\": \"github-mcp-server\", \"args\": [\"stdio\"], \"env\": { \"GITHUB_PERSONAL_ACCESS_TOKEN\": \"${GITHUB_TOKEN}\" } } } }",
    },
    Rule {
        code: "MCP402",
        name: "unpinned-package",
        severity: Severity::Info,
        fixable: false,
        title: "`npx -y` runs an unpinned package",
        explanation: "`npx -y pkg` downloads and runs whatever version is newest at start-up, without asking: a compromised or broken release runs with your credentials. Pin a version (`pkg@1.2.3`).",
        example: "{ \"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-memory@2025.8.4\"] }",
    },
    Rule {
        code: "MCP403",
        name: "insecure-http",
        severity: Severity::Warning,
        fixable: false,
        title: "remote server over plain `http://`",
        explanation: "Requests (and any `Authorization` header) travel unencrypted. Use `https://`; plain HTTP is fine only for loopback addresses (`localhost`, `127.0.0.1`, `[::1]`), which are not flagged.",
        example: "{ \"type\": \"http\", \"url\": \"https://mcp.example.com/mcp\" }",
    },
    Rule {
        code: "MCP501",
        name: "wrong-variable-syntax",
        severity: Severity::Warning,
        fixable: false,
        title: "variable reference in a syntax this client does not expand",
        explanation: "Each client has its own syntax: `${VAR}` (Claude Code, Gemini CLI, Kiro), `${env:VAR}` (Cursor, VS Code), `{env:VAR}` (OpenCode, Kilo); Codex expands nothing (list the name in `env_vars`). Another client's syntax reaches the server as literal text, so it gets `${env:TOKEN}` instead of the token. Clients whose syntax is unverified are not checked.",
        example: "// Cursor\n{ \"mcpServers\": { \"github\": { \"command\": \"github-mcp-server\", \"env\": { \"GITHUB_PERSONAL_ACCESS_TOKEN\": \"${env:GITHUB_TOKEN}\" } } } }",
    },
    Rule {
        code: "MCP502",
        name: "undefined-input",
        severity: Severity::Error,
        fixable: false,
        title: "`${input:id}` without a matching `inputs` entry",
        explanation: "VS Code resolves `${input:id}` from the top-level `inputs` list of the same file; with no entry of that `id` the server does not start.",
        example: "{\n  \"inputs\": [{ \"type\": \"promptString\", \"id\": \"github-token\", \"description\": \"GitHub token\", \"password\": true }],\n  \"servers\": { \"github\": { \"type\": \"stdio\", \"command\": \"github-mcp-server\", \"env\": { \"GITHUB_PERSONAL_ACCESS_TOKEN\": \"${input:github-token}\" } } }\n}",
    },
    Rule {
        code: "MCP601",
        name: "manifest-missing",
        severity: Severity::Error,
        fixable: false,
        title: "a server in the manifest is missing from this file",
        explanation: "`mcpctl plan --check` found a server that `mcpctl.toml` wants in this client's file, but the file does not have it: the manifest was edited without running `mcpctl apply`. Run `mcpctl apply` and commit the result.",
        example: "mcpctl apply",
    },
    Rule {
        code: "MCP602",
        name: "manifest-outdated",
        severity: Severity::Error,
        fixable: false,
        title: "an entry differs from what the manifest wants",
        explanation: "The entry is mcpctl's (the ledger has it as written), but `mcpctl.toml` now wants other content. Run `mcpctl apply` and commit the result.",
        example: "mcpctl apply",
    },
    Rule {
        code: "MCP603",
        name: "manifest-stale",
        severity: Severity::Error,
        fixable: false,
        title: "an entry is no longer in the manifest",
        explanation: "mcpctl wrote this entry for `mcpctl.toml`, which no longer lists it (or, with `exclusive = true`, the manifest does not list it at all). `mcpctl apply` removes it.",
        example: "mcpctl apply",
    },
    Rule {
        code: "MCP604",
        name: "manifest-conflict",
        severity: Severity::Error,
        fixable: false,
        title: "a hand-made entry has a manifest server's name and other content",
        explanation: "mcpctl never replaces an entry it cannot prove it wrote. Make the entry match the manifest, rename one of them, or run `mcpctl apply --force` to let the manifest win. Without a ledger (a fresh checkout) every entry that differs from the manifest is reported this way.",
        example: "mcpctl apply --force",
    },
    Rule {
        code: "MCP605",
        name: "manifest-drift",
        severity: Severity::Error,
        fixable: false,
        title: "an entry mcpctl wrote was edited by hand",
        explanation: "The entry no longer has the content mcpctl wrote, and differs from `mcpctl.toml`. Move the edit into the manifest and run `mcpctl apply`, or run `mcpctl apply --force` to put the manifest's version back. `mcpctl plan` shows the last written, current and wanted versions.",
        example: "mcpctl plan",
    },
];

/// The rule with this code (case-insensitive).
pub fn rule(code: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.code.eq_ignore_ascii_case(code))
}

/// The docs table (Markdown), so `docs/check.md` cannot drift from the code.
pub fn markdown_table() -> String {
    let mut out =
        String::from("| code | name | severity | fix | what it catches |\n|---|---|---|---|---|\n");
    for r in RULES {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            r.code,
            r.name,
            r.severity.as_str(),
            if r.fixable { "yes" } else { "" },
            r.title.replace('|', "\\|")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_sorted_and_well_formed() {
        for pair in RULES.windows(2) {
            assert!(
                pair[0].code < pair[1].code,
                "{} / {}",
                pair[0].code,
                pair[1].code
            );
        }
        for r in RULES {
            assert!(r.code.starts_with("MCP") && r.code.len() == 6, "{}", r.code);
            assert!(!r.title.ends_with('.'), "{}", r.code);
            assert!(
                r.title.chars().next().is_some_and(|c| !c.is_uppercase()),
                "{}",
                r.code
            );
            assert!(
                !r.explanation.is_empty() && !r.example.is_empty(),
                "{}",
                r.code
            );
        }
    }

    #[test]
    fn lookup_is_case_insensitive() {
        assert_eq!(rule("mcp201").map(|r| r.name), Some("wrong-url-key"));
        assert!(rule("MCP999").is_none());
    }
}
