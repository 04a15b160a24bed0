#!/usr/bin/env bash
# Every benchmark in one command. Generates its data on first use (deterministic seeds), builds the
# release addon, then prints the figures that go into bench/RESULTS.md.
#   bash bench/run.sh            # full size: 10,000 sessions (>1 GB), a 200 MB session, 1M-message Hermes db
#   BENCH_SESSIONS=1000 BENCH_SCALE=10 bash bench/run.sh    # a quick smaller run
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
if [ ! -f "$DATA/hermes/.hermes/state.db" ]; then
  # 20,000 sessions x ~50 messages = ~1M messages
  python3 scripts/gen_home.py --out "$DATA/hermes" --agents hermes --sessions "$HERMES_SESSIONS" --seed 2 --scale 44
fi
[ -x bench/tools/node_modules/.bin/ccusage ] || npm install --prefix bench/tools --no-audit --no-fund ccusage@20.0.24 >/dev/null  # 20.0.26 has no linux-x64 binary package on the registry

echo "## machine"
echo "$(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB RAM, $(uname -sr), node $(node --version), $(rustc --version)"
echo "data: $(du -sh "$HOME_DIR" | cut -f1) in $(find "$HOME_DIR" -type f | wc -l) files; hermes db $(du -sh "$DATA/hermes/.hermes/state.db" | cut -f1)"

npm run build >/dev/null 2>&1
ABS_HOME=$(cd "$HOME_DIR" && pwd)
FILE_DIRS=("$ABS_HOME/.claude" "$ABS_HOME/.codex" "$ABS_HOME/.gemini" "$ABS_HOME/.copilot" "$ABS_HOME/.pi" "$ABS_HOME/.omp")
M() { node bench/measure.mjs "$@"; }

echo; echo "## search vs rg -i -F -l (file-based agents, same directories, page cache warm)"
for word in kubernetes borrow; do
  hyperfine -N --warmup 1 --runs 5 --export-json "/tmp/amux-search-$word.json" \
    -n "rg $word" "rg -i -F -l $word ${FILE_DIRS[*]}" \
    -n "amux search $word" "node bench/measure.mjs search $ABS_HOME $word" 2>/dev/null | grep -E "Time|±|faster" || true
  node -e "
    const r = require('/tmp/amux-search-$word.json').results;
    const [rg, amux] = r.map(x => x.median * 1000);
    console.log('$word: rg median ' + rg.toFixed(0) + ' ms, amux median ' + amux.toFixed(0) + ' ms, ratio ' + (amux / rg).toFixed(2));"
done
M search "$ABS_HOME" kubernetes

echo; echo "## list (all agents) cold and warm"
M list "$ABS_HOME"

echo; echo "## totalCost vs ccusage daily --offline (Claude + Codex data)"
TZ=UTC M cost "$ABS_HOME" day claude > /tmp/amux-cost-claude.json
TZ=UTC M cost "$ABS_HOME" day codex > /tmp/amux-cost-codex.json
hyperfine -N --warmup 1 --runs 3 \
  -n "ccusage claude daily" "env HOME=$ABS_HOME bench/tools/node_modules/.bin/ccusage daily --json --offline" \
  -n "amux totalCost day" "node bench/measure.mjs cost $ABS_HOME day claude" 2>/dev/null | grep -E "Time|faster" || true
TZ=UTC HOME=$ABS_HOME bench/tools/node_modules/.bin/ccusage daily --json --offline > /tmp/ccusage-claude.json 2>/dev/null || true
TZ=UTC HOME=$ABS_HOME bench/tools/node_modules/.bin/ccusage codex daily --json --offline > /tmp/ccusage-codex.json 2>/dev/null || true
node bench/compare-ccusage.mjs /tmp/amux-cost-claude.json /tmp/ccusage-claude.json claude "$ABS_HOME/.claude" || true
node bench/compare-ccusage.mjs /tmp/amux-cost-codex.json /tmp/ccusage-codex.json codex "$ABS_HOME/.codex" || true

echo; echo "## get / export of the 200 MB session"
ls -la "$ABS_HOME"/.claude/projects/*/$HUGE_ID.jsonl | awk '{print "file bytes:", $5}'
M get "$ABS_HOME" claude $HUGE_ID
M export "$ABS_HOME" claude $HUGE_ID json
M export "$ABS_HOME" claude $HUGE_ID markdown

echo; echo "## Hermes search on a ~1M-message state.db (median of 21 after the first)"
ABS_HERMES=$(cd "$DATA/hermes" && pwd)
M search-warm "$ABS_HERMES" kubernetes hermes
M search-warm "$ABS_HERMES" "大别山" hermes

echo; echo "## diff of two 10,000-message sessions: see the diff section of bench/RESULTS.md (cargo bench example)"
