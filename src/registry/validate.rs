//! Registry data is a stranger's text that becomes a command line: each package
//! identifier and version is held to its ecosystem's grammar before it is written (no
//! leading `-` that a launcher would read as its own option, no whitespace, no shell or
//! `cmd.exe` metacharacters), remote URLs must not reach plain HTTP or cloud metadata
//! addresses, and publisher arguments that widen what a server may do are named.
//! Pure: no I/O.

/// Why an identifier or version is refused, for `MapError::Refused`.
pub type Refusal = String;

/// Check a package identifier of registry type `kind` (`npm`, `pypi`, `nuget`, `oci`,
/// `cargo`) against its grammar.
pub fn identifier(kind: &str, id: &str) -> Result<(), Refusal> {
    common(id, "identifier")?;
    let ok = match kind {
        "npm" => npm_name(id),
        "pypi" => pypi_name(id),
        "nuget" => nuget_id(id),
        "oci" => oci_reference(id),
        "cargo" => cargo_name(id),
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("`{id}` is not a valid {kind} package name"))
    }
}

/// Check a package version: an exact version as the ecosystems spell them
/// (`1.2.3`, `1.0.0-beta.1+build`, `2025.8.4`, `1.0.0rc1`).
pub fn version(kind: &str, version: &str) -> Result<(), Refusal> {
    common(version, "version")?;
    let ok = version
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_'));
    if ok {
        Ok(())
    } else {
        Err(format!("`{version}` is not a valid {kind} version"))
    }
}

/// What no identifier or version may hold, whatever its ecosystem.
fn common(text: &str, what: &str) -> Result<(), Refusal> {
    if text.is_empty() {
        return Err(format!("the package {what} is empty"));
    }
    if text.starts_with('-') {
        return Err(format!(
            "the package {what} `{text}` starts with `-`, so the launcher would read it as one of its own options"
        ));
    }
    if let Some(c) = text
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || SHELL_METACHARACTERS.contains(*c))
    {
        return Err(format!(
            "the package {what} `{}` holds {}, which a shell or `cmd /c` would interpret",
            text.escape_default(),
            if c.is_whitespace() {
                "whitespace".to_owned()
            } else if c.is_control() {
                "a control character".to_owned()
            } else {
                format!("`{}`", c.escape_default())
            }
        ));
    }
    Ok(())
}

/// Characters that mean something to `sh` or `cmd.exe`.
pub const SHELL_METACHARACTERS: &str = "&|<>^%!\"'`$;(){}[]*?\\#=,";

/// `name` or `@scope/name`: lowercase letters, digits, `-._~`, not starting with `.` or
/// `_`, at most 214 characters.
fn npm_name(id: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && !p.starts_with(['.', '_'])
            && p.chars().all(|c| {
                c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '.' | '_' | '~')
            })
    };
    if id.len() > 214 {
        return false;
    }
    match id.strip_prefix('@') {
        Some(scoped) => scoped
            .split_once('/')
            .is_some_and(|(scope, name)| part(scope) && part(name)),
        None => part(id),
    }
}

/// PEP 508 names: letters, digits, `.-_`, starting and ending with a letter or digit.
fn pypi_name(id: &str) -> bool {
    id.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && id.chars().last().is_some_and(|c| c.is_ascii_alphanumeric())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
}

/// NuGet ids: letters, digits, `._-`, starting with a letter, digit or `_`, at most 100.
fn nuget_id(id: &str) -> bool {
    id.len() <= 100
        && id
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
}

/// An image reference: `[host[:port]/]path[:tag][@sha256:…]`, lowercase path components.
fn oci_reference(id: &str) -> bool {
    let (name, digest) = match id.split_once('@') {
        Some((name, digest)) => (name, Some(digest)),
        None => (id, None),
    };
    if let Some(digest) = digest {
        let Some((algorithm, hex)) = digest.split_once(':') else {
            return false;
        };
        if algorithm.is_empty()
            || !algorithm.chars().all(|c| c.is_ascii_alphanumeric())
            || hex.len() < 32
            || !hex.chars().all(|c| c.is_ascii_hexdigit())
        {
            return false;
        }
    }
    let last = name.rfind('/').map_or(0, |s| s + 1);
    let (path, tag) = match name[last..].rfind(':') {
        Some(colon) => (&name[..last + colon], Some(&name[last + colon + 1..])),
        None => (name, None),
    };
    if let Some(tag) = tag
        && (tag.is_empty()
            || tag.len() > 128
            || !tag
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            || !tag
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')))
    {
        return false;
    }
    let mut components = path.split('/').peekable();
    let mut first = true;
    while let Some(component) = components.next() {
        // The first of several components may be a registry host (`ghcr.io`,
        // `localhost:5000`), with a port and uppercase letters.
        let host = first
            && components.peek().is_some()
            && (component.contains(['.', ':']) || component == "localhost");
        first = false;
        let ok = if host {
            component
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':'))
        } else {
            component
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric())
                && component.chars().all(|c| {
                    c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '-' | '_')
                })
        };
        if !ok {
            return false;
        }
    }
    true
}

/// crates.io names: ASCII letters, digits, `-` and `_`, starting with a letter, at most 64.
fn cargo_name(id: &str) -> bool {
    id.len() <= 64
        && id.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
}

/// Why a remote URL from the registry may not be written: plain `http://` to anything
/// but loopback, or a link-local / metadata address (`169.254.0.0/16`, `fe80::/10`,
/// `fd00::/8`, `metadata.google.internal`) where cloud credentials live. A URL the user
/// adds by hand (`add NAME --url`) is the user's choice and not checked here.
pub fn remote_url(url: &str) -> Result<(), Refusal> {
    let lower = url.to_ascii_lowercase();
    let scheme = lower.split_once("://").map_or("", |(s, _)| s);
    let host = host_of(&lower);
    if metadata_host(host) {
        return Err(format!(
            "`{url}` points at a link-local or cloud metadata address ({host}), where a machine's credentials are served"
        ));
    }
    match scheme {
        "https" => Ok(()),
        "http" if loopback(host) => Ok(()),
        "http" => Err(format!(
            "`{url}` is plain `http://`: requests and their headers would travel unencrypted"
        )),
        _ => Err(format!("`{url}` is not an `https://` URL")),
    }
}

/// Whether `url` is plain `http://` to something other than loopback.
pub fn plain_http(url: &str) -> bool {
    url.get(..7)
        .is_some_and(|s| s.eq_ignore_ascii_case("http://"))
        && !loopback(host_of(&url.to_ascii_lowercase()))
}

/// A package registry's base URL (`registryBaseUrl`, written as `--registry=URL`): a URL
/// with no whitespace or shell metacharacters.
pub fn base_url(url: &str) -> Result<(), Refusal> {
    let scheme_ok = ["https://", "http://"].iter().any(|s| {
        url.get(..s.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(s))
    });
    let bad = url
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || "&|<>^%!\"'`$;(){}\\".contains(*c));
    match (scheme_ok, bad) {
        (true, None) => Ok(()),
        _ => Err(format!(
            "the package registry URL `{}` is not a plain `https://` URL",
            url.escape_default()
        )),
    }
}

/// What the publisher's data for `form` asks that widens the server's powers: runtime
/// arguments that start a shell or open up a container, packages fetched over plain HTTP.
pub fn warnings(server: &super::ServerJson, form: super::Form) -> Vec<String> {
    let super::Form::Package(i) = form else {
        return Vec::new();
    };
    let Some(package) = server.packages.get(i) else {
        return Vec::new();
    };
    let mut args = Vec::new();
    for arg in &package.runtime_arguments {
        if let Some(name) = &arg.name {
            args.push(name.clone());
        }
        if let Some(value) = arg.input.value.as_ref().or(arg.input.default.as_ref()) {
            args.push(value.clone());
        }
    }
    let mut out = risky_runtime_arguments(&package.registry_type, &args);
    if let Some(base) = &package.registry_base_url
        && plain_http(base)
    {
        out.push(format!(
            "the package is fetched from {base} over plain `http://` (unencrypted): anyone on the network path can replace what runs"
        ));
    }
    out
}

fn host_of(lower_url: &str) -> &str {
    let rest = lower_url.split_once("://").map_or(lower_url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or(authority);
    if let Some(v6) = host.strip_prefix('[') {
        v6.split(']').next().unwrap_or(v6)
    } else {
        host.split(':').next().unwrap_or(host)
    }
}

fn loopback(host: &str) -> bool {
    host == "localhost" || host.starts_with("127.") || host == "::1"
}

fn metadata_host(host: &str) -> bool {
    if host == "metadata.google.internal" || host == "metadata" {
        return true;
    }
    if let Ok(v4) = host.parse::<std::net::Ipv4Addr>() {
        return v4.is_link_local();
    }
    if let Ok(v6) = host.parse::<std::net::Ipv6Addr>() {
        let first = v6.segments()[0];
        return (first & 0xffc0) == 0xfe80 || (first & 0xff00) == 0xfd00;
    }
    false
}

/// Publisher `runtimeArguments` that give the server more than a package launcher
/// normally does: a shell (`npx --call`, `sh -c`), or a container with the host's
/// powers (`--privileged`, the host's root mounted, the host's network or PID space).
/// Each is a warning to show before anything is written.
pub fn risky_runtime_arguments(kind: &str, args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut previous = "";
    for arg in args {
        let (flag, value) = arg.split_once('=').unwrap_or((arg.as_str(), ""));
        let shell = matches!(flag, "-c" | "--call" | "--shell" | "--shell-auto-fallback")
            || matches!(
                arg.rsplit(['/', '\\']).next().unwrap_or(arg),
                "sh" | "bash" | "zsh" | "cmd" | "cmd.exe" | "powershell" | "pwsh"
            );
        let mount = |spec: &str| {
            spec == "/"
                || spec.starts_with("/:")
                || spec.contains("source=/,")
                || spec.ends_with("source=/")
        };
        let container = kind == "oci"
            && (matches!(
                flag,
                "--privileged" | "--cap-add" | "--device" | "--security-opt"
            ) || (matches!(
                flag,
                "--pid" | "--network" | "--net" | "--ipc" | "--userns" | "--uts"
            ) && value == "host")
                || (matches!(
                    previous,
                    "--pid" | "--network" | "--net" | "--ipc" | "--userns" | "--uts"
                ) && arg == "host")
                || (matches!(flag, "-v" | "--volume" | "--mount") && mount(value))
                || (matches!(previous, "-v" | "--volume" | "--mount") && mount(arg))
                || arg.contains("docker.sock"));
        if shell {
            out.push(format!(
                "the publisher's runtime arguments start a shell (`{arg}`): the server can run any command"
            ));
        } else if container {
            out.push(format!(
                "the publisher's runtime arguments widen the container (`{arg}`): the server gets powers over this machine"
            ));
        }
        previous = flag;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_follow_their_grammar() {
        for (kind, id) in [
            ("npm", "@upstash/context7-mcp"),
            ("npm", "mcp-server-fetch"),
            ("pypi", "mcp-server-fetch"),
            ("pypi", "Django_Thing.x"),
            ("nuget", "Microsoft.Mcp.Server"),
            ("oci", "ghcr.io/github/github-mcp-server:0.24.0"),
            (
                "oci",
                "docker.io/mcp/fetch@sha256:0123456789abcdef0123456789abcdef",
            ),
            ("oci", "localhost:5000/x/y"),
            ("cargo", "mcp-server_rs"),
        ] {
            assert_eq!(identifier(kind, id), Ok(()), "{kind} {id}");
        }
        for (kind, id) in [
            ("npm", "--call=touch PWNED"),
            ("npm", "pkg&calc.exe|whoami>x"),
            ("npm", "Upper"),
            ("pypi", "--from=git+https://evil.example/x"),
            ("pypi", "x y"),
            ("nuget", "a;b"),
            ("oci", "-v"),
            ("oci", "Image:tag"),
            ("cargo", "1abc"),
            ("cargo", "a$(id)"),
        ] {
            assert!(identifier(kind, id).is_err(), "{kind} {id}");
        }
        assert!(version("npm", "1.0.0-beta.1+build").is_ok());
        assert!(version("npm", "1.0.0 --call=x").is_err());
        assert!(version("pypi", "-1").is_err());
    }

    #[test]
    fn remote_urls() {
        assert!(remote_url("https://mcp.example.com/mcp").is_ok());
        assert!(remote_url("http://127.0.0.1:3000/mcp").is_ok());
        assert!(remote_url("http://mcp.example.com/mcp").is_err());
        assert!(remote_url("https://169.254.169.254/latest/meta-data").is_err());
        assert!(remote_url("https://[fd00:ec2::254]/").is_err());
        assert!(remote_url("https://[fe80::1]/").is_err());
    }

    #[test]
    fn risky_arguments_are_named() {
        let a = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            risky_runtime_arguments("oci", &a(&["--privileged"])).len(),
            1
        );
        assert_eq!(
            risky_runtime_arguments("oci", &a(&["-v", "/:/host"])).len(),
            1
        );
        assert_eq!(
            risky_runtime_arguments("oci", &a(&["--network", "host"])).len(),
            1
        );
        assert_eq!(
            risky_runtime_arguments("npm", &a(&["--call", "x"])).len(),
            1
        );
        assert!(risky_runtime_arguments("oci", &a(&["-e", "X", "-v", "/tmp:/tmp"])).is_empty());
    }
}
