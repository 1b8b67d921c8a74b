#!/usr/bin/env bash
# Whether two builds keep the same analysis of the same traces: each build's jar ingests every input
# (the analysis included) into a store of its own, then KeptAnalysisDiff compares every kept table of the
# two stores with EXCEPT ALL both ways (file ids as paths). What a change of an analysis stage must keep.
#
#   analyzer/src/test/scripts/kept-analysis-same.sh BASE_JAR WORK_DIR INPUT... 
#
# BASE_JAR: the build before (e.g. a checkout of the branch point built with mvn -pl analyzer package); the
# build after is this worktree's analyzer/target/steptrace.jar, with its test classes (mvn test-compile).
# INPUT: trace directories or files; each becomes one store per build (default inputs: ../shared/compat-traces,
# ../shared/sample-traces and sample-traces/). Exits 1 when any table differs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)"
base="$1"; work="$2"; shift 2
inputs=("$@")
if [ ${#inputs[@]} -eq 0 ]; then
  inputs=("$here/../shared/compat-traces" "$here/../shared/sample-traces" "$here/sample-traces")
fi
new="$here/analyzer/target/steptrace.jar"
java_opts=(-Xmx768m -XX:+UseParallelGC)
mkdir -p "$work"
status=0
i=0
for input in "${inputs[@]}"; do
  i=$((i + 1))
  for side in base new; do
    jar="$base"; [ "$side" = new ] && jar="$new"
    rm -f "$work/$i-$side.duckdb" "$work/$i-$side.duckdb.wal"
    java "${java_opts[@]}" -jar "$jar" ingest "$input" --db "$work/$i-$side.duckdb" --quiet >/dev/null 2>"$work/$i-$side.log" || true
  done
  echo "== $input"
  java -cp "$here/analyzer/target/test-classes:$new" dev.steptrace.testsupport.KeptAnalysisDiff \
    "$work/$i-base.duckdb" "$work/$i-new.duckdb" || status=1
done
exit $status
