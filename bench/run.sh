#!/usr/bin/env bash
# Every benchmark in one command. Generates its data on first use (deterministic seeds), builds the
# release addon, then prints the figures that go into bench/RESULTS.md.
#   bash bench/run.sh            # full size: 10,000 sessions (>1 GB), a 200 MB session, 1M-message Hermes db
#   BENCH_SESSIONS=1000 BENCH_SCALE=10 BENCH_HERMES_SESSIONS=2000 bash bench/run.sh    # a quick smaller run
# Needs: python3, ripgrep (rg), hyperfine (apt-get install ripgrep hyperfine); ccusage is installed
# from npm into bench/tools on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${BENCH_DATA:-bench/data}
SESSIONS=${BENCH_SESSIONS:-10000}
SCALE=${BENCH_SCALE:-30}
HERMES_SESSIONS=${BENCH_HERMES_SESSIONS:-20000}
HOME_DIR="$DATA/home"
HUGE_ID=00000000-0000-4000-8000-000000000200

if [ ! -d "$HOME_DIR" ]; then
  python3 scripts/gen_home.py --out "$HOME_DIR" --sessions "$SESSIONS" --seed 1 --scale "$SCALE" --huge-mb 200
fi
HERMES_DIR="$DATA/hermes-$HERMES_SESSIONS"
if [ ! -f "$HERMES_DIR/.hermes/state.db" ]; then
  # 20,000 sessions x ~50 messages = ~1M messages; short tool outputs keep the db near 1.3 GB
  python3 scripts/gen_home.py --out "$HERMES_DIR" --agents hermes --sessions "$HERMES_SESSIONS" --seed 2 --scale 44 --output-scale 2
fi
[ -x bench/tools/node_modules/.bin/ccusage ] || npm install --prefix bench/tools --no-audit --no-fund ccusage@20.0.24 >/dev/null  # 20.0.26 has no linux-x64 binary package on the registry

echo "## machine"
echo "$(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB RAM, $(uname -sr), node $(node --version), $(rustc --version)"
echo "data: $(du -sh "$HOME_DIR" | cut -f1) in $(find "$HOME_DIR" -type f | wc -l) files; hermes db $(du -sh "$HERMES_DIR/.hermes/state.db" | cut -f1), $(python3 -c "import sqlite3,sys; c=sqlite3.connect('file:'+sys.argv[1]+'?mode=ro', uri=True); print(c.execute('select count(*) from messages').fetchone()[0])" "$HERMES_DIR/.hermes/state.db") messages"

npm run build >/dev/null 2>&1
ABS_HOME=$(cd "$HOME_DIR" && pwd)
M() { node bench/measure.mjs "$@"; }

echo; echo "## search vs ripgrep (file-based agents, same directories, page cache warm)"
# rg: whole process, hyperfine median of 10. `rg -l` stops reading a file at its first hit; `rg -c`
# reads every matching file whole, as ranking and matchCount must. amux: the search call in a
# fresh process and a new client (nothing cached), median of 5 processes; the six file agents
# searched at once (the dirs rg is given), then every agent (all ten stores) as a user's
# search({text}) would. zzqxjw is in no session: every byte is read, on both sides.
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms_field() { node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).ms))"; }
rg_ms() {
  hyperfine -N -i --warmup 2 --runs 10 --export-json /tmp/amux-rg.json "$*" >/dev/null 2>&1
  node -e "console.log((require('/tmp/amux-rg.json').results[0].median * 1000).toFixed(0))"
}
ratio() { node -e "console.log(($1 / $2).toFixed(2))"; }
search_vs_rg() {  # <home> <label>
  local home=$1 label=$2 word
  local dirs=("$home/.claude" "$home/.codex" "$home/.gemini" "$home/.copilot" "$home/.pi" "$home/.omp")
  for word in kubernetes borrow zzqxjw; do
    local l c files all
    l=$(rg_ms rg -i -F -l $word "${dirs[@]}")
    c=$(rg_ms rg -i -F -c $word "${dirs[@]}")
    files=$(for i in 1 2 3 4 5; do M search-files "$home" $word | ms_field; done | median)
    all=$(for i in 1 2 3 4 5; do M search "$home" $word | ms_field; done | median)
    echo "$label, $word: rg -l $l ms, rg -c $c ms; amux six file agents $files ms ($(ratio "$files" "$l")x rg -l, $(ratio "$files" "$c")x rg -c); amux all ten agents $all ms"
  done
}
search_vs_rg "$ABS_HOME" "whole home"
# The same home without its 200 MB session (hard links, nothing copied).
NO_HUGE="$DATA/home-without-huge"
rm -rf "$NO_HUGE" && cp -al "$HOME_DIR" "$NO_HUGE" && rm "$NO_HUGE"/.claude/projects/*/$HUGE_ID.jsonl
search_vs_rg "$(cd "$NO_HUGE" && pwd)" "without the 200 MB session"
rm -rf "$NO_HUGE"
M search-files "$ABS_HOME" kubernetes
M search "$ABS_HOME" kubernetes

echo; echo "## the persistent index (bench/index.sh)"
bash bench/index.sh "$HOME_DIR"

echo; echo "## search vs ripgrep, page cache cold (the store read from disk)"
# Before every run, bench/evict.py drops the six directories from the page cache. Both sides are
# timed as whole processes (node's start included) by hyperfine, median of 7.
cold_ms() {  # <dirs> <command...>
  local dirs=$1; shift
  hyperfine -N -i --prepare "python3 bench/evict.py $dirs" --runs 7 --export-json /tmp/amux-cold.json "$*" >/dev/null 2>&1
  node -e "console.log((require('/tmp/amux-cold.json').results[0].median * 1000).toFixed(0))"
}
COLD_DIRS="$ABS_HOME/.claude $ABS_HOME/.codex $ABS_HOME/.gemini $ABS_HOME/.copilot $ABS_HOME/.pi $ABS_HOME/.omp"
# amux reads a store that is not in memory with 16 threads; rg -j 16 shows what rg does with as many.
for word in kubernetes borrow zzqxjw; do
  l=$(cold_ms "$COLD_DIRS" rg -i -F -l $word $COLD_DIRS)
  j=$(cold_ms "$COLD_DIRS" rg -j 16 -i -F -l $word $COLD_DIRS)
  a=$(cold_ms "$COLD_DIRS" node bench/measure.mjs search-files "$ABS_HOME" $word)
  echo "whole home, $word, cold: rg -l $l ms, rg -j 16 -l $j ms; amux six file agents $a ms ($(ratio "$a" "$l")x rg -l, $(ratio "$a" "$j")x rg -j 16 -l)"
done

echo; echo "## list (all agents) cold and warm"
M list "$ABS_HOME"

echo; echo "## cost reports vs ccusage --offline (Claude + Codex data): agreement, then time and memory"
# Every report of both agents compared row by row (exit 1 on a disagreement, reported at the end),
# then timed as whole processes side by side (bench/cost.sh).
MISMATCH=0
node bench/compare-ccusage.mjs "$ABS_HOME" --agents claude,codex --cross-midnight || MISMATCH=1
bash bench/cost.sh "$ABS_HOME" claude,codex

echo; echo "## get / export of the 200 MB session"
ls -la "$ABS_HOME"/.claude/projects/*/$HUGE_ID.jsonl | awk '{print "file bytes:", $5}'
M get "$ABS_HOME" claude $HUGE_ID
M export "$ABS_HOME" claude $HUGE_ID json
M export "$ABS_HOME" claude $HUGE_ID markdown

echo; echo "## amux mcp: search_sessions vs rg, read_session around on the 200 MB session (bench/mcp.mjs)"
node bench/mcp.mjs --home "$ABS_HOME" --huge "$ABS_HOME" | tail -n +3

echo; echo "## Hermes search on a ~1M-message state.db (median of 21 after the first)"
ABS_HERMES=$(cd "$HERMES_DIR" && pwd)
M search-warm "$ABS_HERMES" kubernetes hermes
M search-warm "$ABS_HERMES" "大别山" hermes

echo; echo "## diff of two 10,000-message sessions (Rust core, release)"
cargo run --quiet --release -p agent-mux-sessions --example diff_bench 2>&1

if [ "$MISMATCH" = 1 ]; then
  echo "bench/run.sh: amux's cost reports and ccusage's disagree (FAIL above)" >&2
  exit 1
fi
