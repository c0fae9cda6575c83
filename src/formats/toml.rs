//! Placeholder until the real implementation lands; see formats/mod.rs for the contract.

use super::{ConfigDoc, Edit, ParseError, Position, RawEntry, ShapeError};

pub(super) struct TomlDoc {
    text: String,
}

impl TomlDoc {
    pub(super) fn parse(text: &str) -> Result<Self, ParseError> {
        Ok(Self {
            text: text.to_owned(),
        })
    }
}

impl ConfigDoc for TomlDoc {
    fn servers(&self, _key: &[String]) -> Result<Vec<(String, RawEntry)>, ShapeError> {
        Ok(Vec::new())
    }
    fn upsert(
        &mut self,
        _key: &[String],
        _name: &str,
        _entry: &RawEntry,
    ) -> Result<Edit, ShapeError> {
        Ok(Edit::Unchanged)
    }
    fn remove(&mut self, _key: &[String], _name: &str) -> Result<Edit, ShapeError> {
        Ok(Edit::Unchanged)
    }
    fn render(&self) -> String {
        self.text.clone()
    }
    fn position(&self, _path: &[String]) -> Option<Position> {
        None
    }
}
