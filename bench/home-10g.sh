#!/usr/bin/env bash
# The 10 GB bench home: ten seeds of the 1 GB tool-heavy generator (Claude and Codex, 7,500
# sessions each, real vocabulary, file edits) merged into one home by hard links. One generator
# run of 75,000 sessions would hold a whole agent's sessions in memory; ten seeds do not, and the
# first seed is itself the 1 GB home (h1g-real) the other benchmarks use.
#
#   bash bench/home-10g.sh [OUT_DIR]     # default /work/homes; makes OUT/gen/s1..s10 and OUT/h10g
#
# Two seeds are written at a time (about 20 minutes on 2 cores); a seed already written is kept.
set -euo pipefail
out=${1:-/work/homes}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out/gen"
seed() {
  local k=$1 dir="$out/gen/s$1"
  [ -f "$dir/.done" ] && return 0
  rm -rf "$dir"
  python3 "$here/scripts/gen_home.py" --out "$dir" --agents claude,codex --sessions 7500 \
    --seed "$k" --scale 36 --vocabulary real --file-edits > "$dir.log" 2>&1
  touch "$dir/.done"
}
for pair in "1 2" "3 4" "5 6" "7 8" "9 10"; do
  for k in $pair; do seed "$k" & done
  wait
done
mkdir -p "$out/h10g"
for k in $(seq 1 10); do
  # -n keeps the first seed's copy of a shared file (the agents' settings files).
  (cd "$out/gen/s$k" && cp -al -n . "$out/h10g/")
done
rm -f "$out/h10g/.done"
ln -sfn "$out/gen/s1" "$out/h1g-real"
du -sh "$out/gen/s1" "$out/h10g"
find "$out/h10g" -name '*.jsonl' | wc -l
