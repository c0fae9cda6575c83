//! The servers map of the last edit, kept up to date across edits (`JsonDoc::cache`): a
//! plan that adds, updates or removes thousands of entries in one file re-scans only what
//! each edit changed, where looking the map up again scanned the whole text every time
//! (quadratic in entries).

use std::collections::HashMap;

use super::super::scan::{self, Kind, Located, Member};
use super::{Splice, Style, member_key};

pub(super) struct MapCache {
    pub(super) key: Vec<String>,
    /// What `JsonDoc::locate(key)` gives for the current text.
    pub(super) located: Located,
    /// The file's style, detected once for a run of edits (new entries of one run are
    /// all written alike).
    pub(super) style: Style,
    /// Where the last member of each name is in the map's members (built on first use,
    /// kept across edits at the end of the map and edits that keep every name in place).
    names: Option<HashMap<String, usize>>,
}

impl MapCache {
    pub(super) fn new(key: &[String], located: Located, style: Style) -> Self {
        Self {
            key: key.to_vec(),
            located,
            style,
            names: None,
        }
    }

    /// The last member of the map named `name` (what `JSON.parse` keeps).
    pub(super) fn last_named(&mut self, text: &str, name: &str) -> Option<Member> {
        let members = &self.located.nodes.get(self.key.len())?.members;
        let names = self.names.get_or_insert_with(|| {
            let mut names = HashMap::with_capacity(members.len());
            for (i, member) in members.iter().enumerate() {
                names.insert(scan::decode_key(text, member_key(member)), i);
            }
            names
        });
        members.get(*names.get(name)?).copied()
    }

    /// After `splices` (offsets in the text before them) made `text`: shift the offsets
    /// along the path and re-scan the members of the map the splices touched. `false` when
    /// that cannot be done here (the map is missing, a splice reaches outside its braces,
    /// the changed region does not scan as members): the caller drops the cache.
    pub(super) fn track(&mut self, text: &str, splices: &[Splice]) -> bool {
        self.try_track(text, splices).is_some()
    }

    fn try_track(&mut self, text: &str, splices: &[Splice]) -> Option<()> {
        let depth = self.key.len();
        if self.located.nodes.len() != depth + 1 {
            return None;
        }
        let lo = splices.iter().map(|s| s.at).min()?;
        let hi = splices.iter().map(|s| s.at + s.remove).max()?;
        let growth = splices
            .iter()
            .map(|s| s.insert.len() as isize - s.remove as isize)
            .sum::<isize>();
        let shift = |at: usize| at.checked_add_signed(growth);
        let (ancestors, map) = self.located.nodes.split_at_mut(depth);
        let map = map.first_mut()?;
        if map.kind != Kind::Object || lo <= map.start || hi >= map.end {
            return None;
        }
        let members = &map.members;
        let i0 = members.partition_point(|m| extent_end(m) < lo);
        let i1 = members.partition_point(|m| m.key_start < hi).max(i0);
        let from = match i0.checked_sub(1) {
            Some(before) => extent_end(&members[before]),
            None => map.start + 1,
        };
        let (to, expect) = match members.get(i1) {
            Some(next) => (shift(next.key_start)?, b'"'),
            None => (shift(map.end - 1)?, b'}'),
        };
        if text.as_bytes().get(to) != Some(&expect) {
            return None;
        }
        let parsed = members_between(text, from, to)?;
        // Two members with no comma between them: not something an edit leaves.
        let joined = i0.checked_sub(1).is_none_or(|b| members[b].comma.is_some());
        if !parsed.is_empty() && !joined {
            return None;
        }
        let count = parsed.len();
        if let Some(names) = &mut self.names {
            // A key before the first splice is where it was: its name reads the same.
            let name = |m: &Member| scan::decode_key(text, member_key(m));
            let old: Option<Vec<String>> = members[i0..i1]
                .iter()
                .map(|m| (m.key_end <= lo).then(|| name(m)))
                .collect();
            let new: Vec<String> = parsed.iter().map(name).collect();
            let at_end = i1 == members.len();
            match old {
                // Edits at the end of the map: the members before keep their places.
                Some(old) if at_end && old.iter().all(|o| new.contains(o)) => {
                    for (j, n) in new.into_iter().enumerate() {
                        names.insert(n, i0 + j);
                    }
                }
                // The same names in the same places (entries updated in place).
                Some(old) if old == new => {}
                _ => self.names = None,
            }
        }
        map.members.splice(i0..i1, parsed);
        for member in &mut map.members[i0 + count..] {
            shift_member(member, growth)?;
        }
        map.end = shift(map.end)?;
        for node in ancestors {
            node.end = shift(node.end)?;
            for member in &mut node.members {
                if member.key_start >= hi {
                    shift_member(member, growth)?;
                } else if member.value_end >= hi {
                    member.value_end = shift(member.value_end)?;
                    if let Some(comma) = member.comma.as_mut().filter(|c| **c >= hi) {
                        *comma = shift(*comma)?;
                    }
                }
            }
        }
        Some(())
    }
}

/// Just after a member: after its comma when it has one.
fn extent_end(member: &Member) -> usize {
    member.comma.map_or(member.value_end, |c| c + 1)
}

fn shift_member(member: &mut Member, growth: isize) -> Option<()> {
    member.key_start = member.key_start.checked_add_signed(growth)?;
    member.key_end = member.key_end.checked_add_signed(growth)?;
    member.value_start = member.value_start.checked_add_signed(growth)?;
    member.value_end = member.value_end.checked_add_signed(growth)?;
    if let Some(comma) = &mut member.comma {
        *comma = comma.checked_add_signed(growth)?;
    }
    Some(())
}

/// The members written in `text[from..to]` (inside an object, between two members or
/// its braces), each value validated.
fn members_between(text: &str, from: usize, to: usize) -> Option<Vec<Member>> {
    let bytes = text.as_bytes();
    let mut members: Vec<Member> = Vec::new();
    let mut at = from;
    loop {
        at = scan::skip_trivia(text, at).ok()?;
        if at >= to {
            break;
        }
        match bytes[at] {
            b',' => {
                let last = members.last_mut().filter(|m| m.comma.is_none())?;
                last.comma = Some(at);
                at += 1;
            }
            b'"' if members.last().is_none_or(|m| m.comma.is_some()) => {
                let (key_end, key_escaped) = scan::scan_string(text, at).ok()?;
                let colon = scan::skip_trivia(text, key_end).ok()?;
                if bytes.get(colon) != Some(&b':') {
                    return None;
                }
                let value_start = scan::skip_trivia(text, colon + 1).ok()?;
                let value = scan::scan(text.get(value_start..to)?, &[], true).ok()?;
                let value_end = value_start + value.nodes.first()?.end;
                members.push(Member {
                    key_start: at,
                    key_end,
                    key_escaped,
                    value_start,
                    value_end,
                    comma: None,
                });
                at = value_end;
            }
            _ => return None,
        }
    }
    (at == to).then_some(members)
}
