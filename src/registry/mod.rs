//! The MCP Registry (design.md §11): its API and cache (`api`), its `server.json` data
//! (`schema`), where each input's value comes from (`inputs`), and the mapping of a
//! registry entry to mcpctl's canonical `ServerEntry` (`mapping`). Commands (`search`,
//! `add NAME/…`, `outdated`, `update`) and the manifest call [`resolve`]; nothing here
//! writes a client file or prints.

pub mod api;
pub mod inputs;
pub mod installed;
pub mod mapping;
pub mod schema;
pub mod validate;

pub use api::{Registry, RegistryError};
pub use inputs::{Export, Given, Resolver};
pub use mapping::{Form, MapError, PackageType, Preference};
pub use schema::{Item, ServerJson, Status};

use crate::clients::TransportName;
use crate::entry::ServerEntry;
use crate::error::UserError;

/// Server-provided text made safe for a terminal: control characters (escape sequences,
/// carriage returns, bidi overrides) become `?`, whitespace runs become one space.
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let bidi = crate::handshake::lines::is_bidi_control(c);
        if c.is_whitespace() {
            if !out.ends_with(' ') {
                out.push(' ');
            }
        } else if c.is_control() || bidi {
            out.push('?');
        } else {
            out.push(c);
        }
    }
    out.trim().to_owned()
}

/// Whether `name` is a registry name: `namespace/name` with a dotted namespace
/// (`io.github.owner/server`), optionally `@VERSION`.
pub fn is_registry_name(name: &str) -> bool {
    let (name, _) = split_version(name);
    match name.split_once('/') {
        Some((namespace, rest)) => {
            namespace.contains('.')
                && !namespace.starts_with('.')
                && !rest.is_empty()
                && !rest.contains('/')
                && !name.contains(char::is_whitespace)
        }
        None => false,
    }
}

/// `io.github.x/y@1.2.0` → (`io.github.x/y`, `Some("1.2.0")`); `@latest` is no pin.
pub fn split_version(name: &str) -> (&str, Option<&str>) {
    let slash = name.find('/').unwrap_or(0);
    match name[slash..].rfind('@') {
        Some(at) => {
            let (base, version) = (&name[..slash + at], &name[slash + at + 1..]);
            (
                base,
                Some(version).filter(|v| !v.is_empty() && *v != "latest"),
            )
        }
        None => (name, None),
    }
}

/// The entry name a registry server gets: the name's last segment, or the namespace's
/// own label when the segment says nothing (`com.airtable/mcp` → `airtable`).
pub fn short_name(name: &str) -> String {
    let (namespace, segment) = name.split_once('/').unwrap_or(("", name));
    let generic = matches!(
        segment.to_ascii_lowercase().as_str(),
        "mcp" | "server" | "mcp-server" | "mcpserver" | "mcp_server"
    );
    if generic
        && let Some(label) = namespace.split('.').rev().find(|l| {
            !matches!(
                *l,
                "com" | "io" | "dev" | "app" | "ai" | "org" | "net" | "github" | "www" | "mcp"
            )
        })
    {
        return label.to_owned();
    }
    segment.to_owned()
}

/// One registry server rendered for one transport capability: what `add` writes and
/// what `plan` resolves a manifest's `registry = "NAME@VERSION"` to.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub item: Item,
    pub form: Form,
    /// `remote`, `npm`, `pypi`, `oci`, `nuget`.
    pub form_label: String,
    pub entry: ServerEntry,
    /// Variables to export for the secrets referenced.
    pub exports: Vec<Export>,
    /// Given values that were used (recorded, so `update` reuses them).
    pub used: Given,
    /// Inputs the form has (given values for anything else are the caller's to place).
    pub asked: Vec<mapping::InputKey>,
    /// Optional inputs left out, with the flag that adds each.
    pub optional: Vec<String>,
    /// What the publisher's data asks that widens the server's powers, to say first.
    pub warnings: Vec<String>,
}

/// Why a registry server could not be resolved.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error(transparent)]
    Map(#[from] MapError),
    #[error("`{name}` was deleted from the registry{}", message.as_deref().map(|m| format!(": {m}")).unwrap_or_default())]
    Deleted {
        name: String,
        message: Option<String>,
    },
    #[error("`{name}` needs inputs:\n  {}", lines.join("\n  "))]
    Inputs { name: String, lines: Vec<String> },
}

/// Fetch `name` (`version`, else the newest) and render the form `preference` picks for
/// a client that speaks the transports `speaks` accepts, with `given` values only (no
/// prompts: a missing required input is an error listing every one). Deleted servers are
/// refused; the caller warns about deprecated ones (`item.status()`).
pub fn resolve(
    registry: &Registry,
    name: &str,
    version: Option<&str>,
    preference: Preference,
    given: &Given,
    speaks: &dyn Fn(TransportName) -> bool,
) -> Result<Resolved, ResolveError> {
    let item = registry.version(name, version)?;
    render_item(item, preference, given, speaks, None)
}

/// [`resolve`] for an item already fetched, with an optional prompt.
pub fn render_item(
    item: Item,
    preference: Preference,
    given: &Given,
    speaks: &dyn Fn(TransportName) -> bool,
    prompt: Option<inputs::Prompt<'_>>,
) -> Result<Resolved, ResolveError> {
    if item.status() == Status::Deleted {
        return Err(ResolveError::Deleted {
            name: item.server.name.clone(),
            message: item.status_message().map(clean),
        });
    }
    let form = mapping::choose(&item.server, preference, speaks)?;
    let short = short_name(&item.server.name);
    let mut resolver = Resolver::new(given, prompt);
    let rendered = mapping::render(&item.server, form, &short, &mut |ask| resolver.answer(ask));
    let mut lines = resolver.refused.clone();
    lines.extend(resolver.missing.iter().cloned());
    if !lines.is_empty() {
        return Err(ResolveError::Inputs {
            name: item.server.name.clone(),
            lines,
        });
    }
    let entry = rendered?;
    Ok(Resolved {
        form_label: form.label(&item.server),
        form,
        entry,
        exports: resolver.exports,
        used: resolver.used,
        asked: resolver.asked,
        optional: resolver.optional,
        warnings: validate::warnings(&item.server, form),
        item,
    })
}

/// A registry error for a person: the URL and cause, a hint, nothing written.
pub fn registry_error(error: RegistryError) -> anyhow::Error {
    let hint = error.hint();
    UserError::new(error.to_string()).hint(hint).into()
}

pub fn resolve_error(error: ResolveError) -> anyhow::Error {
    match error {
        ResolveError::Registry(e) => registry_error(e),
        ResolveError::Map(e) => {
            let hint = e.hint();
            UserError::new(e.to_string()).hint(hint).into()
        }
        ResolveError::Deleted { .. } => UserError::new(error.to_string())
            .hint(
                "it is no longer offered; `mcpctl search` finds alternatives; nothing was written",
            )
            .into(),
        ResolveError::Inputs { .. } => UserError::new(error.to_string())
            .hint("nothing was written; give the values and run the command again")
            .into(),
    }
}

#[cfg(test)]
mod tests;
