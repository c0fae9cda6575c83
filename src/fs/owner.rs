//! Files another tool owns. A config that is a link into the Nix store was written by
//! home-manager (or another Nix module) and is rebuilt from the Nix configuration on the
//! next switch; a config whose real file is read-only was made so by whoever deployed it.
//! mcpctl refuses to write either and says where the change belongs. A link into a
//! writable folder (GNU stow, a dotfiles repository) is not foreign: the write goes to its
//! target and the link stays (`fs::write_atomic` writes through links).
//!
//! Decided on the path alone (every hop of the link chain) plus the real file's mode, so
//! tests simulate the store with any directory whose path contains `/nix/store/`.

use std::fmt;
use std::path::{Path, PathBuf};

/// Who owns a file mcpctl will not write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// A link into the Nix store that went through home-manager's generation
    /// (`…-home-manager-files/…`).
    HomeManager,
    /// Any other path into the Nix store (a NixOS or nix-darwin module, a flake's output).
    Nix,
    /// The real file is read-only (no write permission bit at all).
    ReadOnly,
}

/// A file another tool owns: where the user knows it, where it really is, and whose it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Foreign {
    pub path: PathBuf,
    /// The real file after every link (the same as `path` when it is not a link).
    pub target: PathBuf,
    pub owner: Owner,
}

impl Foreign {
    /// What to do about it, on the machine the file is on.
    pub fn hint(&self) -> &'static str {
        self.hint_on(crate::platform::Os::host())
    }

    /// What to do about it on `os` (a read-only file is made writable its way).
    pub fn hint_on(&self, os: crate::platform::Os) -> &'static str {
        match self.owner {
            Owner::HomeManager => {
                "edit `programs.mcp.servers` (or the option that writes this file) and run `home-manager switch`; mcpctl still lists and checks the file"
            }
            Owner::Nix => {
                "change the Nix module that writes it and rebuild (`home-manager switch`, `nixos-rebuild switch` or `darwin-rebuild switch`)"
            }
            Owner::ReadOnly if os == crate::platform::Os::Windows => {
                "change it where it comes from, or clear its read-only attribute (`attrib -r` on the file) if mcpctl should edit it"
            }
            Owner::ReadOnly => {
                "change it where it comes from, or make it writable (`chmod u+w`) if mcpctl should edit it"
            }
        }
    }
}

impl fmt::Display for Foreign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        let target = self.target.display();
        match self.owner {
            Owner::HomeManager => write!(
                f,
                "`{path}` is managed by home-manager: change it in your Nix configuration (it links into the read-only Nix store: `{target}`)"
            ),
            Owner::Nix => write!(
                f,
                "`{path}` is managed by Nix: change it in your Nix configuration (it links into the read-only Nix store: `{target}`)"
            ),
            Owner::ReadOnly if self.path == self.target => write!(
                f,
                "`{path}` is read-only: mcpctl does not change a file that was made read-only"
            ),
            Owner::ReadOnly => write!(
                f,
                "`{path}` links to `{target}`, which is read-only: another tool (a dotfiles manager, a package) probably owns it"
            ),
        }
    }
}

/// The Nix store as it appears inside a path (a test's simulated store matches too).
const NIX_STORE: &str = "/nix/store/";

/// Whether another tool owns the file at `path` (which may not exist yet), following links.
#[must_use]
pub fn foreign(path: &Path) -> Option<Foreign> {
    let hops = chain(path);
    let target = hops.last().cloned().unwrap_or_else(|| path.to_path_buf());
    let in_store: Vec<String> = hops
        .iter()
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .filter(|p| p.contains(NIX_STORE))
        .collect();
    let owner = if !in_store.is_empty() {
        if in_store.iter().any(|p| p.contains("home-manager")) {
            Owner::HomeManager
        } else {
            Owner::Nix
        }
    } else if std::fs::metadata(&target).is_ok_and(|m| m.is_file() && m.permissions().readonly()) {
        Owner::ReadOnly
    } else {
        return None;
    };
    Some(Foreign {
        path: path.to_path_buf(),
        target,
        owner,
    })
}

/// `path`, then every link target in turn (relative targets joined to their link's
/// folder), ending at the first path that is not a link; at most Linux's 40 hops.
fn chain(path: &Path) -> Vec<PathBuf> {
    let mut hops = vec![path.to_path_buf()];
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        let Ok(next) = std::fs::read_link(&current) else {
            break;
        };
        current = match current.parent() {
            Some(parent) if next.is_relative() => parent.join(next),
            _ => next,
        };
        hops.push(current.clone());
    }
    hops
}

#[cfg(all(test, unix))]
mod tests {
    #![allow(clippy::unwrap_used, clippy::disallowed_methods, reason = "test")]
    use super::*;
    use std::os::unix::fs::{PermissionsExt, symlink};

    #[test]
    fn a_link_through_home_managers_files_into_the_store_is_home_managers() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("nix/store");
        let files = store.join("abc-home-manager-files/.cursor");
        std::fs::create_dir_all(&files).unwrap();
        let real = store.join("def-mcp.json");
        std::fs::write(&real, "{}").unwrap();
        symlink(&real, files.join("mcp.json")).unwrap();
        let link = dir.path().join("mcp.json");
        symlink(files.join("mcp.json"), &link).unwrap();
        let found = foreign(&link).unwrap();
        assert_eq!(found.owner, Owner::HomeManager);
        assert_eq!(found.target, real);
        assert!(
            found
                .to_string()
                .contains("managed by home-manager: change it in your Nix configuration")
        );
    }

    #[test]
    fn other_store_paths_are_nix_and_writable_links_are_nobodys() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("nix/store/xyz-mcp-config");
        std::fs::create_dir_all(&store).unwrap();
        std::fs::write(store.join("mcp.json"), "{}").unwrap();
        let link = dir.path().join("a.json");
        symlink(store.join("mcp.json"), &link).unwrap();
        assert_eq!(foreign(&link).unwrap().owner, Owner::Nix);

        let dotfiles = dir.path().join("dotfiles");
        std::fs::create_dir_all(&dotfiles).unwrap();
        std::fs::write(dotfiles.join("mcp.json"), "{}").unwrap();
        let stow = dir.path().join("b.json");
        symlink("dotfiles/mcp.json", &stow).unwrap();
        assert_eq!(foreign(&stow), None);
        assert_eq!(foreign(&dir.path().join("missing.json")), None);
    }

    #[test]
    fn a_read_only_target_is_refused_and_names_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("shared.json");
        std::fs::write(&real, "{}").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o444)).unwrap();
        let link = dir.path().join("link.json");
        symlink(&real, &link).unwrap();
        let found = foreign(&link).unwrap();
        assert_eq!(found.owner, Owner::ReadOnly);
        assert!(found.to_string().contains("which is read-only"), "{found}");
        let plain = foreign(&real).unwrap();
        assert!(
            plain.to_string().contains("is read-only: mcpctl"),
            "{plain}"
        );
    }
}

#[cfg(test)]
mod hints {
    use super::*;
    use crate::platform::Os;

    /// Issue 37 item 7: Windows has no `chmod`; a read-only file there has the
    /// read-only attribute, which `attrib -r` clears.
    #[test]
    fn a_read_only_file_is_made_writable_the_way_its_os_does() {
        let foreign = Foreign {
            path: PathBuf::from("mcp.json"),
            target: PathBuf::from("mcp.json"),
            owner: Owner::ReadOnly,
        };
        assert!(foreign.hint_on(Os::Windows).contains("`attrib -r`"));
        assert!(!foreign.hint_on(Os::Windows).contains("chmod"));
        assert!(foreign.hint_on(Os::Linux).contains("`chmod u+w`"));
    }
}
