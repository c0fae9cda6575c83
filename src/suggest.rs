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

/// Global flags that take a value: the word after them is not the command.
const VALUED_GLOBALS: &[&str] = &["--platform", "--clients", "--project", "--color"];

/// Verbs of other tools (`npm install`, `claude mcp add`, `claude mcp get`) that mean one
/// of mcpctl's: for `args` (without the program name) whose command word is one of them,
/// the unknown word and the mcpctl line that does it (`mcpctl add memory`). Pure.
pub fn foreign_verb(args: &[String]) -> Option<(String, String)> {
    let mut at = 0;
    while at < args.len() && args[at].starts_with('-') {
        let flag = args[at].as_str();
        at += if VALUED_GLOBALS.contains(&flag) { 2 } else { 1 };
    }
    let word = args.get(at)?.clone();
    let mut rest = &args[(at + 1).min(args.len())..];
    let mut verb = word.as_str();
    // `claude mcp add …`, `gemini mcp list`: the verb follows `mcp`.
    if verb == "mcp" {
        verb = rest.first().map_or("list", String::as_str);
        rest = rest.get(1..).unwrap_or_default();
    }
    let ours = match verb {
        "install" | "i" | "add" | "new" => "add",
        "uninstall" | "rm" | "delete" | "remove" => "remove",
        "get" | "show" | "ls" | "list" | "info" => "list",
        _ => return None,
    };
    let mut line = format!("mcpctl {ours}");
    for arg in rest {
        line.push(' ');
        line.push_str(arg);
    }
    Some((word, line))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn verbs_of_other_tools_map_to_ours() {
        let line = |l: &str| foreign_verb(&words(l)).map(|(_, line)| line);
        assert_eq!(line("install memory").as_deref(), Some("mcpctl add memory"));
        assert_eq!(
            line("mcp add m -- npx m").as_deref(),
            Some("mcpctl add m -- npx m")
        );
        assert_eq!(line("get m").as_deref(), Some("mcpctl list m"));
        assert_eq!(
            line("--platform linux rm m").as_deref(),
            Some("mcpctl remove m")
        );
        assert_eq!(line("mcp").as_deref(), Some("mcpctl list"));
        assert_eq!(line("frobnicate"), None);
    }

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
