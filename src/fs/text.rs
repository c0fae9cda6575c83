//! A file's text as read (`Source::text`): a `String`, or for a big file on Linux the
//! file's own pages (`map`), checked as UTF-8 once, shared without a copy, and copied
//! only when something edits the text itself (`make_mut`). Reads as a `&str`.

use std::ops::Deref;
#[cfg(target_os = "linux")]
use std::sync::Arc;

#[cfg(target_os = "linux")]
use super::map::Mapped;

/// Text read from a file; see the module.
#[derive(Clone, Default)]
pub struct Text(Repr);

#[derive(Clone)]
enum Repr {
    Owned(String),
    /// The bytes of the map from `from` on (past a BOM), checked as UTF-8 when read.
    #[cfg(target_os = "linux")]
    Mapped {
        map: Arc<Mapped>,
        from: usize,
    },
}

impl Default for Repr {
    fn default() -> Repr {
        Repr::Owned(String::new())
    }
}

impl Text {
    /// The text of `map` from byte `from` on, which the caller has checked is UTF-8.
    #[cfg(target_os = "linux")]
    pub(super) fn mapped(map: Mapped, from: usize) -> Text {
        Text(Repr::Mapped {
            map: Arc::new(map),
            from,
        })
    }

    /// The text as a `String` of its own (a copy when it is mapped).
    pub fn into_string(self) -> String {
        match self.0 {
            Repr::Owned(text) => text,
            #[cfg(target_os = "linux")]
            Repr::Mapped { .. } => String::from(&*self),
        }
    }

    /// The text to edit in place: a mapped one is copied into a `String` first.
    pub fn make_mut(&mut self) -> &mut String {
        #[cfg(target_os = "linux")]
        if let Repr::Mapped { .. } = self.0 {
            self.0 = Repr::Owned(String::from(&**self));
        }
        match &mut self.0 {
            Repr::Owned(text) => text,
            #[cfg(target_os = "linux")]
            Repr::Mapped { .. } => unreachable!("copied just above"),
        }
    }

    /// Whether the file was cut short while mapped (`map`): what this text says is then
    /// not what the file said, and nothing may be written from it.
    pub fn torn(&self) -> bool {
        match &self.0 {
            Repr::Owned(_) => false,
            #[cfg(target_os = "linux")]
            Repr::Mapped { map, .. } => map.torn(),
        }
    }

    /// Whether the text is the file's own pages (not a copy).
    pub fn is_mapped(&self) -> bool {
        !matches!(self.0, Repr::Owned(_))
    }
}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        match &self.0 {
            Repr::Owned(text) => text,
            #[cfg(target_os = "linux")]
            Repr::Mapped { map, from } => {
                let bytes = map.bytes().get(*from..).unwrap_or_default();
                // SAFETY: checked as UTF-8 from `from` on when it was read (`fs::read`);
                // a map torn since reads as zeros, which are UTF-8 too.
                unsafe { std::str::from_utf8_unchecked(bytes) }
            }
        }
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self
    }
}

impl From<String> for Text {
    fn from(text: String) -> Text {
        Text(Repr::Owned(text))
    }
}

impl From<&String> for Text {
    fn from(text: &String) -> Text {
        Text(Repr::Owned(text.clone()))
    }
}

impl From<std::borrow::Cow<'_, str>> for Text {
    fn from(text: std::borrow::Cow<'_, str>) -> Text {
        Text(Repr::Owned(text.into_owned()))
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Text {
        Text(Repr::Owned(text.to_owned()))
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        **self == **other
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        &**self == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        &**self == *other
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&**self, f)
    }
}
