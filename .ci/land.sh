#!/usr/bin/env bash
# Land the current worktree's branch on main, only when the full check passed on the
# exact tree that main will then point at.
#
#   bash .ci/land.sh            (run from a worktree whose branch is not main)
#
# Steps, each joined with && so that nothing lands after a failure:
#   1. take the landing lock (one landing at a time: the test run is on the merged tree);
#   2. merge main into this branch (a conflict stops here: resolve, commit, run again);
#   3. refuse a dirty tree (what is tested must be what is committed);
#   4. cargo fmt --check, clippy -D warnings, cargo build -p fixture-server, cargo test;
#   5. check that HEAD and its tree did not move while the tests ran;
#   6. fast-forward main (in the worktree that has it checked out) to exactly HEAD.
# Never use `git stash` in a worktree: the stash list is shared by every worktree.
set -euo pipefail

branch="$(git rev-parse --abbrev-ref HEAD)"
if [ "$branch" = main ]; then
  echo "land: run this from a worktree on a feature branch, not main" >&2
  exit 2
fi
common="$(git rev-parse --git-common-dir)"
main_tree="$(git worktree list --porcelain | awk '/^worktree /{w=$2} /^branch refs\/heads\/main$/{print w}')"
if [ -z "$main_tree" ]; then
  echo "land: no worktree has main checked out" >&2
  exit 2
fi

exec 9>"$common/land.lock"
echo "land: waiting for the landing lock" >&2
flock 9
echo "land: merging main into $branch" >&2

git merge --no-edit main &&
  test -z "$(git status --porcelain --untracked-files=no)" &&
  head="$(git rev-parse HEAD)" &&
  tree="$(git rev-parse 'HEAD^{tree}')" &&
  cargo fmt --all -- --check &&
  cargo clippy --all-targets -- -D warnings &&
  cargo build -p fixture-server &&
  cargo test &&
  test "$(git rev-parse HEAD)" = "$head" &&
  test "$(git rev-parse 'HEAD^{tree}')" = "$tree" &&
  test -z "$(git -C "$main_tree" status --porcelain --untracked-files=no)" &&
  git -C "$main_tree" merge --ff-only "$head" &&
  echo "land: main is now $head" >&2
