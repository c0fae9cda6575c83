//! The MCP Registry's data: `server.json` (schema 2025-12-11, tolerant of 2025-09/10
//! entries) and the API's list and item envelopes. Types only: no I/O, no mapping.

use indexmap::IndexMap;
use serde::{Deserialize, Deserializer, Serialize};

/// The key of the official registry's metadata in an item's `_meta`.
pub const OFFICIAL_META: &str = "io.modelcontextprotocol.registry/official";

/// One answer item: `{"server": {...}, "_meta": {...}}`.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Item {
    pub server: ServerJson,
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<serde_json::Map<String, serde_json::Value>>,
}

/// `GET /v0.1/servers` answer.
#[derive(Debug, Clone, Deserialize)]
pub struct List {
    #[serde(default)]
    pub servers: Vec<Item>,
}

/// `GET /v0.1/servers/{name}/versions` answer: the same envelope as a list.
pub type Versions = List;

/// A registry item's lifecycle state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Active,
    Deprecated,
    Deleted,
}

impl Item {
    fn official(&self, key: &str) -> Option<&str> {
        self.meta.as_ref()?.get(OFFICIAL_META)?.get(key)?.as_str()
    }

    /// `_meta` status, else the pre-2025-09-29 top-level `status`; active by default.
    pub fn status(&self) -> Status {
        match self
            .official("status")
            .or(self.server.status.as_deref())
            .unwrap_or("active")
        {
            "deleted" => Status::Deleted,
            "deprecated" => Status::Deprecated,
            _ => Status::Active,
        }
    }

    /// Why it is deprecated or deleted, as the publisher said.
    pub fn status_message(&self) -> Option<&str> {
        self.official("statusMessage")
            .or(self.server.status_message.as_deref())
    }
}

/// A `server.json` document.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerJson {
    /// Reverse-DNS name, `io.github.owner/name`.
    pub name: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub packages: Vec<Package>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remotes: Vec<Remote>,
    /// Before schema 2025-09-29 the status lived here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
}

/// One way to install the server locally.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Package {
    /// `npm`, `pypi`, `nuget`, `oci`, `mcpb`.
    pub registry_type: String,
    pub identifier: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registry_base_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_hint: Option<String>,
    #[serde(default)]
    pub transport: PackageTransport,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runtime_arguments: Vec<Argument>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub package_arguments: Vec<Argument>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub environment_variables: Vec<KeyValueInput>,
}

/// How a package's server talks once started.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct PackageTransport {
    /// `stdio` (default), `streamable-http`, `sse`.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// A hosted endpoint.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Remote {
    /// `streamable-http` or `sse`.
    #[serde(rename = "type")]
    pub kind: String,
    pub url: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<KeyValueInput>,
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub variables: IndexMap<String, Input>,
}

/// An input's properties (schema `Input` + `InputWithVariables`).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Input {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub is_required: bool,
    /// `string`, `number`, `boolean`, `filepath`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// The fixed value or template (`Bearer {token}`).
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub value: Option<String>,
    #[serde(default)]
    pub is_secret: bool,
    #[serde(
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub default: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub variables: IndexMap<String, Input>,
}

/// An environment variable or header: a name plus an input.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct KeyValueInput {
    pub name: String,
    #[serde(flatten)]
    pub input: Input,
}

/// A runtime or package argument.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Argument {
    /// `positional` or `named`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The flag of a named argument (`--port`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_hint: Option<String>,
    #[serde(default)]
    pub is_repeated: bool,
    #[serde(flatten)]
    pub input: Input,
}

/// Accept a number or boolean where the schema says string (publishers write `8080`).
fn lenient<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Ok(
        match Option::<serde_json::Value>::deserialize(deserializer)? {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) => Some(s),
            Some(other) => Some(other.to_string()),
        },
    )
}
