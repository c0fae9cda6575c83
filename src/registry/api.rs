//! The registry's HTTP API (`/v0.1`, frozen since 2025-10-17): one GET with timeouts and
//! a user agent, URL encoding, typed errors that name the URL, and a cache of answers in
//! the state directory so `search` still answers offline. Never writes client files.

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

use super::schema::{Item, List, Versions};

/// The official registry.
pub const OFFICIAL: &str = "https://registry.modelcontextprotocol.io";

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const TIMEOUT: Duration = Duration::from_secs(30);

/// Why the registry gave no usable answer.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("cannot reach the registry at {url}: {cause}")]
    Unreachable { url: String, cause: String },
    #[error("the registry answered HTTP {status} for {url}{detail}")]
    Status {
        url: String,
        status: u16,
        detail: String,
    },
    #[error("the registry's answer for {url} is not valid registry JSON: {cause}")]
    BadJson { url: String, cause: String },
    #[error("the registry at {base} has no server named `{name}` ({url} answered 404)")]
    NotFound {
        name: String,
        base: String,
        url: String,
        closest: Vec<String>,
    },
    #[error(
        "the registry at {url} redirects to another host ({to}); mcpctl follows a registry's redirects only within its own host"
    )]
    Redirect { url: String, to: String },
    #[error("`{name}` has no version `{version}` in the registry at {base}")]
    NoVersion {
        name: String,
        version: String,
        base: String,
        available: Vec<String>,
    },
}

impl RegistryError {
    /// What to do about it.
    pub fn hint(&self) -> String {
        match self {
            RegistryError::Unreachable { .. } => {
                "check the network or proxy, or point `--registry`/MCPCTL_REGISTRY at a reachable registry".to_owned()
            }
            RegistryError::Status { status, .. } if *status >= 500 => {
                "the registry has a problem; try again later".to_owned()
            }
            RegistryError::Status { .. } | RegistryError::BadJson { .. } => {
                "is `--registry`/MCPCTL_REGISTRY the base URL of an MCP registry (it serves /v0.1/servers)?".to_owned()
            }
            RegistryError::NotFound { closest, .. } if !closest.is_empty() => {
                format!("closest names: {}", closest.join(", "))
            }
            RegistryError::NotFound { .. } => {
                "find the exact name with `mcpctl search TEXT`".to_owned()
            }
            RegistryError::NoVersion { available, .. } if !available.is_empty() => {
                format!("versions there: {}", available.join(", "))
            }
            RegistryError::NoVersion { name, .. } => {
                format!("drop the version to get the newest: `mcpctl add {name}`")
            }
            RegistryError::Redirect { to, .. } => format!(
                "if you trust it, point `--registry`/MCPCTL_REGISTRY at {} itself",
                origin(to)
            ),
        }
    }
}

/// A registry at one base URL.
#[derive(Debug, Clone)]
pub struct Registry {
    pub base: String,
    agent: ureq::Agent,
    /// `state/registry/` (the cache lives there), when there is a state directory.
    cache_dir: Option<PathBuf>,
}

/// `scheme://host[:port]` of `url`.
fn origin(url: &str) -> &str {
    let start = url.find("://").map_or(0, |i| i + 3);
    let end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |e| start + e);
    &url[..end]
}

/// Percent-encode everything but RFC 3986 unreserved characters.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Search results, and whether they came from the cache (the registry unreachable).
#[derive(Debug)]
pub struct Found {
    pub items: Vec<Item>,
    /// `Some((why the registry did not answer, cache age in seconds))` when offline.
    pub offline: Option<(RegistryError, u64)>,
}

/// The registry's base URL from what a person gave: the address of a listing they copied
/// (`…/v0.1/servers`, `…/v0/servers/`) stands for the registry it belongs to, so the API
/// paths are not doubled.
fn api_base(given: &str) -> String {
    let mut base = given.trim_end_matches('/');
    for tail in ["/servers", "/v0.1", "/v0"] {
        base = base.strip_suffix(tail).unwrap_or(base);
    }
    base.to_owned()
}

impl Registry {
    pub fn new(base: &str, cache_dir: Option<PathBuf>) -> Registry {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // Redirects are followed by hand, only within the registry's own host.
            .max_redirects(0)
            .timeout_connect(Some(CONNECT_TIMEOUT))
            .timeout_global(Some(TIMEOUT))
            .user_agent(concat!("mcpctl/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Registry {
            base: api_base(base),
            agent,
            cache_dir,
        }
    }

    fn get(&self, url: &str) -> Result<Option<String>, RegistryError> {
        let unreachable = |cause: String| RegistryError::Unreachable {
            url: url.to_owned(),
            cause,
        };
        let mut at = url.to_owned();
        let mut hops = 0;
        let mut response = loop {
            let response = self
                .agent
                .get(&at)
                .header("Accept", "application/json")
                .call()
                .map_err(|e| unreachable(describe(&e)))?;
            let status = response.status().as_u16();
            let location = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            match location {
                Some(to) if (300..400).contains(&status) && hops < 5 => {
                    let next = if to.starts_with('/') {
                        format!("{}{to}", origin(&at))
                    } else {
                        to
                    };
                    if !origin(&next).eq_ignore_ascii_case(origin(url)) {
                        return Err(RegistryError::Redirect {
                            url: url.to_owned(),
                            to: next,
                        });
                    }
                    at = next;
                    hops += 1;
                }
                _ => break response,
            }
        };
        let status = response.status().as_u16();
        let body = response
            .body_mut()
            .read_to_string()
            .map_err(|e| unreachable(describe(&e)))?;
        match status {
            200..=299 => Ok(Some(body)),
            404 => Ok(None),
            _ => Err(RegistryError::Status {
                url: url.to_owned(),
                status,
                detail: first_line(&body),
            }),
        }
    }

    fn parse<T: serde::de::DeserializeOwned>(url: &str, body: &str) -> Result<T, RegistryError> {
        serde_json::from_str(body).map_err(|e| RegistryError::BadJson {
            url: url.to_owned(),
            cause: e.to_string(),
        })
    }

    fn list_url(&self, text: &str, limit: usize) -> String {
        format!(
            "{}/v0.1/servers?search={}&version=latest&limit={limit}",
            self.base,
            encode(text)
        )
    }

    /// `GET /v0.1/servers?search=TEXT&version=latest&limit=N`.
    pub fn search_online(&self, text: &str, limit: usize) -> Result<Vec<Item>, RegistryError> {
        let url = self.list_url(text, limit);
        let body = self.get(&url)?.ok_or_else(|| RegistryError::Status {
            url: url.clone(),
            status: 404,
            detail: String::new(),
        })?;
        let list: List = Self::parse(&url, &body)?;
        self.remember(&list.servers);
        Ok(list.servers)
    }

    /// Search, falling back to the cache when the registry cannot be reached.
    pub fn search(&self, text: &str, limit: usize) -> Result<Found, RegistryError> {
        match self.search_online(text, limit) {
            Ok(items) => Ok(Found {
                items,
                offline: None,
            }),
            Err(error @ RegistryError::Unreachable { .. }) => match self.cached(text, limit) {
                Some((items, age)) => Ok(Found {
                    items,
                    offline: Some((error, age)),
                }),
                None => Err(error),
            },
            Err(error) => Err(error),
        }
    }

    /// `GET /v0.1/servers/{name}/versions/{version|latest}`.
    pub fn version(&self, name: &str, version: Option<&str>) -> Result<Item, RegistryError> {
        let url = format!(
            "{}/v0.1/servers/{}/versions/{}",
            self.base,
            encode(name),
            encode(version.unwrap_or("latest"))
        );
        match self.get(&url)? {
            Some(body) => {
                let item: Item = Self::parse(&url, &body)?;
                if version.is_none() {
                    self.remember(std::slice::from_ref(&item));
                }
                Ok(item)
            }
            None => Err(self.not_found(name, version, url)),
        }
    }

    fn not_found(&self, name: &str, version: Option<&str>, url: String) -> RegistryError {
        if let Some(version) = version {
            let list_url = format!("{}/v0.1/servers/{}/versions", self.base, encode(name));
            if let Ok(Some(body)) = self.get(&list_url)
                && let Ok(versions) = Self::parse::<Versions>(&list_url, &body)
            {
                return RegistryError::NoVersion {
                    name: name.to_owned(),
                    version: version.to_owned(),
                    base: self.base.clone(),
                    available: versions
                        .servers
                        .iter()
                        .map(|i| i.server.version.clone())
                        .collect(),
                };
            }
        }
        // A typo is in the namespace or in the name: search for each, rank both.
        let (namespace, segment) = name.split_once('/').unwrap_or(("", name));
        let mut closest: Vec<(usize, String)> = [segment, namespace]
            .into_iter()
            .filter(|text| !text.is_empty())
            .flat_map(|text| self.search_online(text, 50).unwrap_or_default())
            .map(|i| (distance(name, &i.server.name), i.server.name))
            .collect();
        closest.sort();
        closest.dedup_by(|a, b| a.1 == b.1);
        RegistryError::NotFound {
            name: name.to_owned(),
            base: self.base.clone(),
            url,
            closest: closest.into_iter().take(5).map(|(_, n)| n).collect(),
        }
    }

    fn cache_path(&self) -> Option<PathBuf> {
        let slug: String = self
            .base
            .trim_start_matches("https://")
            .trim_start_matches("http://")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        Some(self.cache_dir.as_ref()?.join(format!("{slug}.json")))
    }

    /// Keep the newest items seen, by name, for offline search. Best effort: a cache
    /// that cannot be written costs nothing but the offline answer.
    fn remember(&self, items: &[Item]) {
        let (Some(path), Some(dir)) = (self.cache_path(), self.cache_dir.as_deref()) else {
            return;
        };
        // The cache sits in the state directory, whose `locks/` holds its lock.
        let Ok(lock) = crate::fs::lock::acquire(&path, dir.parent().unwrap_or(dir)) else {
            return;
        };
        let Ok(source) = lock.read(&path) else {
            return;
        };
        let mut cache: Map<String, Value> = serde_json::from_str(&source.text).unwrap_or_default();
        let servers = cache
            .entry("servers")
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(servers) = servers else {
            return;
        };
        for item in items {
            if let Ok(value) = serde_json::to_value(item) {
                servers.insert(item.server.name.clone(), value);
            }
        }
        cache.insert("base".to_owned(), Value::String(self.base.clone()));
        cache.insert("updated".to_owned(), Value::from(now()));
        if let Ok(text) = serde_json::to_string_pretty(&cache) {
            let _ = crate::fs::write_atomic(&lock, &source, &text, None);
        }
    }

    /// Cached items matching `text` (case-insensitive, in name, title or description),
    /// and the cache's age in seconds; `None` without a cache.
    pub fn cached(&self, text: &str, limit: usize) -> Option<(Vec<Item>, u64)> {
        let source = crate::fs::read_source(&self.cache_path()?).ok()?;
        let cache: Map<String, Value> = serde_json::from_str(&source.text).ok()?;
        let age = now().saturating_sub(cache.get("updated")?.as_u64()?);
        let needle = text.to_lowercase();
        let items = cache
            .get("servers")?
            .as_object()?
            .values()
            .filter_map(|v| serde_json::from_value::<Item>(v.clone()).ok())
            .filter(|i| {
                let s = &i.server;
                [Some(&s.name), s.title.as_ref(), Some(&s.description)]
                    .into_iter()
                    .flatten()
                    .any(|t| t.to_lowercase().contains(&needle))
            })
            .take(limit)
            .collect();
        Some((items, age))
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn describe(error: &ureq::Error) -> String {
    match error {
        ureq::Error::Timeout(_) => format!("no answer within {}s", TIMEOUT.as_secs()),
        ureq::Error::HostNotFound => "host not found (DNS)".to_owned(),
        ureq::Error::ConnectionFailed => "connection failed".to_owned(),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            "connection refused".to_owned()
        }
        other => other.to_string(),
    }
}

/// The first line of an error body, bounded, for the message.
fn first_line(body: &str) -> String {
    let line: String = super::clean(body.lines().next().unwrap_or_default())
        .chars()
        .take(200)
        .collect();
    if line.trim().is_empty() {
        String::new()
    } else {
        format!(": {}", line.trim())
    }
}

/// Edit distance, for "closest names".
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let current = row[j + 1];
            row[j + 1] = if ca == cb {
                previous
            } else {
                1 + previous.min(row[j]).min(row[j + 1])
            };
            previous = current;
        }
    }
    row[b.len()]
}

/// From the cached registry answers in `cache_dir` (every base mcpctl asked): each legacy
/// SSE remote URL of a server that also lists exactly one Streamable HTTP remote, mapped to
/// (server name, that URL). URLs with `{variables}` are left out: they are templates, not
/// what an entry holds.
pub fn sse_alternatives(
    cache_dir: &std::path::Path,
) -> std::collections::HashMap<String, (String, String)> {
    let mut out = std::collections::HashMap::new();
    let Ok(dir) = std::fs::read_dir(cache_dir) else {
        return out;
    };
    for file in dir.flatten() {
        let path = file.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let Ok(source) = crate::fs::read_source(&path) else {
            continue;
        };
        let Ok(cache) = serde_json::from_str::<Map<String, Value>>(&source.text) else {
            continue;
        };
        let Some(servers) = cache.get("servers").and_then(Value::as_object) else {
            continue;
        };
        for item in servers
            .values()
            .filter_map(|v| serde_json::from_value::<Item>(v.clone()).ok())
        {
            let plain = |r: &&crate::registry::schema::Remote| !r.url.contains('{');
            let http: Vec<&str> = item
                .server
                .remotes
                .iter()
                .filter(plain)
                .filter(|r| r.kind == "streamable-http")
                .map(|r| r.url.as_str())
                .collect();
            let [http] = http.as_slice() else { continue };
            for sse in item
                .server
                .remotes
                .iter()
                .filter(plain)
                .filter(|r| r.kind == "sse")
            {
                out.insert(
                    sse.url.clone(),
                    (item.server.name.clone(), (*http).to_owned()),
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod base_tests {
    #[test]
    fn a_copied_listing_address_stands_for_its_registry() {
        for given in [
            "https://r.example",
            "https://r.example/",
            "https://r.example/v0.1/servers",
            "https://r.example/v0.1/servers/",
            "https://r.example/v0/servers",
            "https://r.example/v0.1",
        ] {
            assert_eq!(super::api_base(given), "https://r.example", "{given}");
        }
        assert_eq!(
            super::api_base("https://r.example/mirror"),
            "https://r.example/mirror"
        );
    }
}
