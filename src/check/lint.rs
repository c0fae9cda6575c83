//! The walk over one parsed file: the servers maps, each entry, and which rule group looks
//! at what. The rules themselves live in `rules/<group>.rs`, each group's table rows beside
//! the functions that report them (`impl Linter` blocks there), so this file only decides
//! the order of the walk. Which keys, URL spellings, `type` values and variable syntax a
//! client accepts come from its table row (`fields`); only structure is code.
//!
//! It never prints a secret value: messages name the key and the server only.

use crate::clients::{Client, DialectName, Scope};
use crate::entry::spelling;
use crate::formats::tree::{LineIndex, Member, Node, Parsed, Value};
use crate::platform::Os;

use super::{Finding, Rule, Severity, Target};

/// Which side of an entry is present: a command (local) or a URL (remote).
pub(in crate::check) enum Side<'n> {
    Stdio(&'n Member),
    Remote(&'n Member),
    Neither,
}

pub(crate) struct Linter<'a> {
    path: &'a str,
    index: &'a LineIndex<'a>,
    pub(in crate::check) client: &'a Client,
    pub(in crate::check) scope: Scope,
    pub(in crate::check) os: Os,
    /// `id`s of VS Code's top-level `inputs`.
    pub(in crate::check) inputs: Vec<String>,
    pub(in crate::check) policy: &'a [crate::policy::Policy],
    /// The server whose entry is being linted, for `Finding::server`.
    current: Option<String>,
    pub(in crate::check) findings: Vec<Finding>,
    /// What the registry says about SSE servers' Streamable HTTP endpoint (MCP209).
    pub(in crate::check) alternatives: &'a super::SseAlternatives,
}

/// No registry knowledge.
static NO_ALTERNATIVES: std::sync::LazyLock<super::SseAlternatives> =
    std::sync::LazyLock::new(super::SseAlternatives::new);

impl<'a> Linter<'a> {
    pub(crate) fn new(path: &'a str, index: &'a LineIndex<'a>, target: &Target<'a>) -> Self {
        Linter {
            path,
            index,
            client: target.client,
            scope: target.scope,
            os: target.os,
            inputs: Vec::new(),
            policy: target.policy,
            current: None,
            findings: Vec::new(),
            alternatives: &NO_ALTERNATIVES,
        }
    }

    pub(crate) fn finish(self) -> Vec<Finding> {
        self.findings
    }

    /// Report `rule` at its table severity.
    pub(in crate::check) fn report(&mut self, offset: usize, rule: &'static Rule, message: String) {
        self.report_as(offset, rule, rule.severity, message);
    }

    /// Report `rule` at a severity that depends on scope or platform.
    pub(in crate::check) fn report_as(
        &mut self,
        offset: usize,
        rule: &'static Rule,
        severity: Severity,
        message: String,
    ) {
        let (line, column) = self.index.position(offset);
        self.findings.push(Finding {
            path: self.path.to_owned(),
            line,
            column,
            severity,
            code: rule.code,
            message,
            server: self.current.clone(),
            fixable: false,
        });
    }

    pub(in crate::check) fn name(&self) -> &str {
        &self.client.name
    }

    /// The member spelling a modelled field: the client's own key first, then any other
    /// client's spelling of it.
    pub(in crate::check) fn field<'n>(
        &self,
        node: &'n Node,
        keys: &[&str],
        own: &str,
    ) -> Option<&'n Member> {
        std::iter::once(own)
            .chain(keys.iter().copied())
            .find_map(|k| node.get(k))
    }

    /// The client's parser, as every command judges it (`Client::parser`).
    pub(in crate::check) fn parser(&self) -> Option<crate::clients::loading::Parser> {
        self.client.parser()
    }

    pub(crate) fn run(&mut self, parsed: &Parsed) {
        if self.syntax(parsed) {
            return;
        }
        let root = &parsed.root;
        if !self.top_level(root) {
            return;
        }
        if let Some(Value::Array(items)) = root.get("inputs").map(|m| &m.node.value) {
            self.inputs = items
                .iter()
                .filter_map(|i| i.get("id").and_then(|m| m.node.as_str()).map(str::to_owned))
                .collect();
        }
        let key = self.client.servers_key.clone();
        let own = self.servers_map(root, &key);
        self.foreign_keys(root, own.is_some());
        if let Some(map) = own {
            self.servers(map);
        }
        // Per-project sections of a user file (`projects.<dir>.mcpServers`).
        if let Some((parent, rest)) = project_servers(self.client, self.scope)
            && let Some(projects) = root.get(parent).and_then(|m| m.node.members())
        {
            for project in projects {
                if let Some(map) = self.servers_map(&project.node, rest) {
                    self.servers(map);
                }
            }
        }
    }

    fn servers(&mut self, map: &Node) {
        if let (Value::Array(items), Some(name_key)) =
            (&map.value, self.client.servers_name_key.clone())
        {
            for item in items {
                if let Some(member) = named_item(item, &name_key) {
                    self.entry(&member);
                }
            }
            return;
        }
        for member in map.members().unwrap_or_default() {
            self.server(member);
        }
    }

    /// One member of a servers map.
    fn server(&mut self, member: &Member) {
        // OpenCode V2 nests servers one level deeper (`mcp.servers.<name>`).
        if self.client.dialect == DialectName::CommandArray
            && member.key == "servers"
            && let Some(inner) = member.node.members()
            && !spelling::looks_like_entry(inner.iter().map(|m| m.key.as_str()))
            && inner.iter().all(|m| m.node.members().is_some())
        {
            for inner_member in inner {
                self.entry(inner_member);
            }
            return;
        }
        self.entry(member);
    }

    fn entry(&mut self, member: &Member) {
        self.current = Some(member.key.clone());
        match lift_nested(member, self.client.fields.nest_key.as_deref()) {
            Some(flat) => self.entry_checks(&flat),
            None => self.entry_checks(member),
        }
        self.current = None;
    }

    fn entry_checks(&mut self, member: &Member) {
        let name = member.key.as_str();
        let Some(keys) = self.entry_object(member) else {
            return;
        };
        self.portable_name(member);
        let node = &member.node;
        match self.side(member, keys) {
            Side::Stdio(command) => self.stdio(name, node, command),
            Side::Remote(url) => self.remote(name, node, url),
            Side::Neither => {}
        }
        self.type_value(name, node);
        self.unknown_keys(name, keys);
        self.references(name, node);
        if self.scope == Scope::Project {
            self.home_paths(name, node);
        }
    }

    fn stdio(&mut self, name: &str, node: &Node, command: &Member) {
        self.command_array_shape(name, node, command);
        let (program, args) = self.command_line(name, node, command);
        // Every spelling, and the client's own word for it (its row).
        for env_key in with_own(spelling::ENV_KEYS, &self.client.fields.env_key) {
            if let Some(member) = node.get(env_key) {
                self.string_map(name, member, "env");
            }
        }
        let Some((program, program_at)) = program else {
            return;
        };
        self.windows(name, &program, program_at, &args);
        self.policy_stdio(name, &(program.clone(), program_at), &args);
        self.unpinned(name, &program, &args);
        self.secret_args(name, &args);
    }

    fn remote(&mut self, name: &str, node: &Node, url: &Member) {
        self.url_key(name, url);
        let Some(url_text) = self.url_text(name, url) else {
            return;
        };
        self.remote_transport(name, node, url, url_text);
        self.policy_remote(name, url_text, url.node.start);
        self.insecure_http(name, url, url_text);
        self.secret_url(name, &url.key, url_text, url.node.start);
        for key in with_own(spelling::HEADER_KEYS, &self.client.fields.headers_key) {
            if let Some(member) = node.get(key) {
                self.string_map(name, member, "header");
            }
        }
    }
}

/// The key paths [`Linter::run`] reads of a file for `target`, each whole (`*`: any
/// key): `inputs`, the servers keys, and a user file's per-project servers. The lint tree
/// keeps only these (`Format::lint_tree`), so the rest of a big file (the prompt history
/// in a `~/.claude.json`) is validated but never held.
pub(crate) fn reads(target: &Target<'_>) -> Vec<Vec<String>> {
    let client = target.client;
    let mut reads = vec![vec!["inputs".to_owned()], client.servers_key.clone()];
    reads.extend(spelling::SERVERS_KEYS.iter().map(|k| vec![(*k).to_owned()]));
    if let Some((parent, rest)) = project_servers(client, target.scope) {
        let mut read = vec![parent.to_owned(), "*".to_owned()];
        read.extend(rest.iter().cloned());
        reads.push(read);
    }
    reads
}

/// Where a user file keeps each project's servers (`projects.<dir>.mcpServers`): the
/// parent key and the path below a project, for the clients that have them.
fn project_servers(client: &Client, scope: Scope) -> Option<(&str, &[String])> {
    match client.local_key.as_deref()? {
        [parent, placeholder, rest @ ..] if scope == Scope::User && placeholder == "{project}" => {
            Some((parent, rest))
        }
        _ => None,
    }
}

/// `spellings`, then the client's own key when it is not among them.
fn with_own<'k>(spellings: &'k [&'k str], own: &'k str) -> impl Iterator<Item = &'k str> {
    let extra = (!own.is_empty() && !spellings.contains(&own)).then_some(own);
    spellings.iter().copied().chain(extra)
}

/// Every string under `node`, with its offset.
pub(in crate::check) fn collect_strings(node: &Node, out: &mut Vec<(String, usize)>) {
    match &node.value {
        Value::String(s) => out.push((s.clone(), node.start)),
        Value::Array(items) => items.iter().for_each(|i| collect_strings(i, out)),
        Value::Object(members) => members.iter().for_each(|m| collect_strings(&m.node, out)),
        Value::Null | Value::Bool | Value::Number => {}
    }
}

/// "empty", "an empty list" or the node's kind, for messages.
pub(in crate::check) fn describe_empty(node: &Node) -> &'static str {
    match &node.value {
        Value::String(_) => "empty",
        Value::Array(items) if items.is_empty() => "an empty list",
        _ => node.kind(),
    }
}

/// A URL's path without query, fragment or trailing slash.
pub(in crate::check) fn url_path(url: &str) -> &str {
    let without_query = url.split(['?', '#']).next().unwrap_or(url);
    without_query.trim_end_matches('/')
}

/// An entry whose transport fields sit in an object under `nest` (Cline CLI 3's
/// `transport`) seen as a flat one, positions kept: the nested fields first, then the
/// entry's own. `None` when the entry is flat.
fn lift_nested(member: &Member, nest: Option<&str>) -> Option<Member> {
    let members = member.node.members()?;
    let inner = members
        .iter()
        .find(|m| Some(m.key.as_str()) == nest)?
        .node
        .members()?;
    let mut flat: Vec<Member> = inner.to_vec();
    flat.extend(
        members
            .iter()
            .filter(|m| Some(m.key.as_str()) != nest && !inner.iter().any(|i| i.key == m.key))
            .cloned(),
    );
    Some(Member {
        key: member.key.clone(),
        key_start: member.key_start,
        node: Node {
            value: Value::Object(flat),
            start: member.node.start,
        },
    })
}

/// A list item (`[[mcp_servers]]` with `name = "x"`) seen as a map member: its name is
/// the key (at the name's position) and the entry is the item without the name key.
/// `None` for an item that is not an object or has no string name.
fn named_item(item: &Node, name_key: &str) -> Option<Member> {
    let members = item.members()?;
    let name = members.iter().rev().find(|m| m.key == name_key)?;
    Some(Member {
        key: name.node.as_str()?.to_owned(),
        key_start: name.key_start,
        node: Node {
            value: Value::Object(
                members
                    .iter()
                    .filter(|m| m.key != name_key)
                    .cloned()
                    .collect(),
            ),
            start: item.start,
        },
    })
}
