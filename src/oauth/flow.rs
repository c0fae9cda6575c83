//! The authorization code flow with PKCE (S256): register mcpctl as a client (a given
//! client id, else dynamic registration, RFC 7591), send the person to the authorization
//! endpoint, take the code back on a loopback redirect (127.0.0.1, a port the OS picks)
//! or from the redirected URL pasted back, check `state`, exchange the code; refresh and
//! revoke (RFC 7009) a grant later.

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
    #[error("{0}")]
    Io(String),
}

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

/// mcpctl as a client of the authorization server: the given id, else a registration.
fn register(
    discovery: &Discovery,
    client_id: Option<&str>,
    redirect: &str,
) -> Result<(String, Option<String>), FlowError> {
    if let Some(id) = client_id {
        return Ok((id.to_owned(), None));
    }
    let Some(url) = &discovery.registration_endpoint else {
        return Err(FlowError::NoRegistration {
            issuer: discovery.issuer.clone(),
        });
    };
    let mut body = json!({
        "client_name": "mcpctl",
        "redirect_uris": [redirect],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    });
    if let Some(scope) = &discovery.scope {
        body["scope"] = json!(scope);
    }
    let answer = web::post_json("the registration endpoint", url, &body)?;
    let registered = answer.ok_json(url)?;
    let id = text(&registered, "client_id").ok_or(FlowError::NoClientId { url: url.clone() })?;
    Ok((id, text(&registered, "client_secret")))
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
    scope: Option<&str>,
    callback_port: Option<u16>,
    how: Return,
    person: Person<'_>,
) -> Result<Grant, FlowError> {
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
    let (client_id, client_secret) = register(discovery, client_id, &redirect)?;
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
    Ok(grant)
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
