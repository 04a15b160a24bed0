#!/usr/bin/env bash
# The persistent index (issue #16), whole processes side by side with rg over the same directories.
#   bash bench/index.sh <home>      (bench/run.sh calls it on its home)
# Needs the release addon (npm run build), ripgrep and hyperfine. The index is built in a fresh
# temporary cache dir (never the user's); the home is copied first because one figure appends
# a message to a session.
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$(cd "$1" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp -a "$SRC" "$WORK/home"
HOME_DIR="$WORK/home"
export BENCH_CACHE_DIR="$WORK/cache"
DIRS=("$HOME_DIR/.claude" "$HOME_DIR/.codex" "$HOME_DIR/.gemini" "$HOME_DIR/.copilot" "$HOME_DIR/.pi" "$HOME_DIR/.omp")
M() { node bench/measure.mjs "$@"; }
ms_field() { node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).ms.toFixed(0)))"; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { node -e "console.log(($1 / $2).toFixed(2))"; }
rg_ms() {
  hyperfine -N -i --warmup 2 --runs 10 --export-json "$WORK/rg.json" "$*" >/dev/null 2>&1
  node -e "console.log((require('$WORK/rg.json').results[0].median * 1000).toFixed(0))"
}
amux_ms() { for i in 1 2 3 4 5; do M "$@" | ms_field; done | median; }  # median of 5 processes

store_bytes=$(du -sb "${DIRS[@]}" | awk '{s+=$1} END {print s}')
echo "home: $(find "${DIRS[@]}" -type f | wc -l) files of the six file-based agents, $((store_bytes / 1000000)) MB"

echo; echo "## first call: the index is built (search of the six file-based agents)"
first=$(M search-files "$HOME_DIR" kubernetes | ms_field)
rgl=$(rg_ms rg -uuu -i -F -l kubernetes "${DIRS[@]}")
index_bytes=$(du -sb "$BENCH_CACHE_DIR" | cut -f1)
echo "build $first ms = $(ratio "$first" "$rgl")x rg -l ($rgl ms); index $((index_bytes / 1000000)) MB = $(ratio "$index_bytes" "$store_bytes")x the stores' bytes"
M list "$HOME_DIR" >/dev/null  # summaries of every agent into the index too
echo "index with every agent's summaries: $(( $(du -sb "$BENCH_CACHE_DIR" | cut -f1) / 1000000 )) MB"

echo; echo "## warm index vs rg -uuu -i -F -l (six file-based agents, whole processes)"
for q in kubernetes the function "function error" '"docker compose"' zzqxjw; do
  words=${q//\"/}
  if [[ "$q" == *" "* && "$q" != \"* ]]; then
    # two words: rg has no AND; the time of one pass for the rarer word is its floor
    rg_q=${words%% *}
  else
    rg_q=$words
  fi
  r=$(rg_ms rg -uuu -i -F -l "$rg_q" "${DIRS[@]}")
  a=$(amux_ms search-files "$HOME_DIR" "$q")
  hits=$(M search-files "$HOME_DIR" "$q" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).result.hits))")
  scan=$(BENCH_CACHE_DIR= amux_ms search-files "$HOME_DIR" "$q")
  echo "$q ($hits hits): index $a ms, rg -l $r ms ($(ratio "$a" "$r")x), no index $scan ms"
done
noop=$(amux_ms noop "$HOME_DIR")
echo "node + addon + client, nothing read: $noop ms"

echo; echo "## list('claude') vs rg over .claude"
r=$(rg_ms rg -uuu -i -F -l sessionId "$HOME_DIR/.claude")
a=$(amux_ms list-one "$HOME_DIR" claude)
scan=$(BENCH_CACHE_DIR= amux_ms list-one "$HOME_DIR" claude)
echo "index $a ms, rg -l $r ms ($(ratio "$a" "$r")x), no index $scan ms"

echo; echo "## after appending one message to one session"
warm=$(amux_ms search-files "$HOME_DIR" kubernetes)
f=$(ls -S "$HOME_DIR"/.claude/projects/*/*.jsonl | sed -n 20p)
after=()
for i in 1 2 3 4 5; do
  tail -n 1 "$f" >> "$f"
  after+=("$(M search-files "$HOME_DIR" kubernetes | ms_field)")
done
a=$(printf '%s\n' "${after[@]}" | median)
echo "warm $warm ms; the first search after an append to a $(( $(stat -c %s "$f") / 1000 )) kB session: $a ms ($(ratio "$a" "$warm")x)"
