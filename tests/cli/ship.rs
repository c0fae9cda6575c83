//! How mcpctl ships: the README's install section, and the npm packaging, release
//! workflow and pre-commit set-up agreeing with each other and with Cargo.toml. The
//! packaging itself runs in `.ci/npm.sh` (assemble, pack, offline install, `npx mcpctl`).

use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

#[test]
fn readme_install_leads_with_what_works_today_and_has_no_placeholders() {
    let readme = read("README.md");
    for placeholder in ["<repo url>", "<owner>", "<repo>", "github.com/OWNER"] {
        assert!(!readme.contains(placeholder), "README has {placeholder}");
    }
    let install = readme
        .split("\n## ")
        .find(|section| section.starts_with("Install\n"))
        .expect("README has an Install section");
    // Nothing is published before the first release: the first command is a source build.
    let first_block = install.split("```").nth(1).unwrap();
    assert!(
        first_block.contains("cargo install --locked --path ."),
        "{first_block}"
    );
    assert!(install.contains("`mcpctl-cli`"), "the crate's package name");
    let release = format!("v{}", env!("CARGO_PKG_VERSION"));
    assert!(
        install.contains(&release) && install.contains("npm i -g mcpctl"),
        "the npm route, marked with the release that publishes it ({release})"
    );
    let rust = format!("Rust {} or newer", env!("CARGO_PKG_RUST_VERSION"));
    assert!(readme.contains(&rust), "README must say {rust}");
}

/// A pinned `mcpctl@VERSION` (npx, pre-commit) exists only from the release of that
/// version on, so every page that shows one says so next to it; and no page pins another
/// version.
#[test]
fn npm_pins_in_the_docs_name_the_release_that_publishes_them() {
    let version = env!("CARGO_PKG_VERSION");
    let mut pages = vec!["README.md".to_owned()];
    for dir in ["docs", "docs/guide", "docs/reference"] {
        for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".md") {
                pages.push(format!("{dir}/{name}"));
            }
        }
    }
    for page in pages {
        let text = read(&page);
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            for pin in line.split("mcpctl@").skip(1) {
                assert!(
                    pin.starts_with(version),
                    "{page}:{}: pins mcpctl@{pin}, not {version}",
                    i + 1
                );
                let near = lines[i.saturating_sub(3)..=i].join(" ");
                assert!(
                    near.contains(&format!("v{version}")),
                    "{page}:{}: mcpctl@{version} without saying it comes with release v{version}",
                    i + 1
                );
            }
        }
    }
}

/// `npm/assemble.mjs` builds a package for each target the release workflow builds.
#[test]
fn npm_platforms_are_the_release_targets() {
    let assemble = read("npm/assemble.mjs");
    let table = assemble
        .split("const PLATFORMS = {")
        .nth(1)
        .and_then(|rest| rest.split("};").next())
        .unwrap();
    let mut npm_targets: Vec<&str> = table
        .lines()
        .filter_map(|line| line.split('"').nth(3))
        .collect();
    let release = read(".github/workflows/release.yml");
    let mut built: Vec<&str> = release
        .lines()
        .filter_map(|line| line.split("{ target: ").nth(1))
        .filter_map(|rest| rest.split(',').next())
        .collect();
    npm_targets.sort_unstable();
    built.sort_unstable();
    assert_eq!(npm_targets.len(), 6, "{table}");
    assert_eq!(npm_targets, built);
}

#[test]
fn npm_launcher_and_root_package_agree_with_cargo() {
    let launcher: serde_json::Value =
        serde_json::from_str(&read("npm/mcpctl/package.json")).unwrap();
    assert_eq!(launcher["name"], "mcpctl");
    assert_eq!(launcher["bin"]["mcpctl"], "bin/mcpctl.js");
    assert!(launcher.get("scripts").is_none(), "no install scripts");
}
