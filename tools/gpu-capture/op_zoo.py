"""A labeled op zoo: each op family inside a record_function `zoo/<expected category>/<op>`.

    python3 op_zoo.py OUTDIR [--stack] [--no-annotations] [--steps 3]

One GPU, one process (NCCL on a world of one for the collectives). The label names the category
(docs/taxonomy.md's ids) that the op's GPU time belongs to; a test checks that steptrace puts it
there. The labels are ground truth for tests only: classification must not read them. Inside a
label, ops carry the context a real model gives them: MoE experts and the router are nn.Modules
(`SparseMoeBlock` > `Router`, `Experts`; visible as python_function events with --stack) and, unless
--no-annotations, record_function ranges `moe_router` / `moe_experts`.

Ops the torch build or the GPU lacks are skipped, each with its reason, in OUTDIR/zoo-ops.json
(ran / skipped per label), so a test can list them.
"""
import argparse
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_moe_decode import moe_gemv  # noqa: E402  the Triton grouped GEMV of the MoE samples

R = torch.profiler.record_function
dev = torch.device("cuda", 0)
bf = dict(device=dev, dtype=torch.bfloat16)
ZOO = []


def op(category, name):
    def register(make):
        ZOO.append((category, name, make))
        return make
    return register


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


ANNOTATE = True


def annotated(name):
    return R(name) if ANNOTATE else _Null()


# ---- dense GEMMs -------------------------------------------------------------------------------
@op("gemm", "bf16_mm")
def _():
    a, b = torch.randn(4096, 4096, **bf), torch.randn(4096, 4096, **bf)
    return lambda: torch.mm(a, b)


@op("gemm", "fp16_mm")
def _():
    a = torch.randn(4096, 4096, device=dev, dtype=torch.float16)
    b = torch.randn(4096, 4096, device=dev, dtype=torch.float16)
    return lambda: torch.mm(a, b)


@op("gemm", "fp32_mm")
def _():
    a, b = torch.randn(2048, 2048, device=dev), torch.randn(2048, 2048, device=dev)
    return lambda: torch.mm(a, b)


@op("gemm", "linear_bias")
def _():
    x, w, b = torch.randn(256, 7168, **bf), torch.randn(4096, 7168, **bf), torch.randn(4096, **bf)
    return lambda: F.linear(x, w, b)


@op("gemm", "decode_gemv")
def _():
    x, w = torch.randn(1, 7168, **bf), torch.randn(7168, 4096, **bf)
    return lambda: x @ w


@op("gemm", "bmm")
def _():
    a, b = torch.randn(16, 1024, 1024, **bf), torch.randn(16, 1024, 1024, **bf)
    return lambda: torch.bmm(a, b)


@op("gemm", "fp8_scaled_mm")
def _():
    a = torch.randn(2048, 4096, device=dev).to(torch.float8_e4m3fn)
    w = torch.randn(4096, 4096, device=dev).to(torch.float8_e4m3fn)
    sa, sb = torch.tensor(1.0, device=dev), torch.tensor(1.0, device=dev)
    return lambda: torch._scaled_mm(a, w.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)


@op("gemm", "int8_mm")
def _():
    a = torch.randint(-128, 127, (2048, 4096), device=dev, dtype=torch.int8)
    b = torch.randint(-128, 127, (4096, 4096), device=dev, dtype=torch.int8)
    return lambda: torch._int_mm(a, b)


@op("gemm", "int4_weight_mm")
def _():
    n, k, group = 4096, 4096, 128
    x = torch.randn(16, k, **bf)
    w = torch.randint(0, 16, (n, k), device=dev, dtype=torch.int32)
    packed = None
    errors = []
    for attempt in (lambda: torch._convert_weight_to_int4pack((w[:, ::2] << 4 | w[:, 1::2]).to(torch.uint8), 8),
                    lambda: torch._convert_weight_to_int4pack(w, 8)):
        try:
            packed = attempt()
            break
        except Exception as exc:  # the packing's signature changed between torch versions
            errors.append(repr(exc))
    if packed is None:
        raise RuntimeError("; ".join(errors))
    sz = torch.ones(k // group, n, 2, **bf)
    return lambda: torch._weight_int4pack_mm(x, packed, group, sz)


# ---- MoE GEMMs ---------------------------------------------------------------------------------
class Experts(nn.Module):
    def __init__(self, experts=8, hidden=2048, inter=1024):
        super().__init__()
        self.w13 = [torch.randn(hidden, 2 * inter, **bf) * 0.02 for _ in range(experts)]
        self.w2 = [torch.randn(inter, hidden, **bf) * 0.02 for _ in range(experts)]

    def forward(self, xs):
        with annotated("moe_experts"):
            outs = []
            for e, x in enumerate(xs):
                g, u = torch.mm(x, self.w13[e]).chunk(2, dim=-1)
                outs.append(torch.mm(F.silu(g) * u, self.w2[e]))
            return outs


class Router(nn.Module):
    def __init__(self, hidden=2048, experts=64, topk=8):
        super().__init__()
        self.w = torch.randn(hidden, experts, **bf) * 0.02
        self.topk = topk

    def forward(self, h):
        with annotated("moe_router"):
            probs = torch.softmax((h @ self.w).float(), dim=-1)
            topw, topi = torch.topk(probs, self.topk, dim=-1)
            topw = topw / topw.sum(dim=-1, keepdim=True)
            order = torch.argsort(topi.flatten(), stable=True)
            return topw, topi, order


class SparseMoeBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.router = Router()
        self.experts = Experts()


@op("moe_gemm", "expert_loop_mm")
def _():
    block = SparseMoeBlock()
    xs = [torch.randn(64, 2048, **bf) for _ in range(8)]
    return lambda: block.experts(xs)


@op("moe_gemm", "triton_fused_moe_w4a16")
def _():
    e, h, inter = 64, 7168, 1024
    w = torch.randint(0, 256, (e, h, inter), device=dev, dtype=torch.uint8)
    s = torch.rand(e, h // 32, 2 * inter, **bf) * 0.002
    x = torch.randn(4, h, **bf)
    tok = torch.arange(32, device=dev, dtype=torch.int32) // 8
    ex = torch.randint(0, e, (32,), device=dev, dtype=torch.int32)

    def run():
        with annotated("moe_experts"):
            return moe_gemv(x, w, s, tok, ex, 2 * inter)
    return run


@op("moe_gemm", "grouped_mm")
def _():
    e, t, k, n = 8, 512, 2048, 2048
    a = torch.randn(t, k, **bf)
    b = torch.randn(e, n, k, **bf).transpose(-2, -1)
    offs = torch.arange(t // e, t + 1, t // e, device=dev, dtype=torch.int32)

    def run():
        with annotated("moe_experts"):
            return torch._grouped_mm(a, b, offs=offs)
    return run


# ---- attention ---------------------------------------------------------------------------------
def sdpa(backend):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    q = torch.randn(4, 32, 1024, 128, **bf)
    k = torch.randn(4, 32, 1024, 128, **bf)
    v = torch.randn(4, 32, 1024, 128, **bf)
    b = getattr(SDPBackend, backend)

    def run():
        with sdpa_kernel([b]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return run


for _backend in ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH"):
    op("attention", "sdpa_" + _backend.lower())(lambda b=_backend: sdpa(b))


@op("attention", "sdpa_decode_gqa")
def _():
    q = torch.randn(8, 64, 1, 128, **bf)
    k = torch.randn(8, 8, 4096, 128, **bf)
    v = torch.randn(8, 8, 4096, 128, **bf)
    return lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)


@op("attention", "flex_attention")
def _():
    from torch.nn.attention.flex_attention import flex_attention
    flex = torch.compile(flex_attention)
    q = torch.randn(4, 16, 1024, 64, **bf)
    k = torch.randn(4, 16, 1024, 64, **bf)
    v = torch.randn(4, 16, 1024, 64, **bf)
    return lambda: flex(q, k, v)


# ---- routing -----------------------------------------------------------------------------------
@op("routing", "router_softmax_topk_sort")
def _():
    block = SparseMoeBlock()
    h = torch.randn(256, 2048, **bf)
    return lambda: block.router(h)


# ---- copies ------------------------------------------------------------------------------------
@op("memcpy", "h2d_pinned")
def _():
    src = torch.randn(32 * 1024 * 1024, pin_memory=True)
    dst = torch.empty(32 * 1024 * 1024, device=dev)
    return lambda: dst.copy_(src, non_blocking=True)


@op("memcpy", "d2h_pinned")
def _():
    src = torch.randn(32 * 1024 * 1024, device=dev)
    dst = torch.empty(32 * 1024 * 1024, pin_memory=True)
    return lambda: dst.copy_(src, non_blocking=True)


@op("memcpy", "d2d")
def _():
    src, dst = torch.randn(64 * 1024 * 1024, device=dev), torch.empty(64 * 1024 * 1024, device=dev)
    return lambda: dst.copy_(src)


# ---- everything else ---------------------------------------------------------------------------
@op("other", "rms_norm")
def _():
    x, w = torch.randn(256, 7168, **bf), torch.ones(7168, **bf)
    return lambda: F.rms_norm(x, (7168,), w, 1e-6)


@op("other", "layer_norm")
def _():
    x = torch.randn(256, 7168, **bf)
    return lambda: F.layer_norm(x, (7168,))


@op("other", "silu_and_mul")
def _():
    g, u = torch.randn(256, 4096, **bf), torch.randn(256, 4096, **bf)
    return lambda: F.silu(g) * u


@op("other", "gelu")
def _():
    x = torch.randn(256, 16384, **bf)
    return lambda: F.gelu(x, approximate="tanh")


@op("other", "residual_add")
def _():
    a, b = torch.randn(256, 7168, **bf), torch.randn(256, 7168, **bf)
    return lambda: a + b


@op("other", "embedding")
def _():
    table, ids = torch.randn(163840, 7168, **bf), torch.randint(0, 163840, (256,), device=dev)
    return lambda: F.embedding(ids, table)


@op("other", "sampling_argmax")
def _():
    logits = torch.randn(8, 163840, device=dev)
    return lambda: torch.argmax(torch.softmax(logits / 0.7, dim=-1), dim=-1)


# ---- collectives (NCCL, a world of one) ----------------------------------------------------------
@op("allreduce", "nccl_all_reduce")
def _():
    x = torch.randn(8 * 1024 * 1024, **bf)
    return lambda: dist.all_reduce(x)


@op("comm_other", "nccl_all_gather")
def _():
    x = torch.randn(4 * 1024 * 1024, **bf)
    out = torch.empty(4 * 1024 * 1024 * dist.get_world_size(), **bf)
    return lambda: dist.all_gather_into_tensor(out, x)


@op("comm_other", "nccl_all_to_all_single")
def _():
    x = torch.randn(4 * 1024 * 1024, **bf)
    out = torch.empty_like(x)
    return lambda: dist.all_to_all_single(out, x)


def main():
    global ANNOTATE
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--stack", action="store_true")
    ap.add_argument("--no-annotations", dest="annotations", action="store_false")
    args = ap.parse_args()
    ANNOTATE = args.annotations
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29511")
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=dev)
    torch.cuda.set_device(dev)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    ran, skipped = [], {}
    for category, name, make in ZOO:
        label = f"zoo/{category}/{name}"
        try:
            fn = make()
            for _ in range(3):  # warm-up: lazy init, autotuning, Triton and Inductor compiles
                fn()
            torch.cuda.synchronize()
            ran.append((label, fn))
        except Exception as exc:
            skipped[label] = repr(exc)[:500]
            print(f"skipped {label}: {exc!r}"[:600], flush=True)
    os.makedirs(args.outdir, exist_ok=True)
    with open(os.path.join(args.outdir, "zoo-ops.json"), "w") as f:
        json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(dev),
                   "ran": [label for label, _ in ran], "skipped": skipped}, f, indent=1)
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    handler = torch.profiler.tensorboard_trace_handler(args.outdir, worker_name="rank0", use_gzip=True)
    with torch.profiler.profile(activities=acts, record_shapes=True, with_stack=args.stack,
                                schedule=torch.profiler.schedule(wait=0, warmup=1, active=args.steps),
                                on_trace_ready=handler) as prof:
        for _ in range(args.steps + 1):
            for label, fn in ran:
                with R(label):
                    fn()
            torch.cuda.synchronize()
            prof.step()
    print(f"zoo: {len(ran)} ops ran, {len(skipped)} skipped; torch {torch.__version__}", flush=True)
    os._exit(0)


if __name__ == "__main__":
    main()
