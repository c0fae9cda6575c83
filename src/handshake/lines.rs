//! Bounded line reading shared by the stdio pipes and SSE streams: a peer that never
//! sends a newline cannot make mcpctl buffer without limit.
//!
//! Never allocates more than the cap per line, whatever the input.

use std::io::BufRead;

/// One line, of which at most `cap` bytes were kept; `bytes` is its full length.
pub(crate) struct Line {
    pub(crate) kept: Vec<u8>,
    pub(crate) bytes: usize,
}

/// Read up to the next `\n` without ever buffering more than `cap` bytes of it.
/// `Ok(None)` at end of input.
pub(crate) fn read_line(reader: &mut impl BufRead, cap: usize) -> std::io::Result<Option<Line>> {
    let mut line = Line {
        kept: Vec::new(),
        bytes: 0,
    };
    loop {
        let buffer = match reader.fill_buf() {
            Ok(buffer) => buffer,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if buffer.is_empty() {
            return Ok((line.bytes > 0).then_some(line));
        }
        let (chunk, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => (&buffer[..end], end + 1),
            None => (buffer, buffer.len()),
        };
        let room = cap.saturating_sub(line.kept.len());
        line.kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
        line.bytes += chunk.len();
        let finished = done > chunk.len();
        reader.consume(done);
        if finished {
            if line.kept.last() == Some(&b'\r') {
                line.kept.pop();
            }
            return Ok(Some(line));
        }
    }
}

/// Whether `c` is a bidi embedding, override or isolate (U+202A–U+202E, U+2066–U+2069):
/// not a control character to Rust, yet it reorders what the terminal shows after it.
pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` without ANSI escape sequences (CSI, OSC, two-byte), bidi controls and other
/// control characters (tabs stay): what every server-provided string goes through
/// before it can reach a terminal, so a server cannot clear the screen, forge a line, or
/// reorder one.
pub fn clean_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            match chars.next() {
                Some('[') => {
                    // CSI: parameters and intermediates, then one final byte @..~
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    // OSC: until BEL or ESC \
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                            chars.next();
                            break;
                        }
                    }
                }
                _ => {}
            }
        } else if c == '\t' || !(c.is_control() || is_bidi_control(c)) {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::io::BufReader;

    use super::*;

    #[test]
    fn read_line_caps_long_lines_and_keeps_reading() {
        let input = format!("{}\nnext\r\nlast", "x".repeat(100));
        let mut reader = BufReader::with_capacity(7, input.as_bytes());
        let first = read_line(&mut reader, 10).unwrap().unwrap();
        assert_eq!((first.kept.len(), first.bytes), (10, 100));
        let second = read_line(&mut reader, 10).unwrap().unwrap();
        assert_eq!(second.kept, b"next");
        let third = read_line(&mut reader, 10).unwrap().unwrap();
        assert_eq!(third.kept, b"last");
        assert!(read_line(&mut reader, 10).unwrap().is_none());
    }

    #[test]
    fn strips_ansi_sequences() {
        assert_eq!(
            clean_text("\u{1b}[1;31merror\u{1b}[0m: \u{1b}]0;title\u{7}bad\r"),
            "error: bad"
        );
    }
}
