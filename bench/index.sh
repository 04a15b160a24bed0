#!/usr/bin/env bash
# The persistent index (issue #16): whole processes side by side with rg over the same
# directories, as a user runs them: `amux sessions search <q>` (the CLI, default limit 50, output
# piped) against `rg -uuu -i -F -l <q>`.
#   bash bench/index.sh <home>      (bench/run.sh calls it on its home)
#   bash bench/index.sh <home> --in-place   (a home too big to copy, e.g. 10 GB: read where it
#                                            is, and skip the append figure, which writes)
# Needs the release addon (npm run build), ripgrep and hyperfine. The index is built in a fresh
# temporary cache dir (never the user's); the home is copied first because one figure appends
# a message to a session.
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$(cd "$1" && pwd)
IN_PLACE=$([ "${2:-}" = --in-place ] && echo 1 || true)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if [ -n "$IN_PLACE" ]; then
  export HOME="$SRC"
else
  cp -a "$SRC" "$WORK/home"
  export HOME="$WORK/home"
fi
export AGENT_MUX_CACHE_DIR="$WORK/cache"
AMUX="node $PWD/bin/amux.js"
DIRS=()
for d in .claude .codex .gemini .copilot .pi .omp; do [ -d "$HOME/$d" ] && DIRS+=("$HOME/$d"); done
median_ms() {  # median of a hyperfine run, ms
  hyperfine -N -i --warmup 1 --runs "${RUNS:-7}" --export-json "$WORK/h.json" "$@" >/dev/null 2>&1
  node -e "const r=require('$WORK/h.json').results; console.log(r.map(x => (x.median * 1000).toFixed(0)).join(' '))"
}
ratio() { node -e "console.log(($1 / $2).toFixed(2))"; }

store_bytes=$(du -sb "${DIRS[@]}" | awk '{s+=$1} END {printf "%d\n", s}')
echo "home: $(find "${DIRS[@]}" -type f | wc -l) files of the file-based agents, $((store_bytes / 1000000)) MB"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), node $(node -v)"
# Node reads this file of certificates at every start (tens of ms): part of every amux figure.
echo "NODE_EXTRA_CA_CERTS: ${NODE_EXTRA_CA_CERTS:-unset}"

echo; echo "## first call: the index is built"
start=$(date +%s%N)
$AMUX sessions search kubernetes >/dev/null 2>&1
first=$(( ($(date +%s%N) - start) / 1000000 ))
read -r rgl < <(median_ms "rg -uuu -i -F -l kubernetes ${DIRS[*]}")
index_bytes=$(du -sb "$AGENT_MUX_CACHE_DIR" | cut -f1)
echo "build (whole process) $first ms = $(ratio "$first" "$rgl")x rg -l ($rgl ms); index $((index_bytes / 1000000)) MB = $(ratio "$index_bytes" "$store_bytes")x the stores' bytes"

echo; echo "## warm index vs rg -uuu -i -F -l (whole processes, medians)"
for q in kubernetes the function "function error" '"docker compose"' zzqxjw; do
  words=${q//\"/}
  # two words: rg has no AND; one pass for the first word is its floor
  rg_q=$words
  [[ "$q" == *" "* && "$q" != \"* ]] && rg_q=${words%% *}
  read -r a r < <(median_ms "$AMUX sessions search '$q'" "rg -uuu -i -F -l $rg_q ${DIRS[*]}")
  hits=$($AMUX sessions search "$q" --limit 100000 | wc -l)
  echo "$q ($hits hits, 50 shown): amux $a ms, rg -l $r ms: $(ratio "$a" "$r")x"
done
read -r noop node0 < <(median_ms "$AMUX --version" "node -e 0")
echo "node + CLI, nothing read (amux --version): $noop ms; node alone (node -e 0): $node0 ms"

echo; echo "## list claude (every session) vs rg over .claude"
read -r a r < <(median_ms "$AMUX sessions list claude --limit 100000" "rg -uuu -i -F -l sessionId $HOME/.claude")
echo "amux $a ms, rg -l $r ms: $(ratio "$a" "$r")x"

[ -n "$IN_PLACE" ] && exit 0
echo; echo "## after appending one message to one session"
read -r warm < <(median_ms "$AMUX sessions search kubernetes")
f=$(ls -S "$HOME"/.claude/projects/*/*.jsonl | sed -n 20p)
read -r after < <(RUNS=5 median_ms --prepare "sh -c 'tail -n 1 $f >> $f'" "$AMUX sessions search kubernetes")
echo "warm $warm ms; the first search after an append to a $(( $(stat -c %s "$f") / 1000 )) kB session: $after ms ($(ratio "$after" "$warm")x)"
