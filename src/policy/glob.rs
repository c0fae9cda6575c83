//! `*` wildcards in `serverUrl` patterns (Claude Code and Copilot): `*` stands for any run
//! of characters, dots and slashes included (`https://*.example.com/*` matches
//! `https://a.b.example.com/mcp`); everything else is literal.

/// Whether `text` matches `pattern`.
pub fn matches(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let [first, middle @ .., last] = parts.as_slice() else {
        return pattern == text;
    };
    if parts.len() == 1 {
        return pattern == text;
    }
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_span_dots_and_slashes_and_the_rest_is_literal() {
        for (pattern, text, want) in [
            ("*", "https://anything/at/all", true),
            (
                "https://mcp.example.com/mcp",
                "https://mcp.example.com/mcp",
                true,
            ),
            (
                "https://mcp.example.com/mcp",
                "https://mcp.example.com/mcp/",
                false,
            ),
            (
                "https://*.example.com/*",
                "https://a.b.example.com/mcp",
                true,
            ),
            ("https://*.example.com/*", "https://example.com/mcp", false),
            ("https://*.example.com/*", "http://a.example.com/mcp", false),
            (
                "https://api.githubcopilot.com/*",
                "https://api.githubcopilot.com/mcp/",
                true,
            ),
            ("example.com/*", "https://example.com/mcp", false),
            ("https://a*a", "https://a", false),
            ("https://a*a", "https://aa", true),
        ] {
            assert_eq!(matches(pattern, text), want, "{pattern} ~ {text}");
        }
    }
}
