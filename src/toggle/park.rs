//! Parking: for a client with no switch, `disable` cuts the entry out of the file through
//! the same lossless edit as `remove` and keeps the exact bytes that left (and where) in
//! the state directory; `enable` splices them back, so the file is byte-identical to
//! before `disable`. If the file changed around the cut meanwhile (another entry parked or
//! back, as switching profiles does), the bytes go back where the text around the cut is
//! now, or after the nearest entry that was before it (before the nearest that was after
//! it), never out of the order the file had; if even that fails, the entry is re-added as
//! a new one (and the report says so). An entry of the same name re-created by hand with other content
//! is a conflict: nothing is overwritten.

use std::cell::{Cell, RefCell};

use super::store::{self, Neighbours, Parked, Splice};
use super::{Action, Method, Switched, find};
use crate::clients::{Client, Location};
use crate::error::UserError;
use crate::formats::{ConfigDoc, Edit, RawEntry};
use crate::session::Context;
use crate::session::edit;
use crate::session::inventory::read_document;
use crate::state::EntryKey;
use crate::state::journal::digest;

/// Bytes of context kept on each side of a cut, to find its place again.
const CONTEXT: usize = 64;

pub fn park(
    ctx: &Context,
    client: &Client,
    location: &Location,
    name: &str,
    dry_run: bool,
) -> anyhow::Result<Switched> {
    if !crate::fs::exists(&location.path) {
        return Ok(Switched::missing(Method::Park, location.path.clone()));
    }
    if dry_run {
        let outcome = edit::apply(ctx, client, location, true, &|doc| {
            if find(doc, location.at(), name)?.is_none() {
                return Ok(Edit::Unchanged);
            }
            Ok(doc.remove(location.at(), name)?)
        })?;
        return Ok(parked_row(location, outcome, None));
    }
    // Record first, cut second: at every moment the entry is in its file, parked, or
    // both (a kill in between leaves both; `enable` and `disable` both settle that).
    let Some(record) = planned_record(ctx, client, location, name)? else {
        return Ok(Switched::missing(Method::Park, location.path.clone()));
    };
    let key = record.entry.clone();
    let raw = record.raw.clone();
    store::update(ctx, false, |s| {
        s.parked.retain(|p| p.entry != key);
        s.parked.push(record.clone());
    })?;
    let cut: RefCell<Option<(String, String)>> = RefCell::new(None);
    let outcome = edit::apply(ctx, client, location, false, &|doc| {
        let Some(now) = find(doc, location.at(), name)? else {
            return Ok(Edit::Unchanged);
        };
        if now != raw {
            return Err(UserError::new(format!(
                "`{name}` changed in `{}` while mcpctl was disabling it; it was left in the file",
                crate::output::file(&location.path)
            ))
            .hint("run the command again")
            .into());
        }
        let before = doc.render().into_owned();
        let edit = doc.remove(location.at(), name)?;
        *cut.borrow_mut() = Some((before, doc.render().into_owned()));
        Ok(edit)
    });
    let outcome = match outcome {
        Ok(outcome) if outcome.action != edit::Action::Unchanged => outcome,
        other => {
            // Nothing was cut: the record goes again (if that fails too, the entry is
            // both in its file and parked, which the next `enable` settles).
            let _ = store::update(ctx, false, |s| s.parked.retain(|p| p.entry != key));
            return match other {
                Ok(_) => Ok(Switched::missing(Method::Park, location.path.clone())),
                Err(error) => Err(error),
            };
        }
    };
    // The file may have changed elsewhere since the record was made: keep the splice
    // exact (the old one still finds its place by its context, so this may fail).
    let mut unfinished = None;
    if let Some((before, after)) = cut.into_inner() {
        let splice = splice_of(&before, &after);
        if splice != record.splice
            && let Err(error) = store::update(ctx, false, |s| {
                if let Some(p) = s.parked.iter_mut().find(|p| p.entry == key) {
                    p.splice = splice.clone();
                }
            })
        {
            unfinished = Some(error.to_string());
        }
    }
    Ok(parked_row(location, outcome, unfinished))
}

/// The record `park` will keep for `name`, from the file as it is now (`None`: not there).
fn planned_record(
    ctx: &Context,
    client: &Client,
    location: &Location,
    name: &str,
) -> anyhow::Result<Option<Parked>> {
    let mut document = read_document(ctx, client, &location.path)?;
    let doc = document.doc.as_mut();
    let Some(raw) = find(doc, location.at(), name)? else {
        return Ok(None);
    };
    let key = edit::entry_key(location, name);
    let order = with_parked(names(doc, location)?, &store::load(ctx)?, &key);
    let neighbours = neighbours_of(&order, name);
    let before = doc.render().into_owned();
    doc.remove(location.at(), name)?;
    let after = doc.render().into_owned();
    Ok(Some(Parked {
        entry: key,
        client: client.id.clone(),
        scope: location.scope,
        path: location.path.clone(),
        time: crate::state::rfc3339(std::time::SystemTime::now()),
        raw,
        splice: splice_of(&before, &after),
        neighbours,
    }))
}

/// The names of the entries at `location`, in file order.
fn names(doc: &dyn ConfigDoc, location: &Location) -> anyhow::Result<Vec<String>> {
    Ok(doc
        .servers(location.at())?
        .into_iter()
        .map(|(n, _)| n)
        .collect())
}

/// `names` with the entries parked from the same servers map (other than `key`) put back
/// where their neighbours say, in the order they were parked: the order the file had with
/// all of them in it, so parking a second entry remembers the first as a neighbour.
fn with_parked(mut names: Vec<String>, parked: &store::Store, key: &EntryKey) -> Vec<String> {
    for other in &parked.parked {
        let e = &other.entry;
        if e.path != key.path || e.key != key.key || e.name == key.name || names.contains(&e.name) {
            continue;
        }
        let around = &other.neighbours;
        let after = around
            .before
            .iter()
            .find_map(|n| names.iter().position(|m| m == n).map(|at| at + 1));
        let before = || {
            around
                .after
                .iter()
                .find_map(|n| names.iter().position(|m| m == n))
        };
        let at = after.or_else(before).unwrap_or(names.len());
        names.insert(at, e.name.clone());
    }
    names
}

/// The entries around `name` (its last occurrence, the one `find` reads) in `names`.
fn neighbours_of(names: &[String], name: &str) -> Neighbours {
    let Some(at) = names.iter().rposition(|n| n == name) else {
        return Neighbours::default();
    };
    Neighbours {
        before: names[..at]
            .iter()
            .rev()
            .filter(|n| *n != name)
            .cloned()
            .collect(),
        after: names[at + 1..]
            .iter()
            .filter(|n| *n != name)
            .cloned()
            .collect(),
    }
}

fn parked_row(location: &Location, outcome: edit::Outcome, unfinished: Option<String>) -> Switched {
    if outcome.action == edit::Action::Unchanged {
        return Switched::missing(Method::Park, location.path.clone());
    }
    Switched {
        action: Action::Disabled,
        method: Method::Park,
        path: location.path.clone(),
        diff: outcome.diff,
        backup: outcome.backup,
        note: None,
        unfinished,
    }
}

/// `disable` of an entry that is parked already: nothing to do when the file does not have
/// it; parked anew when the file has it back unchanged; a conflict when it was re-created
/// with other content (two versions, and mcpctl keeps one record per entry).
pub fn park_again(
    ctx: &Context,
    client: &Client,
    location: &Location,
    name: &str,
    dry_run: bool,
) -> anyhow::Result<Switched> {
    let key = edit::entry_key(location, name);
    let parked = store::load(ctx)?.parked(&key).map(|p| p.raw.clone());
    match super::entry_in(ctx, client, location, name)? {
        None => Ok(Switched::unchanged(
            Method::Park,
            location.path.clone(),
            "already disabled (parked)",
        )),
        Some(raw) if Some(&raw) == parked.as_ref() => park(ctx, client, location, name, dry_run),
        Some(_) => Err(conflict(client, location, name)),
    }
}

/// How the entry came back.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Back {
    /// Spliced at its old place: byte-identical.
    Spliced,
    /// The file changed; re-added as a new entry.
    Readded,
    /// It was already there, identical (put back by hand, or by `undo`).
    Already,
}

pub fn unpark(
    ctx: &Context,
    client: &Client,
    location: &Location,
    name: &str,
    dry_run: bool,
) -> anyhow::Result<Switched> {
    let key = edit::entry_key(location, name);
    let Some(parked) = store::load(ctx)?.parked(&key).cloned() else {
        return Ok(Switched::missing(Method::Park, location.path.clone()));
    };
    let back = Cell::new(Back::Spliced);
    let outcome = edit::apply(ctx, client, location, dry_run, &|doc| {
        if let Some(raw) = find(doc, location.at(), name)? {
            if raw == parked.raw {
                back.set(Back::Already);
                return Ok(Edit::Unchanged);
            }
            return Err(conflict(client, location, name));
        }
        let text = doc.render().into_owned();
        if splice_somewhere(doc, &text, location, name, &parked)? {
            back.set(Back::Spliced);
            return Ok(Edit::Added);
        }
        back.set(Back::Readded);
        Ok(doc.upsert(location.at(), name, &parked.raw)?)
    })?;
    // The entry is back in its file: failing to drop the parked copy now is a partial
    // outcome (the next `enable` finds the entry there and drops it).
    let mut unfinished = None;
    if !dry_run
        && let Err(error) = store::update(ctx, false, |s| s.parked.retain(|p| p.entry != key))
    {
        unfinished = Some(error.to_string());
    }
    let note = match back.get() {
        Back::Spliced => None,
        Back::Readded => Some(
            "the file changed around the parked entry since `disable`: put back as a new entry after the others"
                .to_owned(),
        ),
        Back::Already => Some("already back in the file; the parked copy was dropped".to_owned()),
    };
    Ok(Switched {
        action: if back.get() == Back::Already {
            Action::Unchanged
        } else {
            Action::Enabled
        },
        method: Method::Park,
        path: location.path.clone(),
        diff: outcome.diff,
        backup: outcome.backup,
        note,
        unfinished,
    })
}

/// A parked entry exists and the file has another entry of that name.
pub fn conflict(client: &Client, location: &Location, name: &str) -> anyhow::Error {
    UserError::new(format!(
        "`{name}` is parked (disabled) for {} and was re-created in `{}` with other content; mcpctl does not overwrite either",
        client.id,
        crate::output::file(&location.path)
    ))
    .hint(format!(
        "to get the parked one back, remove the new entry first (`mcpctl remove {name} -c {}`), then `mcpctl enable {name} -c {}`; the parked bytes are in mcpctl's state directory (disabled.json)",
        client.id, client.id
    ))
    .into()
}

/// Splice the parked bytes back into `doc` (whose text is `text`): at their old place if
/// it can be found, else after the nearest neighbour still there (before the nearest
/// following one if none before is left). Every place is tried only if the result is
/// sound (`splice_is_sound`); `false`: no place was, and `doc` is unchanged.
fn splice_somewhere(
    doc: &mut dyn ConfigDoc,
    text: &str,
    location: &Location,
    name: &str,
    parked: &Parked,
) -> anyhow::Result<bool> {
    let splice = &parked.splice;
    let mut tried = Vec::new();
    let mut try_at = |doc: &mut dyn ConfigDoc, at: Option<usize>| -> bool {
        let Some(at) = at.filter(|at| !tried.contains(at)) else {
            return false;
        };
        tried.push(at);
        splice_at(text, splice, at)
            .is_some_and(|spliced| splice_is_sound(doc, text, spliced, location, name, parked))
    };
    // Its old place: where the text around the cut still is.
    if try_at(doc, splice_place(text, splice))
        || try_at(
            doc,
            unique(text, &splice.before).map(|at| at + splice.before.len()),
        )
        || try_at(doc, unique(text, &splice.after))
    {
        return Ok(true);
    }
    // Its neighbours: where cutting the nearest one still there would cut.
    let present = names(doc, location)?;
    let nearest = |side: &[String]| side.iter().find(|n| present.contains(n)).cloned();
    let sides = [
        (nearest(&parked.neighbours.before), true),
        (nearest(&parked.neighbours.after), false),
    ];
    for (neighbour, before) in sides {
        let Some(neighbour) = neighbour else {
            continue;
        };
        doc.remove(location.at(), &neighbour)?;
        let cut = splice_of(text, &doc.render());
        doc.replace_text(text.to_owned())?;
        let (start, end) = (cut.offset, cut.offset + cut.removed.len());
        let (first, second) = if before { (end, start) } else { (start, end) };
        if try_at(doc, Some(first)) || try_at(doc, Some(second)) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Where `needle` occurs in `text`, if exactly once.
fn unique(text: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    let mut found = text.match_indices(needle);
    let (first, _) = found.next()?;
    found.next().is_none().then_some(first)
}

/// Replace `text` in `doc` by `spliced` if it parses, changes exactly the entry, and puts
/// it between the same neighbours as before it was parked (those still there).
fn splice_is_sound(
    doc: &mut dyn ConfigDoc,
    text: &str,
    spliced: String,
    location: &Location,
    name: &str,
    parked: &Parked,
) -> bool {
    let raw = &parked.raw;
    let others = |doc: &dyn ConfigDoc| -> Option<Vec<(String, RawEntry)>> {
        let mut entries = doc.servers(location.at()).ok()?;
        entries.retain(|(n, _)| n != name);
        Some(entries)
    };
    let Some(before) = others(doc) else {
        return false;
    };
    if doc.replace_text(spliced).is_err() {
        return false;
    }
    let in_order = || {
        let Ok(now) = names(doc, location) else {
            return false;
        };
        let Some(at) = now.iter().rposition(|n| n == name) else {
            return false;
        };
        let around = &parked.neighbours;
        !now[..at].iter().any(|n| around.after.contains(n))
            && !now[at + 1..].iter().any(|n| around.before.contains(n))
    };
    let sound = find(doc, location.at(), name).ok().flatten().as_ref() == Some(raw)
        && others(doc) == Some(before)
        && in_order();
    if !sound {
        // The original text parsed a moment ago.
        let _ = doc.replace_text(text.to_owned());
    }
    sound
}

/// The smallest splice turning `after` back into `before`.
pub fn splice_of(before: &str, after: &str) -> Splice {
    let prefix = before
        .bytes()
        .zip(after.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let max_suffix = before.len().min(after.len()) - prefix;
    let suffix = before
        .bytes()
        .rev()
        .zip(after.bytes().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    let start = floor(before, prefix);
    let (b_end, a_end) = {
        // Keep both ends on character boundaries (the same count from the end).
        let mut s = suffix;
        while !before.is_char_boundary(before.len() - s) || !after.is_char_boundary(after.len() - s)
        {
            s -= 1;
        }
        (before.len() - s, after.len() - s)
    };
    let start = start.min(b_end).min(a_end);
    Splice {
        offset: start,
        removed: before[start..b_end].to_owned(),
        inserted: after[start..a_end].to_owned(),
        before: after[floor(after, start.saturating_sub(CONTEXT))..start].to_owned(),
        after: after[a_end..floor(after, (a_end + CONTEXT).min(after.len()))].to_owned(),
        digest: digest(after.as_bytes()),
    }
}

fn floor(text: &str, at: usize) -> usize {
    text.floor_char_boundary(at)
}

/// `text` with the splice undone, if its place can be found (`splice_place`).
#[cfg(test)]
pub fn splice_back(text: &str, splice: &Splice) -> Option<String> {
    splice_at(text, splice, splice_place(text, splice)?)
}

/// Where the splice goes back: at `offset` when the text is the one left after parking,
/// else where its context occurs exactly once.
fn splice_place(text: &str, splice: &Splice) -> Option<usize> {
    let fits =
        |at: usize| text.get(at..at + splice.inserted.len()) == Some(splice.inserted.as_str());
    if crate::state::journal::matches(&splice.digest, text.as_bytes()) && fits(splice.offset) {
        return Some(splice.offset);
    }
    let needle = format!("{}{}{}", splice.before, splice.inserted, splice.after);
    unique(text, &needle).map(|first| first + splice.before.len())
}

/// `text` with the splice undone at `at` (`None`: `at` does not hold what the cut left).
fn splice_at(text: &str, splice: &Splice, at: usize) -> Option<String> {
    let end = at.checked_add(splice.inserted.len())?;
    if text.get(at..end) != Some(splice.inserted.as_str()) {
        return None;
    }
    Some(format!("{}{}{}", &text[..at], splice.removed, &text[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_round_trips_and_finds_a_moved_place() {
        let before = "{\n  \"a\": 1,\n  \"x\": {\"c\": 2},\n  \"b\": 3\n}\n";
        let after = "{\n  \"a\": 1,\n  \"b\": 3\n}\n";
        let splice = splice_of(before, after);
        assert_eq!(splice_back(after, &splice).as_deref(), Some(before));
        // Something was added at the top meanwhile: the context finds the place.
        let moved = format!("// new\n{after}");
        assert_eq!(
            splice_back(&moved, &splice).as_deref(),
            Some(format!("// new\n{before}").as_str())
        );
        // The neighbours are gone: no place.
        assert_eq!(splice_back("{}\n", &splice), None);
    }

    #[test]
    fn splice_keeps_character_boundaries() {
        let before = "é1é2é";
        let after = "é2é";
        let splice = splice_of(before, after);
        assert_eq!(splice_back(after, &splice).as_deref(), Some(before));
    }
}
