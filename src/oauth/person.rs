//! Signing in with a person at the keyboard: the authorization URL opened in their
//! browser (`Platform::opener`: `$BROWSER`, else the OS's opener) with the answer taken on
//! the loopback listener; or, with no browser here (`--no-browser`), the device flow where
//! the server offers it (a code to confirm on any device), else the URL printed with the
//! redirected address read back from stdin; or the device flow asked for (`--device`).
//! What `mcpctl login` and `mcpctl add --login` share.

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
    /// The device flow (RFC 8628), whether or not a browser is here.
    pub device: bool,
    /// The https URL of mcpctl's client-metadata document, the client id where the
    /// server accepts one (CIMD).
    pub client_metadata_url: Option<String>,
    /// A client id registered beforehand (else mcpctl registers itself).
    pub client_id: Option<String>,
    pub scope: Option<String>,
    /// The loopback port a pre-registered client's redirect names.
    pub callback_port: Option<u16>,
    /// How long to wait for the browser's answer.
    pub timeout: Duration,
}

/// How the person signed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Way {
    /// The code flow, its answer on the loopback listener.
    Browser,
    /// The code flow, the redirected address pasted back.
    Paste,
    /// The device flow (RFC 8628).
    Device,
}

/// What signing in gave: the grant (kept), who mcpctl was to the server, and the way.
#[derive(Debug)]
pub struct Signed {
    pub grant: Grant,
    pub client: flow::Registered,
    pub way: Way,
}

/// Sign in to `server` and keep the grant as `oauth.LABEL`.
pub fn sign_in(
    printer: &Printer,
    platform: &Platform,
    store: &Store,
    label: &str,
    server: &str,
    options: &Options,
) -> anyhow::Result<Signed> {
    let failed = |e: &dyn std::fmt::Display| {
        UserError::new(format!("cannot sign in to `{label}` ({server}): {e}"))
    };
    printer.progress(&format!("asking {server} where to sign in…"));
    let discovery = discover::discover(server).map_err(|e| failed(&e));
    printer.progress_done();
    let discovery = discovery?;
    if let Some(url) = &options.client_metadata_url {
        check_metadata_url(url)?;
    }
    let metadata_url = options.client_metadata_url.as_deref();
    let offered = discovery.device_authorization_endpoint.is_some();
    if options.device || (options.no_browser && offered) {
        let mut show = |code: &flow::DeviceCode| {
            let minutes = super::duration_text(code.expires_in);
            printer.ask(&match &code.verification_uri_complete {
                Some(complete) => format!(
                    "To sign in to `{label}`, open this URL in a browser on any device:\n\n  {complete}\n\nand check that it shows the code {} (it expires in {minutes}). Waiting for the sign-in…",
                    code.user_code
                ),
                None => format!(
                    "To sign in to `{label}`, open this URL in a browser on any device:\n\n  {}\n\nand enter the code {} (it expires in {minutes}). Waiting for the sign-in…",
                    code.verification_uri, code.user_code
                ),
            });
        };
        match flow::device_sign_in(
            &discovery,
            options.client_id.as_deref(),
            metadata_url,
            options.scope.as_deref(),
            &mut show,
        ) {
            Ok((grant, client)) => {
                save(store, &secret_name(label), &grant)?;
                return Ok(Signed {
                    grant,
                    client,
                    way: Way::Device,
                });
            }
            // Chosen for `--no-browser` only because it is offered: a server that then
            // refuses it still has the paste-back.
            Err(flow::FlowError::DeviceRefused(e)) if !options.device => printer.warn(&format!(
                "{} offers the device flow but refused to start it ({e}); signing in with the URL to paste back instead",
                discovery.issuer
            )),
            Err(e) => return Err(failed(&e).into()),
        }
    }
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
    let (grant, client) = flow::sign_in(
        &discovery,
        options.client_id.as_deref(),
        metadata_url,
        options.scope.as_deref(),
        options.callback_port,
        how,
        flow::Person {
            show: &mut show,
            paste: &mut paste,
        },
    )
    .map_err(|e| failed(&e))?;
    save(store, &secret_name(label), &grant)?;
    Ok(Signed {
        grant,
        client,
        way: if options.no_browser {
            Way::Paste
        } else {
            Way::Browser
        },
    })
}

/// A client-metadata document's URL as the CIMD draft wants it: https, with a path, no
/// fragment, no user info (the authorization server fetches it and compares the
/// document's `client_id` with it).
pub fn check_metadata_url(url: &str) -> Result<(), UserError> {
    let ok = url.strip_prefix("https://").is_some_and(|rest| {
        let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
        !authority.is_empty()
            && !authority.contains('@')
            && rest.len() > authority.len() + 1
            && !url.contains('#')
            && !url.chars().any(|c| c.is_whitespace() || c.is_control())
    });
    if ok {
        Ok(())
    } else {
        Err(UserError::new(format!(
            "`{url}` is not a client-metadata document URL: it must be https with a path (e.g. https://example.com/mcpctl/client-metadata.json)"
        ))
        .hint("host docs/client-metadata.json with its `client_id` set to its own URL, and give that URL (--client-metadata-url or MCPCTL_CLIENT_METADATA_URL)"))
    }
}

/// What an entry's own `oauth` object says about signing in (Claude Code's `clientId`,
/// `callbackPort`, `scopes`; VS Code's `clientId`; a `client_id`/`scopes` table): a
/// client registered beforehand, and where its redirect goes.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct EntryOauth {
    pub client_id: Option<String>,
    pub callback_port: Option<u16>,
    pub scope: Option<String>,
}

impl EntryOauth {
    /// Read from an entry's fields mcpctl does not model (`extras`).
    pub fn of(extras: &serde_json::Map<String, serde_json::Value>) -> EntryOauth {
        use serde_json::Value;
        let Some(Value::Object(oauth)) = extras.get("oauth") else {
            return EntryOauth::default();
        };
        let field = |names: &[&str]| names.iter().find_map(|n| oauth.get(*n));
        EntryOauth {
            client_id: field(&["clientId", "client_id"])
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
            callback_port: field(&["callbackPort", "callback_port"])
                .and_then(Value::as_u64)
                .and_then(|p| u16::try_from(p).ok()),
            scope: field(&["scopes", "scope"]).and_then(|v| match v {
                Value::String(s) => Some(s.clone()),
                Value::Array(a) => Some(
                    a.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                _ => None,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_metadata_urls_are_https_with_a_path() {
        assert!(check_metadata_url("https://example.com/mcpctl/client.json").is_ok());
        for bad in [
            "http://example.com/c.json",
            "https://example.com",
            "https://example.com/",
            "https://u@example.com/c.json",
            "https://example.com/c.json#x",
            "https:///c.json",
        ] {
            assert!(check_metadata_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_entrys_oauth_object_names_its_client() {
        let extras = serde_json::json!({"oauth": {"clientId": "abc", "callbackPort": 8123, "scopes": ["a", "b"]}});
        let got = EntryOauth::of(extras.as_object().unwrap());
        assert_eq!(
            got,
            EntryOauth {
                client_id: Some("abc".into()),
                callback_port: Some(8123),
                scope: Some("a b".into())
            }
        );
        let none = serde_json::json!({"oauth": "x", "type": "http"});
        assert_eq!(
            EntryOauth::of(none.as_object().unwrap()),
            EntryOauth::default()
        );
    }
}
