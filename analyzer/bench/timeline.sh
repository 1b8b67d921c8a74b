#!/usr/bin/env bash
# The timeline benchmark: `steptrace timeline` of one step of an ingested 2 GB capture (the
# target: under 2 s), run RUNS times as a whole command (JVM start, the unchanged-files check, the
# kept analysis and the steps' events read, writing the file), printing the median, min and max wall
# time, the peak RSS, and the file's size. The machine's load average is printed first: the figures
# mean little on a busy machine.
#
#   analyzer/bench/timeline.sh [WORK_DIR] [RUNS] [RANKS] [SIZE_PER_RANK]
#       (default: a new temporary directory, 5 runs, 8 ranks of 256MB of JSON: 2 GB in all)
#
# Cases: one step (the middle decode step), and the command's default (the slowest decode step and its
# neighbours), on a store where `steptrace ingest` has loaded and analysed the capture.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
st="$here/steptrace"
work="${1:-$(mktemp -d)}"
runs="${2:-5}"
ranks="${3:-8}"
size="${4:-256MB}"
capture="$work/capture-${ranks}rank-${size}"
db="$work/timeline-bench.duckdb"
mkdir -p "$work"
if [ ! -d "$capture" ]; then
  "$st" synth --preset moe-tp8-graph --ranks "$ranks" --steps 20 --target-size "$size" --out "$capture" -q >/dev/null
fi
rm -f "$db" "$db.wal"
"$st" ingest "$capture" --db "$db" -q >/dev/null 2>&1
# The capture's size and decode steps, from synth's ground truth.
read -r json_mb steps < <(python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))
print(round(sum(f["json_bytes"] for f in e["files"]) / 1e6), e["phases"]["decode"]["steps"])' "$capture/EXPECTED.json")
source "$here/analyzer/bench/timing.sh"

out="$work/timeline.json.gz"
echo "steptrace timeline on $capture: $ranks ranks, $json_mb MB of JSON, $steps decode steps ($runs runs each, median wall time; load average $(cut -d' ' -f1-3 /proc/loadavg))"
time_runs "one step (decode step $(( steps / 2 )))" "$runs" "" "$st" timeline "$capture" --db "$db" -q --out "$out" --steps "$(( steps / 2 ))"
echo "    file: $(( $(stat -c %s "$out") / 1024 )) kB"
time_runs "default (slowest decode step, neighbours)" "$runs" "" "$st" timeline "$capture" --db "$db" -q --out "$out"
echo "    file: $(( $(stat -c %s "$out") / 1024 )) kB"
