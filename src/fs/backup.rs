//! Backups: the previous version of every file mcpctl replaces, kept in `backups/` of the
//! state directory before the file changes (so a full state disk refuses the write instead
//! of losing the version), named `{nanos}-{pid}.{digest}{suffix}` so that `restore` and
//! `undo` can prove the bytes are the ones kept. A backup is a hard link to the version
//! read when the state directory is on the same file system (free), else a copy written
//! to a temp name, fsynced and renamed, so a failed copy never becomes a backup. A copy
//! keeps the original's owner and its mode, narrowed to what the original's directory lets
//! others reach; a link is narrowed the same way once it is the backup's alone.
//! Old backups are pruned once a command is journaled (`prune`, called by `state`), never
//! one a journal record or a running command still needs, nor the first version of a
//! file mcpctl saw.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::temp::Temp;
use super::{Stamp, stamp_of_path, sync_dir};

/// How many backups of one file are kept at least (a big `~/.claude.json` is tens of MB
/// each); more while the journal needs them (`prune`).
const BACKUPS_KEPT: usize = 10;

/// One kept previous version of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backup {
    pub path: PathBuf,
    /// When it was taken (the write that replaced it).
    pub time: SystemTime,
    pub size: u64,
    /// The digest of the bytes kept (`super::digest`), from its name.
    pub digest: String,
}

impl Backup {
    /// The kept bytes, if they are provably the version that was kept: their digest
    /// matches the one in the name.
    pub fn verified_bytes(&self) -> Result<Vec<u8>, super::FsError> {
        let unverified = |why: String| super::FsError::Unverified {
            backup: self.path.clone(),
            why,
        };
        let bytes =
            fs::read(&self.path).map_err(|e| unverified(format!("cannot be read ({e})")))?;
        if super::digest(&bytes) != self.digest {
            return Err(unverified(
                "does not hold the bytes mcpctl kept (damaged, emptied, or a copy that failed)"
                    .to_owned(),
            ));
        }
        Ok(bytes)
    }
}

/// The backup that names this exact path (a journal record's), with its digest. A name
/// without one is not a backup mcpctl named: its digest is empty and never verifies.
pub fn at(path: &Path) -> Backup {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Backup {
        path: path.to_path_buf(),
        time: stamp_time(&name).unwrap_or(UNIX_EPOCH),
        size: fs::metadata(path).map_or(0, |m| m.len()),
        digest: digest_in(&name).unwrap_or_default(),
    }
}

/// Keep the version of `target` read with stamp `read` and digest `digest` as a backup,
/// before the file changes: a hard link (free), else a copy of the file as it is now,
/// which must still be that version. `Ok(None)`: it is not (another writer changed it);
/// `Err` (no room, no permission) leaves nothing behind.
pub fn keep(
    target: &Path,
    digest: Option<&str>,
    read: &Stamp,
    backups: &Path,
) -> io::Result<Option<PathBuf>> {
    let Some(digest) = digest else {
        return Ok(None);
    };
    let path = name(target, backups, digest)?;
    if fs::hard_link(target, &path).is_ok() {
        if stamp_of_path(&path).as_ref() != Some(read) {
            let _ = fs::remove_file(&path);
            return Ok(None);
        }
        // No fsync of its own: a link lives on the client file's file system, whose
        // journal commits it no later than the swap's directory fsync that follows.
        crate::fault::step_at("backup", target)?;
        return Ok(Some(path));
    }
    let bytes = fs::read(target)?;
    if super::digest(&bytes) != digest {
        return Ok(None);
    }
    let meta = fs::metadata(target).ok();
    copy(&bytes, &path, meta.as_ref(), target)?;
    crate::fault::step_at("backup", target)?;
    Ok(Some(path))
}

/// Keep `bytes` (a version of `target` that is out of place, or about to be deleted) as a
/// backup: copied, named by their digest.
pub fn keep_bytes(target: &Path, bytes: &[u8], backups: &Path) -> io::Result<PathBuf> {
    let path = name(target, backups, &super::digest(bytes))?;
    let meta = fs::metadata(target).ok();
    copy(bytes, &path, meta.as_ref(), target)?;
    Ok(path)
}

/// Keep `bytes` (the version `backup` holds, with a secret taken out of it: `backups
/// --scrub-secrets`) in place of `backup`: a new backup of `target` with the same stamp
/// and pid (so it keeps its place among the file's versions), named by the new digest,
/// written and fsynced beside the old one, which the caller deletes once nothing names
/// it. The same bytes give the same backup back.
pub fn rekeep(backup: &Backup, target: &Path, bytes: &[u8]) -> io::Result<Backup> {
    let digest = super::digest(bytes);
    if digest == backup.digest {
        return Ok(backup.clone());
    }
    let name = backup
        .path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| io::Error::other("not a backup name"))?;
    let (stamp, rest) = name
        .split_once('-')
        .ok_or_else(|| io::Error::other("not a backup name"))?;
    let dot = rest
        .find('.')
        .ok_or_else(|| io::Error::other("not a backup name"))?;
    let suffix_at = rest
        .find('-')
        .filter(|at| *at > dot)
        .ok_or_else(|| io::Error::other("not a backup name"))?;
    let hex = digest.strip_prefix(super::DIGEST_PREFIX).unwrap_or(&digest);
    let path = backup.path.with_file_name(format!(
        "{stamp}-{}.{hex}{}",
        &rest[..dot],
        &rest[suffix_at..]
    ));
    let meta = fs::metadata(&backup.path).ok();
    copy(bytes, &path, meta.as_ref(), target)?;
    Ok(Backup {
        path,
        time: backup.time,
        size: bytes.len() as u64,
        digest,
    })
}

/// Write `bytes` to `path` through a temp file (fsynced, then renamed), with the
/// original's owner and narrowed mode.
fn copy(bytes: &[u8], path: &Path, meta: Option<&fs::Metadata>, target: &Path) -> io::Result<()> {
    let (temp, mut file) = Temp::create(path)?;
    restrict(&file, meta, target)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temp.path, path)?;
    if let Some(dir) = path.parent() {
        sync_dir(dir);
    }
    Ok(())
}

/// After the swap: `old` (the displaced version, linked as the backup) is the backup's
/// alone now, so it may be narrowed like a copy.
pub fn narrow_link(old: &Path, target: &Path) {
    #[cfg(unix)]
    if let Ok(meta) = fs::metadata(old)
        && let Ok(file) = fs::OpenOptions::new().read(true).open(old)
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = narrowed(meta.permissions().mode(), target);
        let _ = file.set_permissions(fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = (old, target);
}

/// The original's mode (owner, group and others' bits) less the classes its directory
/// shuts out: a 0644 file in a 0700 directory is not others' to read, so its backup is 0600.
#[cfg(unix)]
fn narrowed(mode: u32, target: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    let mode = mode & 0o777;
    let Some(dir) = target.parent().and_then(|d| fs::metadata(d).ok()) else {
        return mode & 0o600;
    };
    let dir = dir.permissions().mode();
    let mut out = mode;
    if dir & 0o010 == 0 {
        out &= !0o070;
    }
    if dir & 0o001 == 0 {
        out &= !0o007;
    }
    out
}

/// Give a new backup file the original's owner (when root writes a user's file) and its
/// narrowed mode; private when there is no original.
fn restrict(file: &fs::File, meta: Option<&fs::Metadata>, target: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let Some(meta) = meta else {
            return file.set_permissions(fs::Permissions::from_mode(0o600));
        };
        // Not allowed (and not needed) unless root: the file is ours already.
        let _ = std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()));
        file.set_permissions(fs::Permissions::from_mode(narrowed(
            meta.permissions().mode(),
            target,
        )))
    }
    #[cfg(not(unix))]
    {
        let _ = (file, meta, target);
        Ok(())
    }
}

/// A new backup path for `target`. The backups directory is made private when mcpctl
/// creates it.
fn name(target: &Path, backups: &Path, digest: &str) -> io::Result<PathBuf> {
    if !backups.is_dir() {
        fs::create_dir_all(backups)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = fs::set_permissions(backups, fs::Permissions::from_mode(0o700));
        }
    }
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let suffix = suffix(target);
    let hex = digest.strip_prefix(super::DIGEST_PREFIX).unwrap_or(digest);
    Ok(backups.join(format!("{stamp:020}-{}.{hex}{suffix}", std::process::id())))
}

/// The longest suffix that is the whole flattened path. With the stamp, pid and digest
/// before it (at most 64 bytes) and the temp name a copy is first written to (about 45
/// more), a name stays well under the 255 bytes every file system takes.
const SUFFIX_MAX: usize = 140;

/// How much of a long path's flattened tail a suffix keeps, for a person reading the
/// backups directory; the hash of the whole path tells paths with the same tail apart.
const TAIL_KEPT: usize = 100;

/// The name suffix every backup of `target` carries: its path, flattened, when that is
/// short (`-home_me_.cursor_mcp.json`); else a hash of the whole path and the path's tail
/// (`-0123456789abcdef~…_config.toml`), so any path the OS takes can be backed up.
fn suffix(target: &Path) -> String {
    let whole = flat_suffix(target);
    if whole.len() <= SUFFIX_MAX {
        return whole;
    }
    // Flattened names are ASCII: any byte offset is a character boundary.
    let tail = whole[whole.len() - TAIL_KEPT..].trim_start_matches('_');
    let hash = xxhash_rust::xxh3::xxh3_64(target.as_os_str().as_encoded_bytes());
    format!("-{hash:016x}~{tail}")
}

/// The suffix of the first naming: the whole path, flattened (ASCII letters, digits, `.`
/// and `-` kept, anything else `_`). A name without `~` is never a hashed one.
fn flat_suffix(target: &Path) -> String {
    let flat: String = target
        .to_string_lossy()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("-{}", flat.trim_start_matches('_'))
}

fn stamp_time(name: &str) -> Option<SystemTime> {
    let nanos: u64 = name.split('-').next()?.parse().ok()?;
    Some(UNIX_EPOCH + std::time::Duration::from_nanos(nanos))
}

/// The digest in a backup's name (`{nanos}-{pid}.{hex}{suffix}`).
fn digest_in(name: &str) -> Option<String> {
    let rest = name.split_once('-')?.1;
    let pid_part = &rest[..rest.find('-')?];
    let hex = pid_part.split_once('.')?.1;
    (!hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()))
        .then(|| format!("{}{hex}", super::DIGEST_PREFIX))
}

/// Delete the backups of one file (`kept`, newest first, as `of` gives them) that nothing
/// needs any more. Kept are: the newest `BACKUPS_KEPT`; the oldest (the first version
/// mcpctl saw of the file, until the user deletes it); each one `needed` says a journal
/// record or a running command's intent names by its path; and, for each digest in
/// `needed_digests` (a version a record names only by its digest, found again by it),
/// the newest backup with that digest. Returns how many were deleted.
pub fn prune(
    kept: &[Backup],
    needed: &dyn Fn(&Path) -> bool,
    needed_digests: &std::collections::HashSet<String>,
) -> usize {
    let mut found_digests: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut deleted = 0;
    for (i, backup) in kept.iter().enumerate() {
        let by_digest =
            needed_digests.contains(&backup.digest) && found_digests.insert(backup.digest.as_str());
        let keep = i < BACKUPS_KEPT || i + 1 == kept.len() || needed(&backup.path) || by_digest;
        if !keep && fs::remove_file(&backup.path).is_ok() {
            deleted += 1;
        }
    }
    deleted
}

/// Whether a file with `count` backups has more than `prune` ever keeps without asking
/// what is needed (the newest `BACKUPS_KEPT` and the oldest).
pub fn over_kept(count: usize) -> bool {
    count > BACKUPS_KEPT + 1
}

/// The backups of the file at `path` (symlinks followed, the same identity the lock
/// uses, so a relative link such as GNU stow's finds them), newest first.
pub fn of(backups: &Path, path: &Path) -> Vec<Backup> {
    let identity = super::identity(path);
    // Backups named before long paths were hashed carry the whole flattened path.
    let suffixes = [suffix(&identity), flat_suffix(&identity)];
    let Ok(entries) = fs::read_dir(backups) else {
        return Vec::new();
    };
    let mut found: Vec<(String, Backup)> = entries
        .filter_map(|e| {
            let entry = e.ok()?;
            let name = entry.file_name().into_string().ok()?;
            let time = stamp_time(&name)?;
            // A pid and the digest sit between the stamp and the suffix:
            // `{stamp}-{pid}.{digest}{suffix}`.
            let rest = name.split_once('-')?.1;
            let pid_len = rest.find('-')?;
            if !suffixes.iter().any(|s| rest[pid_len..] == *s) {
                return None;
            }
            let digest = digest_in(&name)?;
            let size = entry.metadata().ok()?.len();
            let backup = Backup {
                path: entry.path(),
                time,
                size,
                digest,
            };
            Some((name, backup))
        })
        .collect();
    found.sort_unstable_by(|a, b| b.0.cmp(&a.0));
    found.into_iter().map(|(_, b)| b).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_path_gets_a_bounded_name_that_is_found_again_and_old_names_still_are() {
        let dir = tempfile::tempdir().unwrap();
        let backups = dir.path().join("b");
        let deep = dir.path().join("d".repeat(200)).join("e".repeat(200));
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(deep.join("config.toml"), "x").unwrap();
        // Writes keep backups under the file's identity (what `of` looks up): the same
        // path here on Linux, its canonical spelling on Windows.
        let target = super::super::identity(&deep.join("config.toml"));
        let kept = keep_bytes(&target, b"x", &backups).unwrap();
        let name = kept.file_name().unwrap().len();
        assert!(name <= 210, "{name} bytes");
        assert!(kept.to_string_lossy().ends_with("_config.toml"), "{kept:?}");
        // Another path with the same tail is another file's backups.
        let twin = dir.path().join("f".repeat(200)).join("e".repeat(200));
        std::fs::create_dir_all(&twin).unwrap();
        assert_ne!(suffix(&target), suffix(&twin.join("config.toml")));
        // A backup named with the whole flattened path (before hashing) is still found.
        let old = backups.join(format!(
            "{:020}-1.{}{}",
            1,
            "0".repeat(32),
            flat_suffix(&target)
        ));
        let short_enough = old.file_name().unwrap().len() < 255;
        if short_enough {
            std::fs::write(&old, "y").unwrap();
        }
        let found = of(&backups, &target);
        assert_eq!(found.len(), 1 + usize::from(short_enough), "{found:?}");
        assert_eq!(found[0].path, kept);
        // A short path keeps its readable name.
        let short = dir.path().join("c.json");
        assert_eq!(suffix(&short), flat_suffix(&short));
    }

    #[test]
    fn names_carry_the_digest_and_old_names_have_none() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("c.json");
        let path = name(&target, &dir.path().join("b"), &super::super::digest(b"x")).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(digest_in(&name), Some(super::super::digest(b"x")));
        assert_eq!(digest_in("00000000000000000001-42-tmp_c.json"), None);
    }

    #[cfg(unix)]
    #[test]
    fn modes_are_narrowed_to_what_the_directory_lets_through() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("private");
        fs::create_dir(&sub).unwrap();
        fs::set_permissions(&sub, fs::Permissions::from_mode(0o700)).unwrap();
        assert_eq!(narrowed(0o644, &sub.join("f")), 0o600);
        fs::set_permissions(&sub, fs::Permissions::from_mode(0o750)).unwrap();
        assert_eq!(narrowed(0o644, &sub.join("f")), 0o640);
        fs::set_permissions(&sub, fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(narrowed(0o644, &sub.join("f")), 0o644);
    }

    #[test]
    fn prune_keeps_the_newest_ten_the_first_and_what_is_needed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("c.json");
        let backups = dir.path().join("b");
        fs::write(&target, "x").unwrap();
        let mut made = Vec::new();
        for i in 0..20 {
            // Versions 3 and 5 have the same bytes (and digest).
            let bytes = if i == 5 {
                "v3".to_owned()
            } else {
                format!("v{i}")
            };
            made.push(keep_bytes(&target, bytes.as_bytes(), &backups).unwrap());
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        fs::write(backups.join("other"), "another file's").unwrap();
        let all = of(&backups, &target);
        assert_eq!(all.len(), 20);
        let named = made[7].clone();
        let digests = std::collections::HashSet::from([super::super::digest(b"v3")]);
        let deleted = prune(&all, &|p| p == named, &digests);
        let left: Vec<PathBuf> = of(&backups, &target).into_iter().map(|b| b.path).collect();
        // The newest ten (10..20), the first (0), the named one (7), the newest with v3 (5).
        let mut expected: Vec<PathBuf> = made[10..].iter().rev().cloned().collect();
        expected.extend([made[7].clone(), made[5].clone(), made[0].clone()]);
        assert_eq!(left, expected);
        assert_eq!(deleted, 20 - expected.len());
        assert!(backups.join("other").exists());
        assert!(!over_kept(11) && over_kept(12));
    }

    #[test]
    fn an_emptied_backup_does_not_verify() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("c.json");
        fs::write(&target, "{\"a\":1}").unwrap();
        let kept = keep_bytes(&target, b"{\"a\":1}", &dir.path().join("b")).unwrap();
        assert_eq!(at(&kept).verified_bytes().unwrap(), b"{\"a\":1}");
        fs::write(&kept, "").unwrap();
        assert!(at(&kept).verified_bytes().is_err());
    }
}
