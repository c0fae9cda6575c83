//! The secret store (issue 23; `crate::secrets` is the rule of what a secret is and how it
//! is shown): named secrets that live in the OS keychain or behind a
//! command of the user's password manager, never in a config file.
//!
//! - `index`: which names exist and where each lives (`secrets.json` in mcpctl's state
//!   directory): names, backends and provider commands, never a value.
//! - `keychain`: the OS keychain through the `keyring` crate (macOS Keychain, Windows
//!   Credential Manager, the Secret Service on Linux over a pure-Rust D-Bus client), behind
//!   the default-on `keychain` feature.
//! - `provider`: a command that prints the secret (`pass show github`, `op read …`).
//! - `entry::launcher` (below this module): the entry forms that name secrets instead of holding them
//!   (`mcpctl run --secret ENV=NAME -- …`, `mcpctl bridge URL --header 'K=…{secret:NAME}'`):
//!   writing them, and reading the logical server back out of them.
//!
//! [`Store::resolve`] is the one way a value is obtained (the launcher, the bridge,
//! `doctor`/`tools`/`call`, `secret get --reveal`). A value is a [`Value`], whose `Debug`
//! prints nothing. Nothing here prints; there is no plaintext fallback anywhere.

pub mod adopt;
pub mod index;
pub mod keychain;
pub mod provider;

use std::path::PathBuf;

use crate::entry::Transport;
use crate::error::UserError;
use crate::platform::{Os, Platform};
pub use index::{Backend, Index, Record};

/// The keychain service mcpctl's secrets are filed under; `MCPCTL_KEYRING_SERVICE`
/// overrides it (the tests use their own, so they never touch a person's secrets).
pub const DEFAULT_SERVICE: &str = "mcpctl";

/// A secret's value. Never printed by `Debug`; shown only by `secret get --reveal`.
#[derive(Clone, PartialEq, Eq)]
pub struct Value(pub String);

impl std::fmt::Debug for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

/// Why a secret could not be had. Messages name the secret and say what to do.
#[derive(Debug, thiserror::Error)]
// Without the `keychain` feature nothing reports the keychain's own failures.
#[cfg_attr(not(feature = "keychain"), allow(dead_code))]
pub enum SecretError {
    #[error("secret `{name}` is not set (mcpctl secret set {name})")]
    NotSet { name: String },
    #[error(
        "no Secret Service answers on this machine ({detail}); start one (gnome-keyring, KeePassXC) or keep the secret in a password manager: mcpctl secret set {name} --command 'pass show {name}'"
    )]
    NoKeychain { name: String, detail: String },
    #[error(
        "this mcpctl was built without the OS keychain (cargo feature `keychain`; build it with the default features to have it), so secret `{name}` cannot be kept there; keep it in a password manager: mcpctl secret set {name} --command 'pass show {name}'"
    )]
    #[cfg(not(feature = "keychain"))]
    KeychainNotBuilt { name: String },
    #[error(
        "the Secret Service did not answer within {secs} s while mcpctl asked it for secret `{name}` (the session bus{bus} or the keyring daemon on it hangs); restart the keyring daemon or the D-Bus session (log out and in), or keep the secret in a password manager: mcpctl secret set {name} --command 'pass show {name}' (MCPCTL_KEYRING_TIMEOUT sets how many seconds mcpctl waits)"
    )]
    NoAnswer {
        name: String,
        secs: u64,
        /// ` (`ADDRESS`)` when known.
        bus: String,
    },
    #[error(
        "the keyring that holds secret `{name}` is locked, and the Secret Service could not ask for its password here ({detail}); unlock it and run this again: in a desktop session unlock it in your keyring app (Seahorse \"Passwords and Keys\", KeePassXC) or log in again; without a desktop, start the keyring daemon unlocked (`gnome-keyring-daemon --unlock` reads the password on stdin as it starts); or keep the secret in a password manager: mcpctl secret set {name} --command 'pass show {name}'"
    )]
    Locked { name: String, detail: String },
    #[error("the keychain refused secret `{name}`: {detail}")]
    Keychain { name: String, detail: String },
    #[error("the command for secret `{name}` (`{command}`) {reason}")]
    Provider {
        name: String,
        command: String,
        reason: String,
    },
    #[error("`{name}` is not a secret name: use letters, digits, `_`, `-` and `.` (at most 128)")]
    BadName { name: String },
}

/// A secret name: `[A-Za-z0-9_.-]{1,128}`, so it fits in `{secret:NAME}`, a keychain
/// account and a command line without quoting.
pub fn check_name(name: &str) -> Result<(), SecretError> {
    if crate::entry::launcher::is_secret_name(name) {
        Ok(())
    } else {
        Err(SecretError::BadName {
            name: name.to_owned(),
        })
    }
}

/// The store as one command sees it: the index file and the keychain service.
#[derive(Debug, Clone)]
pub struct Store {
    /// `secrets.json` in the state directory; `None` without one (no home).
    index_path: Option<PathBuf>,
    /// State directory (the index file's lock lives there).
    root: Option<PathBuf>,
    service: String,
    /// How long a keychain call may take before mcpctl stops waiting (a D-Bus that never
    /// answers): `MCPCTL_KEYRING_TIMEOUT` seconds, default `keychain::WAIT`.
    wait: std::time::Duration,
    /// `DBUS_SESSION_BUS_ADDRESS`, for messages.
    bus: Option<String>,
    /// The OS mcpctl runs on (which shell runs a provider command).
    host: Os,
}

impl Store {
    /// The store for this machine: the state directory (`MCPCTL_STATE_DIR`) and the
    /// keychain service (`MCPCTL_KEYRING_SERVICE`, default `mcpctl`).
    pub fn new(platform: &Platform, state_root: Option<PathBuf>) -> Store {
        Store {
            index_path: state_root.as_ref().map(|r| r.join(index::FILE)),
            root: state_root,
            service: platform
                .var("MCPCTL_KEYRING_SERVICE")
                .filter(|s| !s.is_empty())
                .unwrap_or(DEFAULT_SERVICE)
                .to_owned(),
            wait: platform
                .var("MCPCTL_KEYRING_TIMEOUT")
                .and_then(|s| s.trim().parse::<f64>().ok())
                .filter(|s| s.is_finite() && *s > 0.0)
                .map_or(keychain::WAIT, std::time::Duration::from_secs_f64),
            bus: platform
                .var("DBUS_SESSION_BUS_ADDRESS")
                .filter(|a| !a.is_empty())
                .map(str::to_owned),
            host: Os::host(),
        }
    }

    /// The store of a machine whose state directory mcpctl finds the usual way.
    pub fn for_platform(platform: &Platform) -> Store {
        let root = crate::fs::state_dir(
            platform
                .var("MCPCTL_STATE_DIR")
                .map(PathBuf::from)
                .as_deref(),
        );
        Store::new(platform, root)
    }

    fn keychain(&self) -> keychain::Keychain {
        keychain::Keychain {
            service: self.service.clone(),
            wait: self.wait,
            bus: self.bus.clone(),
        }
    }

    /// The index as it is on disk (empty when there is none).
    pub fn index(&self) -> anyhow::Result<Index> {
        match &self.index_path {
            Some(path) => Index::read(path),
            None => Ok(Index::default()),
        }
    }

    fn no_state() -> anyhow::Error {
        UserError::new("mcpctl has no state directory to keep the secret index in")
            .hint("set MCPCTL_STATE_DIR or HOME")
            .into()
    }

    /// Change the index under its lock.
    fn update(&self, change: impl FnOnce(&mut Index)) -> anyhow::Result<()> {
        let (Some(path), Some(root)) = (&self.index_path, &self.root) else {
            return Err(Store::no_state());
        };
        Index::update(path, root, change)
    }

    /// Keep `value` in the keychain as `name` (replacing what was there).
    pub fn set_value(&self, name: &str, value: &Value) -> anyhow::Result<()> {
        check_name(name)?;
        if self.index_path.is_none() {
            return Err(Store::no_state());
        }
        keychain::set(&self.keychain(), name, value)?;
        self.update(|index| index.put(name, Backend::Keychain))
    }

    /// Whether [`Store::set_value`] could keep `name`, writing nothing: there is a state
    /// directory for the index, and the keychain answers (a missing item is an answer).
    /// The error is the one `set_value` would give.
    pub fn could_set_value(&self, name: &str) -> anyhow::Result<()> {
        check_name(name)?;
        if self.index_path.is_none() {
            return Err(Store::no_state());
        }
        match keychain::get(&self.keychain(), name) {
            Ok(_) | Err(SecretError::NotSet { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Resolve `name` by running `command` from now on (the command is stored, its
    /// output never is).
    pub fn set_command(&self, name: &str, command: &str) -> anyhow::Result<()> {
        check_name(name)?;
        if command.trim().is_empty() {
            return Err(UserError::new("the provider command is empty")
                .hint("give the command that prints the secret, e.g. --command 'pass show github'")
                .into());
        }
        let previous = self.index()?.get(name).cloned();
        self.update(|index| {
            index.put(
                name,
                Backend::Command {
                    command: command.to_owned(),
                },
            );
        })?;
        // A value the keychain held under this name is no longer what `name` means.
        if matches!(previous.map(|r| r.backend), Some(Backend::Keychain)) {
            keychain::delete(&self.keychain(), name)?;
        }
        Ok(())
    }

    /// Forget `name`: its keychain item goes too; a provider's own store is not touched.
    /// `Ok(false)` when there was no such secret.
    pub fn remove(&self, name: &str) -> anyhow::Result<bool> {
        check_name(name)?;
        let record = self.index()?.get(name).cloned();
        let in_keychain = match &record {
            Some(Record {
                backend: Backend::Command { .. },
                ..
            }) => false,
            // Not in the index: it may still be in the keychain (a lost index).
            _ => keychain::delete(&self.keychain(), name)?,
        };
        if record.is_some() {
            self.update(|index| index.remove(name))?;
        }
        Ok(record.is_some() || in_keychain)
    }

    /// The value of `name`: from its provider command, else from the keychain (also when
    /// the index does not know the name: the index is a list, not the authority).
    pub fn resolve(&self, name: &str) -> Result<Value, SecretError> {
        check_name(name)?;
        let record = self.index().ok().and_then(|index| index.get(name).cloned());
        match record.map(|r| r.backend) {
            Some(Backend::Command { command }) => provider::run(self.host, name, &command),
            Some(Backend::Keychain) | None => keychain::get(&self.keychain(), name),
        }
    }

    /// The server behind a launcher or bridge entry with its secrets filled in, as `mcpctl
    /// run` and `mcpctl bridge` would start or reach it (each `--secret` variable set in
    /// its env, each `{secret:NAME}` header placeholder replaced), and the secret names;
    /// `Ok(None)` for any other entry. `doctor`, `tools` and `call` probe this.
    pub fn resolve_entry(
        &self,
        transport: &Transport,
    ) -> Result<Option<(Transport, Vec<String>)>, SecretError> {
        let Some(logical) = crate::entry::launcher::logical(transport) else {
            return Ok(None);
        };
        let names: Vec<String> = logical.secrets.iter().map(|s| s.secret.clone()).collect();
        let transport = match logical.transport {
            Transport::Stdio {
                command,
                args,
                mut env,
                cwd,
            } => {
                for secret in &logical.secrets {
                    env.insert(secret.var.clone(), self.resolve(&secret.secret)?.0);
                }
                Transport::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                }
            }
            Transport::Remote { url, kind, headers } => {
                let mut resolve = |name: &str| self.resolve(name).map(|v| v.0);
                let mut filled = crate::entry::StringMap::new();
                for (name, value) in headers {
                    filled.insert(name, crate::entry::launcher::fill(&value, &mut resolve)?);
                }
                Transport::Remote {
                    url,
                    kind,
                    headers: filled,
                }
            }
        };
        Ok(Some((transport, names)))
    }

    /// Where `name` lives, if the index knows it.
    pub fn backend_of(&self, name: &str) -> Option<Backend> {
        self.index().ok()?.get(name).map(|r| r.backend.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_plain_words() {
        for good in ["github", "GITHUB_TOKEN", "docs.key", "a-b_c.1"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", "a b", "x}", "{secret:y}", "ä", &"x".repeat(129)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn values_never_show_in_debug() {
        assert_eq!(
            format!("{:?}", Value("ghp_secret".to_owned())),
            "<redacted>"
        );
    }

    #[test]
    fn a_missing_secret_says_how_to_set_it() {
        let error = SecretError::NotSet {
            name: "github".to_owned(),
        };
        assert_eq!(
            error.to_string(),
            "secret `github` is not set (mcpctl secret set github)"
        );
    }
}
