//! The OS keychain through the `keyring` crate: one item per secret, service `mcpctl`
//! (or `MCPCTL_KEYRING_SERVICE`), account = the secret's name. On Linux that is the
//! Secret Service (gnome-keyring, KeePassXC) over zbus, a D-Bus client in Rust: no
//! system library to link, so the static musl build keeps working. When no Secret
//! Service answers, the error says so and names the command provider; there is no
//! fallback to a file. Built without the `keychain` feature, every call says the
//! keychain is not in this build and how to get it.

use super::{SecretError, Value};

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
            SecretError::NoKeychain {
                name: name.to_owned(),
                detail: one_line(&detail.to_string()),
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
pub fn set(service: &str, name: &str, value: &Value) -> Result<(), SecretError> {
    entry(service, name)?
        .set_password(&value.0)
        .map_err(|e| classify(name, e))
}

#[cfg(feature = "keychain")]
pub fn get(service: &str, name: &str) -> Result<Value, SecretError> {
    entry(service, name)?
        .get_password()
        .map(Value)
        .map_err(|e| classify(name, e))
}

/// Delete the item; `Ok(false)` when there was none.
#[cfg(feature = "keychain")]
pub fn delete(service: &str, name: &str) -> Result<bool, SecretError> {
    match entry(service, name)?.delete_credential() {
        Ok(()) => Ok(true),
        Err(keyring::Error::NoEntry) => Ok(false),
        Err(e) => Err(classify(name, e)),
    }
}

/// Built without the `keychain` feature: no keychain to keep `name` in.
#[cfg(not(feature = "keychain"))]
fn not_built(name: &str) -> SecretError {
    SecretError::KeychainNotBuilt {
        name: name.to_owned(),
    }
}

#[cfg(not(feature = "keychain"))]
pub fn set(_service: &str, name: &str, _value: &Value) -> Result<(), SecretError> {
    Err(not_built(name))
}

#[cfg(not(feature = "keychain"))]
pub fn get(_service: &str, name: &str) -> Result<Value, SecretError> {
    Err(not_built(name))
}

#[cfg(not(feature = "keychain"))]
pub fn delete(_service: &str, name: &str) -> Result<bool, SecretError> {
    Err(not_built(name))
}
