//! How a client really loads and connects to its servers (`clients.toml`
//! `[client.loading]`): which protocol eras it speaks, how strictly it parses its JSON
//! files, which environment a stdio server gets from it, which capabilities it declares,
//! and which settings lists let a server load at all. Every field has a default meaning
//! "not known", which is never judged.
//!
//! Pure data and pure decisions: nothing here reads a file or the environment.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

/// The `[client.loading]` block of a row.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Loading {
    /// The protocol eras the client speaks; empty: not known (not judged).
    pub eras: Vec<EraName>,
    /// How strictly the client parses its JSON-family files; `None`: not known.
    pub parser: Option<Parser>,
    /// Names the client removes from an entry's own `env` before starting it (compared
    /// without case): Gemini CLI's `BLOCKED_EXECUTION_ENVS`.
    pub env_blocked: Vec<String>,
    /// What the client removes from the environment it passes on; `None`: all of it is
    /// passed.
    pub inherit: Option<Inherit>,
    /// The capabilities the client declares (`initialize` / `_meta`); `None`: not known
    /// (mcpctl declares its own).
    pub capabilities: Option<Value>,
    /// Key path (in the client's user file, and its project file) of a list of server
    /// names, or `*` patterns, the client does not load (Gemini CLI `mcp.excluded`).
    pub excluded: Option<Vec<String>>,
    /// Key path of a list that, when present, is the only servers the client loads
    /// (`mcp.allowed`); `excluded` wins over it.
    pub allowed: Option<Vec<String>>,
    /// `false`: the client passes `${VAR}` through literally (Cline CLI, Mistral Vibe,
    /// legacy Kimi); `None`: as `fields.var_syntax` says.
    pub expands: Option<bool>,
    /// File names in the user file's folder that the client reads *all* of and merges, in
    /// order, a later file's server winning a name clash (OpenCode: `config.json`,
    /// `opencode.json`, `opencode.jsonc`); empty: only the user file.
    pub merge: Vec<String>,
    /// One entry the client's schema refuses makes it refuse the whole file: it loads
    /// none of the file's servers (Cline CLI: `Invalid MCP settings at …`).
    pub whole_file: bool,
    /// In a folder the user has not trusted the client starts no server at all, the
    /// user's own included (Gemini CLI's folder trust), or none of the project's
    /// (`project_only`: Copilot CLI); `None`: no such rule.
    pub folder_trust: Option<FolderTrust>,
    /// The client registers a new server of these scopes switched off until the person
    /// turns it on in its interface, a switch no file records (Cursor 3 and a project's
    /// `.cursor/mcp.json`): `add` and `doctor` say so, since mcpctl cannot see it.
    pub starts_off: Option<StartsOff>,
    /// The client goes on with a server whatever `protocolVersion` its `initialize`
    /// answer names, one the spec never had included (Codex: rmcp does not check it);
    /// doctor then warns where it would fail the server for a stricter client.
    pub any_version: bool,
}

/// `[client.loading] starts_off`: the scopes whose new servers the client keeps off, and
/// how a person switches one on.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StartsOff {
    pub scopes: Vec<crate::clients::Scope>,
    pub how: String,
}

impl Loading {
    /// What to tell a person about a server of `scope` that `client` (named) keeps off
    /// until switched on in its interface; `None` when it does not.
    #[must_use]
    pub fn starts_off_note(&self, client: &str, scope: crate::clients::Scope) -> Option<String> {
        let off = self.starts_off.as_ref()?;
        off.scopes.contains(&scope).then(|| {
            format!(
                "{client} registers a new {} server switched off until you turn it on: {}; mcpctl cannot see that switch",
                scope.as_str(),
                off.how
            )
        })
    }
}

/// A client's folder trust (`[client.loading] folder_trust`): rules in `file`, an object
/// of folder → level, or lists of trusted folders under the keys `folders`; the rule with
/// the longest folder that covers the project decides.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FolderTrust {
    /// The rules file (a path template).
    pub file: String,
    /// Key path of the on/off switch in the user's settings; absent there (or no key
    /// path): `default_on`.
    #[serde(default)]
    pub enabled: Vec<String>,
    pub default_on: bool,
    /// Levels that trust the rule's folder and every folder below it.
    #[serde(default)]
    pub trust: Vec<String>,
    /// Levels that trust the rule folder's parent and every folder below it.
    #[serde(default)]
    pub trust_parent: Vec<String>,
    /// Levels that distrust the rule's folder and below.
    #[serde(default)]
    pub distrust: Vec<String>,
    /// Top-level keys of the rules file holding a list of folders, each trusting itself
    /// and every folder below it (Copilot CLI's `trusted_folders` in `config.json`).
    #[serde(default)]
    pub folders: Vec<String>,
    /// Only the servers of the project's own files wait for the trust; the user's load
    /// anywhere (Copilot CLI). `false`: every server waits (Gemini CLI).
    #[serde(default)]
    pub project_only: bool,
    /// How a person trusts a folder in the client.
    pub how: String,
}

impl FolderTrust {
    /// Whether `rules` (the rules file, parsed) trust `folder` (absolute, resolved):
    /// `Some(false)` distrusted, `None` when no rule covers it (the client does not
    /// trust it either).
    #[must_use]
    pub fn verdict(&self, rules: &Value, folder: &std::path::Path) -> Option<bool> {
        let mut best: Option<(usize, bool)> = None;
        let listed = self
            .folders
            .iter()
            .filter_map(|key| rules.get(key)?.as_array())
            .flatten()
            .filter_map(Value::as_str);
        for rule in listed {
            if folder.starts_with(rule) && best.is_none_or(|(len, _)| rule.len() > len) {
                best = Some((rule.len(), true));
            }
        }
        for (rule, level) in rules.as_object()? {
            let Some(level) = level.as_str() else {
                continue;
            };
            let rule_path = std::path::Path::new(rule);
            let (covers, trusted) = if self.trust.iter().any(|l| l == level) {
                (rule_path, true)
            } else if self.trust_parent.iter().any(|l| l == level) {
                (rule_path.parent().unwrap_or(rule_path), true)
            } else if self.distrust.iter().any(|l| l == level) {
                (rule_path, false)
            } else {
                continue;
            };
            if folder.starts_with(covers) && best.is_none_or(|(len, _)| rule.len() > len) {
                best = Some((rule.len(), trusted));
            }
        }
        best.map(|(_, trusted)| trusted)
    }

    /// Whether the switch in `settings` (the user's documents, later ones winning) leaves
    /// folder trust on.
    #[must_use]
    pub fn is_on(&self, settings: &[&Value]) -> bool {
        let mut on = self.default_on;
        for doc in settings {
            let mut node = Some(*doc);
            for key in &self.enabled {
                node = node.and_then(|n| n.get(key));
            }
            if let Some(value) = node.and_then(Value::as_bool) {
                on = value;
            }
        }
        on
    }
}

impl Parser {
    /// (comments rejected, trailing commas rejected).
    fn refuses(self) -> (bool, bool) {
        match self {
            Parser::Strict => (true, true),
            Parser::Comments => (false, true),
            Parser::Lenient => (false, false),
        }
    }

    /// Whether a comment alone makes this parser reject a file.
    #[must_use]
    pub fn rejects_comments(self) -> bool {
        self.refuses().0
    }

    /// Whether a trailing comma makes this parser reject a file.
    #[must_use]
    pub fn rejects_trailing_commas(self) -> bool {
        self.refuses().1
    }

    /// What in `text` (a JSON-family file) makes this parser reject the whole file, if
    /// anything: the first offending byte.
    #[must_use]
    pub fn rejects(self, text: &str) -> Option<Rejection> {
        let (comments, commas) = self.refuses();
        if !comments && !commas {
            return None;
        }
        first_offence(text, comments, commas)
    }

    /// `text` without what makes this parser reject it (every trailing comma, and every
    /// comment when it rejects comments), or `None` when it rejects nothing there. Nothing
    /// else changes: a comment alone on its line goes with its line.
    #[must_use]
    pub fn repaired(self, text: &str) -> Option<String> {
        let (comments, commas) = self.refuses();
        if !comments && !commas {
            return None;
        }
        let offences = offences(text, comments, commas);
        (!offences.is_empty()).then(|| without(text, &offences))
    }
}

/// A protocol era, as the table spells it.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum EraName {
    /// Up to 2025-11-25: `initialize`.
    Handshake,
    /// 2026-07-28: `server/discover`, no `initialize`.
    Modern,
}

/// How strictly a client's JSON parser reads.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Parser {
    /// Plain JSON: a comment or a trailing comma rejects the whole file (Claude Code).
    Strict,
    /// Comments are stripped, a trailing comma rejects the file (Gemini CLI, Qwen Code:
    /// `strip-json-comments` then `JSON.parse`).
    Comments,
    /// Comments and trailing commas are accepted (JSONC).
    Lenient,
}

/// The environment filter a client applies to what it passes on (names compared in upper
/// case): a name is kept when it starts with one of `keep_prefixes` or is in `keep`,
/// dropped when it is in `drop` or contains one of `drop_containing`, else kept — or,
/// with `keep_only`, dropped (Codex passes only the few names it lists).
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct Inherit {
    pub keep_prefixes: Vec<String>,
    pub keep: Vec<String>,
    pub drop: Vec<String>,
    pub drop_containing: Vec<String>,
    pub keep_only: bool,
}

impl Inherit {
    fn passes(&self, name: &str) -> bool {
        let upper = name.to_uppercase();
        if self
            .keep_prefixes
            .iter()
            .any(|p| upper.starts_with(p.as_str()))
            || self.keep.contains(&upper)
        {
            return true;
        }
        !(self.keep_only
            || self.drop.contains(&upper)
            || self
                .drop_containing
                .iter()
                .any(|d| upper.contains(d.as_str())))
    }
}

/// Why a client does not read a file at all (and so loads none of its servers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub line: usize,
    pub column: usize,
    /// `a comment` or `a trailing comma`.
    pub what: &'static str,
}

impl Loading {
    /// Whether the client speaks `era`; `None`: not known.
    #[must_use]
    pub fn speaks(&self, era: EraName) -> Option<bool> {
        (!self.eras.is_empty()).then(|| self.eras.contains(&era))
    }

    /// What in `text` (a JSON-family file) makes the client reject the whole file, if
    /// anything (by the row's own `parser` only: `Client::rejects` also reads `format`).
    #[must_use]
    pub fn rejects(&self, text: &str) -> Option<Rejection> {
        self.parser?.rejects(text)
    }

    /// The entry's `env` names the client drops (as written in the entry).
    #[must_use]
    pub fn blocked<'e>(&self, env: impl IntoIterator<Item = &'e String>) -> Vec<&'e String> {
        env.into_iter()
            .filter(|k| self.env_blocked.iter().any(|b| b.eq_ignore_ascii_case(k)))
            .collect()
    }

    /// The environment a stdio server gets from this client: `parent` filtered as the
    /// client filters it, then the entry's `env` without the names it drops.
    #[must_use]
    pub fn server_env(
        &self,
        parent: &IndexMap<String, String>,
        entry: &IndexMap<String, String>,
    ) -> (IndexMap<String, String>, IndexMap<String, String>) {
        let parent = match &self.inherit {
            Some(filter) => parent
                .iter()
                .filter(|(k, _)| filter.passes(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            None => parent.clone(),
        };
        let blocked = self.blocked(entry.keys());
        let entry = entry
            .iter()
            .filter(|(k, _)| !blocked.contains(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        (parent, entry)
    }

    /// Why the client does not load the server `name`, given its settings documents (the
    /// user file and the project file, parsed), or `None` when it does.
    #[must_use]
    pub fn gated(&self, settings: &[&Value], name: &str) -> Option<Gate> {
        let list = |key: &Option<Vec<String>>| -> Option<Vec<String>> {
            let key = key.as_ref()?;
            let mut out: Option<Vec<String>> = None;
            for doc in settings {
                let mut node = *doc;
                let mut found = true;
                for k in key {
                    match node.get(k) {
                        Some(next) => node = next,
                        None => {
                            found = false;
                            break;
                        }
                    }
                }
                if let (true, Some(items)) = (found, node.as_array()) {
                    out.get_or_insert_with(Vec::new).extend(
                        items
                            .iter()
                            .filter_map(Value::as_str)
                            .filter(|s| !s.is_empty())
                            .map(str::to_owned),
                    );
                }
            }
            out
        };
        let dotted = |key: &Option<Vec<String>>| key.as_deref().unwrap_or_default().join(".");
        if let Some(excluded) = list(&self.excluded)
            && excluded.iter().any(|p| glob(p, name))
        {
            return Some(Gate::Excluded {
                name: name.to_owned(),
                list: dotted(&self.excluded),
            });
        }
        if let Some(allowed) = list(&self.allowed)
            && !allowed.iter().any(|p| glob(p, name))
        {
            return Some(Gate::NotAllowed {
                name: name.to_owned(),
                list: dotted(&self.allowed),
            });
        }
        None
    }
}

/// A settings list that keeps a server out ([`Loading::gated`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// `name` is in the excluded list (at key path `list`, dotted).
    Excluded { name: String, list: String },
    /// An allowed list is set and does not name `name`.
    NotAllowed { name: String, list: String },
}

impl Gate {
    /// How the reason starts (`excluded`, `not allowed`), for a table.
    pub fn tag(&self) -> &'static str {
        match self {
            Gate::Excluded { .. } => "excluded",
            Gate::NotAllowed { .. } => "not allowed",
        }
    }
}

impl std::fmt::Display for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Gate::Excluded { name, list } => write!(f, "excluded: `{name}` is in `{list}`"),
            Gate::NotAllowed { name, list } => {
                write!(f, "not allowed: `{list}` is set and does not name `{name}`")
            }
        }
    }
}

/// `*` matches any run of characters; everything else matches itself.
fn glob(pattern: &str, name: &str) -> bool {
    let Some((head, rest)) = pattern.split_once('*') else {
        return pattern == name;
    };
    let Some(mut left) = name.strip_prefix(head) else {
        return false;
    };
    let parts: Vec<&str> = rest.split('*').collect();
    for (i, part) in parts.iter().enumerate() {
        if i == parts.len() - 1 {
            return left.ends_with(part);
        }
        match left.find(part) {
            Some(at) => left = &left[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// One thing a client's parser rejects: its byte range in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Offence {
    start: usize,
    end: usize,
    what: &'static str,
}

/// The first comment (when `comments`) or trailing comma (when `commas`) outside strings.
fn first_offence(text: &str, comments: bool, commas: bool) -> Option<Rejection> {
    offences(text, comments, commas)
        .first()
        .map(|o| at(text, o.start, o.what))
}

/// Every comment (when `comments`) and trailing comma (when `commas`) outside strings, in
/// order. A comment's range runs to the end of its line (a `//` comment) or past its `*/`.
fn offences(text: &str, comments: bool, commas: bool) -> Vec<Offence> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut in_string = false;
    // The last comma outside strings with only whitespace or comments after it.
    let mut comma: Option<usize> = None;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                comma = None;
            }
            b'/' if matches!(bytes.get(i + 1), Some(b'/' | b'*')) => {
                let start = i;
                let block = bytes[i + 1] == b'*';
                i += 2;
                while i < bytes.len() {
                    if block && bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/') {
                        i += 1;
                        break;
                    }
                    if !block && bytes[i] == b'\n' {
                        i -= 1;
                        break;
                    }
                    i += 1;
                }
                if comments {
                    let mut end = (i + 1).min(bytes.len());
                    // A `//` comment ends before a CRLF's `\r`.
                    if !block && end > start + 2 && bytes[end - 1] == b'\r' {
                        end -= 1;
                    }
                    out.push(Offence {
                        start,
                        end,
                        what: "a comment",
                    });
                }
            }
            b',' => comma = Some(i),
            b'}' | b']' => {
                if let (Some(c), true) = (comma, commas) {
                    out.push(Offence {
                        start: c,
                        end: c + 1,
                        what: "a trailing comma",
                    });
                }
                comma = None;
            }
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ => comma = None,
        }
        i += 1;
    }
    out.sort_by_key(|o| o.start);
    out
}

/// `text` without `offences`; a comment alone on its line goes with its line, one after
/// other text with the blanks before it.
fn without(text: &str, offences: &[Offence]) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for o in offences {
        let mut start = o.start;
        let mut end = o.end;
        if o.what == "a comment" {
            while start > from && matches!(bytes[start - 1], b' ' | b'\t') {
                start -= 1;
            }
            let line_start = start == 0 || bytes[start - 1] == b'\n';
            let mut after = end;
            while after < bytes.len() && matches!(bytes[after], b' ' | b'\t' | b'\r') {
                after += 1;
            }
            let line_end = after == bytes.len() || bytes[after] == b'\n';
            if line_start && line_end {
                end = (after + 1).min(bytes.len());
            } else if !line_start && !line_end {
                // Between two tokens: keep one blank between them.
                start = o.start;
            }
        }
        out.push_str(&text[from..start]);
        from = end;
    }
    out.push_str(&text[from..]);
    out
}

fn at(text: &str, offset: usize, what: &'static str) -> Rejection {
    let position = crate::formats::position_of(text, offset);
    Rejection {
        line: position.line,
        column: position.column,
        what,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parser(p: Parser) -> Loading {
        Loading {
            parser: Some(p),
            ..Loading::default()
        }
    }

    #[test]
    fn strictness_finds_the_first_comment_or_trailing_comma_outside_strings() {
        let commented = "{\n  // note\n  \"a\": \"http://x//y\"\n}";
        let trailing = "{\n  \"a\": [1, 2,\n  ],\n}";
        let url = "{\"a\": \"x, ]\"}";
        let strict = parser(Parser::Strict);
        let comments = parser(Parser::Comments);
        assert_eq!(
            strict.rejects(commented),
            Some(Rejection {
                line: 2,
                column: 3,
                what: "a comment"
            })
        );
        assert_eq!(comments.rejects(commented), None);
        assert_eq!(
            comments.rejects(trailing),
            Some(Rejection {
                line: 2,
                column: 13,
                what: "a trailing comma"
            })
        );
        assert_eq!(
            comments.rejects("{\"a\": 1, /* c */ }").map(|r| r.what),
            Some("a trailing comma")
        );
        assert_eq!(strict.rejects(url), None);
        assert_eq!(parser(Parser::Lenient).rejects(trailing), None);
        assert_eq!(Loading::default().rejects(trailing), None);
    }

    #[test]
    fn repair_removes_what_the_parser_rejects_and_nothing_else() {
        let text = "{\r\n  // alone\r\n  \"a\": [1, 2,], // after\r\n  \"b\": \"x // y,]\" /* mid */ ,\r\n}\r\n";
        assert_eq!(
            Parser::Strict.repaired(text).as_deref(),
            Some("{\r\n  \"a\": [1, 2],\r\n  \"b\": \"x // y,]\"  \r\n}\r\n")
        );
        assert_eq!(
            Parser::Comments.repaired(text).as_deref(),
            Some(
                "{\r\n  // alone\r\n  \"a\": [1, 2], // after\r\n  \"b\": \"x // y,]\" /* mid */ \r\n}\r\n"
            )
        );
        assert_eq!(Parser::Lenient.repaired(text), None);
        assert_eq!(Parser::Strict.repaired("{\"a\": 1}"), None);
        for repaired in [Parser::Strict, Parser::Comments].map(|p| p.repaired(text).unwrap()) {
            assert_eq!(Parser::Comments.rejects(&repaired), None, "{repaired}");
        }
    }

    #[test]
    fn gates_exclude_before_allow_with_globs() {
        let loading = Loading {
            excluded: Some(vec!["mcp".into(), "excluded".into()]),
            allowed: Some(vec!["mcp".into(), "allowed".into()]),
            ..Loading::default()
        };
        let user = json!({"mcp": {"excluded": ["a"], "allowed": ["a", "b*"]}});
        assert!(
            loading
                .gated(&[&user], "a")
                .unwrap()
                .to_string()
                .starts_with("excluded")
        );
        assert_eq!(loading.gated(&[&user], "bee"), None);
        assert!(
            loading
                .gated(&[&user], "c")
                .unwrap()
                .to_string()
                .starts_with("not allowed")
        );
        assert_eq!(loading.gated(&[&json!({})], "c"), None);
        assert!(glob("*pup*", "my-puppeteer"));
        assert!(!glob("a*c", "abd"));
    }

    #[test]
    fn env_is_filtered_as_the_client_filters_it() {
        let loading = Loading {
            env_blocked: vec!["PYTHONPATH".into(), "NODE_OPTIONS".into()],
            inherit: Some(Inherit {
                keep_prefixes: vec!["GEMINI_CLI_".into()],
                keep: vec!["PATH".into()],
                drop: vec!["DATABASE_URL".into()],
                drop_containing: vec!["TOKEN".into(), "KEY".into()],
                keep_only: false,
            }),
            ..Loading::default()
        };
        let parent: IndexMap<String, String> = [
            ("PATH", "/bin"),
            ("GITHUB_TOKEN", "t"),
            ("DATABASE_URL", "d"),
            ("GEMINI_CLI_KEY", "k"),
            ("LANG", "C"),
        ]
        .into_iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect();
        let entry: IndexMap<String, String> = [("PYTHONPATH", "/x"), ("API_KEY", "s")]
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        let (parent, entry) = loading.server_env(&parent, &entry);
        assert_eq!(
            parent.keys().collect::<Vec<_>>(),
            ["PATH", "GEMINI_CLI_KEY", "LANG"]
        );
        // The entry's own env is only filtered by the blocked list.
        assert_eq!(entry.keys().collect::<Vec<_>>(), ["API_KEY"]);
        assert_eq!(Loading::default().speaks(EraName::Modern), None);
        // Codex: nothing but what it keeps.
        let only = Inherit {
            keep: vec!["PATH".into()],
            keep_only: true,
            ..Inherit::default()
        };
        assert!(only.passes("PATH") && !only.passes("LANG") && !only.passes("GITHUB_TOKEN"));
    }
}

#[cfg(test)]
mod folder_trust_tests {
    use super::FolderTrust;
    use serde_json::json;
    use std::path::Path;

    fn gemini() -> FolderTrust {
        FolderTrust {
            file: String::new(),
            enabled: vec!["security".into(), "folderTrust".into(), "enabled".into()],
            default_on: true,
            trust: vec!["TRUST_FOLDER".into()],
            trust_parent: vec!["TRUST_PARENT".into()],
            distrust: vec!["DO_NOT_TRUST".into()],
            folders: Vec::new(),
            project_only: false,
            how: String::new(),
        }
    }

    /// copilot 1.0.102: `trusted_folders` in `~/.copilot/config.json` lists folders, each
    /// trusting itself and every folder below it (`copilot mcp list` in a subfolder of one
    /// shows the workspace servers); other keys of the file are no rules.
    #[test]
    fn a_list_of_trusted_folders_trusts_each_and_below() {
        let t = FolderTrust {
            folders: vec!["trusted_folders".into()],
            project_only: true,
            ..gemini()
        };
        let rules = json!({
            "trusted_folders": ["/home/u/work", "/srv/app/"],
            "model": "/home/u/other",
        });
        let v = |p: &str| t.verdict(&rules, Path::new(p));
        assert_eq!(v("/home/u/work"), Some(true));
        assert_eq!(v("/home/u/work/app"), Some(true));
        assert_eq!(v("/srv/app/x"), Some(true));
        assert_eq!(v("/home/u/workshop"), None);
        assert_eq!(v("/home/u/other"), None);
        assert_eq!(v("/home/u"), None);
    }

    /// gemini-cli 0.61.0 `isPathTrusted`: the longest rule path that covers the folder
    /// decides; TRUST_PARENT covers the rule's parent; no rule is not trust.
    #[test]
    fn the_longest_covering_rule_decides() {
        let t = gemini();
        let rules = json!({
            "/home/u/work": "TRUST_FOLDER",
            "/home/u/work/secret": "DO_NOT_TRUST",
            "/home/u/other/x": "TRUST_PARENT",
            "/home/u/odd": "SOMETHING",
        });
        let v = |p: &str| t.verdict(&rules, Path::new(p));
        assert_eq!(v("/home/u/work"), Some(true));
        assert_eq!(v("/home/u/work/app/src"), Some(true));
        assert_eq!(v("/home/u/work/secret/a"), Some(false));
        assert_eq!(v("/home/u/other/y"), Some(true));
        assert_eq!(v("/home/u/workshop"), None);
        assert_eq!(v("/home/u/odd"), None);
        assert_eq!(v("/home/u"), None);
    }

    #[test]
    fn the_switch_defaults_on_and_a_later_file_wins() {
        let t = gemini();
        assert!(t.is_on(&[]));
        let off = json!({"security": {"folderTrust": {"enabled": false}}});
        let on = json!({"security": {"folderTrust": {"enabled": true}}});
        assert!(!t.is_on(&[&off]));
        assert!(t.is_on(&[&off, &on]));
    }
}
