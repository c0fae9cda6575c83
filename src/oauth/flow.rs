//! Signing in: mcpctl as a client of the authorization server (a given client id, else
//! its client-metadata document's https URL where the server accepts one (CIMD), else
//! dynamic registration, RFC 7591); the authorization code flow with PKCE (S256): send
//! the person to the authorization endpoint, take the code back on a loopback redirect
//! (127.0.0.1, a port the OS picks) or from the redirected URL pasted back, check
//! `state`, exchange the code; or the device flow (RFC 8628): show the person a code to
//! confirm on any device, poll the token endpoint. Refresh and revoke (RFC 7009) a grant
//! later.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Map, Value, json};
use sha2::Digest as _;

use super::discover::Discovery;
use super::web::{self, WebError};
use super::{Grant, now};

/// Why signing in stopped.
#[derive(Debug, thiserror::Error)]
pub enum FlowError {
    #[error(transparent)]
    Web(#[from] WebError),
    #[error(
        "the authorization server {issuer} offers no client registration (RFC 7591) and no client id was given"
    )]
    NoRegistration { issuer: String },
    #[error("the client registration at {url} gave no client_id")]
    NoClientId { url: String },
    #[error(
        "the answer's `state` does not match the one mcpctl sent; refused (the redirect did not come from this sign-in)"
    )]
    StateMismatch,
    #[error("the authorization server refused: {error}{description}")]
    Denied { error: String, description: String },
    #[error("the redirect carries no authorization code: {url}")]
    NoCode { url: String },
    #[error("no answer from the browser within {secs} s")]
    Timeout { secs: u64 },
    #[error("the token endpoint {url} gave no access_token")]
    NoToken { url: String },
    #[error("the server gave no refresh token, so the sign-in cannot be renewed")]
    NoRefreshToken,
    #[error(
        "the authorization server {issuer} does not offer the device flow (no `device_authorization_endpoint` in its metadata)"
    )]
    NoDeviceFlow { issuer: String },
    #[error("the authorization server refused to start the device flow: {0}")]
    DeviceRefused(WebError),
    #[error("the device authorization at {url} is not usable: {why}")]
    BadDeviceAnswer { url: String, why: String },
    #[error("the sign-in was declined at the authorization server (access_denied)")]
    DeviceDenied,
    #[error("the code expired before the sign-in was confirmed (expired_token)")]
    DeviceExpired,
    #[error("{0}")]
    Io(String),
}

/// How mcpctl came to be a client of the authorization server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Registration {
    /// A client id registered beforehand (`--client-id`, the entry's `oauth` fields).
    Given,
    /// The client-metadata document's URL is the client id (CIMD).
    ClientMetadataDocument,
    /// Dynamic client registration (RFC 7591).
    Dynamic,
}

/// mcpctl as a client: its id (and secret, when a registration gave one), how, and why a
/// client-metadata document was not used when it was not.
#[derive(Debug, Clone)]
pub struct Registered {
    pub id: String,
    pub secret: Option<String>,
    pub how: Registration,
    /// Why CIMD was skipped (`None` when it was used, or a given id made it moot).
    pub cimd_unused: Option<CimdUnused>,
}

/// Why a client-metadata document was not the client id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CimdUnused {
    /// The server accepts one, but mcpctl has no URL of one.
    NoUrl,
    /// A URL is set, but the server does not accept documents.
    NotAccepted,
    /// Neither.
    Neither,
}

impl CimdUnused {
    /// Why, in words (`issuer` is the authorization server).
    pub fn why(self, issuer: &str) -> String {
        match self {
            CimdUnused::NoUrl => format!(
                "{issuer} accepts a client-metadata document (CIMD), but no URL of one is set (--client-metadata-url or MCPCTL_CLIENT_METADATA_URL)"
            ),
            CimdUnused::NotAccepted => format!(
                "{issuer} does not accept client-metadata documents (no `client_id_metadata_document_supported` in its metadata)"
            ),
            CimdUnused::Neither => format!(
                "{issuer} does not accept client-metadata documents, and no URL of one is set"
            ),
        }
    }

    /// Whether a document could have been used with one change (worth a line).
    pub fn worth_saying(self) -> bool {
        self != CimdUnused::Neither
    }
}

/// The grant types mcpctl asks for: the code flow's, or the device flow's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grants {
    Code,
    Device,
}

/// RFC 8628's grant type.
pub const DEVICE_GRANT: &str = "urn:ietf:params:oauth:grant-type:device_code";

/// How the authorization server's answer comes back.
pub enum Return {
    /// A redirect to a listener on 127.0.0.1, waited for this long.
    Loopback(Duration),
    /// The redirected URL, pasted by the person (`--no-browser`).
    Paste,
}

/// `n` random bytes, base64url without padding.
fn random(n: usize) -> Result<String, FlowError> {
    let mut bytes = vec![0u8; n];
    getrandom::getrandom(&mut bytes)
        .map_err(|e| FlowError::Io(format!("no random numbers from the OS: {e}")))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// The PKCE challenge of a verifier (S256).
pub fn challenge(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier))
}

fn text(object: &Map<String, Value>, field: &str) -> Option<String> {
    object
        .get(field)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// mcpctl as a client of the authorization server, in this order: the id given (the
/// person's choice, registered beforehand); the https URL of mcpctl's client-metadata
/// document where the server accepts one (`client_id_metadata_document_supported`) and
/// a URL is set; dynamic registration (RFC 7591). `redirect` is the loopback redirect
/// of the code flow (`None` for the device flow).
pub fn register(
    discovery: &Discovery,
    client_id: Option<&str>,
    metadata_url: Option<&str>,
    redirect: Option<&str>,
    grants: Grants,
) -> Result<Registered, FlowError> {
    if let Some(id) = client_id {
        return Ok(Registered {
            id: id.to_owned(),
            secret: None,
            how: Registration::Given,
            cimd_unused: None,
        });
    }
    let cimd_unused = match (metadata_url, discovery.client_metadata_documents) {
        (Some(url), true) => {
            return Ok(Registered {
                id: url.to_owned(),
                secret: None,
                how: Registration::ClientMetadataDocument,
                cimd_unused: None,
            });
        }
        (None, true) => CimdUnused::NoUrl,
        (Some(_), false) => CimdUnused::NotAccepted,
        (None, false) => CimdUnused::Neither,
    };
    let Some(url) = &discovery.registration_endpoint else {
        return Err(FlowError::NoRegistration {
            issuer: discovery.issuer.clone(),
        });
    };
    let mut body = match (grants, redirect) {
        (Grants::Code, Some(redirect)) => json!({
            "client_name": "mcpctl",
            "redirect_uris": [redirect],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }),
        _ => json!({
            "client_name": "mcpctl",
            "application_type": "native",
            "redirect_uris": [],
            "grant_types": [DEVICE_GRANT, "refresh_token"],
            "response_types": [],
            "token_endpoint_auth_method": "none",
        }),
    };
    if let Some(scope) = &discovery.scope {
        body["scope"] = json!(scope);
    }
    let answer = web::post_json("the registration endpoint", url, &body)?;
    let registered = answer.ok_json(url)?;
    let id = text(&registered, "client_id").ok_or(FlowError::NoClientId { url: url.clone() })?;
    Ok(Registered {
        id,
        secret: text(&registered, "client_secret"),
        how: Registration::Dynamic,
        cimd_unused: Some(cimd_unused),
    })
}

/// What the person does with the authorization URL: `show` opens or prints it, `paste`
/// reads the redirected URL back (`Return::Paste`).
pub struct Person<'a> {
    pub show: &'a mut dyn FnMut(&str),
    pub paste: &'a mut dyn FnMut() -> std::io::Result<String>,
}

/// Sign in: register, authorize, check `state`, exchange the code. The redirect comes to
/// `callback_port` on 127.0.0.1 when given (a pre-registered client's fixed redirect),
/// else to a port the OS picks.
pub fn sign_in(
    discovery: &Discovery,
    client_id: Option<&str>,
    metadata_url: Option<&str>,
    scope: Option<&str>,
    callback_port: Option<u16>,
    how: Return,
    person: Person<'_>,
) -> Result<(Grant, Registered), FlowError> {
    let listener = TcpListener::bind(("127.0.0.1", callback_port.unwrap_or(0))).map_err(|e| {
        FlowError::Io(format!(
            "cannot listen on 127.0.0.1:{}: {e}",
            callback_port.unwrap_or(0)
        ))
    })?;
    let port = listener
        .local_addr()
        .map_err(|e| FlowError::Io(e.to_string()))?
        .port();
    let redirect = format!("http://127.0.0.1:{port}/callback");
    let registered = register(
        discovery,
        client_id,
        metadata_url,
        Some(&redirect),
        Grants::Code,
    )?;
    let (client_id, client_secret) = (registered.id.clone(), registered.secret.clone());
    let verifier = random(32)?;
    let state = random(16)?;
    let scope = scope.map(str::to_owned).or_else(|| discovery.scope.clone());
    let mut params = vec![
        ("response_type", "code"),
        ("client_id", client_id.as_str()),
        ("redirect_uri", redirect.as_str()),
        ("code_challenge_method", "S256"),
        ("state", state.as_str()),
        ("resource", discovery.resource.as_str()),
    ];
    let code_challenge = challenge(&verifier);
    params.push(("code_challenge", code_challenge.as_str()));
    if let Some(scope) = &scope {
        params.push(("scope", scope.as_str()));
    }
    let separator = if discovery.authorization_endpoint.contains('?') {
        '&'
    } else {
        '?'
    };
    let url = format!(
        "{}{separator}{}",
        discovery.authorization_endpoint,
        web::form(&params)
    );
    (person.show)(&url);
    let answer = match how {
        Return::Loopback(wait) => wait_for_redirect(&listener, wait)?,
        Return::Paste => {
            drop(listener);
            (person.paste)().map_err(|e| FlowError::Io(format!("cannot read the URL: {e}")))?
        }
    };
    let code = check_answer(&answer, &state)?;
    let mut form = vec![
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", redirect.as_str()),
        ("client_id", client_id.as_str()),
        ("code_verifier", verifier.as_str()),
        ("resource", discovery.resource.as_str()),
    ];
    if let Some(secret) = &client_secret {
        form.push(("client_secret", secret.as_str()));
    }
    let tokens = token_call(&discovery.token_endpoint, &form)?;
    let mut grant = Grant {
        server: discovery.server.clone(),
        resource: discovery.resource.clone(),
        issuer: discovery.issuer.clone(),
        client_id,
        client_secret,
        token_endpoint: discovery.token_endpoint.clone(),
        revocation_endpoint: discovery.revocation_endpoint.clone(),
        access_token: String::new(),
        refresh_token: None,
        expires_at: None,
        scope,
    };
    apply(&mut grant, &tokens, &discovery.token_endpoint)?;
    Ok((grant, registered))
}

/// What the device authorization endpoint answered, as the person is shown it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceCode {
    device_code: String,
    /// Where to go (checked: https, or http to this machine).
    pub verification_uri: String,
    /// The same with the code filled in, when the server gives it (checked the same way).
    pub verification_uri_complete: Option<String>,
    /// The code to enter or to check (printable ASCII only, at most 64 characters).
    pub user_code: String,
    /// Seconds the code lives.
    pub expires_in: u64,
    /// Seconds between polls (RFC 8628: 5 when the server does not say).
    pub interval: u64,
}

/// A text from the authorization server fit to show: printable ASCII, at most 64
/// characters; `None` when nothing is left.
fn shown_code(text: &str) -> Option<String> {
    let kept: String = text
        .chars()
        .filter(|c| c.is_ascii_graphic() || *c == ' ')
        .take(64)
        .collect();
    let kept = kept.trim().to_owned();
    (!kept.is_empty()).then_some(kept)
}

/// Read a device authorization answer (RFC 8628 §3.2).
fn device_code(url: &str, answer: &Map<String, Value>) -> Result<DeviceCode, FlowError> {
    let bad = |why: &str| FlowError::BadDeviceAnswer {
        url: url.to_owned(),
        why: why.to_owned(),
    };
    let number = |field: &str| {
        answer
            .get(field)
            .and_then(|v| v.as_u64().or_else(|| v.as_str()?.parse().ok()))
    };
    let device_code = text(answer, "device_code").ok_or_else(|| bad("no device_code"))?;
    let user_code = text(answer, "user_code")
        .as_deref()
        .and_then(shown_code)
        .ok_or_else(|| bad("no user_code"))?;
    // RFC 8628 names it `verification_uri`; early drafts (and Google) `verification_url`.
    let verification_uri = text(answer, "verification_uri")
        .or_else(|| text(answer, "verification_url"))
        .ok_or_else(|| bad("no verification_uri"))?;
    let checked = |uri: String| -> Result<String, FlowError> {
        web::check("the verification_uri", &uri)
            .map_err(|e| bad(&e.to_string()))
            .map(|()| uri.chars().filter(|c| !c.is_control()).collect())
    };
    Ok(DeviceCode {
        device_code,
        verification_uri: checked(verification_uri)?,
        verification_uri_complete: text(answer, "verification_uri_complete")
            .map(checked)
            .transpose()?,
        user_code,
        expires_in: number("expires_in").ok_or_else(|| bad("no expires_in"))?,
        interval: number("interval").unwrap_or(5).clamp(1, 60),
    })
}

/// One poll of the token endpoint, as the device flow reads it (RFC 8628 §3.5).
#[derive(Debug)]
pub enum Poll {
    Tokens(Map<String, Value>),
    Pending,
    SlowDown,
    Denied,
    Expired,
    Failed(FlowError),
}

/// Poll until the person has confirmed (tokens), declined or let the code expire: every
/// `interval` seconds, 5 more after each `slow_down`, no longer than `expires_in`.
pub fn poll_until(
    interval: u64,
    expires_in: u64,
    mut poll: impl FnMut() -> Poll,
    mut sleep: impl FnMut(Duration),
) -> Result<Map<String, Value>, FlowError> {
    let mut interval = interval.max(1);
    let mut waited = 0;
    loop {
        if waited >= expires_in {
            return Err(FlowError::DeviceExpired);
        }
        sleep(Duration::from_secs(interval));
        waited += interval;
        match poll() {
            Poll::Tokens(tokens) => return Ok(tokens),
            Poll::Pending => {}
            Poll::SlowDown => interval += 5,
            Poll::Denied => return Err(FlowError::DeviceDenied),
            Poll::Expired => return Err(FlowError::DeviceExpired),
            Poll::Failed(e) => return Err(e),
        }
    }
}

/// Sign in with the device flow (RFC 8628): register (or name) mcpctl as a client, ask
/// for a code, show it (`show`), poll the token endpoint until it is confirmed.
pub fn device_sign_in(
    discovery: &Discovery,
    client_id: Option<&str>,
    metadata_url: Option<&str>,
    scope: Option<&str>,
    show: &mut dyn FnMut(&DeviceCode),
) -> Result<(Grant, Registered), FlowError> {
    let Some(endpoint) = &discovery.device_authorization_endpoint else {
        return Err(FlowError::NoDeviceFlow {
            issuer: discovery.issuer.clone(),
        });
    };
    let registered = register(discovery, client_id, metadata_url, None, Grants::Device).map_err(
        |e| match e {
            FlowError::Web(w) => FlowError::DeviceRefused(w),
            other => other,
        },
    )?;
    let scope = scope.map(str::to_owned).or_else(|| discovery.scope.clone());
    let mut form = vec![
        ("client_id", registered.id.as_str()),
        ("resource", discovery.resource.as_str()),
    ];
    if let Some(scope) = &scope {
        form.push(("scope", scope.as_str()));
    }
    if let Some(secret) = &registered.secret {
        form.push(("client_secret", secret.as_str()));
    }
    let answer = web::post_form("the device authorization endpoint", endpoint, &form)?
        .ok_json(endpoint)
        .map_err(FlowError::DeviceRefused)?;
    let code = device_code(endpoint, &answer)?;
    show(&code);
    let mut poll_form = vec![
        ("grant_type", DEVICE_GRANT),
        ("device_code", code.device_code.as_str()),
        ("client_id", registered.id.as_str()),
        ("resource", discovery.resource.as_str()),
    ];
    if let Some(secret) = &registered.secret {
        poll_form.push(("client_secret", secret.as_str()));
    }
    let url = &discovery.token_endpoint;
    let tokens = poll_until(
        code.interval,
        code.expires_in,
        || {
            let answer = match web::post_form("the token endpoint", url, &poll_form) {
                Ok(answer) => answer,
                Err(e) => return Poll::Failed(e.into()),
            };
            if (200..300).contains(&answer.status) {
                return match answer.json(url) {
                    Ok(tokens) => Poll::Tokens(tokens),
                    Err(e) => Poll::Failed(e.into()),
                };
            }
            let error = answer
                .json(url)
                .ok()
                .and_then(|o| text(&o, "error"))
                .unwrap_or_default();
            match error.as_str() {
                "authorization_pending" => Poll::Pending,
                "slow_down" => Poll::SlowDown,
                "access_denied" => Poll::Denied,
                "expired_token" => Poll::Expired,
                _ => Poll::Failed(
                    answer
                        .ok_json(url)
                        .map_or_else(FlowError::from, |_| FlowError::NoToken { url: url.clone() }),
                ),
            }
        },
        std::thread::sleep,
    )?;
    let mut grant = Grant {
        server: discovery.server.clone(),
        resource: discovery.resource.clone(),
        issuer: discovery.issuer.clone(),
        client_id: registered.id.clone(),
        client_secret: registered.secret.clone(),
        token_endpoint: discovery.token_endpoint.clone(),
        revocation_endpoint: discovery.revocation_endpoint.clone(),
        access_token: String::new(),
        refresh_token: None,
        expires_at: None,
        scope,
    };
    apply(&mut grant, &tokens, url)?;
    Ok((grant, registered))
}

/// The code in the redirected URL (or query), once `state` and errors are checked.
pub fn check_answer(answer: &str, state: &str) -> Result<String, FlowError> {
    let answer = answer.trim();
    let query = web::query(answer);
    let get = |k: &str| {
        query
            .iter()
            .find(|(name, _)| name == k)
            .map(|(_, v)| v.clone())
    };
    if get("state").as_deref() != Some(state) {
        return Err(FlowError::StateMismatch);
    }
    if let Some(error) = get("error") {
        return Err(FlowError::Denied {
            error,
            description: get("error_description")
                .map(|d| format!(" ({d})"))
                .unwrap_or_default(),
        });
    }
    get("code").ok_or_else(|| FlowError::NoCode {
        url: answer.to_owned(),
    })
}

/// Accept connections on the loopback listener until one asks for `/callback`; answer
/// it with a page saying to go back to the terminal. Other requests get a 404.
fn wait_for_redirect(listener: &TcpListener, wait: Duration) -> Result<String, FlowError> {
    listener
        .set_nonblocking(true)
        .map_err(|e| FlowError::Io(e.to_string()))?;
    let deadline = Instant::now() + wait;
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                if let Some(target) = read_request(stream) {
                    return Ok(target);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    return Err(FlowError::Timeout {
                        secs: wait.as_secs(),
                    });
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => return Err(FlowError::Io(format!("the loopback listener failed: {e}"))),
        }
    }
}

/// The request target of a `GET /callback…`, answered; `None` for anything else.
fn read_request(mut stream: TcpStream) -> Option<String> {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut head = Vec::new();
    let mut buf = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head);
    let mut words = head.lines().next().unwrap_or("").split_whitespace();
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let ours = method == "GET" && (target == "/callback" || target.starts_with("/callback?"));
    let (status, page) = if ours {
        (
            "200 OK",
            "<!doctype html><title>mcpctl</title><p>mcpctl has the answer; you can close this tab and go back to the terminal.</p>",
        )
    } else {
        (
            "404 Not Found",
            "<!doctype html><title>mcpctl</title><p>Not found.</p>",
        )
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
        page.len()
    );
    let _ = stream.flush();
    ours.then(|| target.to_owned())
}

/// POST to the token endpoint; the JSON answer.
fn token_call(url: &str, form: &[(&str, &str)]) -> Result<Map<String, Value>, FlowError> {
    Ok(web::post_form("the token endpoint", url, form)?.ok_json(url)?)
}

/// Put a token answer into `grant` (a refresh token the answer leaves out is kept).
fn apply(grant: &mut Grant, tokens: &Map<String, Value>, url: &str) -> Result<(), FlowError> {
    grant.access_token = text(tokens, "access_token").ok_or(FlowError::NoToken {
        url: url.to_owned(),
    })?;
    if let Some(refresh) = text(tokens, "refresh_token") {
        grant.refresh_token = Some(refresh);
    }
    grant.expires_at = tokens
        .get("expires_in")
        .and_then(|v| v.as_u64().or_else(|| v.as_str()?.parse().ok()))
        .map(|secs| now().saturating_add(secs));
    if let Some(scope) = text(tokens, "scope") {
        grant.scope = Some(scope);
    }
    Ok(())
}

/// A fresh access token from the refresh token (RFC 6749 §6).
pub fn refresh(grant: &Grant) -> Result<Grant, FlowError> {
    let refresh = grant
        .refresh_token
        .as_deref()
        .ok_or(FlowError::NoRefreshToken)?;
    let mut form = vec![
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh),
        ("client_id", grant.client_id.as_str()),
        ("resource", grant.resource.as_str()),
    ];
    if let Some(secret) = &grant.client_secret {
        form.push(("client_secret", secret.as_str()));
    }
    let tokens = token_call(&grant.token_endpoint, &form)?;
    let mut fresh = grant.clone();
    apply(&mut fresh, &tokens, &grant.token_endpoint)?;
    Ok(fresh)
}

/// Revoke the grant's tokens where the server offers revocation (RFC 7009): the refresh
/// token (which ends the access tokens issued from it), else the access token.
/// `Ok(false)` when the server has no revocation endpoint.
pub fn revoke(grant: &Grant) -> Result<bool, FlowError> {
    let Some(url) = &grant.revocation_endpoint else {
        return Ok(false);
    };
    let (token, hint) = match &grant.refresh_token {
        Some(refresh) => (refresh.as_str(), "refresh_token"),
        None => (grant.access_token.as_str(), "access_token"),
    };
    let mut form = vec![
        ("token", token),
        ("token_type_hint", hint),
        ("client_id", grant.client_id.as_str()),
    ];
    if let Some(secret) = &grant.client_secret {
        form.push(("client_secret", secret.as_str()));
    }
    let answer = web::post_form("the revocation endpoint", url, &form)?;
    if !(200..300).contains(&answer.status) {
        answer.ok_json(url)?;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7636 appendix B.
    #[test]
    fn pkce_s256_matches_the_rfc_example() {
        assert_eq!(
            challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        let a = random(32).unwrap();
        assert_eq!(a.len(), 43);
        assert_ne!(a, random(32).unwrap());
    }

    /// RFC 8628 §3.5: `authorization_pending` polls on, `slow_down` adds 5 s to the
    /// interval for every later poll, `access_denied` and `expired_token` end it, and no
    /// poll goes past `expires_in`.
    #[test]
    fn the_device_flow_polls_at_the_interval_and_slows_down_when_told() {
        let mut answers = vec![Poll::Pending, Poll::SlowDown, Poll::Pending, Poll::SlowDown];
        answers.reverse();
        let mut slept = Vec::new();
        let done = poll_until(
            5,
            600,
            || {
                answers.pop().unwrap_or_else(|| {
                    Poll::Tokens(json!({"access_token": "a"}).as_object().unwrap().clone())
                })
            },
            |d| slept.push(d.as_secs()),
        );
        assert!(done.is_ok());
        assert_eq!(slept, vec![5, 5, 10, 10, 15]);

        let mut slept = 0;
        let never = poll_until(5, 12, || Poll::Pending, |d| slept += d.as_secs());
        assert!(matches!(never, Err(FlowError::DeviceExpired)));
        assert_eq!(slept, 15, "three polls, the last at or past 12 s");
        for (answer, said) in [(Poll::Denied, "declined"), (Poll::Expired, "expired_token")] {
            let mut once = Some(answer);
            let end = poll_until(1, 60, || once.take().unwrap_or(Poll::Pending), |_| {});
            assert!(end.unwrap_err().to_string().contains(said));
        }
    }

    #[test]
    fn a_device_answer_is_checked_before_it_is_shown() {
        let answer = |extra: Value| {
            let mut a = json!({"device_code": "d", "user_code": "WDJB-\u{1b}[31mMJHT\n",
                "verification_uri": "https://auth.example/device", "expires_in": 600});
            a.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            a.as_object().unwrap().clone()
        };
        let code = device_code("u", &answer(json!({}))).unwrap();
        assert_eq!(code.user_code, "WDJB-[31mMJHT");
        assert_eq!(code.interval, 5);
        assert!(
            device_code(
                "u",
                &answer(json!({"verification_uri": "http://evil.example/d"}))
            )
            .is_err()
        );
        assert!(
            device_code(
                "u",
                &answer(json!({"verification_uri_complete": "javascript:alert(1)"}))
            )
            .is_err()
        );
        assert!(device_code("u", &answer(json!({"user_code": "\u{7}"}))).is_err());
    }

    #[test]
    fn answers_are_checked_for_state_and_errors() {
        let ok = "http://127.0.0.1:5/callback?code=abc&state=s1";
        assert_eq!(check_answer(ok, "s1").unwrap(), "abc");
        assert!(matches!(
            check_answer(ok, "s2"),
            Err(FlowError::StateMismatch)
        ));
        assert!(matches!(
            check_answer("/callback?code=abc", "s1"),
            Err(FlowError::StateMismatch)
        ));
        let denied = "/callback?error=access_denied&error_description=no&state=s1";
        assert_eq!(
            check_answer(denied, "s1").unwrap_err().to_string(),
            "the authorization server refused: access_denied (no)"
        );
    }
}
