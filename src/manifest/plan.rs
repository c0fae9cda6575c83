//! The manifest planner: for every (client file, entry name) the manifest touches, one
//! action — add, update, remove, adopt, ok, conflict, drift (design §9) — with the edits
//! made to each file's document in memory. `plan` shows what it computed (`report`),
//! `apply` writes it, `profiles` costs it. Ownership comes from the ledger: only entries mcpctl can prove it
//! wrote for this manifest are updated or removed; hand-made entries are never touched
//! (they are `adopt` when identical, `conflict` otherwise), unless `--force`.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::cli::ManifestArgs;
use crate::clients::{Client, Location, Scope};
use crate::entry::{Dialect, ServerEntry, Transport};
use crate::error::UserError;
use crate::manifest::{ClientChoice, Manifest};
use crate::output::redact;
use crate::session::inventory::{Document, read_document};
use crate::session::{Context, edit, targets};
use crate::state::ledger::{self, HOUSEKEEPING_KEYS};
use crate::state::ledger::{Fingerprint, Record};
use crate::state::{EntryKey, Origin, Ownership};
use crate::toggle::{Method, Power, Probe, Want};

/// What the plan does with one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Add,
    Update,
    Remove,
    Adopt,
    Ok,
    Conflict,
    Drift,
    /// Switch the server on (the client's own switch, or put its parked bytes back).
    Enable,
    /// Switch the server off (the client's own switch, or park its exact bytes).
    Disable,
}

impl Action {
    pub(crate) fn sign(self) -> &'static str {
        match self {
            Action::Add => "+",
            Action::Update => "~",
            Action::Remove => "-",
            Action::Adopt => "=",
            Action::Ok => " ",
            Action::Conflict => "?",
            Action::Drift => "!",
            Action::Enable => "^",
            Action::Disable => "v",
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Action::Add => "add",
            Action::Update => "update",
            Action::Remove => "remove",
            Action::Adopt => "adopt",
            Action::Ok => "ok",
            Action::Conflict => "conflict",
            Action::Drift => "drift",
            Action::Enable => "enable",
            Action::Disable => "disable",
        }
    }

    /// In sync for `plan --check`.
    pub fn in_sync(self) -> bool {
        matches!(self, Action::Ok | Action::Adopt)
    }

    /// Stops `apply` unless `--force`.
    pub fn blocks(self) -> bool {
        matches!(self, Action::Conflict | Action::Drift)
    }

    pub(crate) fn code(self) -> &'static str {
        use crate::check::rules::sync;
        match self {
            Action::Add => sync::MISSING.code,
            Action::Update => sync::OUTDATED.code,
            Action::Remove => sync::STALE.code,
            Action::Conflict => sync::CONFLICT.code,
            Action::Enable | Action::Disable => sync::SWITCH.code,
            Action::Drift | Action::Ok | Action::Adopt => sync::DRIFT.code,
        }
    }
}

/// One row of the plan (`plan --json` item).
#[derive(Debug, Clone, Serialize)]
pub struct Item {
    pub client: String,
    pub scope: Scope,
    /// Absolute.
    pub path: PathBuf,
    pub name: String,
    pub action: Action,
    pub reason: Option<String>,
    /// The entry is not provably mcpctl's: the action happens only with `--force`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub needs_force: bool,
    #[serde(skip)]
    pub line: usize,
    #[serde(skip)]
    pub column: usize,
}

impl Item {
    /// Stops `apply` unless `--force`: a conflict, a drift, or an action on an entry
    /// mcpctl cannot prove it wrote.
    pub fn blocks(&self) -> bool {
        self.action.blocks() || self.needs_force
    }
}

/// Something a plan says beside its items: about a client, or about some of its entries
/// (`server`), or about the manifest. The report says each `text` once, naming every
/// client and entry it is about (issue 40: the same warning once per entry and client).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The client it is about (its id), if any.
    pub client: Option<String>,
    /// The entry it is about, if any.
    pub server: Option<String>,
    /// What is said, without the client and entry it is about.
    pub text: String,
}

impl Note {
    /// About `client` as a whole.
    pub fn client(client: &str, text: String) -> Note {
        Note {
            client: Some(client.to_owned()),
            server: None,
            text,
        }
    }

    /// About the entry `server` in `client`.
    pub fn entry(client: &str, server: &str, text: String) -> Note {
        Note {
            client: Some(client.to_owned()),
            server: Some(server.to_owned()),
            text,
        }
    }

    /// About neither (the text names what it is about).
    pub fn plain(text: String) -> Note {
        Note {
            client: None,
            server: None,
            text,
        }
    }
}

/// What to remember once a file is written.
#[derive(Debug, Clone)]
pub enum LedgerOp {
    /// mcpctl now owns this entry, as written (raw, in the client's spelling).
    Record {
        name: String,
        raw: Value,
        /// What the plan already knows of `raw` (see [`FilePlan::fingerprint`]).
        known: Known,
    },
    Forget {
        name: String,
    },
}

/// What the plan has already read of an entry it records, so that `apply` does not read
/// and fingerprint it a second time (6,000 entries for 2,000 servers in three files).
#[derive(Debug, Clone)]
pub enum Known {
    /// Nothing: `raw` is read with the client's dialect.
    Nothing,
    /// `raw` reads as the entry at this place in `FilePlan::rendered`.
    Rendered(usize),
    /// `raw`'s fingerprint.
    Fingerprint(Fingerprint),
}

/// The plan for one file, with the edits already made to the in-memory document.
pub struct FilePlan<'a> {
    pub client: &'a Client,
    pub location: Location,
    pub document: Document,
    /// The file's text before the edits.
    pub before: String,
    pub items: Vec<Item>,
    pub ledger: Vec<LedgerOp>,
    /// Literal secret values seen in this file's entries, redacted from diffs.
    pub secrets: Vec<String>,
    pub notes: Vec<Note>,
    /// Each manifest server this file gets, as rendered for its client (what `profiles`
    /// looks up measured token costs by).
    pub rendered: Vec<(String, ServerEntry)>,
    /// Servers to switch (`toggle::switch`) in this file: on before the file is written
    /// (a parked entry must be back first), off after (an added entry must be there).
    pub switches: Vec<(String, Want)>,
    /// What those switches change in other files (a dry run of each; a list of switched
    /// off servers kept beside the servers).
    pub switch_diffs: Vec<String>,
    /// The file's text once the switches are made too, when they change it: what `apply`
    /// leaves (the plan shows one diff per file, from its bytes now to these).
    pub switched: Option<String>,
    /// mcpctl's parked entries the manifest no longer lists: dropped from the record of
    /// parked entries (they are not in the file).
    pub drop_parked: Vec<EntryKey>,
    /// `new_text`, rendered on first use: the plan's document is final once planned, and
    /// `plan`, `apply`'s checks and its write all ask (a TOML document of 10,000 entries
    /// takes 80 ms to render).
    rendered_text: std::cell::OnceCell<Option<String>>,
}

impl FilePlan<'_> {
    /// The fingerprint of the entry a `LedgerOp::Record` records: what
    /// `ledger::fingerprint_raw` gives for `raw`, from what the plan read already where it
    /// can (`None`: `raw` does not read as a server).
    pub fn fingerprint(&self, raw: &Value, known: &Known) -> Option<Fingerprint> {
        match known {
            Known::Rendered(i) => self.rendered.get(*i).map(|(_, e)| ledger::fingerprint(e)),
            Known::Fingerprint(f) => Some(f.clone()),
            Known::Nothing => None,
        }
        .or_else(|| ledger::fingerprint_raw(&Dialect::of(self.client), raw))
    }

    /// The new text, when it differs from the file.
    pub fn new_text(&self) -> Option<&str> {
        self.rendered_text
            .get_or_init(|| {
                let text = self.document.doc.render();
                (text != self.before).then(|| text.into_owned())
            })
            .as_deref()
    }

    /// The file's text as `apply` leaves it, when that differs from the file.
    pub fn final_text(&self) -> Option<&str> {
        self.switched.as_deref().or_else(|| self.new_text())
    }

    /// One unified diff of the file, from its text now to [`FilePlan::final_text`], its
    /// headers naming it `label` (`--- a/LABEL`, `+++ b/LABEL`); then what switches change
    /// in other files. A secret is redacted, and a diff that redacts one loses its
    /// headers for a line that says so: a patch of it would write `<redacted>`.
    pub fn diff(&self, label: &str) -> Option<String> {
        let mut out = String::new();
        if let Some(after) = self.final_text() {
            let source = &self.document.source;
            let diff = edit::unified_diff(
                label,
                &source.text_for(&self.before),
                &source.text_for(after),
                source.exists(),
            );
            let redacted = crate::secrets::redact_values(&diff, &self.secrets);
            if redacted == diff {
                out = diff;
            } else {
                out.push_str(NOT_A_PATCH);
                out.push('\n');
                out.extend(
                    redacted
                        .split_inclusive('\n')
                        .skip_while(|l| l.starts_with("--- ") || l.starts_with("+++ ")),
                );
            }
        }
        for diff in &self.switch_diffs {
            out.push_str(&crate::secrets::redact_values(diff, &self.secrets));
        }
        (!out.is_empty()).then_some(out)
    }
}

/// What stands for a diff's headers when it redacts a secret.
pub const NOT_A_PATCH: &str =
    "(secrets redacted: this diff is to read, not a patch; `apply` writes the real values)";

/// Find, read and validate the manifest.
pub fn load(ctx: &Context, args: &ManifestArgs) -> anyhow::Result<Manifest> {
    let path = crate::manifest::locate(args.manifest.as_deref(), &ctx.project, &ctx.platform)?;
    let from_project =
        args.manifest.is_none() && path == ctx.project.join(crate::manifest::FILE_NAME);
    let source = crate::fs::read_source(&path).map_err(|e| UserError::new(e.to_string()))?;
    if !source.exists() {
        return Err(UserError::new(format!("no manifest at `{}`", path.display()))
            .hint(format!(
                "create it from what is installed with `mcpctl import --manifest {}` (its directory is created too), or name another with `--manifest FILE`",
                path.display()
            ))
            .into());
    }
    let mut manifest = Manifest::parse(&path, &source.text, &ctx.table)
        .map_err(|e| UserError::new(e.to_string()).hint("fix the manifest; nothing was changed"))?;
    manifest.from_project = from_project;
    if let Some(profile) = &args.profile
        && !manifest.profiles.contains_key(profile)
    {
        let names: Vec<&str> = manifest.profiles.keys().map(String::as_str).collect();
        let known = if names.is_empty() {
            "the manifest has no profiles".to_owned()
        } else {
            format!("profiles: {}", names.join(", "))
        };
        return Err(UserError::new(format!(
            "`{}` has no `[profiles.{profile}]`",
            path.display()
        ))
        .hint(
            match crate::suggest::closest(profile, names.iter().copied()) {
                Some(near) => format!("did you mean `{near}`? {known}"),
                None => known,
            },
        )
        .into());
    }
    Ok(manifest)
}

/// A project's own manifest (it came with the repository, like `.mcp.json`) writes only
/// project-scope files, unless the user trusts the folder by the rule `doctor` uses
/// (`trust::TrustRule::folder`: `--trust-project`, or a client that records the folder
/// as trusted). Anything else is refused with the commands that would allow it.
pub fn trust_gate(
    ctx: &Context,
    manifest: &Manifest,
    args: &ManifestArgs,
    verb: &str,
) -> anyhow::Result<()> {
    if !manifest.from_project || manifest.scope == Scope::Project {
        return Ok(());
    }
    let rule = crate::trust::TrustRule::new(&ctx.platform, &ctx.project, args.trust_project);
    if rule.folder(&ctx.table).allows_start() {
        return Ok(());
    }
    Err(UserError::new(format!(
        "`{}` is the project's own manifest (it came with the repository) and asks for {} scope: a project's manifest writes only project-scope files, unless you name it or trust the folder",
        manifest.path.display(),
        manifest.scope.as_str()
    ))
    .hint(format!(
        "if you trust this repository: `mcpctl {verb} --manifest {}` or `mcpctl {verb} --trust-project`; nothing was written",
        manifest.path.display()
    ))
    .into())
}

/// The files the manifest targets: each (file, servers key) once, with the clients that
/// read it (several clients share `.mcp.json`); the first renders.
fn target_files<'a>(
    ctx: &'a Context,
    manifest: &Manifest,
) -> anyhow::Result<Vec<(Vec<&'a Client>, Location)>> {
    let named: Vec<String> = manifest
        .named_clients()
        .into_iter()
        .map(str::to_owned)
        .collect();
    let explicit = targets::by_ids(ctx, &named)?;
    for client in &explicit {
        targets::writable(ctx, client)?;
    }
    let mut clients: Vec<&Client> = match &manifest.clients {
        ClientChoice::Ids(_) => Vec::new(),
        ClientChoice::Detected => targets::detected(ctx),
    };
    for client in &explicit {
        if !clients.iter().any(|c| c.id == client.id) {
            clients.push(client);
        }
    }
    let mut files: Vec<(Vec<&Client>, Location, PathBuf)> = Vec::new();
    for client in clients {
        let named = explicit.iter().any(|c| c.id == client.id);
        let Some(location) = client.location(manifest.scope, &ctx.platform, &ctx.project)? else {
            if named {
                return Err(UserError::new(format!(
                    "{} has no {} scope, but the manifest names it",
                    client.name,
                    manifest.scope.as_str()
                ))
                .hint("remove it from the manifest's `clients`, or change `scope`")
                .into());
            }
            continue;
        };
        let identity = crate::fs::identity(&location.path);
        match files
            .iter_mut()
            .find(|(_, l, id)| *id == identity && l.key == location.key)
        {
            Some((group, _, _)) => group.push(client),
            None => files.push((vec![client], location, identity)),
        }
    }
    Ok(files.into_iter().map(|(c, l, _)| (c, l)).collect())
}

/// Plan every targeted file. Any file that cannot be read or parsed is an error: the
/// whole plan stops (and `apply` writes nothing).
pub fn plan_all<'a>(
    ctx: &'a Context,
    manifest: &Manifest,
    profile: Option<&str>,
    force: bool,
) -> anyhow::Result<Vec<FilePlan<'a>>> {
    let mut plans = Vec::new();
    for (clients, location) in target_files(ctx, manifest)? {
        plans.push(plan_file(
            ctx, manifest, &clients, location, profile, force,
        )?);
    }
    Ok(plans)
}

/// One `[here]` line for one client: in sync, or the project-level switch `apply` makes.
pub struct HerePlan<'a> {
    pub client: &'a Client,
    pub want: Want,
    pub item: Item,
}

/// Plan the manifest's `[here]` for the project (`ctx.project`): per targeted client and
/// name, whether the client's own project-level switch already says it; notes for the
/// clients that have none (they are left alone, never parked). A project's own manifest
/// switches only inside the project: a client whose switch lives in a file outside it
/// (Claude Code's `~/.claude.json`) is left alone, with a note, unless the user trusts
/// the folder as [`trust_gate`] asks — the repository's file does not write the user's.
pub fn plan_here<'a>(
    ctx: &'a Context,
    manifest: &Manifest,
    args: &ManifestArgs,
) -> anyhow::Result<(Vec<HerePlan<'a>>, Vec<String>)> {
    let mut plans = Vec::new();
    let mut notes = Vec::new();
    if manifest.here.is_empty() {
        return Ok((plans, notes));
    }
    let mut ids: Vec<String> = manifest
        .named_clients()
        .into_iter()
        .map(str::to_owned)
        .collect();
    ids.extend(
        manifest
            .here
            .client
            .keys()
            .filter(|id| !ids.contains(id))
            .cloned()
            .collect::<Vec<_>>(),
    );
    let mut clients: Vec<&Client> = match &manifest.clients {
        ClientChoice::Ids(_) => Vec::new(),
        ClientChoice::Detected => targets::detected(ctx),
    };
    for client in targets::by_ids(ctx, &ids)? {
        if !clients.iter().any(|c| c.id == client.id) {
            clients.push(client);
        }
    }
    let mut trust = None;
    let mut trusted = || {
        *trust.get_or_insert_with(|| {
            crate::trust::TrustRule::new(&ctx.platform, &ctx.project, args.trust_project)
                .folder(&ctx.table)
                .allows_start()
        })
    };
    for client in clients {
        let wanted = manifest.here.wanted(&client.id);
        if wanted.is_empty() {
            continue;
        }
        let Some(here) = &client.here else {
            notes.push(format!(
                "{} has no project-level switch: `[here]` leaves it alone",
                client.name
            ));
            continue;
        };
        let (path, _) = crate::toggle::here::place(ctx, client, here, &ctx.project, false)?;
        if manifest.from_project && !path.starts_with(&ctx.project) && !trusted() {
            notes.push(format!(
                "{}'s switch for this project is in `{}`, outside the project: `{}` is the project's own manifest, so `[here]` leaves it alone; if you trust this repository: `--manifest {}` or `--trust-project`",
                client.name,
                path.display(),
                manifest.path.display(),
                manifest.path.display()
            ));
            continue;
        }
        for (name, off) in wanted {
            let state = crate::toggle::here::state(ctx, client, here, &ctx.project, false, &name);
            let in_sync = if off {
                state == Some(true)
            } else {
                state != Some(true)
            };
            let action = match (in_sync, off) {
                (true, _) => Action::Ok,
                (false, true) => Action::Disable,
                (false, false) => Action::Enable,
            };
            plans.push(HerePlan {
                client,
                want: if off { Want::Off } else { Want::On },
                item: Item {
                    client: client.id.clone(),
                    scope: Scope::Project,
                    path: path.clone(),
                    name: name.clone(),
                    action,
                    reason: Some(format!(
                        "[here] {}: {} in this project",
                        if off { "off" } else { "on" },
                        here.key
                    )),
                    needs_force: false,
                    line: 0,
                    column: 0,
                },
            });
        }
    }
    Ok((plans, notes))
}

/// One manifest server a file wants, and whether it is to be on.
#[derive(Debug)]
pub struct Wanted<'m> {
    pub name: &'m str,
    pub spec: &'m crate::manifest::ServerSpec,
    /// Switched on (by `--profile`, the manifest's `profile`, or the server's `enabled`).
    pub on: bool,
    /// Why on or off, for the plan's reasons.
    pub why: String,
}

/// The manifest's servers a file read by `clients` gets, in manifest order, each on or
/// off by `profile` (design §9: the top-level `clients`, narrowed per server).
pub fn wanted<'m>(
    manifest: &'m Manifest,
    clients: &[&Client],
    profile: Option<&str>,
) -> Vec<Wanted<'m>> {
    manifest
        .servers
        .iter()
        .filter(|(_, spec)| wanted_in(manifest, spec, clients))
        .map(|(name, spec)| {
            let on = manifest.switched_on(name, profile);
            Wanted {
                name,
                spec,
                on,
                why: switch_reason(manifest, name, profile, on),
            }
        })
        .collect()
}

/// What the plan does with an entry the manifest wants that is already in the file
/// (design §8): whose it is, from its ledger record and its fingerprint now, and whether
/// it already matches. With the ledger lost every entry is hand-made, so only an
/// identical one counts as owned (`adopt`), never an `update`. The reason is the
/// fixed part of the message; `plan_file` adds the entries' content.
pub fn ownership(
    record: Option<&Record>,
    now: Option<&Fingerprint>,
    matches: bool,
) -> (Action, Option<&'static str>) {
    let owner = match (record, now) {
        (Some(r), Some(now)) if r.fingerprint == *now => Ownership::Mcpctl,
        (Some(_), Some(_)) => Ownership::Edited,
        _ => Ownership::HandMade,
    };
    match (owner, matches) {
        (Ownership::HandMade, true) => (
            Action::Adopt,
            Some("identical hand-made entry: `apply` records it as mcpctl's, bytes untouched"),
        ),
        (_, true) => (Action::Ok, None),
        (Ownership::Mcpctl, false) => (Action::Update, None),
        (Ownership::Edited, false) => (
            Action::Drift,
            Some("edited by hand since mcpctl wrote or adopted it"),
        ),
        (Ownership::HandMade, false) => (
            Action::Conflict,
            Some("a hand-made entry with other content"),
        ),
    }
}

/// What the plan does with an entry in the file the manifest does not want (design §9):
/// only a record whose source is *this* manifest is pruned, and only while it is as
/// mcpctl wrote it (edited since: drift); entries from `add`, `copy`, the registry or
/// another manifest, and hand-made ones, are never touched, unless the manifest is
/// `exclusive`. `None`: not the plan's business.
pub fn prune(
    record: Option<&Record>,
    now: Option<&Fingerprint>,
    origin: &Origin,
    exclusive: bool,
) -> Option<(Action, &'static str)> {
    match record {
        Some(r) if r.source == *origin => Some(if now == Some(&r.fingerprint) {
            (Action::Remove, "no longer in the manifest")
        } else {
            (
                Action::Drift,
                "no longer in the manifest, but edited by hand since mcpctl wrote or adopted it",
            )
        }),
        _ if exclusive => Some((
            Action::Remove,
            "not in the manifest, which is exclusive, but not mcpctl's (made by hand or by another source): removed only with --force",
        )),
        _ => None,
    }
}

/// [`prune`] for an entry `disable` parked (cut out of the file, its bytes in the state
/// directory): the same rule, on the parked bytes' fingerprint; `exclusive` does not
/// reach into the state directory.
pub fn prune_parked(
    record: &Record,
    parked: Option<&Fingerprint>,
    origin: &Origin,
) -> Option<(Action, &'static str)> {
    if record.source != *origin {
        return None;
    }
    Some(if parked == Some(&record.fingerprint) {
        (
            Action::Remove,
            "no longer in the manifest; its parked bytes are dropped",
        )
    } else {
        (
            Action::Drift,
            "no longer in the manifest, but edited by hand before it was parked",
        )
    })
}

/// The order switches run in: every `on` before any `off` (an entry switched off may
/// have been added by this plan, so it must be written first), and parked entries come
/// back in the reverse order they were parked: each one's splice was recorded in the
/// text the later ones left, so that is where it fits exactly. `parked_at` is the
/// position of a name among the parked entries.
pub fn switch_order(switches: &mut [(String, Want)], parked_at: &dyn Fn(&str) -> Option<usize>) {
    switches.sort_by_key(|(name, want)| (*want == Want::Off, std::cmp::Reverse(parked_at(name))));
}

/// Whether the manifest wants server `spec` in a file read by `clients`.
fn wanted_in(manifest: &Manifest, spec: &crate::manifest::ServerSpec, clients: &[&Client]) -> bool {
    clients.iter().any(|c| {
        let top = match &manifest.clients {
            ClientChoice::Detected => true,
            ClientChoice::Ids(ids) => ids.contains(&c.id),
        };
        let narrowed = spec.clients.as_ref().is_none_or(|ids| ids.contains(&c.id));
        top && narrowed
    })
}

/// Plan one file (re-run by `apply` when the file changed under it).
pub fn plan_file<'a>(
    ctx: &Context,
    manifest: &Manifest,
    clients: &[&'a Client],
    location: Location,
    profile: Option<&str>,
    force: bool,
) -> anyhow::Result<FilePlan<'a>> {
    let client = clients[0];
    let document = read_document(ctx, client, &location.path)?;
    let before = document.doc.render().into_owned();
    let current = document
        .doc
        .servers(location.at())
        .map_err(|e| crate::session::inventory::shape_error(&location.path, &e))?;
    let identity = crate::fs::identity(&location.path);
    let probe = Probe::new(ctx)?;
    let mut plan = FilePlan::empty(client, &location, before, &document)?;
    for (_, raw) in &current {
        collect_secrets(raw, &mut plan.secrets);
    }
    let mut planner = Planner {
        ctx,
        manifest,
        client,
        force,
        dialect: Dialect::of(client),
        origin: Origin::manifest(&manifest.path),
        // The administrator's policy files, read once for the file's entries (not once
        // per entry: opening them was 19 M instructions and 6,000 reads for 2,000
        // servers in three files).
        policies: crate::policy::read::load(client, &ctx.platform),
        current: &current,
        // Look-ups per entry are hash look-ups: a manifest may list thousands of servers.
        in_file: current.iter().map(|(n, raw)| (n.as_str(), raw)).collect(),
        parked_here: parked_in(&probe, &identity, &location),
        positions: Positions::of(&document, &location),
        probe: &probe,
        identity,
        location,
        document,
        wanted_names: BTreeSet::new(),
        filled: None,
        added: Vec::new(),
        wanted_on: Vec::new(),
        held: std::cell::OnceCell::new(),
        plan,
    };
    let wanted = wanted(manifest, clients, profile);
    planner.wanted_on = wanted
        .iter()
        .filter(|w| w.on)
        .map(|w| w.name.to_owned())
        .collect();
    for wanted in wanted {
        planner.want(wanted)?;
    }
    planner.add_new()?;
    planner.unwanted()?;
    planner.parked_leftovers()?;
    planner.forget_gone()?;
    planner.switches();
    Ok(planner.finish())
}

impl<'a> FilePlan<'a> {
    /// A plan with nothing in it yet; its document is the file's once planned.
    fn empty(
        client: &'a Client,
        location: &Location,
        before: String,
        document: &Document,
    ) -> anyhow::Result<FilePlan<'a>> {
        Ok(FilePlan {
            client,
            location: location.clone(),
            before,
            items: Vec::new(),
            ledger: Vec::new(),
            secrets: Vec::new(),
            notes: Vec::new(),
            rendered: Vec::new(),
            switches: Vec::new(),
            switch_diffs: Vec::new(),
            switched: None,
            drop_parked: Vec::new(),
            rendered_text: std::cell::OnceCell::new(),
            document: Document {
                source: document.source.clone(),
                doc: client.format.parse(String::new())?,
            },
        })
    }
}

/// The entries `disable` parked from this file (and servers key), each by its first
/// place among the parked entries.
fn parked_in<'r>(
    probe: &'r Probe<'_>,
    identity: &Path,
    location: &Location,
) -> HashMap<&'r str, usize> {
    let mut parked_here = HashMap::new();
    for (i, p) in probe.parked().iter().enumerate() {
        if p.entry.path == identity && p.entry.key == location.key {
            parked_here.entry(p.entry.name.as_str()).or_insert(i);
        }
    }
    parked_here
}

/// Where each entry is written in the file as read (what `plan --check` annotations
/// point at), found in one pass; an entry not in the file points at the servers map.
struct Positions {
    entries: HashMap<String, (usize, usize)>,
    map: (usize, usize),
}

impl Positions {
    fn of(document: &Document, location: &Location) -> Positions {
        let (map_at, entries_at) = document.doc.entry_positions(location.at());
        Positions {
            entries: entries_at
                .into_iter()
                .map(|(name, p)| (name, (p.line, p.column)))
                .collect(),
            map: map_at.map_or((1, 1), |p| (p.line, p.column)),
        }
    }

    fn at(&self, name: &str) -> (usize, usize) {
        self.entries.get(name).copied().unwrap_or(self.map)
    }
}

/// A manifest server as this file's client spells it.
struct Rendered<'w> {
    name: &'w str,
    /// To be switched on.
    on: bool,
    /// Why on or off.
    why: &'w str,
    /// The entry in the client's spelling.
    raw: Value,
    /// Where `raw`, read back, is kept in `FilePlan::rendered` (`None`: it does not read
    /// as a server, so it matches nothing).
    read: Option<usize>,
    /// Where its item points.
    at: (usize, usize),
}

/// What planning one file needs as it goes: the file as read, what the manifest wants
/// of it so far, and the plan being built (`plan_file` runs its steps in order).
struct Planner<'r, 'a> {
    ctx: &'r Context,
    manifest: &'r Manifest,
    /// The client that renders (the first of those that read the file).
    client: &'a Client,
    force: bool,
    dialect: Dialect<'a>,
    /// This manifest, as the ledger names a source.
    origin: Origin,
    policies: crate::policy::read::Loaded,
    /// The entries in the file as read.
    current: &'r [(String, crate::formats::RawEntry)],
    in_file: HashMap<&'r str, &'r Value>,
    probe: &'r Probe<'r>,
    parked_here: HashMap<&'r str, usize>,
    positions: Positions,
    /// The file's identity (symlinks followed), as the ledger and the parked store key it.
    identity: PathBuf,
    location: Location,
    /// The file's document, edited as planned.
    document: Document,
    /// The manifest's servers this file gets (and those parked here it wants).
    wanted_names: BTreeSet<String>,
    /// `{home}` and `{project}`, found at the first entry that needs them (a plan of no
    /// entry needs no home).
    filled: Option<Placeholders>,
    /// The ledger's records of the entries to add (written after the wanted servers,
    /// `add_new`).
    added: Vec<usize>,
    /// The manifest's servers this file wants on, in manifest order (what the budget's
    /// hold-off weighs together).
    wanted_on: Vec<String>,
    /// The servers the budget keeps off, with why: decided once for the file, over every
    /// server it wants on that is off now (`hold`).
    held: std::cell::OnceCell<HashMap<String, String>>,
    plan: FilePlan<'a>,
}

impl<'r, 'a> Planner<'r, 'a> {
    fn push(&mut self, name: &str, action: Action, reason: Option<String>, at: (usize, usize)) {
        self.plan.items.push(Item {
            client: self.client.id.clone(),
            scope: self.location.scope,
            path: self.location.path.clone(),
            name: name.to_owned(),
            action,
            reason,
            needs_force: false,
            line: at.0,
            column: at.1,
        });
    }

    /// One server the manifest wants in this file: rendered for the client, then
    /// compared with its entry in the file, or its parked bytes, or their absence.
    fn want(&mut self, wanted: Wanted<'_>) -> anyhow::Result<()> {
        let Wanted {
            name,
            spec,
            on,
            why,
        } = wanted;
        let resolved = self.registry_entry(name, spec)?;
        let portable = resolved.as_ref().unwrap_or(&spec.entry);
        if !self.client.supports(portable.transport.name()) {
            self.plan.notes.push(Note::entry(
                &self.client.id,
                name,
                format!(
                    "{} cannot use {} servers: left out of its file",
                    self.client.name,
                    portable.transport.name().as_str()
                ),
            ));
            return Ok(());
        }
        self.wanted_names.insert(name.to_owned());
        let (raw, read) = self.render(name, spec, portable)?;
        let wanted = Rendered {
            name,
            on,
            why: &why,
            raw,
            read,
            at: self.positions.at(name),
        };
        match self.in_file.get(name).copied() {
            None if self.parked_here.contains_key(name) => self.parked(&wanted),
            None => self.absent(wanted),
            Some(existing) => self.present(wanted, existing)?,
        }
        Ok(())
    }

    /// A registry server's entry for this client (`None` for a server the manifest
    /// spells out); the variables it reads that the manifest does not fill are a note.
    fn registry_entry(
        &mut self,
        name: &str,
        spec: &crate::manifest::ServerSpec,
    ) -> anyhow::Result<Option<ServerEntry>> {
        let Some((server, version)) = &spec.registry else {
            return Ok(None);
        };
        let client = self.client;
        let (entry, mut exports) = from_registry(self.ctx, client, server, version)
            .map_err(|e| e.context(format!("server `{name}` for {}", client.name)))?;
        // A variable the manifest fills from the store is not for the user to export.
        exports.retain(|v| !spec.secrets.iter().any(|s| s.var == *v));
        if !exports.is_empty() {
            let them = if exports.len() == 1 { "it" } else { "them" };
            // The launcher sets a stdio server's variables from the store.
            let store = if matches!(entry.transport, crate::entry::Transport::Stdio { .. }) {
                format!(
                    "fill {them} from mcpctl's store with `secrets = {{ {} }}` on the server (and `mcpctl secret set NAME`), or ",
                    exports
                        .iter()
                        .map(|v| format!("{v} = \"{}\"", v.to_ascii_lowercase().replace('_', "-")))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            } else {
                String::new()
            };
            let set = match self.ctx.platform.os {
                crate::platform::Os::Windows => format!(
                    "set {them} ({}) before starting the client",
                    exports
                        .iter()
                        .map(|v| self.ctx.platform.os.set_var_command(v))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                _ => format!("export {them} before starting the client"),
            };
            self.plan.notes.push(Note::entry(
                &client.id,
                name,
                format!("reads {}; {store}{set}", exports.join(", ")),
            ));
        }
        Ok(Some(entry))
    }

    /// The entry as the client's file spells it, with the notes rendering makes, and
    /// where its reading is kept in `plan.rendered`.
    fn render(
        &mut self,
        name: &str,
        spec: &crate::manifest::ServerSpec,
        portable: &ServerEntry,
    ) -> anyhow::Result<(Value, Option<usize>)> {
        let (ctx, client) = (self.ctx, self.client);
        let fill = match &mut self.filled {
            Some(fill) => fill,
            empty @ None => empty.insert(Placeholders::new(ctx)?),
        };
        let entry = fill.fill(portable);
        // `secrets = {…}`: the launcher (or bridge) form `add --secret` writes. The store
        // holds each person's own values; one not set here is said, not a failure: the
        // entry can be written before the value is set.
        let entry = crate::session::write::secret_form(ctx, entry, &spec.secrets)?;
        // `login`: the bridge with the sign-in `mcpctl login` keeps; one this machine has
        // not made yet is said the same way.
        let entry = match &spec.login {
            Some(label) => {
                let entry = crate::session::write::login_form(ctx, entry, label)?;
                let secret = crate::oauth::secret_name(label);
                if ctx.secret_store().backend_of(&secret).is_none() {
                    self.plan.notes.push(Note::entry(&client.id, name, format!(
                        "the sign-in `{secret}` is not on this machine: {} (the entry is written; the server answers 401 until then)",
                        if label == name {
                            format!("run `mcpctl login {name}`")
                        } else {
                            format!("sign in with `mcpctl login {label}` where a server is named `{label}`, or write `login = true` to use `mcpctl login {name}`")
                        }
                    )));
                }
                entry
            }
            None => entry,
        };
        for secret in crate::session::write::unset_secrets(ctx, &entry.transport) {
            self.plan.notes.push(Note::entry(
                &client.id,
                name,
                format!(
                    "secret `{secret}` is not set on this machine: run `mcpctl secret set {secret}` (written anyway; the server cannot start until then)"
                ),
            ));
        }
        // A VS Code prompt in the manifest is a variable everywhere else.
        let (entry, prompts) = crate::entry::render::for_client_inputs(&entry, client);
        for (id, variable) in prompts {
            self.plan.notes.push(Note::entry(
                &client.id,
                name,
                format!(
                    "`${{input:{id}}}` is a VS Code prompt; written as `${{{variable}}}` instead: set it where {} runs",
                    client.name
                ),
            ));
        }
        let (rendered, mut wanted, notes) =
            crate::entry::render::render(ctx.platform.os, client, &entry, false)
                .map_err(|e| e.context(format!("server `{name}` for {}", client.name)))?;
        // An administrator's policy keeps it out of this client: apply would write an
        // entry the client refuses to load.
        crate::session::write::refuse_blocked_by(&self.policies, client, name, &rendered)?;
        // A note about the client, not the entry (Goose and `${VAR}`), is said once per
        // file, not once per entry.
        for note in notes {
            let note = Note::client(&client.id, note);
            if !self.plan.notes.contains(&note) {
                self.plan.notes.push(note);
            }
        }
        if let (Some(fields), Value::Object(map)) =
            (spec.client_fields.get(&client.id), &mut wanted)
        {
            for (k, v) in fields {
                map.insert(k.clone(), v.clone());
            }
        }
        collect_secrets(&wanted, &mut self.plan.secrets);
        // Each entry is read once (`read_raw` is a large part of a plan in sync): the
        // wanted one is kept in `rendered`, and compared from there.
        let read = match self.dialect.read_raw(&wanted) {
            Ok(entry) => {
                self.plan.rendered.push((name.to_owned(), entry));
                Some(self.plan.rendered.len() - 1)
            }
            Err(_) => None,
        };
        Ok((wanted, read))
    }

    /// Why a server the manifest wants on stays off: switching it on, with the others
    /// switched on beside it, would put the client over the manifest's `[budget]`, and
    /// `apply`'s cut would switch it off again.
    fn held_off(&self, wanted: &Rendered<'_>) -> Option<String> {
        self.held
            .get_or_init(|| self.hold())
            .get(wanted.name)
            .cloned()
    }

    /// The servers this file wants on that are off now (parked here, or in the file and
    /// switched off), each as it would come back, weighed together by [`holds_off`].
    fn hold(&self) -> HashMap<String, String> {
        let off: Vec<(&str, Value)> = self
            .wanted_on
            .iter()
            .filter_map(|name| {
                let raw = match self.in_file.get(name.as_str()) {
                    Some(existing) => {
                        (self
                            .probe
                            .power(self.client, &self.location, name, existing)
                            != Power::On)
                            .then(|| (*existing).clone())?
                    }
                    None => self
                        .probe
                        .parked()
                        .get(*self.parked_here.get(name.as_str())?)?
                        .raw
                        .clone(),
                };
                Some((name.as_str(), raw))
            })
            .collect();
        if off.is_empty() {
            return HashMap::new();
        }
        let off: Vec<(&str, ServerEntry, Value)> = off
            .into_iter()
            .filter_map(|(name, raw)| Some((name, self.dialect.read_raw(&raw).ok()?, raw)))
            .collect();
        holds_off(self.ctx, self.manifest, self.client, &off)
    }

    /// Parked by `disable` (or a previous profile): its bytes wait in the state
    /// directory. Off is in sync; on puts the same bytes back (and the next plan compares
    /// their content).
    fn parked(&mut self, wanted: &Rendered<'_>) {
        let Rendered {
            name, on, why, at, ..
        } = *wanted;
        if let (true, Some(held)) = (on, self.held_off(wanted)) {
            self.push(name, Action::Ok, Some(format!("parked; {held}")), at);
        } else if on {
            self.plan.switches.push((name.to_owned(), Want::On));
            self.push(name, Action::Enable, Some(format!("parked; {why}")), at);
        } else {
            self.push(name, Action::Ok, None, at);
        }
    }

    /// Not in the file: added (then switched off when it is to be off), or, in a client
    /// without a switch, left out while off.
    fn absent(&mut self, wanted: Rendered<'_>) {
        let Rendered {
            name,
            on,
            why,
            raw,
            read,
            at,
        } = wanted;
        if !on && crate::toggle::method(self.client, self.location.scope) == Method::Park {
            // No switch in this client: off is not being in the file, and there are
            // no bytes to park. It is written when a profile switches it on.
            self.push(
                name,
                Action::Ok,
                Some(format!("off, not written ({why})")),
                at,
            );
            return;
        }
        // Where the client's defaults add no field, `raw` is still the entry that
        // was read into `rendered`.
        let fields = raw.as_object().map(serde_json::Map::len);
        let raw = self.dialect.with_defaults(raw, name);
        let known = match read {
            Some(i) if raw.as_object().map(serde_json::Map::len) == fields => Known::Rendered(i),
            _ => Known::Nothing,
        };
        self.added.push(self.plan.ledger.len());
        self.plan.ledger.push(LedgerOp::Record {
            name: name.to_owned(),
            raw,
            known,
        });
        // Added, then switched off by the client's own switch, the way `disable` does
        // it: switching profiles back and forth then gives the same bytes every time.
        let reason = (!on).then(|| {
            self.plan.switches.push((name.to_owned(), Want::Off));
            format!("then switched off: {why}")
        });
        self.push(name, Action::Add, reason, at);
    }

    /// In the file: whose it is and whether it matches (`ownership`), rewritten when it
    /// is mcpctl's and out of date (or with `--force`), switched when it is on and to be
    /// off or the other way round, and recorded as mcpctl's when the plan owns it now.
    fn present(&mut self, wanted: Rendered<'_>, existing: &Value) -> anyhow::Result<()> {
        let name = wanted.name;
        let key = edit::entry_key_at(&self.identity, &self.location, name);
        let existing_entry = self.dialect.read_raw(existing);
        let matches = self.matches(name, existing_entry.as_ref().ok(), wanted.read);
        let record = self.ctx.state.lookup(&key)?;
        let now = existing_entry.as_ref().ok().map(ledger::fingerprint);
        let (action, why_action) = ownership(record.as_ref(), now.as_ref(), matches);
        let reason = action_reason(
            &self.dialect,
            action,
            why_action,
            (existing, &wanted.raw),
            self.ctx.platform.os,
        );
        let writes = action == Action::Update || (self.force && action.blocks());
        let (action, reason) = self.switch_present(&wanted, existing, action, reason, writes);
        if writes {
            let merged = self
                .dialect
                .with_defaults(keep_housekeeping(existing, wanted.raw), name);
            self.document
                .doc
                .upsert(self.location.at(), name, &merged)?;
            self.plan.ledger.push(LedgerOp::Record {
                name: name.to_owned(),
                raw: merged,
                known: Known::Nothing,
            });
        } else if !action.blocks() && record.is_none_or(|r| r.source != self.origin) {
            self.plan.ledger.push(LedgerOp::Record {
                name: name.to_owned(),
                raw: existing.clone(),
                known: now.clone().map_or(Known::Nothing, Known::Fingerprint),
            });
        }
        self.push(name, action, reason, wanted.at);
        Ok(())
    }

    /// Whether the entry in the file (`now`, as read) is the server wanted (kept at
    /// `read` in `plan.rendered`).
    fn matches(&mut self, name: &str, now: Option<&ServerEntry>, read: Option<usize>) -> bool {
        let client = self.client;
        match (now, read.map(|i| &self.plan.rendered[i].1)) {
            // A launcher or bridge entry is the same whichever mcpctl binary starts it
            // (a project file written on a teammate's machine); one that is not here
            // would not start, so say so.
            (Some(now), Some(want)) => {
                let same = now.same_server(want);
                if same
                    && let Some(program) = crate::entry::launcher::program_of(&now.transport)
                    && !std::path::Path::new(program).is_file()
                {
                    self.plan.notes.push(Note::entry(&client.id, name, format!(
                        "starts mcpctl at `{program}`, which is not on this machine: the client cannot start it here (`mcpctl remove {name} -c {}` then `mcpctl apply` writes this mcpctl's path)",
                        client.id
                    )));
                }
                same
            }
            _ => false,
        }
    }

    /// The action on an entry in the file, once the switch is decided: an entry that is
    /// on and to be off (or the other way round) is switched, if the plan may touch it.
    fn switch_present(
        &mut self,
        wanted: &Rendered<'_>,
        existing: &Value,
        action: Action,
        reason: Option<String>,
        writes: bool,
    ) -> (Action, Option<String>) {
        let Rendered { name, on, why, .. } = *wanted;
        let off_now = self
            .probe
            .power(self.client, &self.location, name, existing)
            != Power::On;
        if !(on == off_now && (writes || !action.blocks())) {
            return (action, reason);
        }
        if let (true, Some(held), Action::Ok | Action::Adopt) = (on, self.held_off(wanted), action)
        {
            return (action, Some(held));
        }
        self.plan
            .switches
            .push((name.to_owned(), if on { Want::On } else { Want::Off }));
        let switched = if on { Action::Enable } else { Action::Disable };
        match action {
            Action::Ok | Action::Adopt => (switched, Some(why.to_owned())),
            _ => (
                action,
                Some(format!(
                    "{}; then switched {}: {why}",
                    reason.unwrap_or_default(),
                    if on { "on" } else { "off" }
                )),
            ),
        }
    }

    /// The new entries, written in one batch (`add_all`) once every wanted server is
    /// planned: the same text as one `upsert` each where they were found missing, since
    /// new entries go after the last one whatever is updated in place meanwhile.
    fn add_new(&mut self) -> anyhow::Result<()> {
        let adds: Vec<(&str, &crate::formats::RawEntry)> = self
            .added
            .iter()
            .filter_map(|&i| match &self.plan.ledger[i] {
                LedgerOp::Record { name, raw, .. } => Some((name.as_str(), raw)),
                LedgerOp::Forget { .. } => None,
            })
            .collect();
        self.document.doc.add_all(self.location.at(), &adds)?;
        Ok(())
    }

    /// Entries in the file the manifest does not want (`prune`): removed when they are
    /// this manifest's and unchanged, or with `--force`; reported either way.
    fn unwanted(&mut self) -> anyhow::Result<()> {
        let current = self.current;
        for (name, existing) in current {
            if self.wanted_names.contains(name) {
                continue;
            }
            // A project's override of a server from another scope (`{"enabled": false}`
            // alone, `disable --here`, `[here]`) is a switch, not a server of this file.
            let overrides = self.client.here.as_ref().is_some_and(|h| {
                h.kind == crate::clients::HereKind::Field && self.location.scope == Scope::Project
            });
            if overrides && crate::entry::is_override(self.client, existing) {
                continue;
            }
            let key = edit::entry_key_at(&self.identity, &self.location, name);
            let record = self.ctx.state.lookup(&key)?;
            let now = ledger::fingerprint_raw(&self.dialect, existing);
            let at = self.positions.at(name);
            let Some((action, reason)) = prune(
                record.as_ref(),
                now.as_ref(),
                &self.origin,
                self.manifest.exclusive,
            ) else {
                continue;
            };
            let reason = Some(reason.to_owned());
            // mcpctl cannot prove it wrote an entry another source recorded, or none did:
            // only `--force` removes it.
            let needs_force = record.as_ref().is_none_or(|r| r.source != self.origin);
            if (action == Action::Remove && !needs_force) || self.force {
                self.document.doc.remove(self.location.at(), name)?;
                self.plan
                    .ledger
                    .push(LedgerOp::Forget { name: name.clone() });
            }
            self.push(name, action, reason, at);
            if let Some(item) = self.plan.items.last_mut() {
                item.needs_force = needs_force;
            }
        }
        Ok(())
    }

    /// Parked entries of this manifest's servers it no longer lists (`prune_parked`).
    fn parked_leftovers(&mut self) -> anyhow::Result<()> {
        let probe = self.probe;
        let leftovers: Vec<_> = probe
            .parked()
            .iter()
            .filter(|p| {
                p.entry.path == self.identity
                    && p.entry.key == self.location.key
                    && !self.wanted_names.contains(&p.entry.name)
                    && !self.in_file.contains_key(p.entry.name.as_str())
            })
            .collect();
        for parked in leftovers {
            let Some(record) = self.ctx.state.lookup(&parked.entry)? else {
                continue;
            };
            let now = ledger::fingerprint_raw(&self.dialect, &parked.raw);
            let Some((action, reason)) = prune_parked(&record, now.as_ref(), &self.origin) else {
                continue;
            };
            let name = &parked.entry.name;
            let at = self.positions.at(name);
            if action == Action::Remove || self.force {
                self.plan.drop_parked.push(parked.entry.clone());
                self.plan
                    .ledger
                    .push(LedgerOp::Forget { name: name.clone() });
            }
            self.push(name, action, Some(reason.to_owned()), at);
        }
        Ok(())
    }

    /// Records of this manifest whose entries are gone (deleted by hand): forgotten.
    /// Parked entries are not gone: `enable` brings them back as mcpctl's.
    fn forget_gone(&mut self) -> anyhow::Result<()> {
        let (in_file, wanted_names, parked_here) =
            (&self.in_file, &self.wanted_names, &self.parked_here);
        let (key, identity, origin) = (&self.location.key, &self.identity, &self.origin);
        // (Cheapest first: every file's plan looks at every record.)
        let gone = self.ctx.state.records(&|r| {
            !in_file.contains_key(r.entry.name.as_str())
                && !wanted_names.contains(&r.entry.name)
                && r.entry.key == *key
                && r.entry.path == *identity
                && r.source == *origin
                && !parked_here.contains_key(r.entry.name.as_str())
        })?;
        for record in gone {
            self.plan.ledger.push(LedgerOp::Forget {
                name: record.entry.name,
            });
        }
        Ok(())
    }

    /// The switches in the order they run (`switch_order`), each made in a dry run on
    /// the text this plan writes (`Context::planned`), one after the other, as `apply`
    /// makes them after its write: the file's text once they are made is
    /// `plan.switched`, and what they change in other files is `plan.switch_diffs`.
    fn switches(&mut self) {
        let parked_here = &self.parked_here;
        let parked_at = |name: &str| parked_here.get(name).copied();
        switch_order(&mut self.plan.switches, &parked_at);
        if self.plan.switches.is_empty() {
            return;
        }
        let path = self.location.path.clone();
        let planned = self.document.doc.render().into_owned();
        self.ctx.plan_text(&path, Some(planned.clone()));
        for (name, want) in &self.plan.switches {
            match crate::toggle::switch(self.ctx, self.client, &self.location, name, *want, true) {
                Ok(done) if done.path == path => {}
                Ok(done) => self.plan.switch_diffs.extend(done.diff),
                Err(e) => self.plan.notes.push(Note::entry(
                    &self.client.id,
                    name,
                    format!(
                        "switching it {} will fail: {e:#}",
                        if *want == Want::On { "on" } else { "off" }
                    ),
                )),
            }
        }
        let switched = self.ctx.planned_text(&path).filter(|text| *text != planned);
        self.ctx.plan_text(&path, None);
        // A parked entry put back brings its own values: redacted like the file's.
        if let Some(text) = &switched
            && let Ok(doc) = self.client.format.parse(text.clone())
        {
            self.plan.secrets.extend(edit::secret_values(
                self.client,
                doc.as_ref(),
                self.location.at(),
            ));
        }
        self.plan.switched = switched;
    }

    /// The plan, with the document as planned.
    fn finish(self) -> FilePlan<'a> {
        let mut plan = self.plan;
        plan.document = self.document;
        // A file another tool owns (a link into the Nix store): `apply` will refuse it.
        if plan.new_text().is_some()
            && let Some(foreign) = crate::fs::owner::foreign(&plan.location.path)
        {
            plan.notes.push(Note::plain(format!(
                "{foreign}: `apply` will not write it; {}",
                foreign.hint()
            )));
        }
        plan
    }
}

/// Which of the servers the manifest wants on but finds off (`off`: name, entry, the
/// bytes that would come back) stay off, with why: switched on together they would put
/// `client` over the manifest's budget, and the cut `apply` makes would switch some off
/// again (a client with no tool filter loses whole servers). Weighed together, not one
/// at a time: the costliest are kept off first (ties by name) until the rest fit beside
/// what the client loads now, so every one kept off is needed (taking the largest first,
/// any one put back would bring the total over) and the next plan keeps the same ones
/// off. A server the budget keeps, one never measured, a total not measured, or a client
/// without a budget: nothing kept off.
fn holds_off(
    ctx: &Context,
    manifest: &Manifest,
    client: &Client,
    off: &[(&str, ServerEntry, Value)],
) -> HashMap<String, String> {
    let mut held = HashMap::new();
    if client.tool_filter.is_some() {
        return held;
    }
    let Some((max, keep)) = manifest.budget.as_ref().and_then(|b| b.of(&client.id)) else {
        return held;
    };
    let keep = crate::budget::cut::Keep::parse(&keep);
    let lock = crate::lock::path_for(Some(&manifest.path), ctx.state.root());
    let Ok(locked) = crate::budget::locked(lock.as_deref()) else {
        return held;
    };
    let Some(loaded) = crate::budget::count_with(ctx, &[client], &locked, true)
        .first()
        .map_or(Some(0), |c| c.tokens)
    else {
        return held;
    };
    // What each costs once on; the kept ones come on whatever it costs.
    let mut total = loaded;
    let mut candidates: Vec<(&str, usize)> = Vec::new();
    for (name, entry, raw) in off {
        let Some(cost) = crate::budget::would_cost(ctx, client, name, entry, raw, &locked) else {
            continue;
        };
        total += cost;
        if !keep.touches(name) {
            candidates.push((name, cost));
        }
    }
    candidates.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let mut kept_off: Vec<(&str, usize)> = Vec::new();
    for (name, cost) in candidates {
        if total <= max {
            break;
        }
        total -= cost;
        kept_off.push((name, cost));
    }
    // `total` is now what the client loads once the others are on.
    for (name, cost) in kept_off {
        held.insert(
            name.to_owned(),
            format!(
                "kept off by the budget: its {} tokens would bring {} to {}, over {}",
                crate::budget::cut::thousands(cost),
                client.id,
                crate::budget::cut::thousands(total + cost),
                crate::budget::cut::thousands(max)
            ),
        );
    }
    held
}

/// The reason of an item for an entry in the file, from `ownership`'s fixed part and the
/// entries' content.
/// How to set a variable is said the way `os` sets one.
fn action_reason(
    dialect: &Dialect<'_>,
    action: Action,
    why: Option<&'static str>,
    (existing, wanted): (&Value, &Value),
    os: crate::platform::Os,
) -> Option<String> {
    match action {
        Action::Update => Some(update_reason(dialect, existing, wanted, os)),
        Action::Drift => why.map(|w| {
            format!(
                "{w}; now {}, wanted {}",
                redacted_json(existing, dialect),
                redacted_json(wanted, dialect)
            )
        }),
        Action::Conflict => why.map(|w| {
            format!(
                "{w}: {}; wanted {}",
                redacted_json(existing, dialect),
                redacted_json(wanted, dialect)
            )
        }),
        _ => why.map(str::to_owned),
    }
}

/// Why a manifest server is wanted on or off (for the plan's reasons).
fn switch_reason(manifest: &Manifest, name: &str, profile: Option<&str>, on: bool) -> String {
    match (profile.or(manifest.profile.as_deref()), on) {
        (Some(p), true) => format!("in profile `{p}`"),
        (Some(p), false) => format!("not in profile `{p}`"),
        (None, true) => "enabled in the manifest".to_owned(),
        (None, false) => format!("`enabled = false` for `{name}` in the manifest"),
    }
}

/// A `registry = "NAME@VERSION"` server rendered for one client, exactly as
/// `mcpctl add NAME@VERSION` renders it (no inputs given: secrets become `${VAR}`
/// references, optional inputs are left out, a required input without a default is an
/// error), plus the variables the user must export. The registry is `MCPCTL_REGISTRY` or
/// the official one; answers come from the registry cache when offline.
fn from_registry(
    ctx: &Context,
    client: &Client,
    server: &str,
    version: &str,
) -> anyhow::Result<(ServerEntry, Vec<String>)> {
    let args = crate::cli::RegistryArgs {
        registry: ctx.platform.var("MCPCTL_REGISTRY").map(str::to_owned),
    };
    let registry = crate::session::registry::registry_for(ctx, &args, None);
    let resolved = crate::registry::resolve(
        &registry,
        server,
        Some(version),
        crate::registry::mapping::Preference::Auto,
        &crate::registry::inputs::Given::default(),
        &|t| client.supports(t),
    )
    .map_err(crate::registry::resolve_error)?;
    let exports = resolved
        .exports
        .iter()
        .map(|e| e.variable.clone())
        .collect();
    Ok((resolved.entry, exports))
}

/// `{home}` and `{project}` in a portable entry's command, args, env and cwd.
pub(crate) fn placeholders(ctx: &Context, entry: &ServerEntry) -> anyhow::Result<ServerEntry> {
    Ok(Placeholders::new(ctx)?.fill(entry))
}

/// What `{home}` and `{project}` stand for, found once for all the entries of a plan.
pub(crate) struct Placeholders {
    home: String,
    project: String,
}

impl Placeholders {
    pub(crate) fn new(ctx: &Context) -> anyhow::Result<Placeholders> {
        Ok(Placeholders {
            home: ctx.platform.home()?.display().to_string(),
            project: ctx.project.display().to_string(),
        })
    }

    /// [`placeholders`] with these values.
    pub(crate) fn fill(&self, entry: &ServerEntry) -> ServerEntry {
        let Placeholders { home, project } = self;
        let fill = |s: &mut String| {
            if s.contains('{') {
                *s = s.replace("{home}", home).replace("{project}", project);
            }
        };
        let mut entry = entry.clone();
        if let Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } = &mut entry.transport
        {
            fill(command);
            args.iter_mut().for_each(fill);
            env.values_mut().for_each(fill);
            cwd.iter_mut().for_each(fill);
        }
        entry
    }
}

/// The wanted entry, keeping the client's housekeeping fields (switches, approvals,
/// timeouts) from the entry it replaces, unless the manifest sets them.
fn keep_housekeeping(existing: &Value, wanted: Value) -> Value {
    let (Value::Object(old), Value::Object(mut new)) = (existing, wanted.clone()) else {
        return wanted;
    };
    for (k, v) in old {
        if HOUSEKEEPING_KEYS.contains(&k.as_str()) && !new.contains_key(k) {
            new.insert(k.clone(), v.clone());
        }
    }
    Value::Object(new)
}

/// Why an entry of mcpctl's is updated: a literal secret moving to a reference says so.
fn update_reason(
    dialect: &Dialect<'_>,
    existing: &Value,
    wanted: &Value,
    os: crate::platform::Os,
) -> String {
    let values = |raw: &Value| match dialect.read_raw(raw).map(|e| e.transport) {
        Ok(Transport::Stdio { env, .. }) => env,
        Ok(Transport::Remote { headers, .. }) => headers,
        Err(_) => crate::entry::StringMap::new(),
    };
    let (old, new) = (values(existing), values(wanted));
    let reference = |v: &str| crate::vars::sole_reference(v.strip_prefix("Bearer ").unwrap_or(v));
    let moved: Vec<String> = new
        .iter()
        .filter(|(k, _)| old.get(*k).is_some_and(|o| redact(o) != *o))
        .filter_map(|(_, v)| reference(v))
        .collect();
    if moved.is_empty() {
        "the manifest wants other content".to_owned()
    } else {
        let set = match os {
            crate::platform::Os::Windows => format!(
                "set {} first",
                moved
                    .iter()
                    .map(|n| os.set_var_command(n))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => format!("export {} first", moved.join(", ")),
        };
        format!(
            "secret moves to {}; {set}",
            moved
                .iter()
                .map(|n| format!("`${{{n}}}`"))
                .collect::<Vec<_>>()
                .join(", "),
        )
    }
}

fn redacted_json(raw: &Value, dialect: &Dialect<'_>) -> String {
    crate::output::redact_raw(raw, dialect.fields).to_string()
}

/// Literal values of env and header maps (what `redact` would hide).
fn collect_secrets(raw: &Value, out: &mut Vec<String>) {
    let Value::Object(map) = raw else {
        return;
    };
    for key in ["env", "environment", "headers", "http_headers"] {
        if let Some(Value::Object(values)) = map.get(key) {
            for v in values.values().filter_map(Value::as_str) {
                // Not deduplicated here (a linear search per value made a plan
                // quadratic in the servers): `redact_values` does it.
                if v.len() >= 4 && redact(v) != v {
                    out.push(v.to_owned());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::ClientTable;
    use crate::state::Created;

    fn fp(text: &str) -> Fingerprint {
        serde_json::from_value(Value::String(format!("sha256:{text}"))).unwrap()
    }

    fn record(source: &Origin, written: &str) -> Record {
        Record {
            entry: EntryKey {
                path: PathBuf::from("/home/u/.cursor/mcp.json"),
                key: vec!["mcpServers".to_owned()],
                name: "memory".to_owned(),
            },
            fingerprint: fp(written),
            source: source.clone(),
            created: Created::default(),
            time: "2026-12-01T00:00:00Z".to_owned(),
        }
    }

    fn this() -> Origin {
        Origin::manifest(std::path::Path::new("/home/u/.config/mcpctl/mcpctl.toml"))
    }

    /// Design §8: mcpctl's (recorded, unchanged), edited by hand (recorded, changed),
    /// hand-made (not recorded, or not fingerprintable); the ledger lost makes every
    /// entry hand-made, so nothing is updated, only an identical entry adopted.
    #[test]
    fn ownership_follows_the_ledger_and_losing_it_makes_mcpctl_careful() {
        let ours = record(&this(), "a");
        let by_add = record(&Origin::add(), "a");
        let cases: &[(Option<&Record>, Option<&str>, bool, Action)] = &[
            // (record, fingerprint now, matches the manifest) -> action
            (Some(&ours), Some("a"), true, Action::Ok),
            (Some(&ours), Some("a"), false, Action::Update),
            (Some(&ours), Some("b"), true, Action::Ok),
            (Some(&ours), Some("b"), false, Action::Drift),
            (Some(&by_add), Some("a"), false, Action::Update),
            (Some(&by_add), Some("b"), false, Action::Drift),
            (Some(&ours), None, false, Action::Conflict),
            (Some(&ours), None, true, Action::Adopt),
            // No record: hand-made, or the ledger was lost.
            (None, Some("a"), true, Action::Adopt),
            (None, Some("a"), false, Action::Conflict),
            (None, None, false, Action::Conflict),
        ];
        for (record, now, matches, want) in cases {
            let now = now.map(fp);
            let (action, reason) = ownership(*record, now.as_ref(), *matches);
            assert_eq!(
                action,
                *want,
                "record {:?}, now {now:?}, matches {matches}",
                record.map(|r| r.source.as_str())
            );
            assert!(!action.blocks() || reason.is_some(), "{action:?} says why");
            assert_eq!(
                action == Action::Update,
                reason.is_none() && !action.in_sync()
            );
        }
    }

    /// Design §9: apply removes only records whose source is *this* manifest, and only
    /// while they are as mcpctl wrote them; `exclusive` makes every other entry `remove`.
    #[test]
    fn prune_removes_only_this_manifests_unchanged_entries() {
        let ours = record(&this(), "a");
        let other_manifest = record(
            &Origin::manifest(std::path::Path::new("/work/team/mcpctl.toml")),
            "a",
        );
        let by_add = record(&Origin::add(), "a");
        let by_copy = record(&Origin::copy(), "a");
        let by_registry = record(&Origin::registry("io.github.x/y", "1.0.0"), "a");
        type Case<'r> = (Option<&'r Record>, Option<&'r str>, bool, Option<Action>);
        let cases: &[Case<'_>] = &[
            // (record, fingerprint now, exclusive) -> action
            (Some(&ours), Some("a"), false, Some(Action::Remove)),
            (Some(&ours), Some("b"), false, Some(Action::Drift)),
            (Some(&ours), None, false, Some(Action::Drift)),
            (Some(&ours), Some("b"), true, Some(Action::Drift)),
            (Some(&other_manifest), Some("a"), false, None),
            (Some(&by_add), Some("a"), false, None),
            (Some(&by_copy), Some("a"), false, None),
            (Some(&by_registry), Some("a"), false, None),
            (None, Some("a"), false, None),
            (Some(&by_add), Some("a"), true, Some(Action::Remove)),
            (None, Some("a"), true, Some(Action::Remove)),
        ];
        for (record, now, exclusive, want) in cases {
            let now = now.map(fp);
            let got = prune(*record, now.as_ref(), &this(), *exclusive).map(|(a, _)| a);
            assert_eq!(
                got,
                *want,
                "record {:?}, now {now:?}, exclusive {exclusive}",
                record.map(|r| r.source.as_str())
            );
        }
        // Parked entries: the same rule on the parked bytes; exclusive does not apply.
        assert_eq!(
            prune_parked(&ours, Some(&fp("a")), &this()).map(|(a, _)| a),
            Some(Action::Remove)
        );
        assert_eq!(
            prune_parked(&ours, Some(&fp("b")), &this()).map(|(a, _)| a),
            Some(Action::Drift)
        );
        assert_eq!(prune_parked(&by_add, Some(&fp("a")), &this()), None);
    }

    #[test]
    fn switches_on_run_first_and_parked_entries_return_in_reverse() {
        let parked = ["first", "second", "third"];
        let at = |name: &str| parked.iter().position(|p| *p == name);
        let mut switches = vec![
            ("off".to_owned(), Want::Off),
            ("first".to_owned(), Want::On),
            ("new".to_owned(), Want::On),
            ("third".to_owned(), Want::On),
            ("second".to_owned(), Want::On),
        ];
        switch_order(&mut switches, &at);
        let names: Vec<&str> = switches.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["third", "second", "first", "new", "off"]);
    }

    #[test]
    fn wanted_narrows_by_client_and_switches_by_profile() {
        let table = ClientTable::builtin().unwrap();
        let manifest = Manifest::parse(
            std::path::Path::new("/p/mcpctl.toml"),
            r#"clients = ["cursor", "codex"]

[servers.memory]
command = "npx"

[servers.docs]
url = "https://docs.example.com/mcp"
clients = ["cursor"]

[servers.quiet]
command = "quiet"
enabled = false

[profiles.small]
servers = ["docs"]
"#,
            &table,
        )
        .unwrap();
        let names = |client: &str, profile: Option<&str>| -> Vec<(String, bool)> {
            wanted(&manifest, &[table.get(client).unwrap()], profile)
                .into_iter()
                .map(|w| (w.name.to_owned(), w.on))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect()
        };
        let own = |v: &[(&str, bool)]| -> Vec<(String, bool)> {
            let mut v: Vec<(String, bool)> =
                v.iter().map(|(n, on)| ((*n).to_owned(), *on)).collect();
            v.sort();
            v
        };
        assert_eq!(
            names("cursor", None),
            own(&[("memory", true), ("docs", true), ("quiet", false)])
        );
        assert_eq!(
            names("codex", None),
            own(&[("memory", true), ("quiet", false)])
        );
        assert_eq!(
            names("cursor", Some("small")),
            own(&[("memory", false), ("docs", true), ("quiet", false)])
        );
        assert!(
            names("vscode", None).is_empty(),
            "not a client of the manifest"
        );
        let why = wanted(&manifest, &[table.get("cursor").unwrap()], Some("small"));
        let memory = why.iter().find(|w| w.name == "memory").unwrap();
        assert_eq!(memory.why, "not in profile `small`");
    }
}
