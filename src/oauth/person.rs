//! Signing in with a person at the keyboard: the authorization URL opened in their
//! browser (`Platform::opener`: `$BROWSER`, else the OS's opener) with the answer taken on
//! the loopback listener, or printed (`--no-browser`) with the redirected address read
//! back from stdin. What `mcpctl login` and `mcpctl add --login` share.

use std::io::BufRead;
use std::time::Duration;

use crate::error::UserError;
use crate::output::Printer;
use crate::platform::Platform;
use crate::secret_store::Store;

use super::{Grant, discover, flow, save, secret_name};

/// How to sign in.
pub struct Options {
    pub no_browser: bool,
    /// A client id registered beforehand (else mcpctl registers itself).
    pub client_id: Option<String>,
    pub scope: Option<String>,
    /// How long to wait for the browser's answer.
    pub timeout: Duration,
}

/// Sign in to `server` and keep the grant as `oauth.LABEL`.
pub fn sign_in(
    printer: &Printer,
    platform: &Platform,
    store: &Store,
    label: &str,
    server: &str,
    options: &Options,
) -> anyhow::Result<Grant> {
    let failed = |e: &dyn std::fmt::Display| {
        UserError::new(format!("cannot sign in to `{label}` ({server}): {e}"))
    };
    printer.progress(&format!("asking {server} where to sign in…"));
    let discovery = discover::discover(server).map_err(|e| failed(&e));
    printer.progress_done();
    let discovery = discovery?;
    let opener = platform.opener();
    let no_browser = options.no_browser;
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
    let how = if options.no_browser {
        flow::Return::Paste
    } else {
        flow::Return::Loopback(options.timeout)
    };
    let grant = flow::sign_in(
        &discovery,
        options.client_id.as_deref(),
        options.scope.as_deref(),
        how,
        flow::Person {
            show: &mut show,
            paste: &mut paste,
        },
    )
    .map_err(|e| failed(&e))?;
    save(store, &secret_name(label), &grant)?;
    Ok(grant)
}
