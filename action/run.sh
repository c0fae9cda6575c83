#!/usr/bin/env bash
# The action's check step, in the repository's root:
#   1. `mcpctl check --format sarif` over MCPCTL_PATHS (default: the repository's MCP
#      config files) into MCPCTL_SARIF, for code scanning;
#   2. `mcpctl plan --check --format github` against MCPCTL_ACTION_MANIFEST when the
#      repository has it: drift annotated on the files.
# Outputs (GITHUB_OUTPUT): findings, drift, sarif-file. Exit 0 when both are clean, 1 when
# either found something, 2 when mcpctl could not run (the SARIF step still uploads).
set -uo pipefail
sarif="${MCPCTL_SARIF:-mcpctl.sarif}"
manifest="${MCPCTL_ACTION_MANIFEST:-mcpctl.toml}"
output="${GITHUB_OUTPUT:-/dev/null}"

read -r -a paths <<<"${MCPCTL_PATHS:-}"
check=0
mcpctl check --format sarif --deny "${MCPCTL_DENY:-error}" "${paths[@]}" >"$sarif" || check=$?
if [ "$check" -ge 2 ]; then
  echo "::error::mcpctl check could not run (exit $check)"
  rm -f "$sarif"
  sarif=""
fi

drift=0
if [ -n "$manifest" ] && [ -f "$manifest" ]; then
  mcpctl plan --manifest "$manifest" --check --format github || drift=$?
  [ "$drift" -ge 2 ] && echo "::error::mcpctl plan --check could not run (exit $drift)"
else
  echo "mcpctl: no manifest \`$manifest\`; drift not checked"
fi

{
  echo "findings=$([ "$check" -eq 1 ] && echo true || echo false)"
  echo "drift=$([ "$drift" -eq 1 ] && echo true || echo false)"
  echo "sarif-file=$sarif"
} >>"$output"

if [ "$check" -ge 2 ] || [ "$drift" -ge 2 ]; then
  exit 2
fi
if [ "$check" -eq 1 ] || [ "$drift" -eq 1 ]; then
  exit 1
fi
echo "mcpctl: MCP config files are clean and match the manifest"
