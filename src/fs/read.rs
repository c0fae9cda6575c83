//! Reading a client file in one pass: the bytes come in chunks straight into the spare
//! capacity of the `Vec` that becomes the file's `String` (sized from the file, no zero
//! fill, no copy), and each chunk is digested (XXH3-128, streaming) and checked as UTF-8
//! (simdutf8) while it is still in the CPU's cache — instead of one read of the whole
//! file and then two more passes over it from memory, one for the digest and one for the
//! UTF-8 check (a 17 MB `~/.claude.json` does not fit in any cache).
//!
//! The digest is the one `fs::digest` computes in one call (the streaming and the one-shot
//! XXH3-128 are the same function), and a file that is not UTF-8 is refused at the first
//! byte that is not, as `String::from_utf8` would say.

use std::fs::File;
use std::io;

use xxhash_rust::xxh3::Xxh3;

#[cfg(target_os = "linux")]
use super::map::Mapped;

/// Bytes read (and digested and checked) at a time: well inside a core's L2 cache.
const CHUNK: usize = 512 * 1024;

/// Why a read failed.
#[derive(Debug)]
pub(super) enum Failure {
    Io(io::Error),
    /// Not UTF-8: the offset of the first byte that is not.
    NotUtf8(usize),
}

/// Read all of `file` as UTF-8 text into a buffer of at least `capacity` bytes, with the
/// digest of the bytes read (`fs::digest`'s).
pub(super) fn read_text(file: &mut File, capacity: usize) -> Result<(String, String), Failure> {
    read_in_chunks(file, capacity, CHUNK)
}

fn read_in_chunks(
    file: &mut File,
    capacity: usize,
    chunk: usize,
) -> Result<(String, String), Failure> {
    let mut bytes = Vec::with_capacity(capacity);
    advise_huge_pages(&mut bytes);
    let mut hasher = Xxh3::new();
    // Bytes known to be whole UTF-8 characters; a character a chunk cut in two is
    // checked with the next chunk.
    let mut checked = 0;
    loop {
        if bytes.len() == bytes.capacity() {
            // The file grew since its size was read (or `capacity` was short).
            bytes.reserve(chunk);
        }
        let start = bytes.len();
        let read = read_some(file, &mut bytes, chunk).map_err(Failure::Io)?;
        if read == 0 {
            break;
        }
        hasher.update(&bytes[start..]);
        checked = check_utf8(&bytes, checked).map_err(Failure::NotUtf8)?;
    }
    if checked < bytes.len() {
        // The file ends inside a character.
        return Err(Failure::NotUtf8(checked));
    }
    let digest = super::digest_named(hasher.digest128());
    // SAFETY: `check_utf8` has checked all of `bytes` (`checked == bytes.len()`).
    let text = unsafe { String::from_utf8_unchecked(bytes) };
    Ok((text, digest))
}

/// The file's first `len` bytes (its size when looked at) as a memory map (`map`),
/// digested and checked as UTF-8: `None` where no map can be had, or the file was cut
/// short while it was checked (read it instead: the version there now is the one to
/// take). The bytes are in memory already, so no chunks: one check, and the digest on a
/// second core meanwhile (the two passes are each bound by memory, not by the other).
#[cfg(target_os = "linux")]
pub(super) fn map_text(file: &File, len: usize) -> Option<Result<(Mapped, String), Failure>> {
    let map = Mapped::of(file, len)?;
    let bytes = map.bytes();
    let (digest, checked) = std::thread::scope(|scope| {
        let digest = std::thread::Builder::new()
            .name("digest".to_owned())
            .spawn_scoped(scope, || xxhash_rust::xxh3::xxh3_128(bytes));
        let checked = check_utf8(bytes, 0);
        // No thread to be had (or it failed): the digest here, after the check.
        let digest = digest
            .ok()
            .and_then(|digest| digest.join().ok())
            .unwrap_or_else(|| xxhash_rust::xxh3::xxh3_128(bytes));
        (digest, checked)
    });
    if map.torn() {
        return None;
    }
    match checked {
        Ok(end) if end == bytes.len() => Some(Ok((map, super::digest_named(digest)))),
        // Not UTF-8 at `at`, or the file ends inside a character.
        Ok(at) | Err(at) => Some(Err(Failure::NotUtf8(at))),
    }
}

/// Check `bytes[from..]` as UTF-8: `Ok(end)` where `end` is where the checked text ends
/// (short of the end by a character that is not complete yet), `Err(offset)` at a byte
/// that cannot be UTF-8 whatever follows.
fn check_utf8(bytes: &[u8], from: usize) -> Result<usize, usize> {
    let rest = bytes.get(from..).unwrap_or_default();
    match simdutf8::compat::from_utf8(rest) {
        Ok(_) => Ok(bytes.len()),
        Err(e) if e.error_len().is_none() => Ok(from + e.valid_up_to()),
        Err(e) => Err(from + e.valid_up_to()),
    }
}

/// Read up to `max` bytes into the spare capacity of `bytes` (which has some) and extend
/// it by what was read; 0 at the end of the file.
#[cfg(unix)]
fn read_some(file: &mut File, bytes: &mut Vec<u8>, max: usize) -> io::Result<usize> {
    use std::os::fd::AsRawFd;
    let spare = bytes.spare_capacity_mut();
    let want = spare.len().min(max);
    let into = spare.as_mut_ptr().cast::<libc::c_void>();
    loop {
        // SAFETY: the kernel writes at most `want` bytes at `into`, which lie in the
        // Vec's own allocation past its length; nothing reads them before `set_len`.
        let read = unsafe { libc::read(file.as_raw_fd(), into, want) };
        if let Ok(read) = usize::try_from(read) {
            // SAFETY: the `read` bytes after the old length were just written.
            unsafe { bytes.set_len(bytes.len() + read) };
            return Ok(read);
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// Elsewhere: through a zero-filled stretch of the buffer (std's `read` takes
/// initialised bytes).
#[cfg(not(unix))]
fn read_some(file: &mut File, bytes: &mut Vec<u8>, max: usize) -> io::Result<usize> {
    let start = bytes.len();
    let want = (bytes.capacity() - start).min(max);
    bytes.resize(start + want, 0);
    let read = loop {
        match io::Read::read(file, &mut bytes[start..]) {
            Ok(read) => break read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                bytes.truncate(start);
                return Err(e);
            }
        }
    };
    bytes.truncate(start + read);
    Ok(read)
}

/// Ask for transparent huge pages on a big read buffer: a 17 MB `~/.claude.json` otherwise
/// costs ~4,300 page faults (measured: a tenth of the run) just to receive the bytes.
#[cfg(target_os = "linux")]
fn advise_huge_pages(buffer: &mut Vec<u8>) {
    const PAGE: usize = 4096;
    const HUGE: usize = 2 << 20;
    if buffer.capacity() < 2 * HUGE {
        return;
    }
    let start = buffer.as_mut_ptr() as usize;
    let aligned = start.next_multiple_of(PAGE);
    let end = (start + buffer.capacity()) / PAGE * PAGE;
    if end > aligned {
        // SAFETY: the range lies inside the Vec's own allocation; MADV_HUGEPAGE is only
        // advice about how to back it and never changes its contents.
        unsafe {
            libc::madvise(
                aligned as *mut libc::c_void,
                end - aligned,
                libc::MADV_HUGEPAGE,
            );
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_buffer: &mut Vec<u8>) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn cases() -> Vec<Vec<u8>> {
        let mut cases: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"{\"a\": 1}".to_vec(),
            "émoji ✓ 日本語 𝄞".as_bytes().to_vec(),
            b"\xff".to_vec(),
            b"ok \xc3".to_vec(),
            b"\xe2\x82".to_vec(),
            b"\xe2\x82x".to_vec(),
            b"\xc0\xaf".to_vec(),
            b"\xed\xa0\x80".to_vec(),
            b"\xf4\x90\x80\x80".to_vec(),
            b"\xf0\x9d\x84".to_vec(),
        ];
        // Long inputs (the SIMD path), with the bad byte late, and one all valid.
        let long = "x✓𝄞".repeat(5000).into_bytes();
        cases.push(long.clone());
        let mut bad = long.clone();
        bad[9000] = 0x80;
        cases.push(bad);
        let mut cut = long;
        cut.pop();
        cases.push(cut);
        cases
    }

    /// Whatever the chunks' size (cutting characters anywhere), the text, the offset of a
    /// bad byte and the digest are std's and `fs::digest`'s.
    #[test]
    fn chunked_read_agrees_with_std_and_the_one_shot_digest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        for bytes in cases() {
            std::fs::write(&path, &bytes).unwrap();
            let want = String::from_utf8(bytes.clone()).map_err(|e| e.utf8_error().valid_up_to());
            for chunk in [1, 2, 3, 5, 7, 64, 4096, CHUNK] {
                for capacity in [0, bytes.len()] {
                    let mut file = File::open(&path).unwrap();
                    let got = match read_in_chunks(&mut file, capacity, chunk) {
                        Ok((text, digest)) => {
                            assert_eq!(digest, super::super::digest(&bytes), "chunk {chunk}");
                            Ok(text)
                        }
                        Err(Failure::NotUtf8(at)) => Err(at),
                        Err(Failure::Io(e)) => panic!("{e}"),
                    };
                    assert_eq!(got, want, "chunk {chunk}, {bytes:?}");
                }
                #[cfg(target_os = "linux")]
                if !bytes.is_empty() && chunk == CHUNK {
                    let file = File::open(&path).unwrap();
                    let got = match map_text(&file, bytes.len()).unwrap() {
                        Ok((map, digest)) => {
                            assert_eq!(digest, super::super::digest(&bytes), "chunk {chunk}");
                            Ok(String::from_utf8(map.bytes().to_vec()).unwrap())
                        }
                        Err(Failure::NotUtf8(at)) => Err(at),
                        Err(Failure::Io(e)) => panic!("{e}"),
                    };
                    assert_eq!(got, want, "mapped, chunk {chunk}, {bytes:?}");
                }
            }
        }
    }
}
