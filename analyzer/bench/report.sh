#!/usr/bin/env bash
# The report benchmark: `steptrace report` on an ingested 8-rank, 200-step synthetic capture (issue #3's
# target: under 2 s), each case run RUNS times as a whole command (JVM start, the unchanged-files check,
# analysis, writing), printing the median, min and max wall time and the peak RSS.
#
#   analyzer/bench/report.sh [WORK_DIR] [RUNS]      (default: a new temporary directory, 5 runs)
#
# Cases: a report whose analysis runs (the report content that ingest keeps is deleted before each run),
# and a report right after `steptrace ingest` (which analysed the capture and kept its report content),
# each as all three formats and as report.json alone.
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

gnu_time=""
if /usr/bin/time -f %M true 2>/dev/null; then gnu_time=/usr/bin/time; fi

# case LABEL KEEP(yes|no) REPORT-ARGS...
bench_case() {
  local label="$1" keep="$2"; shift 2
  local walls=() rss=0
  for ((i = 0; i < runs; i++)); do
    if [ "$keep" = no ]; then
      "$st" query --db "$db" "DELETE FROM report_cache" >/dev/null
    fi
    local t0 t1 kb
    t0=$(date +%s%N)
    if [ -n "$gnu_time" ]; then
      kb=$($gnu_time -f %M -o /dev/stdout "$st" report "$capture" --db "$db" -q --out "$work/out" "$@" 2>/dev/null | tail -1)
      rss=$(( kb > rss ? kb : rss ))
    else
      "$st" report "$capture" --db "$db" -q --out "$work/out" "$@" >/dev/null 2>&1
    fi
    t1=$(date +%s%N)
    walls+=($(( (t1 - t0) / 1000000 )))
  done
  local sorted
  sorted=$(printf '%s\n' "${walls[@]}" | sort -n)
  local median min max
  median=$(echo "$sorted" | sed -n "$(( (runs + 1) / 2 ))p")
  min=$(echo "$sorted" | head -1)
  max=$(echo "$sorted" | tail -1)
  awk -v l="$label" -v med="$median" -v lo="$min" -v hi="$max" -v rss="$([ -n "$gnu_time" ] && echo "$((rss / 1024)) MB" || echo "n/a (no GNU time)")" \
    'BEGIN { printf "%-48s %6.2f s  (min %.2f, max %.2f)  peak RSS %s\n", l, med / 1000, lo / 1000, hi / 1000, rss }'
}

echo "steptrace report on $capture ($runs runs each, median wall time)"
bench_case "analysis included, html+md+json" no
bench_case "analysis included, --format json" no --format json
bench_case "after ingest (report kept), html+md+json" yes
bench_case "after ingest (report kept), --format json" yes --format json
