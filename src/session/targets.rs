//! Choosing which clients a command acts on: `-c` ids, `--all` (detected clients), or, on
//! a terminal, a multi-select of detected clients.

use crate::cli::TargetArgs;
use crate::clients::{Client, Location, Lookup, Scope};
use crate::error::UserError;
use crate::session::Context;

/// One client named on the command line: an id in any case, an alias or a display name.
pub fn resolve<'a>(ctx: &'a Context, word: &str) -> anyhow::Result<&'a Client> {
    if word.trim().eq_ignore_ascii_case("all") {
        return Err(UserError::new("`-c all` names no client")
            .hint("use `--all` for every detected client; `mcpctl clients --known` lists every id")
            .into());
    }
    match ctx.table.lookup(word) {
        Lookup::Found(client) => Ok(client),
        Lookup::Ambiguous(clients) => Err(UserError::new(format!(
            "`{word}` could mean {}",
            clients
                .iter()
                .map(|c| format!("`{}` ({})", c.id, c.name))
                .collect::<Vec<_>>()
                .join(" or ")
        ))
        .hint(format!("name one, e.g. `-c {}`", clients[0].id))
        .into()),
        Lookup::Unknown {
            suggestion: Some(id),
        } => Err(UserError::new(format!("unknown client `{word}`"))
            .hint(format!(
                "did you mean `{id}`? `mcpctl clients --known` lists every id"
            ))
            .into()),
        Lookup::Unknown { suggestion: None } => {
            Err(UserError::new(format!("unknown client `{word}`"))
                .hint(format!(
                    "`mcpctl clients --known` lists the {} known ids",
                    ctx.table.all().len()
                ))
                .into())
        }
    }
}

/// Look up ids; an unknown id or a client that does not exist on this OS is an error.
pub fn by_ids<'a>(ctx: &'a Context, ids: &[String]) -> anyhow::Result<Vec<&'a Client>> {
    let mut out: Vec<&Client> = Vec::new();
    for id in ids.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let client = resolve(ctx, id)?;
        if !client.supported_on(ctx.platform.os) {
            return Err(UserError::new(format!(
                "{} (`{id}`) has no config file on {}",
                client.name,
                ctx.platform.os.as_str()
            ))
            .hint("pick another client, or pass `--platform` for the OS the file is meant for")
            .into());
        }
        if !out.iter().any(|c| c.id == client.id) {
            out.push(client);
        }
    }
    Ok(out)
}

/// Clients detected on this machine that mcpctl may write, in table order (what `--all`
/// and a manifest's `detected` mean): a file another tool writes (`owned_by`) is not one.
pub fn detected(ctx: &Context) -> Vec<&Client> {
    detected_to_read(ctx)
        .into_iter()
        .filter(|c| c.owned_by.is_none())
        .collect()
}

/// Clients detected on this machine, in table order, with the files other tools write
/// (home-manager's `mcp.json`): what `list`, `doctor` and `import` read.
pub fn detected_to_read(ctx: &Context) -> Vec<&Client> {
    ctx.table
        .all()
        .iter()
        .filter(|c| c.detected(&ctx.platform))
        .collect()
}

/// `Err` for a client whose file another tool writes (`owned_by`): a writing command
/// never targets it.
pub fn writable(ctx: &Context, client: &Client) -> anyhow::Result<()> {
    let Some(owner) = &client.owned_by else {
        return Ok(());
    };
    let path = client
        .user_path(&ctx.platform)
        .ok()
        .flatten()
        .map(|p| format!("`{}`", crate::output::file(&p)))
        .unwrap_or_else(|| client.name.clone());
    Err(UserError::new(format!(
        "{path} ({}) is managed by {owner}: change it in your Nix configuration; mcpctl reads it and never writes it",
        client.id
    ))
    .hint(format!(
        "`mcpctl import -c {}` turns its servers into a manifest that `mcpctl apply` writes into the clients' own files",
        client.id
    ))
    .into())
}

/// The targets of `add`/`remove`.
///
/// `offer` narrows what the prompt offers (and the error lists) when no target was named:
/// `remove` offers only the clients that have the server.
pub fn choose<'a>(
    ctx: &'a Context,
    args: &TargetArgs,
    verb: &str,
    offer: &dyn Fn(&Client) -> bool,
) -> anyhow::Result<Vec<&'a Client>> {
    if !args.clients.is_empty() {
        let clients = by_ids(ctx, &args.clients)?;
        for client in &clients {
            writable(ctx, client)?;
        }
        return Ok(clients);
    }
    let detected = detected(ctx);
    if args.all {
        if detected.is_empty() {
            return Err(UserError::new("no clients detected on this machine")
                .hint("name clients with `-c ID` (see `mcpctl clients --known`); mcpctl creates their files")
                .into());
        }
        return Ok(detected);
    }
    // Nothing detected: `--all` would fail the same way, so only `-c` is a way on.
    if detected.is_empty() {
        return Err(UserError::new(format!(
            "no client detected here: say which clients to {verb} with `-c ID` (repeatable)"
        ))
        .hint("`mcpctl clients --known` lists every client mcpctl knows; mcpctl creates the file of the one you name")
        .into());
    }
    let detected: Vec<&Client> = detected.into_iter().filter(|c| offer(c)).collect();
    let ids: Vec<&str> = detected.iter().map(|c| c.id.as_str()).collect();
    if !ctx.interactive || detected.is_empty() {
        let listed = if ids.is_empty() {
            "none".to_owned()
        } else {
            ids.join(", ")
        };
        return Err(
            UserError::new(format!("no target: say which clients to {verb}"))
                .hint(format!(
                    "use `-c ID` (repeatable) or `--all`; candidates detected here: {listed}"
                ))
                .into(),
        );
    }
    let labels: Vec<String> = detected
        .iter()
        .map(|c| format!("{} ({})", c.name, c.id))
        .collect();
    let picked = crate::picker::multi_select(&format!("{verb}: which clients?"), &labels)?;
    Ok(picked.into_iter().map(|i| detected[i]).collect())
}

/// Where `add`/`remove` write for `scope`; an error when the client has no such scope,
/// or when it is the project scope of a project directory that does not exist (a
/// mistyped `--project` must not become a new directory tree). Claude Code's local scope
/// lives in `~/.claude.json` and may name a project that is gone.
pub fn location(ctx: &Context, client: &Client, scope: Scope) -> anyhow::Result<Location> {
    if scope == Scope::Project && !ctx.project.is_dir() {
        return Err(UserError::new(format!(
            "project directory `{}` does not exist",
            ctx.project.display()
        ))
        .hint("check the spelling: `--project` names an existing directory, and mcpctl never creates it")
        .into());
    }
    Ok(client
        .location(scope, &ctx.platform, &ctx.project)?
        .ok_or_else(|| {
            UserError::new(format!("{} has no {} scope", client.name, scope.as_str()))
                .hint("use `--scope user`")
        })?)
}

/// `name` is in none of `clients`: say so, with the closest configured name.
pub fn no_server_named(ctx: &Context, clients: &[&Client], name: &str) -> anyhow::Error {
    no_server_near(clients, name, closest_server(ctx, clients, name))
}

/// The configured name in `clients` closest to `name`, if one is close.
pub fn closest_server(ctx: &Context, clients: &[&Client], name: &str) -> Option<String> {
    let (found, _) = crate::session::inventory::collect(ctx, clients, None);
    let names: Vec<&str> = found.iter().map(|f| f.name.as_str()).collect();
    crate::suggest::closest(name, names).map(str::to_owned)
}

/// [`no_server_named`] with the closest name already looked up.
pub fn no_server_near(clients: &[&Client], name: &str, near: Option<String>) -> anyhow::Error {
    let ids: Vec<&str> = clients.iter().map(|c| c.id.as_str()).collect();
    let error = UserError::new(format!(
        "no server named `{name}` in {}",
        if ids.is_empty() {
            "any detected client".to_owned()
        } else {
            ids.join(", ")
        }
    ));
    match near {
        Some(near) => error.hint(format!(
            "did you mean `{near}`? `mcpctl list` shows every server"
        )),
        None => error
            .hint("`mcpctl list` shows every server; `-c ID` names a client that is not detected"),
    }
    .into()
}
