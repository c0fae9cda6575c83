//! The HTTP calls of signing in: JSON in, JSON or a form out, only to `https` endpoints
//! (`http` only to this machine), never following a redirect (an authorization server
//! that moves its endpoints says so in its metadata).

use std::io::Read;
use std::time::Duration;

use serde_json::Value;

/// How long one call may take.
const TIMEOUT: Duration = Duration::from_secs(30);
/// The most of a body read (metadata and token answers are small).
const BODY_LIMIT: u64 = 256 * 1024;

/// Why a call failed: said in the user's terms.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    #[error(
        "{what} `{url}` is not https (mcpctl sends sign-in requests only over https, or http to this machine)"
    )]
    NotHttps { what: String, url: String },
    #[error("cannot reach {url}: {cause}")]
    Unreachable { url: String, cause: String },
    #[error("{url} answered HTTP {status}{detail}")]
    Status {
        url: String,
        status: u16,
        detail: String,
    },
    #[error(
        "{url} answered a redirect (HTTP {status}); mcpctl follows no redirect while signing in"
    )]
    Redirect { url: String, status: u16 },
    #[error("{url} did not answer a JSON object: {cause}")]
    BadJson { url: String, cause: String },
}

/// The host of a URL (without port or brackets), lowercased.
pub fn host(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        authority.split(':').next().unwrap_or("")
    };
    Some(host.to_ascii_lowercase())
}

/// Whether `url` points at this machine (`localhost`, `127.0.0.0/8`, `::1`).
pub fn is_loopback(url: &str) -> bool {
    host(url).is_some_and(|h| {
        h == "localhost"
            || h == "::1"
            || h.parse::<std::net::Ipv4Addr>()
                .is_ok_and(|ip| ip.is_loopback())
    })
}

/// `Ok` when `url` may be used for signing in: https, or http to this machine.
pub fn check(what: &str, url: &str) -> Result<(), WebError> {
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("https://") || (lower.starts_with("http://") && is_loopback(url)) {
        Ok(())
    } else {
        Err(WebError::NotHttps {
            what: what.to_owned(),
            url: url.to_owned(),
        })
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(TIMEOUT))
        .user_agent(concat!("mcpctl/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

fn unreachable(url: &str, error: &ureq::Error) -> WebError {
    let cause = match error {
        ureq::Error::Timeout(_) => format!("no answer within {}s", TIMEOUT.as_secs()),
        ureq::Error::HostNotFound => "host not found (DNS)".to_owned(),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            "connection refused".to_owned()
        }
        other => other.to_string(),
    };
    WebError::Unreachable {
        url: url.to_owned(),
        cause,
    }
}

/// An answer: status, headers that matter, body.
pub struct Answer {
    pub status: u16,
    pub www_authenticate: Option<String>,
    pub body: String,
}

impl Answer {
    /// The body as a JSON object, or why not.
    pub fn json(&self, url: &str) -> Result<serde_json::Map<String, Value>, WebError> {
        match serde_json::from_str::<Value>(&self.body) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err(WebError::BadJson {
                url: url.to_owned(),
                cause: "not an object".to_owned(),
            }),
            Err(e) => Err(WebError::BadJson {
                url: url.to_owned(),
                cause: e.to_string(),
            }),
        }
    }

    /// The body as a JSON object when the status is 2xx; else the OAuth error it names.
    pub fn ok_json(&self, url: &str) -> Result<serde_json::Map<String, Value>, WebError> {
        if (300..400).contains(&self.status) {
            return Err(WebError::Redirect {
                url: url.to_owned(),
                status: self.status,
            });
        }
        if !(200..300).contains(&self.status) {
            let detail = self
                .json(url)
                .ok()
                .and_then(|o| {
                    let error = o.get("error")?.as_str()?.to_owned();
                    let description = o.get("error_description").and_then(Value::as_str);
                    Some(match description {
                        Some(d) => format!(": {error} ({d})"),
                        None => format!(": {error}"),
                    })
                })
                .unwrap_or_default();
            return Err(WebError::Status {
                url: url.to_owned(),
                status: self.status,
                detail,
            });
        }
        self.json(url)
    }
}

fn answer(response: ureq::http::Response<ureq::Body>) -> Answer {
    let status = response.status().as_u16();
    let www_authenticate = response
        .headers()
        .get_all("www-authenticate")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(", ");
    let mut body = String::new();
    let _ = response
        .into_body()
        .into_reader()
        .take(BODY_LIMIT)
        .read_to_string(&mut body);
    Answer {
        status,
        www_authenticate: (!www_authenticate.is_empty()).then_some(www_authenticate),
        body,
    }
}

/// GET `url` asking for JSON.
pub fn get(what: &str, url: &str) -> Result<Answer, WebError> {
    check(what, url)?;
    let response = agent()
        .get(url)
        .header("Accept", "application/json")
        .call()
        .map_err(|e| unreachable(url, &e))?;
    Ok(answer(response))
}

/// POST a JSON body (with the MCP `Accept`: the server's own endpoint is probed so).
pub fn post_json(what: &str, url: &str, body: &Value) -> Result<Answer, WebError> {
    check(what, url)?;
    let response = agent()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .send(body.to_string())
        .map_err(|e| unreachable(url, &e))?;
    Ok(answer(response))
}

/// POST a form (`application/x-www-form-urlencoded`).
pub fn post_form(what: &str, url: &str, pairs: &[(&str, &str)]) -> Result<Answer, WebError> {
    check(what, url)?;
    let response = agent()
        .post(url)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Accept", "application/json")
        .send(form(pairs))
        .map_err(|e| unreachable(url, &e))?;
    Ok(answer(response))
}

/// Percent-encode `text` for a query or form value (RFC 3986 unreserved kept).
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Decode a query or form value (`+` is a space).
pub fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len()
                && bytes[i + 1].is_ascii_hexdigit()
                && bytes[i + 2].is_ascii_hexdigit() =>
            {
                let hex = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
                out.push(hex(bytes[i + 1]) * 16 + hex(bytes[i + 2]));
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `a=1&b=2`, each value encoded.
pub fn form(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// The query parameters of a URL (or of a bare query string), decoded.
pub fn query(url: &str) -> Vec<(String, String)> {
    let query = match url.split_once('?') {
        Some((_, q)) => q,
        None => url,
    };
    let query = query.split('#').next().unwrap_or("");
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_loopback_http() {
        assert!(check("x", "https://auth.example.com/token").is_ok());
        assert!(check("x", "http://127.0.0.1:8080/token").is_ok());
        assert!(check("x", "http://localhost/token").is_ok());
        assert!(check("x", "http://[::1]:9/t").is_ok());
        assert!(check("x", "http://example.com/token").is_err());
        assert!(check("x", "http://localhost.evil.com/token").is_err());
        assert!(check("x", "http://127.0.0.1@evil.com/token").is_err());
        assert!(check("x", "ftp://localhost/token").is_err());
    }

    #[test]
    fn query_values_round_trip() {
        let text = "a b&c=d/é%";
        assert_eq!(decode(&encode(text)), text);
        let q = query("http://127.0.0.1:1/cb?code=x%2By&state=s+t#f");
        assert_eq!(
            q,
            vec![
                ("code".to_owned(), "x+y".to_owned()),
                ("state".to_owned(), "s t".to_owned())
            ]
        );
        assert_eq!(decode("100%"), "100%");
        assert_eq!(decode("%4"), "%4");
    }
}
