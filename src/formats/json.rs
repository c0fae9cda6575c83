//! JSON and JSONC documents (placeholder; see formats/mod.rs for the contract).
