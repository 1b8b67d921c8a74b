"""torch.compile(mode="reduce-overhead") pitfalls, captured: CUDA-graph input copies, a recompile with
a new graph recorded during the capture, and a graph break with an eager op between two compiled graphs.

    python3 capture_compile.py OUTDIR [--steps 8]

One GPU. A small MLP block takes, each step, activations and a large context tensor allocated anew
(made before profiling but not static: CUDA graph trees copy them into the graph's static input buffers
each replay, which is most of the step's GPU time); the forward breaks the graph once (torch._dynamo.graph_break) around an eager
op. Steps are ProfilerStep#N: the first half at batch 8 (compiled and recorded before profiling),
the second half at batch 16, whose first step recompiles and records new graphs inside the capture
(automatic dynamic shapes off, so a new shape is a new graph, as with `dynamic=False`).
Also writes OUTDIR/compile-steps.json: per step, the batch size and whether it recompiled.
"""
import argparse
import json
import os

import torch
import torch._dynamo
import torch.nn as nn
import torch.nn.functional as F

R = torch.profiler.record_function


class Block(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.up = nn.Linear(d, 4 * d, dtype=torch.bfloat16)
        self.down = nn.Linear(4 * d, d, dtype=torch.bfloat16)
        self.norm = nn.LayerNorm(d, dtype=torch.bfloat16)

    def forward(self, x, context):
        h = self.up(self.norm(x))
        h = F.gelu(h)
        torch._dynamo.graph_break()
        h = h * 0.5  # eager, between the two compiled graphs
        out = self.down(h) + x
        return out + context[: out.shape[0], : out.shape[1]].float().mean() * 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--steps", type=int, default=8)
    args = ap.parse_args()
    torch._dynamo.config.automatic_dynamic_shapes = False
    torch._dynamo.config.cache_size_limit = 16
    dev = torch.device("cuda", 0)
    torch.manual_seed(0)
    # inference only: parameters that want gradients keep CUDA graph trees off their fast path (no replays)
    model = Block().to(dev).requires_grad_(False)
    compiled = torch.compile(model, mode="reduce-overhead")

    def inputs(batch):
        # new tensors every call: not static inputs of the recorded graphs
        x = torch.randn(batch, 1024, device=dev, dtype=torch.bfloat16)
        context = torch.randn(batch * 256, 1024 * 64, device=dev, dtype=torch.bfloat16)  # 32 MiB a batch row
        return x, context

    torch.set_grad_enabled(False)
    for _ in range(5):  # compile, warm up and record at batch 8
        compiled(*inputs(8))
    torch.cuda.synchronize()
    os.makedirs(args.outdir, exist_ok=True)
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    handler = torch.profiler.tensorboard_trace_handler(args.outdir, worker_name="rank0", use_gzip=True)
    steps = []
    # made before profiling, so that the steps' GPU time is the model's and the copies into its graphs
    step_inputs = [inputs(8 if step <= args.steps // 2 else 16) for step in range(args.steps + 1)]
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=acts, record_shapes=True,
                                schedule=torch.profiler.schedule(wait=0, warmup=1, active=args.steps),
                                on_trace_ready=handler) as prof:
        for step in range(args.steps + 1):
            batch = 8 if step <= args.steps // 2 else 16
            frames_before = torch._dynamo.utils.counters["stats"]["unique_graphs"]
            with R("execute_model"):
                x, context = step_inputs[step]
                out = compiled(x, context)
                with R("sample"):
                    torch.argmax(out, dim=-1)
            torch.cuda.synchronize()
            steps.append({"profiler_step": step, "profiled": step >= 1, "batch": batch,
                          "new_graphs": torch._dynamo.utils.counters["stats"]["unique_graphs"] - frames_before})
            prof.step()
    with open(os.path.join(args.outdir, "compile-steps.json"), "w") as f:
        json.dump({"torch": torch.__version__, "steps": steps}, f, indent=1)
    print(json.dumps(steps), flush=True)


if __name__ == "__main__":
    main()
