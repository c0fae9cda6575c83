//! `mcpctl login NAME|URL` and `mcpctl logout NAME|URL` (issue 42): sign in to a remote
//! server once, for every client (`crate::oauth` does the protocol), and keep the grant
//! in the secret store as `oauth.NAME`. Nothing here prints a token.

use std::io::BufRead;

use serde::Serialize;

use crate::cli::{LoginArgs, LogoutArgs};
use crate::entry::Transport;
use crate::error::{ExitStatus, UserError};
use crate::oauth::{self, flow};
use crate::output::{Block, Paint, Printer, Report};
use crate::session::{Context, inventory, targets};

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
}

impl Report for LoginReport {
    fn json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(self)
    }

    fn human(&self, _paint: Paint) -> Vec<Block> {
        let expiry = match self.expires_at {
            Some(at) => format!(
                "; the token expires in {}",
                minutes(at.saturating_sub(oauth::now()))
            ),
            None => String::new(),
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
    }

    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}

/// `3 h 5 min`, `12 min`, `40 s`.
pub fn minutes(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min", secs / 60),
        _ if secs % 3600 < 60 => format!("{} h", secs / 3600),
        _ => format!("{} h {} min", secs / 3600, secs % 3600 / 60),
    }
}

/// The server a NAME or URL stands for: (label, URL).
fn target(ctx: &Context, name: &str) -> anyhow::Result<(String, String)> {
    if name.starts_with("http://") || name.starts_with("https://") {
        return Ok((oauth::url_label(name), name.to_owned()));
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
    match remote {
        Some(url) => Ok((name.to_owned(), url)),
        None if inventory.found.is_empty() => Err(targets::no_server_named(ctx, &clients, name)),
        None => Err(UserError::new(format!(
            "`{name}` is a local (stdio) server: there is nothing to sign in to"
        ))
        .hint("sign in to a remote server: mcpctl login NAME|URL")
        .into()),
    }
}

pub fn login(args: LoginArgs, ctx: &Context, printer: &mut Printer) -> anyhow::Result<ExitStatus> {
    let (label, server) = target(ctx, &args.name)?;
    let failed = |e: &dyn std::fmt::Display| {
        UserError::new(format!("cannot sign in to `{label}` ({server}): {e}"))
    };
    printer.progress(&format!("asking {server} where to sign in…"));
    let discovery = oauth::discover::discover(&server).map_err(|e| failed(&e));
    printer.progress_done();
    let discovery = discovery?;
    let opener = ctx.platform.opener();
    let no_browser = args.no_browser;
    let mut show = |url: &str| {
        if no_browser {
            printer.ask(&format!(
                "Open this URL in a browser on any machine and sign in:\n\n  {url}\n\nThe browser then goes to a 127.0.0.1 address that may not load; copy that address from its address bar."
            ));
            return;
        }
        printer.ask(&format!(
            "Opening the browser to sign in to `{label}`; if it does not open, visit:\n\n  {url}\n"
        ));
        let Some((program, words)) = opener.split_first() else {
            return;
        };
        let opened = std::process::Command::new(program)
            .args(words)
            .arg(url)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if let Err(e) = opened {
            printer.warn(&format!("could not start `{program}` to open the URL: {e}"));
        }
    };
    let mut paste = || {
        printer.ask("Paste the address here and press Enter:");
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line)?;
        Ok(line)
    };
    let how = if args.no_browser {
        flow::Return::Paste
    } else {
        flow::Return::Loopback(std::time::Duration::from_secs(args.timeout))
    };
    let grant = flow::sign_in(
        &discovery,
        args.client_id.as_deref(),
        args.scope.as_deref(),
        how,
        flow::Person {
            show: &mut show,
            paste: &mut paste,
        },
    )
    .map_err(|e| failed(&e))?;
    let secret = oauth::secret_name(&label);
    oauth::save(&ctx.secret_store(), &secret, &grant)?;
    printer.emit(&LoginReport {
        name: label,
        server,
        issuer: grant.issuer,
        client_id: grant.client_id,
        kept_as: secret,
        expires_at: grant.expires_at,
        scope: grant.scope,
        refreshable: grant.refresh_token.is_some(),
    })
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
