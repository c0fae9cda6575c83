//! MCP2xx, client dialect: the entry is spelled the way this client reads it (its URL key,
//! `type` values, servers key, documented keys, transports, OpenCode's command list).
//! Every spelling comes from the client's table row and `entry::spelling`.

use crate::check::lint::{Linter, url_path};
use crate::clients::{DialectName, TransportName, UntypedRemote};
use crate::entry::spelling;
use crate::formats::tree::{Member, Node, Value};

use super::Rule;
use crate::check::Severity;

pub const WRONG_URL_KEY: Rule = Rule {
    code: "MCP201",
    name: "wrong-url-key",
    severity: Severity::Error,
    fixable: true,
    title: "the URL is under a key this client does not read",
    explanation: "Clients spell the remote URL differently: Windsurf and Antigravity read `serverUrl` (a Cursor-style `url` does not connect), most others read `url`, Gemini and Qwen also `httpUrl`. The spelling comes from the client table (`fields.url_key`). `--fix` renames the key.",
    example: "{ \"mcpServers\": { \"docs\": { \"serverUrl\": \"https://mcp.example.com/mcp\" } } }",
};

pub const COMMAND_ARRAY_SHAPE: Rule = Rule {
    code: "MCP202",
    name: "command-array-shape",
    severity: Severity::Error,
    fixable: false,
    title: "`args`, `env` or a string `command` in an OpenCode or Kilo file",
    explanation: "OpenCode and Kilo (`dialect = \"command-array\"`) take the program and its arguments as one list in `command` and the environment in `environment`; their schema rejects unknown keys, so `args` or `env` makes the whole config file invalid, not just the entry.",
    example: "{ \"mcp\": { \"memory\": { \"type\": \"local\", \"command\": [\"npx\", \"-y\", \"@modelcontextprotocol/server-memory@2025.8.4\"], \"environment\": { \"MEMORY_FILE\": \"memory.json\" } } } }",
};

pub const REMOTE_TYPE_REQUIRED: Rule = Rule {
    code: "MCP203",
    name: "remote-type-required",
    severity: Severity::Error,
    fixable: true,
    title: "remote entry without the `type` this client requires",
    explanation: "Roo Code and VS Code need `type` on remote entries (`streamable-http`/`sse` in Roo, `http`/`sse` in VS Code); without it Roo rejects the entry. `--fix` adds the client's HTTP type (its SSE type when the URL path ends in `/sse`).",
    example: "{ \"servers\": { \"docs\": { \"type\": \"http\", \"url\": \"https://mcp.example.com/mcp\" } } }",
};

pub const UNTYPED_REMOTE_IS_SSE: Rule = Rule {
    code: "MCP204",
    name: "untyped-remote-is-sse",
    severity: Severity::Warning,
    fixable: false,
    title: "remote entry without `type` is read as legacy SSE",
    explanation: "Cline and Gemini CLI treat a `url` without `type` as the legacy HTTP+SSE transport (Qwen too; it reads Streamable HTTP from `httpUrl`). Most current servers speak Streamable HTTP only, so the connection fails. Add the HTTP type (`streamableHttp` in Cline, `http` in Gemini), or `type: \"sse\"` if the server really is SSE. Not fixed automatically: only you know which transport the server speaks. URLs whose path ends in `/sse` are not flagged.",
    example: "{ \"mcpServers\": { \"docs\": { \"type\": \"streamableHttp\", \"url\": \"https://mcp.example.com/mcp\" } } }",
};

pub const FOREIGN_SERVERS_KEY: Rule = Rule {
    code: "MCP205",
    name: "foreign-servers-key",
    severity: Severity::Error,
    fixable: false,
    title: "servers under another client's key",
    explanation: "Each client reads one key: VS Code's `mcp.json` reads `servers` (not `mcpServers`), OpenCode reads `mcp`, Zed `context_servers`, Claude-style clients `mcpServers`. Servers copied under another client's key are ignored without a message.",
    example: "// .vscode/mcp.json\n{ \"servers\": { \"memory\": { \"type\": \"stdio\", \"command\": \"mcp-memory\" } } }",
};

pub const UNKNOWN_KEY: Rule = Rule {
    code: "MCP206",
    name: "unknown-key",
    severity: Severity::Warning,
    fixable: false,
    title: "entry key this client does not document",
    explanation: "The key is not one the client reads (its modelled fields from the client table plus its documented extras, `fields.extra_keys`). It is ignored at best, and a typo (`evn`, `arg`) means the setting you meant is missing. Clients whose extras are unverified are not checked.",
    example: "{ \"mcpServers\": { \"memory\": { \"command\": \"mcp-memory\", \"env\": { \"MEMORY_FILE\": \"m.json\" } } } }",
};

pub const UNSUPPORTED_TRANSPORT: Rule = Rule {
    code: "MCP207",
    name: "unsupported-transport",
    severity: Severity::Error,
    fixable: false,
    title: "the client cannot use this kind of server",
    explanation: "Some clients take only local servers from their file (Claude Desktop adds remote servers through Settings → Connectors; Junie documents stdio only), and Codex speaks Streamable HTTP but not legacy SSE. Wrap a remote server with a local proxy such as `npx -y mcp-remote URL`, or configure it where the client takes it.",
    example: "{ \"mcpServers\": { \"docs\": { \"command\": \"npx\", \"args\": [\"-y\", \"mcp-remote@0.1.29\", \"https://mcp.example.com/mcp\"] } } }",
};

pub const UNKNOWN_TYPE_VALUE: Rule = Rule {
    code: "MCP208",
    name: "unknown-type-value",
    severity: Severity::Error,
    fixable: false,
    title: "`type` has a value this client does not accept",
    explanation: "Transport names differ: `http` (Claude Code, VS Code, Gemini), `streamableHttp` (Cline), `streamable-http` (Roo), `local`/`remote` (OpenCode, Kilo). A value from another client is rejected by schema-checking clients or read as the wrong transport.",
    example: "{ \"mcpServers\": { \"docs\": { \"type\": \"streamableHttp\", \"url\": \"https://mcp.example.com/mcp\" } } }",
};

pub const SSE_DEPRECATED: Rule = Rule {
    code: "MCP209",
    name: "sse-deprecated",
    severity: Severity::Warning,
    fixable: false,
    title: "the HTTP+SSE transport is deprecated (MCP 2026-07-28)",
    explanation: "MCP 2026-07-28 deprecates the HTTP+SSE transport (SEP-2596); deprecated features keep working for 12 months. Many servers that still offer an `/sse` endpoint also serve Streamable HTTP; a registry entry's `remotes` list both, and when mcpctl has fetched that entry (`search`, `add NAME`) the finding names the Streamable HTTP URL. Switch to it with `mcpctl add NAME -c CLIENT --url URL --transport http --force`, or `mcpctl doctor URL` first to see what the server speaks. Not fixed automatically: only the server knows its other endpoint.",
    example: "{ \"mcpServers\": { \"docs\": { \"type\": \"http\", \"url\": \"https://mcp.example.com/mcp\" } } }",
};

pub const BLOCKED_BY_POLICY: Rule = Rule {
    code: "MCP210",
    name: "blocked-by-policy",
    severity: Severity::Error,
    fixable: false,
    title: "an administrator's policy file keeps this server out of the client",
    explanation: "The client enforces an MCP allow-list its administrator deployed (Claude Code's and Copilot's `managed-settings.json`: `allowedMcpServers` / `deniedMcpServers`; Codex's `requirements.toml`: `[mcp_servers.NAME.identity]`), and this entry is denied by it or matches nothing it allows, so the client will not load it. The message names the rule and the file. Ask whoever deployed the file to allow the server (an admin can generate it from the team's manifest with `mcpctl export`), or use a server the policy allows. `docs/guide/policy.md` has each vendor's matching rules.",
    example: "mcpctl export --format claude-managed --manifest mcpctl.toml",
};

impl Linter<'_> {
    /// MCP210 for a local server: its command line against the client's policy files.
    pub(in crate::check) fn policy_stdio(
        &mut self,
        name: &str,
        program: &(String, usize),
        args: &[(String, usize)],
    ) {
        if self.policy.is_empty() {
            return;
        }
        let transport = crate::entry::Transport::Stdio {
            command: program.0.clone(),
            args: args.iter().map(|(a, _)| a.clone()).collect(),
            env: Default::default(),
            cwd: None,
        };
        self.policy_verdict(name, &transport, program.1);
    }

    /// MCP210 for a remote server: its URL against the client's policy files.
    pub(in crate::check) fn policy_remote(&mut self, name: &str, url: &str, at: usize) {
        if self.policy.is_empty() {
            return;
        }
        let transport = crate::entry::Transport::Remote {
            url: url.to_owned(),
            kind: crate::entry::RemoteKind::Http,
            headers: Default::default(),
        };
        self.policy_verdict(name, &transport, at);
    }

    fn policy_verdict(&mut self, name: &str, transport: &crate::entry::Transport, at: usize) {
        let subject = crate::policy::Subject { name, transport };
        if let Some(block) = crate::policy::blocked(self.policy, &subject) {
            let message = format!("`{name}`: {}", block.reason(&self.client.name));
            self.report(at, &BLOCKED_BY_POLICY, message);
        }
    }

    /// Servers written under another client's key (`mcpServers` in `.vscode/mcp.json`).
    pub(in crate::check) fn foreign_keys(&mut self, root: &Node, own_present: bool) {
        let own = self.client.servers_key.first().map(String::as_str);
        let Some(members) = root.members() else {
            return;
        };
        for member in members {
            if Some(member.key.as_str()) == own
                || !spelling::SERVERS_KEYS.contains(&member.key.as_str())
            {
                continue;
            }
            let looks_like_servers = member.node.members().is_some_and(|entries| {
                !entries.is_empty()
                    && entries.iter().all(|e| {
                        e.node.members().is_some_and(|m| {
                            spelling::looks_like_entry(m.iter().map(|k| k.key.as_str()))
                        })
                    })
            });
            if looks_like_servers {
                let also = if own_present {
                    ""
                } else {
                    " (so it sees no servers in this file)"
                };
                self.report(
                    member.key_start,
                    &FOREIGN_SERVERS_KEY,
                    format!(
                        "{} reads servers from `{}`; `{}` is another client's key and is ignored{also}",
                        self.name(),
                        self.client.servers_key.join("."),
                        member.key
                    ),
                );
            }
        }
    }

    /// OpenCode and Kilo take `[program, arg...]` in `command` and the environment under
    /// their own key; anything else makes their schema reject the whole file.
    pub(in crate::check) fn command_array_shape(
        &mut self,
        name: &str,
        node: &Node,
        command: &Member,
    ) {
        if self.client.dialect != DialectName::CommandArray {
            return;
        }
        if matches!(&command.node.value, Value::String(s) if !s.trim().is_empty()) {
            self.report(
                command.node.start,
                &COMMAND_ARRAY_SHAPE,
                format!(
                    "{} wants `command` as one list `[program, arg...]`; a string `command` makes the whole file invalid (server `{name}`)",
                    self.name()
                ),
            );
        }
        if let Some(member) = self.field(node, spelling::ARGS_KEYS, &self.client.fields.args_key) {
            self.report(
                member.key_start,
                &COMMAND_ARRAY_SHAPE,
                format!(
                    "{} has no `args`: put the arguments in the `command` list; its schema rejects the whole file (server `{name}`)",
                    self.name()
                ),
            );
        }
        for env_key in spelling::ENV_KEYS {
            if let Some(member) = node.get(env_key)
                && *env_key != self.client.fields.env_key
            {
                self.report(
                    member.key_start,
                    &COMMAND_ARRAY_SHAPE,
                    format!(
                        "{} reads the environment from `{}`, not `{env_key}`; its schema rejects the whole file (server `{name}`)",
                        self.name(),
                        self.client.fields.env_key
                    ),
                );
            }
        }
    }

    /// The URL is under a key this client reads.
    pub(in crate::check) fn url_key(&mut self, name: &str, url: &Member) {
        let f = &self.client.fields;
        let readable: Vec<&str> = std::iter::once(f.url_key.as_str())
            .chain(f.http_url_key.as_deref())
            .chain(
                f.extra_keys
                    .iter()
                    .flatten()
                    .map(String::as_str)
                    .filter(|k| spelling::is_url(k)),
            )
            .collect();
        if !readable.contains(&url.key.as_str()) {
            let want = f.url_key.clone();
            self.report(
                url.key_start,
                &WRONG_URL_KEY,
                format!(
                    "{} reads the remote URL from `{want}`; `{}` of server `{name}` is ignored",
                    self.name(),
                    url.key
                ),
            );
        }
    }

    /// The client takes this transport, and knows which one it is without guessing.
    pub(in crate::check) fn remote_transport(
        &mut self,
        name: &str,
        node: &Node,
        url: &Member,
        url_text: &str,
    ) {
        let f = &self.client.fields;
        let type_value = node.get(&f.type_key).and_then(|m| m.node.as_str());
        let is_sse = type_value
            .is_some_and(|t| Some(t) == f.sse_type.as_deref() || spelling::SSE_TYPES.contains(&t));
        if !self.client.supports(TransportName::Http) && !self.client.supports(TransportName::Sse) {
            let hint = self.client.remote_hint.clone().unwrap_or_else(|| {
                "wrap it with a local proxy such as `npx -y mcp-remote URL`".to_owned()
            });
            self.report(
                url.key_start,
                &UNSUPPORTED_TRANSPORT,
                format!(
                    "{} takes no remote servers from this file (server `{name}`); {hint}",
                    self.name()
                ),
            );
        } else if is_sse && !self.client.supports(TransportName::Sse) {
            self.report(
                url.key_start,
                &UNSUPPORTED_TRANSPORT,
                format!("{} cannot use legacy SSE servers (server `{name}`); use the server's Streamable HTTP endpoint", self.name()),
            );
        }
        let path_is_sse = url_path(url_text).ends_with("/sse");
        let read_as_sse = is_sse
            || (type_value.is_none()
                && f.untyped_remote == UntypedRemote::Sse
                && !spelling::HTTP_URL_KEYS.contains(&url.key.as_str())
                && path_is_sse);
        if read_as_sse && self.client.supports(TransportName::Sse) {
            let message = match self.alternatives.get(url_text) {
                Some((server, http)) => format!(
                    "server `{name}` uses the HTTP+SSE transport, deprecated in MCP 2026-07-28; its registry entry `{server}` also lists Streamable HTTP at `{http}`: switch with `mcpctl add {name} -c {} --url {http} --transport http --force`",
                    self.client.id
                ),
                None => format!(
                    "server `{name}` uses the HTTP+SSE transport, deprecated in MCP 2026-07-28; if it also serves Streamable HTTP (`mcpctl doctor URL` tells), switch with `mcpctl add {name} -c {} --url URL --transport http --force`",
                    self.client.id
                ),
            };
            self.report(url.key_start, &SSE_DEPRECATED, message);
        }
        if type_value.is_none() && !spelling::HTTP_URL_KEYS.contains(&url.key.as_str()) {
            match f.untyped_remote {
                UntypedRemote::None => {
                    let suggested = if path_is_sse {
                        &f.sse_type
                    } else {
                        &f.http_type
                    };
                    let suggestion = suggested
                        .as_deref()
                        .map_or_else(String::new, |t| format!("; add `\"type\": \"{t}\"`"));
                    self.report(
                        url.key_start,
                        &REMOTE_TYPE_REQUIRED,
                        format!(
                            "{} requires `type` on remote server `{name}`{suggestion}",
                            self.name()
                        ),
                    );
                }
                UntypedRemote::Sse if !path_is_sse => {
                    let how = match (&f.http_type, &f.http_url_key) {
                        (Some(t), _) => format!("add `\"type\": \"{t}\"` for Streamable HTTP"),
                        (None, Some(k)) => format!("use `{k}` for Streamable HTTP"),
                        (None, None) => "set the transport explicitly".to_owned(),
                    };
                    let sse = f.sse_type.as_deref().unwrap_or("sse");
                    self.report(
                        url.key_start,
                        &UNTYPED_REMOTE_IS_SSE,
                        format!(
                            "{} reads remote server `{name}` without `type` as legacy SSE; {how}, or `\"type\": \"{sse}\"` if it really is SSE",
                            self.name()
                        ),
                    );
                }
                UntypedRemote::Sse | UntypedRemote::Http => {}
            }
        }
    }

    pub(in crate::check) fn type_value(&mut self, name: &str, node: &Node) {
        let f = &self.client.fields;
        let Some(member) = node.get(&f.type_key) else {
            return;
        };
        // Only clients whose table row names an HTTP type validate `type` values.
        let Some(allowed) = self.client.accepted_types() else {
            return;
        };
        match member.node.as_str() {
            Some(t) if allowed.contains(&t) => {}
            Some(t) => self.report(
                member.node.start,
                &UNKNOWN_TYPE_VALUE,
                format!(
                    "{} does not accept `\"type\": \"{t}\"` (server `{name}`); it takes {}",
                    self.name(),
                    allowed
                        .iter()
                        .map(|a| format!("`{a}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            None => self.report(
                member.node.start,
                &UNKNOWN_TYPE_VALUE,
                format!(
                    "`type` of server `{name}` is {}, expected a string",
                    member.node.kind()
                ),
            ),
        }
    }

    pub(in crate::check) fn unknown_keys(&mut self, name: &str, keys: &[Member]) {
        let f = &self.client.fields;
        let Some(extras) = &f.extra_keys else { return };
        let mut known: Vec<&str> = vec![
            f.command_key.as_str(),
            f.env_key.as_str(),
            f.url_key.as_str(),
            f.headers_key.as_str(),
        ];
        if self.client.dialect == DialectName::Standard {
            known.push(f.args_key.as_str());
        }
        if !f.cwd_key.is_empty() {
            known.push(f.cwd_key.as_str());
        }
        known.extend(f.http_url_key.as_deref());
        if f.stdio_type.is_some() || f.http_type.is_some() || f.sse_type.is_some() {
            known.push(f.type_key.as_str());
        }
        known.extend(extras.iter().map(String::as_str));
        let command_array = self.client.dialect == DialectName::CommandArray;
        let mut unknown: Vec<(usize, String)> = Vec::new();
        for member in keys {
            let key = member.key.as_str();
            // Reported by a more specific rule already.
            let covered = spelling::is_url(key)
                || (command_array
                    && (spelling::ARGS_KEYS.contains(&key) || spelling::ENV_KEYS.contains(&key)));
            if known.contains(&key) || covered {
                continue;
            }
            let spelled = |own: &str| format!("; {} spells it `{own}`", self.name());
            let hint = match spelling::synonyms(key) {
                Some(spelling::ENV_KEYS) => spelled(&f.env_key),
                Some(spelling::CWD_KEYS) if f.cwd_key.is_empty() => {
                    format!("; {} has no working-directory field", self.name())
                }
                Some(spelling::CWD_KEYS) => spelled(&f.cwd_key),
                Some(spelling::HEADER_KEYS) => spelled(&f.headers_key),
                Some(spelling::COMMAND_KEYS) => spelled(&f.command_key),
                Some(spelling::ARGS_KEYS) => spelled(&f.args_key),
                _ => String::new(),
            };
            unknown.push((
                member.key_start,
                format!(
                    "`{key}` is not a {} entry key and is ignored (server `{name}`){hint}",
                    self.name()
                ),
            ));
        }
        for (offset, message) in unknown {
            self.report(offset, &UNKNOWN_KEY, message);
        }
    }
}
