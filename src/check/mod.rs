//! `mcpctl check`'s engine: which client reads a path, and the findings for one file's
//! text. Pure functions of text, client table and target OS: this module never reads
//! files, starts processes, touches the network or prints (`commands::check` does the
//! I/O, `render` the formatting, `output::Printer` the printing).

pub mod fix;
mod lint;
pub(crate) use crate::secrets::{pattern_secret, secret_name};
pub mod render;
pub mod rules;

use std::path::Path;

use serde::Serialize;

use crate::clients::{Client, ClientTable, Scope, Unread};
use crate::formats;
use crate::platform::Os;

pub use rules::{RULES, rule};

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

/// How bad a finding is. Ordered: `Info < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One problem at one place. Messages name keys and servers, never secret values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    /// The server entry the finding is about (not part of the JSON contract).
    #[serde(skip)]
    pub server: Option<String>,
    /// `--fix` (with the same flags) removes it: set by `commands::check`, which tries.
    pub fixable: bool,
}

/// What a file is checked as.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    pub client: &'a Client,
    /// `Project` files are shared (committed); `User` files are one person's.
    pub scope: Scope,
    /// The OS the file is used on (`--platform`).
    pub os: Os,
    /// The administrator's policy files the client enforces (MCP210); empty: not judged.
    pub policy: &'a [crate::policy::Policy],
}

/// Legacy SSE URLs a registry entry also lists a Streamable HTTP remote for: URL →
/// (registry server name, HTTP URL). MCP209 names that URL instead of a guess.
pub type SseAlternatives = std::collections::HashMap<String, (String, String)>;

/// Lint one file's text (BOM already removed). `path` is only copied into findings.
/// A file that does not parse yields exactly one finding (MCP001).
pub fn check_text(path: &str, text: &str, bom: bool, target: &Target<'_>) -> Vec<Finding> {
    check_text_with(path, text, bom, target, &SseAlternatives::new())
}

/// `check_text`, with what the registry says about SSE servers' other endpoint.
pub fn check_text_with(
    path: &str,
    text: &str,
    bom: bool,
    target: &Target<'_>,
    alternatives: &SseAlternatives,
) -> Vec<Finding> {
    let parsed = target.client.format.lint_tree(text, &lint::reads(target));
    let index = formats::tree::LineIndex::new(text);
    let mut linter = lint::Linter::new(path, &index, target);
    linter.alternatives = alternatives;
    linter.run(&parsed);
    linter.bom(bom);
    let mut findings = linter.finish();
    findings.sort_by(|a, b| (a.line, a.column, a.code).cmp(&(b.line, b.column, b.code)));
    findings.dedup();
    findings
}

/// Whether the findings include a parse error (MCP001): `--fix` never touches such a file.
pub fn has_parse_error(findings: &[Finding]) -> bool {
    findings
        .iter()
        .any(|f| f.code == rules::syntax::PARSE_ERROR.code)
}

#[cfg(test)]
/// The clients (and scope) whose file `path` may be, from the table's project paths and
/// the tails of its user-path templates. Only the longest matches are kept
/// (`.warp/.mcp.json` is Warp's, not the generic `.mcp.json`), in table order.
/// Interchangeable extensions match (`opencode.jsonc`, `kilo.json`; see
/// `formats::canonical_name`).
pub fn infer_clients<'a>(table: &'a ClientTable, path: &Path) -> Vec<(&'a Client, Scope)> {
    Tails::new(table).clients(path)
}

/// Among clients that share a path, the first whose servers key the file uses, else the
/// first: a `.mcp.json` with `mcpServers` is Claude Code's (the most general reader of
/// that file), one with only `servers` is Visual Studio's.
pub fn choose_client<'a>(
    candidates: &[(&'a Client, Scope)],
    text: &str,
) -> Option<(&'a Client, Scope)> {
    let (first, _) = candidates.first()?;
    if candidates.len() > 1 {
        let parsed = first.format.tree(text);
        if let Some(found) = candidates.iter().find(|(c, _)| {
            c.servers_key
                .first()
                .is_some_and(|k| parsed.root.get(k).is_some())
        }) {
            return Some(*found);
        }
    }
    candidates.first().copied()
}

/// The literal tails of every client's paths, split and normalized once: `check` over
/// thousands of files matches each against all of them ([`infer_clients`]).
pub struct Tails<'a> {
    /// In table order, each client's project files then its user-path tails.
    clients: Vec<(&'a Client, Scope, Vec<String>)>,
    unread: Vec<(&'a Client, &'a Unread, Vec<String>)>,
}

impl<'a> Tails<'a> {
    pub fn new(table: &'a ClientTable) -> Self {
        let mut clients = Vec::new();
        let mut unread = Vec::new();
        for client in table.all() {
            let mut candidates: Vec<(String, Scope)> = client
                .project_files()
                .map(|project| (project.clone(), Scope::Project))
                .collect();
            for os in [Os::Linux, Os::Macos, Os::Windows] {
                for template in client.path_templates(os) {
                    if let Some(tail) = template_tail(template) {
                        candidates.push((tail, Scope::User));
                    }
                }
            }
            for (candidate, scope) in candidates {
                let wanted = normalized_components(Path::new(&candidate));
                if !wanted.is_empty() {
                    clients.push((client, scope, wanted));
                }
            }
            for file in &client.unread {
                let tail = if file.path.contains('{') {
                    template_tail(&file.path)
                } else {
                    Some(file.path.clone())
                };
                let Some(tail) = tail else { continue };
                let wanted = normalized_components(Path::new(&tail));
                if !wanted.is_empty() {
                    unread.push((client, file, wanted));
                }
            }
        }
        Self { clients, unread }
    }

    /// The clients (and scope) whose file `path` may be: see [`infer_clients`].
    pub fn clients(&self, path: &Path) -> Vec<(&'a Client, Scope)> {
        let components = normalized_components(path);
        let mut best: Vec<(&Client, Scope)> = Vec::new();
        let mut best_len = 0;
        for (client, scope, wanted) in &self.clients {
            if wanted.len() < best_len || !components.ends_with(wanted) {
                continue;
            }
            if wanted.len() > best_len {
                best.clear();
                best_len = wanted.len();
            }
            if !best.iter().any(|(c, _)| c.id == client.id) {
                best.push((client, *scope));
            }
        }
        best
    }

    /// The file no client reads that `path` may be (row field `unread`: `~/.claude/mcp.json`,
    /// VS Code's `settings.json`, ...), matched by its literal tail; the longest match wins.
    pub fn unread(&self, path: &Path) -> Option<(&'a Client, &'a Unread)> {
        let components = normalized_components(path);
        let mut best: Option<(usize, &Client, &Unread)> = None;
        for (client, file, wanted) in &self.unread {
            if components.ends_with(wanted) && best.is_none_or(|(len, _, _)| wanted.len() > len) {
                best = Some((wanted.len(), client, file));
            }
        }
        best.map(|(_, client, file)| (client, file))
    }
}

/// MCP006 for a file the client does not read: one finding at the servers key when it
/// holds at least one server; nothing for a file without servers (or one that does not
/// parse: that file is not the client's to lint).
pub fn check_unread(path: &str, text: &str, client: &Client, unread: &Unread) -> Vec<Finding> {
    let parsed = unread.format.unwrap_or(client.format).tree(text);
    let mut node = &parsed.root;
    let mut at = None;
    for key in &unread.servers_key {
        let Some(member) = node.get(key) else {
            return Vec::new();
        };
        at = Some(member.key_start);
        node = &member.node;
    }
    let servers = node.members().map_or(0, <[_]>::len);
    let Some(at) = at.filter(|_| servers > 0) else {
        return Vec::new();
    };
    let (line, column) = formats::tree::LineIndex::new(text).position(at);
    let rule = &rules::syntax::UNREAD_FILE;
    vec![Finding {
        path: path.to_owned(),
        line,
        column,
        severity: rule.severity,
        code: rule.code,
        message: format!(
            "{servers} server{} under `{}` here {} read by no client: {}",
            if servers == 1 { "" } else { "s" },
            unread.servers_key.join("."),
            if servers == 1 { "is" } else { "are" },
            unread.why
        ),
        server: None,
        fixable: false,
    }]
}

/// The literal part of a user-path template after its last variable:
/// `{home}/.codeium/windsurf/mcp_config.json` → `.codeium/windsurf/mcp_config.json`.
/// `None` when the tail is only a generic file name (`settings.json`, `mcp.json`).
fn template_tail(template: &str) -> Option<String> {
    let tail = template.rsplit('}').next()?.trim_start_matches(['/', '\\']);
    let generic = !tail.contains(['/', '\\']) && !tail.starts_with('.');
    (!tail.is_empty() && !generic && !tail.contains('*')).then(|| tail.to_owned())
}

fn normalized_components(path: &Path) -> Vec<String> {
    let text = path.to_string_lossy().replace('\\', "/");
    text.split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .map(formats::canonical_name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn infer(path: &str) -> Option<(String, Scope)> {
        let table = ClientTable::builtin().unwrap();
        let candidates = infer_clients(&table, Path::new(path));
        choose_client(&candidates, "{}").map(|(c, s)| (c.id.clone(), s))
    }

    #[test]
    fn shared_mcp_json_is_chosen_by_its_servers_key() {
        let table = ClientTable::builtin().unwrap();
        let candidates = infer_clients(&table, Path::new(".mcp.json"));
        assert!(candidates.len() >= 4);
        let id = |text: &str| choose_client(&candidates, text).unwrap().0.id.clone();
        assert_eq!(id(r#"{"mcpServers":{}}"#), "claude-code");
        assert_eq!(id(r#"{"servers":{}}"#), "visual-studio");
        assert_eq!(id("not json"), "claude-code");
    }

    #[test]
    fn infers_clients_from_project_and_user_paths() {
        let p = |id: &str| Some((id.to_owned(), Scope::Project));
        let u = |id: &str| Some((id.to_owned(), Scope::User));
        assert_eq!(infer("repo/.mcp.json"), p("claude-code"));
        assert_eq!(infer(".mcp.json"), p("claude-code"));
        assert_eq!(infer("a/.cursor/mcp.json"), p("cursor"));
        assert_eq!(infer(".vscode/mcp.json"), p("vscode"));
        assert_eq!(infer("x/.codex/config.toml"), p("codex"));
        assert_eq!(infer("opencode.json"), p("opencode"));
        assert_eq!(infer("sub/opencode.jsonc"), p("opencode"));
        assert_eq!(infer(".gemini/settings.json"), p("gemini-cli"));
        assert_eq!(infer(".warp/.mcp.json"), p("warp"));
        assert_eq!(infer("kilo.json"), p("kilo"));
        assert_eq!(infer("/h/.codeium/windsurf/mcp_config.json"), u("windsurf"));
        assert_eq!(infer("C:\\Users\\me\\.claude.json"), u("claude-code"));
        assert_eq!(infer("README.md"), None);
        assert_eq!(infer("settings.json"), None);
    }
}
