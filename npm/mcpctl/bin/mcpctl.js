#!/usr/bin/env node
// Runs the mcpctl binary from the package built for this OS and CPU. npm installs that
// package as an optional dependency and skips the ones whose `os`/`cpu` do not match, so
// nothing is downloaded or built at install time and there is no install script.
"use strict";

const { spawnSync } = require("node:child_process");
const pkg = require("../package.json");

function fail(message) {
  process.stderr.write(`mcpctl: ${message}\n`);
  process.exit(2);
}

function binaryPath() {
  const override = process.env.MCPCTL_BINARY_PATH;
  if (override) {
    return override;
  }
  const key = `${process.platform}-${process.arch}`;
  const name = `mcpctl-${key}`;
  const exe = process.platform === "win32" ? "mcpctl.exe" : "mcpctl";
  try {
    return require.resolve(`${name}/bin/${exe}`);
  } catch {
    const known = Object.keys(pkg.optionalDependencies || {});
    if (!known.includes(name)) {
      const list = known.map((n) => n.replace(/^mcpctl-/, "")).join(", ");
      fail(
        `no prebuilt binary for ${key} (there are: ${list}). ` +
          "Build it from source with a Rust toolchain (see the README's Install section), " +
          "then point MCPCTL_BINARY_PATH at it.",
      );
    }
    fail(
      `the package ${name} (this platform's binary) is not installed. ` +
        "npm leaves optional dependencies out with --omit=optional / --no-optional, " +
        "or when a lockfile was made on another OS. Reinstall without those " +
        `(npm i ${pkg.name}@${pkg.version}), or set MCPCTL_BINARY_PATH to an mcpctl binary.`,
    );
  }
}

const binary = binaryPath();
const result = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
if (result.error) {
  fail(`could not run ${binary}: ${result.error.message}`);
}
if (result.signal) {
  // Die of the same signal, so a shell sees what the binary saw; a signal Node ignores
  // (SIGPIPE) still gives the shell's 128 + N.
  process.kill(process.pid, result.signal);
  process.exitCode = 128 + (require("node:os").constants.signals[result.signal] || 0);
} else {
  process.exitCode = result.status;
}
