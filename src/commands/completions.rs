//! `mcpctl completions SHELL` and `mcpctl man`: the command line described for shells and
//! for `man`, generated from the same clap definition as `--help`.
//!
//! Completion scripts are static, so they complete what is known when they are written:
//! commands, flags, enum values and the client ids (and aliases) of the table in use.
//! Server names change with every `add` and are not completed.

use clap::CommandFactory;
use clap::builder::PossibleValuesParser;

use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::error::{ExitStatus, UserError};
use crate::output::Printer;
use crate::session::Context;

/// The commands whose client option takes table ids, and that option's id.
const CLIENT_OPTIONS: &[(&str, &str)] = &[
    ("add", "clients"),
    ("remove", "clients"),
    ("list", "clients"),
    ("doctor", "clients"),
    ("check", "client"),
];

pub fn run(
    args: CompletionsArgs,
    ctx: &Context,
    printer: &mut Printer,
) -> anyhow::Result<ExitStatus> {
    let CompletionsArgs { shell } = args;
    let mut words: Vec<String> = Vec::new();
    for client in ctx.table.all() {
        words.push(client.id.clone());
        words.extend(client.aliases.iter().cloned());
    }
    words.sort();
    words.dedup();
    let mut command = Cli::command();
    for (name, option) in CLIENT_OPTIONS {
        if command.find_subcommand(name).is_none() {
            continue;
        }
        let words = words.clone();
        command = command.mut_subcommand(name, |sub| {
            sub.mut_arg(*option, |arg| {
                arg.value_parser(PossibleValuesParser::new(words))
            })
        });
    }
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "mcpctl", &mut script);
    printer.raw(&String::from_utf8_lossy(&script));
    Ok(ExitStatus::Success)
}

pub fn man(args: ManArgs, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    if let Some(dir) = args.dir {
        let shown = crate::output::file(&dir);
        let unwritable = |e: std::io::Error| {
            UserError::new(format!("cannot write the man pages into `{shown}`: {e}"))
                .hint("give a directory you can write to, such as ~/.local/share/man/man1")
        };
        std::fs::create_dir_all(&dir).map_err(unwritable)?;
        clap_mangen::generate_to(crate::cli::man_command(), &dir).map_err(unwritable)?;
        fn pages(command: &clap::Command) -> usize {
            1 + command
                .get_subcommands()
                .filter(|s| !s.is_hide_set())
                .map(pages)
                .sum::<usize>()
        }
        let pages = pages(&Cli::command());
        printer.note(&format!(
            "wrote {pages} man pages into `{shown}`: `man mcpctl`, `man mcpctl-add`, …"
        ));
        return Ok(ExitStatus::Success);
    }
    let mut page = Vec::new();
    clap_mangen::Man::new(crate::cli::man_command()).render(&mut page)?;
    printer.raw(&String::from_utf8_lossy(&page));
    Ok(ExitStatus::Success)
}
