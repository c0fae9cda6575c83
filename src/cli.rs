//! Command-line types (clap derive) and their help text; nothing else.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::clients::Scope;
use crate::entry::RemoteKind;
use crate::error::EXIT_CODES_HELP;
use crate::output::ColorWhen;
use crate::platform::Os;

/// Manage MCP server entries across every AI client on this machine, losslessly, and
/// prove they work.
#[derive(Debug, Parser)]
#[command(name = "mcpctl", version, after_help = EXIT_CODES_HELP, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Print machine-readable JSON instead of tables
    #[arg(long, global = true)]
    pub json: bool,
    /// Resolve paths and Windows wrapping as on this OS
    #[arg(
        long,
        global = true,
        value_enum,
        env = "MCPCTL_PLATFORM",
        value_name = "OS"
    )]
    pub platform: Option<Os>,
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
    Add(AddArgs),
    /// Remove a server from one or more clients
    Remove(RemoveArgs),
    /// Check every configured server: static checks, then a real MCP handshake
    Doctor(DoctorArgs),
    /// Lint MCP config files (no process started, no network); for CI and pre-commit
    Check(CheckArgs),
    /// A server's tools: parameters, annotations, and the tokens their definitions cost
    Tools(ToolsArgs),
    /// Call one tool of a server and print what it returns
    Call(CallArgs),
}

#[derive(Debug, Args)]
pub struct ClientsArgs {
    /// Show every client in the table, also those not detected here
    #[arg(long)]
    pub all: bool,
}

/// Which clients a command acts on.
#[derive(Debug, Args, Clone)]
pub struct TargetArgs {
    /// Client id (repeat or separate with commas); see `mcpctl clients`
    #[arg(short = 'c', long = "client", value_delimiter = ',', value_name = "ID")]
    pub clients: Vec<String>,
    /// Every detected client
    #[arg(long, conflicts_with = "clients")]
    pub all: bool,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only servers with this name
    pub name: Option<String>,
    /// Client id (repeat or separate with commas) [default: detected clients]
    #[arg(short = 'c', long = "client", value_delimiter = ',', value_name = "ID")]
    pub clients: Vec<String>,
    /// Show env and header values instead of redacting them
    #[arg(long)]
    pub show_secrets: bool,
}

#[derive(Debug, Args)]
pub struct AddArgs {
    /// Server name (the key in the client's servers map)
    pub name: String,
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Which file: the user's, the project's, or the per-project section of the user file
    #[arg(long, value_enum, default_value_t = Scope::User)]
    pub scope: Scope,
    /// Environment variable for a stdio server (repeatable)
    #[arg(short = 'e', long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// HTTP header for a remote server (repeatable)
    #[arg(short = 'H', long = "header", value_name = "KEY=VALUE")]
    pub headers: Vec<String>,
    /// Working directory for a stdio server
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<String>,
    /// Remote server URL
    #[arg(long, conflicts_with = "from_json")]
    pub url: Option<String>,
    /// Remote transport
    #[arg(long, value_enum, requires = "url", value_name = "KIND")]
    pub transport: Option<RemoteKind>,
    /// The entry as JSON, as READMEs print it: `{"command":...}` or `{"mcpServers":{...}}`
    #[arg(long, value_name = "JSON")]
    pub from_json: Option<String>,
    /// Replace an existing entry with different content
    #[arg(long)]
    pub force: bool,
    /// Print the diff of each file; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Do not wrap npx/npm/... as `cmd /c` on Windows
    #[arg(long)]
    pub no_wrap: bool,
    /// The server command and its arguments, after `--`
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct RemoveArgs {
    /// Server name
    pub name: String,
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Which file: the user's, the project's, or the per-project section of the user file
    #[arg(long, value_enum, default_value_t = Scope::User)]
    pub scope: Scope,
    /// Print the diff of each file; write nothing
    #[arg(long)]
    pub dry_run: bool,
}

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
pub struct DoctorArgs {
    /// Only servers with this name
    pub name: Option<String>,
    /// Client id (repeat or separate with commas) [default: detected clients]
    #[arg(short = 'c', long = "client", value_delimiter = ',', value_name = "ID")]
    pub clients: Vec<String>,
    /// Seconds each server gets for the whole handshake
    #[arg(long, default_value_t = 30.0, value_name = "SECS")]
    pub timeout: f64,
    /// How many servers to check at once
    #[arg(long, default_value_t = 8, value_name = "N")]
    pub jobs: usize,
    /// Run only the static checks; start nothing, connect nowhere
    #[arg(long)]
    pub no_spawn: bool,
    /// Warnings fail too (exit 1)
    #[arg(long)]
    pub strict: bool,
}

#[derive(Debug, Args)]
pub struct ToolsArgs {
    /// Server name, as `mcpctl list` shows it
    pub name: String,
    /// Client whose entry to use [default: the detected client that has it]
    #[arg(short = 'c', long = "client", value_name = "ID")]
    pub client: Option<String>,
    /// Seconds for the whole exchange with the server
    #[arg(long, default_value_t = 30.0, value_name = "SECS")]
    pub timeout: f64,
}

#[derive(Debug, Args)]
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
    /// Explain a rule code and show a fixed example
    #[arg(long, value_name = "CODE")]
    pub explain: Option<String>,
}
