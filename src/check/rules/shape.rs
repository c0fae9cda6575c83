//! MCP1xx, shape: the servers map and each entry have the types every client needs
//! (objects, a command or a URL, lists and maps of strings, portable names).

use crate::check::lint::{Linter, Side, describe_empty};
use crate::clients::DialectName;
use crate::entry::{self, spelling};
use crate::formats::tree::{Member, Node, Value};

use super::Rule;
use crate::check::Severity;

pub const SERVERS_NOT_OBJECT: Rule = Rule {
    code: "MCP101",
    name: "servers-not-object",
    severity: Severity::Error,
    fixable: false,
    title: "the servers key (or a parent of it) is not an object",
    explanation: "Each client reads its servers from an object keyed by server name (`mcpServers`, `servers`, `mcp`, `context_servers`, `[mcp_servers]`). A list or a string there is rejected, or read as no servers at all. The file's top level must be an object (a table in TOML) too.",
    example: "{ \"mcpServers\": { \"memory\": { \"command\": \"mcp-memory\" } } }",
};

pub const ENTRY_NOT_OBJECT: Rule = Rule {
    code: "MCP102",
    name: "entry-not-object",
    severity: Severity::Error,
    fixable: false,
    title: "a server entry is not an object",
    explanation: "Every value in the servers map must be an object describing one server. A string such as a command line is not understood by any client.",
    example: "{ \"mcpServers\": { \"memory\": { \"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-memory@2025.8.4\"] } } }",
};

pub const COMMAND_AND_URL: Rule = Rule {
    code: "MCP103",
    name: "command-and-url",
    severity: Severity::Error,
    fixable: false,
    title: "an entry has both `command` and a URL",
    explanation: "A server is either local (a `command` the client starts) or remote (a URL it connects to). Clients pick one silently (Claude Code, Cursor) or reject the entry (Roo Code, Codex). Split it into two entries or remove one side.",
    example: "{ \"mcpServers\": { \"docs\": { \"type\": \"http\", \"url\": \"https://mcp.example.com/mcp\" } } }",
};

pub const NO_COMMAND_OR_URL: Rule = Rule {
    code: "MCP104",
    name: "no-command-or-url",
    severity: Severity::Error,
    fixable: false,
    title: "an entry has neither `command` nor a URL",
    explanation: "Without `command` (local server) or `url` (remote server; `serverUrl` in Windsurf and Antigravity, `httpUrl` in Gemini and Qwen) the client has nothing to start or connect to. Extension entries in Zed (`source`/`settings`) and bare `enabled`/`disabled` toggles are not flagged.",
    example: "{ \"mcpServers\": { \"memory\": { \"command\": \"mcp-memory\" } } }",
};

pub const COMMAND_OR_URL_TYPE: Rule = Rule {
    code: "MCP105",
    name: "command-or-url-type",
    severity: Severity::Error,
    fixable: false,
    title: "`command` or the URL is empty or has the wrong type",
    explanation: "`command` must be a non-empty string naming the program (a non-empty list `[program, arg...]` in OpenCode and Kilo), and a URL must be a non-empty string. A list in `command` for other clients is rejected: put the program in `command` and the rest in `args`.",
    example: "{ \"mcpServers\": { \"memory\": { \"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-memory@2025.8.4\"] } } }",
};

pub const ARGS_NOT_STRINGS: Rule = Rule {
    code: "MCP106",
    name: "args-not-strings",
    severity: Severity::Error,
    fixable: false,
    title: "`args` is not a list of strings",
    explanation: "Clients pass `args` to the process as strings; a string instead of a list, or numbers and booleans inside it, make the entry invalid. Quote numbers: `\"8080\"`.",
    example: "{ \"command\": \"mcp-server\", \"args\": [\"--port\", \"8080\"] }",
};

pub const MAP_NOT_STRINGS: Rule = Rule {
    code: "MCP107",
    name: "map-not-strings",
    severity: Severity::Error,
    fixable: false,
    title: "`env` or `headers` is not an object of strings",
    explanation: "Environment variables and HTTP headers are name → string maps. A list (`[\"KEY=value\"]`) or a number value is rejected by most clients' schemas and silently dropped by others. Quote numbers and booleans.",
    example: "{ \"command\": \"mcp-server\", \"env\": { \"PORT\": \"8080\", \"DEBUG\": \"true\" } }",
};

pub const NAME_NOT_PORTABLE: Rule = Rule {
    code: "MCP108",
    name: "name-not-portable",
    severity: Severity::Warning,
    fixable: false,
    title: "the server name has characters this client rejects",
    explanation: "Claude Code and Codex accept only letters, digits, `-` and `_` in server names (they become parts of tool names). Other characters make the client skip or rename the server.",
    example: "{ \"mcpServers\": { \"github-work\": { \"command\": \"github-mcp-server\" } } }",
};

/// A string and the offset it is written at.
pub(in crate::check) type Located = (String, usize);

impl Linter<'_> {
    /// The file's top level is an object; `false` (reported) when it is not.
    pub(in crate::check) fn top_level(&mut self, root: &Node) -> bool {
        if root.members().is_some() {
            return true;
        }
        self.report(
            root.start,
            &SERVERS_NOT_OBJECT,
            format!(
                "the file's top level is {}, expected an object",
                root.kind()
            ),
        );
        false
    }

    /// The servers map at `key`, reporting a non-object on the way.
    pub(in crate::check) fn servers_map<'n>(
        &mut self,
        root: &'n Node,
        key: &[String],
    ) -> Option<&'n Node> {
        let mut node = root;
        for (depth, segment) in key.iter().enumerate() {
            let member = node.get(segment)?;
            if depth + 1 == key.len() && self.client.servers_name_key.is_some() {
                // List-shaped servers (`[[mcp_servers]]`): the list itself.
                if matches!(member.node.value, Value::Array(_)) {
                    return Some(&member.node);
                }
                self.report(
                    member.key_start,
                    &SERVERS_NOT_OBJECT,
                    format!(
                        "`{}` is {}, expected a list of servers",
                        key.join("."),
                        member.node.kind()
                    ),
                );
                return None;
            }
            if member.node.members().is_none() {
                self.report(
                    member.key_start,
                    &SERVERS_NOT_OBJECT,
                    format!(
                        "`{}` is {}, expected an object of servers keyed by name",
                        key[..=depth].join("."),
                        member.node.kind()
                    ),
                );
                return None;
            }
            node = &member.node;
        }
        Some(node)
    }

    /// The entry's keys; `None` (reported) when it is not an object.
    pub(in crate::check) fn entry_object<'n>(
        &mut self,
        member: &'n Member,
    ) -> Option<&'n [Member]> {
        let name = member.key.as_str();
        let Some(keys) = member.node.members() else {
            self.report(
                member.node.start,
                &ENTRY_NOT_OBJECT,
                format!(
                    "server `{name}` is {}, expected an object",
                    member.node.kind()
                ),
            );
            return None;
        };
        Some(keys)
    }

    /// The name is one the client accepts.
    pub(in crate::check) fn portable_name(&mut self, member: &Member) {
        let name = member.key.as_str();
        if self.client.fields.strict_names && !entry::name_is_portable(name) {
            self.report(
                member.key_start,
                &NAME_NOT_PORTABLE,
                format!(
                    "{} accepts only letters, digits, `-` and `_` in server names; rename `{name}`",
                    self.name()
                ),
            );
        }
    }

    /// Whether the entry is local or remote; both or neither is reported.
    pub(in crate::check) fn side<'n>(
        &mut self,
        member: &'n Member,
        keys: &'n [Member],
    ) -> Side<'n> {
        let name = member.key.as_str();
        let node = &member.node;
        let command = self.field(
            node,
            spelling::COMMAND_KEYS,
            &self.client.fields.command_key,
        );
        let f = &self.client.fields;
        let urls: Vec<&Member> = keys
            .iter()
            .filter(|k| {
                spelling::is_url(&k.key)
                    || k.key == f.url_key
                    || f.http_url_key.as_deref() == Some(k.key.as_str())
            })
            .collect();
        match (command, urls.first()) {
            (Some(command), Some(url)) => {
                self.report(
                    url.key_start.max(command.key_start),
                    &COMMAND_AND_URL,
                    format!("server `{name}` has both `command` and `{}`; a server is either local or remote", url.key),
                );
                Side::Neither
            }
            (None, None) => {
                let builtin = member
                    .node
                    .get(spelling::TYPE_KEY)
                    .and_then(|t| t.node.as_str())
                    .is_some_and(|t| spelling::BUILTIN_TYPES.contains(&t));
                if !builtin
                    && !keys
                        .iter()
                        .all(|k| entry::override_key(self.client, &k.key))
                {
                    self.report(
                        member.key_start,
                        &NO_COMMAND_OR_URL,
                        format!(
                            "server `{name}` has neither `{}` nor `{}`",
                            self.client.fields.command_key, self.client.fields.url_key
                        ),
                    );
                }
                Side::Neither
            }
            (Some(command), None) => Side::Stdio(command),
            (None, Some(url)) => Side::Remote(url),
        }
    }

    /// The program and its arguments (with offsets) as the client will see them; the
    /// program is `None` when `command` is malformed (reported).
    pub(in crate::check) fn command_line(
        &mut self,
        name: &str,
        node: &Node,
        command: &Member,
    ) -> (Option<Located>, Vec<Located>) {
        let command_array = self.client.dialect == DialectName::CommandArray;
        // (program, args) as the client will see them, when well-formed.
        let mut program: Option<(String, usize)> = None;
        let mut args: Vec<(String, usize)> = Vec::new();
        match &command.node.value {
            Value::String(s) if !s.trim().is_empty() => {
                program = Some((s.clone(), command.node.start));
            }
            Value::Array(items) if command_array && !items.is_empty() => {
                let strings: Option<Vec<(String, usize)>> = items
                    .iter()
                    .map(|i| i.as_str().map(|s| (s.to_owned(), i.start)))
                    .collect();
                match strings {
                    Some(mut all) => {
                        let first = all.remove(0);
                        program = Some(first);
                        args = all;
                    }
                    None => self.report(
                        command.node.start,
                        &COMMAND_OR_URL_TYPE,
                        format!("`command` of server `{name}` must be a list of strings"),
                    ),
                }
            }
            Value::Array(_) if !command_array => self.report(
                command.node.start,
                &COMMAND_OR_URL_TYPE,
                format!(
                    "`command` of server `{name}` is a list; {} wants the program in `command` and the rest in `args`",
                    self.name()
                ),
            ),
            _ => self.report(
                command.node.start,
                &COMMAND_OR_URL_TYPE,
                format!(
                    "`command` of server `{name}` is {}, expected {}",
                    describe_empty(&command.node),
                    if command_array { "a non-empty list of strings" } else { "a non-empty string" }
                ),
            ),
        }
        if let Some(member) = self.field(node, spelling::ARGS_KEYS, &self.client.fields.args_key) {
            match &member.node.value {
                Value::Array(items) => {
                    for item in items {
                        match item.as_str() {
                            Some(s) => args.push((s.to_owned(), item.start)),
                            None => {
                                self.report(
                                    item.start,
                                    &ARGS_NOT_STRINGS,
                                    format!(
                                        "`args` of server `{name}` holds {}, expected only strings",
                                        item.kind()
                                    ),
                                );
                                break;
                            }
                        }
                    }
                }
                _ => self.report(
                    member.node.start,
                    &ARGS_NOT_STRINGS,
                    format!(
                        "`args` of server `{name}` is {}, expected a list of strings",
                        member.node.kind()
                    ),
                ),
            }
        }
        (program, args)
    }

    /// The URL as text; `None` (reported) when it is empty or not a string.
    pub(in crate::check) fn url_text<'n>(
        &mut self,
        name: &str,
        url: &'n Member,
    ) -> Option<&'n str> {
        let text = url.node.as_str().filter(|s| !s.trim().is_empty());
        if text.is_none() {
            self.report(
                url.node.start,
                &COMMAND_OR_URL_TYPE,
                format!(
                    "`{}` of server `{name}` is {}, expected a URL string",
                    url.key,
                    describe_empty(&url.node)
                ),
            );
        }
        text
    }

    /// `env`/`headers`: an object of strings; each value checked for secrets.
    pub(in crate::check) fn string_map(&mut self, name: &str, member: &Member, what: &str) {
        let Some(entries) = member.node.members() else {
            self.report(
                member.node.start,
                &MAP_NOT_STRINGS,
                format!(
                    "`{}` of server `{name}` is {}, expected an object of strings",
                    member.key,
                    member.node.kind()
                ),
            );
            return;
        };
        for entry in entries {
            match entry.node.as_str() {
                Some(value) => {
                    self.secret_value(name, &member.key, &entry.key, value, entry.node.start, what)
                }
                None => self.report(
                    entry.node.start,
                    &MAP_NOT_STRINGS,
                    format!(
                        "`{}.{}` of server `{name}` is {}, expected a string (quote it)",
                        member.key,
                        entry.key,
                        entry.node.kind()
                    ),
                ),
            }
        }
    }
}
