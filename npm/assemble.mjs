#!/usr/bin/env node
// Assembles the npm packages from release binaries, in the esbuild/biome pattern: one
// package per OS/CPU holding the binary (`os`/`cpu` set, so npm installs only the
// matching one) and the `mcpctl` launcher package listing them all as optional
// dependencies. No install scripts, no download at install time.
//
//   node npm/assemble.mjs --out DIR [--version X.Y.Z] PLATFORM=BINARY...
//   node npm/assemble.mjs --out DIR [--version X.Y.Z] --from ARTIFACTS
//
// PLATFORM is Node's `${process.platform}-${process.arch}` (linux-x64, darwin-arm64,
// win32-x64, ...); BINARY the mcpctl executable built for it. `--from` takes every
// platform's binary from ARTIFACTS/mcpctl-RUST_TARGET/ (the release workflow's layout).
// The version defaults to Cargo.toml's. Writes DIR/mcpctl and DIR/mcpctl-PLATFORM, ready for `npm pack` or
// `npm publish` (publish the platform packages first).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// Every platform a release builds, and the Rust target it is built from.
const PLATFORMS = {
  "linux-x64": "x86_64-unknown-linux-musl",
  "linux-arm64": "aarch64-unknown-linux-musl",
  "darwin-x64": "x86_64-apple-darwin",
  "darwin-arm64": "aarch64-apple-darwin",
  "win32-x64": "x86_64-pc-windows-msvc",
  "win32-arm64": "aarch64-pc-windows-msvc",
};

const here = path.dirname(fileURLToPath(import.meta.url));

function die(message) {
  process.stderr.write(`assemble: ${message}\n`);
  process.exit(2);
}

function cargoVersion() {
  const manifest = fs.readFileSync(path.join(here, "..", "Cargo.toml"), "utf8");
  const pkg = manifest.split(/^\[/m).find((section) => section.startsWith("package]"));
  const match = pkg && pkg.match(/^version\s*=\s*"([^"]+)"/m);
  if (!match) {
    die("no version in Cargo.toml's [package] section; pass --version");
  }
  return match[1];
}

function parseArgs(argv) {
  const args = { out: null, version: null, binaries: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--out" || arg === "--version") {
      const value = argv[++i];
      if (!value) die(`${arg} needs a value`);
      args[arg.slice(2)] = value;
    } else if (arg === "--from") {
      const from = argv[++i];
      if (!from) die("--from needs a directory");
      for (const [platform, target] of Object.entries(PLATFORMS)) {
        const exe = platform.startsWith("win32-") ? "mcpctl.exe" : "mcpctl";
        argv.push(`${platform}=${path.join(from, `mcpctl-${target}`, exe)}`);
      }
    } else if (arg.includes("=")) {
      const [platform, binary] = arg.split(/=(.*)/s);
      if (!(platform in PLATFORMS)) {
        die(`unknown platform ${platform} (known: ${Object.keys(PLATFORMS).join(", ")})`);
      }
      if (!fs.existsSync(binary)) die(`${binary}: no such file (the ${platform} binary)`);
      args.binaries[platform] = binary;
    } else {
      die(`unexpected argument ${arg}; usage: assemble.mjs --out DIR [--version X.Y.Z] (PLATFORM=BINARY... | --from ARTIFACTS)`);
    }
  }
  if (!args.out) die("--out DIR is required");
  if (Object.keys(args.binaries).length === 0) die("no PLATFORM=BINARY or --from given");
  return args;
}

function writeJson(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function assemble({ out, version, binaries }) {
  version = version || cargoVersion();
  const launcher = JSON.parse(fs.readFileSync(path.join(here, "mcpctl", "package.json"), "utf8"));
  fs.rmSync(out, { recursive: true, force: true });

  for (const [platform, binary] of Object.entries(binaries)) {
    const [os, cpu] = platform.split("-");
    const name = `mcpctl-${platform}`;
    const dir = path.join(out, name);
    const exe = os === "win32" ? "mcpctl.exe" : "mcpctl";
    fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
    fs.copyFileSync(binary, path.join(dir, "bin", exe));
    fs.chmodSync(path.join(dir, "bin", exe), 0o755);
    writeJson(path.join(dir, "package.json"), {
      name,
      version,
      description: `The ${platform} binary of mcpctl (${PLATFORMS[platform]}); install the mcpctl package instead`,
      license: launcher.license,
      os: [os],
      cpu: [cpu],
      files: [`bin/${exe}`, "README.md"],
      preferUnplugged: true,
    });
    fs.writeFileSync(
      path.join(dir, "README.md"),
      `# ${name}\n\nThe mcpctl binary for ${platform}. Install \`mcpctl\`, which picks this package on ${platform}.\n`,
    );
  }

  const dir = path.join(out, "mcpctl");
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  fs.copyFileSync(path.join(here, "mcpctl", "bin", "mcpctl.js"), path.join(dir, "bin", "mcpctl.js"));
  fs.chmodSync(path.join(dir, "bin", "mcpctl.js"), 0o755);
  fs.copyFileSync(path.join(here, "mcpctl", "README.md"), path.join(dir, "README.md"));
  launcher.version = version;
  launcher.optionalDependencies = Object.fromEntries(
    Object.keys(PLATFORMS).map((platform) => [`mcpctl-${platform}`, version]),
  );
  writeJson(path.join(dir, "package.json"), launcher);
  return version;
}

const args = parseArgs(process.argv.slice(2));
const version = assemble(args);
process.stdout.write(`assembled mcpctl ${version} for ${Object.keys(args.binaries).join(", ")} in ${args.out}\n`);
