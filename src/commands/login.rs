//! `mcpctl login NAME|URL` and `mcpctl logout NAME|URL` (issue 42): sign in to a remote
//! server once, for every client (`crate::oauth` does the protocol), and keep the grant
//! in the secret store as `oauth.NAME`. Nothing here prints a token.

use serde::Serialize;

use crate::cli::{LoginArgs, LogoutArgs};
use crate::entry::Transport;
use crate::error::{ExitStatus, UserError};
use crate::oauth::{self, flow};
use crate::output::{Block, Paint, Printer, Report};
use crate::session::{Context, inventory, signin, targets};

/// What was signed in to (`--json`: these fields; never a token).
#[derive(Serialize)]
struct LoginReport {
    name: String,
    server: String,
    issuer: String,
    client_id: String,
    /// The secret the grant is kept under (`oauth.NAME`).
    kept_as: String,
    /// When the access token expires (seconds since the Unix epoch).
    expires_at: Option<u64>,
    scope: Option<String>,
    refreshable: bool,
    /// How mcpctl was a client: `given`, `client-metadata-document` (CIMD), `dynamic`.
    registration: flow::Registration,
    /// Why no client-metadata document was used (`null` when one was, or the id given).
    client_metadata_document_unused: Option<String>,
    #[serde(skip)]
    cimd_unused: Option<flow::CimdUnused>,
    /// `browser`, `paste` or `device`.
    way: oauth::person::Way,
    /// The clients whose entry was rewritten into the bridge with this sign-in.
    rewritten: Vec<String>,
    /// The clients whose entry still reaches the server by itself (the rewrite declined).
    left: Vec<String>,
}

impl Report for LoginReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(self)
    }

    fn human(&self, _paint: Paint) -> Vec<Block> {
        let expiry = match self.expires_at {
            Some(at) => format!(
                "; the token expires in {}",
                oauth::duration_text(at.saturating_sub(oauth::now()))
            ),
            None => String::new(),
        };
        let client = match self.registration {
            flow::Registration::ClientMetadataDocument => Some(format!(
                "mcpctl named itself by its client-metadata document {}",
                self.client_id
            )),
            // Said when it could have been used: the server accepts documents, or a URL is set.
            flow::Registration::Dynamic => self.cimd_unused.filter(|c| c.worth_saying()).map(|c| {
                format!(
                    "{}: mcpctl registered itself (RFC 7591)",
                    c.why(&self.issuer)
                )
            }),
            flow::Registration::Given => None,
        };
        vec![
            Block::Line(format!(
                "✔ signed in to `{}` ({}) at {}{expiry}",
                self.name, self.server, self.issuer
            )),
            Block::Note(format!(
                "kept in the secret store as `{}`{}; sign out with `mcpctl logout {}`",
                self.kept_as,
                if self.refreshable {
                    ", renewed before it expires"
                } else {
                    " (the server gave no refresh token: sign in again when it expires)"
                },
                self.name
            )),
        ]
        .into_iter()
        .chain(client.map(Block::Note))
        .chain((!self.rewritten.is_empty()).then(|| {
            Block::Line(format!(
                "✔ `{}` in {} now reaches the server through mcpctl's bridge with this sign-in",
                self.name,
                self.rewritten.join(", ")
            ))
        }))
        .chain((!self.left.is_empty()).then(|| {
            Block::Note(format!(
                "`{}` in {} still signs in by itself (the client's own sign-in); `mcpctl login {} --yes` makes it use this one",
                self.name,
                self.left.join(", "),
                self.name
            ))
        }))
        .collect()
    }

    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}

/// What NAME or URL stands for.
struct Target<'a> {
    label: String,
    url: String,
    /// NAME's entries that reach the server by themselves.
    own: Vec<signin::Target<'a>>,
    /// What the entry's own `oauth` fields say (a pre-registered client).
    hints: oauth::person::EntryOauth,
}

/// The server a NAME or URL stands for.
fn target<'a>(ctx: &'a Context, name: &str) -> anyhow::Result<Target<'a>> {
    if name.starts_with("http://") || name.starts_with("https://") {
        return Ok(Target {
            label: oauth::url_label(name),
            url: name.to_owned(),
            own: Vec::new(),
            hints: oauth::person::EntryOauth::default(),
        });
    }
    let clients = targets::detected_to_read(ctx);
    let inventory = inventory::collect_all(ctx, &clients, Some(name));
    let remote = inventory.found.iter().find_map(|f| {
        let entry = f.entry().as_ref().ok()?;
        let transport = match crate::entry::launcher::logical(&entry.transport) {
            Some(logical) => logical.transport,
            None => entry.transport.clone(),
        };
        match transport {
            Transport::Remote { url, .. } => Some(url),
            Transport::Stdio { .. } => None,
        }
    });
    let Some(url) = remote else {
        if inventory.found.is_empty() {
            return Err(targets::no_server_named(ctx, &clients, name));
        }
        return Err(UserError::new(format!(
            "`{name}` is a local (stdio) server: there is nothing to sign in to"
        ))
        .hint("sign in to a remote server: mcpctl login NAME|URL")
        .into());
    };
    let own = inventory
        .found
        .iter()
        .filter(|f| f.origin.is_none())
        .filter(|f| {
            f.entry()
                .as_ref()
                .is_ok_and(|e| signin::signs_in_by_itself(&e.transport, &url))
        })
        .map(|f| signin::Target {
            client: f.client,
            scope: f.scope,
            path: f.path.clone(),
            key: f.key.clone(),
        })
        .collect();
    let hints = inventory
        .found
        .iter()
        .filter_map(|f| f.entry().as_ref().ok())
        .map(|e| oauth::person::EntryOauth::of(&e.extras))
        .find(|h| *h != oauth::person::EntryOauth::default())
        .unwrap_or_default();
    Ok(Target {
        label: name.to_owned(),
        url,
        own,
        hints,
    })
}

pub fn login(args: LoginArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let Target {
        label,
        url: server,
        own,
        hints,
    } = target(ctx, &args.name)?;
    let oauth::person::Signed { grant, client, way } = oauth::person::sign_in(
        printer,
        &ctx.platform,
        &ctx.secret_store(),
        &label,
        &server,
        &oauth::person::Options {
            no_browser: args.no_browser,
            device: args.device,
            client_metadata_url: args.client_metadata_url.filter(|u| !u.is_empty()),
            client_id: args.client_id.or(hints.client_id),
            scope: args.scope.or(hints.scope),
            callback_port: hints.callback_port,
            timeout: std::time::Duration::from_secs(args.timeout),
        },
    )?;
    let (rewritten, left) = offer_rewrite(ctx, &label, &own, args.yes)?;
    let unused = client.cimd_unused.map(|c| c.why(&grant.issuer));
    printer.emit(&LoginReport {
        kept_as: oauth::secret_name(&label),
        name: label,
        server,
        issuer: grant.issuer,
        client_id: grant.client_id,
        expires_at: grant.expires_at,
        scope: grant.scope,
        refreshable: grant.refresh_token.is_some(),
        registration: client.how,
        client_metadata_document_unused: unused,
        cimd_unused: client.cimd_unused,
        way,
        rewritten,
        left,
    })
}

/// NAME's entries that reach the server by themselves: rewritten into the bridge with
/// this sign-in when the person says so (`--yes`, or yes at the prompt), else left.
/// Returns the client ids of each.
fn offer_rewrite(
    ctx: &Context,
    label: &str,
    own: &[signin::Target<'_>],
    yes: bool,
) -> anyhow::Result<(Vec<String>, Vec<String>)> {
    let ids: Vec<String> = own.iter().map(|t| t.client.id.clone()).collect();
    if own.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let go = yes
        || (ctx.interactive
            && dialoguer::Confirm::new()
                .with_prompt(format!(
                    "`{label}` in {} reaches the server by itself: rewrite it to use this sign-in (mcpctl bridge --oauth {label})?",
                    ids.join(", ")
                ))
                .default(true)
                .interact_opt()?
                == Some(true));
    if !go {
        return Ok((Vec::new(), ids));
    }
    let program = crate::session::write::program(ctx)?;
    signin::rewrite(ctx, own, label, label, &program, false)?;
    Ok((ids, Vec::new()))
}

/// What `logout` did.
#[derive(Serialize)]
struct LogoutReport {
    name: String,
    kept_as: String,
    /// Whether the server was asked to revoke the tokens (it offers revocation).
    revoked: bool,
}

impl Report for LogoutReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(self)
    }

    fn human(&self, _paint: Paint) -> Vec<Block> {
        vec![Block::Line(format!(
            "✔ signed out of `{}`: {}`{}` removed from the secret store",
            self.name,
            if self.revoked {
                "the tokens revoked, "
            } else {
                "(the server offers no revocation) "
            },
            self.kept_as
        ))]
    }

    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}

pub fn logout(
    args: LogoutArgs,
    ctx: &Context,
    printer: &mut Printer,
) -> anyhow::Result<ExitStatus> {
    let label = if args.name.contains("://") {
        oauth::url_label(&args.name)
    } else {
        args.name.clone()
    };
    let secret = oauth::secret_name(&label);
    let store = ctx.secret_store();
    let Some(grant) = oauth::load(&store, &secret)? else {
        return Err(UserError::new(format!(
            "not signed in to `{label}` (no `{secret}` in the secret store)"
        ))
        .hint("`mcpctl secret list` shows the sign-ins kept (oauth.NAME)")
        .into());
    };
    let revoked = match flow::revoke(&grant) {
        Ok(revoked) => revoked,
        Err(e) => {
            printer.warn(&format!(
                "the server did not revoke the tokens ({e}); forgetting them anyway"
            ));
            false
        }
    };
    store.remove(&secret)?;
    printer.emit(&LogoutReport {
        name: label,
        kept_as: secret,
        revoked,
    })
}
