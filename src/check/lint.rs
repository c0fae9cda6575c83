//! The rules, run over one parsed file: shape, client dialect, portability, security and
//! variable references. Which keys, URL spellings, `type` values and variable syntax a
//! client accepts come from its table row (`fields`); only structure is code here.
//!
//! It never prints a secret value: messages name the key and the server only.

use crate::clients::{Client, DialectName, Scope, TransportName, UntypedRemote, VarSyntax};
use crate::entry::{self, spelling};
use crate::platform::Os;
use crate::vars;

use super::{Finding, Severity, Target, rule};
use crate::formats::tree::{LineIndex, Member, Node, Parsed, Syntax, Value};

pub(crate) struct Linter<'a> {
    path: &'a str,
    index: &'a LineIndex<'a>,
    client: &'a Client,
    scope: Scope,
    os: Os,
    /// `id`s of VS Code's top-level `inputs`.
    inputs: Vec<String>,
    /// The server whose entry is being linted, for `Finding::server`.
    current: Option<String>,
    findings: Vec<Finding>,
}

impl<'a> Linter<'a> {
    pub(crate) fn new(path: &'a str, index: &'a LineIndex<'a>, target: &Target<'a>) -> Self {
        Linter {
            path,
            index,
            client: target.client,
            scope: target.scope,
            os: target.os,
            inputs: Vec::new(),
            current: None,
            findings: Vec::new(),
        }
    }

    pub(crate) fn finish(self) -> Vec<Finding> {
        self.findings
    }

    fn report(&mut self, offset: usize, code: &'static str, message: String) {
        let severity = rule(code).map_or(Severity::Error, |r| r.severity);
        self.report_as(offset, code, severity, message);
    }

    fn report_as(
        &mut self,
        offset: usize,
        code: &'static str,
        severity: Severity,
        message: String,
    ) {
        let (line, column) = self.index.position(offset);
        self.findings.push(Finding {
            path: self.path.to_owned(),
            line,
            column,
            severity,
            code,
            message,
            server: self.current.clone(),
        });
    }

    fn name(&self) -> &str {
        &self.client.name
    }

    /// The member spelling a modelled field: the client's own key first, then any other
    /// client's spelling of it.
    fn field<'n>(&self, node: &'n Node, keys: &[&str], own: &str) -> Option<&'n Member> {
        std::iter::once(own)
            .chain(keys.iter().copied())
            .find_map(|k| node.get(k))
    }

    fn strict_reader(&self) -> bool {
        self.client.format.strict()
    }

    pub(crate) fn run(&mut self, parsed: &Parsed) {
        for note in &parsed.syntax {
            match note {
                Syntax::Error(offset, message) => {
                    self.report(*offset, "MCP001", format!("cannot parse: {message}"));
                    // A file that does not parse reports only that.
                    self.findings.retain(|f| f.code == "MCP001");
                    return;
                }
                Syntax::Comment(offset) if self.strict_reader() => self.report(
                    *offset,
                    "MCP002",
                    format!("comment in a file {} reads as strict JSON; it rejects the whole file", self.name()),
                ),
                Syntax::TrailingComma(offset) if self.strict_reader() => self.report(
                    *offset,
                    "MCP003",
                    format!("trailing comma in a file {} reads as strict JSON; it rejects the whole file", self.name()),
                ),
                Syntax::DuplicateKey(offset, key) => self.report(
                    *offset,
                    "MCP004",
                    format!("duplicate key `{key}`: the earlier one is silently lost"),
                ),
                Syntax::Comment(_) | Syntax::TrailingComma(_) => {}
            }
        }
        let root = &parsed.root;
        if root.members().is_none() {
            self.report(
                root.start,
                "MCP101",
                format!(
                    "the file's top level is {}, expected an object",
                    root.kind()
                ),
            );
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
        if self.scope == Scope::User
            && let Some(local) = self.client.local_key.clone()
            && let [parent, placeholder, rest @ ..] = local.as_slice()
            && placeholder == "{project}"
            && let Some(projects) = root.get(parent).and_then(|m| m.node.members())
        {
            for project in projects {
                if let Some(map) = self.servers_map(&project.node, rest) {
                    self.servers(map);
                }
            }
        }
    }

    /// The servers map at `key`, reporting a non-object on the way.
    fn servers_map<'n>(&mut self, root: &'n Node, key: &[String]) -> Option<&'n Node> {
        let mut node = root;
        for (depth, segment) in key.iter().enumerate() {
            let member = node.get(segment)?;
            if member.node.members().is_none() {
                self.report(
                    member.key_start,
                    "MCP101",
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

    /// Servers written under another client's key (`mcpServers` in `.vscode/mcp.json`).
    fn foreign_keys(&mut self, root: &Node, own_present: bool) {
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
                    "MCP205",
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

    fn servers(&mut self, map: &Node) {
        let Some(entries) = map.members() else { return };
        for member in entries {
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
                continue;
            }
            self.entry(member);
        }
    }

    fn entry(&mut self, member: &Member) {
        self.current = Some(member.key.clone());
        self.entry_checks(member);
        self.current = None;
    }

    fn entry_checks(&mut self, member: &Member) {
        let name = member.key.as_str();
        let Some(keys) = member.node.members() else {
            self.report(
                member.node.start,
                "MCP102",
                format!(
                    "server `{name}` is {}, expected an object",
                    member.node.kind()
                ),
            );
            return;
        };
        if self.client.fields.strict_names && !entry::name_is_portable(name) {
            self.report(
                member.key_start,
                "MCP108",
                format!(
                    "{} accepts only letters, digits, `-` and `_` in server names; rename `{name}`",
                    self.name()
                ),
            );
        }
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
                    "MCP103",
                    format!("server `{name}` has both `command` and `{}`; a server is either local or remote", url.key),
                );
            }
            (None, None) => {
                if !keys
                    .iter()
                    .all(|k| spelling::TOGGLE_KEYS.contains(&k.key.as_str()))
                {
                    self.report(
                        member.key_start,
                        "MCP104",
                        format!(
                            "server `{name}` has neither `command` nor `{}`",
                            self.client.fields.url_key
                        ),
                    );
                }
            }
            (Some(command), None) => self.stdio(name, node, command),
            (None, Some(url)) => self.remote(name, node, url),
        }
        self.type_value(name, node);
        self.unknown_keys(name, keys);
        self.references(name, node);
        if self.scope == Scope::Project {
            self.home_paths(name, node);
        }
    }

    fn stdio(&mut self, name: &str, node: &Node, command: &Member) {
        let command_array = self.client.dialect == DialectName::CommandArray;
        // (program, args) as the client will see them, when well-formed.
        let mut program: Option<(String, usize)> = None;
        let mut args: Vec<(String, usize)> = Vec::new();
        match &command.node.value {
            Value::String(s) if !s.trim().is_empty() => {
                if command_array {
                    self.report(
                        command.node.start,
                        "MCP202",
                        format!(
                            "{} wants `command` as one list `[program, arg...]`; a string `command` makes the whole file invalid (server `{name}`)",
                            self.name()
                        ),
                    );
                }
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
                        "MCP105",
                        format!("`command` of server `{name}` must be a list of strings"),
                    ),
                }
            }
            Value::Array(_) if !command_array => self.report(
                command.node.start,
                "MCP105",
                format!(
                    "`command` of server `{name}` is a list; {} wants the program in `command` and the rest in `args`",
                    self.name()
                ),
            ),
            _ => self.report(
                command.node.start,
                "MCP105",
                format!(
                    "`command` of server `{name}` is {}, expected {}",
                    describe_empty(&command.node),
                    if command_array { "a non-empty list of strings" } else { "a non-empty string" }
                ),
            ),
        }
        if let Some(member) = self.field(node, spelling::ARGS_KEYS, &self.client.fields.args_key) {
            if command_array {
                self.report(
                    member.key_start,
                    "MCP202",
                    format!(
                        "{} has no `args`: put the arguments in the `command` list; its schema rejects the whole file (server `{name}`)",
                        self.name()
                    ),
                );
            }
            match &member.node.value {
                Value::Array(items) => {
                    for item in items {
                        match item.as_str() {
                            Some(s) => args.push((s.to_owned(), item.start)),
                            None => {
                                self.report(
                                    item.start,
                                    "MCP106",
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
                    "MCP106",
                    format!(
                        "`args` of server `{name}` is {}, expected a list of strings",
                        member.node.kind()
                    ),
                ),
            }
        }
        for env_key in spelling::ENV_KEYS {
            if let Some(member) = node.get(env_key) {
                if command_array && *env_key != self.client.fields.env_key {
                    self.report(
                        member.key_start,
                        "MCP202",
                        format!(
                            "{} reads the environment from `{}`, not `{env_key}`; its schema rejects the whole file (server `{name}`)",
                            self.name(),
                            self.client.fields.env_key
                        ),
                    );
                }
                self.string_map(name, member, "env");
            }
        }
        let Some((program, program_at)) = program else {
            return;
        };
        self.windows(name, &program, program_at, &args);
        self.unpinned(name, &program, &args);
        self.secret_args(name, &args);
    }

    fn remote(&mut self, name: &str, node: &Node, url: &Member) {
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
                "MCP201",
                format!(
                    "{} reads the remote URL from `{want}`; `{}` of server `{name}` is ignored (fixable)",
                    self.name(),
                    url.key
                ),
            );
        }
        let Some(url_text) = url.node.as_str().filter(|s| !s.trim().is_empty()) else {
            self.report(
                url.node.start,
                "MCP105",
                format!(
                    "`{}` of server `{name}` is {}, expected a URL string",
                    url.key,
                    describe_empty(&url.node)
                ),
            );
            return;
        };
        let type_value = node.get(spelling::TYPE_KEY).and_then(|m| m.node.as_str());
        let f = &self.client.fields;
        let is_sse = type_value
            .is_some_and(|t| Some(t) == f.sse_type.as_deref() || spelling::SSE_TYPES.contains(&t));
        if !self.client.supports(TransportName::Http) && !self.client.supports(TransportName::Sse) {
            let hint = self.client.remote_hint.clone().unwrap_or_else(|| {
                "wrap it with a local proxy such as `npx -y mcp-remote URL`".to_owned()
            });
            self.report(
                url.key_start,
                "MCP207",
                format!(
                    "{} takes no remote servers from this file (server `{name}`); {hint}",
                    self.name()
                ),
            );
        } else if is_sse && !self.client.supports(TransportName::Sse) {
            self.report(
                url.key_start,
                "MCP207",
                format!("{} cannot use legacy SSE servers (server `{name}`); use the server's Streamable HTTP endpoint", self.name()),
            );
        }
        let path_is_sse = url_path(url_text).ends_with("/sse");
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
                        "MCP203",
                        format!(
                            "{} requires `type` on remote server `{name}`{suggestion} (fixable)",
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
                        "MCP204",
                        format!(
                            "{} reads remote server `{name}` without `type` as legacy SSE; {how}, or `\"type\": \"{sse}\"` if it really is SSE",
                            self.name()
                        ),
                    );
                }
                UntypedRemote::Sse | UntypedRemote::Http => {}
            }
        }
        if let Some(rest) = url_text.strip_prefix("http://")
            && !is_loopback(rest)
        {
            self.report(
                url.node.start,
                "MCP403",
                format!("server `{name}` is reached over plain `http://`: requests and headers travel unencrypted; use `https://`"),
            );
        }
        self.secret_url(name, &url.key, url_text, url.node.start);
        for key in spelling::HEADER_KEYS {
            if let Some(member) = node.get(key) {
                self.string_map(name, member, "header");
            }
        }
    }

    /// `env`/`headers`: an object of strings; each value checked for secrets.
    fn string_map(&mut self, name: &str, member: &Member, what: &str) {
        let Some(entries) = member.node.members() else {
            self.report(
                member.node.start,
                "MCP107",
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
                    "MCP107",
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

    fn type_value(&mut self, name: &str, node: &Node) {
        let f = &self.client.fields;
        let Some(member) = node.get(spelling::TYPE_KEY) else {
            return;
        };
        let declared: Vec<&str> = [&f.stdio_type, &f.http_type, &f.sse_type]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect();
        // Only clients whose table row names an HTTP type validate `type` values.
        if f.http_type.is_none() {
            return;
        }
        let mut allowed = declared.clone();
        if self.client.dialect == DialectName::Standard {
            allowed.push("stdio");
        }
        match member.node.as_str() {
            Some(t) if allowed.contains(&t) => {}
            Some(t) => self.report(
                member.node.start,
                "MCP208",
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
                "MCP208",
                format!(
                    "`type` of server `{name}` is {}, expected a string",
                    member.node.kind()
                ),
            ),
        }
    }

    fn unknown_keys(&mut self, name: &str, keys: &[Member]) {
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
            known.push(spelling::TYPE_KEY);
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
            self.report(offset, "MCP206", message);
        }
    }

    fn windows(&mut self, name: &str, program: &str, at: usize, args: &[(String, usize)]) {
        if !self.client.fields.wrap_windows {
            return;
        }
        let plain: Vec<String> = args.iter().map(|(a, _)| a.clone()).collect();
        if entry::needs_wrap(program, &plain) {
            let wrapped = format!("`cmd /c {program} ...`");
            if self.os == Os::Windows {
                self.report_as(
                    at,
                    "MCP301",
                    Severity::Error,
                    format!("`{program}` is a batch shim on Windows and {} cannot start it (server `{name}`); write {wrapped} (fixable)", self.name()),
                );
            } else if self.scope == Scope::Project {
                self.report_as(
                    at,
                    "MCP301",
                    Severity::Warning,
                    format!("`{program}` fails to start for teammates on Windows without {wrapped} (server `{name}`); `cmd /c` in turn fails on macOS and Linux"),
                );
            }
        } else if entry::is_wrapped(program, &plain) {
            if self.os != Os::Windows {
                let (severity, message) = if self.scope == Scope::Project {
                    (
                        Severity::Warning,
                        format!(
                            "`cmd /c` fails for teammates on macOS and Linux (server `{name}`); without it the command fails on Windows"
                        ),
                    )
                } else {
                    (
                        Severity::Error,
                        format!(
                            "`cmd` does not exist on {} (server `{name}`); drop the `cmd /c` wrapper (fixable)",
                            self.os.as_str()
                        ),
                    )
                };
                self.report_as(at, "MCP302", severity, message);
            }
            let slashes = plain.iter().take_while(|a| a.starts_with('/')).count();
            for (arg, offset) in args.iter().skip(slashes + 1) {
                if !entry::cmd_metachar_args(std::slice::from_ref(arg)).is_empty() {
                    self.report(
                        *offset,
                        "MCP304",
                        format!("an argument of server `{name}` has characters `cmd /c` re-interprets (`&|<>^%!\"`); pass it through `env` instead"),
                    );
                }
            }
        }
    }

    fn unpinned(&mut self, name: &str, program: &str, args: &[(String, usize)]) {
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
                    "MCP402",
                    format!("server `{name}` runs `{arg}` unpinned: every start may fetch a new release; pin it as `{}@VERSION`", arg.trim_end_matches("@latest")),
                );
            }
            return;
        }
    }

    fn secret_args(&mut self, name: &str, args: &[(String, usize)]) {
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

    fn secret_url(&mut self, name: &str, key: &str, url: &str, offset: usize) {
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

    fn secret_value(
        &mut self,
        name: &str,
        map: &str,
        key: &str,
        value: &str,
        offset: usize,
        what: &str,
    ) {
        if vars::is_reference(value) {
            return;
        }
        // What is written literally; references around it are no secret.
        let literal = vars::literal_text(value);
        let bearer = value
            .strip_prefix("Bearer ")
            .or_else(|| value.strip_prefix("bearer "))
            .map(|t| vars::literal_text(t.trim()));
        let kind = pattern_secret(value)
            .or_else(|| {
                bearer
                    .filter(|t| t.trim().len() >= 8)
                    .map(|_| "a literal `Bearer` token")
            })
            .or_else(|| secret_name(key).then(|| entropy_secret(&literal)).flatten());
        if let Some(kind) = kind {
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

    fn report_secret(&mut self, offset: usize, message: String) {
        let severity = if self.scope == Scope::Project {
            Severity::Error
        } else {
            Severity::Warning
        };
        self.report_as(
            offset,
            "MCP401",
            severity,
            format!("{message}, and rotate the exposed value"),
        );
    }

    /// How this client references a variable named `variable`.
    fn suggest(&self, variable: &str, what: &str) -> String {
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

    fn references(&mut self, name: &str, node: &Node) {
        let Some(syntax) = self.client.fields.var_syntax else {
            return;
        };
        let mut strings = Vec::new();
        collect_strings(node, &mut strings);
        for (text, offset) in strings {
            for reference in vars::references(&text) {
                let variable = reference.name.as_str();
                let problem = match (reference.syntax, syntax) {
                    (vars::Syntax::Input, VarSyntax::Vscode) => {
                        if self.inputs.iter().any(|i| i == variable) {
                            None
                        } else {
                            self.report(
                                offset,
                                "MCP502",
                                format!("`${{input:{variable}}}` in server `{name}` has no `inputs` entry with `\"id\": \"{variable}\"`"),
                            );
                            continue;
                        }
                    }
                    (vars::Syntax::DollarEnv, VarSyntax::Editor | VarSyntax::Vscode)
                    | (vars::Syntax::BraceEnv, VarSyntax::Opencode)
                    | (vars::Syntax::Dollar, VarSyntax::Shell) => None,
                    (vars::Syntax::Dollar, VarSyntax::Editor | VarSyntax::Vscode)
                        if EDITOR_VARIABLES.contains(&variable) =>
                    {
                        None
                    }
                    _ => Some(variable.to_owned()),
                };
                if let Some(variable) = problem {
                    let want = match syntax {
                        VarSyntax::Shell => format!("write `${{{variable}}}`"),
                        VarSyntax::Editor | VarSyntax::Vscode => {
                            format!("write `${{env:{variable}}}`")
                        }
                        VarSyntax::Opencode => format!("write `{{env:{variable}}}`"),
                        VarSyntax::Codex => {
                            format!("Codex expands no variables: list `{variable}` in `env_vars`")
                        }
                    };
                    self.report(
                        offset,
                        "MCP501",
                        format!("`{}` in server `{name}` is not expanded by {}: the server gets it literally; {want}", written(&reference), self.name()),
                    );
                    break;
                }
            }
        }
    }

    fn home_paths(&mut self, name: &str, node: &Node) {
        let mut strings = Vec::new();
        collect_strings(node, &mut strings);
        for (text, offset) in strings {
            if let Some(found) = home_path(&text) {
                self.report(
                    offset,
                    "MCP303",
                    format!("server `{name}` uses `{found}`, a home directory that exists only on its author's machine; use a project-relative path"),
                );
            }
        }
    }
}

/// Editor variables that are not environment references (Cursor, VS Code).
const EDITOR_VARIABLES: &[&str] = &[
    "workspaceFolder",
    "workspaceFolderBasename",
    "userHome",
    "pathSeparator",
    "cwd",
    "/",
];

/// A reference as a message shows it (without a `:-default`).
fn written(reference: &vars::Reference) -> String {
    let name = &reference.name;
    match reference.syntax {
        vars::Syntax::Dollar => format!("${{{name}}}"),
        vars::Syntax::DollarEnv => format!("${{env:{name}}}"),
        vars::Syntax::Input => format!("${{input:{name}}}"),
        vars::Syntax::BraceEnv => format!("{{env:{name}}}"),
    }
}

fn collect_strings(node: &Node, out: &mut Vec<(String, usize)>) {
    match &node.value {
        Value::String(s) => out.push((s.clone(), node.start)),
        Value::Array(items) => items.iter().for_each(|i| collect_strings(i, out)),
        Value::Object(members) => members.iter().for_each(|m| collect_strings(&m.node, out)),
        Value::Null | Value::Bool | Value::Number => {}
    }
}

fn describe_empty(node: &Node) -> &'static str {
    match &node.value {
        Value::String(_) => "empty",
        Value::Array(items) if items.is_empty() => "an empty list",
        _ => node.kind(),
    }
}

fn url_path(url: &str) -> &str {
    let without_query = url.split(['?', '#']).next().unwrap_or(url);
    without_query.trim_end_matches('/')
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
fn secret_name(name: &str) -> bool {
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
fn pattern_secret(value: &str) -> Option<&'static str> {
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

/// `/Users/alice/...`, `/home/bob/...`, `C:\Users\carol\...` at the start of a value or
/// after `=`.
fn home_path(text: &str) -> Option<String> {
    let starts = std::iter::once(0).chain(text.match_indices('=').map(|(i, _)| i + 1));
    for start in starts {
        let rest = &text[start..];
        let unix = ["/Users/", "/home/"]
            .iter()
            .find_map(|p| rest.strip_prefix(p).map(|r| (*p, r)));
        let windows = rest
            .get(..9)
            .filter(|head| {
                let b = head.as_bytes();
                b[0].is_ascii_alphabetic()
                    && b[1] == b':'
                    && (b[2] == b'\\' || b[2] == b'/')
                    && head[3..8].eq_ignore_ascii_case("users")
                    && (b[8] == b'\\' || b[8] == b'/')
            })
            .map(|head| (head, &rest[9..]));
        if let Some((prefix, after)) = unix.or(windows) {
            let user: String = after
                .chars()
                .take_while(|c| !matches!(c, '/' | '\\'))
                .collect();
            if !user.is_empty()
                && user != "Shared"
                && !user.starts_with('$')
                && !user.starts_with('{')
            {
                return Some(format!("{prefix}{user}"));
            }
        }
    }
    None
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
    fn home_paths_and_loopback() {
        assert_eq!(
            home_path("/Users/alice/src/x").as_deref(),
            Some("/Users/alice")
        );
        assert_eq!(
            home_path("--root=/home/bob/x").as_deref(),
            Some("/home/bob")
        );
        assert_eq!(
            home_path("C:\\Users\\carol\\x").as_deref(),
            Some("C:\\Users\\carol")
        );
        assert_eq!(home_path("https://x/home/y"), None);
        assert_eq!(home_path("./data"), None);
        assert!(
            is_loopback("localhost:3000/mcp")
                && is_loopback("127.0.0.1/x")
                && is_loopback("[::1]:80/")
        );
        assert!(!is_loopback("example.com/mcp"));
    }
}
