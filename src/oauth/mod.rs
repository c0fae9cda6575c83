//! Signing in to a remote MCP server (issue 42): MCP authorization as the spec lays it
//! out, done once by mcpctl for every client.
//!
//! - `discover`: the server's 401 and its `WWW-Authenticate` `resource_metadata` (RFC
//!   9728), the protected resource's metadata, the authorization server's metadata (RFC
//!   8414, then OpenID discovery), its issuer checked against the resource metadata.
//! - `flow`: mcpctl as a client (a pre-registered id, else its client-metadata
//!   document's URL where the server accepts one (CIMD), else dynamic registration, RFC
//!   7591), the authorization code with PKCE (S256) on a loopback redirect with `state`
//!   checked, or the redirected URL pasted back; the device flow (RFC 8628); the token
//!   exchange, refresh and revocation (RFC 7009).
//! - `web`: the HTTP calls: only `https`, or `http` to this machine (loopback), no
//!   redirects followed.
//!
//! A [`Grant`] (tokens, expiry, scopes, issuer, client id) lives only in the secret store,
//! as one JSON value under `oauth.NAME`; its `Debug` prints no token.

pub mod discover;
pub mod flow;
pub mod person;
pub mod web;

use serde::{Deserialize, Serialize};

use crate::secret_store::{SecretError, Store, Value};

/// The prefix of the secret a grant is kept under (`oauth.NAME`).
pub const SECRET_PREFIX: &str = "oauth.";

/// Refresh a token this many seconds before it expires.
pub const REFRESH_MARGIN: u64 = 60;

/// What signing in gave: kept as one secret, never written anywhere else.
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Grant {
    /// The MCP server's URL the grant is for.
    pub server: String,
    /// The protected resource (RFC 8707 `resource`), as its metadata names it.
    pub resource: String,
    pub issuer: String,
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    pub token_endpoint: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation_endpoint: Option<String>,
    pub access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// Seconds since the Unix epoch; `None` when the server did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

impl std::fmt::Debug for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grant")
            .field("server", &self.server)
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `3 h 5 min`, `12 min`, `40 s`.
pub fn duration_text(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min", secs / 60),
        _ if secs % 3600 < 60 => format!("{} h", secs / 3600),
        _ => format!("{} h {} min", secs / 3600, secs % 3600 / 60),
    }
}

impl Grant {
    /// `; the token expires in 59 min` (empty when the server gave no expiry).
    pub fn expiry_text(&self) -> String {
        match self.expires_at {
            Some(at) => format!(
                "; the token expires in {}",
                duration_text(at.saturating_sub(now()))
            ),
            None => String::new(),
        }
    }

    /// Whether the access token is past (or within `margin` seconds of) its expiry.
    pub fn due(&self, margin: u64) -> bool {
        self.expires_at
            .is_some_and(|at| now().saturating_add(margin) >= at)
    }
}

/// The secret name a server's grant is kept under: `oauth.NAME`, where NAME is the
/// entry's name or, for a bare URL, its host, port and path in secret-name letters.
pub fn secret_name(label: &str) -> String {
    let mut name: String = label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect();
    name.truncate(128 - SECRET_PREFIX.len());
    format!("{SECRET_PREFIX}{name}")
}

/// The label of a URL the user signs in to without naming an entry: host, port, path.
pub fn url_label(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.trim_end_matches('/')
        .chars()
        .map(|c| if c == ':' || c == '/' { '-' } else { c })
        .collect()
}

/// The grant kept as `secret`, if any.
pub fn load(store: &Store, secret: &str) -> Result<Option<Grant>, SecretError> {
    match store.resolve(secret) {
        Ok(Value(json)) => Ok(serde_json::from_str(&json).ok()),
        Err(SecretError::NotSet { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Keep `grant` as `secret` (the keychain), replacing what was there.
pub fn save(store: &Store, secret: &str, grant: &Grant) -> anyhow::Result<()> {
    store.set_value(secret, &Value(serde_json::to_string(grant)?))
}

/// `secret`'s grant with a live access token: refreshed first when it is due (the new
/// grant is kept). `Err` says to sign in again when there is no grant or no refresh works.
pub fn current(store: &Store, secret: &str) -> anyhow::Result<Grant> {
    let label = secret.strip_prefix(SECRET_PREFIX).unwrap_or(secret);
    let Some(grant) = load(store, secret)? else {
        return Err(crate::error::UserError::new(format!(
            "not signed in to `{label}` (no `{secret}` in the secret store)"
        ))
        .hint(format!("sign in: mcpctl login {label}"))
        .into());
    };
    if !grant.due(REFRESH_MARGIN) {
        return Ok(grant);
    }
    match flow::refresh(&grant) {
        Ok(fresh) => {
            save(store, secret, &fresh)?;
            Ok(fresh)
        }
        Err(e) => {
            // Another bridge may have renewed it meanwhile (a rotated refresh token is
            // good once): what the store holds now wins when it is live.
            if let Some(now) = load(store, secret)?.filter(|g| !g.due(0) && *g != grant) {
                return Ok(now);
            }
            Err(crate::error::UserError::new(format!(
                "the sign-in to `{label}` has expired and could not be renewed: {e}"
            ))
            .hint(format!("sign in again: mcpctl login {label}"))
            .into())
        }
    }
}

/// The bearer token of one signed-in server for a long-running bridge: the grant kept
/// in memory, read again from the store and renewed only when it is due.
pub struct Bearer {
    store: Store,
    secret: String,
    grant: std::sync::Mutex<Option<Grant>>,
}

impl Bearer {
    pub fn new(store: Store, label: &str) -> Bearer {
        Bearer {
            store,
            secret: secret_name(label),
            grant: std::sync::Mutex::new(None),
        }
    }

    /// The access token to send now.
    pub fn token(&self) -> anyhow::Result<String> {
        let mut held = self
            .grant
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(grant) = held.as_ref().filter(|g| !g.due(REFRESH_MARGIN)) {
            return Ok(grant.access_token.clone());
        }
        let grant = current(&self.store, &self.secret)?;
        let token = grant.access_token.clone();
        *held = Some(grant);
        Ok(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_become_secret_names() {
        assert_eq!(url_label("http://localhost:3000/mcp"), "localhost-3000-mcp");
        assert_eq!(secret_name("docs"), "oauth.docs");
        assert_eq!(secret_name("a b/c"), "oauth.a-b-c");
        assert!(crate::secret_store::check_name(&secret_name(&"x".repeat(300))).is_ok());
    }

    #[test]
    fn grants_never_show_tokens_in_debug() {
        let grant = Grant {
            server: "https://x/mcp".into(),
            resource: "https://x/mcp".into(),
            issuer: "https://x".into(),
            client_id: "c".into(),
            client_secret: Some("s3cret".into()),
            token_endpoint: "https://x/token".into(),
            revocation_endpoint: None,
            access_token: "AT-123".into(),
            refresh_token: Some("RT-456".into()),
            expires_at: Some(1),
            scope: None,
        };
        let shown = format!("{grant:?}");
        for token in ["AT-123", "RT-456", "s3cret"] {
            assert!(!shown.contains(token), "{shown}");
        }
        assert!(grant.due(0));
    }
}
