//! mcpctl: manage MCP server entries across AI clients, losslessly, and prove they work.
//!
//! Data flow: `clients.toml` → `clients` (table) → `platform` (paths) → `fs` (bytes) →
//! `formats` (document) → `entry` (dialect) → `commands` (verb) → `output` (printing).
//! `run` is the only place an error becomes an exit code.

pub mod check;
pub mod cli;
pub mod clients;
pub mod commands;
pub mod entry;
pub mod error;
pub mod fault;
pub mod formats;
pub mod fs;
pub mod handshake;
pub mod loads;
pub mod manifest;
pub mod output;
pub mod picker;
pub mod platform;
pub mod policy;
pub mod registry;
pub mod secret_store;
pub mod secrets;
pub mod session;
pub mod sources;
pub mod state;
pub mod suggest;
pub mod toggle;
pub mod trust;
pub mod unset;
pub mod vars;

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

use crate::cli::Cli;
use crate::clients::ClientTable;
use crate::error::{ExitStatus, UserError};
use crate::output::Printer;
use crate::platform::Platform;
use crate::session::Context;

/// Run mcpctl with these arguments (the first is the program name).
pub fn run<I: IntoIterator<Item = OsString>>(args: I) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().collect();
    // What `Cli::try_parse_from` does, keeping the matches for the journal's label.
    let parsed = Cli::command()
        .try_get_matches_from(&args)
        .and_then(|mut matches| {
            let label = commands::Label::of(&matches);
            Cli::from_arg_matches_mut(&mut matches)
                .map(|cli| (cli, label))
                .map_err(|e| e.format(&mut Cli::command()))
        });
    let (cli, label) = match parsed {
        Ok(parsed) => parsed,
        Err(e) => {
            if e.kind() == clap::error::ErrorKind::InvalidSubcommand
                && let Some(error) = foreign_verb(&args)
            {
                let printer = Printer::new(false, false, output::ColorWhen::Auto, true);
                printer.error(&error);
                return ExitStatus::Error.into();
            }
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (2).
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let platform = Platform::from_env(cli.global.platform);
    fault::arm(
        platform.var("MCPCTL_FAULT"),
        platform.var("MCPCTL_FAULT_GATE"),
    );
    let no_color = platform.var("NO_COLOR").is_some();
    let mut printer = Printer::new(
        cli.global.json,
        cli.global.quiet,
        cli.global.color,
        no_color,
    );
    printer.set_width(
        platform
            .var("COLUMNS")
            .and_then(|c| c.trim().parse().ok())
            .or_else(output::terminal_width),
    );
    // The launcher and the bridge start servers for clients: no client table, no
    // context, nothing on stdout but the protocol.
    let command = match commands::without_context(cli.command, &platform, &printer) {
        Ok(code) => return code,
        Err(other) => *other,
    };
    let argv = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let ctx = match context(&cli.global, platform, argv) {
        Ok(ctx) => ctx,
        Err(error) => {
            printer.error(&error);
            return ExitStatus::Error.into();
        }
    };
    if let Err(error) = foreign_platform(&cli.global, &command, &ctx) {
        printer.error(&error);
        return ExitStatus::Error.into();
    }
    ctx.state.set_command(&label.with(&[]));
    // A command that died mid-write left an intent: it becomes the journal record first.
    if let Err(error) = ctx.state.recover() {
        printer.error(&error);
        return ExitStatus::Error.into();
    }
    let mut status = match commands::run(command, &ctx, &mut printer) {
        Ok(status) => status,
        Err(error) if error.is::<picker::Cancelled>() => {
            printer.note("cancelled: nothing was changed");
            ExitStatus::Cancelled
        }
        Err(error) => {
            printer.error(&error);
            ExitStatus::Error
        }
    };
    // Remember what the command wrote (ledger, journal), also after a failure.
    if let Err(error) = ctx.state.finish(&label.with(&ctx.state.names_changed())) {
        printer.error(&error);
        status = ExitStatus::Error;
    }
    // A closed stdout (`mcpctl doctor | head -1`) is not an error of its own, and it
    // does not hide one either: the verdict (1 = problems found) is kept.
    status.into()
}

/// `--platform windows` on a Linux machine resolves Windows paths and writes `cmd /c`:
/// right for a preview, wrong for this machine's own files. A writing command needs
/// `--dry-run` or `--force-platform` (a home shared with that OS).
fn foreign_platform(
    global: &cli::GlobalArgs,
    command: &cli::Command,
    ctx: &Context,
) -> anyhow::Result<()> {
    let host = platform::Os::host();
    if ctx.platform.os == host || global.force_platform || !commands::writes(command) {
        return Ok(());
    }
    let os = ctx.platform.os.as_str();
    Err(UserError::new(format!(
        "`--platform {os}` on this {} machine would write {os}'s spelling ({}) into the files this machine's clients read; nothing was written",
        host.as_str(),
        if ctx.platform.os == platform::Os::Windows {
            "`cmd /c npx …`, Windows paths"
        } else {
            "its paths, such as `~/Library/…`"
        }
    ))
    .hint(format!(
        "add `--dry-run` to see what would be written on {os}, or `--force-platform` if these files really are used on {os}"
    ))
    .into())
}

/// `mcpctl install X`, `mcpctl mcp add X -- …`: the line that does it, instead of clap's
/// "similar subcommands" (`disable`, `copy`), which are rarely what was meant.
fn foreign_verb(args: &[OsString]) -> Option<anyhow::Error> {
    let words: Vec<String> = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let (word, line) = suggest::foreign_verb(&words)?;
    Some(
        UserError::new(format!("`{word}` is not an mcpctl command"))
            .hint(format!("try `{line}`; `mcpctl --help` lists the commands"))
            .into(),
    )
}

fn context(
    global: &cli::GlobalArgs,
    platform: Platform,
    argv: Vec<String>,
) -> anyhow::Result<Context> {
    let extra = match &global.clients_file {
        Some(path) => Some((
            std::fs::read_to_string(path).map_err(|e| {
                UserError::new(format!(
                    "cannot read client table `{}`: {e}",
                    path.display()
                ))
                .hint("check the path given with `--clients` or MCPCTL_CLIENTS")
            })?,
            path.display().to_string(),
        )),
        None => None,
    };
    let table = ClientTable::with_overrides(extra.as_ref().map(|(t, o)| (t.as_str(), o.as_str())))
        .map_err(|e| {
            UserError::new(e.to_string()).hint("fix the table file; unknown fields are rejected")
        })?;
    let project = match &global.project {
        Some(dir) if dir.is_absolute() => dir.clone(),
        Some(dir) => platform.cwd.join(dir),
        None => platform.cwd.clone(),
    };
    let interactive =
        !global.no_input && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let state = state::State::new(fs::state_dir(
        platform
            .var("MCPCTL_STATE_DIR")
            .map(PathBuf::from)
            .as_deref(),
    ));
    Ok(Context {
        backups: state.backups(),
        platform,
        table,
        project,
        interactive,
        state,
        argv,
        json: global.json,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::commands::tests::{mentions, rust_files};

    /// The table does not know the dialect, the format layer does not know entries, the
    /// variable syntax does not know the table, and state does not know the manifest
    /// (design §1: table → platform paths → format document → dialect → command).
    #[test]
    fn lower_layers_never_name_higher_ones() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let rules: &[(&str, &[&str])] = &[
            ("clients", &["crate::entry"]),
            ("formats", &["crate::entry", "crate::clients"]),
            ("vars", &["crate::clients", "crate::entry"]),
            (
                "state",
                &["crate::manifest", "crate::session", "crate::commands"],
            ),
            (
                "entry",
                &["crate::session", "crate::commands", "crate::manifest"],
            ),
        ];
        let mut offences = Vec::new();
        for (module, banned) in rules {
            let mut files = Vec::new();
            let dir = src.join(module);
            if dir.is_dir() {
                rust_files(&dir, &mut files);
            }
            let single = src.join(format!("{module}.rs"));
            if single.is_file() {
                files.push(single);
            }
            assert!(!files.is_empty(), "no source for `{module}`");
            for file in files {
                let text = std::fs::read_to_string(&file).unwrap();
                // Tests may build a table or an entry to test with.
                let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                for name in *banned {
                    for hit in mentions(code, name) {
                        offences.push(format!(
                            "{}:{hit} (`{module}` must not name `{name}`)",
                            file.strip_prefix(&src).unwrap().display()
                        ));
                    }
                }
            }
        }
        assert!(offences.is_empty(), "{}", offences.join("\n"));
    }
}
