//! What counts as a secret, and how it is shown: the one rule. `check` flags what it
//! finds here (MCP401), `import` turns it into a variable reference, and every output
//! hides it ([`scrub`] runs over everything `output::Printer` prints). A secret is:
//! - any literal env or header value (shown as [`REDACTED`] by [`redact`]);
//! - a known token pattern anywhere (`ghp_…`, `sk-…`, `AKIA…`, …) or a literal `Bearer`
//!   token;
//! - a high-entropy value under a secret-sounding name: an argument after (or `=` of) a
//!   flag such as `--api-key`, a URL query parameter such as `?api_key=`, a key such as
//!   `GITHUB_TOKEN = "…"` in a diff;
//! - the userinfo of a URL (`https://user:pass@host`).
//!
//! Variable references (`${TOKEN}`, `${env:X}`, `{env:X}`, `${input:id}`) are never
//! secrets and show as written.

use std::borrow::Cow;
use std::ops::Range;

use crate::vars;

/// The placeholder printed instead of a secret.
pub const REDACTED: &str = "<redacted>";

/// What kind of literal secret `value` (an env or header value under `key`) holds, by
/// this rule's test: a known token pattern, a literal `Bearer` token, or a high-entropy
/// value under a secret-sounding key. `None` for references and ordinary values.
/// `import` uses the same test to move secrets out of manifests.
pub fn literal_secret(key: &str, value: &str) -> Option<&'static str> {
    if vars::is_reference(value) {
        return None;
    }
    // What is written literally; references around it are no secret.
    let literal = vars::literal_text(value);
    let bearer = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
        .map(|t| vars::literal_text(t.trim()));
    pattern_secret(value)
        .or_else(|| {
            bearer
                .filter(|t| t.trim().len() >= 8)
                .map(|_| "a literal `Bearer` token")
        })
        .or_else(|| secret_name(key).then(|| entropy_secret(&literal)).flatten())
}

/// A key or parameter name that suggests a secret: in upper case with `-` as `_`, one of
/// a few words anywhere, or a `_KEY` or `_PAT` suffix, or `KEY` alone.
pub fn secret_name(name: &str) -> bool {
    const WORDS: [&str; 10] = [
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "API_KEY",
        "APIKEY",
        "ACCESS_KEY",
        "PRIVATE_KEY",
        "CREDENTIAL",
        "AUTH",
    ];
    let name = name.to_ascii_uppercase().replace('-', "_");
    WORDS.iter().any(|word| name.contains(word))
        || name.ends_with("_KEY")
        || name == "KEY"
        || name.ends_with("_PAT")
}

/// The variable to suggest for a secret in `field` (an env name or a header) of server
/// `server`: the field itself as a variable name (`X-Api-Key` → `X_API_KEY`), except an
/// `Authorization` header, which every server has: `DOCS_TOKEN` for server `docs`, not
/// `AUTHORIZATION` (issue 40).
#[must_use]
pub fn variable_for(server: &str, field: &str) -> String {
    let upper = |text: &str| -> String {
        text.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_uppercase()
                } else {
                    '_'
                }
            })
            .collect()
    };
    if field.eq_ignore_ascii_case("authorization")
        || field.eq_ignore_ascii_case("proxy-authorization")
    {
        let server = upper(server);
        let server = server.trim_matches('_');
        if server.is_empty() || server.starts_with(|c: char| c.is_ascii_digit()) {
            return "API_TOKEN".to_owned();
        }
        return format!("{server}_TOKEN");
    }
    upper(field)
}

/// Characters a provider's token is made of.
fn token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// A value that has the shape of a known provider's token.
pub fn pattern_secret(value: &str) -> Option<&'static str> {
    const PATTERNS: &[(&str, usize, &str)] = &[
        ("github_pat_", 20, "a GitHub token"),
        ("ghp_", 30, "a GitHub token"),
        ("gho_", 30, "a GitHub token"),
        ("ghu_", 30, "a GitHub token"),
        ("ghs_", 30, "a GitHub token"),
        ("ghr_", 30, "a GitHub token"),
        ("sk-ant-", 20, "an Anthropic API key"),
        ("sk-proj-", 20, "an OpenAI API key"),
        ("sk-", 20, "an OpenAI API key"),
        ("AKIA", 16, "an AWS access key"),
        ("xoxb-", 10, "a Slack token"),
        ("xoxa-", 10, "a Slack token"),
        ("xoxp-", 10, "a Slack token"),
        ("xoxr-", 10, "a Slack token"),
        ("AIza", 30, "a Google API key"),
    ];
    for (i, _) in value.char_indices() {
        if i > 0 && value[..i].chars().next_back().is_some_and(token_char) {
            continue; // a token starts at a word boundary
        }
        let rest = &value[i..];
        for (prefix, min, kind) in PATTERNS {
            if let Some(tail) = rest.strip_prefix(prefix) {
                let len = tail.chars().take_while(|c| token_char(*c)).count();
                let upper_only = *prefix == "AKIA";
                let body_ok = !upper_only
                    || tail
                        .chars()
                        .take(16)
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
                if len >= *min && body_ok {
                    return Some(kind);
                }
            }
        }
    }
    None
}

/// A long random-looking literal (for values under secret-sounding names).
pub fn entropy_secret(value: &str) -> Option<&'static str> {
    let v = value.trim();
    if v.len() < 16
        || v.contains(char::is_whitespace)
        || v.starts_with(['/', '.', '~'])
        || v.contains("://")
    {
        return None;
    }
    let mut counts = std::collections::HashMap::new();
    for c in v.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    let len = v.chars().count() as f64;
    let entropy: f64 = counts
        .values()
        .map(|&n| {
            let p = n as f64 / len;
            -p * p.log2()
        })
        .sum();
    let classes = [
        v.chars().any(|c| c.is_ascii_lowercase()),
        v.chars().any(|c| c.is_ascii_uppercase()),
        v.chars().any(|c| c.is_ascii_digit()),
    ]
    .iter()
    .filter(|b| **b)
    .count();
    (entropy >= 3.5 && classes >= 2).then_some("what looks like a secret")
}

#[cfg(test)]
/// Arguments with their secrets replaced: a token anywhere, the value of a secret flag
/// (`--api-key VALUE`, `--token=VALUE`), secrets in URL arguments.
pub fn redact_args(args: &[String]) -> Vec<String> {
    let mut previous_flag: Option<&str> = None;
    args.iter()
        .map(|arg| {
            let flagged = previous_flag.take().is_some_and(|flag| {
                !names_stored_secret(flag, arg) && literal_secret(flag, arg).is_some()
            });
            previous_flag = arg
                .strip_prefix('-')
                .filter(|f| !f.contains('='))
                .map(|f| f.trim_start_matches('-'));
            if flagged {
                REDACTED.to_owned()
            } else {
                scrub(arg).into_owned()
            }
        })
        .collect()
}

/// The secrets among `args` (each a value `redact_args` would hide, with the flag that
/// names it): what `check` reports and `import` moves out.
pub fn arg_secrets(args: &[String]) -> Vec<ArgSecret> {
    let mut out = Vec::new();
    let mut previous_flag: Option<&str> = None;
    for (index, arg) in args.iter().enumerate() {
        let (written, value) = match arg.split_once('=') {
            Some((k, v)) if k.starts_with('-') => (Some(k), v),
            _ => (previous_flag.take(), arg.as_str()),
        };
        let flag = written.map(|w| w.trim_start_matches('-').to_owned());
        let kind = literal_secret(flag.as_deref().unwrap_or(""), value)
            .filter(|_| !names_stored_secret(flag.as_deref().unwrap_or(""), value));
        if let Some(kind) = kind {
            out.push(ArgSecret {
                index,
                flag: flag.clone(),
                written: written.map(str::to_owned),
                value: value.to_owned(),
                kind,
            });
        }
        previous_flag = Some(arg.as_str()).filter(|a| a.starts_with('-') && !a.contains('='));
    }
    out
}

/// `--secret ENV=NAME` of mcpctl's launcher (`mcpctl run`): a name in the secret store,
/// never a value.
fn names_stored_secret(flag: &str, value: &str) -> bool {
    flag == "secret"
        && value.split_once('=').is_some_and(|(var, name)| {
            !var.is_empty()
                && crate::entry::launcher::is_secret_name(name)
                // Another program's `--secret KEY=ghp_…` is still a token.
                && pattern_secret(name).is_none()
                && entropy_secret(name).is_none()
        })
}

/// One secret argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgSecret {
    /// Which argument.
    pub index: usize,
    /// The flag naming it (`api-key`), if any.
    pub flag: Option<String>,
    /// That flag as written (`-e`, `--api-key`).
    pub written: Option<String>,
    /// The secret itself (after `=` for `--flag=VALUE`).
    pub value: String,
    pub kind: &'static str,
}

/// One secret part of a URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlSecret {
    /// Byte range of the secret in the URL.
    pub at: Range<usize>,
    /// The query parameter, or `None` for the userinfo.
    pub param: Option<String>,
    pub kind: &'static str,
}

/// The secrets in `url`: its userinfo and secret query values.
pub fn url_secrets(url: &str) -> Vec<UrlSecret> {
    let mut out = Vec::new();
    if let Some(at) = userinfo(url, 0) {
        out.push(UrlSecret {
            at,
            param: None,
            kind: "credentials in the URL (`user:password@`)",
        });
    }
    if let Some(q) = url.find('?') {
        let end = url[q..].find('#').map_or(url.len(), |h| q + h);
        let mut start = q + 1;
        for pair in url[q + 1..end].split('&') {
            let (param, value) = pair.split_once('=').unwrap_or(("", pair));
            let value_at = start + pair.len() - value.len();
            if let Some(kind) = literal_secret(param, value) {
                out.push(UrlSecret {
                    at: value_at..value_at + value.len(),
                    param: Some(param.to_owned()),
                    kind,
                });
            }
            start += pair.len() + 1;
        }
    }
    out
}

/// The userinfo of a URL whose `://` is at or after `from`: the range before the `@`.
fn userinfo(text: &str, from: usize) -> Option<Range<usize>> {
    let scheme = from + text[from..].find("://")? + 3;
    let authority_end = text[scheme..]
        .find(|c: char| matches!(c, '/' | '?' | '#') || ends_value(c))
        .map_or(text.len(), |e| scheme + e);
    let at = scheme + text[scheme..authority_end].rfind('@')?;
    let info = &text[scheme..at];
    (!info.is_empty() && !vars::is_reference(info)).then_some(scheme..at)
}

/// Characters that end a value in running text (a diff, JSON, a message).
fn ends_value(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '"' | '\'' | '`' | '\\' | ',' | ';' | ']' | '}' | ')' | '<' | '>' | '&' | '#' | '|'
        )
}

/// How long the value at the start of `rest` is: up to the first character that ends a
/// value, where a variable reference (`${env:X}`, `{env:X}`, `${X}`) counts whole, so its
/// closing brace does not cut it into something that looks like a literal.
fn value_len(rest: &str) -> usize {
    let mut len = 0;
    while let Some(close) = Some(&rest[len..])
        .filter(|here| here.starts_with("${") || here.starts_with("{env:"))
        .and_then(|here| here.find('}'))
    {
        len += close + 1;
    }
    len + rest[len..].find(ends_value).unwrap_or(rest.len() - len)
}

/// Characters of a name (`GITHUB_TOKEN`, `--api-key`, `X-Api-Key`).
fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// How long the separator at the start of `rest` is between a name and its value:
/// quotes, commas, blanks, `=` and `:`; and, for a flag whose value is the next element of
/// a list laid out a line each (pretty JSON, a YAML list, a unified diff of either), line
/// breaks, and after one the next line's diff marker and YAML `- `.
fn separator_len(rest: &str) -> usize {
    let mut broken = false;
    rest.find(|c: char| match c {
        '"' | '\'' | '\\' | ',' | ' ' | '\t' | '=' | ':' => false,
        '\n' | '\r' => {
            broken = true;
            false
        }
        '+' | '-' | '<' | '>' => !broken,
        _ => true,
    })
    .unwrap_or(rest.len())
}

/// `text` with every secret this module recognises replaced by [`REDACTED`]. Runs over
/// all output, so it reads any shape: a diff of JSON, TOML or YAML, a command line, JSON
/// output (escaped quotes included), an error message with a URL.
pub fn scrub(text: &str) -> Cow<'_, str> {
    let mut spans: Vec<Range<usize>> = Vec::new();
    // URL userinfo.
    let mut from = 0;
    while let Some(found) = text[from..].find("://") {
        if let Some(at) = userinfo(text, from) {
            spans.push(at);
        }
        from += found + 3;
    }
    // One pass over the words (a name character after one that is not; all of them
    // ASCII, so a word starts on a character boundary): token patterns, `Bearer` tokens,
    // and values under secret-sounding names (`--api-key VALUE`, `--token=VALUE`,
    // `"GITHUB_TOKEN": "VALUE"`, `api_key=VALUE`). Runs over all output, hence bytes.
    let bytes = text.as_bytes();
    let name_byte = |b: u8| name_char(char::from(b));
    for i in 0..bytes.len() {
        let c = bytes[i];
        if !name_byte(c) || (i > 0 && name_byte(bytes[i - 1])) {
            continue;
        }
        let rest = &text[i..];
        let token_len = rest
            .bytes()
            .position(|c| !name_byte(c) || c == b'.')
            .unwrap_or(rest.len());
        if token_len > 0 && pattern_secret(&rest[..token_len]).is_some() {
            spans.push(i..i + token_len);
        }
        if (c == b'B' || c == b'b')
            && rest
                .get(..7)
                .is_some_and(|h| h.eq_ignore_ascii_case("bearer "))
        {
            let start = i + 7;
            // `Bearer {secret:NAME}` names a stored secret (the bridge fills it): no value.
            if !text[start..].starts_with("{secret:") {
                let len = value_len(&text[start..]);
                let token = &text[start..start + len];
                if literal_secret("", &format!("Bearer {token}")).is_some() {
                    spans.push(start..start + len);
                }
            }
        }
        let name_len = rest
            .bytes()
            .position(|c| !name_byte(c))
            .unwrap_or(rest.len());
        let name = &rest[..name_len];
        let after = i + name_len;
        let bare = name.trim_start_matches('-');
        if bare.is_empty() {
            continue;
        }
        // The separator first: most words are not followed by one (and `secret_name` is
        // the dearer test).
        let sep_len = separator_len(&text[after..]);
        let sep = &text[after..after + sep_len];
        let assigned = sep.contains(['=', ':']);
        let flag = name.starts_with('-') && !sep.is_empty();
        // On one line a short gap; across a line break, the next line's indentation too.
        let longest = if sep.contains('\n') { 80 } else { 12 };
        if sep_len > longest || !(assigned || flag) || !secret_name(bare) {
            continue;
        }
        let start = after + sep_len;
        let len = value_len(&text[start..]);
        let value = &text[start..start + len];
        if len > 0 && literal_secret(bare, value).is_some() && !names_stored_secret(bare, value) {
            spans.push(start..start + len);
        }
    }
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    spans.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for span in spans {
        if span.start < last {
            // Inside (or overlapping) a span already replaced.
            last = last.max(span.end);
            continue;
        }
        out.push_str(&text[last..span.start]);
        out.push_str(REDACTED);
        last = span.end;
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// A secret value as it may be shown: a value that is only references to variables
/// (`${VAR}`, `${env:VAR}`, `${input:id}`, `{env:VAR}`, `$VAR`, `Bearer ${TOKEN}`; see
/// `vars::is_reference`) is not a secret and shows as written; anything else is replaced.
/// For env and header values, all of which are treated as secrets.
pub fn redact(value: &str) -> String {
    if vars::is_reference(value) {
        value.to_owned()
    } else {
        REDACTED.to_owned()
    }
}

/// `text` (a diff of a config file) with each of `secrets` replaced where it appears as a
/// quoted string value, so a `--dry-run` hides exactly what `list` hides.
pub fn redact_text(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_owned();
    for secret in secrets.iter().filter(|s| !s.is_empty()) {
        let json = serde_json::Value::String(secret.clone()).to_string();
        out = out
            .replace(&json, &format!("\"{REDACTED}\""))
            .replace(&format!("'{secret}'"), &format!("'{REDACTED}'"));
    }
    out
}

/// Redact every value of a string map.
pub fn redact_map(
    map: &indexmap::IndexMap<String, String>,
    show: bool,
) -> indexmap::IndexMap<String, String> {
    map.iter()
        .map(|(k, v)| (k.clone(), if show { v.clone() } else { redact(v) }))
        .collect()
}

/// `text` with every occurrence of every secret value replaced, as written and as JSON
/// escapes it; where occurrences overlap or touch, their span is replaced whole. One
/// pass over `text` for all the secrets (Aho-Corasick), not one per secret: a plan's diff
/// is as long as its manifest, and so is its list of secrets (each env and header value),
/// so a replace per secret made `plan` and `apply` quadratic in the servers.
pub fn redact_values(text: &str, secrets: &[String]) -> String {
    Redactor::new(secrets).apply(text).into_owned()
}

/// Known secret values, found in any text in one pass: what [`redact_values`] does, with
/// the automaton built once for many texts (every line `Printer` prints, once it knows
/// the values mcpctl passed to a server).
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// Each value as written and as JSON escapes it.
    patterns: Vec<String>,
    /// `None` with no patterns, or more than the automaton can hold (then one at a time).
    automaton: Option<aho_corasick::AhoCorasick>,
}

impl Redactor {
    pub fn new(secrets: &[String]) -> Redactor {
        let mut patterns: Vec<String> = Vec::with_capacity(secrets.len() * 2);
        for secret in secrets.iter().filter(|s| !s.is_empty()) {
            let escaped = serde_json::to_string(secret).unwrap_or_default();
            let escaped = escaped.trim_matches('"');
            if escaped != secret {
                patterns.push(escaped.to_owned());
            }
            patterns.push(secret.clone());
        }
        patterns.sort_unstable();
        patterns.dedup();
        // The NFA without its dense rows: built in time linear in the patterns (the DFA a
        // large set would otherwise get costs more to build than the one search saves).
        let automaton = (!patterns.is_empty())
            .then(|| {
                aho_corasick::AhoCorasick::builder()
                    .kind(Some(aho_corasick::AhoCorasickKind::NoncontiguousNFA))
                    .build(&patterns)
                    .ok()
            })
            .flatten();
        if automaton.is_none() {
            // One at a time, longest first.
            patterns.sort_by_key(|p| std::cmp::Reverse(p.len()));
        }
        Redactor {
            patterns,
            automaton,
        }
    }

    /// `text` with every value replaced by [`REDACTED`].
    pub fn apply<'t>(&self, text: &'t str) -> Cow<'t, str> {
        if self.patterns.is_empty() {
            return Cow::Borrowed(text);
        }
        let Some(automaton) = &self.automaton else {
            let mut text = text.to_owned();
            for pattern in &self.patterns {
                text = text.replace(pattern.as_str(), REDACTED);
            }
            return Cow::Owned(text);
        };
        // Every match (overlapping ones too: a secret inside another, or two that share
        // bytes), in order, merged into spans. A match of a UTF-8 pattern in UTF-8 text
        // starts and ends on character boundaries.
        let mut spans: Vec<(usize, usize)> = automaton
            .find_overlapping_iter(text)
            .map(|m| (m.start(), m.end()))
            .collect();
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        spans.sort_unstable();
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        // The span being merged.
        let mut current: Option<(usize, usize)> = None;
        for (start, end) in spans {
            match &mut current {
                Some((_, e)) if start <= *e => *e = (*e).max(end),
                _ => {
                    if let Some((s, e)) = current.replace((start, end)) {
                        out.push_str(&text[last..s]);
                        out.push_str(REDACTED);
                        last = e;
                    }
                }
            }
        }
        if let Some((s, e)) = current {
            out.push_str(&text[last..s]);
            out.push_str(REDACTED);
            last = e;
        }
        out.push_str(&text[last..]);
        Cow::Owned(out)
    }
}

/// A raw entry (for a message) with the values of its env and header maps redacted:
/// the maps the client's own row names (`fields.env_key`, `headers_key`, so a client's
/// new word for them counts), every spelling other clients use, and Codex's header
/// pass-through. Secrets elsewhere (arguments, URLs) go when it is printed ([`scrub`]).
pub fn redact_raw(raw: &serde_json::Value, fields: &crate::clients::Fields) -> serde_json::Value {
    use serde_json::Value;
    let secret_map = |key: &str| {
        key == fields.env_key
            || key == fields.headers_key
            || crate::entry::spelling::is_secret_map(key)
    };
    let Value::Object(map) = raw else {
        return raw.clone();
    };
    Value::Object(
        map.iter()
            .map(|(k, v)| {
                let v = match v {
                    Value::Object(inner) if secret_map(k) => Value::Object(
                        inner
                            .iter()
                            .map(|(ik, iv)| {
                                let iv = match iv {
                                    Value::String(s) => Value::String(redact(s)),
                                    other => other.clone(),
                                };
                                (ik.clone(), iv)
                            })
                            .collect(),
                    ),
                    // Nested shapes keep headers a level down (Cline CLI's `transport`,
                    // Mistral Vibe's `auth`).
                    Value::Object(_) => redact_raw(v, fields),
                    other => other.clone(),
                };
                (k.clone(), v)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every occurrence of every secret goes, in its JSON-escaped spelling too, and two
    /// secrets that overlap in the text are hidden as one span: replacing one at a time
    /// (longest first) left the tail of the second in view.
    #[test]
    fn redact_values_hides_each_secret_whole_where_two_overlap() {
        let secrets = [
            "abcd1234".to_owned(),
            "1234wxyz".to_owned(),
            "q\"uote".to_owned(),
        ];
        let text = "A=abcd1234wxyz B=\"1234wxyz\" C=\"q\\\"uote\" D=q\"uote abcd1234";
        assert_eq!(
            redact_values(text, &secrets),
            format!("A={REDACTED} B=\"{REDACTED}\" C=\"{REDACTED}\" D={REDACTED} {REDACTED}")
        );
        assert_eq!(redact_values("nothing here", &secrets), "nothing here");
        assert_eq!(redact_values("abcd1234", &[]), "abcd1234");
    }

    #[test]
    fn token_patterns() {
        assert_eq!(
            pattern_secret("ghp_0123456789abcdefghijABCDEFGHIJ012345"),
            Some("a GitHub token")
        );
        assert_eq!(
            pattern_secret("Bearer sk-ant-api03-abcdefghijklmnopqrstuv"),
            Some("an Anthropic API key")
        );
        assert_eq!(
            pattern_secret("AKIAIOSFODNN7EXAMPLE"),
            Some("an AWS access key")
        );
        assert_eq!(pattern_secret("xoxb-1234567890-abc"), Some("a Slack token"));
        assert_eq!(pattern_secret("task-runner"), None);
        assert_eq!(pattern_secret("desk-sk-abc"), None);
        assert_eq!(pattern_secret("sk-short"), None);
    }

    #[test]
    fn entropy_and_names() {
        assert!(entropy_secret("f8Kd92LmQz71XvB3nR0p").is_some());
        assert!(entropy_secret("aaaaaaaaaaaaaaaaaaaa").is_none());
        assert!(entropy_secret("/home/me/.config/key.pem").is_none());
        assert!(
            secret_name("GITHUB_TOKEN") && secret_name("api-key") && secret_name("OPENAI_API_KEY")
        );
        assert!(!secret_name("DEBUG") && !secret_name("KEYBOARD_LAYOUT"));
    }

    /// A flag and its value on lines of their own: pretty JSON, a unified diff of it, a
    /// YAML list; a flag at the end of a line of prose followed by an ordinary word stays.
    #[test]
    fn scrub_finds_a_flag_value_on_the_next_line() {
        let secret = "Wq3rT8yUi2oP5aSdQ";
        for text in [
            format!("\"args\": [\n  \"--api-key\",\n  \"{secret}\"\n]"),
            format!("+        \"--api-key\",\n+        \"{secret}\"\n"),
            format!("-        \"--api-key\",\r\n-        \"{secret}\""),
            format!("args:\n  - --api-key\n  - {secret}\n"),
            format!("+    - --token\n+    - {secret}\n"),
        ] {
            let out = scrub(&text);
            assert!(!out.contains(secret), "{out}");
            assert!(out.contains(REDACTED), "{out}");
        }
        let prose = "pass --token\nthen restart";
        assert_eq!(scrub(prose), prose);
    }

    #[test]
    fn scrub_finds_every_shape() {
        let cases = [
            (
                "node s.js --api-key sk-proj-ArgSecret0123456789abcdef",
                "node s.js --api-key <redacted>",
            ),
            ("--token=Zx9Qw8Er7Ty6Ui5Op4AsDf x", "--token=<redacted> x"),
            (
                r#"["--token", "Zx9Qw8Er7Ty6Ui5Op4AsDf"]"#,
                r#"["--token", "<redacted>"]"#,
            ),
            (
                r#"[\"--token\",\"Zx9Qw8Er7Ty6Ui5Op4AsDf\"]"#,
                r#"[\"--token\",\"<redacted>\"]"#,
            ),
            (
                "https://alice:hunter2@h.example/mcp?api_key=QuerySecretf8Kd92LmQz71&x=1",
                "https://<redacted>@h.example/mcp?api_key=<redacted>&x=1",
            ),
            (
                r#""X-Api-Key": "HeaderSecretR0p9Xv2Lq8Wm""#,
                r#""X-Api-Key": "<redacted>""#,
            ),
            (
                "Authorization = 'Bearer abcdefgh12345678'",
                "Authorization = 'Bearer <redacted>'",
            ),
            (
                "GITHUB_TOKEN = \"${GITHUB_TOKEN}\"",
                "GITHUB_TOKEN = \"${GITHUB_TOKEN}\"",
            ),
            (
                "https://${USER_INFO}@h/ and --api-key ${KEY}",
                "https://${USER_INFO}@h/ and --api-key ${KEY}",
            ),
            (
                r#""CONTEXT7_API_KEY": "${env:CONTEXT7_API_KEY}", "K": "{env:OPENAI_API_KEY}""#,
                r#""CONTEXT7_API_KEY": "${env:CONTEXT7_API_KEY}", "K": "{env:OPENAI_API_KEY}""#,
            ),
            (
                r#""API_KEY": "{env:CONTEXT7_API_KEY}", "Authorization": "Bearer ${env:TOK}""#,
                r#""API_KEY": "{env:CONTEXT7_API_KEY}", "Authorization": "Bearer ${env:TOK}""#,
            ),
            (
                "an ordinary line: token count 12, path /a/b",
                "an ordinary line: token count 12, path /a/b",
            ),
            // The launcher's `--secret ENV=NAME` names a stored secret (a plan's diff).
            (
                r#"args = ["run", "--secret", "GITHUB_TOKEN=github", "--", "npx"]"#,
                r#"args = ["run", "--secret", "GITHUB_TOKEN=github", "--", "npx"]"#,
            ),
            (
                r#"["--secret", "KEY=ghp_abcdefghijklmnopqrstuvwxyz0123456789"]"#,
                r#"["--secret", "<redacted>"]"#,
            ),
        ];
        for (text, want) in cases {
            assert_eq!(scrub(text), want, "{text}");
        }
    }

    #[test]
    fn args_and_urls() {
        let args: Vec<String> = [
            "x",
            "--api-key",
            "f8Kd92LmQz71XvB3nR0p",
            "--verbose",
            "-p",
            "f8Kd92LmQz71XvB3nR0p",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(redact_args(&args)[2], REDACTED);
        assert_eq!(redact_args(&args)[5], "f8Kd92LmQz71XvB3nR0p");
        assert_eq!(arg_secrets(&args).len(), 1);
        let url = "https://u:p@h/x?api_key=QuerySecretf8Kd92LmQz71";
        let found = url_secrets(url);
        assert_eq!(&url[found[0].at.clone()], "u:p");
        assert_eq!(&url[found[1].at.clone()], "QuerySecretf8Kd92LmQz71");
    }

    #[test]
    fn nested_headers_are_redacted_in_a_raw_entry() {
        let fields = crate::clients::Fields::default();
        let raw = serde_json::json!({
            "transport": {"type": "streamableHttp", "url": "https://x", "headers": {"Authorization": "Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789"}},
            "auth": {"type": "static", "headers": {"X-Api-Key": "sk-live-abcdefghijklmnopqrstuvwx"}}
        });
        let text = redact_raw(&raw, &fields).to_string();
        assert!(!text.contains("ghp_abcdef"), "{text}");
        assert!(!text.contains("sk-live"), "{text}");
        assert!(text.contains("streamableHttp"), "{text}");
    }
}
