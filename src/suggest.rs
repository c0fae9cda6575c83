//! "Did you mean ...?": the closest of a set of known words to a mistyped one. Pure; the
//! callers decide what the words are (client ids, server names) and how to say it.

/// The candidate closest to `input`, if one is close enough to be a likely typo: at most
/// one edit for short words, about a third of the length for longer ones. Case is ignored.
pub fn closest<'a, I>(input: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let input = input.to_lowercase();
    let budget = (input.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(&input, &c.to_lowercase()), c))
        .filter(|(distance, c)| *distance <= budget && *distance < c.chars().count())
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_near_misses_only() {
        let ids = ["cursor", "codex", "claude-code", "vscode"];
        assert_eq!(closest("cursr", ids), Some("cursor"));
        assert_eq!(closest("Cusror", ids), Some("cursor"));
        assert_eq!(closest("claude-cod", ids), Some("claude-code"));
        assert_eq!(closest("docz", ["docs", "github"]), Some("docs"));
        assert_eq!(closest("zzz", ids), None);
        assert_eq!(closest("x", ["y"]), None);
    }
}
