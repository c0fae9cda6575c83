//! The clients' own switches: a field of the entry, a list of names, or an enablement
//! file. `disable` remembers what the field or list was before (`store::Memory`), so
//! `enable` restores exactly that: a field mcpctl added goes away again, a value the user
//! had comes back.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::path::PathBuf;

use serde_json::{Value, json};

use super::store::{self, Memory};
use super::{Action, Switched, Want, find};
use crate::clients::{Client, Location, Switch};
use crate::error::UserError;
use crate::formats::{ConfigDoc, Edit, Format, ServersAt};
use crate::session::Context;
use crate::session::edit;

/// Where a `list` switch lives: the file and the key path of the list's parent object
/// (`{project}` replaced by the absolute project directory, spelled as the client does).
pub fn list_place(
    ctx: &Context,
    client: &Client,
    file: Option<&str>,
    at: &[String],
) -> anyhow::Result<(PathBuf, Vec<String>)> {
    let path = match file {
        Some(template) => ctx.platform.expand(template)?,
        None => client.user_path(&ctx.platform)?.ok_or_else(|| {
            UserError::new(format!(
                "{} has no user file on {}",
                client.name,
                ctx.platform.os.as_str()
            ))
        })?,
    };
    let project = client.project_key(ctx.platform.os, &ctx.project);
    let at = at
        .iter()
        .map(|k| k.replace("{project}", &project))
        .collect();
    Ok((path, at))
}

/// The client as the file holding its switch list is read: in that file's own format when
/// the row names one (`Switch::List { format }`), else the client's.
pub fn list_reader(client: &Client, format: Option<Format>) -> Cow<'_, Client> {
    match format {
        Some(format) if format != client.format => {
            let mut reader = client.clone();
            reader.format = format;
            Cow::Owned(reader)
        }
        _ => Cow::Borrowed(client),
    }
}

/// How Gemini CLI keys its enablement file: the name lower-cased and trimmed.
pub fn enablement_name(name: &str) -> String {
    name.trim().to_lowercase()
}

/// An enablement file's value for one server says "off".
pub fn enablement_off(state: &Value) -> bool {
    state.get("enabled") == Some(&Value::Bool(false))
}

/// One field to switch: in the object at `at` of the file at `place`, field `field`.
pub(crate) struct Target {
    pub(crate) place: Location,
    pub(crate) at: Vec<String>,
    pub(crate) field: String,
}

pub fn switch(
    ctx: &Context,
    client: &Client,
    location: &Location,
    name: &str,
    want: Want,
    dry_run: bool,
) -> anyhow::Result<Switched> {
    let method = super::method(client, location.scope);
    let Some(switch) = client.switch.as_ref() else {
        return match want {
            Want::Off => super::park::park(ctx, client, location, name, dry_run),
            Want::On => super::park::unpark(ctx, client, location, name, dry_run),
        };
    };
    // The entry must be there, whatever holds its switch.
    if super::entry_in(ctx, client, location, name)?.is_none() {
        return Ok(Switched::missing(method, location.path.clone()));
    }
    let target = target(ctx, client, switch, location, name)?;
    // The file holding a list switch may have a format of its own.
    let reader = match switch {
        Switch::List { format, .. } => list_reader(client, *format),
        _ => Cow::Borrowed(client),
    };
    // A field switch edits the entry itself (also a named item of a list of servers).
    let via_entry = matches!(switch, Switch::Field { .. }).then_some(location);
    switch_member(
        ctx, &reader, switch, &target, via_entry, name, want, method, dry_run,
    )
}

/// Switch `name` at `target` (the file, the object in it, the field) the way `switch`
/// says, remembering what was there so the opposite switch restores it. `via_entry`: the
/// field is the entry's own, edited through its location (a named item of a list of
/// servers too); `None`: the field is a member of the object at `target.at`, which is
/// created when missing and goes again (with the file mcpctl created for it) once it is
/// empty.
#[allow(clippy::too_many_arguments)]
pub(crate) fn switch_member(
    ctx: &Context,
    reader: &Client,
    switch: &Switch,
    target: &Target,
    via_entry: Option<&Location>,
    name: &str,
    want: Want,
    method: super::Method,
    dry_run: bool,
) -> anyhow::Result<Switched> {
    let identity = crate::fs::identity(&target.place.path);
    let stored = store::load(ctx)?;
    let memory = stored.memory(&identity, &target.at, &target.field).cloned();
    // A file of its own that mcpctl created for switches goes once it is empty again.
    let created_file = stored
        .created(&identity)
        .filter(|_| via_entry.is_none() && want == Want::On)
        .cloned();
    // What the field was before this change, and whether its parent object existed.
    let seen: RefCell<Option<Value>> = RefCell::new(None);
    let parent_existed = Cell::new(true);
    // Objects above the parent that did not exist either.
    let missing_above = Cell::new(0usize);
    // `enable` put back what was there before the first `disable`.
    let restored = Cell::new(false);
    let field_switch = via_entry.is_some();
    let delete_with = created_file.as_ref().map(|c| c.dirs.as_slice());
    let outcome =
        edit::apply_then_delete(ctx, reader, &target.place, dry_run, delete_with, &|doc| {
            let current = if let Some(location) = via_entry {
                super::entry_field(doc, location, name, &target.field)?
            } else {
                member(doc, &target.at, &target.field)?
            };
            *seen.borrow_mut() = current.clone();
            parent_existed
                .set(field_switch || target.at.is_empty() || doc.position(&target.at).is_some());
            missing_above.set(if parent_existed.get() {
                0
            } else {
                (1..target.at.len())
                    .rev()
                    .take_while(|&n| doc.position(&target.at[..n]).is_none())
                    .count()
            });
            let next = match (switch, want) {
                (Switch::Field { off, .. }, Want::Off) => {
                    (current.as_ref() != Some(off)).then(|| Some(off.clone()))
                }
                (Switch::Field { off, .. }, Want::On) => (current.as_ref() == Some(off))
                    .then(|| memory.as_ref().and_then(|m| m.before.clone())),
                (Switch::List { .. }, _) => {
                    list_next(current.as_ref(), name, want, memory.as_ref())
                }
                (Switch::Enablement { .. }, Want::Off) => {
                    (!current.as_ref().is_some_and(enablement_off))
                        .then(|| Some(json!({ "enabled": false })))
                }
                (Switch::Enablement { .. }, Want::On) => current
                    .as_ref()
                    .is_some_and(enablement_off)
                    .then(|| memory.as_ref().and_then(|m| m.before.clone())),
            };
            let Some(next) = next else {
                return Ok(Edit::Unchanged);
            };
            restored.set(want == Want::On && memory.as_ref().is_none_or(|m| m.before == next));
            let edit = if let Some(location) = via_entry {
                super::set_entry_field(doc, location, name, &target.field, next.as_ref())?
            } else {
                match &next {
                    Some(value) => doc.upsert(ServersAt::map(&target.at), &target.field, value)?,
                    None => doc.remove(ServersAt::map(&target.at), &target.field)?,
                }
            };
            // A parent object mcpctl created for the list goes with it.
            if next.is_none()
                && memory.as_ref().is_some_and(|m| m.created_parent)
                && let Some((last, parent)) = target.at.split_last()
                && doc.servers(ServersAt::map(&target.at))?.is_empty()
            {
                doc.remove(ServersAt::map(parent), last)?;
                // The objects above it mcpctl made on the way (every one, in a file mcpctl
                // created for switches) go once empty, so the file can go too.
                let above = if created_file.is_some() {
                    parent.len()
                } else {
                    memory.as_ref().map_or(0, |m| m.created_above)
                };
                prune_empty(doc, parent, above)?;
            }
            Ok(edit)
        })?;
    let changed = outcome.action != edit::Action::Unchanged;
    let mut unfinished = None;
    if changed && !dry_run {
        let before = seen.borrow().clone();
        let created_parent = !parent_existed.get();
        // Known by its identity now that it exists.
        let created = (outcome.created && !field_switch).then(|| store::CreatedFile {
            path: crate::fs::identity(&target.place.path),
            dirs: outcome.created_dirs.clone(),
        });
        // The file is switched already: a failure to remember the old value is a partial
        // outcome (`enable` then sets the field's default), not a failed one.
        if let Err(error) = store::update(ctx, false, |s| {
            match want {
                Want::Off => s.remember(Memory {
                    path: identity.clone(),
                    at: target.at.clone(),
                    field: target.field.clone(),
                    before,
                    created_parent,
                    created_above: missing_above.get(),
                }),
                Want::On if restored.get() => s.forget(&identity, &target.at, &target.field),
                Want::On => {}
            }
            if let Some(created) = created {
                s.remember_created(created);
            }
            if outcome.deleted {
                s.forget_created(&identity);
            }
        }) {
            unfinished = Some(error.to_string());
        }
    }
    Ok(Switched {
        action: match (changed, want) {
            (false, _) => Action::Unchanged,
            (true, Want::Off) => Action::Disabled,
            (true, Want::On) => Action::Enabled,
        },
        method,
        path: target.place.path.clone(),
        diff: outcome.diff,
        backup: outcome.backup,
        note: note(changed, want, outcome.deleted, dry_run),
        unfinished,
    })
}

/// Remove the object at `at` and up to `above - 1` objects above it, each only while it
/// is empty.
fn prune_empty(doc: &mut dyn ConfigDoc, at: &[String], above: usize) -> anyhow::Result<()> {
    let mut at = at;
    for _ in 0..above {
        let Some((last, up)) = at.split_last() else {
            break;
        };
        if !doc.servers(ServersAt::map(at))?.is_empty() {
            break;
        }
        doc.remove(ServersAt::map(up), last)?;
        at = up;
    }
    Ok(())
}

/// Where `name`'s switch is: the file, the object in it and the field.
fn target(
    ctx: &Context,
    client: &Client,
    switch: &Switch,
    location: &Location,
    name: &str,
) -> anyhow::Result<Target> {
    Ok(match switch {
        Switch::Field { key, .. } => Target {
            place: location.clone(),
            at: [location.key.clone(), vec![name.to_owned()]].concat(),
            field: key.clone(),
        },
        Switch::List { file, at, key, .. } => {
            let (path, at) = list_place(ctx, client, file.as_deref(), at)?;
            Target {
                place: Location {
                    scope: location.scope,
                    path,
                    key: at.clone(),
                    name_key: None,
                },
                at,
                field: key.clone(),
            }
        }
        Switch::Enablement { file } => Target {
            place: Location {
                scope: location.scope,
                path: ctx.platform.expand(file)?,
                key: Vec::new(),
                name_key: None,
            },
            at: Vec::new(),
            field: enablement_name(name),
        },
    })
}

/// What a switch's report adds: nothing to do, or the file mcpctl created going.
fn note(changed: bool, want: Want, deleted: bool, dry_run: bool) -> Option<String> {
    match (changed, want) {
        (false, Want::Off) => Some("already disabled".to_owned()),
        (false, Want::On) => Some("not disabled".to_owned()),
        (true, _) if deleted => Some(format!(
            "file {}: mcpctl had created it, and it is empty again",
            if dry_run {
                "would be deleted"
            } else {
                "deleted"
            }
        )),
        (true, _) => None,
    }
}

/// The value of `field` in the object at `at` (`None`: absent).
pub(crate) fn member(
    doc: &dyn ConfigDoc,
    at: &[String],
    field: &str,
) -> anyhow::Result<Option<Value>> {
    find(doc, ServersAt::map(at), field)
}

/// The list after switching `name`: `None` = nothing to do; `Some(None)` = remove the
/// list (mcpctl created it and it is empty again); `Some(Some(list))` = write it.
fn list_next(
    current: Option<&Value>,
    name: &str,
    want: Want,
    memory: Option<&Memory>,
) -> Option<Option<Value>> {
    let mut names: Vec<Value> = current
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let listed = names.iter().any(|n| n == name);
    match want {
        Want::Off if listed => None,
        Want::Off => {
            names.push(Value::String(name.to_owned()));
            Some(Some(Value::Array(names)))
        }
        Want::On if !listed => None,
        Want::On => {
            names.retain(|n| n != name);
            match memory {
                Some(m) if m.before.is_none() && names.is_empty() => Some(None),
                Some(m) if m.before.as_ref().and_then(Value::as_array) == Some(&names) => {
                    Some(m.before.clone())
                }
                _ => Some(Some(Value::Array(names))),
            }
        }
    }
}
