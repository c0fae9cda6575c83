//! The interactive multi-select (`add`/`remove` without a target, on a terminal): the one
//! place that reads keys. Esc or Ctrl-C cancel and always give the cursor back; Enter with
//! nothing selected asks again.
#![expect(clippy::print_stderr, reason = "the prompt's own re-ask line")]

use std::io;

/// The person cancelled (Esc, `q` or Ctrl-C): exit 130, as a shell does for Ctrl-C.
#[derive(Debug, thiserror::Error)]
#[error("cancelled")]
pub struct Cancelled;

/// The keys of the multi-select, said beside its question.
const KEYS: &str = "(space selects, a toggles all, enter confirms, esc cancels)";

/// The widest a prompt line may be: 80 columns, or the terminal's width when narrower.
const MAX_COLUMNS: usize = 80;

/// The multi-select's prompt for `question`: the keys on the same line when both fit
/// `columns` (80 at most; dialoguer adds a `:`), else on lines of their own, broken
/// between words.
pub(crate) fn prompt_text(question: &str, columns: Option<usize>) -> String {
    let width = columns.map_or(MAX_COLUMNS, |c| c.clamp(20, MAX_COLUMNS));
    let one = format!("{question} {KEYS}");
    if one.chars().count() < width {
        return one;
    }
    let mut lines = vec![question.to_owned()];
    let mut line = String::new();
    for word in KEYS.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() >= width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines.join("\n")
}

/// Let the person pick one or more of `items`; the indexes picked, in order.
pub fn multi_select(question: &str, items: &[String]) -> anyhow::Result<Vec<usize>> {
    let _guard = CtrlCGuard::install();
    let columns = console::Term::stderr()
        .size_checked()
        .map(|(_, columns)| usize::from(columns));
    let prompt = prompt_text(question, columns);
    loop {
        let picked = dialoguer::MultiSelect::new()
            .with_prompt(&prompt)
            .items(items)
            // dialoguer's own report repeats the whole prompt, keys and all, before the
            // picks: the question alone is said instead.
            .report(false)
            .interact_opt();
        // dialoguer hides the cursor while it draws; give it back whatever happened.
        let _ = console::Term::stderr().show_cursor();
        match picked {
            Ok(Some(indexes)) if !indexes.is_empty() => {
                let picked: Vec<&str> = indexes
                    .iter()
                    .filter_map(|i| items.get(*i).map(String::as_str))
                    .collect();
                eprintln!("{question} {}", picked.join(", "));
                return Ok(indexes);
            }
            Ok(Some(_)) => eprintln!("nothing selected: space selects a line, `a` selects all"),
            Ok(None) => return Err(Cancelled.into()),
            Err(dialoguer::Error::IO(e)) if e.kind() == io::ErrorKind::Interrupted => {
                return Err(Cancelled.into());
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Ask a yes/no question (default no); Esc or Ctrl-C cancel.
pub fn confirm(prompt: &str) -> anyhow::Result<bool> {
    let _guard = CtrlCGuard::install();
    let answer = dialoguer::Confirm::new()
        .with_prompt(prompt)
        .default(false)
        .interact_opt();
    let _ = console::Term::stderr().show_cursor();
    match answer {
        Ok(Some(yes)) => Ok(yes),
        Ok(None) => Err(Cancelled.into()),
        Err(dialoguer::Error::IO(e)) if e.kind() == io::ErrorKind::Interrupted => {
            Err(Cancelled.into())
        }
        Err(e) => Err(e.into()),
    }
}

/// While the prompt is up, Ctrl-C (which the terminal turns into SIGINT) shows the cursor,
/// says "cancelled" and exits 130 instead of leaving the cursor hidden.
struct CtrlCGuard {
    #[cfg(unix)]
    previous: libc::sighandler_t,
}

#[cfg(unix)]
extern "C" fn on_interrupt(_: libc::c_int) {
    const TEXT: &[u8] = b"\x1b[?25h\ncancelled: nothing was changed\n";
    // SAFETY: write(2) and _exit(2) are async-signal-safe; TEXT is a static buffer.
    unsafe {
        libc::write(2, TEXT.as_ptr().cast(), TEXT.len());
        libc::_exit(130);
    }
}

impl CtrlCGuard {
    #[cfg(unix)]
    fn install() -> CtrlCGuard {
        let handler = on_interrupt as extern "C" fn(libc::c_int);
        // SAFETY: installs a handler that only calls async-signal-safe functions.
        let previous = unsafe { libc::signal(libc::SIGINT, handler as libc::sighandler_t) };
        CtrlCGuard { previous }
    }

    #[cfg(not(unix))]
    fn install() -> CtrlCGuard {
        CtrlCGuard {}
    }
}

impl Drop for CtrlCGuard {
    fn drop(&mut self) {
        #[cfg(unix)]
        // SAFETY: puts back the handler that was there before.
        unsafe {
            libc::signal(libc::SIGINT, self.previous);
        }
    }
}

/// Ask for a secret without echoing it (`secret set` on a terminal); an empty answer asks
/// again. Esc or Ctrl-C cancel.
pub fn password(prompt: &str) -> anyhow::Result<String> {
    hidden(prompt, false)
}

/// [`password`], where an empty answer is an answer (skip this one).
pub fn password_or_skip(prompt: &str) -> anyhow::Result<String> {
    hidden(prompt, true)
}

fn hidden(prompt: &str, allow_empty: bool) -> anyhow::Result<String> {
    let _guard = CtrlCGuard::install();
    let answer = dialoguer::Password::new()
        .with_prompt(prompt)
        .allow_empty_password(allow_empty)
        .interact();
    let _ = console::Term::stderr().show_cursor();
    match answer {
        Ok(value) => Ok(value),
        Err(dialoguer::Error::IO(e)) if e.kind() == io::ErrorKind::Interrupted => {
            Err(Cancelled.into())
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::prompt_text;

    /// Issue 40: `remove: which clients? (space selects, …)` was 83 columns wide. No line
    /// of the prompt (with dialoguer's `:`) is wider than 80 columns, or the terminal when
    /// it is narrower, and the keys are all still said.
    #[test]
    fn the_picker_prompt_fits_80_columns_and_the_terminal() {
        for verb in ["add", "remove", "disable", "enable"] {
            let question = format!("{verb}: which clients?");
            for columns in [None, Some(200), Some(80), Some(60), Some(40)] {
                let prompt = prompt_text(&question, columns);
                let width = columns.map_or(80, |c| c.min(80));
                for line in format!("{prompt}:").lines() {
                    assert!(line.chars().count() <= width, "{columns:?}: {prompt}");
                }
                assert!(prompt.starts_with(&question), "{prompt}");
                let words: Vec<&str> = prompt.split_whitespace().collect();
                assert!(
                    words.ends_with(&["enter", "confirms,", "esc", "cancels)"]),
                    "{prompt}"
                );
            }
        }
    }
}
