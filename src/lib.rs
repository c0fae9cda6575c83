//! mcpctl: manage MCP server entries across AI clients, losslessly, and prove they work.
//!
//! Data flow: `clients.toml` → `clients` (table) → `platform` (paths) → `fs` (bytes) →
//! `formats` (document) → `entry` (dialect) → `commands` (verb) → `output` (printing).
//! `run` is the only place an error becomes an exit code.

pub(crate) mod budget;
pub(crate) mod check;
pub(crate) mod cli;
pub(crate) mod clients;
pub(crate) mod commands;
pub(crate) mod doctor;
pub(crate) mod entry;
pub(crate) mod error;
pub(crate) mod fault;
pub(crate) mod formats;
pub(crate) mod fs;
pub(crate) mod handshake;
pub(crate) mod lock;
pub(crate) mod manifest;
pub(crate) mod oauth;
pub(crate) mod output;
pub(crate) mod picker;
pub(crate) mod platform;
pub(crate) mod policy;
pub(crate) mod registry;
pub(crate) mod secret_store;
pub(crate) mod secrets;
pub(crate) mod session;
pub(crate) mod sources;
pub(crate) mod state;
pub(crate) mod suggest;
pub(crate) mod toggle;
pub(crate) mod trust;
pub(crate) mod unset;
pub(crate) mod vars;

/// What the integration tests (`tests/`) use of the library, and nothing else: the client
/// table, the lint rules, the command line's definition, and the handshake they drive
/// against real MCP servers. Every module is crate-private, so code no command reaches
/// shows as dead.
pub mod api {
    pub mod handshake {
        pub use crate::handshake::{
            Era, Host, Launch, Opening, Phase, Probe, ProbeError, ProbeOptions, ProbeWarning,
            Status, TimeoutSource, ToolCall, call, prepare, probe, probe_many,
        };
    }
    pub mod entry {
        pub use crate::entry::{RemoteKind, Transport};
    }
    pub mod platform {
        pub use crate::platform::Os;
    }
    pub mod clients {
        pub use crate::clients::ClientTable;
    }
    pub mod check {
        pub use crate::check::RULES;
        pub use crate::check::rules::markdown_table;
    }
    pub mod cli {
        pub use crate::cli::Cli;
    }
}

/// The floors of the house, lowest first: a module names modules on its own floor or
/// below, never above, and no circle of modules names each other (the test
/// `every_module_stands_on_its_floor_and_nothing_names_one_above` holds every file to it).
/// Data flows up: the table (`clients.toml`) and the platform's paths, bytes and
/// documents, an entry in a client's dialect, what mcpctl recorded and the protocol,
/// then the session every command stands on, the engines, and the verbs on top.
pub const FLOORS: &[(&str, &[&str])] = &[
    (
        "ground: errors, faults, the platform and its paths, variable syntax",
        &["error", "fault", "platform", "suggest", "picker", "vars"],
    ),
    ("bytes and documents", &["fs", "formats"]),
    ("the client table", &["clients", "sources", "trust"]),
    (
        "an entry in a client's dialect",
        &["entry", "policy", "secrets", "unset"],
    ),
    ("records and printing", &["state", "secret_store", "output"]),
    (
        "the protocol, the lint rules, the registry, the command line",
        &["oauth", "handshake", "lock", "check", "registry", "cli"],
    ),
    ("the session every command stands on", &["session"]),
    ("engines", &["toggle", "doctor", "manifest", "budget"]),
    ("verbs", &["commands"]),
];

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::FromArgMatches;

use crate::cli::Cli;
use crate::clients::ClientTable;
use crate::error::{ExitStatus, UserError};
use crate::output::Printer;
use crate::platform::Platform;
use crate::session::Context;

/// Run mcpctl with these arguments (the first is the program name).
pub fn run<I: IntoIterator<Item = OsString>>(args: I) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().collect();
    // The guard of another mcpctl's servers (`handshake::process`), not a command.
    if args
        .get(1)
        .is_some_and(|a| a == handshake::process::GUARD_ARG)
    {
        return handshake::process::guard(
            &args.get(2).map(|a| a.to_string_lossy()).unwrap_or_default(),
        );
    }
    handshake::process::guard_servers();
    // Bare `mcpctl` is asking what there is: the help on stdout, exit 0, as `gh` and
    // `cargo` do (clap's own answer is a usage error on stderr).
    if args.len() <= 1 {
        return ExitCode::from(if cli::command().print_help().is_ok() {
            0
        } else {
            2
        });
    }
    // What `Cli::try_parse_from` does, keeping the matches for the journal's label.
    let parsed = cli::command()
        .try_get_matches_from(&args)
        .and_then(|mut matches| {
            let label = commands::Label::of(&matches);
            Cli::from_arg_matches_mut(&mut matches)
                .map(|cli| (cli, label))
                .map_err(|e| e.format(&mut cli::command()))
        });
    let (cli, label) = match parsed {
        Ok(parsed) => parsed,
        Err(e) => {
            // `--json` before any `--`: the error is JSON too (docs/reference/json.md).
            let json = args
                .iter()
                .skip(1)
                .take_while(|a| *a != "--")
                .any(|a| a == "--json");
            let printer = Printer::new(json, false, output::ColorWhen::Auto, true);
            if e.kind() == clap::error::ErrorKind::InvalidSubcommand
                && let Some(error) = foreign_verb(&args)
            {
                printer.error(&error);
                if printer.said_mcpctl()
                    && let Some(how) = how_to_run(&Platform::from_env(None), printer.stderr_tty)
                {
                    printer.note(&how);
                }
                return ExitStatus::Error.into();
            }
            if let Some(error) = scope_typo(&e) {
                printer.error(&error);
                return ExitStatus::Error.into();
            }
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (2).
            if !e.use_stderr() {
                let _ = e.print();
                return ExitCode::from(0);
            }
            printer.usage_error(&e);
            return ExitCode::from(2);
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
    printer.set_home(platform.home().ok());
    printer.set_dry_run(commands::dry_run(&cli.command));
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
        Ok(ctx) => Context {
            // `--here` without `--project` means the repository the working directory is in.
            project: if commands::here(&command) && cli.global.project.is_none() {
                toggle::here::repository(&ctx.project)
            } else {
                ctx.project.clone()
            },
            write_empty: commands::forced(&command),
            rejected: commands::rejected(&command),
            ..ctx
        },
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
    // A hint said `mcpctl …`, but this mcpctl is not on PATH (`cargo run`, a build in a
    // clone): say how to run it.
    if printer.said_mcpctl()
        && let Some(how) = how_to_run(&ctx.platform, printer.stderr_tty)
    {
        printer.note(&how);
    }
    // A closed stdout (`mcpctl doctor | head -1`) is not an error of its own, and it
    // does not hide one either: the verdict (1 = problems found) is kept.
    status.into()
}

/// How to run this mcpctl where a hint says `mcpctl …` and no `mcpctl` is on PATH: by
/// its path, or `cargo run --` in the clone it was built in (and how to install it).
/// Said to whoever runs it through `cargo run` (cargo sets `CARGO_MANIFEST_DIR`), or
/// at a terminal; `None` when `mcpctl` is on PATH, or for a script reading the output.
fn how_to_run(platform: &Platform, terminal: bool) -> Option<String> {
    let cargo_run = platform.var("CARGO_MANIFEST_DIR").is_some();
    if !(cargo_run || terminal) || platform.on_path("mcpctl") {
        return None;
    }
    let exe = platform.exe()?;
    let shown = exe.display().to_string();
    // `<clone>/target/<profile>/mcpctl` (or `<clone>/target/<triple>/<profile>/mcpctl`).
    let clone = session::program::source_build(&shown)
        .then(|| {
            exe.ancestors()
                .find(|a| a.file_name().is_some_and(|n| n == "target"))
                .and_then(std::path::Path::parent)
        })
        .flatten()
        .filter(|clone| clone.join("Cargo.toml").is_file());
    Some(match clone {
        Some(clone) => format!(
            "mcpctl is not on PATH: where a line above says `mcpctl …`, run `{shown} …` (or `cargo run -- …` in `{}`); `cargo install --locked --path {}` puts it on PATH",
            clone.display(),
            clone.display()
        ),
        None => {
            format!("mcpctl is not on PATH: where a line above says `mcpctl …`, run `{shown} …`")
        }
    })
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
        match ctx.platform.os {
            platform::Os::Windows => "`cmd /c npx …`, Windows paths",
            platform::Os::Macos => "its paths, such as `~/Library/…`",
            platform::Os::Linux => "its paths, such as `~/.config/…`",
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

/// `--scope globl`: clap suggests only the visible values (`local`), not the `global`
/// alias of `user` that was meant; the scope words are matched here, aliases included.
fn scope_typo(e: &clap::Error) -> Option<anyhow::Error> {
    use clap::error::{ContextKind, ContextValue};
    if e.kind() != clap::error::ErrorKind::InvalidValue {
        return None;
    }
    let arg = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) => arg,
        _ => return None,
    };
    if !arg.starts_with("--scope") {
        return None;
    }
    let value = match e.get(ContextKind::InvalidValue) {
        Some(ContextValue::String(value)) => value,
        _ => return None,
    };
    let meant = suggest::closest(value, ["user", "global", "project", "local"])?;
    let said = match meant {
        "global" | "user" => "`--scope user` (also spelled `global`, or `-g`)".to_owned(),
        other => format!("`--scope {other}`"),
    };
    Some(
        UserError::new(format!(
            "invalid scope `{value}`: did you mean {said}?"
        ))
        .hint("the scopes are user (every project), project (this project's file) and local (this project, in the user file)")
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
        write_empty: false,
        rejected: session::Rejected::Refuse { force: false },
        planned: std::sync::Mutex::default(),
    })
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::{Path, PathBuf};

    use crate::commands::tests::rust_files;

    use super::FLOORS;

    /// The code of a source file without its tests (`#[cfg(test)]` onwards; a `tests.rs`
    /// file is all test).
    fn code_of(path: &Path) -> String {
        if path.file_name().is_some_and(|n| n == "tests.rs") {
            return String::new();
        }
        let text = std::fs::read_to_string(path).unwrap_or_default();
        text.split("#[cfg(test)]")
            .next()
            .unwrap_or_default()
            .to_owned()
    }

    /// The names `prefix` is followed by in `code` (`crate::entry::X` → `entry`), with
    /// the line each is first named on.
    fn named_after(code: &str, prefix: &str) -> Vec<(String, usize)> {
        let mut out = Vec::new();
        for (n, line) in code.lines().enumerate() {
            let trimmed = line.trim_start();
            if trimmed.starts_with("//") {
                continue;
            }
            for (at, _) in line.match_indices(prefix) {
                let before = line[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                let name: String = line[at + prefix.len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.push((name, n + 1));
                }
            }
        }
        out
    }

    /// The modules directly in `dir` (files and folders; `mod.rs`, `main.rs` and
    /// `lib.rs` are not modules of their own), each with its source files.
    fn modules_in(dir: &Path) -> BTreeMap<String, Vec<PathBuf>> {
        let mut out = BTreeMap::new();
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()).map(str::to_owned) else {
                continue;
            };
            if matches!(stem.as_str(), "mod" | "main" | "lib") {
                continue;
            }
            let files: &mut Vec<PathBuf> = out.entry(stem).or_default();
            if path.is_dir() {
                rust_files(&path, files);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
        out.retain(|_, files| !files.is_empty());
        out
    }

    /// Arrows between the modules of one folder: `a → b` where a file of `a` names
    /// `PREFIX::b` (`crate::session::edit`, or `super::edit` from a file directly in the
    /// folder), each with where it is named.
    fn arrows(
        src: &Path,
        modules: &BTreeMap<String, Vec<PathBuf>>,
        prefix: &str,
        dir: &Path,
    ) -> BTreeMap<(String, String), String> {
        let mut out = BTreeMap::new();
        for (me, files) in modules {
            for file in files {
                let code = code_of(file);
                let mut names = named_after(&code, prefix);
                if file.parent() == Some(dir) && prefix != "crate::" {
                    names.extend(named_after(&code, "super::"));
                }
                for (name, line) in names {
                    if &name != me && modules.contains_key(&name) {
                        out.entry((me.clone(), name)).or_insert_with(|| {
                            format!(
                                "src/{}:{line}",
                                file.strip_prefix(src).unwrap_or(file).display()
                            )
                        });
                    }
                }
            }
        }
        out
    }

    /// A cycle among `arrows`, if there is one, as `a → b → … → a`.
    fn cycle(arrows: &BTreeMap<(String, String), String>) -> Option<Vec<String>> {
        let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (a, b) in arrows.keys() {
            next.entry(a.as_str()).or_default().push(b.as_str());
        }
        // Depth first; `open` is the current path.
        fn visit<'a>(
            at: &'a str,
            next: &BTreeMap<&'a str, Vec<&'a str>>,
            open: &mut Vec<&'a str>,
            done: &mut BTreeSet<&'a str>,
        ) -> Option<Vec<String>> {
            if let Some(i) = open.iter().position(|m| *m == at) {
                let mut found: Vec<String> = open[i..].iter().map(|m| (*m).to_owned()).collect();
                found.push(at.to_owned());
                return Some(found);
            }
            if !done.insert(at) {
                return None;
            }
            open.push(at);
            for to in next.get(at).into_iter().flatten() {
                if let Some(found) = visit(to, next, open, done) {
                    return Some(found);
                }
            }
            open.pop();
            None
        }
        let mut done = BTreeSet::new();
        next.keys()
            .find_map(|start| visit(start, &next, &mut Vec::new(), &mut done))
    }

    /// Design §1 and §7: every module of `src/` stands on one floor of [`FLOORS`], names
    /// only modules on its own floor or below, and the modules never name each other in
    /// a circle (so no two import each other); inside every folder, likewise, its
    /// modules form no circle.
    #[test]
    fn every_module_stands_on_its_floor_and_nothing_names_one_above() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let modules = modules_in(&src);
        let mut floor_of: BTreeMap<&str, usize> = BTreeMap::new();
        for (floor, (_, names)) in FLOORS.iter().enumerate() {
            for name in *names {
                assert!(
                    floor_of.insert(name, floor).is_none(),
                    "`{name}` stands on two floors of FLOORS"
                );
            }
        }
        let listed: BTreeSet<&str> = floor_of.keys().copied().collect();
        let present: BTreeSet<&str> = modules.keys().map(String::as_str).collect();
        assert_eq!(
            listed, present,
            "FLOORS in src/lib.rs must name every module of src/ once"
        );
        assert!(FLOORS.len() <= 9, "more than nine floors");

        let top = arrows(&src, &modules, "crate::", &src);
        let mut offences = Vec::new();
        for ((from, to), at) in &top {
            let (f, t) = (floor_of[from.as_str()], floor_of[to.as_str()]);
            if t > f {
                offences.push(format!(
                    "{at}: `{from}` (floor {}, {}) names `{to}` (floor {}, {}) above it",
                    f + 1,
                    FLOORS[f].0,
                    t + 1,
                    FLOORS[t].0
                ));
            }
        }
        if let Some(circle) = cycle(&top) {
            offences.push(format!("modules in a circle: {}", circle.join(" → ")));
        }
        // Inside each folder, at every depth.
        let mut folders = Vec::new();
        let mut stack = vec![(src.clone(), "crate".to_owned())];
        while let Some((dir, path)) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{e}")) {
                let sub = entry.unwrap_or_else(|e| panic!("{e}")).path();
                if sub.is_dir()
                    && let Some(name) = sub.file_name().and_then(|n| n.to_str())
                {
                    stack.push((sub.clone(), format!("{path}::{name}")));
                    folders.push((sub.clone(), format!("{path}::{name}::")));
                }
            }
        }
        for (dir, prefix) in &folders {
            let inner = modules_in(dir);
            let inner_arrows = arrows(&src, &inner, prefix, dir);
            if let Some(circle) = cycle(&inner_arrows) {
                let at: Vec<&str> = circle
                    .windows(2)
                    .filter_map(|w| inner_arrows.get(&(w[0].clone(), w[1].clone())))
                    .map(String::as_str)
                    .collect();
                offences.push(format!(
                    "modules of `{}` in a circle: {} (at {})",
                    prefix.trim_end_matches("::"),
                    circle.join(" → "),
                    at.join(", ")
                ));
            }
        }
        assert!(offences.is_empty(), "{}", offences.join("\n"));
    }

    /// The test above finds what it is meant to find.
    #[test]
    fn a_circle_is_found() {
        let arrows: BTreeMap<(String, String), String> = [("a", "b"), ("b", "c"), ("c", "a")]
            .into_iter()
            .map(|(a, b)| ((a.to_owned(), b.to_owned()), String::new()))
            .collect();
        assert_eq!(
            cycle(&arrows).map(|c| c.join(" ")).as_deref(),
            Some("a b c a")
        );
        let mut open = arrows.clone();
        open.remove(&("c".to_owned(), "a".to_owned()));
        assert_eq!(cycle(&open), None);
        assert_eq!(
            named_after(
                "use crate::entry::X;\n// crate::fs\nx::crate::no",
                "crate::"
            ),
            [("entry".to_owned(), 1)]
        );
    }
}
