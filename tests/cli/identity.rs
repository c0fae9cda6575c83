//! add then remove gives back the original bytes in the cases the first version missed.

use crate::env::TestEnv;

const CODEX: &str = ".codex/config.toml";

#[test]
fn toml_headers_of_other_entries_keep_their_spelling_and_no_final_newline_is_added() {
    let env = TestEnv::new();
    let text = "model = \"o3\"\n\n[ mcp_servers . \"a\" ]\ncommand = \"x\"\n\n[mcp_servers.b]\ncommand = \"y\"";
    env.write(CODEX, text.as_bytes());
    env.run(&["add", "c", "-c", "codex", "--", "npx", "-y", "pkg"])
        .ok();
    let added = env.read_str(CODEX);
    assert!(added.contains("[ mcp_servers . \"a\" ]\n"), "{added}");
    assert!(added.contains("\n[mcp_servers.b]\n"), "{added}");
    env.run(&["remove", "c", "-c", "codex"]).ok();
    assert_eq!(env.read_str(CODEX), text);
}
