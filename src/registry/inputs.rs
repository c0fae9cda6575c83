//! Where each input's value comes from, in order: the command line (or the values an
//! earlier install recorded), the publisher's default, a variable reference for a secret,
//! a prompt, else "missing". Secrets are never asked for and never written as values.
//! Prompting itself is the caller's closure; this module only decides.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::mapping::{Answer, Ask, InputKey, InputKind};

/// Values the user gave (`--env`, `--header`, `--var`) or an install recorded, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Given(pub Vec<GivenValue>);

/// One given value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GivenValue {
    pub kind: InputKind,
    pub name: String,
    pub value: String,
}

impl Given {
    /// Every value for `key`, in order (repeated inputs take several).
    pub fn get(&self, key: &InputKey) -> Vec<String> {
        self.0
            .iter()
            .filter(|g| g.kind == key.kind && g.name == key.name)
            .map(|g| g.value.clone())
            .collect()
    }

    pub fn push(&mut self, kind: InputKind, name: &str, value: &str) {
        self.0.push(GivenValue {
            kind,
            name: name.to_owned(),
            value: value.to_owned(),
        });
    }
}

/// A variable the entry reads a secret from, for the user to fill: from mcpctl's store
/// (`--secret`, `{secret:NAME}`) or by exporting it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Export {
    pub variable: String,
    /// For: "environment variable `TOKEN`".
    pub what: String,
    pub description: Option<String>,
    /// The flag that fills it from the store instead (`--secret TOKEN=token`), `None`
    /// when the store cannot (a variable inside a publisher's template).
    #[serde(skip)]
    pub store: Option<StoreFill>,
}

/// How one secret input is filled from mcpctl's store: `mcpctl secret set NAME`, then
/// the flag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreFill {
    pub secret: String,
    pub flag: String,
    /// An environment variable (the launcher sets it) or a header (the bridge fills it).
    pub kind: InputKind,
    /// The variable or header name.
    pub field: String,
    /// The variable the entry refers to until then (`${VARIABLE}`).
    pub variable: String,
}

/// The store's answer for a secret input: an environment variable is set by the launcher
/// (`--secret VAR=NAME`), a header is filled by the bridge (`--header
/// 'H=Bearer {secret:NAME}'`); a template variable has no store form.
pub fn store_fill(ask: &Ask) -> Option<StoreFill> {
    let secret = ask.variable.to_ascii_lowercase().replace('_', "-");
    let flag = match ask.key.kind {
        InputKind::Env => format!("--secret {}={secret}", ask.key.name),
        InputKind::Header => {
            let value = ask.reference.replace(
                &format!("${{{}}}", ask.variable),
                &format!("{{secret:{secret}}}"),
            );
            format!("--header '{}={value}'", ask.key.name)
        }
        InputKind::Var => return None,
    };
    Some(StoreFill {
        secret,
        flag,
        kind: ask.key.kind,
        field: ask.key.name.clone(),
        variable: ask.variable.clone(),
    })
}

/// Fill `transport`'s secret inputs `stored` from the store instead of the environment:
/// a header's `${VARIABLE}` becomes `{secret:NAME}` (the bridge fills it); an environment
/// variable becomes a `--secret VAR=NAME` pair for the launcher, returned (the caller
/// writes the launcher form). Only inputs this entry reads are filled.
pub fn fill_from_store(
    transport: &mut crate::entry::Transport,
    stored: &[StoreFill],
) -> Vec<crate::entry::launcher::EnvSecret> {
    use crate::entry::Transport;
    let reference = |fill: &StoreFill| format!("${{{}}}", fill.variable);
    let mut pairs = Vec::new();
    for fill in stored {
        match (fill.kind, &mut *transport) {
            (InputKind::Env, Transport::Stdio { env, .. }) => {
                if env.get(&fill.field).is_some_and(|v| *v == reference(fill))
                    && let Ok(pair) =
                        crate::entry::launcher::EnvSecret::new(&fill.field, &fill.secret)
                {
                    pairs.push(pair);
                }
            }
            (InputKind::Header, Transport::Remote { headers, .. }) => {
                if let Some(value) = headers.get_mut(&fill.field)
                    && value.contains(&reference(fill))
                {
                    *value =
                        value.replace(&reference(fill), &format!("{{secret:{}}}", fill.secret));
                }
            }
            _ => {}
        }
    }
    pairs
}

/// Prompts for a required, non-secret input; `Ok(None)` when it cannot ask.
pub type Prompt<'a> = Box<dyn FnMut(&Ask) -> anyhow::Result<Option<String>> + 'a>;

/// Answers `mapping::render`'s questions and remembers what it did.
pub struct Resolver<'a> {
    given: &'a Given,
    prompt: Option<Prompt<'a>>,
    /// Given or prompted values that were used (recorded for `update`).
    pub used: Given,
    pub exports: Vec<Export>,
    /// Required inputs without a value: "what (description): pass FLAG".
    pub missing: Vec<String>,
    /// Literal secrets and values outside `choices`: refused.
    pub refused: Vec<String>,
    /// Optional inputs left out: "what: add FLAG".
    pub optional: Vec<String>,
    /// Keys a form asked about (to find given values nobody used).
    pub asked: Vec<InputKey>,
}

/// Whether a value refers to a variable, or names a secret in mcpctl's store
/// (`{secret:NAME}`, `Bearer {secret:NAME}`), instead of holding the secret itself.
pub fn is_reference(value: &str) -> bool {
    !crate::vars::references(value).is_empty()
        || (value.contains("{secret:") && crate::vars::is_reference(value))
}

impl<'a> Resolver<'a> {
    pub fn new(given: &'a Given, prompt: Option<Prompt<'a>>) -> Resolver<'a> {
        Resolver {
            given,
            prompt,
            used: Given::default(),
            exports: Vec::new(),
            missing: Vec::new(),
            refused: Vec::new(),
            optional: Vec::new(),
            asked: Vec::new(),
        }
    }

    fn described(ask: &Ask) -> String {
        match ask.description {
            Some(d) if !d.trim().is_empty() => format!("{} ({})", ask.what, super::clean(d)),
            _ => ask.what.clone(),
        }
    }

    pub fn answer(&mut self, ask: &Ask) -> Answer {
        if !self.asked.contains(&ask.key) {
            self.asked.push(ask.key.clone());
        }
        let given = self.given.get(&ask.key);
        if !given.is_empty() {
            let mut ok = true;
            for value in &given {
                if ask.secret && !is_reference(value) {
                    self.refused.push(match store_fill(ask) {
                        Some(fill) => format!(
                            "{} is a secret and is never written into a config file: keep it in mcpctl's store (`mcpctl secret set {}`) and pass `{}`",
                            ask.what, fill.secret, fill.flag
                        ),
                        None => format!(
                            "{} is a secret and is never written into a config file: export it and pass `{}`",
                            ask.what,
                            ask.key.flag(&format!("'{}'", ask.reference))
                        ),
                    });
                    ok = false;
                } else if let Some(why) = misfit(ask.format, value) {
                    self.refused
                        .push(format!("{} is `{value}`, {why}", ask.what));
                    ok = false;
                } else if !ask.choices.is_empty() && !ask.choices.contains(value) {
                    self.refused.push(format!(
                        "{} is `{value}`; it must be one of {}",
                        ask.what,
                        ask.choices.join(", ")
                    ));
                    ok = false;
                }
            }
            if !ok {
                return Answer::Missing;
            }
            for value in &given {
                self.used.push(ask.key.kind, &ask.key.name, value);
            }
            let values = if ask.repeated {
                given
            } else {
                given.into_iter().last().into_iter().collect()
            };
            return Answer::Values(values);
        }
        if let Some(default) = ask.default
            && (ask.required || ask.templated)
        {
            return Answer::Values(vec![default.to_owned()]);
        }
        if ask.secret {
            if ask.required {
                if !self.exports.iter().any(|e| e.variable == ask.variable) {
                    self.exports.push(Export {
                        variable: ask.variable.clone(),
                        what: ask.what.clone(),
                        description: ask.description.map(super::clean),
                        store: store_fill(ask),
                    });
                }
                return Answer::Values(vec![ask.reference.clone()]);
            }
            self.optional.push(match store_fill(ask) {
                Some(fill) => format!(
                    "{}: add `{}` (after `mcpctl secret set {}`)",
                    Self::described(ask),
                    fill.flag,
                    fill.secret
                ),
                None => format!(
                    "{}: add `{}`",
                    Self::described(ask),
                    ask.key.flag(&format!("'{}'", ask.reference))
                ),
            });
            return Answer::Omit;
        }
        if !ask.required {
            self.optional.push(format!(
                "{}: add `{}`",
                Self::described(ask),
                ask.key.flag("VALUE")
            ));
            return Answer::Omit;
        }
        if let Some(prompt) = self.prompt.as_mut() {
            match prompt(ask) {
                Ok(Some(value)) if !value.is_empty() => {
                    self.used.push(ask.key.kind, &ask.key.name, &value);
                    return Answer::Values(vec![value]);
                }
                Ok(_) => {}
                Err(e) => {
                    self.missing
                        .push(format!("{} (prompt failed: {e})", Self::described(ask)));
                    return Answer::Missing;
                }
            }
        }
        let choices = if ask.choices.is_empty() {
            String::new()
        } else {
            format!(", one of {}", ask.choices.join(", "))
        };
        self.missing.push(format!(
            "{}: pass `{}`{choices}",
            Self::described(ask),
            ask.key.flag("VALUE")
        ));
        Answer::Missing
    }
}

/// Why `value` does not fit the input's `format` (references always fit).
fn misfit(format: Option<&str>, value: &str) -> Option<&'static str> {
    if is_reference(value) {
        return None;
    }
    match format {
        Some("number") if value.trim().parse::<f64>().is_err() => Some("not a number"),
        Some("boolean") if !matches!(value, "true" | "false") => {
            Some("it must be `true` or `false`")
        }
        _ => None,
    }
}

/// Given values for inputs no form asked about, by kind.
pub fn unasked(given: &Given, asked: &[InputKey]) -> IndexMap<InputKind, Vec<(String, String)>> {
    let mut out: IndexMap<InputKind, Vec<(String, String)>> = IndexMap::new();
    for g in &given.0 {
        let key = InputKey {
            kind: g.kind,
            name: g.name.clone(),
        };
        if !asked.contains(&key) {
            out.entry(g.kind)
                .or_default()
                .push((g.name.clone(), g.value.clone()));
        }
    }
    out
}
