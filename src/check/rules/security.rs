//! MCP4xx, security: no secret written into the file, no unpinned package fetched at
//! every start, no plain-HTTP remote. Messages name the key and the server, never a value.

use crate::check::Severity;
use crate::check::lint::Linter;
use crate::clients::Scope;
use crate::entry;
use crate::formats::tree::Member;
use crate::vars;
use crate::vars::VarSyntax;

use super::Rule;

pub const PLAINTEXT_SECRET: Rule = Rule {
    code: "MCP401",
    name: "plaintext-secret",
    severity: Severity::Error,
    fixable: false,
    title: "secret in plain text",
    explanation: "A token (GitHub `ghp_`/`github_pat_`, OpenAI `sk-`, Anthropic `sk-ant-`, AWS `AKIA`, Slack `xox?-`, Google `AIza`, a literal `Bearer` token, or a long random value under a key like TOKEN/KEY/SECRET/PASSWORD) is written into the file. Error in project files (they are committed and shared); a warning in user files. Reference it with the client's variable syntax instead (`${VAR}` in Claude Code, `${env:VAR}` in Cursor, `${input:id}` in VS Code, `{env:VAR}` in OpenCode, `env_vars` in Codex) and rotate the exposed token. `check` never prints the value.",
    example: "{ \"mcpServers\": { \"github\": { \"command\": \"github-mcp-server\", \"args\": [\"stdio\"], \"env\": { \"GITHUB_PERSONAL_ACCESS_TOKEN\": \"${GITHUB_TOKEN}\" } } } }",
};

pub const UNPINNED_PACKAGE: Rule = Rule {
    code: "MCP402",
    name: "unpinned-package",
    severity: Severity::Info,
    fixable: false,
    title: "`npx -y` runs an unpinned package",
    explanation: "`npx -y pkg` downloads and runs whatever version is newest at start-up, without asking: a compromised or broken release runs with your credentials. Pin a version (`pkg@1.2.3`).",
    example: "{ \"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-memory@2025.8.4\"] }",
};

pub const INSECURE_HTTP: Rule = Rule {
    code: "MCP403",
    name: "insecure-http",
    severity: Severity::Warning,
    fixable: false,
    title: "remote server over plain `http://`",
    explanation: "Requests (and any `Authorization` header) travel unencrypted. Use `https://`; plain HTTP is fine only for loopback addresses (`localhost`, `127.0.0.1`, `[::1]`), which are not flagged.",
    example: "{ \"type\": \"http\", \"url\": \"https://mcp.example.com/mcp\" }",
};

impl Linter<'_> {
    pub(in crate::check) fn unpinned(
        &mut self,
        name: &str,
        program: &str,
        args: &[(String, usize)],
    ) {
        let plain: Vec<String> = args.iter().map(|(a, _)| a.clone()).collect();
        let (inner, rest, _) = entry::logical(program, &plain);
        let stem = inner
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(&inner)
            .to_ascii_lowercase();
        let stem = stem.trim_end_matches(".cmd");
        if !matches!(stem, "npx" | "pnpx" | "bunx") {
            return;
        }
        let offset_shift = plain.len() - rest.len();
        let yes = rest.iter().any(|a| a == "-y" || a == "--yes");
        if stem == "npx" && !yes {
            return;
        }
        let mut skip_value = false;
        for (i, arg) in rest.iter().enumerate() {
            if skip_value {
                skip_value = false;
                continue;
            }
            if arg == "-p" || arg == "--package" {
                skip_value = true;
                continue;
            }
            if arg.starts_with('-') {
                continue;
            }
            let version = arg
                .strip_prefix('@')
                .unwrap_or(arg)
                .split_once('@')
                .map(|(_, v)| v);
            let local = arg.starts_with('.') || arg.starts_with('/') || arg.contains(':');
            if !local && version.is_none_or(|v| v.is_empty() || v == "latest") {
                let at = args.get(i + offset_shift).map_or(0, |(_, o)| *o);
                self.report(
                    at,
                    &UNPINNED_PACKAGE,
                    format!("server `{name}` runs `{arg}` unpinned: every start may fetch a new release; pin it as `{}@VERSION`", arg.trim_end_matches("@latest")),
                );
            }
            return;
        }
    }

    /// A remote server reached over plain `http://` (loopback is fine).
    pub(in crate::check) fn insecure_http(&mut self, name: &str, url: &Member, url_text: &str) {
        if let Some(rest) = url_text.strip_prefix("http://")
            && !is_loopback(rest)
        {
            self.report(
                url.node.start,
                &INSECURE_HTTP,
                format!("server `{name}` is reached over plain `http://`: requests and headers travel unencrypted; use `https://`"),
            );
        }
    }

    pub(in crate::check) fn secret_args(&mut self, name: &str, args: &[(String, usize)]) {
        let mut previous_flag: Option<String> = None;
        for (arg, offset) in args {
            let (flag, value) = match arg.split_once('=') {
                Some((k, v)) if k.starts_with('-') => {
                    (Some(k.trim_start_matches('-').to_owned()), v)
                }
                _ => (previous_flag.take(), arg.as_str()),
            };
            let kind = pattern_secret(value).or_else(|| {
                flag.as_deref()
                    .filter(|f| secret_name(f) && !vars::is_reference(value))
                    .and_then(|_| entropy_secret(&vars::literal_text(value)))
            });
            if let Some(kind) = kind {
                let label = flag.map_or_else(
                    || "an argument".to_owned(),
                    |f| format!("the `--{f}` argument"),
                );
                let suggestion = self.suggest(&name.to_ascii_uppercase().replace('-', "_"), "args");
                self.report_secret(
                    *offset,
                    format!("{label} of server `{name}` holds {kind} in plain text; {suggestion}"),
                );
            }
            previous_flag = arg
                .strip_prefix('-')
                .filter(|f| !f.contains('='))
                .map(|f| f.trim_start_matches('-').to_owned());
        }
    }

    pub(in crate::check) fn secret_url(&mut self, name: &str, key: &str, url: &str, offset: usize) {
        let Some((_, query)) = url.split_once('?') else {
            return;
        };
        for pair in query.split('&') {
            let (param, value) = pair.split_once('=').unwrap_or(("", pair));
            let kind = pattern_secret(value)
                .or_else(|| secret_name(param).then(|| entropy_secret(value)).flatten());
            if let Some(kind) = kind {
                self.report_secret(
                    offset,
                    format!("the `{param}` query parameter in `{key}` of server `{name}` holds {kind} in plain text; send it in a header that references a variable"),
                );
                return;
            }
        }
    }

    pub(in crate::check) fn secret_value(
        &mut self,
        name: &str,
        map: &str,
        key: &str,
        value: &str,
        offset: usize,
        what: &str,
    ) {
        if let Some(kind) = literal_secret(key, value) {
            let variable = key.to_ascii_uppercase().replace(['-', ' ', '.'], "_");
            let suggestion = self.suggest(&variable, what);
            self.report_secret(
                offset,
                format!(
                    "`{map}.{key}` of server `{name}` holds {kind} in plain text; {suggestion}"
                ),
            );
        }
    }

    pub(in crate::check) fn report_secret(&mut self, offset: usize, message: String) {
        let severity = if self.scope == Scope::Project {
            Severity::Error
        } else {
            Severity::Warning
        };
        self.report_as(
            offset,
            &PLAINTEXT_SECRET,
            severity,
            format!("{message}, and rotate the exposed value"),
        );
    }

    /// How this client references a variable named `variable`.
    pub(in crate::check) fn suggest(&self, variable: &str, what: &str) -> String {
        match self.client.fields.var_syntax {
            Some(VarSyntax::Shell) => format!("reference it as `${{{variable}}}`"),
            Some(VarSyntax::Editor) => format!("reference it as `${{env:{variable}}}`"),
            Some(VarSyntax::Vscode) => format!(
                "reference it as `${{input:{}}}` with an `inputs` entry (`\"password\": true`), or `${{env:{variable}}}`",
                variable.to_ascii_lowercase().replace('_', "-")
            ),
            Some(VarSyntax::Opencode) => format!("reference it as `{{env:{variable}}}`"),
            Some(VarSyntax::Codex) if what == "header" => {
                "use `bearer_token_env_var` or `env_http_headers` to read it from the environment"
                    .to_owned()
            }
            Some(VarSyntax::Codex) => {
                format!("list `{variable}` in `env_vars` so Codex passes it from your environment")
            }
            None => format!(
                "{} expands no variables here: set it in the environment the client starts from",
                self.name()
            ),
        }
    }
}

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

fn is_loopback(after_scheme: &str) -> bool {
    let authority = after_scheme.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or(authority);
    let host = if host.starts_with('[') {
        host.split(']')
            .next()
            .map_or(host, |h| h.trim_start_matches('['))
    } else {
        host.split(':').next().unwrap_or(host)
    };
    host.eq_ignore_ascii_case("localhost")
        || host.starts_with("127.")
        || host == "::1"
        || host == "0.0.0.0"
}

/// A key or parameter name that suggests a secret.
pub(crate) fn secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase().replace('-', "_");
    [
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
    ]
    .iter()
    .any(|w| upper.contains(w))
        || upper.ends_with("_KEY")
        || upper == "KEY"
        || upper.ends_with("_PAT")
}

/// A value that has the shape of a known provider's token.
pub(crate) fn pattern_secret(value: &str) -> Option<&'static str> {
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
    let token_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
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
fn entropy_secret(value: &str) -> Option<&'static str> {
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
mod tests {
    use super::*;

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

    #[test]
    fn loopback() {
        assert!(
            is_loopback("localhost:3000/mcp")
                && is_loopback("127.0.0.1/x")
                && is_loopback("[::1]:80/")
        );
        assert!(!is_loopback("example.com/mcp"));
    }
}
