#!/usr/bin/env bash
# Objects against JSON text across the binding, per call (bench/contract.mjs), on a home of 3,750
# Claude sessions and one of 200 MB (written once, about 10 s of one core), the index warm.
#   bash bench/contract.sh                 # builds the release addon first
#   BENCH_NO_BUILD=1 bash bench/contract.sh  # with the addon as built
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${BENCH_DATA:-bench/data}
HOME_DIR="$DATA/contract-home"
HUGE_ID=00000000-0000-4000-8000-000000000200
if [ ! -d "$HOME_DIR" ]; then
  python3 scripts/gen_home.py --out "$HOME_DIR" --agents claude --sessions 3750 --seed 1 --scale 4 --huge-mb 200 >/dev/null
fi
[ -n "${BENCH_NO_BUILD:-}" ] || npm run build >/dev/null 2>&1
ABS_HOME=$(cd "$HOME_DIR" && pwd)
export BENCH_CACHE_DIR=${BENCH_CACHE_DIR:-$(mktemp -d)}
# The index, filled once: every call below reads it as a Node app's would.
HOME="$ABS_HOME" node -e "
  const { createClient } = require('./index.js')
  createClient({ cacheDir: process.env.BENCH_CACHE_DIR, indexUpdates: 'wait' }).index.update().then((s) => console.error('index:', s.sessions, 'sessions'))
"
# The table goes to stdout and to bench/contract.md, which bench/results.sh puts in RESULTS.md.
{
  echo "Measured by \`bash bench/contract.sh\` on $(git rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M UTC'),"
  echo "$(nproc) cores, node $(node --version), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start."
  echo
  node bench/contract.mjs "$ABS_HOME" "$HUGE_ID"
} | tee bench/contract.md
