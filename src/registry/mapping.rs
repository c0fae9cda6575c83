//! `server.json` → the canonical `ServerEntry`: choose the form (a remote, or one of the
//! packages), build the command line, and fill every input through a caller-given
//! [`Ask`] → [`Answer`] function. Pure: no I/O, no prompts, no client spelling (`add`
//! respells `${VAR}` for each client and wraps `cmd /c` for Windows afterwards).

use indexmap::IndexMap;
use serde_json::Map;

use super::schema::{Argument, Input, KeyValueInput, Package, Remote, ServerJson};
use crate::clients::TransportName;
use crate::entry::{RemoteKind, ServerEntry, StringMap, Transport};

/// Package types the registry knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PackageType {
    Npm,
    Pypi,
    Oci,
    Nuget,
    // A Rust crate (registry 1.8): `cargo install --locked CRATE@VERSION`, then the binary.
    Cargo,
    Mcpb,
}

impl PackageType {
    pub fn as_str(self) -> &'static str {
        match self {
            PackageType::Npm => "npm",
            PackageType::Pypi => "pypi",
            PackageType::Oci => "oci",
            PackageType::Nuget => "nuget",
            PackageType::Cargo => "cargo",
            PackageType::Mcpb => "mcpb",
        }
    }
}

/// What the user asked for: the best form per client, a remote, or one package type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preference {
    Auto,
    Remote,
    Package(PackageType),
}

/// The chosen way to run a server: an index into `remotes` or `packages`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Form {
    Remote(usize),
    Package(usize),
}

impl Form {
    /// `remote` or the package type, as `search` and provenance say it.
    pub fn label(self, server: &ServerJson) -> String {
        match self {
            Form::Remote(_) => "remote".to_owned(),
            Form::Package(i) => server
                .packages
                .get(i)
                .map_or_else(|| "package".to_owned(), |p| p.registry_type.clone()),
        }
    }
}

/// How a registry entry cannot become a client entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    #[error(
        "`{name}` is distributed only as an MCP bundle (mcpb), which mcpctl cannot install yet"
    )]
    Mcpb { name: String, url: String },
    #[error("`{name}` has no remote endpoint; it installs as {forms}")]
    NoRemote { name: String, forms: String },
    #[error("`{name}` has no {kind} package; it installs as {forms}")]
    NoPackage {
        name: String,
        kind: &'static str,
        forms: String,
    },
    #[error("`{name}` lists neither packages nor remotes: there is nothing to run")]
    Nothing { name: String },
    #[error(
        "`{name}`'s {kind} package serves HTTP at `{url}` once started; mcpctl cannot start it for a client"
    )]
    ServesHttp {
        name: String,
        kind: String,
        url: String,
    },
    #[error("`{name}` uses package type `{kind}`, which mcpctl does not know")]
    UnknownPackage { name: String, kind: String },
    #[error("`{name}` has a remote of type `{kind}`, which mcpctl does not know")]
    UnknownRemote { name: String, kind: String },
    #[error("inputs are missing or refused")]
    Inputs,
    #[error("`{name}`'s entry has a control character in {what}; mcpctl will not write it")]
    ControlCharacter { name: String, what: String },
    #[error("`{name}` is refused: {why}")]
    Refused { name: String, why: String },
}

impl MapError {
    /// What to do about it.
    pub fn hint(&self) -> String {
        match self {
            MapError::Mcpb { url, .. } => format!(
                "download the bundle from {url} and open it in Claude Desktop, which installs bundles itself"
            ),
            MapError::NoRemote { .. } | MapError::NoPackage { .. } => {
                "drop `--remote`/`--package`, or pick one of the forms listed".to_owned()
            }
            MapError::ServesHttp { url, .. } => {
                format!("start the server yourself, then `mcpctl add NAME --url {url}`")
            }
            MapError::Refused { .. } => "nothing was written; registry data cannot be trusted with that (report it to the publisher, or add the server by hand if you trust it)".to_owned(),
            _ => "install it by hand with `mcpctl add NAME -- COMMAND` or `--url URL`".to_owned(),
        }
    }
}

/// The forms a server offers, for messages: `npm, oci, remote`.
pub fn forms(server: &ServerJson) -> String {
    let mut out: Vec<String> = server
        .packages
        .iter()
        .map(|p| p.registry_type.clone())
        .collect();
    if !server.remotes.is_empty() {
        out.push("remote".to_owned());
    }
    out.dedup();
    if out.is_empty() {
        "nothing".to_owned()
    } else {
        out.join(", ")
    }
}

fn remote_transport(kind: &str) -> Option<TransportName> {
    match kind {
        "streamable-http" | "http" => Some(TransportName::Http),
        "sse" => Some(TransportName::Sse),
        _ => None,
    }
}

/// The form for one client: `speaks` says which transports the client's file can hold.
/// A remote is preferred where the client speaks HTTP (Streamable HTTP over SSE), a
/// package otherwise; `--remote`/`--package` override.
pub fn choose(
    server: &ServerJson,
    preference: Preference,
    speaks: &dyn Fn(TransportName) -> bool,
) -> Result<Form, MapError> {
    let name = || server.name.clone();
    let mut remotes: Vec<(usize, &Remote)> = server.remotes.iter().enumerate().collect();
    // Streamable HTTP first, then whatever the client can take.
    remotes.sort_by_key(|(_, r)| {
        let t = remote_transport(&r.kind);
        (!t.is_some_and(speaks), t != Some(TransportName::Http))
    });
    let best_remote = remotes.first().map(|(i, _)| Form::Remote(*i));
    let usable_remote = remotes
        .iter()
        .find(|(_, r)| remote_transport(&r.kind).is_some_and(speaks))
        .map(|(i, _)| Form::Remote(*i));
    let runnable = server
        .packages
        .iter()
        .position(|p| p.registry_type != "mcpb")
        .map(Form::Package);
    match preference {
        Preference::Remote => best_remote.ok_or_else(|| MapError::NoRemote {
            name: name(),
            forms: forms(server),
        }),
        Preference::Package(PackageType::Mcpb) => Err(mcpb(server)),
        Preference::Package(kind) => server
            .packages
            .iter()
            .position(|p| p.registry_type == kind.as_str())
            .map(Form::Package)
            .ok_or_else(|| MapError::NoPackage {
                name: name(),
                kind: kind.as_str(),
                forms: forms(server),
            }),
        Preference::Auto => usable_remote
            .or(runnable)
            // A client without HTTP support gets the remote anyway: writing it then fails
            // with that client's own explanation (e.g. Claude Desktop's Connectors hint).
            .or(best_remote)
            .ok_or_else(|| {
                if server.packages.is_empty() {
                    MapError::Nothing { name: name() }
                } else {
                    mcpb(server)
                }
            }),
    }
}

fn mcpb(server: &ServerJson) -> MapError {
    MapError::Mcpb {
        name: server.name.clone(),
        url: server
            .packages
            .iter()
            .find(|p| p.registry_type == "mcpb")
            .map(|p| p.identifier.clone())
            .unwrap_or_default(),
    }
}

/// Which flag gives an input: `--env`, `--header` or `--var`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum InputKind {
    Env,
    Header,
    Var,
}

/// One input as the user names it: `--env NAME=…`, `--header NAME=…`, `--var name=…`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InputKey {
    pub kind: InputKind,
    pub name: String,
}

impl InputKey {
    /// The command-line flag that gives this input `value`.
    pub fn flag(&self, value: &str) -> String {
        let flag = match self.kind {
            InputKind::Env => "--env",
            InputKind::Header => "--header",
            InputKind::Var => "--var",
        };
        format!("{flag} {}={value}", self.name)
    }
}

/// A question to the caller: what value does this input take?
#[derive(Debug, Clone)]
pub struct Ask<'a> {
    pub key: InputKey,
    /// For messages: "environment variable `TOKEN`", "`{host}` in the URL".
    pub what: String,
    pub description: Option<&'a str>,
    /// The entry cannot be written without it.
    pub required: bool,
    pub secret: bool,
    pub default: Option<&'a str>,
    /// A variable inside a template the publisher wrote: its default is always used.
    pub templated: bool,
    pub choices: &'a [String],
    /// `number`, `boolean`, `string`, `filepath`: a given value must fit.
    pub format: Option<&'a str>,
    pub repeated: bool,
    /// The value a secret gets when the user gives none: a reference (`${NAME}`,
    /// `Bearer ${NAME}`), and the variable to export.
    pub reference: String,
    pub variable: String,
}

/// The caller's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Values(Vec<String>),
    /// Optional and not given: leave the item out.
    Omit,
    /// Required and not available (the caller has recorded why): nothing may be written.
    Missing,
}

/// Map one form of `server` to an entry. `short` names derived secret variables
/// (`AIRTABLE_TOKEN`); `answer` supplies every input.
pub fn render(
    server: &ServerJson,
    form: Form,
    short: &str,
    answer: &mut dyn FnMut(&Ask) -> Answer,
) -> Result<ServerEntry, MapError> {
    let mut filler = Filler {
        short,
        answer,
        missing: false,
    };
    let transport = match form {
        Form::Remote(i) => {
            let remote = server.remotes.get(i).ok_or_else(|| MapError::NoRemote {
                name: server.name.clone(),
                forms: forms(server),
            })?;
            remote_entry(server, remote, &mut filler)?
        }
        Form::Package(i) => {
            let package = server.packages.get(i).ok_or_else(|| MapError::Nothing {
                name: server.name.clone(),
            })?;
            package_entry(server, package, &mut filler)?
        }
    };
    if filler.missing {
        return Err(MapError::Inputs);
    }
    refuse_control_characters(&server.name, &transport)?;
    Ok(ServerEntry {
        transport,
        extras: Map::new(),
    })
}

struct Filler<'a, 'b> {
    short: &'a str,
    answer: &'b mut dyn FnMut(&Ask) -> Answer,
    missing: bool,
}

/// `GITHUB_MCP_SERVER_TOKEN` from `github-mcp-server` and `token`.
pub fn variable_name(short: &str, input: &str) -> String {
    let mut out = String::new();
    for c in format!("{short}_{input}").chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_uppercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_owned()
}

/// `{name}` placeholders in a template (not `${NAME}` references), in order, once each.
pub(crate) fn placeholders(template: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let bytes = template.as_bytes();
    let mut i = 0;
    while let Some(open) = template[i..].find('{').map(|o| o + i) {
        let close = template[open..].find('}').map(|c| c + open);
        let Some(close) = close else { break };
        let name = &template[open + 1..close];
        let after_dollar = open > 0 && bytes[open - 1] == b'$';
        if !after_dollar
            && !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
            && !out.iter().any(|n| n == name)
        {
            out.push(name.to_owned());
        }
        i = close + 1;
    }
    out
}

impl Filler<'_, '_> {
    fn ask(&mut self, ask: &Ask) -> Option<Vec<String>> {
        match (self.answer)(ask) {
            Answer::Values(values) => Some(values),
            Answer::Omit => None,
            Answer::Missing => {
                self.missing = true;
                None
            }
        }
    }

    /// Fill a publisher's template; `None` leaves the item out. `variable_hint` names the
    /// reference of a lone secret (`NAME={token}` → `${NAME}`).
    fn fill(
        &mut self,
        template: &str,
        variables: &IndexMap<String, Input>,
        item_required: bool,
        where_: &str,
        variable_hint: Option<&str>,
    ) -> Option<String> {
        let mut out = template.to_owned();
        let undeclared = Input {
            is_required: true,
            ..Input::default()
        };
        for name in placeholders(template) {
            let input = variables.get(&name).unwrap_or(&undeclared);
            let variable = variable_hint
                .map(str::to_owned)
                .unwrap_or_else(|| variable_name(self.short, &name));
            let ask = Ask {
                key: InputKey {
                    kind: InputKind::Var,
                    name: name.clone(),
                },
                what: format!("`{{{name}}}` in {where_}"),
                description: input.description.as_deref(),
                required: item_required || input.is_required,
                secret: input.is_secret,
                default: input.default.as_deref(),
                templated: true,
                choices: &input.choices,
                format: input.format.as_deref(),
                repeated: false,
                reference: format!("${{{variable}}}"),
                variable,
            };
            let value = self.ask(&ask)?.into_iter().next()?;
            out = out.replace(&format!("{{{name}}}"), &value);
        }
        Some(out)
    }

    /// An input with no template: its own value comes from the user.
    fn own_value(
        &mut self,
        key: InputKey,
        what: String,
        input: &Input,
        repeated: bool,
        reference: (String, String),
    ) -> Option<Vec<String>> {
        let (reference, variable) = reference;
        let ask = Ask {
            key,
            what,
            description: input.description.as_deref(),
            required: input.is_required,
            secret: input.is_secret,
            default: input.default.as_deref(),
            templated: false,
            choices: &input.choices,
            format: input.format.as_deref(),
            repeated,
            reference,
            variable,
        };
        self.ask(&ask).filter(|v| !v.is_empty())
    }

    /// Environment variables: name → value (template or input).
    fn env(&mut self, items: &[KeyValueInput]) -> StringMap {
        let mut env = StringMap::new();
        for item in items {
            let what = format!("environment variable `{}`", item.name);
            let value = match &item.input.value {
                Some(template) => self.fill(
                    template,
                    &item.input.variables,
                    item.input.is_required,
                    &what,
                    Some(&item.name),
                ),
                None => self
                    .own_value(
                        InputKey {
                            kind: InputKind::Env,
                            name: item.name.clone(),
                        },
                        what,
                        &item.input,
                        false,
                        (format!("${{{}}}", item.name), item.name.clone()),
                    )
                    .and_then(|v| v.into_iter().next()),
            };
            if let Some(value) = value {
                env.insert(item.name.clone(), value);
            }
        }
        env
    }

    /// Arguments in order; `skip` drops the ones the caller already writes (docker's own).
    fn args(
        &mut self,
        items: &[Argument],
        skip: &dyn Fn(&Argument, Option<&str>) -> bool,
        env: &mut StringMap,
        docker: bool,
    ) -> Vec<String> {
        let mut out = Vec::new();
        for (n, arg) in items.iter().enumerate() {
            let named = arg.kind == "named";
            let flag = arg.name.clone().unwrap_or_default();
            let label = if named {
                flag.trim_start_matches('-').to_owned()
            } else {
                arg.value_hint
                    .clone()
                    .unwrap_or_else(|| format!("arg{}", n + 1))
            };
            let what = if named {
                format!("argument `{flag}`")
            } else {
                format!("argument `{label}`")
            };
            let boolean = arg.input.format.as_deref() == Some("boolean");
            let values: Vec<String> = match &arg.input.value {
                Some(template) => {
                    if skip(arg, Some(template)) {
                        continue;
                    }
                    // `-e NAME={token}`: the secret's variable is NAME itself.
                    let hint = (docker && is_env_flag(&flag))
                        .then(|| template.split_once('='))
                        .flatten()
                        .filter(|(_, rest)| placeholders(rest).len() == 1)
                        .map(|(name, _)| name.to_owned());
                    match self.fill(
                        template,
                        &arg.input.variables,
                        arg.input.is_required,
                        &what,
                        hint.as_deref(),
                    ) {
                        Some(v) => vec![v],
                        None => continue,
                    }
                }
                None => {
                    if skip(arg, None) {
                        continue;
                    }
                    let variable = variable_name(self.short, &label);
                    match self.own_value(
                        InputKey {
                            kind: InputKind::Var,
                            name: label.clone(),
                        },
                        what,
                        &arg.input,
                        arg.is_repeated,
                        (format!("${{{variable}}}"), variable),
                    ) {
                        Some(v) => v,
                        None => continue,
                    }
                }
            };
            for value in values {
                if !named {
                    out.push(value);
                    continue;
                }
                if boolean {
                    if value.eq_ignore_ascii_case("true") {
                        out.push(flag.clone());
                    }
                    continue;
                }
                // docker `-e NAME=${REF}`: the container gets NAME from docker's own
                // environment, so the reference lives in `env` (Codex can pass it through).
                if docker
                    && is_env_flag(&flag)
                    && let Some((name, rest)) = value.split_once('=')
                    && !crate::vars::references(rest).is_empty()
                {
                    env.insert(name.to_owned(), rest.to_owned());
                    out.extend([flag.clone(), name.to_owned()]);
                    continue;
                }
                out.extend([flag.clone(), value]);
            }
        }
        out
    }
}

fn is_env_flag(flag: &str) -> bool {
    flag == "-e" || flag == "--env"
}

fn package_entry(
    server: &ServerJson,
    package: &Package,
    filler: &mut Filler<'_, '_>,
) -> Result<Transport, MapError> {
    let kind = package.registry_type.as_str();
    if kind == "mcpb" {
        return Err(mcpb(server));
    }
    if let Some(t) = package.transport.kind.as_deref()
        && t != "stdio"
    {
        return Err(MapError::ServesHttp {
            name: server.name.clone(),
            kind: kind.to_owned(),
            url: package.transport.url.clone().unwrap_or_default(),
        });
    }
    let id = &package.identifier;
    let version = package.version.as_deref().filter(|v| !v.is_empty());
    let refused = |why: String| MapError::Refused {
        name: server.name.clone(),
        why,
    };
    super::validate::identifier(kind, id).map_err(refused)?;
    if let Some(v) = version {
        super::validate::version(kind, v).map_err(refused)?;
    }
    if let Some(base) = &package.registry_base_url {
        super::validate::base_url(base).map_err(refused)?;
    }
    let no_skip = |_: &Argument, _: Option<&str>| false;
    let mut env = StringMap::new();
    let (command, args) = match kind {
        "npm" => {
            let runtime = filler.args(&package.runtime_arguments, &no_skip, &mut env, false);
            env.extend(filler.env(&package.environment_variables));
            let mut args = vec!["-y".to_owned()];
            if let Some(base) = &package.registry_base_url
                && base.trim_end_matches('/') != "https://registry.npmjs.org"
            {
                args.push(format!("--registry={base}"));
            }
            args.extend(runtime);
            args.push(version.map_or_else(|| id.clone(), |v| format!("{id}@{v}")));
            args.extend(filler.args(&package.package_arguments, &no_skip, &mut env, false));
            ("npx", args)
        }
        "pypi" => {
            let mut args = filler.args(&package.runtime_arguments, &no_skip, &mut env, false);
            env.extend(filler.env(&package.environment_variables));
            args.push(version.map_or_else(|| id.clone(), |v| format!("{id}=={v}")));
            args.extend(filler.args(&package.package_arguments, &no_skip, &mut env, false));
            ("uvx", args)
        }
        "nuget" => {
            let mut args = filler.args(&package.runtime_arguments, &no_skip, &mut env, false);
            env.extend(filler.env(&package.environment_variables));
            args.push(version.map_or_else(|| id.clone(), |v| format!("{id}@{v}")));
            args.push("--yes".to_owned());
            let rest = filler.args(&package.package_arguments, &no_skip, &mut env, false);
            if !rest.is_empty() {
                args.push("--".to_owned());
                args.extend(rest);
            }
            ("dnx", args)
        }
        "oci" => {
            let image = image_ref(id, version);
            let bare = strip_tag(id).to_owned();
            // What mcpctl writes itself: `run -i --rm` and the image.
            let skip = |arg: &Argument, value: Option<&str>| {
                let flag = arg.name.as_deref().unwrap_or_default();
                let truthy = value.is_none_or(|v| v.eq_ignore_ascii_case("true"));
                match arg.kind.as_str() {
                    "named" => {
                        matches!(flag, "-i" | "--interactive" | "--rm")
                            && (truthy || arg.input.format.as_deref() != Some("boolean"))
                    }
                    _ => value.is_some_and(|v| v == "run" || v == image || v == bare || v == id),
                }
            };
            let mut args = vec!["run".to_owned(), "-i".to_owned(), "--rm".to_owned()];
            args.extend(filler.args(&package.runtime_arguments, &skip, &mut env, true));
            let declared = filler.env(&package.environment_variables);
            for name in declared.keys() {
                args.extend(["-e".to_owned(), name.clone()]);
            }
            env.extend(declared);
            args.push(image);
            args.extend(filler.args(&package.package_arguments, &no_skip, &mut env, false));
            ("docker", args)
        }
        // The crate's binary, once `cargo install` (see `cargo_install`) put it on PATH
        // (`~/.cargo/bin`); it is named like the crate.
        "cargo" => {
            env.extend(filler.env(&package.environment_variables));
            let args = filler.args(&package.package_arguments, &no_skip, &mut env, false);
            (id.as_str(), args)
        }
        other => {
            return Err(MapError::UnknownPackage {
                name: server.name.clone(),
                kind: other.to_owned(),
            });
        }
    };
    Ok(Transport::Stdio {
        command: command.to_owned(),
        args,
        env,
        cwd: None,
    })
}

/// The `cargo` arguments that install a `cargo` package's binary before the entry can run
/// it: `install --locked CRATE@VERSION` (the lock file the crate was published with, so
/// the build is the one its author tested); `None` for every other package type.
pub fn cargo_install(package: &Package) -> Option<Vec<String>> {
    (package.registry_type == "cargo").then(|| {
        let spec = match package.version.as_deref().filter(|v| !v.is_empty()) {
            Some(version) => format!("{}@{version}", package.identifier),
            None => package.identifier.clone(),
        };
        vec!["install".to_owned(), "--locked".to_owned(), spec]
    })
}

/// `name:tag` or `name@sha256:…` stays; a bare name gets the package version as its tag.
fn image_ref(id: &str, version: Option<&str>) -> String {
    if strip_tag(id) != id {
        return id.to_owned();
    }
    match version {
        Some(v) => format!("{id}:{v}"),
        None => id.to_owned(),
    }
}

fn strip_tag(id: &str) -> &str {
    if let Some(at) = id.find('@') {
        return &id[..at];
    }
    let last = id.rfind('/').map_or(0, |s| s + 1);
    match id[last..].rfind(':') {
        Some(colon) => &id[..last + colon],
        None => id,
    }
}

fn remote_entry(
    server: &ServerJson,
    remote: &Remote,
    filler: &mut Filler<'_, '_>,
) -> Result<Transport, MapError> {
    let kind = match remote_transport(&remote.kind) {
        Some(TransportName::Sse) => RemoteKind::Sse,
        Some(_) => RemoteKind::Http,
        None => {
            return Err(MapError::UnknownRemote {
                name: server.name.clone(),
                kind: remote.kind.clone(),
            });
        }
    };
    let url = filler
        .fill(&remote.url, &remote.variables, true, "the URL", None)
        .unwrap_or_default();
    if !url.is_empty() {
        super::validate::remote_url(&url).map_err(|why| MapError::Refused {
            name: server.name.clone(),
            why,
        })?;
    }
    let mut headers = StringMap::new();
    for header in &remote.headers {
        let what = format!("header `{}`", header.name);
        let value = match &header.input.value {
            Some(template) => filler.fill(
                template,
                &header.input.variables,
                header.input.is_required,
                &what,
                None,
            ),
            None => {
                // "Bearer token with …": the secret is the token, not the whole header.
                let bearer = header.name.eq_ignore_ascii_case("authorization")
                    && header
                        .input
                        .description
                        .as_deref()
                        .is_some_and(|d| d.to_ascii_lowercase().contains("bearer"));
                let reference = if bearer {
                    let variable = variable_name(filler.short, "token");
                    (format!("Bearer ${{{variable}}}"), variable)
                } else {
                    let variable = variable_name(filler.short, &header.name);
                    (format!("${{{variable}}}"), variable)
                };
                filler
                    .own_value(
                        InputKey {
                            kind: InputKind::Header,
                            name: header.name.clone(),
                        },
                        what,
                        &header.input,
                        false,
                        reference,
                    )
                    .and_then(|v| v.into_iter().next())
            }
        };
        if let Some(value) = value {
            headers.insert(header.name.clone(), value);
        }
    }
    Ok(Transport::Remote { url, kind, headers })
}

/// A registry entry is untrusted text: escape sequences or newlines in what would be
/// written (and printed) are refused rather than passed on to a config file or terminal.
fn refuse_control_characters(name: &str, transport: &Transport) -> Result<(), MapError> {
    let fields: Vec<(&str, &String)> = match transport {
        Transport::Stdio {
            command, args, env, ..
        } => std::iter::once(("the command", command))
            .chain(args.iter().map(|a| ("an argument", a)))
            .chain(
                env.iter()
                    .flat_map(|(k, v)| [("an env name", k), ("an env value", v)]),
            )
            .collect(),
        Transport::Remote { url, headers, .. } => std::iter::once(("the URL", url))
            .chain(
                headers
                    .iter()
                    .flat_map(|(k, v)| [("a header name", k), ("a header value", v)]),
            )
            .collect(),
    };
    match fields
        .iter()
        .find(|(_, text)| text.chars().any(char::is_control))
    {
        Some((what, _)) => Err(MapError::ControlCharacter {
            name: super::clean(name),
            what: (*what).to_owned(),
        }),
        None => Ok(()),
    }
}

/// The command line as a person would type it (arguments with spaces or quotes quoted).
pub fn command_line(transport: &Transport) -> String {
    match transport {
        Transport::Stdio { command, args, .. } => std::iter::once(command)
            .chain(args)
            .map(|a| {
                if !a.is_empty() && !a.contains([' ', '"', '\'', '\\', '\t']) {
                    a.clone()
                } else {
                    format!("'{}'", a.replace('\'', r"'\''"))
                }
            })
            .collect::<Vec<_>>()
            .join(" "),
        Transport::Remote { url, kind, .. } => {
            let kind = match kind {
                RemoteKind::Http => "streamable HTTP",
                RemoteKind::Sse => "SSE",
            };
            format!("{url} ({kind})")
        }
    }
}
