//! One file per verb, one dispatch match, and the context every command gets.

mod add;
mod apply;
mod backups;
pub mod bridge;
mod call;
mod check;
mod clients;
mod completions;
mod copy;
mod doctor;
pub(crate) mod edit;
mod import;
mod install;
pub(crate) mod inventory;
mod list;
mod outdated;
pub(crate) mod plan;
mod profiles;
mod remove;
mod restore;
pub mod run;
mod search;
mod secret;
mod targets;
mod toggle;
mod tools;
mod undo;
mod update;

use std::path::PathBuf;

use crate::cli::Command;
use crate::clients::ClientTable;
use crate::error::ExitStatus;
use crate::output::Printer;
use crate::platform::Platform;

/// What every command may use; built once in `lib::run`.
#[derive(Debug)]
pub struct Context {
    pub platform: Platform,
    pub table: ClientTable,
    /// Project directory for project and local scopes (absolute).
    pub project: PathBuf,
    /// Prompts are allowed (a terminal, and no `--no-input`).
    pub interactive: bool,
    /// Where backups of edited files go.
    pub backups: Option<PathBuf>,
    /// Ledger and journal: what mcpctl wrote, and what each command changed.
    pub state: crate::state::State,
    /// The command line as typed (program name first), for messages that show a corrected
    /// one.
    pub argv: Vec<String>,
    /// `--json`: paths are shown absolute (a script cannot open `~/...`).
    pub json: bool,
}

/// How the journal names a command: the verb and its first operand (`add github`).
/// Never the flags, which may hold secrets (`--env TOKEN=...`).
pub fn label(args: &[std::ffi::OsString]) -> String {
    use clap::CommandFactory;
    let Ok(matches) = crate::cli::Cli::command().try_get_matches_from(args) else {
        return String::new();
    };
    let Some((verb, sub)) = matches.subcommand() else {
        return String::new();
    };
    match sub.try_get_one::<String>("name") {
        Ok(Some(name)) => format!("{verb} {name}"),
        _ => verb.to_owned(),
    }
}

pub fn run(command: Command, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    match command {
        Command::Clients(args) => clients::run(args, ctx, printer),
        Command::List(args) => list::run(args, ctx, printer),
        Command::Add(args) => add::run(*args, ctx, printer),
        Command::Remove(args) => remove::run(args, ctx, printer),
        Command::Disable(args) => toggle::disable(args, ctx, printer),
        Command::Enable(args) => toggle::enable(args, ctx, printer),
        Command::Doctor(args) => doctor::run(args, ctx, printer),
        Command::Check(args) => check::run(args, ctx, printer),
        Command::Tools(args) => tools::run(args, ctx, printer),
        Command::Call(args) => call::run(args, ctx, printer),
        Command::Completions(args) => completions::run(args, ctx, printer),
        Command::Man => completions::man(printer),
        Command::Plan(args) => plan::run(args, ctx, printer),
        Command::Apply(args) => apply::run(args, ctx, printer),
        Command::Profiles(args) => profiles::run(args, ctx, printer),
        Command::Import(args) => import::run(args, ctx, printer),
        Command::Copy(args) => copy::run(args, ctx, printer),
        Command::Search(args) => search::run(args, ctx, printer),
        Command::Outdated(args) => outdated::run(args, ctx, printer),
        Command::Update(args) => update::run(args, ctx, printer),
        Command::Backups(args) => backups::run(args, ctx, printer),
        Command::Restore(args) => restore::run(args, ctx, printer),
        Command::Undo(args) => undo::run(args, ctx, printer),
        Command::Secret(command) => secret::run(command, ctx, printer),
        // Dispatched by `lib::run` before a context is built (they need none).
        Command::Run(_) | Command::Bridge(_) => Ok(ExitStatus::Error),
    }
}
