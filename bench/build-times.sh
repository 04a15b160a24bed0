#!/usr/bin/env bash
# The first hour of a new contributor, timed: a fresh clone of this checkout's HEAD with no
# ../shared beside it, an empty cargo home (registry and build) and an empty npm cache, then the
# README's two commands, `npm ci && npm run demo` and `npm test`, one after the other. Writes
# bench/build-times.md (bench/results.sh puts it in RESULTS.md): wall time, CPU time, the crates
# compiled and the load average while it ran, stamped with the commit and the machine.
#
#   bash bench/build-times.sh            # about 15 minutes on 2 cores
#
# Wall times move with the machine's load; CPU time and the crates compiled do not, much.
set -uo pipefail
repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
commit=$(git -C "$repo" rev-parse --short HEAD)
work=$(mktemp -d /tmp/amux-build-times.XXXXXX)
trap 'rm -rf "$work"' EXIT
git clone --quiet --no-hardlinks "$repo" "$work/clone"
git -C "$work/clone" checkout --quiet --detach "$commit"
export CARGO_HOME=$work/cargo npm_config_cache=$work/npm
unset CARGO_TARGET_DIR CARGO_BUILD_TARGET RUSTFLAGS AGENT_MUX_REQUIRE_FIXTURES
# cargo and rustup themselves stay where they are installed.
export PATH="$(dirname "$(command -v cargo)"):$PATH"
export RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}

rows=()
for phase in demo test; do
  case $phase in
    demo) cmd='npm ci --no-audit --no-fund && npm run demo' ;;
    test) cmd='npm test' ;;
  esac
  ( while sleep 10; do cut -d' ' -f1 /proc/loadavg; done >"$work/$phase.load" ) &
  sampler=$!
  start=$(date +%s)
  (cd "$work/clone" && /usr/bin/time -f '%U %S' -o "$work/$phase.time" bash -c "$cmd" >"$work/$phase.log" 2>&1)
  rc=$?
  wall=$(( $(date +%s) - start ))
  kill $sampler 2>/dev/null
  read -r user sys <"$work/$phase.time"
  crates=$(grep -c '^ *Compiling ' "$work/$phase.log")
  load=$(awk '{s+=$1} END {if (NR) printf "%.1f", s/NR; else print "?"}' "$work/$phase.load")
  [ $rc = 0 ] || { echo "bench/build-times.sh: '$cmd' failed (exit $rc); its log:" >&2; tail -40 "$work/$phase.log" >&2; exit 1; }
  rows+=("| \`$cmd\` | $((wall / 60)) min $((wall % 60)) s | $(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.0f", u + s}') s | $crates | $load |")
done

{
  echo "Measured by \`bash bench/build-times.sh\` on $commit, $(date -u '+%Y-%m-%d %H:%M UTC'): a fresh clone"
  echo "without \`../shared\`, empty cargo home and npm cache; $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"
  echo "Node $(node --version), $(cargo --version | cut -d' ' -f1-2)."
  echo
  echo "| command | wall | CPU (user + sys) | crates compiled | mean load |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} >"$repo/bench/build-times.md"
cat "$repo/bench/build-times.md"
