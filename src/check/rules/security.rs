//! MCP4xx, security: no secret written into the file, no unpinned package fetched at
//! every start, no plain-HTTP remote. Messages name the key and the server, never a value.

use crate::check::Severity;
use crate::check::lint::Linter;
use crate::clients::Scope;
use crate::entry;
use crate::formats::tree::Member;
use crate::secrets::{self, literal_secret};
use crate::vars::VarSyntax;

use super::Rule;

pub const PLAINTEXT_SECRET: Rule = Rule {
    code: "MCP401",
    name: "plaintext-secret",
    severity: Severity::Error,
    fixable: false,
    title: "secret in plain text",
    explanation: "A token (GitHub `ghp_`/`github_pat_`, OpenAI `sk-`, Anthropic `sk-ant-`, AWS `AKIA`, Slack `xox?-`, Google `AIza`, a literal `Bearer` token, or a long random value under a key like TOKEN/KEY/SECRET/PASSWORD) is written into the file. Error in project files (they are committed and shared); a warning in user files. Reference it with the client's variable syntax instead (`${VAR}` in Claude Code, `${env:VAR}` in Cursor, `${input:id}` in VS Code, `{env:VAR}` in OpenCode, `env_vars` in Codex) or move it into mcpctl's secret store (`mcpctl check --fix --secrets` or `mcpctl secret adopt`: the OS keychain, the entry then starts through `mcpctl run`), and rotate the exposed token. `check` never prints the value.",
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

/// The package `program args` fetches unpinned at every start (`npx -y pkg`, `bunx pkg`,
/// `pnpx pkg@latest`), and its index in `args`; `None` for a pinned one, a local path, or
/// another program. `check` (MCP402) and `add` say the same thing of the same entries.
pub fn unpinned_package(program: &str, args: &[String]) -> Option<(usize, String)> {
    let (inner, rest, _) = entry::logical(program, args);
    let stem = inner
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(&inner)
        .to_ascii_lowercase();
    let stem = stem.trim_end_matches(".cmd");
    if !matches!(stem, "npx" | "pnpx" | "bunx") {
        return None;
    }
    let offset_shift = args.len() - rest.len();
    let yes = rest.iter().any(|a| a == "-y" || a == "--yes");
    if stem == "npx" && !yes {
        return None;
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
            return Some((i + offset_shift, arg.clone()));
        }
        return None;
    }
    None
}

impl Linter<'_> {
    pub(in crate::check) fn unpinned(
        &mut self,
        name: &str,
        program: &str,
        args: &[(String, usize)],
    ) {
        let plain: Vec<String> = args.iter().map(|(a, _)| a.clone()).collect();
        if let Some((i, arg)) = unpinned_package(program, &plain) {
            let at = args.get(i).map_or(0, |(_, o)| *o);
            self.report(
                at,
                &UNPINNED_PACKAGE,
                format!("server `{name}` runs `{arg}` unpinned: every start may fetch a new release; pin it as `{}@VERSION`", arg.trim_end_matches("@latest")),
            );
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
        let plain: Vec<String> = args.iter().map(|(a, _)| a.clone()).collect();
        for found in secrets::arg_secrets(&plain) {
            let label = found.written.as_deref().map_or_else(
                || "an argument".to_owned(),
                |f| format!("the `{f}` argument"),
            );
            // The variable the value sets (`-e NAME=value`), else the flag's name, else
            // the server's.
            let set = found
                .value
                .split_once('=')
                .map(|(variable, _)| variable)
                .filter(|v| {
                    !v.is_empty() && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                });
            let variable = set
                .or(found.flag.as_deref().filter(|f| f.len() > 1))
                .unwrap_or(name)
                .to_ascii_uppercase()
                .replace('-', "_");
            let suggestion = self.suggest(&variable, "args");
            self.report_secret(
                args[found.index].1,
                format!(
                    "{label} of server `{name}` holds {} in plain text; {suggestion}",
                    found.kind
                ),
            );
        }
    }

    pub(in crate::check) fn secret_url(&mut self, name: &str, key: &str, url: &str, offset: usize) {
        if let Some(found) = secrets::url_secrets(url).into_iter().next() {
            let what = found.param.map_or_else(
                || "the userinfo (`user:password@`)".to_owned(),
                |p| format!("the `{p}` query parameter"),
            );
            self.report_secret(
                offset,
                format!("{what} in `{key}` of server `{name}` holds {} in plain text; send it in a header that references a variable", found.kind),
            );
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
            let variable = crate::secrets::variable_for(name, key);
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
            Some(VarSyntax::Goose) if what == "header" => format!(
                "reference it as `${{{variable}}}` and list `{variable}` in `env_keys` so Goose reads it from your environment"
            ),
            Some(VarSyntax::Goose) => {
                format!("list `{variable}` in `env_keys` so Goose passes it from your environment")
            }
            None => format!(
                "{} expands no variables here: set it in the environment the client starts from",
                self.name()
            ),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
