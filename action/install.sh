#!/usr/bin/env bash
# The action's install step: use the mcpctl on PATH when there is one (a job that built or
# cached it), else install MCPCTL_VERSION from npm.
set -euo pipefail
if command -v mcpctl >/dev/null 2>&1; then
  mcpctl --version
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "::error::mcpctl is not on PATH and npm is missing; add actions/setup-node, or install mcpctl before this step"
  exit 2
fi
npm install -g --no-audit --no-fund "mcpctl@${MCPCTL_VERSION:-latest}"
mcpctl --version
