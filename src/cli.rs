//! Command-line types (clap derive) and their help text; nothing else.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::clients::Scope;
use crate::entry::RemoteKind;
use crate::output::ColorWhen;
use crate::platform::Os;
use crate::registry::PackageType;

/// Manage MCP server entries across every AI client on this machine, losslessly, and
/// prove they work.
#[derive(Debug, Parser)]
#[command(name = "mcpctl", version, after_help = TOP_HELP, max_term_width = 100)]
pub struct Cli {
    #[command(flatten, next_help_heading = "Global options")]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// The top-level help's groups, as `gh` groups its commands: the first session's
/// commands first, plumbing last. Every subcommand is in exactly one group (a test says
/// so), and a group's line for a command is the command's own one-line about.
pub const GROUPS: &[(&str, &[&str])] = &[
    (
        "Everyday commands",
        &[
            "clients", "add", "list", "doctor", "remove", "disable", "enable",
        ],
    ),
    ("A server up close", &["tools", "call", "budget", "check"]),
    (
        "Teams: one manifest for every client",
        &[
            "plan", "apply", "profiles", "import", "export", "copy", "lock",
        ],
    ),
    ("The MCP Registry", &["search", "outdated", "update"]),
    ("Signing in and secrets", &["login", "logout", "secret"]),
    ("History", &["backups", "restore", "undo", "redo"]),
    (
        "Plumbing: what clients start, shell set-up",
        &["run", "bridge", "completions", "man"],
    ),
];

/// The command line as clap parses it, with the top-level help grouped by [`GROUPS`].
#[must_use]
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let command = Cli::command();
    let width = GROUPS
        .iter()
        .flat_map(|(_, names)| names.iter())
        .map(|name| name.len())
        .max()
        .unwrap_or(0);
    let mut listing = String::new();
    for (heading, names) in GROUPS {
        listing.push_str(heading);
        listing.push_str(":\n");
        for name in *names {
            let about = command
                .find_subcommand(name)
                .and_then(clap::Command::get_about)
                .map(ToString::to_string)
                .unwrap_or_default();
            listing.push_str(&format!("  {name:width$}  {about}\n"));
        }
        listing.push('\n');
    }
    let command = command.help_template(format!(
        "{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n{listing}Global options:\n{{options}}\n\n{TOP_EXAMPLES}{{after-help}}"
    ));
    examples_unwrapped(command)
}

/// The command line for `man`: the top page keeps its examples in `after_help` (a man
/// page's text is laid out by `man`, not clap).
#[must_use]
pub fn man_command() -> clap::Command {
    use clap::CommandFactory;
    Cli::command().after_help(format!("{TOP_EXAMPLES}\n\n{TOP_HELP}"))
}

/// A subcommand's help as clap lays it out, before the examples.
const SUBCOMMAND_TEMPLATE: &str =
    "{before-help}{about-with-newline}\n{usage-heading} {usage}\n\n{all-args}";

/// Every subcommand's `Examples:` block (its `after_help` up to the first blank line)
/// printed as written: clap wraps `after_help` to the terminal, which broke example lines
/// inside a quoted argument; the text of a help template is printed as it is. The prose
/// after the examples stays `after_help`, wrapped.
fn examples_unwrapped(mut command: clap::Command) -> clap::Command {
    let names: Vec<String> = command
        .get_subcommands()
        .map(|sub| sub.get_name().to_owned())
        .collect();
    for name in names {
        command = command.mut_subcommand(name, |sub| {
            let sub = examples_unwrapped(sub);
            let after = sub.get_after_help().map(ToString::to_string);
            let Some(examples) = after.as_deref().and_then(|a| a.strip_prefix("Examples:\n"))
            else {
                return sub;
            };
            let (examples, prose) = examples.split_once("\n\n").unwrap_or((examples, ""));
            let sub = sub.help_template(format!(
                "{SUBCOMMAND_TEMPLATE}\n\nExamples:\n{examples}{{after-help}}"
            ));
            if prose.is_empty() {
                sub.after_help(None::<&str>)
            } else {
                // One line per paragraph: clap wraps it to the terminal, without the
                // source's own line ends making it ragged.
                let paragraphs: Vec<String> = prose
                    .split("\n\n")
                    .map(|p| p.lines().collect::<Vec<_>>().join(" "))
                    .collect();
                sub.after_help(paragraphs.join("\n\n"))
            }
        });
    }
    command
}

/// The top-level help's examples, printed as written (see [`examples_unwrapped`]).
const TOP_EXAMPLES: &str = "Examples:
  mcpctl clients
  mcpctl add memory -c cursor,claude-code -- npx -y @modelcontextprotocol/server-memory
  mcpctl list
  mcpctl doctor";

const TOP_HELP: &str = concat!(
    "`mcpctl COMMAND --help` gives a command's options and examples.

",
    crate::exit_codes_help!()
);

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Print machine-readable JSON instead of tables
    #[arg(long, global = true)]
    pub json: bool,
    /// Resolve paths and Windows wrapping as on this OS. On another OS than this
    /// machine's, commands that write need `--dry-run` (see what would be written) or
    /// `--force-platform`
    #[arg(
        long,
        global = true,
        value_enum,
        env = "MCPCTL_PLATFORM",
        value_name = "OS"
    )]
    pub platform: Option<Os>,
    /// Write files as `--platform` says although this machine runs another OS (a home
    /// directory shared with or synced to that OS)
    #[arg(long, global = true, env = "MCPCTL_FORCE_PLATFORM", value_parser = clap::builder::BoolishValueParser::new())]
    pub force_platform: bool,
    /// Extra client table rows (TOML, same shape as clients.toml); same id replaces
    #[arg(
        long = "clients",
        global = true,
        env = "MCPCTL_CLIENTS",
        value_name = "FILE"
    )]
    pub clients_file: Option<PathBuf>,
    /// Project directory for project and local scopes [default: current directory]
    #[arg(long, global = true, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Never prompt; fail where a choice is needed
    #[arg(long, global = true)]
    pub no_input: bool,
    /// When to use colour
    #[arg(long, global = true, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
    pub color: ColorWhen,
    /// Print only data and errors
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Known clients: detected or not, where their config file is, how many servers
    Clients(ClientsArgs),
    /// Servers configured in each client (secrets redacted)
    List(ListArgs),
    /// Add a server to one or more clients
    Add(Box<AddArgs>),
    /// Remove a server from one or more clients
    Remove(RemoveArgs),
    /// Switch a server off without losing it (or some of its tools: --deny-tools)
    Disable(DisableArgs),
    /// Switch a disabled server back on, byte for byte (or some of its tools)
    Enable(EnableArgs),
    /// Check every configured server: static checks, then a real MCP handshake
    Doctor(DoctorArgs),
    /// Lint MCP config files (no process started, no network); for CI and pre-commit
    Check(CheckArgs),
    /// A server's tools: parameters, annotations, and the tokens their definitions cost
    Tools(ToolsArgs),
    /// Record each server's tools (digests, tokens) in mcpctl.lock; doctor reports changes
    Lock(LockArgs),
    /// Call one tool of a server and print what it returns
    Call(CallArgs),
    /// What the servers each client loads cost its context; --max N cuts it to N
    Budget(BudgetArgs),
    /// What `apply` would change to make every client match the manifest (mcpctl.toml)
    Plan(PlanArgs),
    /// Make every client's file match the manifest; all files or none
    Apply(ApplyArgs),
    /// The manifest's profiles, and the tokens each one's tool definitions cost per client
    Profiles(ProfilesArgs),
    /// Write a manifest from the servers installed in your clients
    Import(ImportArgs),
    /// Print the manifest as a vendor's MCP allow-list (Claude Code, Copilot, Codex) for MDM
    Export(ExportArgs),
    /// Copy one server from one client into others, spelled the way each expects
    Copy(CopyArgs),
    /// Search the MCP Registry: name, version, how it runs, description
    Search(SearchArgs),
    /// Registry-installed servers with a newer version in the registry
    Outdated(OutdatedArgs),
    /// Rewrite a registry-installed server with the newest version, in place
    Update(UpdateArgs),
    /// Previous versions mcpctl kept of the files it wrote
    Backups(BackupsArgs),
    /// Put a previous version of a client's file back (the current one is kept too)
    Restore(RestoreArgs),
    /// Revert every file the last writing command changed (again: the one before)
    Undo(UndoArgs),
    /// Re-apply what the last `undo` took back
    Redo(RedoArgs),
    /// Sign in to a remote server (OAuth) once, for every client; the tokens go to the secret store
    Login(LoginArgs),
    /// Sign out of a remote server: revoke its tokens where it can, and forget them
    Logout(LogoutArgs),
    /// Secrets kept out of config files: in the OS keychain or your password manager
    #[command(
        subcommand,
        after_help = "Examples:
  mcpctl secret set github
  mcpctl add github -c cursor --secret GITHUB_TOKEN=github -- github-mcp-server stdio
  mcpctl secret list
  mcpctl secret adopt --dry-run      # literal secrets out of client files"
    )]
    Secret(SecretCommand),
    /// Start a stdio server with secrets in its environment only (what `add --secret` writes)
    Run(RunArgs),
    /// Connect a stdio client to a remote server, headers filled from the secret store
    Bridge(BridgeArgs),
    /// Print a shell completion script (client ids and server names included)
    Completions(CompletionsArgs),
    /// Print the man page (roff), or write one per command with --dir
    Man(ManArgs),
    /// Words the completion scripts offer that change with every `add`: the server names
    /// of this machine's clients, one a line (read from their files; nothing started)
    #[command(name = "__complete", hide = true)]
    Complete(CompleteArgs),
}

#[derive(Debug, Args)]
pub struct CompleteArgs {
    /// Which words
    #[arg(value_enum)]
    pub what: CompleteWhat,
}

/// What `mcpctl __complete` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompleteWhat {
    /// The names of the servers configured in the clients detected here
    Servers,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mkdir -p ~/.local/share/man/man1
  mcpctl man > ~/.local/share/man/man1/mcpctl.1   # the top page
  mcpctl man --dir ~/.local/share/man/man1   # a page per command: man mcpctl-add")]
pub struct ManArgs {
    /// Write a page for every command into DIR (`mcpctl.1`, `mcpctl-add.1`, …; the
    /// directory is created) instead of printing the top page
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mkdir -p ~/.local/share/bash-completion/completions
  mcpctl completions bash > ~/.local/share/bash-completion/completions/mcpctl
  mcpctl completions zsh > \"${fpath[1]}/_mcpctl\"
  mcpctl completions fish > ~/.config/fish/completions/mcpctl.fish
  mcpctl completions powershell >> $PROFILE

The scripts complete commands, flags and client ids. Those of bash, zsh and fish also complete server names (`remove`, `doctor`, `tools`, …): they ask mcpctl for them when you press TAB, which reads the config files and starts nothing.")]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Which manifest, and which profile of it.
#[derive(Debug, Args, Clone)]
pub struct ManifestArgs {
    /// The manifest [default: ./mcpctl.toml if present, else the user manifest]
    #[arg(long, env = "MCPCTL_MANIFEST", value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// Use this `[profiles.NAME]` instead of the manifest's `profile`
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Let the project's own mcpctl.toml write files outside the project (user scope)
    #[arg(long)]
    pub trust_project: bool,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl profiles                      # every profile, its servers and tokens
  mcpctl profiles --profile frontend --json

Token estimates come from the last `mcpctl doctor` or `mcpctl tools` run of each server;
a server never measured shows as unknown.")]
pub struct ProfilesArgs {
    #[command(flatten)]
    pub manifest: ManifestArgs,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl plan
  mcpctl plan --manifest team.toml --profile frontend
  mcpctl plan --check --format github   # CI: exit 1 when out of sync")]
pub struct PlanArgs {
    #[command(flatten)]
    pub manifest: ManifestArgs,
    /// Exit 1 unless every entry is in sync (for CI); works without a ledger
    #[arg(long)]
    pub check: bool,
    /// Output format (github and sarif annotate the files that are out of sync)
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl apply --dry-run                   # the plan and each file's diff
  mcpctl apply
  mcpctl apply --profile frontend --force  # the manifest wins over hand edits
  mcpctl apply --exit-code                 # exit 1 when a file changed")]
pub struct ApplyArgs {
    #[command(flatten)]
    pub manifest: ManifestArgs,
    /// Print the plan and the diffs; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Let the manifest win over hand-made and hand-edited entries
    #[arg(long)]
    pub force: bool,
    /// Exit 1 when a client file was changed (with --dry-run: would be), 0 when nothing
    /// was, 2 on error: for Ansible `changed_when`, chezmoi and other engines
    #[arg(long)]
    pub exit_code: bool,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl export --format claude-managed > managed-settings.json
  mcpctl export --format codex-requirements > requirements.toml
  mcpctl export --format copilot-managed --platform windows

Every server the manifest sends to that client becomes an allow rule its client matches
exactly (Claude Code and Copilot: serverCommand or serverUrl; Codex: the server's name
with its executable and arguments, or its URL), so servers outside the manifest are blocked. Deploy the file
at the client's system path (docs/guide/policy.md).")]
#[command(mut_arg("trust_project", |arg| arg.hide(true)))]
pub struct ExportArgs {
    // `--trust-project` is not shown: `export` only prints, so there is nothing for a
    // project's manifest to be trusted with.
    #[command(flatten)]
    pub manifest: ManifestArgs,
    /// Which vendor's policy file to print
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: crate::policy::PolicyKind,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl import > mcpctl.toml
  mcpctl import -c cursor,claude-code --scope project > mcpctl.toml
  mcpctl import --manifest team.toml --store-secrets  # secrets to the keychain")]
pub struct ImportArgs {
    /// Client id (repeat or separate with commas) [default: detected clients]
    #[arg(short = 'c', long = "client", value_delimiter = ',', value_name = "ID")]
    pub clients: Vec<String>,
    /// Which files to import from
    #[arg(long, value_enum, default_value_t = Scope::User)]
    pub scope: Scope,
    /// Extend this manifest (created if missing) instead of printing one
    #[arg(long, env = "MCPCTL_MANIFEST", value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// Copy literal secrets into the manifest instead of turning them into `${VAR}`
    #[arg(long, conflicts_with = "store_secrets")]
    pub keep_secrets: bool,
    /// Move literal secrets into mcpctl's secret store (as `secret adopt` does): the
    /// client entries start through `mcpctl run`, the manifest names them in `secrets`
    #[arg(long)]
    pub store_secrets: bool,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl copy github -c codex          # from the one client that has it
  mcpctl copy github --from cursor -c vscode,claude-code --dry-run")]
pub struct CopyArgs {
    /// Server name (as `mcpctl list` shows it)
    pub name: String,
    /// The client to copy from [default: the one detected client that has NAME, or the
    /// first of several that have it identically]
    #[arg(long, value_name = "ID")]
    pub from: Option<String>,
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Which files: the source's and the targets'
    #[arg(long, value_enum, default_value_t = Scope::User)]
    pub scope: Scope,
    /// Replace an existing entry with different content
    #[arg(long)]
    pub force: bool,
    /// Print the diff of each file; write nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// Which MCP Registry to ask.
#[derive(Debug, Args, Clone)]
pub struct RegistryArgs {
    /// MCP Registry base URL (a subregistry with the same API works too)
    /// [default: https://registry.modelcontextprotocol.io; `update`/`outdated`: the one each entry came from]
    #[arg(long = "registry", env = "MCPCTL_REGISTRY", value_name = "URL")]
    pub registry: Option<String>,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl search github
  mcpctl search filesystem --limit 5 --json
  mcpctl add io.github.upstash/context7 -c cursor   # install what search found")]
pub struct SearchArgs {
    /// Text to look for in server names
    pub text: String,
    /// At most this many results
    #[arg(long, default_value_t = 20, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=100))]
    pub limit: u16,
    #[command(flatten)]
    pub registry: RegistryArgs,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl outdated
  mcpctl outdated -c cursor --json")]
pub struct OutdatedArgs {
    /// Client id (repeat or separate with commas) [default: every client]
    #[arg(short = 'c', long = "client", value_delimiter = ',', value_name = "ID")]
    pub clients: Vec<String>,
    #[command(flatten)]
    pub registry: RegistryArgs,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl update context7 --dry-run         # the diff of each file
  mcpctl update context7 -c cursor")]
pub struct UpdateArgs {
    /// Entry name, as `list` shows it
    pub name: String,
    /// Client id (repeat or separate with commas) [default: every client it was installed in]
    #[arg(short = 'c', long = "client", value_delimiter = ',', value_name = "ID")]
    pub clients: Vec<String>,
    /// Update also an entry edited by hand since it was installed
    #[arg(long)]
    pub force: bool,
    /// Print the diff of each file; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Do not wrap npx/npm/... as `cmd /c` on Windows
    #[arg(long)]
    pub no_wrap: bool,
    #[command(flatten)]
    pub registry: RegistryArgs,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("purge_or_scrub").args(["purge_secrets", "scrub_secrets"])))]
#[command(after_help = "Examples:
  mcpctl backups
  mcpctl backups -c cursor --json
  mcpctl backups --scrub-secrets --dry-run  # backups holding a stored secret")]
pub struct BackupsArgs {
    /// Client id (repeat or separate with commas) [default: every client]
    #[arg(short = 'c', long = "client", value_delimiter = ',', value_name = "ID")]
    pub clients: Vec<String>,
    /// Delete the backups that hold a literal secret (what `secret adopt` left behind);
    /// `undo` cannot use them afterwards
    #[arg(long, conflicts_with = "scrub_secrets")]
    pub purge_secrets: bool,
    /// In the backups that hold the value of a secret the store keeps, replace it by the
    /// secret's name (as `secret adopt` writes the entry); `undo` and `restore` keep
    /// working and put back the scrubbed versions
    #[arg(long)]
    pub scrub_secrets: bool,
    /// With --purge-secrets or --scrub-secrets: list what would change; change nothing
    #[arg(long, requires = "purge_or_scrub")]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl restore -c cursor --dry-run   # the newest backup, as a diff
  mcpctl restore -c cursor --backup 2
  mcpctl restore -c claude-code --scope project")]
pub struct RestoreArgs {
    /// The client whose file to restore
    #[arg(short = 'c', long = "client", value_name = "ID", required = true)]
    pub client: String,
    /// Which of its files
    #[arg(long, value_enum, default_value_t = Scope::User)]
    pub scope: Scope,
    /// Which backup: 1 is the newest (see `mcpctl backups`)
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub backup: u32,
    /// Print the diff; write nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl undo --dry-run               # what the last writing command changed
  mcpctl undo
  mcpctl undo --force                 # also files edited since")]
pub struct UndoArgs {
    /// Revert even files that changed since the command wrote them
    #[arg(long)]
    pub force: bool,
    /// Print what would be reverted; write nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl redo --dry-run
  mcpctl redo")]
pub struct RedoArgs {
    /// Re-apply even over files that changed since the undo wrote them
    #[arg(long)]
    pub force: bool,
    /// Print what would be re-applied; write nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl clients
  mcpctl clients --known
  mcpctl --platform windows clients --known --json

SERVERS: the entries `mcpctl list -c ID` shows (every scope here). VERIFIED: the day
mcpctl's facts about the client (its config path and entry shape) were last checked
against the client itself or its documentation (`--json`: `verified_against` says which);
`(unverified)` when they come from a secondary source, `(stale)` after 90 days.")]
pub struct ClientsArgs {
    /// Show every client mcpctl knows, also those not detected here (`--all` in other
    /// commands means every detected client)
    #[arg(long)]
    pub known: bool,
    /// The old spelling of `--known`, kept working: `--all` elsewhere means every
    /// detected client, so it said something else here
    #[arg(long = "all", hide = true)]
    pub all: bool,
}

/// Which clients a command acts on.
#[derive(Debug, Args, Clone)]
pub struct TargetArgs {
    /// Client id (repeat or separate with commas); see `mcpctl clients`
    #[arg(short = 'c', long = "client", value_delimiter = ',', value_name = "ID")]
    pub clients: Vec<String>,
    /// Every detected client (the ones `mcpctl clients` lists; `clients --known` lists
    /// every client mcpctl knows)
    #[arg(long, conflicts_with = "clients")]
    pub all: bool,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl list
  mcpctl list github -c cursor,vscode
  mcpctl list --json | jq '.[] | select(.transport == \"http\")'")]
pub struct ListArgs {
    /// Only servers with this name
    pub name: Option<String>,
    /// Client id (repeat or separate with commas) [default: detected clients]
    #[arg(short = 'c', long = "client", value_delimiter = ',', value_name = "ID")]
    pub clients: Vec<String>,
    /// Only entries of this scope: user, project or local
    #[arg(short = 's', long, value_enum)]
    pub scope: Option<Scope>,
    /// What each client loads in this project (`--project DIR`, default the repository
    /// root), with where each row comes from and which file switches it
    #[arg(long, conflicts_with = "scope")]
    pub here: bool,
    /// Show env and header values instead of redacting them
    #[arg(long)]
    pub show_secrets: bool,
}

/// Which file `add` writes: the user's (every project), as `--scope` says it.
const SCOPE_HELP: &str = "Which file: `user` (the client's own config, every project; \
also `global`), `project` (the project's file, e.g. `.mcp.json`, shared through git) or \
`local` (this project only, inside the user file). Unlike `claude mcp add` (default \
`local`) and `gemini mcp add` (default `project`), mcpctl defaults to `user`";

#[derive(Debug, Args)]
#[command(after_help = ADD_EXAMPLES)]
pub struct AddArgs {
    /// Server name (the key in the client's servers map; optional with a `--from-json`
    /// snippet that names one server), or an MCP Registry name such as
    /// `io.github.owner/server[@VERSION]` to install from the registry
    pub name: Option<String>,
    /// A remote server's URL after NAME, as `claude mcp add --transport http NAME URL`
    #[arg(hide = true, value_name = "URL")]
    pub stray: Vec<String>,
    #[command(flatten)]
    pub targets: TargetArgs,
    #[arg(short = 's', long, value_enum, default_value_t = Scope::User, long_help = SCOPE_HELP)]
    /// Which file: user (default; every project), project or local
    pub scope: Scope,
    /// Same as `--scope user`
    #[arg(short = 'g', long, conflicts_with = "scope")]
    pub global: bool,
    /// Environment variable for a stdio server (repeatable); write secrets as `KEY=${VAR}`
    #[arg(short = 'e', long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// HTTP header for a remote server (repeatable): `-H 'Authorization: Bearer ${TOKEN}'`
    /// or `KEY=VALUE`
    #[arg(short = 'H', long = "header", value_name = "KEY: VALUE")]
    pub headers: Vec<String>,
    /// Give the server a stored secret (`mcpctl secret set NAME`): its variable ENV
    /// (or, for a URL, its header) gets the value at start-up; the file holds only the
    /// name, behind mcpctl's launcher (`mcpctl run`) or bridge
    #[arg(long = "secret", value_name = "ENV=SECRET")]
    pub secrets: Vec<String>,
    /// Working directory for a stdio server
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<String>,
    /// Remote server URL (http:// or https://)
    #[arg(long, conflicts_with = "from_json")]
    pub url: Option<String>,
    /// Transport [default: stdio with a command, http with a URL (sse when it ends in /sse)]
    #[arg(short = 't', long, value_enum, value_name = "KIND")]
    pub transport: Option<TransportArg>,
    /// The entry as JSON, as READMEs print it: `{"command":...}`, `{"mcpServers":{...}}`,
    /// VS Code's `{"servers":{...},"inputs":[...]}`; `-` reads stdin, `@FILE` a file
    #[arg(long, value_name = "JSON|-|@FILE")]
    pub from_json: Option<String>,
    /// Replace an existing entry with different content
    #[arg(long)]
    pub force: bool,
    /// Print the diff of each file (secrets redacted); write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Do not wrap npx/npm/... as `cmd /c` on Windows
    #[arg(long)]
    pub no_wrap: bool,
    /// The server command and its arguments, after `--`
    /// Sign in to the remote server (`mcpctl login NAME`, unless signed in already) and
    /// write the bridge that sends the token, for every client chosen (also one without OAuth)
    #[arg(long)]
    pub login: bool,
    /// With --login: open no browser here (SSH, containers): the device flow where the
    /// server offers it, else print the sign-in URL and read back the redirected address
    #[arg(long, requires = "login")]
    pub no_browser: bool,
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
    /// Registry server: value of a `{variable}` or argument (repeatable)
    #[arg(
        long = "var",
        value_name = "NAME=VALUE",
        help_heading = "From the MCP Registry"
    )]
    pub vars: Vec<String>,
    /// Registry server: install this package type instead of the preferred form
    #[arg(
        long,
        value_enum,
        value_name = "TYPE",
        conflicts_with = "remote",
        help_heading = "From the MCP Registry"
    )]
    pub package: Option<PackageType>,
    /// Registry server: use its remote endpoint (for every target)
    #[arg(long, help_heading = "From the MCP Registry")]
    pub remote: bool,
    /// Registry server: the entry name [default: the last segment of the registry name]
    #[arg(
        long = "name",
        value_name = "NAME",
        help_heading = "From the MCP Registry"
    )]
    pub entry_name: Option<String>,
    #[command(flatten, next_help_heading = "From the MCP Registry")]
    pub registry: RegistryArgs,
}

const ADD_EXAMPLES: &str = "Examples:
  mcpctl add memory -c cursor -- npx -y @modelcontextprotocol/server-memory
  mcpctl add docs -c cursor --url https://mcp.example.com -H 'Authorization: Bearer ${TOKEN}'
  mcpctl add --from-json @snippet.json --all
  pbpaste | mcpctl add github -c vscode --from-json -
  mcpctl add io.github.upstash/context7 --all       # from the MCP Registry
  mcpctl add io.elevenlabs/mcp -c cursor --env 'ELEVENLABS_API_KEY=${XI_KEY}'  # another name";

/// `--transport`: stdio is the default for a command; http and sse need a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TransportArg {
    /// A local command (the default with `-- COMMAND`)
    Stdio,
    /// Streamable HTTP (the default with a URL)
    #[value(alias = "streamable-http")]
    Http,
    /// Legacy HTTP+SSE
    Sse,
}

impl TransportArg {
    /// The remote kind, `None` for stdio.
    pub fn remote(self) -> Option<RemoteKind> {
        match self {
            TransportArg::Stdio => None,
            TransportArg::Http => Some(RemoteKind::Http),
            TransportArg::Sse => Some(RemoteKind::Sse),
        }
    }
}

#[derive(Debug, Args)]
#[command(after_help = REMOVE_EXAMPLES)]
pub struct RemoveArgs {
    /// Server name
    pub name: String,
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Which file [default: the one scope that has NAME]
    #[arg(short = 's', long, value_enum)]
    pub scope: Option<Scope>,
    /// Same as `--scope user`
    #[arg(short = 'g', long, conflicts_with = "scope")]
    pub global: bool,
    /// With `--all`: remove also entries of that name mcpctl did not write and that differ
    /// from the one it did (without it they are left, and named)
    #[arg(long)]
    pub force: bool,
    /// Print the diff of each file (secrets redacted); write nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// `disable`.
#[derive(Debug, Args)]
#[command(after_help = DISABLE_EXAMPLES)]
pub struct DisableArgs {
    /// Server name
    pub name: String,
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Only this scope [default: every scope that has NAME]
    #[arg(short = 's', long, value_enum)]
    pub scope: Option<Scope>,
    /// Switch off only these tools of the server (the client's deny-list), not the server
    #[arg(long, value_delimiter = ',', value_name = "TOOL")]
    pub deny_tools: Vec<String>,
    /// Only in this project (`--project DIR`, default the repository root): the client's
    /// own project-level switch, the user's entry untouched
    #[arg(long, conflicts_with_all = ["scope", "deny_tools"])]
    pub here: bool,
    /// With --here: the project's uncommitted file, where the client has one
    #[arg(long, requires = "here")]
    pub local: bool,
    /// Print the diff of each file; write nothing
    #[arg(long)]
    pub dry_run: bool,
}

const DISABLE_EXAMPLES: &str = "Examples:
  mcpctl disable playwright --all
  mcpctl disable github -c codex --deny-tools delete_repo,merge_pull_request
  mcpctl disable memory -c cursor --dry-run
  mcpctl disable slack --here          # off in this repository only

Clients with their own switch get it (`\"disabled\": true`, Codex `enabled = false`, Claude
Code's per-project `disabledMcpServers`, Gemini's enablement file); others (Cursor, VS Code,
Claude Desktop) have the entry parked: its exact bytes move to mcpctl's state directory
and `enable` puts them back.";

/// `enable`.
#[derive(Debug, Args)]
#[command(after_help = ENABLE_EXAMPLES)]
pub struct EnableArgs {
    /// Server name
    pub name: String,
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Only this scope [default: every scope that has NAME]
    #[arg(short = 's', long, value_enum)]
    pub scope: Option<Scope>,
    /// Switch these tools back on (take them off the client's deny-list)
    #[arg(long, value_delimiter = ',', value_name = "TOOL", conflicts_with_all = ["allow_tools", "all_tools"])]
    pub deny_tools: Vec<String>,
    /// Allow only these tools (the client's allow-list becomes exactly them)
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "TOOL",
        conflicts_with = "all_tools"
    )]
    pub allow_tools: Vec<String>,
    /// Remove the server's tool filters: every tool on
    #[arg(long)]
    pub all_tools: bool,
    /// Only in this project (`--project DIR`, default the repository root): the client's
    /// own project-level switch, the user's entry untouched
    #[arg(long, conflicts_with_all = ["scope", "deny_tools", "allow_tools", "all_tools"])]
    pub here: bool,
    /// With --here: the project's uncommitted file, where the client has one
    #[arg(long, requires = "here")]
    pub local: bool,
    /// With --here: add a server this project's clients do not have without asking
    #[arg(long, short = 'y', requires = "here")]
    pub yes: bool,
    /// Print the diff of each file; write nothing
    #[arg(long)]
    pub dry_run: bool,
}

const ENABLE_EXAMPLES: &str = "Examples:
  mcpctl enable playwright -c cursor
  mcpctl enable github -c codex --deny-tools merge_pull_request
  mcpctl enable github -c codex --allow-tools search_code,get_file_contents
  mcpctl enable github -c codex --all-tools
  mcpctl enable slack --here -c opencode";

const REMOVE_EXAMPLES: &str = "Examples:
  mcpctl remove memory -c cursor
  mcpctl remove github --all --dry-run
  mcpctl remove prj -c claude-code --scope local";

impl ValueEnum for RemoteKind {
    fn value_variants<'a>() -> &'a [Self] {
        &[RemoteKind::Http, RemoteKind::Sse]
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(match self {
            RemoteKind::Http => clap::builder::PossibleValue::new("http").help("Streamable HTTP"),
            RemoteKind::Sse => clap::builder::PossibleValue::new("sse").help("legacy HTTP+SSE"),
        })
    }
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl doctor
  mcpctl doctor github -c cursor --timeout 60
  mcpctl doctor github memory                # only these servers
  mcpctl doctor --no-spawn --json
  mcpctl doctor https://mcp.example.com/mcp  # an endpoint no file names yet")]
pub struct DoctorArgs {
    /// Only servers with these names; or a URL (http://, https://): contact that
    /// endpoint (Streamable HTTP, or legacy SSE for a path ending in /sse) and say what
    /// it speaks
    #[arg(value_name = "NAME|URL")]
    pub name: Vec<String>,
    /// Client id (repeat or separate with commas) [default: detected clients]
    #[arg(short = 'c', long = "client", value_delimiter = ',', value_name = "ID")]
    pub clients: Vec<String>,
    /// Seconds each server gets for the whole handshake
    #[arg(long, default_value_t = 30.0, value_name = "SECS")]
    pub timeout: f64,
    /// How many servers to check at once [default: the machine's parallelism]
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Run only the static checks; start nothing, connect nowhere
    #[arg(long)]
    pub no_spawn: bool,
    /// Also start project-file servers (.mcp.json, ...) the client has not approved
    #[arg(long)]
    pub trust_project: bool,
    /// Warnings fail too (exit 1)
    #[arg(long)]
    pub strict: bool,
    /// Start each server exactly as this client would (its environment filter, the env
    /// names it drops, the capabilities it declares) and judge it as that client
    /// [default: -c CLIENT]
    #[arg(long = "as", value_name = "CLIENT")]
    pub as_client: Option<String>,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl lock
  mcpctl lock github -c cursor
  mcpctl lock --json

The lock goes beside the manifest in use (mcpctl.toml), else into mcpctl's state directory.
A server that does not answer keeps its old record. `mcpctl doctor` reports a server whose
tools were added, removed or changed since, with a diff of each changed description;
`doctor --strict` then exits 1.")]
pub struct LockArgs {
    /// Only these servers [default: the manifest's, else every configured server]
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,
    /// Client id (repeat or separate with commas) [default: detected clients]
    #[arg(short = 'c', long = "client", value_delimiter = ',', value_name = "ID")]
    pub clients: Vec<String>,
    /// Seconds each server gets for the whole handshake
    #[arg(long, default_value_t = 30.0, value_name = "SECS")]
    pub timeout: f64,
    /// How many servers to start at once [default: the machine's parallelism]
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Also start project-file servers (.mcp.json, ...) the client has not approved
    #[arg(long)]
    pub trust_project: bool,
    /// The manifest whose servers to lock, beside it [default: ./mcpctl.toml if present,
    /// else the user manifest if present, else every configured server, in the state dir]
    #[arg(long, env = "MCPCTL_MANIFEST", value_name = "FILE")]
    pub manifest: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl tools github
  mcpctl tools github -c cursor --json
  mcpctl tools github --as claude-code       # started as Claude Code starts it")]
pub struct ToolsArgs {
    /// Server name, as `mcpctl list` shows it
    pub name: String,
    /// Client whose entry to use [default: the detected client that has it]
    #[arg(short = 'c', long = "client", value_name = "ID")]
    pub client: Option<String>,
    /// Seconds for the whole exchange with the server
    #[arg(long, default_value_t = 30.0, value_name = "SECS")]
    pub timeout: f64,
    /// Also start a project-file server (.mcp.json, ...) the client has not approved
    #[arg(long)]
    pub trust_project: bool,
    /// Start the server exactly as this client would (its environment filter, the env
    /// names it drops, the capabilities it declares) [default: the entry's own client's
    /// environment, mcpctl's capabilities]
    #[arg(long = "as", value_name = "CLIENT")]
    pub as_client: Option<String>,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl budget                       # tokens per client, costliest first
  mcpctl budget --measure             # start the servers never measured
  mcpctl budget --max 20000 -c codex  # what brings codex under 20,000
  mcpctl budget --max 20000 -c codex --keep github,playwright/browser_click --apply

Token estimates come from the last `mcpctl doctor` or `mcpctl tools` run of each server
(bytes of the tool definitions as compact JSON / 4), per tool, as each client receives
them: through the entry's tool filter, and deferred where the client defers them.")]
pub struct BudgetArgs {
    /// Client id (repeat or separate with commas) [default: detected clients]
    #[arg(short = 'c', long = "client", value_delimiter = ',', value_name = "ID")]
    pub clients: Vec<String>,
    /// Bring each client under N tokens: deny its costliest tools through its own tool
    /// filter, else switch off whole servers (shown as a diff; --apply writes it)
    #[arg(long, value_name = "N")]
    pub max: Option<usize>,
    /// With --max: never cut this server, or this one tool (SERVER/TOOL)
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "SERVER|SERVER/TOOL",
        requires = "max"
    )]
    pub keep: Vec<String>,
    /// With --max: write the changes (one command: one `undo` takes them back)
    #[arg(long, requires = "max")]
    pub apply: bool,
    /// With --max: `user` writes the user's files only; `project` this project's only (a
    /// client whose project file cannot take a change is not cut) [default: in this
    /// project where the client reads a file that takes it, else the user's]
    #[arg(long, value_enum, value_name = "WHERE", requires = "max")]
    pub scope: Option<BudgetScope>,
    /// Start the servers never measured as each client first (as `doctor -c CLIENT`
    /// starts them, declaring that client's capabilities)
    #[arg(long)]
    pub measure: bool,
    /// With --measure: also start project-file servers the client has not approved
    #[arg(long)]
    pub trust_project: bool,
    /// With --measure: seconds each server gets
    #[arg(long, default_value_t = 30.0, value_name = "SECS")]
    pub timeout: f64,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl call memory read_graph
  mcpctl call filesystem read_text_file --arg path=README.md
  mcpctl call github search_repositories --args '{\"query\": \"mcp\"}' --arg page=2")]
pub struct CallArgs {
    /// Server name, as `mcpctl list` shows it
    pub name: String,
    /// Tool to call (see `mcpctl tools NAME`)
    pub tool: String,
    /// One argument; the value is typed by the tool's input schema (number, boolean,
    /// JSON for arrays and objects)
    #[arg(long = "arg", value_name = "KEY=VALUE")]
    pub args: Vec<String>,
    /// All arguments as one JSON object (`--arg` values are laid over it)
    #[arg(long = "args", value_name = "JSON")]
    pub args_json: Option<String>,
    /// Client whose entry to use [default: the detected client that has it]
    #[arg(short = 'c', long = "client", value_name = "ID")]
    pub client: Option<String>,
    /// Seconds for the whole exchange with the server
    #[arg(long, default_value_t = 30.0, value_name = "SECS")]
    pub timeout: f64,
    /// Also start a project-file server (.mcp.json, ...) the client has not approved
    #[arg(long)]
    pub trust_project: bool,
    /// Start the server exactly as this client would (its environment filter, the env
    /// names it drops, the capabilities it declares) [default: the entry's own client's
    /// environment, mcpctl's capabilities]
    #[arg(long = "as", value_name = "CLIENT")]
    pub as_client: Option<String>,
}

/// `mcpctl secret …`.
#[derive(Debug, Subcommand)]
pub enum SecretCommand {
    /// Keep a secret: the value from a hidden prompt or stdin, never the command line
    #[command(after_help = "Examples:
  mcpctl secret set github                               # prompts (hidden)
  gh auth token | mcpctl secret set github               # from stdin
  mcpctl secret set github --command 'pass show github'  # run when needed

Values go to the OS keychain (macOS Keychain, Windows Credential Manager, the Secret
Service on Linux). With --command only the command is kept; it runs each time the secret
is needed. Use the secret with `mcpctl add NAME --secret ENV=github -c ID -- COMMAND`.")]
    Set(SecretSetArgs),
    /// The secrets mcpctl knows: names and where each lives, never values
    #[command(after_help = "Examples:
  mcpctl secret list
  mcpctl secret list --json")]
    List,
    /// Print a secret's value (refused without --reveal)
    #[command(after_help = "Examples:
  mcpctl secret get github --reveal")]
    Get(SecretGetArgs),
    /// Forget a secret (its keychain item too; a password manager's own entry stays)
    #[command(after_help = "Examples:
  mcpctl secret rm github")]
    Rm(SecretNameArg),
    /// Move literal secrets out of client files into the store; entries start through mcpctl
    #[command(after_help = "Examples:
  mcpctl secret adopt --dry-run         # what would move, the diff (redacted)
  mcpctl secret adopt github -c cursor  # one server in one client

Every env value and header value `mcpctl check` flags as a literal secret (MCP401) goes
to the OS keychain, named after its server (`github`, or `github-api-key` when a server
has several); the same value in several clients becomes one secret. The entry is then
rewritten in place to `mcpctl run --secret ENV=NAME -- COMMAND` (stdio) or `mcpctl bridge
URL --header 'NAME=Bearer {secret:NAME}'` (remote); the rest of the file keeps its bytes.
`mcpctl undo` puts the file back (the secret stays in the store). Values are never
printed.

An env or header value that is only `${VAR}`, with VAR not set here and a secret named
VAR in the store (`mcpctl secret set VAR`), is pointed at that secret the same way.")]
    Adopt(SecretAdoptArgs),
}

#[derive(Debug, Args)]
pub struct SecretAdoptArgs {
    /// Only the servers with this name
    pub name: Option<String>,
    /// Client id (repeat or separate with commas) [default: detected clients]
    #[arg(short = 'c', long = "client", value_delimiter = ',', value_name = "ID")]
    pub clients: Vec<String>,
    /// Print what would move and the diff; store and write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Also replace the moved values in the backups of those files by the stored
    /// secrets' names, without asking (`backups --scrub-secrets`)
    #[arg(long, short = 'y', conflicts_with = "dry_run")]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct SecretSetArgs {
    /// The secret's name (letters, digits, `_`, `-`, `.`)
    pub name: String,
    /// Keep this command instead of a value: it prints the secret when needed
    #[arg(long, value_name = "COMMAND")]
    pub command: Option<String>,
}

#[derive(Debug, Args)]
pub struct SecretGetArgs {
    /// The secret's name
    pub name: String,
    /// Really print the value
    #[arg(long)]
    pub reveal: bool,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl login docs                         # the remote server `docs`
  mcpctl login https://mcp.example.com/mcp  # a server by its URL
  mcpctl login docs --no-browser            # SSH, containers: no browser here
  mcpctl login docs --yes                   # also rewrite `docs` to use it
  mcpctl login docs --device                # confirm a code on any device

The browser is opened with $BROWSER when set, else the system's opener. With
--no-browser, the device flow is used where the server offers it (else the paste-back).
mcpctl names itself by its client-metadata document's URL where the server accepts one
(--client-metadata-url), else registers itself. The tokens (access, refresh, expiry,
scopes, issuer, client id) are kept in the secret store as `oauth.NAME`, never in a
client's file or mcpctl's output.")]
pub struct LoginArgs {
    /// The configured remote server's name, or its URL
    pub name: String,
    /// Open no browser here (SSH, containers): the device flow where the server offers
    /// it, else print the sign-in URL and read back the URL the browser was sent to
    #[arg(long)]
    pub no_browser: bool,
    /// Sign in with the device flow (RFC 8628): confirm a code on any device
    #[arg(long)]
    pub device: bool,
    /// The https URL where mcpctl's client-metadata document is hosted
    /// (docs/client-metadata.json, its `client_id` set to this URL): the client id where
    /// the server accepts client-metadata documents (CIMD), instead of registering
    #[arg(long, value_name = "URL", env = "MCPCTL_CLIENT_METADATA_URL")]
    pub client_metadata_url: Option<String>,
    /// A client id registered with the authorization server beforehand (else mcpctl
    /// registers itself, RFC 7591)
    #[arg(long, value_name = "ID")]
    pub client_id: Option<String>,
    /// The scopes to ask for, space-separated [default: what the server names]
    #[arg(long, value_name = "SCOPES")]
    pub scope: Option<String>,
    /// How long to wait for the browser's answer, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// Rewrite NAME's entries that reach the server by themselves into mcpctl's bridge with
    /// this sign-in, without asking
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl logout docs
  mcpctl logout https://mcp.example.com/mcp")]
pub struct LogoutArgs {
    /// The server's name or URL, as given to `mcpctl login`
    pub name: String,
}

#[derive(Debug, Args)]
pub struct SecretNameArg {
    /// The secret's name
    pub name: String,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl run --secret GITHUB_TOKEN=github -- github-mcp-server stdio

Client entries written by `mcpctl add --secret` start servers this way. Each secret is
resolved from the store and set in the server's environment only; the server then
replaces this process (on Windows it runs as a child and its exit code is passed on).")]
pub struct RunArgs {
    /// Set the server's variable ENV to the stored secret SECRET
    #[arg(long = "secret", value_name = "ENV=SECRET")]
    pub secrets: Vec<String>,
    /// The server's command and arguments
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl bridge https://mcp.example.com --header 'Authorization=Bearer {secret:docs}'

Speaks MCP on stdin/stdout to the client and Streamable HTTP (or legacy SSE) to the
server, passing every message through unchanged. `{secret:NAME}` in a header value is
filled from the secret store when the bridge starts.")]
pub struct BridgeArgs {
    /// The server's URL
    pub url: String,
    /// A header to send; `{secret:NAME}` is replaced by the stored secret
    #[arg(long = "header", short = 'H', value_name = "NAME=VALUE")]
    pub headers: Vec<String>,
    /// Send the token of `mcpctl login NAME` (`Authorization: Bearer`), renewed before it expires
    #[arg(long, value_name = "NAME")]
    pub oauth: Option<String>,
    /// The server's HTTP transport
    #[arg(long, value_enum, default_value_t = RemoteKind::Http)]
    pub transport: RemoteKind,
    /// Answer a request with an error when the server has not replied within this many
    /// seconds (each request on its own; the others go on meanwhile)
    #[arg(long, value_name = "SECONDS", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
}

/// `budget --scope`: where a cut goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BudgetScope {
    // The user's files only (every project).
    User,
    // This project only: a client whose project file cannot take a change is not cut.
    Project,
}

/// Output formats of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
    Github,
    Sarif,
}

/// The lowest severity that makes `check` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DenyLevel {
    Warning,
    Error,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  mcpctl check .mcp.json .vscode/mcp.json
  mcpctl check --user --fix --dry-run
  mcpctl check --user --fix --secrets      # secrets into the OS keychain too
  mcpctl check --format github --deny warning
  mcpctl check --explain MCP203")]
pub struct CheckArgs {
    /// Files to check [default: every client's project file under the project directory]
    pub paths: Vec<PathBuf>,
    /// Treat the files as this client's (instead of inferring it from the path)
    #[arg(short = 'c', long = "client", value_name = "ID")]
    pub client: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    /// Exit 1 when a finding reaches this severity
    #[arg(long, value_enum, default_value_t = DenyLevel::Error)]
    pub deny: DenyLevel,
    /// Also check the user files of detected clients
    #[arg(long)]
    pub user: bool,
    /// Apply the safe fixes
    #[arg(long)]
    pub fix: bool,
    /// With --fix: print the diff only
    #[arg(long, requires = "fix")]
    pub dry_run: bool,
    /// With --fix: also move literal secrets (MCP401) into the secret store, as `mcpctl
    /// secret adopt` does
    #[arg(long, requires = "fix")]
    pub secrets: bool,
    /// With --secrets: also replace the moved values in the backups of those files by
    /// the stored secrets' names, without asking (`backups --scrub-secrets`)
    #[arg(long, short = 'y', requires = "secrets")]
    pub yes: bool,
    /// Explain a rule code and show a fixed example
    #[arg(long, value_name = "CODE")]
    pub explain: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::GROUPS;

    /// Every subcommand (clap's own `help` aside) is in exactly one group of the top-level
    /// help, and every name a group lists is a subcommand.
    #[test]
    fn every_command_is_in_exactly_one_help_group() {
        use clap::CommandFactory;
        let command = super::Cli::command();
        let grouped: Vec<&str> = GROUPS
            .iter()
            .flat_map(|(_, names)| names.iter().copied())
            .collect();
        for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
            let name = sub.get_name();
            let times = grouped.iter().filter(|n| **n == name).count();
            assert_eq!(times, 1, "`{name}` is in {times} help groups");
        }
        for name in grouped {
            assert!(
                command.find_subcommand(name).is_some(),
                "`{name}` is not a command"
            );
        }
    }
}
