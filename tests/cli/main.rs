//! Integration tests: run the built `mcpctl` binary against a temporary HOME, over
//! fixture configs that look like real ones, comparing bytes.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    reason = "tests fail loudly and write their own fixture files"
)]
mod add;
mod approval;
mod bridge;
mod budget;
mod check;
#[path = "../common/client_cli.rs"]
mod client_cli;
mod clients;
mod concurrency;
mod continue_dev;
mod docs;
mod doctor;
mod durability;
mod env;
mod errors;
mod faults;
mod first_hour;
#[path = "../common/fixture_server.rs"]
mod fixture_server;
mod golden;
mod goose;
mod habits;
mod here;
mod hostile_manifest;
mod hostile_registry;
mod identity;
mod import;
mod list;
mod lists;
mod loading;
mod lock;
mod login;
#[cfg(unix)] // openssl makes the document host's certificate; the browser is a script
mod login_oidc;
mod manifest;
mod odd_files;
mod output;
#[path = "../common/peer.rs"]
mod peer;
mod peers;
mod picker;
mod plan_output;
#[cfg(unix)] // every policy file is at its Linux system path (/etc/…)
mod policy;
mod policy_clients;
mod profiles;
mod read_as_client;
mod records;
mod registry;
mod registry_server;
mod remove;
mod rows;
mod secret_store;
mod secrets;
mod ship;
mod sources;
mod state;
mod teams;
#[cfg(unix)] // every recipe is a sh or bash script
mod teams_recipes;
mod toggle;
mod tools;
mod traps;
mod undo;
