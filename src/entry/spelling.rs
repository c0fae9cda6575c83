//! The entry vocabulary: every key and `type` value any client uses for a field mcpctl
//! models, in one place. Reading (`Dialect::read_raw`), linting (`check`), `--fix`,
//! `add --from-json` and redaction all ask this module, so a spelling added here is
//! understood everywhere at once.
//!
//! Which spelling a given client *writes* is its table row (`fields.url_key`, `env_key`,
//! ...); this module is the union that reading tolerates. A client with a new spelling
//! (Goose's `cmd`, `envs`, `uri`) is its `clients.toml` row plus, at most, the new words in
//! these lists.

/// The key holding the transport marker (`"type": "http"`) in most clients.
pub const TYPE_KEY: &str = "type";
#[cfg(test)]
/// Every spelling of the transport marker's key (Mistral Vibe, Rovo Dev: `transport`).
pub const TYPE_KEYS: &[&str] = &["type", "transport"];

/// Every spelling of the program to start.
pub const COMMAND_KEYS: &[&str] = &["command", "cmd"];
/// Every spelling of the program's arguments.
pub const ARGS_KEYS: &[&str] = &["args"];
/// Every spelling of a remote URL.
pub const URL_KEYS: &[&str] = &["url", "serverUrl", "httpUrl", "uri"];
/// URL keys that mean Streamable HTTP whatever `type` says (Gemini CLI, Qwen Code).
pub const HTTP_URL_KEYS: &[&str] = &["httpUrl"];
/// Every spelling of the environment map.
pub const ENV_KEYS: &[&str] = &["env", "environment", "envs"];
/// Every spelling of the HTTP header map.
pub const HEADER_KEYS: &[&str] = &["headers", "http_headers"];
/// Every spelling of the working directory.
pub const CWD_KEYS: &[&str] = &["cwd", "working_directory"];

/// `type` values that mark a local (stdio) server.
pub const STDIO_TYPES: &[&str] = &["stdio", "local"];
/// `type` values that mark a Streamable HTTP server.
pub const HTTP_TYPES: &[&str] = &[
    "http",
    "streamableHttp",
    "streamable-http",
    "streamable_http",
    "remote",
];
/// `type` values that mark a legacy HTTP+SSE server.
pub const SSE_TYPES: &[&str] = &["sse"];
/// `type` values of entries that run inside the client rather than as a server (Goose's
/// `builtin` and `platform` extensions, its `frontend` tools and `inline_python` code):
/// listed, never started, never edited.
pub const BUILTIN_TYPES: &[&str] = &["builtin", "platform", "frontend", "inline_python"];

/// Keys under which some client keeps its servers map (`--from-json` snippets, MCP205).
pub const SERVERS_KEYS: &[&str] = &[
    "mcpServers",
    "servers",
    "mcp",
    "context_servers",
    "mcp_servers",
    "amp.mcpServers",
];

/// Keys of entries that are not servers of their own: on/off switches for servers
/// configured elsewhere (OpenCode `{"enabled": false}`) and extension-provided servers
/// (Zed `{"source": "extension", "settings": {...}}`).
pub const TOGGLE_KEYS: &[&str] = &["enabled", "disabled", "settings", "source"];

/// Every spelling of a per-entry startup timeout: how long the client waits for the
/// server to start and list its tools, with the factor that turns the value into seconds
/// (Codex `startup_timeout_sec`, a float, or `startup_timeout_ms`). A client honours the
/// keys its table row lists in `extra_keys`. `timeout` is not here: where clients have it
/// (Gemini CLI, Cline, Roo Code) it bounds each request, not the start.
pub const STARTUP_TIMEOUT_KEYS: &[(&str, f64)] =
    &[("startup_timeout_sec", 1.0), ("startup_timeout_ms", 0.001)];

/// Codex's pass-through fields: names of variables passed from the client's environment.
pub const PASSTHROUGH_ENV_KEY: &str = "env_vars";
/// Goose's pass-through field: names of variables Goose takes from its environment (or
/// its keyring) into a server's env, and into its header values' `${VAR}`.
pub const GOOSE_ENV_KEYS: &str = "env_keys";
/// Codex: header name → variable name.
pub const PASSTHROUGH_HEADERS_KEY: &str = "env_http_headers";
/// Codex: the variable holding an `Authorization: Bearer` token.
pub const PASSTHROUGH_BEARER_KEY: &str = "bearer_token_env_var";

/// Whether `key` spells one of a server's secret-bearing maps (env, headers, and Codex's
/// header pass-through), whose values are redacted in messages.
pub fn is_secret_map(key: &str) -> bool {
    ENV_KEYS.contains(&key) || HEADER_KEYS.contains(&key) || key == PASSTHROUGH_HEADERS_KEY
}

/// Whether `key` spells a command.
pub fn is_command(key: &str) -> bool {
    COMMAND_KEYS.contains(&key)
}

/// Whether `key` spells a remote URL.
pub fn is_url(key: &str) -> bool {
    URL_KEYS.contains(&key)
}

/// Whether `value` is a `type` value some client uses for a transport.
pub fn is_known_type(value: &str) -> bool {
    STDIO_TYPES.contains(&value) || HTTP_TYPES.contains(&value) || SSE_TYPES.contains(&value)
}

/// Whether an object with these keys describes a server (has a command or a URL).
pub fn looks_like_entry<'k>(mut keys: impl Iterator<Item = &'k str>) -> bool {
    keys.any(|k| is_command(k) || is_url(k))
}

/// The spellings of the same field as `key` (`url` → every URL key), or `None` when
/// `key` is not a modelled field.
pub fn synonyms(key: &str) -> Option<&'static [&'static str]> {
    [
        COMMAND_KEYS,
        ARGS_KEYS,
        URL_KEYS,
        ENV_KEYS,
        HEADER_KEYS,
        CWD_KEYS,
    ]
    .into_iter()
    .find(|group| group.contains(&key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_disjoint_and_synonyms_find_them() {
        assert_eq!(synonyms("serverUrl"), Some(URL_KEYS));
        assert_eq!(synonyms("environment"), Some(ENV_KEYS));
        assert_eq!(synonyms("disabled"), None);
        assert!(is_secret_map("http_headers") && is_secret_map("env_http_headers"));
        assert!(!is_secret_map("args"));
        assert!(is_known_type("streamable-http") && !is_known_type("websocket"));
        assert!(looks_like_entry(["disabled", "httpUrl"].into_iter()));
        // Goose's spellings.
        assert_eq!(synonyms("cmd"), Some(COMMAND_KEYS));
        assert_eq!(synonyms("uri"), Some(URL_KEYS));
        assert!(is_secret_map("envs"));
    }
}
