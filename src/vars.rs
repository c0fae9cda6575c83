//! Variable references in entry values: `${VAR}`, `${VAR:-default}`, `${env:VAR}`,
//! `{env:VAR}` (OpenCode/Kilo) and `${input:id}` (VS Code prompts). Finding them and
//! expanding them from an environment snapshot; never reads the process environment.

/// Editor variables that are not environment references (Cursor, VS Code fill them).
pub const EDITOR_VARIABLES: &[&str] = &[
    "workspaceFolder",
    "workspaceFolderBasename",
    "userHome",
    "pathSeparator",
    "cwd",
    "/",
];

/// A client's syntax for variable references in entry values.
#[derive(Debug, Clone, Copy, serde::Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum VarSyntax {
    /// `${VAR}` and `${VAR:-default}` (Claude Code, Kiro, CodeBuddy, Gemini CLI).
    Shell,
    /// `${env:VAR}`, plus editor variables such as `${workspaceFolder}` (Cursor).
    Editor,
    /// `${env:VAR}` and `${input:id}` backed by the top-level `inputs` list (VS Code).
    Vscode,
    /// `{env:VAR}` (OpenCode, Kilo).
    Opencode,
    /// No expansion; names listed in `env_vars` pass through, `bearer_token_env_var`
    /// holds a header token (Codex).
    Codex,
    /// No expansion in `envs`, `args`, `cmd` or `uri`; names listed in `env_keys` pass
    /// through from Goose's environment (or its keyring), and header values expand
    /// `${VAR}` from those (Goose's `merge_environments` and `substitute_env_vars`).
    Goose,
}

/// One reference found in a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The whole reference as written, e.g. `${env:TOKEN}`.
    pub text: String,
    /// The variable (or input id) name.
    pub name: String,
    pub syntax: Syntax,
    /// `${VAR:-default}`.
    pub default: Option<String>,
    /// Byte offset in the string.
    pub offset: usize,
}

/// The spelling of a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// `${VAR}` / `${VAR:-default}` (Claude Code, Gemini CLI, Kiro; Codex expands no
    /// references at all, see `VarSyntax::Codex`).
    Dollar,
    /// `${env:VAR}` (Cursor, VS Code).
    DollarEnv,
    /// `{env:VAR}` (OpenCode, Kilo).
    BraceEnv,
    /// `${input:id}` (VS Code).
    Input,
}

/// Every reference in `text`, in order.
pub fn references(text: &str) -> Vec<Reference> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let dollar = bytes[i] == b'$' && bytes.get(i + 1) == Some(&b'{');
        let brace_env =
            bytes[i] == b'{' && text[i..].starts_with("{env:") && (i == 0 || bytes[i - 1] != b'$');
        if !dollar && !brace_env {
            i += 1;
            continue;
        }
        let open = if dollar { i + 2 } else { i + 1 };
        let Some(close) = text[open..].find('}').map(|c| open + c) else {
            break;
        };
        let inner = &text[open..close];
        let (syntax, body) = if brace_env {
            (Syntax::BraceEnv, &inner[4..])
        } else if let Some(rest) = inner.strip_prefix("env:") {
            (Syntax::DollarEnv, rest)
        } else if let Some(rest) = inner.strip_prefix("input:") {
            (Syntax::Input, rest)
        } else {
            (Syntax::Dollar, inner)
        };
        let (name, default) = match (syntax, body.split_once(":-")) {
            (Syntax::Dollar, Some((n, d))) => (n, Some(d.to_owned())),
            _ => (body, None),
        };
        if !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
        {
            out.push(Reference {
                text: text[i..=close].to_owned(),
                name: name.to_owned(),
                syntax,
                default,
                offset: i,
            });
        }
        i = close + 1;
    }
    out
}

/// Expand environment references with `lookup`; returns the text and the names that were
/// not set (their references are left as written). `${input:...}` is never expanded.
pub fn expand(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut missing = Vec::new();
    let mut last = 0;
    for r in references(text) {
        out.push_str(&text[last..r.offset]);
        last = r.offset + r.text.len();
        if r.syntax == Syntax::Input {
            out.push_str(&r.text);
            continue;
        }
        match lookup(&r.name).or(r.default.clone()) {
            Some(value) => out.push_str(&value),
            None => {
                out.push_str(&r.text);
                if !missing.contains(&r.name) {
                    missing.push(r.name);
                }
            }
        }
    }
    out.push_str(&text[last..]);
    (out, missing)
}

/// The one test of "is this value only a variable reference?", used by `check` (not a
/// secret), redaction (safe to show) and `add`. True when nothing literal is left once the
/// references (`${VAR}`, `${VAR:-default}`, `${env:VAR}`, `{env:VAR}`, `${input:id}`) and
/// an optional `Bearer ` are taken away, or for a bare `$VAR`; an empty value is no secret
/// either. `ghp_...${X}` is a value: a token with a reference appended is still a token.
pub fn is_reference(text: &str) -> bool {
    // `{secret:NAME}` names a secret in mcpctl's store (the bridge fills it): no value.
    let without_secrets = strip_secret_placeholders(text);
    let text = without_secrets.trim();
    // `Bearer ` (also bare, once a placeholder after it is taken away and the space trimmed).
    let text = text
        .get(..6)
        .filter(|head| head.eq_ignore_ascii_case("bearer"))
        .filter(|_| text[6..].chars().next().is_none_or(char::is_whitespace))
        .map_or(text, |_| text[6..].trim_start());
    if text.is_empty() {
        return true;
    }
    if let Some(name) = text.strip_prefix('$')
        && !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return true;
    }
    !references(text).is_empty() && literal_text(text).trim().is_empty()
}

/// `text` without its `{secret:NAME}` placeholders (`entry::launcher`), which name
/// a stored secret and hold no value.
fn strip_secret_placeholders(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("{secret:") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("{secret:") {
        let after = &rest[at + "{secret:".len()..];
        let Some(end) = after.find('}') else { break };
        let name = &after[..end];
        out.push_str(&rest[..at]);
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        {
            out.push_str(&rest[at..at + "{secret:".len() + end + 1]);
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// `text` with every reference taken out: the part that is written literally.
pub fn literal_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for r in references(text) {
        out.push_str(&text[last..r.offset]);
        last = r.offset + r.text.len();
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_placeholders_are_references() {
        assert!(is_reference("{secret:docs}"));
        assert!(is_reference("Bearer {secret:docs}"));
        assert!(!is_reference("Bearer {secret:docs} ghp_x"));
        assert!(!is_reference("{secret:a b}"));
    }

    #[test]
    fn finds_every_syntax() {
        let refs = references("a ${A} ${env:B} {env:C} ${input:d} ${E:-x} $F");
        let got: Vec<(&str, Syntax)> = refs.iter().map(|r| (r.name.as_str(), r.syntax)).collect();
        assert_eq!(
            got,
            [
                ("A", Syntax::Dollar),
                ("B", Syntax::DollarEnv),
                ("C", Syntax::BraceEnv),
                ("d", Syntax::Input),
                ("E", Syntax::Dollar)
            ]
        );
        assert_eq!(refs[4].default.as_deref(), Some("x"));
    }

    #[test]
    fn expands_and_reports_missing() {
        let lookup = |n: &str| (n == "A").then(|| "1".to_owned());
        assert_eq!(
            expand("x${A}y${B}z${C:-d}", &lookup),
            ("x1y${B}zd".to_owned(), vec!["B".to_owned()])
        );
        assert_eq!(
            expand("Bearer ${input:tok}", &lookup).0,
            "Bearer ${input:tok}"
        );
        assert_eq!(expand("${unclosed", &lookup).0, "${unclosed");
    }

    #[test]
    fn a_reference_is_nothing_but_references() {
        for yes in [
            "${GITHUB_TOKEN}",
            "${env:X}",
            "{env:X}",
            "${input:tok}",
            "Bearer ${TOKEN}",
            "bearer {env:T}",
            "$HOME",
            "${A}${B}",
            "",
        ] {
            assert!(is_reference(yes), "{yes}");
        }
        let token = format!("ghp_{}", "x1".repeat(18));
        for no in [
            format!("{token}${{X}}"),
            "${A}${B}x".to_owned(),
            "Bearer abc".to_owned(),
            "$(cat t)".to_owned(),
            "${HOME}/.config/key.json".to_owned(),
        ] {
            assert!(!is_reference(&no), "{no}");
        }
        assert_eq!(literal_text("a${X}b{env:Y}"), "ab");
    }
}

/// Rewrite environment references in `text` into `syntax` (`${VAR}` → `${env:VAR}` for
/// Cursor/VS Code, `{env:VAR}` for OpenCode, ...). `${input:...}` and references the
/// syntax cannot say (Codex has no expansion) are left as written.
pub fn respell(text: &str, syntax: VarSyntax) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for r in references(text) {
        out.push_str(&text[last..r.offset]);
        last = r.offset + r.text.len();
        let spelled = match (r.syntax, syntax) {
            (Syntax::Input, _) | (_, VarSyntax::Codex) => r.text.clone(),
            (_, VarSyntax::Goose) if r.default.is_some() => r.text.clone(),
            (_, VarSyntax::Goose) => format!("${{{}}}", r.name),
            (_, VarSyntax::Shell) => match &r.default {
                Some(default) => format!("${{{}:-{default}}}", r.name),
                None => format!("${{{}}}", r.name),
            },
            (_, VarSyntax::Editor | VarSyntax::Vscode) => format!("${{env:{}}}", r.name),
            (_, VarSyntax::Opencode) => format!("{{env:{}}}", r.name),
        };
        out.push_str(&spelled);
    }
    out.push_str(&text[last..]);
    out
}

/// `text` is exactly one environment reference: its variable name.
pub fn sole_reference(text: &str) -> Option<String> {
    match references(text).as_slice() {
        [r] if r.text == text && r.syntax != Syntax::Input && r.default.is_none() => {
            Some(r.name.clone())
        }
        _ => None,
    }
}

#[cfg(test)]
mod respell_tests {
    use super::*;

    #[test]
    fn respells_into_each_clients_syntax() {
        let text = "Bearer ${TOKEN} ${env:A} {env:B} ${input:c}";
        assert_eq!(
            respell(text, VarSyntax::Shell),
            "Bearer ${TOKEN} ${A} ${B} ${input:c}"
        );
        assert_eq!(
            respell(text, VarSyntax::Vscode),
            "Bearer ${env:TOKEN} ${env:A} ${env:B} ${input:c}"
        );
        assert_eq!(
            respell(text, VarSyntax::Opencode),
            "Bearer {env:TOKEN} {env:A} {env:B} ${input:c}"
        );
        assert_eq!(respell(text, VarSyntax::Codex), text);
        assert_eq!(sole_reference("${X}"), Some("X".to_owned()));
        assert_eq!(sole_reference("{env:X}"), Some("X".to_owned()));
        assert_eq!(sole_reference("a${X}"), None);
    }
}

/// The environment variable that stands for VS Code's `${input:id}` in clients without
/// prompts: the id in upper case, other characters as `_` (`github-token` → `GITHUB_TOKEN`).
pub fn input_variable(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// Whether `name` can name an environment variable everywhere (`[A-Za-z_][A-Za-z0-9_]*`).
pub fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `text` with every `${input:id}` replaced by `${VAR}`, `VAR` being `variable(id)`
/// (e.g. [`input_variable`]); the ids replaced, in order.
pub fn inputs_to_variables(text: &str, variable: &dyn Fn(&str) -> String) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut ids = Vec::new();
    let mut last = 0;
    for r in references(text) {
        if r.syntax != Syntax::Input {
            continue;
        }
        out.push_str(&text[last..r.offset]);
        last = r.offset + r.text.len();
        out.push_str(&format!("${{{}}}", variable(&r.name)));
        ids.push(r.name);
    }
    out.push_str(&text[last..]);
    (out, ids)
}

#[cfg(test)]
mod input_tests {
    use super::*;

    #[test]
    fn inputs_become_environment_references() {
        assert_eq!(
            inputs_to_variables("Bearer ${input:github-token} ${env:X}", &input_variable),
            (
                "Bearer ${GITHUB_TOKEN} ${env:X}".to_owned(),
                vec!["github-token".to_owned()]
            )
        );
        assert_eq!(
            inputs_to_variables("plain", &input_variable),
            ("plain".to_owned(), vec![])
        );
    }
}
