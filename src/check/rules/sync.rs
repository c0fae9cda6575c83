//! MCP6xx, sync: what `mcpctl plan --check` reports when a client file does not match the
//! manifest (`mcpctl.toml`). These rules are not run by the linter on a file alone; the
//! planner (`manifest::plan`) reports them through `check`'s renderers.

use crate::check::Severity;

use super::Rule;

pub const MISSING: Rule = Rule {
    code: "MCP601",
    name: "manifest-missing",
    severity: Severity::Error,
    fixable: false,
    title: "a server in the manifest is missing from this file",
    explanation: "`mcpctl plan --check` found a server that `mcpctl.toml` wants in this client's file, but the file does not have it: the manifest was edited without running `mcpctl apply`. Run `mcpctl apply` and commit the result.",
    example: "mcpctl apply",
};

pub const OUTDATED: Rule = Rule {
    code: "MCP602",
    name: "manifest-outdated",
    severity: Severity::Error,
    fixable: false,
    title: "an entry differs from what the manifest wants",
    explanation: "The entry is mcpctl's (the ledger has it as written), but `mcpctl.toml` now wants other content. Run `mcpctl apply` and commit the result.",
    example: "mcpctl apply",
};

pub const STALE: Rule = Rule {
    code: "MCP603",
    name: "manifest-stale",
    severity: Severity::Error,
    fixable: false,
    title: "an entry is no longer in the manifest",
    explanation: "mcpctl wrote this entry for `mcpctl.toml`, which no longer lists it (or, with `exclusive = true`, the manifest does not list it at all). `mcpctl apply` removes it.",
    example: "mcpctl apply",
};

pub const CONFLICT: Rule = Rule {
    code: "MCP604",
    name: "manifest-conflict",
    severity: Severity::Error,
    fixable: false,
    title: "a hand-made entry has a manifest server's name and other content",
    explanation: "mcpctl never replaces an entry it cannot prove it wrote. Make the entry match the manifest, rename one of them, or run `mcpctl apply --force` to let the manifest win. Without a ledger (a fresh checkout) every entry that differs from the manifest is reported this way.",
    example: "mcpctl apply --force",
};

pub const DRIFT: Rule = Rule {
    code: "MCP605",
    name: "manifest-drift",
    severity: Severity::Error,
    fixable: false,
    title: "an entry mcpctl wrote was edited by hand",
    explanation: "The entry no longer has the content mcpctl wrote, and differs from `mcpctl.toml`. Move the edit into the manifest and run `mcpctl apply`, or run `mcpctl apply --force` to put the manifest's version back. `mcpctl plan` shows the last written, current and wanted versions.",
    example: "mcpctl plan",
};

pub const SWITCH: Rule = Rule {
    code: "MCP606",
    name: "manifest-switch",
    severity: Severity::Error,
    fixable: false,
    title: "a server is on where the manifest wants it off, or off where it wants it on",
    explanation: "`mcpctl.toml` switches this server off (`enabled = false`, or a profile that does not list it) and the client has it on, or the other way round. `mcpctl apply` (with the same `--profile`) switches it through the client's own switch, or parks the entry's exact bytes in mcpctl's state directory where the client has none.",
    example: "mcpctl apply --profile NAME",
};
