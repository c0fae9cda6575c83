//! The rules, one module per group: MCP0xx `syntax`, MCP1xx `shape`, MCP2xx `dialect`,
//! MCP3xx `portability`, MCP4xx `security`, MCP5xx `references`, MCP6xx `sync` (manifest, reported by `plan --check`). Each group module holds
//! its rules' rows (a `pub const` per rule: code, severity, title, rationale, a fixed
//! example) and the `impl Linter` functions that report them; the linter reports a rule by
//! its constant, so a mistyped rule does not compile. `RULES` lists them all in code
//! order: `--explain`, the SARIF rule list and `docs/check.md` are generated from it.
//!
//! Codes are stable: never renumber or reuse one. A new rule is a row and its function in
//! its group, plus one line in `RULES`.

pub(crate) mod dialect;
pub(crate) mod portability;
pub(crate) mod references;
pub(crate) mod security;
pub(crate) mod shape;
pub(crate) mod sync;
pub(crate) mod syntax;

pub use super::Rule;

/// Every rule, in code order.
pub const RULES: &[Rule] = &[
    syntax::PARSE_ERROR,
    syntax::COMMENT_IN_STRICT_JSON,
    syntax::TRAILING_COMMA_IN_STRICT_JSON,
    syntax::DUPLICATE_KEY,
    syntax::BOM_REFUSED,
    syntax::UNREAD_FILE,
    shape::SERVERS_NOT_OBJECT,
    shape::ENTRY_NOT_OBJECT,
    shape::COMMAND_AND_URL,
    shape::NO_COMMAND_OR_URL,
    shape::COMMAND_OR_URL_TYPE,
    shape::ARGS_NOT_STRINGS,
    shape::MAP_NOT_STRINGS,
    shape::NAME_NOT_PORTABLE,
    dialect::WRONG_URL_KEY,
    dialect::COMMAND_ARRAY_SHAPE,
    dialect::REMOTE_TYPE_REQUIRED,
    dialect::UNTYPED_REMOTE_IS_SSE,
    dialect::FOREIGN_SERVERS_KEY,
    dialect::UNKNOWN_KEY,
    dialect::UNSUPPORTED_TRANSPORT,
    dialect::UNKNOWN_TYPE_VALUE,
    dialect::SSE_DEPRECATED,
    dialect::BLOCKED_BY_POLICY,
    portability::UNWRAPPED_WINDOWS_SHIM,
    portability::CMD_WRAPPER_OFF_WINDOWS,
    portability::ABSOLUTE_HOME_PATH,
    portability::CMD_METACHARACTER,
    portability::CMD_QUOTED_COMMAND,
    security::PLAINTEXT_SECRET,
    security::UNPINNED_PACKAGE,
    security::INSECURE_HTTP,
    references::WRONG_VARIABLE_SYNTAX,
    references::UNDEFINED_INPUT,
    references::UNSET_VARIABLE,
    sync::MISSING,
    sync::OUTDATED,
    sync::STALE,
    sync::CONFLICT,
    sync::DRIFT,
    sync::SWITCH,
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
