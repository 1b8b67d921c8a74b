"""Slims a Kineto trace for the tests: keeps one profiler step (the CPU events that start inside the first
ProfilerStep range, and the GPU operations whose launch is among them), drops the python_function events that are not
nn.Module ranges (with_stack's Python frames: steptrace keeps only the module ranges) and the flow events (ac2g: they
repeat the correlation ids that launches and kernels carry); metadata and the rest stay as they are. gzip -9, mtime 0.

    python3 tools/gpu-capture/slim_trace.py IN.pt.trace.json.gz OUT.pt.trace.json.gz
"""
import gzip
import json
import sys

GPU = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "cuda_sync"}
src, dst = sys.argv[1], sys.argv[2]
with gzip.open(src, "rt") as f:
    trace = json.load(f)
events = trace["traceEvents"]
step = min((e for e in events if e.get("cat") == "user_annotation" and str(e.get("name")).startswith("ProfilerStep#")),
           key=lambda e: float(e["ts"]))
start, end = float(step["ts"]), float(step["ts"]) + float(step["dur"])


def cpu_in_step(e):
    return "ts" not in e or e.get("ph") == "M" or start <= float(e["ts"]) <= end


kept_cpu = [e for e in events if e.get("cat") not in GPU and cpu_in_step(e)
            and not (e.get("cat") == "python_function" and not str(e.get("name", "")).startswith("nn.Module: "))
            and e.get("cat") != "ac2g"]
launched = {e["args"]["correlation"] for e in kept_cpu
            if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
cpu_ids = {id(e) for e in kept_cpu}
kept = [e for e in events if id(e) in cpu_ids or (e.get("cat") in GPU and e.get("args", {}).get("correlation") in launched)]
trace["traceEvents"] = kept
with open(dst, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as f:
    f.write(json.dumps(trace).encode())
print(f"{step['name']}: {len(events)} events -> {len(kept)}")
