//! From a server's URL to its authorization server: the 401's `WWW-Authenticate`
//! `resource_metadata` (RFC 9728; the well-known URLs when the header does not name it),
//! the protected resource's metadata, then the authorization server's metadata (RFC 8414,
//! then OpenID Connect discovery), whose `issuer` must be the one the resource named, and
//! what it offers: dynamic registration, client-metadata documents (CIMD), the device
//! flow (RFC 8628), revocation.

use serde_json::{Map, Value, json};

use super::web::{self, WebError};

/// Why discovery stopped.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error(transparent)]
    Web(#[from] WebError),
    #[error("{url} answered HTTP {status} without asking for authorization: it needs no sign-in")]
    Open { url: String, status: u16 },
    #[error(
        "{url} asks for authorization (HTTP 401) but publishes no protected-resource metadata (RFC 9728), so mcpctl cannot find where to sign in"
    )]
    NoResourceMetadata { url: String },
    #[error("the resource metadata at {url} names no authorization server")]
    NoAuthorizationServer { url: String },
    #[error(
        "the authorization server {issuer} publishes no metadata (tried {tried}), so mcpctl cannot find its endpoints"
    )]
    NoServerMetadata { issuer: String, tried: String },
    #[error(
        "the authorization server's metadata at {url} names issuer `{found}`, not `{expected}` as the resource metadata says; mcpctl refuses to sign in (the metadata may have been tampered with)"
    )]
    IssuerMismatch {
        url: String,
        expected: String,
        found: String,
    },
    #[error("the authorization server's metadata at {url} has no `{field}`")]
    Missing { url: String, field: &'static str },
    #[error(
        "the authorization server {issuer} does not offer PKCE with S256 (`code_challenge_methods_supported`), which MCP authorization requires; mcpctl will not sign in without it"
    )]
    NoPkce { issuer: String },
}

/// Where and how to sign in to one server.
#[derive(Debug, Clone)]
pub struct Discovery {
    pub server: String,
    /// The protected resource's identifier (RFC 8707 `resource`).
    pub resource: String,
    /// Scopes to ask for: the 401's `scope`, else the resource's `scopes_supported`.
    pub scope: Option<String>,
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub registration_endpoint: Option<String>,
    pub revocation_endpoint: Option<String>,
    /// RFC 8628's endpoint, where the server offers the device flow.
    pub device_authorization_endpoint: Option<String>,
    /// `client_id_metadata_document_supported`: a client may name itself by the https
    /// URL of its metadata document (CIMD) instead of registering.
    pub client_metadata_documents: bool,
}

/// The value of parameter `name` in a `WWW-Authenticate` header (quoted or a token).
pub fn auth_param(header: &str, name: &str) -> Option<String> {
    let lower = header.to_ascii_lowercase();
    let mut from = 0;
    while let Some(found) = lower[from..].find(name) {
        let start = from + found;
        from = start + name.len();
        // A whole parameter name: preceded by the start, a space or a comma.
        let before = header[..start].chars().next_back();
        if before.is_some_and(|c| !(c == ' ' || c == ',' || c == '\t')) {
            continue;
        }
        let rest = header[from..].trim_start();
        let Some(value) = rest.strip_prefix('=') else {
            continue;
        };
        let value = value.trim_start();
        if let Some(quoted) = value.strip_prefix('"') {
            let mut out = String::new();
            let mut chars = quoted.chars();
            while let Some(c) = chars.next() {
                match c {
                    '"' => return Some(out),
                    '\\' => out.extend(chars.next()),
                    c => out.push(c),
                }
            }
            return None;
        }
        let token: String = value
            .chars()
            .take_while(|c| !(c.is_whitespace() || *c == ','))
            .collect();
        return (!token.is_empty()).then_some(token);
    }
    None
}

/// `scheme://host[:port]` and the path (no query, no trailing `/`).
fn split(url: &str) -> (String, String) {
    let Some(scheme_end) = url.find("://") else {
        return (url.to_owned(), String::new());
    };
    let after = &url[scheme_end + 3..];
    let host_end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let origin = url[..scheme_end + 3 + host_end].to_owned();
    let path = after[host_end..]
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .trim_end_matches('/')
        .to_owned();
    (origin, path)
}

/// RFC 9728's well-known URLs for a resource: path-aware first, then the root.
fn resource_candidates(url: &str) -> Vec<String> {
    let (origin, path) = split(url);
    let root = format!("{origin}/.well-known/oauth-protected-resource");
    if path.is_empty() {
        vec![root]
    } else {
        vec![format!("{root}{path}"), root]
    }
}

/// The metadata URLs of an issuer, in the order the MCP spec gives: RFC 8414 (path
/// inserted), OpenID Connect with the path inserted, OpenID Connect appended.
fn server_candidates(issuer: &str) -> Vec<String> {
    let (origin, path) = split(issuer);
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// Two issuer identifiers name the same server (RFC 8414 wants them identical; a
/// trailing `/` is the one difference tolerated).
fn same_issuer(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

fn text(object: &Map<String, Value>, field: &str) -> Option<String> {
    object
        .get(field)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Ask the server, unauthenticated, and follow its answer to the authorization server.
pub fn discover(server: &str) -> Result<Discovery, DiscoverError> {
    web::check("the server URL", server)?;
    let hello = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "mcpctl", "version": env!("CARGO_PKG_VERSION")}}
    });
    let answer = web::post_json("the server URL", server, &hello)?;
    if answer.status != 401 {
        return Err(DiscoverError::Open {
            url: server.to_owned(),
            status: answer.status,
        });
    }
    let header = answer.www_authenticate.unwrap_or_default();
    let scope = auth_param(&header, "scope");
    let named = auth_param(&header, "resource_metadata");
    let candidates = match named {
        Some(url) => vec![url],
        None => resource_candidates(server),
    };
    let (metadata_url, resource) = candidates
        .iter()
        .find_map(|url| {
            let answer = web::get("the resource metadata", url).ok()?;
            (answer.status == 200)
                .then(|| answer.json(url).ok())
                .flatten()
                .map(|m| (url.clone(), m))
        })
        .ok_or_else(|| DiscoverError::NoResourceMetadata {
            url: server.to_owned(),
        })?;
    let issuer = resource
        .get("authorization_servers")
        .and_then(Value::as_array)
        .and_then(|a| a.iter().find_map(Value::as_str))
        .map(str::to_owned)
        .ok_or(DiscoverError::NoAuthorizationServer {
            url: metadata_url.clone(),
        })?;
    web::check("the authorization server", &issuer)?;
    let scope = scope.or_else(|| {
        let scopes: Vec<&str> = resource
            .get("scopes_supported")?
            .as_array()?
            .iter()
            .filter_map(Value::as_str)
            .collect();
        (!scopes.is_empty()).then(|| scopes.join(" "))
    });
    let resource_id = text(&resource, "resource").unwrap_or_else(|| server.to_owned());
    server_metadata(server, resource_id, scope, &issuer)
}

/// The authorization server's metadata, its issuer checked against `issuer`.
fn server_metadata(
    server: &str,
    resource: String,
    scope: Option<String>,
    issuer: &str,
) -> Result<Discovery, DiscoverError> {
    let candidates = server_candidates(issuer);
    let (url, metadata) = candidates
        .iter()
        .find_map(|url| {
            let answer = web::get("the authorization server's metadata", url).ok()?;
            (answer.status == 200)
                .then(|| answer.json(url).ok())
                .flatten()
                .map(|m| (url.clone(), m))
        })
        .ok_or_else(|| DiscoverError::NoServerMetadata {
            issuer: issuer.to_owned(),
            tried: candidates.join(", "),
        })?;
    let found = text(&metadata, "issuer").unwrap_or_default();
    if !same_issuer(&found, issuer) {
        return Err(DiscoverError::IssuerMismatch {
            url,
            expected: issuer.to_owned(),
            found,
        });
    }
    let field = |name: &'static str| {
        let value = text(&metadata, name).ok_or(DiscoverError::Missing {
            url: url.clone(),
            field: name,
        })?;
        web::check(name, &value)?;
        Ok::<String, DiscoverError>(value)
    };
    let authorization_endpoint = field("authorization_endpoint")?;
    let token_endpoint = field("token_endpoint")?;
    let optional = |name: &'static str| field(name).ok();
    let s256 = metadata
        .get("code_challenge_methods_supported")
        .and_then(Value::as_array)
        .is_some_and(|m| m.iter().any(|v| v.as_str() == Some("S256")));
    if !s256 {
        return Err(DiscoverError::NoPkce {
            issuer: issuer.to_owned(),
        });
    }
    Ok(Discovery {
        server: server.to_owned(),
        resource,
        scope,
        issuer: found,
        authorization_endpoint,
        token_endpoint,
        registration_endpoint: optional("registration_endpoint"),
        revocation_endpoint: optional("revocation_endpoint"),
        device_authorization_endpoint: optional("device_authorization_endpoint"),
        client_metadata_documents: metadata
            .get("client_id_metadata_document_supported")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_urls_insert_the_path() {
        assert_eq!(
            resource_candidates("https://a.example/mcp/"),
            vec![
                "https://a.example/.well-known/oauth-protected-resource/mcp",
                "https://a.example/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            server_candidates("https://auth.example/tenant1"),
            vec![
                "https://auth.example/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example/.well-known/openid-configuration/tenant1",
                "https://auth.example/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            server_candidates("http://localhost:3001/")[0],
            "http://localhost:3001/.well-known/oauth-authorization-server"
        );
    }

    #[test]
    fn www_authenticate_parameters() {
        let h = r#"Bearer error="invalid_token", resource_metadata="http://x/.well-known/oauth-protected-resource/mcp", scope="a b""#;
        assert_eq!(
            auth_param(h, "resource_metadata").as_deref(),
            Some("http://x/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(auth_param(h, "scope").as_deref(), Some("a b"));
        assert_eq!(auth_param("Bearer xscope=1", "scope"), None);
        assert!(same_issuer("http://a/", "http://a"));
        assert!(!same_issuer("http://a/", "http://b/"));
    }
}
