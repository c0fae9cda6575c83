//! The one place the policy files are opened: each of a client's `[[client.policy]]`
//! files at its system path for this platform (under `MCPCTL_SYSROOT` when set).

use std::path::PathBuf;

use super::{Block, Policy, Subject};
use crate::clients::Client;
use crate::entry::ServerEntry;
use crate::platform::Platform;

/// A client's policies as found on this machine.
#[derive(Debug, Default, Clone)]
pub struct Loaded {
    pub policies: Vec<Policy>,
    /// Files that exist but could not be read or parsed, with the reason: mcpctl judges
    /// nothing by them (the client may fail closed; `doctor` says so).
    pub broken: Vec<(PathBuf, String)>,
}

impl Loaded {
    /// Why these policies keep the server out, if they do.
    pub fn blocks(&self, name: &str, entry: &ServerEntry) -> Option<Block> {
        super::blocked(&self.policies, &Subject::of(name, entry))
    }
}

/// Read `client`'s policy files.
pub fn load(client: &Client, platform: &Platform) -> Loaded {
    let mut out = Loaded::default();
    for file in &client.policy {
        let Ok(Some(path)) = file.path(platform) else {
            continue;
        };
        // `fs` refuses a FIFO or device at the path instead of blocking on it.
        let source = match crate::fs::read_source(&path) {
            Ok(source) if source.exists() => source,
            Ok(_) => continue,
            Err(e) => {
                out.broken.push((path, e.to_string()));
                continue;
            }
        };
        match Policy::parse(file.kind, &path, &source.text) {
            Ok(Some(policy)) => out.policies.push(policy),
            Ok(None) => {}
            Err(why) => out.broken.push((path, why)),
        }
    }
    out
}
