//! Golden files for human output: `assert_golden("list", &text)` compares `text` with
//! `tests/golden/list.txt`. Temporary paths and timings are filtered first, so only the
//! layout and the wording are compared. `MCPCTL_UPDATE_GOLDEN=1 cargo test --test cli
//! golden` rewrites the files after an intended change; review the diff before committing.

use std::path::Path;

use crate::env::TestEnv;

/// `text` with the test's temporary directory as `<tmp>`, backup file names (a timestamp
/// and the mangled original path) as `<backup>`, and durations (`12 ms`, `1.5s`) and
/// clock times (`2026-12-01T16:28:23Z`) as `<time>`.
pub fn filter(env: &TestEnv, text: &str) -> String {
    let tmp = env.dir.path().to_string_lossy().into_owned();
    let mut text = clock_times(&text.replace(&tmp, "<tmp>"));
    let marker = "/backups/";
    let mut from = 0;
    while let Some(at) = text[from..].find(marker) {
        let start = from + at + marker.len();
        let end = text[start..]
            .find(char::is_whitespace)
            .map_or(text.len(), |e| start + e);
        text.replace_range(start..end, "<backup>");
        from = start + "<backup>".len();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find(|c: char| c.is_ascii_digit()) {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let number = from
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(from.len());
        let after = &from[number..];
        let unit = ["ms", " ms", "s", " s"].into_iter().find(|u| {
            after.starts_with(u)
                && !after[u.len()..].starts_with(|c: char| c.is_ascii_alphanumeric())
        });
        let glued = out.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        match unit {
            Some(unit) if !glued => {
                out.push_str("<time>");
                rest = &after[unit.len()..];
            }
            _ => {
                out.push_str(&from[..number]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Every RFC 3339 UTC time (`2026-12-01T16:28:23Z`) as `<time>`.
fn clock_times(text: &str) -> String {
    const SHAPE: &[u8] = b"dddd-dd-ddTdd:dd:ddZ";
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let mut copied = 0;
    while at + SHAPE.len() <= bytes.len() {
        let fits = SHAPE.iter().zip(&bytes[at..]).all(|(s, b)| match s {
            b'd' => b.is_ascii_digit(),
            other => other == b,
        });
        if fits {
            out.push_str(&text[copied..at]);
            out.push_str("<time>");
            at += SHAPE.len();
            copied = at;
        } else {
            at += 1;
        }
    }
    out.push_str(&text[copied..]);
    out
}

#[track_caller]
pub fn assert_golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.txt"));
    if std::env::var_os("MCPCTL_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run `MCPCTL_UPDATE_GOLDEN=1 cargo test --test cli golden` to create it",
            path.display()
        )
    });
    if expected != actual {
        let diff = similar::TextDiff::from_lines(expected.as_str(), actual)
            .unified_diff()
            .header("expected", "actual")
            .to_string();
        panic!(
            "{name}: human output changed (`MCPCTL_UPDATE_GOLDEN=1 cargo test --test cli golden` accepts it):\n{diff}"
        );
    }
}

#[test]
fn filter_hides_paths_and_timings_only() {
    let env = TestEnv::new();
    let tmp = env.dir.path().display();
    assert_eq!(
        filter(
            &env,
            &format!("{tmp}/a.json took 12 ms, 1.5s at 2026-12-01T16:28:23Z; v2 x86_64 3 servers")
        ),
        "<tmp>/a.json took <time>, <time> at <time>; v2 x86_64 3 servers"
    );
}
