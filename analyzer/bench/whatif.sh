#!/usr/bin/env bash
# The what-if benchmark: `steptrace whatif` of an ingested 8-rank, 100-step synthetic capture (target: under
# 10 s), run RUNS times as a whole command (JVM start, the unchanged-files check, every rank's events read from
# the store, the replay as captured and as changed, the critical paths), printing the median, min and max wall
# time and the peak RSS. The machine's load average is printed first: the figures mean little on a busy machine.
#
#   analyzer/bench/whatif.sh [WORK_DIR] [RUNS]      (default: a new temporary directory, 3 runs)
#
# Cases: CUDA-graph decode (moe-tp8-graph) and eager decode (moe-tp8-eager, every kernel launched on its own),
# each with its all-reduces at a quarter of their time, on a store where `steptrace ingest` has loaded and
# analysed the capture.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
st="$here/steptrace"
work="${1:-$(mktemp -d)}"
runs="${2:-3}"
db="$work/whatif-bench.duckdb"
mkdir -p "$work"
rm -f "$db" "$db.wal"
source "$here/analyzer/bench/timing.sh"
echo "steptrace whatif, 8 ranks x 100 decode steps ($runs runs each, median wall time; load average $(cut -d' ' -f1-3 /proc/loadavg))"
for preset in moe-tp8-graph moe-tp8-eager; do
  capture="$work/$preset-8rank-100step"
  if [ ! -d "$capture" ]; then
    "$st" synth --preset "$preset" --ranks 8 --steps 100 --out "$capture" -q >/dev/null
  fi
  "$st" ingest "$capture" --db "$db" -q >/dev/null 2>&1
  ops=$("$st" query --db "$db" --format csv "SELECT count(*) FROM gpu_ops JOIN capture_files c USING (file_id)
        JOIN captures USING (capture_id) WHERE captures.path = '$capture'" | tail -1)
  time_runs "$preset ($ops GPU operations)" "$runs" "" "$st" whatif "$capture" --db "$db" -q --scale allreduce=0.25
done
