#!/bin/sh
# Install ansible-core 2.19 (the newest line that runs on Python 3.11) from PyPI into a venv under .cache/tools (gitignored) for the
# Ansible recipe's test (tests/cli/teams_recipes.rs: `--syntax-check`, then a run with `-c local`
# in a temporary HOME). Safe to re-run; the test is `#[ignore = "needs .ci/ansible.sh"]`
# and fails, when run, without it.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.cache/tools/ansible"
if [ ! -x "$venv/bin/ansible-playbook" ]; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "ansible-core==2.19.14"
fi
# Not piped into head: ansible prints a BrokenPipe traceback when the pipe closes early.
"$venv/bin/ansible-playbook" --version >"$venv/version.txt"
head -n 1 "$venv/version.txt"
