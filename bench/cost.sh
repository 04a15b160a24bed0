#!/usr/bin/env bash
# amux's cost reports against ccusage's, whole processes side by side on one home:
#   bash bench/cost.sh <home> [agents]      (default agents: claude,codex)
# For each agent and each report both have (daily, weekly, monthly, session; Claude's blocks),
# `amux cost <report> --agent <a> --json` against `ccusage <a> <report> --json --offline`, and
# `node -e 0` in the same run: median wall time (hyperfine -N) and peak RSS (/usr/bin/time, the
# largest of its runs). The home is read where it is; amux's index lives in a fresh temporary
# cache directory, built by a first call before anything is timed (the "index warm" case).
# ONCE=1 (a home of several GB, where ccusage takes minutes a report) runs each command once
# under /usr/bin/time for both figures instead.
# Needs the release addon (npm run build), hyperfine, and ccusage 20.0.24 in bench/tools
# (npm install --prefix bench/tools ccusage@20.0.24).
set -euo pipefail
cd "$(dirname "$0")/.."
export HOME=$(cd "$1" && pwd)
AGENTS=${2:-claude,codex}
export TZ=UTC
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export AGENT_MUX_CACHE_DIR="$WORK/cache"
AMUX="node $PWD/bin/amux.js"
CCUSAGE="$PWD/bench/tools/node_modules/.bin/ccusage"
RUNS=${RUNS:-5}
CC_RUNS=${CC_RUNS:-3}

median_ms() {  # <runs> <command>: the median of hyperfine's runs, in ms
  local runs=$1; shift
  hyperfine -N -i --warmup 1 --runs "$runs" --export-json "$WORK/h.json" "$*" >/dev/null 2>&1
  node -e "console.log((require('$WORK/h.json').results[0].median * 1000).toFixed(0))"
}
peak_mb() {  # <command>: the largest peak RSS of three runs, MB
  local most=0 kb
  for _ in 1 2 3; do
    /usr/bin/time -f %M -o "$WORK/t" "$@" >/dev/null 2>&1 || true
    kb=$(tail -n1 "$WORK/t")
    [ "$kb" -gt "$most" ] && most=$kb
  done
  echo $((most / 1024))
}

once() {  # <command>: "<wall ms> <peak RSS MB>" of one run
  /usr/bin/time -f '%e %M' -o "$WORK/t" "$@" >/dev/null 2>&1 || true
  read -r secs kb < <(tail -n1 "$WORK/t")
  node -e "console.log(Math.round($secs * 1000), Math.round($kb / 1024))"
}

echo "home: $HOME, $(du -sh "$HOME" | cut -f1)"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), node $(node -v), ccusage $($CCUSAGE --version 2>/dev/null)"
start=$(date +%s%N)
for a in ${AGENTS//,/ }; do $AMUX cost daily --agent "$a" --json >/dev/null; done
echo "index built by a first call: $(( ($(date +%s%N) - start) / 1000000 )) ms"
echo "node -e 0: $(median_ms "$RUNS" node -e 0) ms, $(peak_mb node -e 0) MB"
echo
echo "| agent | report | amux | ccusage | ratio | amux peak RSS | ccusage peak RSS |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
for a in ${AGENTS//,/ }; do
  case $a in
    claude) reports="daily weekly monthly session blocks" ;;
    opencode) reports="daily weekly monthly session" ;;
    *) reports="daily monthly session" ;;
  esac
  for r in $reports; do
    if [ "$r" = blocks ]; then mine="$AMUX cost blocks --json"; else mine="$AMUX cost $r --agent $a --json"; fi
    theirs="$CCUSAGE $a $r --json --offline"
    if [ -n "${ONCE:-}" ]; then
      read -r m mp < <(once $mine)
      read -r t tp < <(once $theirs)
    else
      m=$(median_ms "$RUNS" $mine); mp=$(peak_mb $mine)
      t=$(median_ms "$CC_RUNS" $theirs); tp=$(peak_mb $theirs)
    fi
    echo "| $a | $r | $m ms | $t ms | $(node -e "console.log(($m / $t).toFixed(3))") | $mp MB | $tp MB |"
  done
done
