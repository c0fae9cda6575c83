//! MCP0xx, syntax: what the raw text shows before any value is looked at (parse errors,
//! comments and trailing commas a strict reader rejects, duplicate keys, a refused BOM),
//! and servers in a file no client reads (reported by `check::check_unread`).

use crate::check::lint::Linter;
use crate::clients::loading::Parser;
use crate::formats::tree::{Parsed, Syntax};

use super::Rule;
use crate::check::Severity;

pub const PARSE_ERROR: Rule = Rule {
    code: "MCP001",
    name: "parse-error",
    severity: Severity::Error,
    fixable: false,
    title: "the file does not parse",
    explanation: "The client cannot read a file with a syntax error and usually drops every server in it, often without saying so. When a file does not parse, `check` reports only this finding for it and `--fix` leaves it alone.",
    example: "{\n  \"mcpServers\": {\n    \"memory\": { \"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-memory@2025.8.4\"] }\n  }\n}",
};

pub const COMMENT_IN_STRICT_JSON: Rule = Rule {
    code: "MCP002",
    name: "comment-in-strict-json",
    severity: Severity::Error,
    fixable: true,
    title: "comment in a file the client reads as strict JSON",
    explanation: "Clients whose table row says `loading.parser = \"strict\"`, or `format = \"json\"` with no `parser` (Claude Code, Windsurf, Cline, Roo, Kiro, ...), parse the file with a strict JSON parser: a `//` or `/* */` comment makes the whole file invalid, and the client loads none of its servers (`list` marks them `file rejected`, `doctor` fails them, `add` and `remove` refuse to write there without `--force`). `--fix` removes the comments after showing the diff; move a note you want to keep into a README, or into a key the client ignores.",
    example: "{\n  \"mcpServers\": {\n    \"github\": { \"command\": \"github-mcp-server\", \"args\": [\"stdio\"] }\n  }\n}",
};

pub const TRAILING_COMMA_IN_STRICT_JSON: Rule = Rule {
    code: "MCP003",
    name: "trailing-comma-in-strict-json",
    severity: Severity::Error,
    fixable: true,
    title: "trailing comma in a file the client rejects with one",
    explanation: "A comma before `}` or `]` is accepted by JSONC readers (VS Code, Zed, OpenCode) but rejected by the strict JSON parsers of Claude Code, Windsurf and others, and by the comment-stripping readers of Gemini CLI, Qwen Code and Cursor (`loading.parser = \"comments\"`), which then load no server from the file (`list` marks them `file rejected`, `doctor` fails them, `add` and `remove` refuse to write there without `--force`). `--fix` removes the comma after showing the diff.",
    example: "{ \"mcpServers\": { \"memory\": { \"command\": \"mcp-memory\", \"args\": [] } } }",
};

pub const DUPLICATE_KEY: Rule = Rule {
    code: "MCP004",
    name: "duplicate-key",
    severity: Severity::Error,
    fixable: false,
    title: "the same key appears twice in one object",
    explanation: "JSON parsers disagree about duplicate keys: most keep the last one silently, so the first definition (often a whole server) is lost without a message. Rename or merge the two.",
    example: "{ \"mcpServers\": { \"github\": { \"command\": \"github-mcp-server\" }, \"github-work\": { \"command\": \"github-mcp-server\" } } }",
};

pub const BOM_REFUSED: Rule = Rule {
    code: "MCP005",
    name: "bom-refused",
    severity: Severity::Error,
    fixable: false,
    title: "byte-order mark in a file the client refuses",
    explanation: "Gemini CLI exits at start-up (exit code 52, measured with gemini-cli 0.61) when its settings file begins with a UTF-8 byte-order mark, which some Windows editors add. Save the file as UTF-8 without BOM; mcpctl keeps a BOM that is there but never adds one.",
    example: "{\n  \"mcpServers\": {\n    \"time\": { \"command\": \"uvx\", \"args\": [\"mcp-server-time\"] }\n  }\n}",
};

pub const UNREAD_FILE: Rule = Rule {
    code: "MCP006",
    name: "unread-file",
    severity: Severity::Warning,
    fixable: false,
    title: "servers in a file no client reads",
    explanation: "The file looks like a client's MCP config, but no client reads servers from it: `~/.claude/mcp.json`, `.claude/mcp.json` and `mcpServers` in Claude Code's `settings.json`; `~/.codex/mcp.json` (Codex reads only `config.toml`); the `mcp.servers` section of VS Code's `settings.json`, which VS Code stopped reading in 1.102 when servers moved to `mcp.json`. The servers there are ignored without a message. Move them to the file the finding names (`mcpctl add NAME -c ID --from-json ...` writes them there) and delete them here. The table's `unread` rows list these files.",
    example: "mcpctl add github -c claude-code --scope project -- npx -y @modelcontextprotocol/server-github",
};

impl Linter<'_> {
    /// Report the text's syntax notes; `true` when it does not parse (then nothing else
    /// is reported for the file).
    pub(in crate::check) fn syntax(&mut self, parsed: &Parsed) -> bool {
        for note in &parsed.syntax {
            match note {
                Syntax::Error(offset, message) => {
                    self.report(*offset, &PARSE_ERROR, format!("cannot parse: {message}"));
                    // A file that does not parse reports only that.
                    self.findings.retain(|f| f.code == PARSE_ERROR.code);
                    return true;
                }
                Syntax::Comment(offset) if self.parser().is_some_and(Parser::rejects_comments) => {
                    self.report(
                        *offset,
                        &COMMENT_IN_STRICT_JSON,
                        format!("comment in a file {} reads as strict JSON; it rejects the whole file and loads none of its servers", self.name()),
                    );
                }
                Syntax::TrailingComma(offset)
                    if self.parser().is_some_and(Parser::rejects_trailing_commas) =>
                {
                    let reads = if self.parser() == Some(Parser::Strict) {
                        "strict JSON"
                    } else {
                        "JSON with comments but no trailing commas"
                    };
                    self.report(
                        *offset,
                        &TRAILING_COMMA_IN_STRICT_JSON,
                        format!("trailing comma in a file {} reads as {reads}; it rejects the whole file and loads none of its servers", self.name()),
                    );
                }
                Syntax::DuplicateKey(offset, key) => self.report(
                    *offset,
                    &DUPLICATE_KEY,
                    format!("duplicate key `{key}`: the earlier one is silently lost"),
                ),
                Syntax::Comment(_) | Syntax::TrailingComma(_) => {}
            }
        }
        false
    }

    /// A byte-order mark in a file the client refuses to read with one.
    pub(in crate::check) fn bom(&mut self, bom: bool) {
        if bom && self.client.fields.rejects_bom {
            let message = format!(
                "{} refuses a file that starts with a byte-order mark; save it as UTF-8 without BOM",
                self.name()
            );
            self.report(0, &BOM_REFUSED, message);
        }
    }
}
