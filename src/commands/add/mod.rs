//! `mcpctl add`: build one canonical entry from the flags, then write it into each
//! target client's file in that client's dialect, reporting every file.

mod placeholders;
pub(super) mod registry;
mod spec;

use crate::check::{pattern_secret, secret_name};
use crate::cli::{AddArgs, TransportArg};
use crate::clients::Scope;
use crate::entry::snippet::ManyServers;
use crate::entry::{self, RemoteKind, ServerEntry, Transport};
use crate::error::{ExitStatus, UserError};
use crate::output::{Printer, redact};
use crate::platform::Os;
use crate::session::Context;
use crate::session::targets;
use crate::session::write::{Flags, refuse_reserved_name, validate_url, with_secrets};
use spec::{Spec, build_entry};

/// Whether `flag` was typed on the command line (before any `--`), as opposed to set
/// from the environment (`MCPCTL_REGISTRY`, which the README suggests exporting).
fn typed(ctx: &Context, flag: &str) -> bool {
    let with_value = format!("{flag}=");
    ctx.argv
        .iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == flag || a.starts_with(&with_value))
}

pub fn run(args: AddArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let AddArgs {
        name,
        stray,
        targets: target_args,
        scope,
        global,
        env,
        headers,
        secrets,
        cwd,
        url,
        transport,
        from_json,
        force,
        dry_run,
        no_wrap,
        login,
        no_browser,
        command,
        vars,
        package,
        remote,
        entry_name,
        registry,
    } = args;
    if !vars.is_empty()
        || package.is_some()
        || remote
        || entry_name.is_some()
        || (registry.registry.is_some() && typed(ctx, "--registry"))
    {
        return Err(UserError::new(
            "`--var`, `--package`, `--remote`, `--name` and `--registry` are for servers from the MCP Registry",
        )
        .hint(
            "name a registry server (`mcpctl add io.github.owner/server`), or drop those flags to add a server from a command, a URL or `--from-json`",
        )
        .into());
    }
    let scope = if global { Scope::User } else { scope };
    let url = positional_url(
        ctx,
        &stray,
        url,
        transport,
        from_json.is_some() || !command.is_empty(),
    )?;
    let kind = remote_kind(transport, url.as_deref())?;
    // `--dry-run` typed after `--` was almost always meant for mcpctl: writing would be
    // the harmful reading of it, so nothing is written (the diff shows the entry as the
    // server would get it).
    let dry_run = warn_flags_after_dashes(printer, &command) || dry_run;
    let snippet = from_json.as_deref().map(read_json_arg).transpose()?;
    let remote = url.map(|u| (u, kind));
    let build = |name: Option<String>| {
        build_entry(
            name,
            &env,
            &headers,
            cwd.clone(),
            remote.clone(),
            snippet.as_deref(),
            command.clone(),
        )
    };
    // A snippet of several servers (a README's whole `mcpServers`) adds each of them.
    let specs: Vec<Spec> = match build(name) {
        Ok(spec) => vec![spec],
        Err(error) => match error.downcast_ref::<ManyServers>() {
            Some(ManyServers(names)) => {
                printer.note(&format!(
                    "the snippet has {} servers; adding each: {}",
                    names.len(),
                    names.join(", ")
                ));
                names
                    .iter()
                    .map(|n| build(Some(n.clone())))
                    .collect::<anyhow::Result<_>>()?
            }
            None => return Err(error),
        },
    };
    for spec in &specs {
        for note in &spec.notes {
            printer.warn(note);
        }
        entry::validate_name(&spec.name)
            .map_err(|m| UserError::new(m).hint("pick a short name such as `github`"))?;
        if let Transport::Remote { url, .. } = &spec.entry.transport {
            validate_url(url)?;
        }
        warn_plaintext_secrets(printer, &spec.name, &spec.entry);
        warn_missing_command(ctx, printer, &spec.entry);
        // Written as given (the client may have it set); said once, the same way
        // `list`, `check` and `doctor` say it (`unset`).
        for unset in crate::unset::find_here(&ctx.platform, &spec.entry.transport) {
            printer.warn(&unset.sentence(&spec.name, None));
        }
    }
    let specs = if login {
        signed_in(
            ctx,
            printer,
            specs,
            !secrets.is_empty(),
            dry_run,
            no_browser,
        )?
    } else {
        specs
    };
    let specs = specs
        .into_iter()
        .map(|mut spec| {
            spec.entry = with_secrets(ctx, printer, spec.entry, &secrets)?;
            Ok(spec)
        })
        .collect::<anyhow::Result<Vec<Spec>>>()?;
    // README placeholders: a path is said (the entry is written), a secret refused unless
    // `--force` (after `--secret`, which may have taken its place).
    for spec in &specs {
        let (paths, secrets) = placeholders::find(&spec.entry);
        if !paths.is_empty() {
            printer.warn(&placeholders::path_warning(&spec.name, &paths));
        }
        if !secrets.is_empty() && !force {
            return Err(placeholders::secret_refusal(&spec.name, &secrets));
        }
    }
    let clients = targets::choose(ctx, &target_args, "add", &|_| true)?;
    for spec in &specs {
        refuse_reserved_name(&clients, &spec.name)?;
    }
    let report = spec::write_each(
        ctx,
        printer,
        &clients,
        scope,
        &specs,
        Flags {
            force,
            dry_run,
            no_wrap,
        },
    );
    printer.emit(&report)
}

/// `add NAME --url URL --login`: sign in (unless a live sign-in for that URL is kept) and
/// make the entry mcpctl's bridge with `--oauth NAME`, so every client reaches the server
/// with mcpctl's token. With `--dry-run`, only the entry is shown.
fn signed_in(
    ctx: &Context,
    printer: &Printer,
    mut specs: Vec<Spec>,
    secrets: bool,
    dry_run: bool,
    no_browser: bool,
) -> anyhow::Result<Vec<Spec>> {
    let wrong = || {
        UserError::new("`--login` signs in to one remote server")
            .hint("mcpctl add NAME --url URL --login")
    };
    let [spec] = specs.as_mut_slice() else {
        return Err(wrong().into());
    };
    let Transport::Remote { url, kind, headers } = &spec.entry.transport else {
        return Err(wrong().into());
    };
    if secrets {
        return Err(
            UserError::new("`--login` and `--secret` do not go together")
                .hint("the bridge sends the sign-in's token; give other headers with --header")
                .into(),
        );
    }
    if !dry_run {
        let store = ctx.secret_store();
        let kept = crate::oauth::load(&store, &crate::oauth::secret_name(&spec.name))?;
        // A kept sign-in for this URL that is live or can be renewed is used as it is.
        match kept.filter(|g| g.server == *url && (!g.due(0) || g.refresh_token.is_some())) {
            Some(grant) => printer.note(&format!(
                "already signed in to `{}` ({url}){}",
                spec.name,
                grant.expiry_text()
            )),
            None => {
                crate::oauth::person::sign_in(
                    printer,
                    &ctx.platform,
                    &store,
                    &spec.name,
                    url,
                    &crate::oauth::person::Options {
                        no_browser,
                        device: false,
                        // As `login` takes it (its --client-metadata-url's variable).
                        client_metadata_url: std::env::var("MCPCTL_CLIENT_METADATA_URL")
                            .ok()
                            .filter(|u| !u.is_empty()),
                        client_id: None,
                        scope: None,
                        callback_port: None,
                        timeout: std::time::Duration::from_secs(300),
                    },
                )?;
            }
        }
    }
    let args = crate::entry::launcher::oauth_bridge_args(url, *kind, headers, &spec.name);
    spec.entry.transport = Transport::Stdio {
        command: crate::session::write::program(ctx)?,
        args,
        env: crate::entry::StringMap::new(),
        cwd: None,
    };
    Ok(specs)
}

/// Words after NAME that are neither flags nor after `--`: a URL, as `claude mcp add
/// --transport http NAME URL` takes it, or a command typed without `--` (an error that
/// shows the corrected line).
fn positional_url(
    ctx: &Context,
    stray: &[String],
    url: Option<String>,
    transport: Option<TransportArg>,
    other_source: bool,
) -> anyhow::Result<Option<String>> {
    if stray.is_empty() {
        return Ok(url);
    }
    if let [one] = stray
        && looks_like_url(one)
        && url.is_none()
        && !other_source
    {
        if transport.and_then(TransportArg::remote).is_some() {
            return Ok(Some(one.clone()));
        }
        let line = corrected_line(&ctx.argv, stray, &["--url".to_owned(), one.clone()], false);
        return Err(UserError::new(format!(
            "`{one}` looks like a remote server's URL, but no remote transport was given"
        ))
        .hint(format!(
            "write `{line}` (or `--transport http NAME URL`, as `claude mcp add` takes it)"
        ))
        .into());
    }
    let line = corrected_line(&ctx.argv, stray, stray, true);
    Err(UserError::new(format!(
        "unexpected `{}` after the server name",
        stray.join(" ")
    ))
    .hint(format!("put the server command after `--`: `{line}`"))
    .into())
}

/// The command line with the `stray` words (found from the right) replaced by
/// `replacement`, in their place or after `--` (added when missing).
fn corrected_line(
    argv: &[String],
    stray: &[String],
    replacement: &[String],
    after_dashes: bool,
) -> String {
    let words: Vec<&String> = argv.iter().skip(1).collect();
    let mut marked = vec![false; words.len()];
    let mut want = stray.iter().rev().peekable();
    for (i, word) in words.iter().enumerate().rev() {
        if want.peek() == Some(word) {
            marked[i] = true;
            want.next();
        }
    }
    let mut out: Vec<String> = vec!["mcpctl".to_owned()];
    let mut placed = false;
    for (i, word) in words.iter().enumerate() {
        if marked[i] {
            if !after_dashes && !placed {
                out.extend(replacement.iter().cloned());
                placed = true;
            }
            continue;
        }
        out.push((*word).clone());
        if after_dashes && *word == "--" && !placed {
            out.extend(replacement.iter().cloned());
            placed = true;
        }
    }
    if !placed {
        out.push("--".to_owned());
        out.extend(replacement.iter().cloned());
    }
    out.iter()
        .map(|w| shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A word as a POSIX shell would need it typed.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

fn looks_like_url(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The remote kind from `--transport` and whether a URL was given.
/// The remote transport: `--transport` when given, else what the URL names (`/sse` is the
/// legacy transport, as `check --fix` infers it too).
fn remote_kind(transport: Option<TransportArg>, url: Option<&str>) -> anyhow::Result<RemoteKind> {
    match (transport, url.is_some()) {
        (Some(TransportArg::Stdio), true) => Err(UserError::new(
            "`--transport stdio` runs a command, but a URL was given",
        )
        .hint("use `--transport http` (or `sse`) for a remote server")
        .into()),
        (Some(t), false) if t.remote().is_some() => Err(UserError::new(format!(
            "`--transport {}` needs the server's URL",
            if t == TransportArg::Http {
                "http"
            } else {
                "sse"
            }
        ))
        .hint("write `mcpctl add NAME -c ID --transport http https://example.com/mcp`")
        .into()),
        (t, _) => Ok(t
            .and_then(TransportArg::remote)
            .unwrap_or_else(|| url.map_or(RemoteKind::Http, RemoteKind::of_url))),
    }
}

/// Long flags of mcpctl's that servers commonly take as well.
const SERVER_FLAGS: &[&str] = &[
    "help", "version", "env", "header", "name", "cwd", "url", "var", "project", "quiet", "color",
    "json", "registry", "timeout",
];

/// `--dry-run` after `--` goes to the server: right, but rarely meant. True when
/// `--dry-run` is among them: the caller writes nothing.
fn warn_flags_after_dashes(printer: &Printer, command: &[String]) -> bool {
    use clap::CommandFactory;
    let cli = crate::cli::Cli::command();
    let ours: Vec<String> = cli
        .get_arguments()
        .chain(
            cli.find_subcommand("add")
                .into_iter()
                .flat_map(|c| c.get_arguments()),
        )
        .filter_map(|a| a.get_long())
        // Servers take these too (`docker run --env`, `--port`): no warning for them.
        .filter(|long| !SERVER_FLAGS.contains(long))
        .map(|long| format!("--{long}"))
        .collect();
    let mut dry_run = false;
    for word in command.iter().skip(1) {
        let flag = word.split('=').next().unwrap_or(word);
        if flag == "--dry-run" {
            dry_run = true;
            printer.warn(
                "`--dry-run` after `--` belongs to the server's command, but nothing is written while it is there: put it before `--` for mcpctl's dry run, or give the entry with `--from-json` if the server takes `--dry-run` itself",
            );
        } else if ours.iter().any(|o| o == flag) {
            printer.warn(&format!(
                "`{flag}` after `--` is passed to the server, not to mcpctl; put it before `--` if you meant mcpctl's"
            ));
        }
    }
    dry_run
}

/// A command that is not on PATH (a typo, a tool not installed yet) is still written (the
/// client may see another PATH), but said now rather than at the first `doctor`. Only
/// for this host's own platform, and not for paths or variable references.
fn warn_missing_command(ctx: &Context, printer: &Printer, entry: &ServerEntry) {
    let Transport::Stdio { command, args, .. } = &entry.transport else {
        return;
    };
    if ctx.platform.os != Os::host() {
        return;
    }
    let plain = !command.is_empty() && !command.contains(['/', '\\', '$', '{', '%']);
    if plain && !ctx.platform.on_path(command) {
        printer.warn(&format!(
            "`{command}` is not on PATH here: the entry is written, but a client with this PATH cannot start it; install it, or give its full path (`mcpctl doctor` checks again)"
        ));
    }
    // `npx -y pkg`: the rule `check` applies (MCP402), said when the entry is made, with
    // the way to the version to pin.
    if let Some((_, package)) = crate::check::rules::security::unpinned_package(command, args) {
        let bare = package.trim_end_matches("@latest");
        printer.note(&format!(
            "`{bare}` is not pinned: every start may fetch a new release; pin a version as `{bare}@VERSION` (`npm view {bare} version` names the newest; `mcpctl check` flags it as MCP402)"
        ));
    }
    // `node /path/to/server.js`: the command is there, the script it runs is not.
    // A README placeholder (`/path/to/server.js`) is said as one (`placeholders`).
    for script in args
        .iter()
        .filter(|arg| is_script_path(arg) && !placeholders::is_placeholder_path(arg))
    {
        if !std::path::Path::new(script).exists() {
            printer.warn(&format!(
                "`{script}` does not exist here: the entry is written, but `{command}` will fail to start it; check the path (README placeholders such as `/path/to/…` need your own)"
            ));
        }
    }
}

/// An absolute path to a script or program file an interpreter runs (`/srv/index.js`,
/// `C:\\srv\\server.py`): worth checking it exists.
fn is_script_path(arg: &str) -> bool {
    const SCRIPTS: &[&str] = &[
        "js", "mjs", "cjs", "ts", "mts", "py", "rb", "php", "pl", "jar", "sh", "ps1",
    ];
    let absolute = std::path::Path::new(arg).is_absolute()
        || arg.get(1..3).is_some_and(|s| s == ":\\" || s == ":/");
    let extension = arg
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .filter(|ext| !ext.contains(['/', '\\']));
    absolute
        && !arg.contains(['$', '{', '%'])
        && extension.is_some_and(|ext| SCRIPTS.contains(&ext.as_str()))
}

/// Literal secrets given with `-e`/`-H` end up in plain text in every client's file: say
/// how to keep each in mcpctl's store instead (the launcher or bridge fills it).
fn warn_plaintext_secrets(printer: &Printer, name: &str, entry: &ServerEntry) {
    let (stdio, map) = match &entry.transport {
        Transport::Stdio { env, .. } => (true, env),
        Transport::Remote { headers, .. } => (false, headers),
    };
    let literals: Vec<(&String, &String)> = map
        .iter()
        .filter(|(key, value)| {
            let literal = !value.is_empty() && redact(value) != **value;
            // A README placeholder is refused on its own (`placeholders`), not kept.
            literal
                && (secret_name(key) || pattern_secret(value).is_some())
                && !placeholders::is_placeholder_secret(key, value)
        })
        .collect();
    let only = literals.len() == 1;
    for (key, value) in literals {
        let secret = crate::secret_store::adopt::default_name(name, key, only);
        let flag = if stdio {
            format!("--secret {key}={secret}")
        } else {
            let bearer = if value.to_ascii_lowercase().starts_with("bearer ") {
                "Bearer "
            } else {
                ""
            };
            format!("-H '{key}: {bearer}{{secret:{secret}}}'")
        };
        let variable = crate::secrets::variable_for(name, key);
        let reference = if stdio {
            format!("-e '{key}=${{{variable}}}'")
        } else if key.eq_ignore_ascii_case("authorization") {
            format!("-H '{key}: Bearer ${{{variable}}}'")
        } else {
            format!("-H '{key}: ${{{variable}}}'")
        };
        printer.warn(&format!(
            "the value of `{key}` is written in plain text into each client's file; to keep it out, keep it in mcpctl's secret store (`mcpctl secret set {secret}`) and pass `{flag}` instead, or have each client read it from its environment with `{reference}` (mcpctl spells the reference for each client)"
        ));
    }
}

/// `--from-json` text: inline, `-` for stdin, or `@FILE`.
fn read_json_arg(arg: &str) -> anyhow::Result<String> {
    if arg == "-" {
        return std::io::read_to_string(std::io::stdin()).map_err(|e| {
            UserError::new(format!("cannot read `--from-json -` from stdin: {e}"))
                .hint("pipe the JSON in, e.g. `pbpaste | mcpctl add NAME --from-json -`")
                .into()
        });
    }
    if let Some(path) = arg.strip_prefix('@') {
        let source = crate::fs::read_source(std::path::Path::new(path))
            .map_err(|e| UserError::new(e.to_string()).hint("check the path after `@`"))?;
        if !source.exists() {
            return Err(UserError::new(format!("`{path}` does not exist"))
                .hint("give the file with the JSON snippet after `@`")
                .into());
        }
        return Ok(source.text);
    }
    Ok(arg.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrected_line_moves_the_command_after_dashes() {
        let argv: Vec<String> = [
            "/x/mcpctl",
            "add",
            "plain",
            "-c",
            "cursor",
            "node",
            "server.js",
        ]
        .map(String::from)
        .to_vec();
        let stray = ["node".to_owned(), "server.js".to_owned()];
        assert_eq!(
            corrected_line(&argv, &stray, &stray, true),
            "mcpctl add plain -c cursor -- node server.js"
        );
        let argv: Vec<String> = ["mcpctl", "add", "docs", "https://x.dev/mcp", "-c", "a b"]
            .map(String::from)
            .to_vec();
        let stray = ["https://x.dev/mcp".to_owned()];
        assert_eq!(
            corrected_line(
                &argv,
                &stray,
                &["--url".to_owned(), stray[0].clone()],
                false
            ),
            "mcpctl add docs --url https://x.dev/mcp -c 'a b'"
        );
    }
}
