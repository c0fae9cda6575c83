//! TOML documents (placeholder; see formats/mod.rs for the contract).
