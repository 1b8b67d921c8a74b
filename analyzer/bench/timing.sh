# Sourced by the benchmark scripts: whole commands timed as a user runs them.
#
# time_runs LABEL RUNS SETUP COMMAND...
#   runs SETUP (a shell command, or "" for none) and then COMMAND, RUNS times, and prints one line: the
#   median, min and max wall time of COMMAND (JVM start included) and its peak RSS (GNU time, when
#   installed). COMMAND's output is discarded.
time_runs() {
  local label="$1" runs="$2" setup="$3"; shift 3
  local gnu_time="" walls=() rss=0
  if /usr/bin/time -f %M true 2>/dev/null; then gnu_time=/usr/bin/time; fi
  for ((i = 0; i < runs; i++)); do
    if [ -n "$setup" ]; then
      eval "$setup" >/dev/null
    fi
    local t0 t1 kb
    t0=$(date +%s%N)
    if [ -n "$gnu_time" ]; then
      kb=$($gnu_time -f %M -o /dev/stdout "$@" 2>/dev/null | tail -1)
      rss=$(( kb > rss ? kb : rss ))
    else
      "$@" >/dev/null 2>&1
    fi
    t1=$(date +%s%N)
    walls+=($(( (t1 - t0) / 1000000 )))
  done
  local sorted median min max
  sorted=$(printf '%s\n' "${walls[@]}" | sort -n)
  median=$(echo "$sorted" | sed -n "$(( (runs + 1) / 2 ))p")
  min=$(echo "$sorted" | head -1)
  max=$(echo "$sorted" | tail -1)
  awk -v l="$label" -v med="$median" -v lo="$min" -v hi="$max" -v rss="$([ -n "$gnu_time" ] && echo "$((rss / 1024)) MB" || echo "n/a (no GNU time)")" \
    'BEGIN { printf "%-48s %6.2f s  (min %.2f, max %.2f)  peak RSS %s\n", l, med / 1000, lo / 1000, hi / 1000, rss }'
}
