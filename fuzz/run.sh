#!/usr/bin/env bash
# Run every cargo-fuzz target for a bounded time and print one Markdown row per target (for
# bench/RESULTS.md). Not part of CI.
#   bash fuzz/run.sh                       # 60 s per target, all targets
#   FUZZ_SECONDS=300 bash fuzz/run.sh claude query
# Env: FUZZ_SECONDS (per target), FUZZ_SANITIZER (none|address; default none: stable Rust has no
# ASan for every dependency, and the core is safe Rust over SQLite/zstd), REAL_FIXTURES (the real
# captures, read in place: default ../shared/fixtures/real beside the checkout).
# Needs: cargo install cargo-fuzz. Stable rustc is told to accept cargo-fuzz's -Z flags with
# RUSTC_BOOTSTRAP=1 (only for this build, which has its own target dir, fuzz/target).
#
# Corpora: fuzz/corpus/<target> (gitignored, grows across runs) is where libFuzzer keeps what it
# finds; the seeds are read-only extra corpora: fuzz/seeds/<target> (small, generated, committed),
# the demo home's files, and symlinks to the real captures (never copied into the repo).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_PER=${FUZZ_SECONDS:-60}
SAN=${FUZZ_SANITIZER:-none}
REAL=${REAL_FIXTURES:-$ROOT/../shared/fixtures/real}
DEMO=$ROOT/examples/demo-home
export RUSTC_BOOTSTRAP=1
ALL=(claude codex gemini_jsonl gemini_json copilot pi omp openclaw cursor_transcript
  opencode_legacy sqlite_db jsonl_reader tree_reader query matcher)
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL[@]}")

SEEDS=$(mktemp -d)
LOGS=$ROOT/fuzz/logs
mkdir -p "$LOGS"
trap 'rm -rf "$SEEDS"' EXIT

# link TARGET FILE...: existing files become seeds of TARGET (by symlink, read in place).
link() {
  local t=$1
  shift
  mkdir -p "$SEEDS/$t"
  local f
  for f in "$@"; do
    [ -f "$f" ] && ln -sf "$f" "$SEEDS/$t/$(echo "$f" | tr '/' '_')"
  done
  return 0
}
# joined TARGET NAME FILE...: one seed made of the files joined by the harness's part separator.
joined() {
  local t=$1 name=$2 first=1 f
  shift 2
  mkdir -p "$SEEDS/$t"
  for f in "$@"; do
    [ -f "$f" ] || return 0
  done
  for f in "$@"; do
    [ $first = 1 ] || printf '\n%%%%%%%%\n'
    first=0
    cat "$f"
  done >"$SEEDS/$t/$name"
}
# prefixed BYTE NAME FILE: a sqlite_db seed (first byte picks the agent).
prefixed() {
  mkdir -p "$SEEDS/sqlite_db"
  [ -f "$3" ] && { printf "\\x$1"; cat "$3"; } >"$SEEDS/sqlite_db/$2"
  return 0
}

shopt -s nullglob globstar
link claude "$REAL"/claude/*.jsonl "$REAL"/claude/agent-sessions-subagent/**/*.jsonl "$DEMO"/.claude/projects/*/*.jsonl
link codex "$REAL"/codex/*.jsonl "$DEMO"/.codex/sessions/**/*.jsonl
link gemini_jsonl "$REAL"/gemini/*.jsonl "$DEMO"/.gemini/tmp/*/chats/*.jsonl
link gemini_json "$REAL"/gemini/*.json
link pi "$REAL"/pi/*.jsonl "$DEMO"/.pi/agent/sessions/*/*.jsonl
link omp "$DEMO"/.omp/agent/sessions/*/*.jsonl "$REAL"/pi/*.jsonl
link openclaw "$REAL"/openclaw/*.jsonl
link cursor_transcript "$REAL"/cursor/*.jsonl
for d in "$DEMO"/.copilot/session-state/*/; do
  joined copilot "demo-$(basename "$d")" "$d/events.jsonl" "$d/workspace.yaml"
done
link copilot "$REAL"/copilot/*.jsonl "$REAL"/copilot/agent-sessions-subdir_v1/**/*.jsonl
L=$REAL/opencode/agent-sessions-storage_legacy
joined opencode_legacy real-legacy-1 "$L"/session/proj_test/*.json "$L"/message/s_stage0_drift/msg_0002.json "$L"/part/prt_0001.json
joined opencode_legacy real-legacy-2 "$L"/session/proj_test/*.json "$L"/message/s_stage0_drift/msg_0001.json "$L"/part/prt_0002.json
i=0
for db in "$DEMO"/.cursor/chats/*/*/store.db "$REAL"/cursor/*.db; do
  prefixed 00 "cursor-$i" "$db"
  i=$((i + 1))
done
prefixed 01 opencode "$DEMO/.local/share/opencode/opencode.db"
prefixed 02 hermes "$DEMO/.hermes/state.db"
prefixed 03 openclaw "$DEMO/.openclaw/agents/main/agent/openclaw-agent.sqlite"
link jsonl_reader "$REAL"/*/*.jsonl
link tree_reader "$REAL"/pi/*.jsonl "$REAL"/openclaw/*.jsonl "$DEMO"/.omp/agent/sessions/*/*.jsonl
mkdir -p "$SEEDS/query" "$SEEDS/matcher"

cargo fuzz build -s "$SAN" -O >/dev/null 2>&1 || cargo fuzz build -s "$SAN" -O

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $(rustc --version); ${SECONDS_PER}s per target, sanitizer $SAN"
echo
echo "| target | seeds | executions | exec/s | coverage (cov / ft) | corpus | peak RSS | findings |"
echo "| --- | ---: | ---: | ---: | --- | ---: | ---: | --- |"
for t in "${TARGETS[@]}"; do
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  extra=("$SEEDS/$t")
  [ -d "fuzz/seeds/$t" ] && extra+=("fuzz/seeds/$t")
  nseeds=$(find -L "${extra[@]}" -type f | wc -l)
  log=$LOGS/$t.log
  before=$(find "fuzz/artifacts/$t" -type f | wc -l)
  # -timeout: one input taking > 10 s is a hang finding; -rss_limit_mb: runaway memory is one too.
  # -max_len: large enough for the seed databases, so mutations are not cut to 4 KiB.
  set +e
  cargo fuzz run -s "$SAN" -O "$t" "fuzz/corpus/$t" "${extra[@]}" -- \
    -max_total_time="$SECONDS_PER" -timeout=10 -rss_limit_mb=2048 -max_len=1048576 \
    -print_final_stats=1 -close_fd_mask=1 >"$log" 2>&1
  rc=$?
  execs=$(awk '/stat::number_of_executed_units/{print $2}' "$log")
  rate=$(awk '/stat::average_exec_per_sec/{print $2}' "$log")
  rss=$(awk '/stat::peak_rss_mb/{print $2}' "$log")
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 | sed 's/cov: //; s/ ft: / \/ /')
  corpus=$(grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -1 | sed 's/corp: //')
  after=$(find "fuzz/artifacts/$t" -type f | wc -l)
  if [ "$rc" = 0 ]; then
    found="none"
  else
    found="exit $rc, $((after - before)) new artifact(s): $(grep -m1 -E 'panicked|ERROR: libFuzzer' "$log" | cut -c1-120)"
  fi
  set -e
  echo "| $t | $nseeds | ${execs:-?} | ${rate:-?} | ${cov:-?} | ${corpus:-?} | ${rss:-?} MB | $found |"
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
