//! One file per verb, one dispatch match. Verbs stand on `session` (the context, reading,
//! writing, targets) and never name each other.

mod add;
mod apply;
mod backups;
mod bridge;
mod budget;
mod call;
mod check;
mod clients;
mod completions;
mod copy;
mod doctor;
mod export;
mod import;
mod launch;
mod list;
mod lock;
mod login;
mod outdated;
mod plan;
mod profiles;
mod remove;
mod restore;
mod search;
mod secret;
mod toggle;
mod tools;
mod undo;
mod update;

use crate::cli::Command;
use crate::error::ExitStatus;
use crate::output::Printer;
use crate::session::Context;

/// Whether the command was given `--force` (it then also writes over an existing config
/// file of 0 bytes; see `session::Context::write_empty`).
pub fn forced(command: &Command) -> bool {
    match command {
        Command::Add(args) => args.force,
        Command::Remove(args) => args.force,
        Command::Apply(args) => args.force,
        Command::Copy(args) => args.force,
        Command::Update(args) => args.force,
        _ => false,
    }
}

/// What the command does with a file its client rejects as a whole: with `--force`, and
/// for `check` (whose `--fix` repairs it before anything else), write it; else refuse.
pub fn rejected(command: &Command) -> crate::session::Rejected {
    use crate::session::Rejected;
    if forced(command) || matches!(command, Command::Check(_)) {
        return Rejected::Write;
    }
    Rejected::Refuse {
        force: matches!(
            command,
            Command::Add(_)
                | Command::Remove(_)
                | Command::Apply(_)
                | Command::Copy(_)
                | Command::Update(_)
        ),
    }
}

/// Whether the command was given `--dry-run` (its JSON then says `"dry_run": true`).
pub fn dry_run(command: &Command) -> bool {
    use crate::cli::SecretCommand;
    match command {
        Command::Add(args) => args.dry_run,
        Command::Remove(args) => args.dry_run,
        Command::Disable(args) => args.dry_run,
        Command::Enable(args) => args.dry_run,
        Command::Apply(args) => args.dry_run,
        Command::Copy(args) => args.dry_run,
        Command::Update(args) => args.dry_run,
        Command::Restore(args) => args.dry_run,
        Command::Undo(args) => args.dry_run,
        Command::Redo(args) => args.dry_run,
        Command::Secret(SecretCommand::Adopt(args)) => args.dry_run,
        Command::Check(args) => args.dry_run,
        Command::Backups(args) => args.dry_run,
        Command::Budget(args) => args.max.is_some() && !args.apply,
        _ => false,
    }
}

/// Whether `command` may write files (client files, the manifest): not for reading
/// commands, nor with `--dry-run`.
pub fn writes(command: &Command) -> bool {
    use crate::cli::SecretCommand;
    // No wildcard: a new verb must say here whether it writes, or it would escape the
    // `--platform` check in `run`.
    match command {
        Command::Add(args) => !args.dry_run,
        Command::Remove(args) => !args.dry_run,
        Command::Disable(args) => !args.dry_run,
        Command::Enable(args) => !args.dry_run,
        Command::Apply(args) => !args.dry_run,
        Command::Copy(args) => !args.dry_run,
        Command::Update(args) => !args.dry_run,
        Command::Restore(args) => !args.dry_run,
        Command::Undo(args) => !args.dry_run,
        Command::Redo(args) => !args.dry_run,
        Command::Secret(SecretCommand::Adopt(args)) => !args.dry_run,
        Command::Check(args) => args.fix && !args.dry_run,
        Command::Import(args) => args.manifest.is_some() || args.store_secrets,
        // It may rewrite NAME's entries into the bridge (asked, or `--yes`).
        Command::Login(args) => !args.name.contains("://"),
        Command::Backups(args) => args.purge_secrets && !args.dry_run,
        Command::Budget(args) => args.apply,
        // The secret store is not a client file: no platform spelling goes into it.
        Command::Secret(
            SecretCommand::Set(_)
            | SecretCommand::List
            | SecretCommand::Get(_)
            | SecretCommand::Rm(_),
        ) => false,
        Command::Clients(_)
        | Command::Logout(_)
        | Command::List(_)
        | Command::Doctor(_)
        | Command::Tools(_)
        // mcpctl.lock holds no platform spelling.
        | Command::Lock(_)
        | Command::Call(_)
        | Command::Plan(_)
        | Command::Profiles(_)
        | Command::Export(_)
        | Command::Search(_)
        | Command::Outdated(_)
        | Command::Run(_)
        | Command::Bridge(_)
        | Command::Completions(_)
        | Command::Complete(_)
        | Command::Man(_) => false,
    }
}

/// How the journal names a command: the verb and its first operand (`add github`), or,
/// for a verb whose operand was left out (`add --from-json SNIPPET`), the `names` it
/// wrote. Never the flags, which may hold secrets (`--env TOKEN=...`). Read from the
/// arguments as `run` parsed them (building clap's command again costs more than
/// loading the client table).
#[derive(Debug, Clone, Default)]
pub struct Label {
    /// `None`: no verb (nothing to name).
    verb: Option<String>,
    /// The verb's `name` operand: `None` when it has none (`undo`), `Some(None)` when it
    /// was left out (`add --from-json SNIPPET`: named by what it wrote).
    name: Option<Option<String>>,
}

impl Label {
    pub fn of(matches: &clap::ArgMatches) -> Label {
        let Some((verb, mut sub)) = matches.subcommand() else {
            return Label::default();
        };
        // A verb with verbs of its own (`secret adopt`) is named by both.
        let mut verb = verb.to_owned();
        if let Some((inner, inner_sub)) = sub.subcommand() {
            verb = format!("{verb} {inner}");
            sub = inner_sub;
        }
        let name = sub
            .try_get_one::<String>("name")
            .ok()
            .map(Option::<&String>::cloned);
        Label {
            verb: Some(verb),
            name,
        }
    }

    /// The label, with the names the command wrote when it had no operand.
    pub fn with(&self, names: &[String]) -> String {
        let Some(verb) = &self.verb else {
            return String::new();
        };
        match &self.name {
            Some(Some(name)) => format!("{verb} {name}"),
            Some(None) if !names.is_empty() => format!("{verb} {}", names.join(",")),
            _ => verb.clone(),
        }
    }
}

/// Whether the command works on "this project" (`--here`): without `--project`, the
/// project is then the repository root, not the working directory.
pub fn here(command: &Command) -> bool {
    match command {
        Command::Disable(args) => args.here,
        Command::Enable(args) => args.here,
        Command::List(args) => args.here,
        _ => false,
    }
}

/// `run` (the launcher) and `bridge` start servers for clients: no client table, no
/// context, nothing on stdout but the protocol. `Err` gives every other command back.
pub fn without_context(
    command: Command,
    platform: &crate::platform::Platform,
    printer: &Printer,
) -> Result<std::process::ExitCode, Box<Command>> {
    match command {
        Command::Run(args) => Ok(launch::run(args, platform, printer)),
        Command::Bridge(args) => Ok(bridge::run(args, platform, printer)),
        other => Err(Box::new(other)),
    }
}

pub fn run(command: Command, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    match command {
        Command::Clients(args) => clients::run(args, ctx, printer),
        Command::List(args) => list::run(args, ctx, printer),
        // `add NAMESPACE/NAME` with nothing else to run is a registry install.
        Command::Add(args) if add::registry::is_registry_add(&args) => {
            add::registry::run(*args, ctx, printer)
        }
        Command::Add(args) => add::run(*args, ctx, printer),
        Command::Remove(args) => remove::run(args, ctx, printer),
        Command::Disable(args) => toggle::disable(args, ctx, printer),
        Command::Enable(args) => toggle::enable(args, ctx, printer),
        Command::Doctor(args) => doctor::run(args, ctx, printer),
        Command::Check(args) => check::run(args, ctx, printer),
        Command::Tools(args) => tools::run(args, ctx, printer),
        Command::Lock(args) => lock::run(args, ctx, printer),
        Command::Call(args) => call::run(args, ctx, printer),
        Command::Budget(args) => budget::run(args, ctx, printer),
        Command::Completions(args) => completions::run(args, ctx, printer),
        Command::Complete(args) => completions::words(&args, ctx, printer),
        Command::Man(args) => completions::man(args, printer),
        Command::Plan(args) => plan::run(args, ctx, printer),
        Command::Apply(args) => apply::run(args, ctx, printer),
        Command::Profiles(args) => profiles::run(args, ctx, printer),
        Command::Import(args) => import::run(args, ctx, printer),
        Command::Export(args) => export::run(args, ctx, printer),
        Command::Copy(args) => copy::run(args, ctx, printer),
        Command::Search(args) => search::run(args, ctx, printer),
        Command::Outdated(args) => outdated::run(args, ctx, printer),
        Command::Update(args) => update::run(args, ctx, printer),
        Command::Backups(args) => backups::run(args, ctx, printer),
        Command::Restore(args) => restore::run(args, ctx, printer),
        Command::Undo(args) => undo::run(args, ctx, printer),
        Command::Redo(args) => undo::redo(args, ctx, printer),
        Command::Secret(command) => secret::run(command, ctx, printer),
        Command::Login(args) => login::login(args, ctx, printer),
        Command::Logout(args) => login::logout(args, ctx, printer),
        // Dispatched by `without_context` before a context is built.
        Command::Run(_) | Command::Bridge(_) => Ok(ExitStatus::Error),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::path::{Path, PathBuf};

    use super::Label;

    fn label(args: &[&str], names: &[&str]) -> String {
        use clap::CommandFactory;
        let matches = crate::cli::Cli::command()
            .try_get_matches_from(args)
            .unwrap();
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        Label::of(&matches).with(&names)
    }

    /// The journal's label: verb and operand, else the names written when the verb's
    /// operand was left out; a verb without one is named alone.
    #[test]
    fn labels_name_the_verb_and_its_operand() {
        assert_eq!(
            label(&["mcpctl", "add", "mem", "--", "npx", "x"], &["mem"]),
            "add mem"
        );
        let snippet = r#"{"mem":{"command":"npx"}}"#;
        assert_eq!(
            label(&["mcpctl", "add", "--from-json", snippet], &["mem"]),
            "add mem"
        );
        assert_eq!(label(&["mcpctl", "undo"], &["mem"]), "undo");
        assert_eq!(label(&["mcpctl", "--json", "apply"], &[]), "apply");
        assert_eq!(label(&["mcpctl", "secret", "adopt"], &[]), "secret adopt");
    }

    /// Every `.rs` file under `dir`.
    pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// Where `text` names `path` followed by a word boundary (`commands::add`, not
    /// `commands::address`), as `line: text`.
    pub(crate) fn mentions(text: &str, path: &str) -> Vec<String> {
        text.lines()
            .enumerate()
            .filter(|(_, line)| {
                line.match_indices(path).any(|(at, _)| {
                    line[at + path.len()..]
                        .chars()
                        .next()
                        .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
                })
            })
            .map(|(n, line)| format!("{}: {}", n + 1, line.trim()))
            .collect()
    }

    /// Sizes a reader can hold in mind (issue 36): no verb file over 600 lines, and no
    /// function anywhere in `src/` over 150 lines (tests included: a long test is split
    /// into helpers like any other code).
    #[test]
    fn verb_files_and_functions_stay_small() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let mut offences = Vec::new();
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            let shown = file.strip_prefix(&src).unwrap().display().to_string();
            let lines: Vec<&str> = text.lines().collect();
            if shown.starts_with("commands") && lines.len() > 600 {
                offences.push(format!("src/{shown}: {} lines (at most 600)", lines.len()));
            }
            for (start, line) in lines.iter().enumerate() {
                let code = line.trim_start();
                let indent = line.len() - code.len();
                let head = code
                    .trim_start_matches("pub(crate) ")
                    .trim_start_matches("pub(super) ")
                    .trim_start_matches("pub ")
                    .trim_start_matches("const ")
                    .trim_start_matches("async ")
                    .trim_start_matches("unsafe ");
                if !head.starts_with("fn ") || line.trim_end().ends_with(';') {
                    continue;
                }
                let close = " ".repeat(indent) + "}";
                let Some(len) = lines[start..].iter().position(|l| l.trim_end() == close) else {
                    continue;
                };
                if len + 1 > 150 {
                    let name: String = head[3..]
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    offences.push(format!(
                        "src/{shown}:{}: `{name}` has {} lines (at most 150)",
                        start + 1,
                        len + 1
                    ));
                }
            }
        }
        assert!(offences.is_empty(), "{}", offences.join("\n"));
    }

    /// The verbs stand on a floor (`session`, `manifest::plan`, `entry::render`,
    /// `registry`): nothing outside `src/commands/` and `src/lib.rs` names
    /// `crate::commands`, and no verb file names another verb file (uv's
    /// `commands/project`; style-by-example, "December 2026"). A verb that needs another
    /// verb's engine moves that engine below `commands/`.
    #[test]
    fn verbs_never_import_verbs_and_nothing_below_names_commands() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let commands = src.join("commands");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        // A verb is a file in `commands/` or a folder of its own (`commands/add/`).
        let mut verbs: Vec<String> = files
            .iter()
            .filter_map(|p| p.strip_prefix(&commands).ok()?.components().next())
            .filter_map(|c| {
                Path::new(c.as_os_str())
                    .file_stem()?
                    .to_str()
                    .map(str::to_owned)
            })
            .filter(|stem| stem != "mod")
            .collect();
        verbs.sort();
        verbs.dedup();
        assert!(
            verbs.len() > 10,
            "no verb files found in {}",
            commands.display()
        );
        let mut offences = Vec::new();
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            let shown = file.strip_prefix(&src).unwrap().display().to_string();
            if !file.starts_with(&commands) && shown != "lib.rs" {
                for hit in mentions(&text, "crate::commands") {
                    offences.push(format!(
                        "src/{shown}:{hit} (move what it needs below `commands/`)"
                    ));
                }
                continue;
            }
            let Some(me) = file
                .strip_prefix(&commands)
                .ok()
                .and_then(|p| p.components().next())
                .and_then(|c| Path::new(c.as_os_str()).file_stem()?.to_str())
            else {
                continue;
            };
            if me == "mod" {
                continue;
            }
            // Inside a verb's own folder, `super::` is that verb.
            let prefixes: &[&str] = if file.parent() == Some(commands.as_path()) {
                &["super::", "crate::commands::", "commands::"]
            } else {
                &["crate::commands::", "commands::"]
            };
            for verb in verbs.iter().filter(|v| *v != me) {
                for prefix in prefixes {
                    for hit in mentions(&text, &format!("{prefix}{verb}")) {
                        offences.push(format!(
                            "src/{shown}:{hit} (a verb names the verb `{verb}`: move the shared part into `session/` or beside its data)"
                        ));
                    }
                }
            }
        }
        assert!(offences.is_empty(), "{}", offences.join("\n"));
    }
}
