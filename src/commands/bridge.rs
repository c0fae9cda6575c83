//! `mcpctl bridge URL --header 'NAME=…{secret:SECRET}…'`: the stdio entry `add` writes for
//! a remote server whose headers need a secret. Fills each `{secret:…}` from the store
//! (a missing one stops it before anything is sent, with the `secret set` to run), then
//! relays the connection (`handshake::bridge`). Like `run`, it needs no client table;
//! stdout carries only the protocol.

use std::process::ExitCode;

use crate::cli::BridgeArgs;
use crate::entry::launcher::fill;
use crate::error::{ExitStatus, UserError, hint_of};
use crate::handshake::prepare::Secret;
use crate::output::Printer;
use crate::platform::Platform;
use crate::secret_store::Store;

pub fn run(args: BridgeArgs, platform: &Platform, printer: &Printer) -> ExitCode {
    match bridge(args, platform) {
        Ok(()) => ExitStatus::Success.into(),
        Err(error) => {
            printer.error(&error);
            ExitStatus::Error.into()
        }
    }
}

fn bridge(args: BridgeArgs, platform: &Platform) -> anyhow::Result<()> {
    let BridgeArgs {
        url,
        headers,
        oauth,
        transport,
        timeout,
    } = args;
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(UserError::new(format!("`{url}` is not an http:// or https:// URL")).into());
    }
    let store = Store::for_platform(platform);
    let mut resolve = |name: &str| store.resolve(name).map(|v| v.0);
    let mut filled = Vec::with_capacity(headers.len());
    for header in &headers {
        let Some((name, value)) = header.split_once('=').or_else(|| header.split_once(':')) else {
            return Err(UserError::new(format!("`{header}` is not NAME=VALUE"))
                .hint("write --header 'Authorization=Bearer {secret:NAME}'")
                .into());
        };
        let value = fill(value.trim_start(), &mut resolve)
            .map_err(|e| UserError::new(format!("cannot connect to {url}: {e}")))?;
        filled.push((name.trim().to_owned(), Secret(value)));
    }
    // Signed in (`mcpctl login`): a token now, or the bridge stops before sending anything.
    let bearer = match oauth {
        Some(label) => {
            let bearer = crate::oauth::Bearer::new(store.clone(), &label);
            bearer
                .token()
                .map_err(|e| e.context(format!("cannot connect to {url}")))?;
            let bearer: crate::handshake::bridge::Bearer = Box::new(move || {
                bearer.token().map(Secret).map_err(|e| match hint_of(&e) {
                    Some(hint) => format!("{e:#} ({hint})"),
                    None => format!("{e:#}"),
                })
            });
            Some(bearer)
        }
        None => None,
    };
    crate::handshake::bridge::serve(
        &url,
        transport,
        filled,
        bearer,
        std::time::Duration::from_secs(timeout),
    )
}
