//! README placeholders in an entry about to be written (`--from-json` of a snippet copied
//! from a README, mostly): a path such as `/Users/username/Desktop` or `/path/to/dir` is
//! said and written (the entry is right once the path is); a secret such as
//! `<your-token>` or `YOUR_API_KEY` is refused unless `--force`, since the server would
//! start with it and fail at its first call, far from the cause.

use crate::entry::{ServerEntry, Transport};
use crate::error::UserError;
use crate::secrets::secret_name;

/// One placeholder: where it is (`args`, `env GITHUB_TOKEN`, `header Authorization`) and
/// the value as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Placeholder {
    pub field: String,
    pub value: String,
}

/// The placeholder paths and the placeholder secrets of `entry`.
pub(crate) fn find(entry: &ServerEntry) -> (Vec<Placeholder>, Vec<Placeholder>) {
    let mut paths = Vec::new();
    let mut secrets = Vec::new();
    let mut path = |field: String, value: &str| {
        if is_placeholder_path(value) {
            paths.push(Placeholder {
                field,
                value: value.to_owned(),
            });
        }
    };
    match &entry.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            path("command".to_owned(), command);
            for arg in args {
                path("args".to_owned(), arg);
            }
            if let Some(cwd) = cwd {
                path("cwd".to_owned(), cwd);
            }
            for (key, value) in env {
                if is_placeholder_secret(key, value) {
                    secrets.push(Placeholder {
                        field: format!("env `{key}`"),
                        value: value.clone(),
                    });
                } else {
                    path(format!("env `{key}`"), value);
                }
            }
        }
        Transport::Remote { url, headers, .. } => {
            path("url".to_owned(), url);
            for (key, value) in headers {
                if is_placeholder_secret(key, value) {
                    secrets.push(Placeholder {
                        field: format!("header `{key}`"),
                        value: value.clone(),
                    });
                }
            }
        }
    }
    (paths, secrets)
}

/// The warning for placeholder paths: the entry is written; which value to replace.
pub(crate) fn path_warning(name: &str, found: &[Placeholder]) -> String {
    let listed: Vec<String> = found
        .iter()
        .map(|p| format!("`{}` ({})", p.value, p.field))
        .collect();
    format!(
        "`{name}` has README placeholder path{} {}: the entry is written, but the server gets {} literally; replace {} with your own (`mcpctl add {name} … --force` with the real path replaces the entry)",
        if found.len() == 1 { "" } else { "s" },
        listed.join(", "),
        if found.len() == 1 { "it" } else { "them" },
        if found.len() == 1 { "it" } else { "each" },
    )
}

/// The refusal for placeholder secrets (nothing written), with the flags that give the
/// real value beside the snippet.
pub(crate) fn secret_refusal(name: &str, found: &[Placeholder]) -> anyhow::Error {
    let listed: Vec<String> = found
        .iter()
        .map(|p| format!("{} is `{}`", p.field, p.value))
        .collect();
    let env_key = found.iter().find_map(|p| {
        p.field
            .strip_prefix("env `")
            .and_then(|k| k.strip_suffix('`'))
    });
    let hint = match env_key {
        Some(key) => format!(
            "give the real value beside the snippet: `--env {key}=VALUE`, a variable `--env '{key}=${{{key}}}'`, or the OS keychain `--secret {key}=NAME` (after `mcpctl secret set NAME`); `--force` writes the placeholder as it is"
        ),
        None => "give the real value beside the snippet (`--header 'NAME=VALUE'`), or `--force` to write the placeholder as it is".to_owned(),
    };
    UserError::new(format!(
        "`{name}`: {}, a README placeholder, not a secret: the server would start with it and fail at its first call; nothing was written",
        listed.join("; ")
    ))
    .hint(hint)
    .into()
}

/// A path a README writes for the reader to replace: `/Users/username/…`,
/// `/home/username/…`, `C:\Users\username\…`, `/path/to/…`, or `<a path>`.
pub(crate) fn is_placeholder_path(value: &str) -> bool {
    let lower = value.to_ascii_lowercase().replace('\\', "/");
    const MARKS: &[&str] = &[
        "/users/username",
        "/users/your-username",
        "/users/yourname",
        "/users/<",
        "/home/username",
        "/home/your-username",
        "/home/yourname",
        "/home/<",
        "/path/to/",
        "/absolute/path/",
        "/your/path",
    ];
    MARKS.iter().any(|m| lower.contains(m))
        || (lower.starts_with('<') && lower.ends_with('>') && lower.contains("path"))
        || lower.starts_with("path/to/")
}

/// A secret a README writes for the reader to replace: `<your-token>`, `YOUR_API_KEY`,
/// `your_token_here`, `REPLACE_ME`, `ghp_xxxxxxxx`, `sk-...` (after `Bearer `), under any
/// key that names a secret, or anywhere when it says so itself (`<your-api-key>`).
pub(crate) fn is_placeholder_secret(key: &str, value: &str) -> bool {
    let value = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
        .unwrap_or(value)
        .trim();
    let lower = value.to_ascii_lowercase();
    let secret_word = lower.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
        matches!(w, "pat" | "api" | "key" | "apikey")
            || ["token", "secret", "password"]
                .iter()
                .any(|s| w.contains(s))
    });
    let says_so = ["your", "<your", "{your"]
        .iter()
        .any(|start| lower.starts_with(start))
        && secret_word;
    if says_so {
        return true;
    }
    if !secret_name(key) {
        return false;
    }
    let bracketed = (value.starts_with('<') && value.ends_with('>'))
        || (value.starts_with("{{") && value.ends_with("}}"));
    let filler = matches!(
        lower.as_str(),
        "replace_me"
            | "replace-me"
            | "replaceme"
            | "changeme"
            | "change_me"
            | "change-me"
            | "todo"
            | "token"
            | "secret"
    ) || lower.ends_with("xxxx")
        || lower.ends_with("...")
        || lower.ends_with("_here")
        || lower.ends_with("-here");
    bracketed || filler
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readme_paths_are_placeholders_and_real_ones_are_not() {
        for p in [
            "/Users/username/Desktop",
            "/path/to/allowed/files",
            "C:\\Users\\username\\Documents",
            "/home/username/projects",
            "<path to your repo>",
        ] {
            assert!(is_placeholder_path(p), "{p}");
        }
        for p in [
            "/Users/alice/Desktop",
            "/home/bob/code",
            "-y",
            "@modelcontextprotocol/server-filesystem",
            "/srv/path/too",
        ] {
            assert!(!is_placeholder_path(p), "{p}");
        }
    }

    #[test]
    fn readme_secrets_are_placeholders_and_real_ones_are_not() {
        for (k, v) in [
            ("GITHUB_PERSONAL_ACCESS_TOKEN", "<YOUR_TOKEN>"),
            ("API_KEY", "YOUR_API_KEY"),
            ("BRAVE_API_KEY", "your_api_key_here"),
            ("Authorization", "Bearer <your-token>"),
            ("GITHUB_TOKEN", "ghp_xxxxxxxxxxxx"),
            ("OPENAI_API_KEY", "sk-..."),
            ("X", "<your-api-key>"),
        ] {
            assert!(is_placeholder_secret(k, v), "{k}={v}");
        }
        for (k, v) in [
            ("GITHUB_TOKEN", "ghp_0123456789abcdefghijklmnopqrstuvwxyz"),
            ("GITHUB_TOKEN", "${GITHUB_TOKEN}"),
            ("DEBUG", "<none>"),
            ("LOG_LEVEL", "your choice"),
        ] {
            assert!(!is_placeholder_secret(k, v), "{k}={v}");
        }
    }
}
