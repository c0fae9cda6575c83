#!/usr/bin/env bash
# Land the current worktree's branch on main, only when the full check passed on the
# exact tree that main will then point at. Landings ride a merge train: whoever holds
# the lock merges every queued branch onto main in a separate worktree, runs the whole
# check once on that tree, and fast-forwards main to it. On a 2-core machine shared by
# several worktrees this turns N test runs into one.
#
#   bash .ci/land.sh            (run from a worktree whose branch is not main)
#
# Exit 0: your commit is on main (and your branch was fast-forwarded to main).
# Exit 1: your branch conflicted, or the check failed on the train it rode; the message
#         names the log. A train holds several branches: read the failing tests to see
#         whose they are; if not yours, run this again.
# Exit 2: usage (on main, uncommitted changes, no main worktree).
#
# Every step of the check is joined with &&: nothing lands after a failure.
# Never use `git stash` in a worktree: the stash list is shared by every worktree.
set -euo pipefail

branch="$(git rev-parse --abbrev-ref HEAD)"
if [ "$branch" = main ] || [ "$branch" = HEAD ]; then
  echo "land: run this from a worktree on a feature branch, not main" >&2
  exit 2
fi
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "land: commit your changes first (the check runs on what is committed)" >&2
  exit 2
fi
common="$(cd "$(git rev-parse --git-common-dir)" && pwd)"
main_tree="$(git worktree list --porcelain | awk '/^worktree /{w=$2} /^branch refs\/heads\/main$/{print w}')"
if [ -z "$main_tree" ]; then
  echo "land: no worktree has main checked out" >&2
  exit 2
fi
train="${LAND_TRAIN_DIR:-$(dirname "$main_tree")/land-train}"
queue="$common/land-queue"
results="$common/land-results"
mkdir -p "$queue" "$results"
head="$(git rev-parse HEAD)"
key="${branch//\//_}"
echo "$head" >"$queue/$key.tmp" && mv "$queue/$key.tmp" "$queue/$key"

# The train's own worktree, detached at main, with a warm target/ and the peers.
ensure_train() {
  if [ ! -e "$train/.git" ]; then
    git worktree add -q --detach "$train" main
    if [ -d "$main_tree/target" ] && [ ! -d "$train/target" ]; then
      cp -a "$main_tree/target" "$train/target"
    fi
  fi
  if [ -d "$main_tree/.cache" ] && [ ! -e "$train/.cache" ]; then
    ln -s "$main_tree/.cache" "$train/.cache"
  fi
}

# Merge every queued branch onto main (oldest first), check once, fast-forward main.
# `drive 1` takes only the oldest queued branch: a mixed train that fails is bisected that
# way, so one branch's failure does not cost every other branch on it a whole train.
drive() {
  ensure_train
  local limit="${1:-0}"
  local names=() shas=() f name sha log
  git -C "$train" merge --abort >/dev/null 2>&1 || true
  git -C "$train" checkout -q -f --detach main
  for f in $(ls -tr "$queue"); do
    case "$f" in *.tmp) continue ;; esac
    if [ "$limit" -gt 0 ] && [ "${#shas[@]}" -ge "$limit" ]; then
      break
    fi
    name="$f"
    sha="$(cat "$queue/$f")"
    if [ -f "$results/$sha" ]; then
      continue
    fi
    if git -C "$train" merge-base --is-ancestor "$sha" HEAD; then
      continue
    fi
    if git -C "$train" merge -q --no-edit -m "Merge branch '$name' (land train)" "$sha" >/dev/null 2>&1; then
      names+=("$name")
      shas+=("$sha")
    else
      git -C "$train" merge --abort || git -C "$train" reset -q --hard
      echo "land: $name conflicts with main or with a branch landing ahead of it ($(printf '%s ' "${names[@]}")). Merge main into $name, resolve, commit and run land.sh again." >"$results/$sha"
    fi
  done
  if [ "${#shas[@]}" -eq 0 ]; then
    return 0
  fi
  local batch tree
  batch="$(git -C "$train" rev-parse HEAD)"
  tree="$(git -C "$train" rev-parse 'HEAD^{tree}')"
  log="$results/train-$(date -u +%Y%m%dT%H%M%S)-$$.log"
  echo "land: checking a train of ${names[*]} on main ($batch); log: $log" >&2
  # The check runs ahead of the worktrees' own builds (as root, at nice -10): on 2 shared
  # cores a starved check takes 3-4x longer and its peers' hang guards fire. As in .ci/run,
  # the other OSes are linted (.ci/cross.sh: Windows and macOS, ~1 min warm; main broke
  # for them twice in one afternoon without it), the fixture server is built and a
  # Secret Service started (its daemons ended when the
  # check ends) before `cargo test -- --include-ignored`: every test runs, none is skipped.
  # The check never inherits the landing lock (fd 9): a daemon it leaves behind (once a
  # dbus-daemon of a killed train) would otherwise hold the lock and stop every landing.
  if (renice -n -10 -p "$BASHPID" >/dev/null 2>&1 || true
    trap 'for pid in ${MCPCTL_CI_KEYRING_PIDS:-}; do kill "$pid" 2>/dev/null || true; done' EXIT
    cd "$train" &&
    cargo fmt --all -- --check &&
    cargo clippy --all-targets -- -D warnings &&
    cargo clippy --no-default-features --all-targets -- -D warnings &&
    cargo build -p fixture-server &&
    cargo clippy -p fixture-server --all-targets -- -D warnings &&
    bash .ci/cross.sh &&
    keyring_env="$(bash .ci/keyring.sh)" &&
    eval "$keyring_env" &&
    cargo test -- --include-ignored) 9>&- >"$log" 2>&1 &&
    test "$(git -C "$train" rev-parse HEAD)" = "$batch" &&
    test "$(git -C "$train" rev-parse 'HEAD^{tree}')" = "$tree" &&
    test -z "$(git -C "$main_tree" status --porcelain --untracked-files=no)" &&
    git -C "$main_tree" merge -q --ff-only "$batch"; then
    echo "land: main is now $batch (${names[*]})" >&2
  elif [ "${#shas[@]}" -gt 1 ]; then
    echo "land: the train of ${names[*]} failed (log: $log); checking ${names[0]} alone" >&2
    drive 1
  else
    for sha in "${shas[@]}"; do
      echo "land: the check failed on a train of: ${names[*]}. Log: $log. If the failing tests are not yours, run land.sh again." >"$results/$sha"
    done
  fi
}

exec 9>"$common/land.lock"
echo "land: $branch ($head) queued; waiting for the landing lock" >&2
while :; do
  flock 9
  if git merge-base --is-ancestor "$head" main; then
    if [ "$(cat "$queue/$key" 2>/dev/null)" = "$head" ]; then rm -f "$queue/$key"; fi
    flock -u 9
    git merge -q --ff-only main || git merge -q --no-edit main
    echo "land: landed; main is $(git rev-parse main)" >&2
    exit 0
  fi
  if [ -f "$results/$head" ]; then
    msg="$(cat "$results/$head")"
    rm -f "$results/$head"
    if [ "$(cat "$queue/$key" 2>/dev/null)" = "$head" ]; then rm -f "$queue/$key"; fi
    flock -u 9
    echo "$msg" >&2
    log="$(sed -n 's/.*Log: \([^ ]*\.log\)\..*/\1/p' <<<"$msg")"
    if [ -n "$log" ] && [ -f "$log" ]; then
      grep -E '^(test .* FAILED|error(\[|:)|---- |Diff in|warning: )' "$log" | head -40 >&2 || true
      tail -25 "$log" >&2
    fi
    exit 1
  fi
  drive
  flock -u 9
done
