//! `continue`: the servers Continue loads besides the file mcpctl writes. The source's
//! path is Continue's folder (`~/.continue`); from it Continue reads `config.yaml`, whose
//! `mcpServers` is a YAML *list* of entries named by `name`, and every file in
//! `mcpServers/` (YAML blocks with the same list, or Claude-style JSON/JSONC with an
//! `mcpServers` map). The project's `.continue/mcpServers/` is read the same way and is the
//! repository's choice, not the user's. `mcpctl.json` in either folder is mcpctl's own
//! file (the client row's path), so it is skipped here.
//! Source: continuedev/continue `core/context/mcp/json/loadJsonMcpConfigs.ts` and the MCP
//! deep-dive in its docs.

use std::path::{Path, PathBuf};

use super::{Chooser, Env, Origin, SourceEntry, SourceRead, manage_text};
use crate::clients::ReadOnlySource;
use crate::formats::{Format, ServersAt};

/// mcpctl's own file in a `mcpServers/` folder.
const MINE: &str = "mcpctl.json";

pub(super) fn read(source: &ReadOnlySource, dir: &Path, env: &Env<'_>, out: &mut SourceRead) {
    read_file(source, &dir.join("config.yaml"), Chooser::User, out);
    read_folder(source, &dir.join("mcpServers"), Chooser::User, out);
    let project = env.project.join(".continue").join("mcpServers");
    if project != dir.join("mcpServers") {
        read_folder(source, &project, Chooser::Project, out);
    }
}

fn read_folder(source: &ReadOnlySource, folder: &Path, chooser: Chooser, out: &mut SourceRead) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != MINE))
        .collect();
    files.sort();
    for file in files {
        read_file(source, &file, chooser, out);
    }
}

fn read_file(source: &ReadOnlySource, path: &Path, chooser: Chooser, out: &mut SourceRead) {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let format = match extension.as_str() {
        "yaml" | "yml" => Format::Yaml,
        "json" | "jsonc" => Format::Jsonc,
        _ => return,
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => {
            out.broken.push((
                path.to_path_buf(),
                format!("cannot read `{}`: {e}", path.display()),
            ));
            return;
        }
    };
    let key = ["mcpServers".to_owned()];
    let at = match format {
        Format::Yaml => ServersAt::list(&key, "name"),
        _ => ServersAt::map(&key),
    };
    let servers = format
        .parse(text.trim_start_matches('\u{feff}'))
        .map_err(|e| format!("{}:{}:{}: {}", path.display(), e.line, e.column, e.message))
        .and_then(|doc| {
            doc.servers(at)
                .map_err(|e| format!("{}: {e}", path.display()))
        });
    let servers = match servers {
        Ok(servers) => servers,
        Err(message) => {
            out.broken.push((path.to_path_buf(), message));
            return;
        }
    };
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let manage = manage_text(source, &path.display().to_string());
    for (server, raw) in servers {
        out.entries.push(SourceEntry {
            name: server,
            raw,
            origin: Origin {
                kind: "continue",
                name: name.clone(),
                file: path.to_path_buf(),
                enabled: true,
                chosen_by: chooser,
                manage: manage.clone(),
            },
        });
    }
}
