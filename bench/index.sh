#!/usr/bin/env bash
# The persistent index against rg over the same directories, every figure of its goals in one run:
# - the library as a Node app runs it (bench/index-calls.cjs): the first call in a new process,
#   from just before `require` to the settled promise, and a warm call on the used client;
# - the `amux` CLI as a whole process, net of `node -e 0` measured in the same run;
# - `rg -uuu -i -F -l` over the file-based agents' directories (two words: its first word, a floor;
#   OR: both patterns; NOT: the positive word; prefix: the prefix).
#   bash bench/index.sh <home>               the home is copied first (one figure appends to it)
#   bash bench/index.sh <home> --in-place    a home too big to copy: read in place, no append
#   AMUX_ROOT=/path/to/checkout bash bench/index.sh <home>   measure another build (its
#                                            bin/amux.js and addon), e.g. main's, side by side
# Needs a release addon (npm run build), ripgrep and hyperfine. The index goes to a fresh
# temporary cache dir (never the user's). RUNS (default 5) processes per figure, medians.
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$(cd "$1" && pwd)
IN_PLACE=$([ "${2:-}" = --in-place ] && echo 1 || true)
ROOT=$(cd "${AMUX_ROOT:-.}" && pwd)
RUNS=${RUNS:-5}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if [ -n "$IN_PLACE" ]; then
  export HOME="$SRC"
else
  cp -a "$SRC" "$WORK/home"
  export HOME="$WORK/home"
fi
export AGENT_MUX_CACHE_DIR="$WORK/cache"
AMUX="node $ROOT/bin/amux.js"
CALLS=(node "$PWD/bench/index-calls.cjs" "$ROOT")
DIRS=()
for d in .claude .codex .gemini .copilot .pi .omp; do [ -d "$HOME/$d" ] && DIRS+=("$HOME/$d"); done
medians_ms() {  # medians of one hyperfine run of every command given, ms
  hyperfine -N -i --warmup 1 --runs "$RUNS" --export-json "$WORK/h.json" "$@" >/dev/null 2>&1
  node -e "const r=require('$WORK/h.json').results; console.log(r.map(x => (x.median * 1000).toFixed(0)).join(' '))"
}
in_process() {  # medians of the fields of bench/index-calls.cjs over RUNS processes
  for _ in $(seq "$RUNS"); do "${CALLS[@]}" "$@"; done | node -e "
    const rows = require('fs').readFileSync(0, 'utf8').trim().split('\n').map(JSON.parse)
    const med = (k) => { const v = rows.map(r => r[k]).sort((a, b) => a - b); return v[v.length >> 1] }
    console.log(Object.keys(rows[0]).map(med).map(x => x.toFixed(0)).join(' '))"
}
ratio() { node -e "console.log(($1 / $2).toFixed(2))"; }

store_bytes=$(du -sb "${DIRS[@]}" | awk '{s+=$1} END {printf "%.0f\n", s}')
echo "home: $SRC, $(find "${DIRS[@]}" -type f | wc -l) files of the file-based agents, $((store_bytes / 1000000)) MB"
echo "build measured: $ROOT ($(git -C "$ROOT" log --oneline -1 2>/dev/null | cut -c1-60))"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average $(cut -d' ' -f1-3 /proc/loadavg), node $(node -v), $(rg --version | head -1)"
# Node reads this file of certificates at every start (tens of ms): part of every amux figure.
echo "NODE_EXTRA_CA_CERTS: ${NODE_EXTRA_CA_CERTS:-unset}"

echo; echo "## first call on a new home (an empty cache): the search answers, the index fills after it"
read -r rgl < <(medians_ms "rg -uuu -i -F -l kubernetes ${DIRS[*]}")
# The library in a new process, from just before require to the settled promise. The process
# exits after its calls, interrupting the thread that fills the index (what it committed stays).
lib_first=$(AGENT_MUX_CACHE_DIR="$WORK/cache-lib" "${CALLS[@]}" search kubernetes | node -e "console.log(Math.round(JSON.parse(require('fs').readFileSync(0, 'utf8')).first))")
echo "library, first call: $lib_first ms = $(ratio "$lib_first" "$rgl")x rg -l ($rgl ms)"
# The CLI, whole process; it leaves the index to a detached amux index update, whose end is
# waited for (the index is then up to date: stale 0).
started=$(date +%s%N)
/usr/bin/time -f '%e %M' -o "$WORK/time" $AMUX sessions search kubernetes >/dev/null 2>&1
read -r secs rss < "$WORK/time"
first=$(node -e "console.log(Math.round($secs * 1000))")
echo "CLI, first call: $first ms = $(ratio "$first" "$rgl")x rg -l; peak RSS $((rss / 1024)) MB"
until [ "$($AMUX index status --json | node -e "console.log(JSON.parse(require('fs').readFileSync(0, 'utf8')).stale)")" = 0 ]; do sleep 0.5; done
filled=$(( ($(date +%s%N) - started) / 1000000 ))
index_bytes=$(du -sb "$AGENT_MUX_CACHE_DIR" | cut -f1)
echo "the index up to date $filled ms after the first call began = $(ratio "$filled" "$rgl")x rg -l"
echo "index $((index_bytes / 1000000)) MB = $(ratio "$index_bytes" "$store_bytes")x the stores' bytes"
# The build alone, in the foreground: its time and peak memory.
/usr/bin/time -f '%e %M' -o "$WORK/time" $AMUX index rebuild >/dev/null 2>&1
read -r secs rss < "$WORK/time"
build=$(node -e "console.log(Math.round($secs * 1000))")
echo "amux index rebuild: $build ms = $(ratio "$build" "$rgl")x rg -l; peak RSS $((rss / 1024)) MB"

echo; echo "## search, index on disk: library first call / warm call, CLI net of node, against rg -l"
echo "| shape | query | hits | first call | warm call | CLI net of node | rg |"
echo "|---|---|---:|---:|---:|---:|---:|"
while IFS='|' read -r shape q rg_q; do
  read -r first warm < <(in_process search "$q")
  read -r a r n < <(medians_ms "$AMUX sessions search '$q'" "rg -uuu -i -F -l $rg_q ${DIRS[*]}" "node -e 0")
  net=$((a - n))
  hits=$($AMUX sessions search "$q" --limit 100000 | wc -l)
  echo "| $shape | \`$q\` | $hits | $first ms, $(ratio "$first" "$r")x | $warm ms, $(ratio "$warm" "$r")x | $net ms, $(ratio "$net" "$r")x | $r ms |"
done <<'EOF'
rare word|kubernetes|kubernetes
word in every session|the|the
word in half the sessions|function|function
two words (AND)|function error|function
phrase|"docker compose"|'docker compose'
OR|kubernetes OR docker|-e kubernetes -e docker
NOT|function NOT error|function
prefix|kube*|kube
CJK|大别山|大别山
EOF

echo; echo "## list claude (every session) against rg -l over .claude"
read -r first warm < <(in_process list claude)
read -r a r n < <(medians_ms "$AMUX sessions list claude --limit 100000" "rg -uuu -i -F -l sessionId $HOME/.claude" "node -e 0")
net=$((a - n))
echo "first call $first ms, $(ratio "$first" "$r")x; warm $warm ms, $(ratio "$warm" "$r")x; CLI net of node $net ms, $(ratio "$net" "$r")x; rg $r ms; node -e 0 $n ms"

[ -n "$IN_PLACE" ] && exit 0
echo; echo "## after appending one message to one session (in process: the next call against a warm one)"
f=$(ls -S "$HOME"/.claude/projects/*/*.jsonl | sed -n 20p)
read -r warm after < <(in_process append kubernetes "$f")
echo "a $(( $(stat -c %s "$f") / 1000 )) kB session: warm $warm ms, the call after the append $after ms ($(ratio "$after" "$warm")x)"
