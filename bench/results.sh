#!/usr/bin/env bash
# Writes bench/RESULTS.md: the current figures, all measured in one run of this script on data it
# generates itself, stamped with the commit and the machine.
#   bash bench/results.sh                     a 1.1 GB home (7,500 Claude and Codex sessions)
#   BENCH_SESSIONS=75000 bash bench/results.sh    an 11 GB home (read in place, not copied)
#   BENCH_HUGE_MB=200                         the large session that get and read_session open
#   OUT=/tmp/results.md                       write elsewhere than bench/RESULTS.md
#   SKIP_BUILD=1                              measure the addon already built (else `npm run build`)
#   RUNS=5                                    processes per figure (medians)
# Run it at low priority on a quiet machine: `nice -n 19 bash bench/results.sh`. The data lives
# in BENCH_DATA (default bench/data, git-ignored) and is generated once (deterministic seeds).
# Needs python3, ripgrep and hyperfine (apt-get install ripgrep hyperfine); ccusage is installed
# from npm into bench/tools on first use. `bench/run.sh` is the longer run (page cache cold,
# Hermes' 1M-message database).
set -euo pipefail
cd "$(dirname "$0")/.."
SESSIONS=${BENCH_SESSIONS:-7500}
HUGE_MB=${BENCH_HUGE_MB:-200}
DATA=${BENCH_DATA:-bench/data}
OUT=${OUT:-bench/RESULTS.md}
export RUNS=${RUNS:-5}
HOME_DIR="$DATA/home-$SESSIONS"
HUGE_DIR="$DATA/huge-${HUGE_MB}mb"
HUGE_ID=00000000-0000-4000-8000-000000000200

for tool in python3 rg hyperfine; do
  command -v $tool >/dev/null || { echo "bench/results.sh: $tool is needed (apt-get install ripgrep hyperfine)" >&2; exit 1; }
done
# 7,500 sessions at scale 36 make 1.1 GB: the size grows with the number of sessions.
if [ ! -d "$HOME_DIR" ]; then
  python3 scripts/gen_home.py --out "$HOME_DIR" --agents claude,codex --sessions "$SESSIONS" --seed 1 --scale 36 >&2
fi
if [ ! -d "$HUGE_DIR" ]; then
  python3 scripts/gen_home.py --out "$HUGE_DIR" --agents claude --sessions 0 --huge-mb "$HUGE_MB" >&2
fi
[ -x bench/tools/node_modules/.bin/ccusage ] ||
  npm install --prefix bench/tools --no-audit --no-fund ccusage@20.0.24 >/dev/null # 20.0.26 has no linux-x64 binary package
[ -n "${SKIP_BUILD:-}" ] || npm run build >/dev/null 2>&1
ABS_HOME=$(cd "$HOME_DIR" && pwd)
ABS_HUGE=$(cd "$HUGE_DIR" && pwd)
HUGE_FILE=$(ls "$ABS_HUGE"/.claude/projects/*/$HUGE_ID.jsonl)
# A home of several GB is read where it is (bench/index.sh copies a smaller one, to append to it).
IN_PLACE=$([ "$SESSIONS" -ge 30000 ] && echo --in-place || true)
BODY=$(mktemp)
ERR=$(mktemp)
trap 'rm -f "$BODY" "$ERR"' EXIT
# The commit measured is the one checked out when the run starts.
commit=$(git log -1 --format='%h %s' | cut -c1-72)
dirty=$(git status --porcelain --untracked-files=no | grep -q . && echo ", with uncommitted changes" || true)
started=$(date -u '+%Y-%m-%d %H:%M UTC')
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
FAILED=0
# One measurement: its output goes into the page; when it fails, the page says so with the end of
# its stderr, the other measurements still run, and the script exits 1 at the end.
run() {
  if ! "$@" >>"$BODY" 2>"$ERR"; then
    FAILED=1
    { echo "FAILED: $*"; tail -n 20 "$ERR"; } >>"$BODY"
    echo "bench/results.sh: FAILED: $*" >&2
  fi
}
fenced() { echo '```' >>"$BODY"; run "$@"; echo '```' >>"$BODY"; }
say() { printf '%s\n' "$@" >>"$BODY"; }

say "## Search and list against ripgrep (bench/index.sh)" ""
fenced bash bench/index.sh "$ABS_HOME" $IN_PLACE
say "" "## Cost reports against ccusage (bench/compare-ccusage.mjs, bench/cost.sh)" ""
say "Agreement, row by row and block by block, in UTC:" ""
fenced node bench/compare-ccusage.mjs "$ABS_HOME" --agents claude,codex --cross-midnight
say "" "Time and peak memory, whole processes, the index warm (\`node -e 0\` measured in the same run):" ""
run bash bench/cost.sh "$ABS_HOME" claude,codex
say "" "## get and export of a ${HUGE_MB} MB session (bench/measure.mjs, one process each)" ""
say "File: $(stat -c %s "$HUGE_FILE") bytes; \`maxRssMb\` is the process's peak." ""
fenced sh -c "node bench/measure.mjs get '$ABS_HUGE' claude $HUGE_ID &&
  node bench/measure.mjs export '$ABS_HUGE' claude $HUGE_ID json &&
  node bench/measure.mjs export '$ABS_HUGE' claude $HUGE_ID markdown"
say "" "## amux mcp against ripgrep (bench/mcp.mjs)" ""
fenced node bench/mcp.mjs --home "$ABS_HOME" --huge "$ABS_HUGE" --runs "$RUNS"
say "" "## diff of two 10,000-message sessions (the Rust core, release)" ""
fenced cargo run --quiet --release -p agent-mux-sessions --example diff_bench

{
  cat <<EOF
# Benchmark results

The current figures, written by \`bash bench/results.sh\` (\`BENCH_SESSIONS=75000\` for 11 GB) in
one run on data it generates itself. Do not edit by hand: run the script again. The diary of past
rounds (the index's fifteen rounds, profiles, decisions) left this file; git keeps it:
\`git log -p -- bench/RESULTS.md\`, or \`git show 3687bf1:bench/RESULTS.md\` for the whole diary as
it last was.

- **Commit:** $commit$dirty
- **Run:** $started; load average $load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end
- **Machine:** $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/{print $2}') GiB RAM, $(uname -sr)
- **Addon:** $([ -n "${SKIP_BUILD:-}" ] && echo 'as already built (SKIP_BUILD: check it is a release build)' || echo 'release, built by this run (npm run build)')
- **Tools:** node $(node -v), $(rg --version | sed -n 1p), $(hyperfine --version), $(rustc --version | cut -d' ' -f1-2)
- **Data:** $(du -sh "$ABS_HOME" | cut -f1) home of $(find "$ABS_HOME" -type f | wc -l) files (\`gen_home.py --agents claude,codex --sessions $SESSIONS --seed 1 --scale 36\`); a ${HUGE_MB} MB Claude session apart

## How we measure speed

- **Against a floor, in the same run.** Every time of ours is given beside \`rg -uuu -i -F -l\`
  over the same directories (or \`ccusage … --offline\` for cost reports), and \`node -e 0\`,
  measured in the same run, so load on the machine moves both sides. The ratio is the figure;
  milliseconds alone are not comparable across runs.
- **Whole processes and in process.** The CLI is timed as a whole process (hyperfine \`-N\`,
  medians of \`RUNS\`), also net of \`node -e 0\`; the library as a Node app sees it: the first
  call in a new process from just before \`require\`, and a warm call on the same client.
- **Medians, release build, a fresh cache directory.** Never the user's index; the index is
  built by a first call before a warm figure is taken. Peak memory is \`/usr/bin/time\`'s maximum
  RSS of the process.
- **The machine is stamped above.** On a shared machine (load average over the core count) the
  ratios are pessimistic for us: rg's parallel walk suffers less from load than our
  single-threaded parts.

EOF
  cat "$BODY"
  echo
  echo "## Objects or JSON text across the binding"
  echo
  echo "Each call is built both ways from the same Rust structs; the faster way is the one kept:"
  echo "JSON text for every call but \`get\`, whose session is built as JS objects."
  echo
  if [ -f bench/contract.md ]; then cat bench/contract.md; else echo "Not measured yet: \`bash bench/contract.sh\`."; fi
  echo
  echo "## Build times"
  echo
  # A fresh clone's first hour takes a quiet machine and a quarter of an hour of its own:
  # bench/build-times.sh measures it apart and leaves its table here.
  if [ -f bench/build-times.md ]; then cat bench/build-times.md; else echo "Not measured yet: \`bash bench/build-times.sh\`."; fi
  echo
  echo "## Redaction (bench/redact.mjs)"
  echo
  # Measured apart, on a home of its own: false positives per 10 MB and the time redaction adds.
  if [ -f bench/redact.md ]; then cat bench/redact.md; else echo "Not measured yet: \`node bench/redact.mjs\`."; fi
  echo
  echo "## Keep (bench/keep.mjs)"
  echo
  if [ -f bench/keep.md ]; then cat bench/keep.md; else echo "Not measured yet: \`node bench/keep.mjs <home>\`."; fi
  # Measured apart too, each on a home of its own (their pages say how).
  for part in "files:Files touched, projects and the recap (bench/files.mjs)" \
    "team:The team database (bench/team.mjs, bench/team-read.mjs, bench/team-driver.mjs)" \
    "watch:A client that lives, with file events (bench/watch.mjs)"; do
    echo
    echo "## ${part#*:}"
    echo
    if [ -f "bench/${part%%:*}.md" ]; then sed -e 1d -e "s/^## /### /" "bench/${part%%:*}.md"; else echo "Not measured yet."; fi
  done
} >"$OUT"
echo "bench/results.sh: wrote $OUT" >&2
exit $FAILED
