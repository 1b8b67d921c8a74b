# Sourced by run_single_gpu.sh and run_multi_gpu.sh: capture_each NAME... runs the named commands of their CMD
# (an associative array) one after another, each with a time limit of its own (so one that fails leaves the
# others), its log under $OUT/logs, and packed as $PACK_DIR/NAME.tar.gz as soon as it is written when PACK_DIR
# is set (a lent machine's output folder, which takes few files).
capture_each() {
  local name t0
  for name in "$@"; do
    t0=$SECONDS
    timeout 300 ${CMD[$name]} > "$OUT/logs/$name.log" 2>&1
    echo "$name: exit $? in $((SECONDS - t0)) s" | tee -a "$OUT/logs/summary.txt"
    tail -n 3 "$OUT/logs/$name.log"
    if [ -n "${PACK_DIR:-}" ] && [ -d "$OUT/$name" ]; then
      cp "$OUT/logs/$name.log" "$OUT/$name/capture.log"; cp "$OUT/logs/gpu.txt" "$OUT/$name/gpu.txt"
      tar czf "$PACK_DIR/$name.tar.gz" -C "$OUT" "$name"
    fi
  done
  cat "$OUT/logs/summary.txt"
  ls -laR "$OUT" | grep -v '^total'
}
