#!/usr/bin/env bash
# The report benchmark: `steptrace report` on an ingested 8-rank, 200-step synthetic capture (the
# target: under 2 s), each case run RUNS times as a whole command (JVM start, the unchanged-files check,
# analysis, writing), printing the median, min and max wall time and the peak RSS.
#
#   analyzer/bench/report.sh [WORK_DIR] [RUNS]      (default: a new temporary directory, 5 runs)
#
# Cases: a report whose analysis runs (the analysis that ingest keeps in the store is deleted before each
# run), and a report right after `steptrace ingest` (which analysed the capture and kept the analysis in
# the store's analysis tables), each as all three formats and as report.json alone.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
st="$here/steptrace"
work="${1:-$(mktemp -d)}"
runs="${2:-5}"
capture="$work/capture-8rank-200step"
db="$work/report-bench.duckdb"
mkdir -p "$work"
if [ ! -d "$capture" ]; then
  "$st" synth --preset moe-tp8-graph --ranks 8 --steps 200 --prefill-steps 1 --out "$capture" -q >/dev/null
fi
rm -f "$db" "$db.wal"
"$st" ingest "$capture" --db "$db" -q >/dev/null 2>&1
# One report records the launcher's class-data sharing archive (done once after each build).
"$st" report "$capture" --db "$db" -q --out "$work/out" >/dev/null 2>&1

source "$here/analyzer/bench/timing.sh"

# case LABEL KEEP(yes|no) REPORT-ARGS...
bench_case() {
  local label="$1" keep="$2"; shift 2
  local setup=""
  if [ "$keep" = no ]; then
    setup="\"$st\" query --write --db \"$db\" \"DELETE FROM analyses\""
  fi
  time_runs "$label" "$runs" "$setup" "$st" report "$capture" --db "$db" -q --out "$work/out" "$@"
}

echo "steptrace report on $capture ($runs runs each, median wall time)"
bench_case "analysis included, html+md+json" no
bench_case "analysis included, --format json" no --format json
bench_case "after ingest (analysis kept), html+md+json" yes
bench_case "after ingest (analysis kept), --format json" yes --format json
