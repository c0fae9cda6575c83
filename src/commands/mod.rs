//! One file per verb, one dispatch match, and the context every command gets.

mod add;
mod call;
mod check;
mod clients;
mod doctor;
pub(crate) mod edit;
pub(crate) mod inventory;
mod list;
mod remove;
mod targets;
mod tools;

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
}

pub fn run(command: Command, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    match command {
        Command::Clients(args) => clients::run(args, ctx, printer),
        Command::List(args) => list::run(args, ctx, printer),
        Command::Add(args) => add::run(args, ctx, printer),
        Command::Remove(args) => remove::run(args, ctx, printer),
        Command::Doctor(args) => doctor::run(args, ctx, printer),
        Command::Check(args) => check::run(args, ctx, printer),
        Command::Tools(args) => tools::run(args, ctx, printer),
        Command::Call(args) => call::run(args, ctx, printer),
    }
}
