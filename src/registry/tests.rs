//! The mapping over every recorded sample (tests/fixtures/registry/) and hand-made
//! entries for the shapes no sample has (nuget, boolean and repeated arguments, header
//! templates, URL variables).

use serde_json::{Value, json};

use super::*;
use crate::entry::{RemoteKind, Transport};
use mapping::InputKind;

fn sample(file: &str) -> Item {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/registry")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    // github's own server.json has `${VERSION}` filled in by its release job.
    let text = text.replace("${VERSION}", "0.24.0");
    item_of(serde_json::from_str(&text).unwrap())
}

fn item_of(value: Value) -> Item {
    if value.get("server").is_some() {
        serde_json::from_value(value).unwrap()
    } else if let Some(first) = value.get("servers").and_then(|s| s.get(0)) {
        serde_json::from_value(first.clone()).unwrap()
    } else {
        serde_json::from_value(json!({ "server": value })).unwrap()
    }
}

fn http(_: TransportName) -> bool {
    true
}

fn stdio_only(t: TransportName) -> bool {
    t == TransportName::Stdio
}

fn sse_only(t: TransportName) -> bool {
    t != TransportName::Http
}

fn given(values: &[(InputKind, &str, &str)]) -> Given {
    let mut g = Given::default();
    for (kind, name, value) in values {
        g.push(*kind, name, value);
    }
    g
}

fn render(item: &Item, speaks: fn(TransportName) -> bool, g: &Given) -> Resolved {
    render_item(item.clone(), Preference::Auto, g, &speaks, None).unwrap()
}

fn stdio(r: &Resolved) -> (String, Vec<String>, Vec<(String, String)>) {
    match &r.entry.transport {
        Transport::Stdio {
            command, args, env, ..
        } => (
            command.clone(),
            args.clone(),
            env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        ),
        Transport::Remote { .. } => panic!("expected stdio, got {:?}", r.entry),
    }
}

fn remote(r: &Resolved) -> (String, RemoteKind, Vec<(String, String)>) {
    match &r.entry.transport {
        Transport::Remote { url, kind, headers } => (
            url.clone(),
            *kind,
            headers
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        Transport::Stdio { .. } => panic!("expected remote, got {:?}", r.entry),
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn exported(r: &Resolved) -> Vec<&str> {
    r.exports.iter().map(|e| e.variable.as_str()).collect()
}

#[test]
fn npm_is_npx_pinned_and_optional_secret_is_left_out() {
    let r = render(&sample("context7.server.json"), http, &Given::default());
    assert_eq!(r.form_label, "npm");
    let (command, args, env) = stdio(&r);
    assert_eq!(command, "npx");
    assert_eq!(args, strings(&["-y", "@upstash/context7-mcp@1.0.26"]));
    assert!(env.is_empty());
    assert!(r.exports.is_empty());
    assert_eq!(r.optional.len(), 1);
    assert!(
        r.optional[0].contains("--secret CONTEXT7_API_KEY=context7-api-key"),
        "{:?}",
        r.optional
    );
    let r = render(
        &sample("playwright-mcp.server.json"),
        http,
        &Given::default(),
    );
    assert_eq!(stdio(&r).1, strings(&["-y", "@playwright/mcp@0.1.0"]));
}

#[test]
fn optional_secret_given_as_reference_is_written() {
    let g = given(&[(InputKind::Env, "CONTEXT7_API_KEY", "${C7_KEY}")]);
    let r = render(&sample("context7.server.json"), http, &g);
    assert_eq!(stdio(&r).2, pairs(&[("CONTEXT7_API_KEY", "${C7_KEY}")]));
    assert_eq!(r.used, g);
}

#[test]
fn oci_does_not_repeat_what_runtime_arguments_already_say() {
    let r = render(
        &sample("github-mcp-server.server.json"),
        stdio_only,
        &Given::default(),
    );
    let (command, args, env) = stdio(&r);
    assert_eq!(command, "docker");
    assert_eq!(
        args,
        strings(&[
            "run",
            "-i",
            "--rm",
            "-e",
            "GITHUB_PERSONAL_ACCESS_TOKEN",
            "ghcr.io/github/github-mcp-server:0.24.0"
        ])
    );
    assert_eq!(
        env,
        pairs(&[(
            "GITHUB_PERSONAL_ACCESS_TOKEN",
            "${GITHUB_PERSONAL_ACCESS_TOKEN}"
        )])
    );
    assert_eq!(exported(&r), ["GITHUB_PERSONAL_ACCESS_TOKEN"]);
}

#[test]
fn oci_environment_variables_pass_through_docker() {
    let g = given(&[(InputKind::Env, "TFE_ADDRESS", "https://tfe.example.com")]);
    let r = render(&sample("terraform.oci.item.json"), http, &g);
    let (_, args, env) = stdio(&r);
    assert_eq!(
        args,
        strings(&[
            "run",
            "-i",
            "--rm",
            "-e",
            "TFE_ADDRESS",
            "hashicorp/terraform-mcp-server:0.5.0"
        ])
    );
    assert_eq!(env, pairs(&[("TFE_ADDRESS", "https://tfe.example.com")]));
    assert_eq!(r.optional.len(), 1, "{:?}", r.optional);
}

#[test]
fn pypi_is_uvx_pinned_with_secret_as_reference() {
    let r = render(
        &sample("elevenlabs.pypi.item.json"),
        http,
        &Given::default(),
    );
    let (command, args, env) = stdio(&r);
    assert_eq!(command, "uvx");
    assert_eq!(args, strings(&["elevenlabs-mcp==0.9.1"]));
    assert_eq!(
        env,
        pairs(&[("ELEVENLABS_API_KEY", "${ELEVENLABS_API_KEY}")])
    );
    assert_eq!(exported(&r), ["ELEVENLABS_API_KEY"]);
}

#[test]
fn remote_is_preferred_where_the_client_speaks_http() {
    let item = sample("firecrawl.npm-and-remote.item.json");
    let r = render(&item, http, &Given::default());
    assert_eq!(r.form_label, "remote");
    let (url, kind, headers) = remote(&r);
    assert_eq!(url, "https://mcp.firecrawl.dev/v2/mcp");
    assert_eq!(kind, RemoteKind::Http);
    assert_eq!(
        headers,
        pairs(&[("Authorization", "Bearer ${FIRECRAWL_TOKEN}")])
    );
    let r = render(&item, stdio_only, &Given::default());
    assert_eq!(r.form_label, "npm");
    assert_eq!(
        stdio(&r).2,
        pairs(&[("FIRECRAWL_API_KEY", "${FIRECRAWL_API_KEY}")])
    );
    let forced = render_item(
        item.clone(),
        Preference::Package(PackageType::Npm),
        &Given::default(),
        &http,
        None,
    )
    .unwrap();
    assert_eq!(forced.form_label, "npm");
    let err = render_item(
        item,
        Preference::Package(PackageType::Pypi),
        &Given::default(),
        &http,
        None,
    )
    .unwrap_err();
    assert!(err.to_string().contains("no pypi package"), "{err}");
}

#[test]
fn authorization_header_secret_becomes_a_bearer_reference() {
    let r = render(
        &sample("airtable.remote-header.item.json"),
        http,
        &Given::default(),
    );
    assert_eq!(short_name(&r.item.server.name), "airtable");
    assert_eq!(
        remote(&r).2,
        pairs(&[("Authorization", "Bearer ${AIRTABLE_TOKEN}")])
    );
    assert_eq!(exported(&r), ["AIRTABLE_TOKEN"]);
    // A whole header given as a reference replaces the derived one.
    let g = given(&[(InputKind::Header, "Authorization", "Bearer ${MY_PAT}")]);
    let r = render(&sample("airtable.remote-header.item.json"), http, &g);
    assert_eq!(
        remote(&r).2,
        pairs(&[("Authorization", "Bearer ${MY_PAT}")])
    );
    assert!(r.exports.is_empty());
}

#[test]
fn two_remotes_pick_what_the_client_speaks() {
    let item = sample("linear.two-remotes.item.json");
    let (url, kind, _) = remote(&render(&item, http, &Given::default()));
    assert_eq!(
        (url.as_str(), kind),
        ("https://mcp.linear.app/mcp", RemoteKind::Http)
    );
    let (url, kind, _) = remote(&render(&item, sse_only, &Given::default()));
    assert_eq!(
        (url.as_str(), kind),
        ("https://mcp.linear.app/sse", RemoteKind::Sse)
    );
    // A client with no HTTP at all still gets the remote: writing it fails there, with
    // that client's explanation.
    assert_eq!(
        render(&item, stdio_only, &Given::default()).form_label,
        "remote"
    );
}

#[test]
fn optional_headers_are_left_out_and_defaults_fill_url_variables() {
    let r = render(
        &sample("neon.remote-header.item.json"),
        http,
        &Given::default(),
    );
    assert!(remote(&r).2.is_empty());
    assert_eq!(r.optional.len(), 2, "{:?}", r.optional);
    let item = sample("registry-example-with-remote.json");
    let r = render(&item, http, &Given::default());
    let (url, _, headers) = remote(&r);
    assert_eq!(url, "https://api.example.com/mcp");
    assert_eq!(
        headers,
        pairs(&[("Authorization", "${REMOTE_WEATHER_AUTHORIZATION}")])
    );
    let r = render(
        &item,
        http,
        &given(&[(InputKind::Var, "host", "eu.example.com")]),
    );
    assert_eq!(remote(&r).0, "https://eu.example.com/mcp");
}

#[test]
fn package_arguments_keep_their_order() {
    let item = sample("registry-example-with-package.json");
    let r = render(&item, http, &Given::default());
    let (command, args, env) = stdio(&r);
    assert_eq!(command, "npx");
    assert_eq!(
        args,
        strings(&[
            "-y",
            "@modelcontextprotocol/server-weather@1.0.0",
            "--port",
            "8080"
        ])
    );
    assert_eq!(env, pairs(&[("API_KEY", "${API_KEY}")]));
    let r = render(
        &item,
        http,
        &given(&[(InputKind::Var, "config_path", "/etc/weather.json")]),
    );
    assert_eq!(
        stdio(&r).1,
        strings(&[
            "-y",
            "@modelcontextprotocol/server-weather@1.0.0",
            "/etc/weather.json",
            "--port",
            "8080"
        ])
    );
}

#[test]
fn mcpb_is_refused_with_the_bundle_url() {
    let item = sample("api-list-response.mcpb.example.json");
    let err = render_item(item, Preference::Auto, &Given::default(), &http, None).unwrap_err();
    match err {
        ResolveError::Map(e @ MapError::Mcpb { .. }) => {
            assert!(e.to_string().contains("mcpb"));
            assert!(e.hint().contains("qector-claude-desktop-1.0.6.mcpb"));
        }
        other => panic!("{other:?}"),
    }
}

fn hand_made(server: Value) -> Item {
    item_of(json!({ "server": server }))
}

#[test]
fn nuget_is_dnx_with_yes_and_package_arguments_after_a_separator() {
    let item = hand_made(json!({
        "name": "io.github.contoso/weather",
        "version": "1.2.0",
        "packages": [{
            "registryType": "nuget",
            "identifier": "Contoso.WeatherMcp",
            "version": "1.2.0",
            "runtimeHint": "dnx",
            "transport": {"type": "stdio"},
            "packageArguments": [{"type": "named", "name": "--units", "value": "metric"}],
            "environmentVariables": [{"name": "WEATHER_KEY", "isRequired": true, "isSecret": true}]
        }]
    }));
    let (command, args, env) = stdio(&render(&item, http, &Given::default()));
    assert_eq!(command, "dnx");
    assert_eq!(
        args,
        strings(&[
            "Contoso.WeatherMcp@1.2.0",
            "--yes",
            "--",
            "--units",
            "metric"
        ])
    );
    assert_eq!(env, pairs(&[("WEATHER_KEY", "${WEATHER_KEY}")]));
}

#[test]
fn boolean_named_arguments_are_bare_flags_and_repeated_ones_repeat() {
    let item = hand_made(json!({
        "name": "io.github.x/files",
        "version": "2.0.0",
        "packages": [{
            "registryType": "pypi",
            "identifier": "files-mcp",
            "version": "2.0.0",
            "runtimeArguments": [{"type": "named", "name": "--python", "value": "3.12"}],
            "packageArguments": [
                {"type": "named", "name": "--read-only", "value": "true", "format": "boolean"},
                {"type": "named", "name": "--verbose", "value": "false", "format": "boolean"},
                {"type": "positional", "valueHint": "root", "isRequired": true, "isRepeated": true},
                {"type": "named", "name": "--mode", "isRequired": true, "default": "fast", "choices": ["fast", "safe"]},
                {"type": "named", "name": "--port", "format": "number"}
            ]
        }]
    }));
    let g = given(&[
        (InputKind::Var, "root", "/srv/a"),
        (InputKind::Var, "root", "/srv/b"),
    ]);
    let (command, args, _) = stdio(&render(&item, http, &g));
    assert_eq!(command, "uvx");
    assert_eq!(
        args,
        strings(&[
            "--python",
            "3.12",
            "files-mcp==2.0.0",
            "--read-only",
            "/srv/a",
            "/srv/b",
            "--mode",
            "fast"
        ])
    );
    let bad = given(&[
        (InputKind::Var, "root", "/srv"),
        (InputKind::Var, "mode", "slow"),
    ]);
    let err = render_item(item.clone(), Preference::Auto, &bad, &http, None).unwrap_err();
    assert!(err.to_string().contains("one of fast, safe"), "{err}");
    let bad = given(&[
        (InputKind::Var, "root", "/srv"),
        (InputKind::Var, "port", "eighty"),
    ]);
    let err = render_item(item, Preference::Auto, &bad, &http, None).unwrap_err();
    assert!(err.to_string().contains("`eighty`, not a number"), "{err}");
}

#[test]
fn header_templates_and_url_variables_take_secrets_as_references() {
    let item = hand_made(json!({
        "name": "ai.smithery/weather",
        "version": "1.0.0",
        "remotes": [{
            "type": "streamable-http",
            "url": "https://{region}.weather.example/mcp?profile={profile}",
            "variables": {
                "region": {"isRequired": true, "choices": ["eu", "us"]},
                "profile": {"isRequired": true, "isSecret": true}
            },
            "headers": [{
                "name": "Authorization",
                "value": "Bearer {smithery_api_key}",
                "isRequired": true,
                "variables": {"smithery_api_key": {"isRequired": true, "isSecret": true}}
            }]
        }]
    }));
    let g = given(&[(InputKind::Var, "region", "eu")]);
    let r = render(&item, http, &g);
    let (url, _, headers) = remote(&r);
    assert_eq!(
        url,
        "https://eu.weather.example/mcp?profile=${WEATHER_PROFILE}"
    );
    assert_eq!(
        headers,
        pairs(&[("Authorization", "Bearer ${WEATHER_SMITHERY_API_KEY}")])
    );
    assert_eq!(
        exported(&r),
        ["WEATHER_PROFILE", "WEATHER_SMITHERY_API_KEY"]
    );
}

#[test]
fn literal_secrets_are_refused_and_every_missing_input_is_listed() {
    let item = sample("registry-example-with-package.json");
    let g = given(&[(InputKind::Env, "API_KEY", "sk-live-123")]);
    let err = render_item(item, Preference::Auto, &g, &http, None).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("never written"), "{text}");
    assert!(!text.contains("sk-live-123"), "{text}");
    let item = hand_made(json!({
        "name": "io.github.x/db",
        "version": "1.0.0",
        "packages": [{
            "registryType": "npm", "identifier": "db-mcp", "version": "1.0.0",
            "environmentVariables": [
                {"name": "DB_HOST", "isRequired": true, "description": "Database host"},
                {"name": "DB_NAME", "isRequired": true}
            ]
        }]
    }));
    let err = render_item(item, Preference::Auto, &Given::default(), &http, None).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("--env DB_HOST=VALUE"), "{text}");
    assert!(text.contains("--env DB_NAME=VALUE"), "{text}");
    assert!(text.contains("Database host"), "{text}");
}

#[test]
fn deleted_is_refused() {
    let mut item = sample("playwright-mcp.server.json");
    item.meta = serde_json::from_value(json!({
        "io.modelcontextprotocol.registry/official": {"status": "deleted", "statusMessage": "moved"}
    }))
    .unwrap();
    let err = render_item(item, Preference::Auto, &Given::default(), &http, None).unwrap_err();
    assert!(matches!(err, ResolveError::Deleted { .. }), "{err}");
    assert!(err.to_string().contains("moved"));
}

#[test]
fn every_curated_item_maps_or_says_why() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/registry/add-mcp-curated-registry.json");
    let items: Vec<Item> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(items.len(), 34);
    for item in items {
        for speaks in [http as fn(TransportName) -> bool, stdio_only] {
            match render_item(
                item.clone(),
                Preference::Auto,
                &Given::default(),
                &speaks,
                None,
            ) {
                Ok(r) => {
                    let strings: Vec<String> = match &r.entry.transport {
                        Transport::Stdio {
                            command, args, env, ..
                        } => std::iter::once(command)
                            .chain(args)
                            .chain(env.values())
                            .cloned()
                            .collect(),
                        Transport::Remote { url, headers, .. } => std::iter::once(url)
                            .chain(headers.values())
                            .cloned()
                            .collect(),
                    };
                    for s in strings {
                        assert!(
                            mapping::placeholders(&s).is_empty(),
                            "placeholder left: {s}"
                        );
                    }
                }
                Err(ResolveError::Inputs { lines, .. }) => {
                    assert!(!lines.is_empty());
                }
                Err(other) => panic!("{}: {other}", item.server.name),
            }
        }
    }
}

#[test]
fn names_versions_and_text() {
    assert!(is_registry_name("io.github.upstash/context7"));
    assert!(is_registry_name("io.github.upstash/context7@1.0.0"));
    assert!(!is_registry_name("github"));
    assert!(!is_registry_name("a/b/c"));
    assert!(
        !is_registry_name("mcp/github"),
        "a registry namespace is reverse DNS"
    );
    assert_eq!(
        split_version("io.github.x/y@1.2.0"),
        ("io.github.x/y", Some("1.2.0"))
    );
    assert_eq!(
        split_version("io.github.x/y@latest"),
        ("io.github.x/y", None)
    );
    assert_eq!(split_version("io.github.x/y"), ("io.github.x/y", None));
    assert_eq!(short_name("io.github.upstash/context7"), "context7");
    assert_eq!(short_name("com.cloudflare.mcp/mcp"), "cloudflare");
    assert_eq!(short_name("io.github.upstash/mcp-server"), "upstash");
    assert_eq!(api::encode("io.github.x/y z"), "io.github.x%2Fy%20z");
    assert_eq!(clean("a\x1b[31mb\u{202e}\r\nc"), "a?[31mb? c");
    assert_eq!(api::distance("context7", "context"), 1);
}

#[test]
fn control_characters_from_the_registry_are_refused() {
    let item = hand_made(json!({
        "name": "io.github.evil/ansi",
        "version": "1.0.0",
        "packages": [{"registryType": "npm", "identifier": "pkg\u{1b}[2J", "version": "1.0.0"}]
    }));
    let err = render_item(item, Preference::Auto, &Given::default(), &http, None).unwrap_err();
    assert!(err.to_string().contains("control character"), "{err}");
}

#[test]
fn asking_for_a_form_the_server_lacks_names_the_forms_it_has() {
    let err = render_item(
        sample("context7.server.json"),
        Preference::Remote,
        &Given::default(),
        &http,
        None,
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("no remote endpoint; it installs as npm"),
        "{err}"
    );
}

/// Registry 1.8's `cargo` packages: the entry runs the crate's binary; `cargo install
/// --locked CRATE@VERSION` is what puts it there.
#[test]
fn cargo_package_runs_the_installed_binary() {
    let item = item_of(json!({
        "name": "io.github.example/rust-server",
        "version": "0.3.1",
        "packages": [{
            "registryType": "cargo",
            "identifier": "rust-mcp-server",
            "version": "0.3.1",
            "transport": { "type": "stdio" },
            "packageArguments": [{ "type": "named", "name": "--root", "value": "/srv" }]
        }]
    }));
    let resolved = render(&item, stdio_only, &Given::default());
    assert_eq!(resolved.form_label, "cargo");
    let (command, args, _) = stdio(&resolved);
    assert_eq!(command, "rust-mcp-server");
    assert_eq!(args, ["--root", "/srv"]);
    let package = &item.server.packages[0];
    assert_eq!(
        mapping::cargo_install(package),
        Some(vec![
            "install".to_owned(),
            "--locked".to_owned(),
            "rust-mcp-server@0.3.1".to_owned()
        ])
    );
    assert!(matches!(
        mapping::choose(
            &item.server,
            Preference::Package(PackageType::Cargo),
            &stdio_only
        ),
        Ok(mapping::Form::Package(0))
    ));
}

/// What a stored answer does to an entry: an env secret becomes a launcher pair and
/// leaves the env to the launcher; a bearer header keeps `Bearer ` and names the secret.
#[test]
fn stored_answers_fill_env_through_the_launcher_and_headers_through_the_bridge() {
    let r = render(
        &sample("elevenlabs.pypi.item.json"),
        http,
        &Given::default(),
    );
    let fills: Vec<inputs::StoreFill> = r.exports.iter().filter_map(|e| e.store.clone()).collect();
    assert_eq!(fills.len(), 1);
    assert_eq!(fills[0].secret, "elevenlabs-api-key");
    assert_eq!(
        fills[0].flag,
        "--secret ELEVENLABS_API_KEY=elevenlabs-api-key"
    );
    let mut transport = r.entry.transport.clone();
    let pairs = inputs::fill_from_store(&mut transport, &fills);
    assert_eq!(
        pairs.iter().map(|p| p.arg()).collect::<Vec<_>>(),
        ["ELEVENLABS_API_KEY=elevenlabs-api-key"]
    );

    let r = render(
        &sample("airtable.remote-header.item.json"),
        |_| true,
        &Given::default(),
    );
    let fills: Vec<inputs::StoreFill> = r.exports.iter().filter_map(|e| e.store.clone()).collect();
    assert_eq!(
        fills[0].flag,
        "--header 'Authorization=Bearer {secret:airtable-token}'"
    );
    let mut transport = r.entry.transport.clone();
    assert!(inputs::fill_from_store(&mut transport, &fills).is_empty());
    let Transport::Remote { headers, .. } = transport else {
        panic!("remote")
    };
    assert_eq!(headers["Authorization"], "Bearer {secret:airtable-token}");
}
