#!/bin/sh
# A stand-in C compiler for linting the macOS targets on Linux (.ci/cross.sh), with no
# Apple SDK: `ring`'s build script compiles C that includes SDK headers
# (<TargetConditionals.h>, <assert.h>), which no Linux compiler has for Apple. `cargo
# clippy` never links, so the objects are never used: this writes an empty file where
# `-o` points. It answers cc-rs's compiler probe as clang (`-E` prints "clang"; the
# MSVC probe `-?` fails). Never use it to build anything that runs.
out=
for arg in "$@"; do
  case "$arg" in
    -\?) exit 1 ;;
    -E) echo '"clang"'; exit 0 ;;
  esac
done
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift ;;
  esac
  shift
done
if [ -n "$out" ]; then : >"$out"; fi
