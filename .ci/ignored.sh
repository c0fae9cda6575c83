#!/usr/bin/env bash
# The integration tests ignored for one reason, as `module::test` names: what
#
#   cargo test -- --ignored --exact $(bash .ci/ignored.sh "needs cargo build -p fixture-server")
#
# runs where only some of what the ignored tests need is there (macOS and Windows in
# .github/workflows/ci.yml have the fixture server but not the Linux peers). The reason is
# the text of `#[ignore = "..."]`; the module is the file's name under tests/<crate>/.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$#" -ne 1 ]; then
  echo "usage: bash .ci/ignored.sh 'needs ...'" >&2
  exit 2
fi
for file in tests/*/*.rs; do
  awk -v want="#[ignore = \"$1\"]" -v mod="$(basename "$file" .rs)" '
    { line = $0; sub(/^[[:space:]]+/, "", line) }
    line == want { hit = 1; next }
    hit && /^[[:space:]]*(pub[^ ]* )?fn / {
      sub(/^[[:space:]]*(pub[^ ]* )?fn /, "")
      sub(/[(<].*/, "")
      print mod "::" $0
      hit = 0
    }
  ' "$file"
done
