//! Choosing which clients a command acts on: `-c` ids, `--all` (detected clients), or, on
//! a terminal, a multi-select of detected clients.

use crate::cli::TargetArgs;
use crate::clients::{Client, Location, Scope};
use crate::commands::Context;
use crate::error::UserError;

/// Look up ids; an unknown id or a client that does not exist on this OS is an error.
pub fn by_ids<'a>(ctx: &'a Context, ids: &[String]) -> anyhow::Result<Vec<&'a Client>> {
    let mut out: Vec<&Client> = Vec::new();
    for id in ids.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let client = ctx.table.get(id).ok_or_else(|| {
            UserError::new(format!("unknown client `{id}`")).hint(format!(
                "known clients: {}; see `mcpctl clients --all`",
                ctx.table.ids().join(", ")
            ))
        })?;
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

/// Clients detected on this machine, in table order.
pub fn detected(ctx: &Context) -> Vec<&Client> {
    ctx.table
        .all()
        .iter()
        .filter(|c| c.detected(&ctx.platform))
        .collect()
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
        return by_ids(ctx, &args.clients);
    }
    let detected = detected(ctx);
    if args.all {
        if detected.is_empty() {
            return Err(UserError::new("no clients detected on this machine")
                .hint("name clients with `-c ID` (see `mcpctl clients --all`); mcpctl creates their files")
                .into());
        }
        return Ok(detected);
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
    let picked = dialoguer::MultiSelect::new()
        .with_prompt(format!(
            "{verb}: which clients? (space selects, enter confirms)"
        ))
        .items(&labels)
        .interact_opt()?;
    match picked {
        Some(indexes) if !indexes.is_empty() => {
            Ok(indexes.into_iter().map(|i| detected[i]).collect())
        }
        _ => Err(UserError::new("nothing selected")
            .hint("nothing was changed")
            .into()),
    }
}

/// Where `add`/`remove` write for `scope`; an error when the client has no such scope.
pub fn location(ctx: &Context, client: &Client, scope: Scope) -> anyhow::Result<Location> {
    Ok(client
        .location(scope, &ctx.platform, &ctx.project)?
        .ok_or_else(|| {
            UserError::new(format!("{} has no {} scope", client.name, scope.as_str()))
                .hint("use `--scope user`")
        })?)
}
