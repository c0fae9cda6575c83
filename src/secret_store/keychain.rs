//! The OS keychain through the `keyring` crate: one item per secret, service `mcpctl`
//! (or `MCPCTL_KEYRING_SERVICE`), account = the secret's name. On Linux that is the
//! Secret Service (gnome-keyring, KeePassXC) over zbus, a D-Bus client in Rust: no
//! system library to link, so the static musl build keeps working. When no Secret
//! Service answers, the error says so and names the command provider; there is no
//! fallback to a file. Built without the `keychain` feature, every call says the
//! keychain is not in this build and how to get it.

use std::time::Duration;

use super::{SecretError, Value};

/// How long a keychain call may take by default: long enough for a person to answer a
/// desktop unlock prompt, short enough that a hung D-Bus does not hang the launcher (a
/// client waits for its server) for ever.
pub const WAIT: Duration = Duration::from_secs(30);

/// The keychain as the store uses it: its service, and how long one call may take.
#[derive(Debug, Clone)]
#[cfg_attr(not(feature = "keychain"), allow(dead_code))]
pub struct Keychain {
    pub service: String,
    pub wait: Duration,
    /// The session bus address (`DBUS_SESSION_BUS_ADDRESS`), for messages.
    pub bus: Option<String>,
}

/// Run `call` (one keychain call) on a thread of its own and wait at most `keychain.wait`
/// for it: the D-Bus client waits for ever on a bus that accepts the connection and never
/// answers (a daemon stopped, hung, or a socket nobody reads). A call that times out is
/// left to end with the process.
#[cfg_attr(not(feature = "keychain"), allow(dead_code))]
fn bounded<T: Send + 'static>(
    keychain: &Keychain,
    name: &str,
    call: impl FnOnce() -> Result<T, SecretError> + Send + 'static,
) -> Result<T, SecretError> {
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("keychain".to_owned())
        .spawn(move || {
            let _ = tx.send(call());
        });
    if spawned.is_err() {
        return Err(SecretError::Keychain {
            name: name.to_owned(),
            detail: "could not start a thread to ask it".to_owned(),
        });
    }
    rx.recv_timeout(keychain.wait).unwrap_or_else(|_| {
        let bus = keychain
            .bus
            .as_ref()
            .map(|a| format!(" `{a}`"))
            .unwrap_or_default();
        Err(SecretError::NoAnswer {
            name: name.to_owned(),
            secs: keychain.wait.as_secs_f64().ceil() as u64,
            bus,
        })
    })
}

#[cfg(feature = "keychain")]
fn entry(service: &str, name: &str) -> Result<keyring::Entry, SecretError> {
    keyring::Entry::new(service, name).map_err(|e| classify(name, e))
}

/// Map the crate's error to ours. A platform failure on Linux is almost always "no
/// Secret Service on the session bus" (no bus, no daemon, or a locked collection the
/// daemon cannot prompt for).
#[cfg(feature = "keychain")]
fn classify(name: &str, error: keyring::Error) -> SecretError {
    match error {
        keyring::Error::NoEntry => SecretError::NotSet {
            name: name.to_owned(),
        },
        keyring::Error::PlatformFailure(detail) | keyring::Error::NoStorageAccess(detail) => {
            let detail = one_line(&detail.to_string());
            // A locked collection the daemon could not prompt for: the Secret Service is
            // there, and the fix is to unlock it, not to start one.
            let lower = detail.to_ascii_lowercase();
            if lower.contains("locked") || lower.contains("prompt dismissed") {
                SecretError::Locked {
                    name: name.to_owned(),
                    detail,
                }
            } else {
                SecretError::NoKeychain {
                    name: name.to_owned(),
                    detail,
                }
            }
        }
        other => SecretError::Keychain {
            name: name.to_owned(),
            detail: one_line(&other.to_string()),
        },
    }
}

#[cfg(feature = "keychain")]
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(feature = "keychain")]
pub fn set(keychain: &Keychain, name: &str, value: &Value) -> Result<(), SecretError> {
    let (service, owned, value) = (keychain.service.clone(), name.to_owned(), value.clone());
    bounded(keychain, name, move || {
        entry(&service, &owned)?
            .set_password(&value.0)
            .map_err(|e| classify(&owned, e))
    })
}

#[cfg(feature = "keychain")]
pub fn get(keychain: &Keychain, name: &str) -> Result<Value, SecretError> {
    let (service, owned) = (keychain.service.clone(), name.to_owned());
    bounded(keychain, name, move || {
        entry(&service, &owned)?
            .get_password()
            .map(Value)
            .map_err(|e| classify(&owned, e))
    })
}

/// Delete the item; `Ok(false)` when there was none.
#[cfg(feature = "keychain")]
pub fn delete(keychain: &Keychain, name: &str) -> Result<bool, SecretError> {
    let (service, owned) = (keychain.service.clone(), name.to_owned());
    bounded(keychain, name, move || {
        match entry(&service, &owned)?.delete_credential() {
            Ok(()) => Ok(true),
            Err(keyring::Error::NoEntry) => Ok(false),
            Err(e) => Err(classify(&owned, e)),
        }
    })
}

/// Built without the `keychain` feature: no keychain to keep `name` in.
#[cfg(not(feature = "keychain"))]
fn not_built(name: &str) -> SecretError {
    SecretError::KeychainNotBuilt {
        name: name.to_owned(),
    }
}

#[cfg(not(feature = "keychain"))]
pub fn set(_keychain: &Keychain, name: &str, _value: &Value) -> Result<(), SecretError> {
    Err(not_built(name))
}

#[cfg(not(feature = "keychain"))]
pub fn get(_keychain: &Keychain, name: &str) -> Result<Value, SecretError> {
    Err(not_built(name))
}

#[cfg(not(feature = "keychain"))]
pub fn delete(_keychain: &Keychain, name: &str) -> Result<bool, SecretError> {
    Err(not_built(name))
}
