//! The canonical server entry (`ServerEntry`) and its conversion to and from each
//! client's entry shape (`Dialect`), plus Windows `cmd /c` wrapping.
//!
//! Field spellings (`serverUrl`, `httpUrl`, `environment`, `working_directory`, `type`
//! values) come from the client table; only structural differences are code here.
//! This module never reads files or the environment.

use indexmap::IndexMap;
use serde_json::{Map, Value};

/// An ordered string map (env, headers): order is the user's.
pub type StringMap = IndexMap<String, String>;

/// How a client talks to the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A local process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: StringMap,
        cwd: Option<String>,
    },
    /// A remote server reached over HTTP.
    Remote {
        url: String,
        kind: RemoteKind,
        headers: StringMap,
    },
}

/// Which HTTP transport a remote entry uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RemoteKind {
    /// Streamable HTTP (2025-03-26 and later).
    Http,
    /// Legacy HTTP+SSE (2024-11-05).
    Sse,
}

/// A server entry, independent of any client's spelling.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerEntry {
    pub transport: Transport,
    /// Client fields mcpctl does not model (`disabled`, `autoApprove`, `timeout`, `trust`,
    /// `tools`, ...), kept verbatim in file order.
    pub extras: Map<String, Value>,
}
