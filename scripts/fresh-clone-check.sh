#!/usr/bin/env bash
# What a newcomer gets: clone this repository into a temporary folder (no ../shared beside it,
# nothing built), give npm an empty cache, run the README's two commands and check both pass.
# Prints how long each took and what the suite reported as ignored or skipped.
#   bash scripts/fresh-clone-check.sh [REV]      # REV: a commit or branch (default: HEAD)
# Only committed work is cloned. Needs what the README lists (Rust, a C compiler, Node, Python 3)
# and the package registries; the clone is a cold build (minutes). KEEP=1 keeps the folder.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
rev=$(git -C "$src" rev-parse --verify "${1:-HEAD}^{commit}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/amux-fresh-XXXXXX")
repo="$tmp/agent-mux"
logs="$tmp/logs"
mkdir -p "$logs" "$tmp/npm-cache"
git clone --quiet --no-hardlinks "$src" "$repo"
git -C "$repo" checkout --quiet --detach "$rev"
[ ! -e "$tmp/shared" ] || { echo "$tmp/shared exists; the check needs it absent" >&2; exit 1; }

# A newcomer's environment: an empty npm cache, the clone's own target/, no fixture requirement.
export npm_config_cache="$tmp/npm-cache"
unset CARGO_TARGET_DIR AGENT_MUX_REQUIRE_FIXTURES

status=0
step() {  # <name> <command>: run in the clone, log, time
  local name=$1 log="$logs/$2.log" start=$SECONDS
  shift 2
  if (cd "$repo" && bash -c "$*") >"$log" 2>&1; then
    echo "PASS  $name  $(((SECONDS - start) / 60))m$(((SECONDS - start) % 60))s"
  else
    echo "FAIL  $name  $(((SECONDS - start) / 60))m$(((SECONDS - start) % 60))s  (log: $log)"
    tail -n 30 "$log" | sed 's/^/      /'
    status=1
  fi
}

echo "fresh clone of $rev in $repo ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?))"
step "npm ci && npm run demo" demo "npm ci --no-audit --no-fund && npm run demo"
if [ "$status" = 0 ]; then
  step "npm test" test "npm test"
  # What the runners said they did not run (needs ../shared, by design).
  ignored=$(grep -o '[0-9]* ignored' "$logs/test.log" | awk '{n += $1} END {print n + 0}')
  skipped=$(grep -Eo 'Tests .*[0-9]+ skipped' "$logs/test.log" | grep -Eo '[0-9]+ skipped' | awk '{n += $1} END {print n + 0}')
  echo "      cargo test: $ignored ignored; vitest: $skipped skipped"
fi
if [ "$status" = 0 ] && [ -z "${KEEP:-}" ]; then
  rm -rf "$tmp"
else
  echo "kept $tmp"
fi
exit "$status"
