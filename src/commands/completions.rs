//! `mcpctl completions SHELL` and `mcpctl man`: the command line described for shells and
//! for `man`, generated from the same clap definition as `--help`.
//!
//! Completion scripts are static for what is known when they are written: commands,
//! flags, enum values and the client ids (and aliases) of the table in use. Server names
//! change with every `add`: where a command takes one, the bash, zsh and fish scripts ask
//! `mcpctl __complete servers` at the moment of completing (a read of the config files).

use clap::CommandFactory;
use clap::builder::PossibleValuesParser;

use crate::cli::{Cli, CompleteArgs, CompleteWhat, CompletionsArgs, ManArgs};
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
    let script = String::from_utf8_lossy(&script);
    printer.raw(&with_server_names(shell, &script));
    Ok(ExitStatus::Success)
}

/// The commands whose NAME is a configured server's name (`secret adopt`'s too).
const SERVER_COMMANDS: &[&str] = &[
    "remove", "disable", "enable", "doctor", "tools", "call", "update", "copy", "list", "lock",
    "login", "logout", "adopt",
];

/// `script` (clap_complete's) with server names offered where a command takes one: the
/// words come from `mcpctl __complete servers` when the person presses TAB. PowerShell's
/// and Elvish's scripts complete commands and flags only, and stay as they are.
fn with_server_names(shell: clap_complete::Shell, script: &str) -> String {
    use clap_complete::Shell;
    match shell {
        // Each command's block sets `opts` (its flags) and offers them: the server names
        // join them, asked for unless a flag is being typed.
        Shell::Bash => {
            let mut out = String::with_capacity(script.len());
            let mut block = "";
            for line in script.split_inclusive('\n') {
                let trimmed = line.trim();
                if let Some(name) = trimmed
                    .strip_prefix("mcpctl__subcmd__")
                    .and_then(|n| n.strip_suffix(')'))
                {
                    block = name;
                }
                // `adopt` is `secret adopt`'s block; `secret list` is not `list`'s.
                let server_block = SERVER_COMMANDS.iter().any(|c| match *c {
                    "adopt" => block == "secret__subcmd__adopt",
                    c => block == c,
                });
                if server_block && trimmed.starts_with("opts=\"") && trimmed.ends_with('"') {
                    let end = line.rfind('"').unwrap_or(line.len());
                    out.push_str(&line[..end]);
                    out.push_str(" $([[ ${cur} == -* ]] || \"$1\" __complete servers 2>/dev/null)");
                    out.push_str(&line[end..]);
                } else {
                    out.push_str(line);
                }
            }
            out
        }
        // Each command's `(NAME)` case lists its arguments; a server NAME's action asks.
        Shell::Zsh => {
            let mut out = String::with_capacity(script.len());
            let mut block = "";
            for line in script.split_inclusive('\n') {
                let trimmed = line.trim();
                if let Some(name) = trimmed.strip_prefix('(').and_then(|n| n.strip_suffix(')')) {
                    block = name;
                }
                let name_arg =
                    trimmed.starts_with("':name -- ") || trimmed.starts_with("'::name -- ");
                if SERVER_COMMANDS.contains(&block) && name_arg && line.contains(":_default' ") {
                    out.push_str(&line.replacen(":_default' ", ":_mcpctl_servers' ", 1));
                } else if line.starts_with("if [ \"$funcstack[1]\" = \"_mcpctl\" ]") {
                    out.push_str(
                        "(( $+functions[_mcpctl_servers] )) ||\n_mcpctl_servers() {\n    local -a names\n    names=(${(f)\"$(mcpctl __complete servers 2>/dev/null)\"})\n    _describe -t servers 'server' names\n}\n\n",
                    );
                    out.push_str(line);
                } else {
                    out.push_str(line);
                }
            }
            out
        }
        Shell::Fish => {
            let mut out = script.to_owned();
            for command in SERVER_COMMANDS {
                let condition = if *command == "adopt" {
                    "__fish_mcpctl_using_subcommand secret; and __fish_seen_subcommand_from adopt"
                        .to_owned()
                } else {
                    format!("__fish_mcpctl_using_subcommand {command}")
                };
                out.push_str(&format!(
                    "complete -c mcpctl -n \"{condition}\" -f -a \"(mcpctl __complete servers 2>/dev/null)\" -d 'server'\n"
                ));
            }
            out
        }
        _ => script.to_owned(),
    }
}

/// `mcpctl __complete servers`: the names of the servers in the files of the clients
/// detected here, one a line, sorted, once each; names a shell would split are left out.
/// Only names: no value of an entry is printed.
pub fn words(
    args: &CompleteArgs,
    ctx: &Context,
    printer: &mut Printer,
) -> anyhow::Result<ExitStatus> {
    match args.what {
        CompleteWhat::Servers => {
            let clients = crate::session::targets::detected_to_read(ctx);
            let found = crate::session::inventory::collect_all(ctx, &clients, None).found;
            let mut names: Vec<&str> = found
                .iter()
                .map(|f| f.name.as_str())
                .filter(|n| !n.is_empty() && !n.chars().any(char::is_whitespace))
                .collect();
            names.sort_unstable();
            names.dedup();
            let mut text = names.join("\n");
            if !text.is_empty() {
                text.push('\n');
            }
            printer.raw(&text);
        }
    }
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
