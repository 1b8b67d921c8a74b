"""Capture real torch.profiler traces of a Kimi-like MoE decode loop, one Kineto trace per rank.

Run under torchrun with any number of ranks (one GPU each; one rank works too):

    torchrun --standalone --nproc_per_node N capture_moe_decode.py OUTDIR [options]

Model: hidden 7168, GQA attention (64 heads / 8 KV heads), 64 experts top-8, a shared expert, bf16.
  --parallel tp  (default) tensor parallel: attention heads and expert columns split over the ranks,
                 W4A16 experts run by a Triton grouped GEMV (`fused_moe_kernel_gptq_awq`), an
                 all-reduce after attention and after the MoE block.
  --parallel ep  expert parallel: each rank holds 64/N whole bf16 experts, run as a loop of
                 `aten::mm` per expert (as a plain PyTorch MoE does); tokens go to their experts'
                 ranks by `all_to_all_single` (split sizes by a second, small all_to_all of counts and
                 `.tolist()`: a host sync per layer, as such dispatch code has) and come back the same
                 way; attention is replicated (data-parallel attention), no all-reduce inside a layer.
  --graph        replay each decode step as one CUDA graph (tp only: ep's split sizes are host values)
  --slow-rank R --slow-us U
                 rank R runs one extra kernel per layer (torch.cuda._sleep: `spin_kernel`, about U us)
                 right before the layer's first collective, so R is the straggler the others wait for
  --host-sync    the router reads the largest expert load back to the host each layer (`.item()`)
  --stack        profile with with_stack=True: python_function events carry the nn.Module names
  --prefill T    the first profiled step is a prefill of T tokens per sequence
Steps are `ProfilerStep#N`; inside each: `execute_model` > `decode` (or `decode_cuda_graph` or
`prefill`) > layers, then `sample`. Modules: DecoderLayer > {Attention, SparseMoeBlock > {Router,
Experts}}; the Router and the Experts are also record_function ranges `moe_router` and `moe_experts`
unless --no-annotations.
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl

R = torch.profiler.record_function


@triton.jit
def fused_moe_kernel_gptq_awq(x_ptr, w_ptr, s_ptr, out_ptr, tok_ptr, exp_ptr,
                              K, N2, N, G,
                              BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                              GROUP: tl.constexpr):
    """out[p, :] = x[tok[p], :] @ dequant(W[exp[p]]) with 4-bit weights packed two per byte along N."""
    p = tl.program_id(0)
    nb = tl.program_id(1)
    tok = tl.load(tok_ptr + p)
    e = tl.load(exp_ptr + p).to(tl.int64)
    offs_n = nb * BLOCK_N + tl.arange(0, BLOCK_N)
    acc_lo = tl.zeros((BLOCK_N,), dtype=tl.float32)
    acc_hi = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        xv = tl.load(x_ptr + tok * K + offs_k).to(tl.float32)
        w = tl.load(w_ptr + e * K * N2 + offs_k[:, None] * N2 + offs_n[None, :])
        lo = (w & 0xF).to(tl.float32) - 8.0
        hi = (w >> 4).to(tl.float32) - 8.0
        g = offs_k // GROUP
        s_lo = tl.load(s_ptr + e * G * N + g[:, None] * N + 2 * offs_n[None, :]).to(tl.float32)
        s_hi = tl.load(s_ptr + e * G * N + g[:, None] * N + 2 * offs_n[None, :] + 1).to(tl.float32)
        acc_lo += tl.sum(xv[:, None] * lo * s_lo, axis=0)
        acc_hi += tl.sum(xv[:, None] * hi * s_hi, axis=0)
    tl.store(out_ptr + p * N + 2 * offs_n, acc_lo.to(tl.bfloat16))
    tl.store(out_ptr + p * N + 2 * offs_n + 1, acc_hi.to(tl.bfloat16))


def moe_gemv(x, w_packed, scales, tok, exp, n_out):
    """x: [T, K] bf16; w_packed: [E, K, N/2] uint8; scales: [E, K/32, N] bf16."""
    pairs = tok.numel()
    k = x.shape[1]
    out = torch.empty(pairs, n_out, device=x.device, dtype=torch.bfloat16)
    block_n = 64
    grid = (pairs, (n_out // 2) // block_n)
    fused_moe_kernel_gptq_awq[grid](x, w_packed, scales, out, tok, exp,
                                    k, n_out // 2, n_out, k // 32,
                                    BLOCK_N=block_n, BLOCK_K=64, GROUP=32)
    return out


def annotated(cfg, name):
    return R(name) if cfg.annotations else _Null()


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


class Attention(nn.Module):
    def __init__(self, cfg, dev, heads_split):
        super().__init__()
        h = cfg.hidden
        self.nh = cfg.heads // heads_split
        self.nkv = max(1, cfg.kv_heads // heads_split)
        self.hd = 128
        bf = dict(device=dev, dtype=torch.bfloat16)
        self.wqkv = torch.randn(h, (self.nh + 2 * self.nkv) * self.hd, **bf) * 0.02
        self.wo = torch.randn(self.nh * self.hd, h, **bf) * 0.02
        self.kcache = torch.randn(cfg.batch, self.nkv, cfg.ctx, self.hd, **bf)
        self.vcache = torch.randn(cfg.batch, self.nkv, cfg.ctx, self.hd, **bf)
        self.cfg = cfg

    def forward(self, h, pos):
        cfg, t, b = self.cfg, h.shape[0], self.cfg.batch
        qkv = h @ self.wqkv
        q, k, v = qkv.split([self.nh * self.hd, self.nkv * self.hd, self.nkv * self.hd], dim=-1)
        q = q.view(b, t // b, self.nh, self.hd).transpose(1, 2)
        k = k.view(b, t // b, self.nkv, self.hd).transpose(1, 2)
        v = v.view(b, t // b, self.nkv, self.hd).transpose(1, 2)
        self.kcache[:, :, pos:pos + t // b].copy_(k)
        self.vcache[:, :, pos:pos + t // b].copy_(v)
        if t // b == 1:
            a = F.scaled_dot_product_attention(q, self.kcache, self.vcache, enable_gqa=True)
        else:
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        return a.transpose(1, 2).reshape(t, self.nh * self.hd) @ self.wo


class Router(nn.Module):
    def __init__(self, cfg, dev):
        super().__init__()
        self.w = torch.randn(cfg.hidden, cfg.experts, device=dev, dtype=torch.bfloat16) * 0.02
        self.cfg = cfg

    def forward(self, h):
        cfg = self.cfg
        with annotated(cfg, "moe_router"):
            probs = torch.softmax((h @ self.w).float(), dim=-1)
            topw, topi = torch.topk(probs, cfg.topk, dim=-1)
            topw = topw / topw.sum(dim=-1, keepdim=True)
            flat = topi.flatten().to(torch.int32)
            order = torch.argsort(flat, stable=True)
            if cfg.host_sync:
                # the busiest expert's load, read on the host (a padding size): one sync per layer
                load = torch.bincount(flat, minlength=cfg.experts)
                cfg.max_load = int(load.max().item())
        return topw, flat, order


class TpExperts(nn.Module):
    """W4A16 experts, columns split over the ranks, run by the Triton grouped GEMV."""

    def __init__(self, cfg, dev, tp):
        super().__init__()
        h = cfg.hidden
        inter = cfg.moe_inter // tp
        bf = dict(device=dev, dtype=torch.bfloat16)
        self.inter = inter
        self.w13 = torch.randint(0, 256, (cfg.experts, h, inter), device=dev, dtype=torch.uint8)
        self.s13 = torch.rand(cfg.experts, h // 32, 2 * inter, **bf) * 0.002
        self.w2 = torch.randint(0, 256, (cfg.experts, inter, h // 2), device=dev, dtype=torch.uint8)
        self.s2 = torch.rand(cfg.experts, inter // 32, h, **bf) * 0.002
        self.cfg = cfg

    def forward(self, h, topw, flat, order):
        cfg = self.cfg
        t = h.shape[0]
        with annotated(cfg, "moe_experts"):
            exp_sorted = flat[order].contiguous()
            tok_sorted = (order // cfg.topk).to(torch.int32).contiguous()
            gu = moe_gemv(h, self.w13, self.s13, tok_sorted, exp_sorted, 2 * self.inter)
            g, u = gu.chunk(2, dim=-1)
            act = (F.silu(g) * u).contiguous()
            ar = torch.arange(act.shape[0], device=act.device, dtype=torch.int32)
            down = moe_gemv(act, self.w2, self.s2, ar, exp_sorted, cfg.hidden)
            unsorted = torch.empty_like(down)
            unsorted[order] = down
            return (unsorted.view(t, cfg.topk, -1).float() * topw.unsqueeze(-1)).sum(dim=1).to(torch.bfloat16)


class EpExperts(nn.Module):
    """Whole bf16 experts, 64/N per rank, as a loop of aten::mm; tokens moved by all_to_all_single."""

    def __init__(self, cfg, dev, world, rank):
        super().__init__()
        self.local = cfg.experts // world
        self.first = rank * self.local
        h, inter = cfg.hidden, cfg.ep_inter
        bf = dict(device=dev, dtype=torch.bfloat16)
        self.w13 = [torch.randn(h, 2 * inter, **bf) * 0.02 for _ in range(self.local)]
        self.w2 = [torch.randn(inter, h, **bf) * 0.02 for _ in range(self.local)]
        self.world = world
        self.cfg = cfg

    def forward(self, h, topw, flat, order):
        cfg, world = self.cfg, self.world
        t = h.shape[0]
        exp_sorted = flat[order]
        tokens = h[(order // cfg.topk)]
        dest = exp_sorted // self.local
        send_counts = torch.bincount(dest, minlength=world)
        recv_counts = torch.empty_like(send_counts)
        dist.all_to_all_single(recv_counts, send_counts)
        send, recv = send_counts.tolist(), recv_counts.tolist()  # host sync: split sizes
        recv_tok = tokens.new_empty(sum(recv), cfg.hidden)
        dist.all_to_all_single(recv_tok, tokens, recv, send)
        recv_exp = exp_sorted.new_empty(sum(recv))
        dist.all_to_all_single(recv_exp, exp_sorted.contiguous(), recv, send)
        out = torch.zeros_like(recv_tok)
        with annotated(cfg, "moe_experts"):
            local_ids = recv_exp - self.first
            for e in range(self.local):
                sel = (local_ids == e).nonzero().squeeze(-1)
                x = recv_tok.index_select(0, sel)
                gu = torch.mm(x, self.w13[e])
                g, u = gu.chunk(2, dim=-1)
                out.index_copy_(0, sel, torch.mm(F.silu(g) * u, self.w2[e]))
        back = torch.empty_like(tokens)
        dist.all_to_all_single(back, out, send, recv)
        unsorted = torch.empty_like(back)
        unsorted[order] = back
        return (unsorted.view(t, cfg.topk, -1).float() * topw.unsqueeze(-1)).sum(dim=1).to(torch.bfloat16)


class SparseMoeBlock(nn.Module):
    def __init__(self, cfg, dev, world, rank):
        super().__init__()
        h = cfg.hidden
        tp = world if cfg.parallel == "tp" else 1
        self.router = Router(cfg, dev)
        self.experts = TpExperts(cfg, dev, tp) if cfg.parallel == "tp" else EpExperts(cfg, dev, world, rank)
        inter = cfg.moe_inter // tp
        bf = dict(device=dev, dtype=torch.bfloat16)
        self.ws13 = torch.randn(h, 2 * inter, **bf) * 0.02
        self.ws2 = torch.randn(inter, h, **bf) * 0.02

    def forward(self, h):
        topw, flat, order = self.router(h)
        moe = self.experts(h, topw, flat, order)
        sg, su = (h @ self.ws13).chunk(2, dim=-1)
        return moe + (F.silu(sg) * su) @ self.ws2


class DecoderLayer(nn.Module):
    def __init__(self, cfg, dev, world, rank):
        super().__init__()
        h = cfg.hidden
        self.ln1 = torch.ones(h, device=dev, dtype=torch.bfloat16)
        self.ln2 = torch.ones(h, device=dev, dtype=torch.bfloat16)
        self.attn = Attention(cfg, dev, world if cfg.parallel == "tp" else 1)
        self.moe = SparseMoeBlock(cfg, dev, world, rank)
        self.cfg, self.rank = cfg, rank

    def forward(self, x, pos):
        cfg = self.cfg
        o = self.attn(F.rms_norm(x, (x.shape[-1],), self.ln1, 1e-6), pos)
        if cfg.slow_rank == self.rank:
            torch.cuda._sleep(cfg.slow_cycles)  # the straggler's extra kernel (spin_kernel)
        if cfg.parallel == "tp":
            dist.all_reduce(o)
        x = x + o
        moe = self.moe(F.rms_norm(x, (x.shape[-1],), self.ln2, 1e-6))
        if cfg.parallel == "tp":
            dist.all_reduce(moe)
        return x + moe


class Model(nn.Module):
    def __init__(self, cfg, dev, world, rank):
        super().__init__()
        self.layers = nn.ModuleList([DecoderLayer(cfg, dev, world, rank) for _ in range(cfg.layers)])
        tp = world if cfg.parallel == "tp" else 1
        self.vocab_local = 163840 // tp
        self.lm_head = torch.randn(cfg.hidden, self.vocab_local, device=dev, dtype=torch.bfloat16) * 0.02
        self.embed = torch.randn(self.vocab_local, cfg.hidden, device=dev, dtype=torch.bfloat16)
        self.cfg, self.tp = cfg, tp

    def forward(self, ids, pos):
        x = self.embed[ids % self.vocab_local]
        if self.cfg.parallel == "tp":
            dist.all_reduce(x)
        for layer in self.layers:
            x = layer(x, pos)
        last = x.view(self.cfg.batch, -1, self.cfg.hidden)[:, -1]
        logits = last @ self.lm_head
        if self.cfg.parallel != "tp":
            return logits
        gathered = [torch.empty_like(logits) for _ in range(self.tp)]
        dist.all_gather(gathered, logits)
        return torch.cat(gathered, dim=-1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--parallel", choices=["tp", "ep"], default="tp")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--layers", type=int, default=61)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--prefill", type=int, default=0)
    ap.add_argument("--graph", action="store_true")
    ap.add_argument("--slow-rank", type=int, default=-1)
    ap.add_argument("--slow-us", type=float, default=50.0)
    ap.add_argument("--host-sync", action="store_true")
    ap.add_argument("--stack", action="store_true")
    ap.add_argument("--no-annotations", dest="annotations", action="store_false")
    ap.add_argument("--ep-inter", type=int, default=2048, help="an expert's intermediate size (ep)")
    cfg = ap.parse_args()
    cfg.hidden, cfg.heads, cfg.kv_heads, cfg.experts, cfg.topk = 7168, 64, 8, 64, 8
    cfg.moe_inter, cfg.ctx = 2048, 2048
    if cfg.graph and cfg.parallel == "ep":
        ap.error("--graph needs --parallel tp (expert-parallel split sizes are host values)")
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    dev = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)))
    torch.cuda.set_device(dev)
    # spin_kernel counts clock cycles: U microseconds at the SM clock the device reports
    cfg.slow_cycles = int(cfg.slow_us * torch.cuda.get_device_properties(dev).clock_rate / 1000)
    torch.manual_seed(1234 + rank)
    model = Model(cfg, dev, world, rank)

    def sample(logits):
        return torch.argmax(torch.softmax(logits.float() / 0.7, dim=-1), dim=-1)

    static_ids = torch.randint(0, 1000, (cfg.batch,), device=dev)
    pos_decode = 1024
    for _ in range(2):  # warm-up (also compiles Triton)
        model(static_ids, pos_decode)
    torch.cuda.synchronize()
    graph = None
    if cfg.graph:
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            model(static_ids, pos_decode)
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_logits = model(static_ids, pos_decode)
        torch.cuda.synchronize()
    dist.barrier()

    os.makedirs(cfg.outdir, exist_ok=True)
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    handler = torch.profiler.tensorboard_trace_handler(cfg.outdir, worker_name=f"rank{rank}", use_gzip=True)
    t0 = time.time()
    with torch.profiler.profile(activities=acts, record_shapes=True, with_stack=cfg.stack,
                                schedule=torch.profiler.schedule(wait=1, warmup=1, active=cfg.steps),
                                on_trace_ready=handler) as prof:
        for step in range(cfg.steps + 2):
            with R("execute_model"):
                if cfg.prefill and step == 2:
                    pids = torch.randint(0, 1000, (cfg.batch * cfg.prefill,), device=dev)
                    with R("prefill"):
                        logits = model(pids, 0)
                elif graph is not None:
                    with R("decode_cuda_graph"):
                        graph.replay()
                        logits = static_logits
                else:
                    with R("decode"):
                        logits = model(static_ids, pos_decode)
                with R("sample"):
                    static_ids.copy_(sample(logits))
            torch.cuda.synchronize()
            prof.step()
    dist.barrier()
    print(f"[rank{rank}] profiled {cfg.steps} steps in {time.time() - t0:.1f}s parallel={cfg.parallel} "
          f"world={world} graph={graph is not None} batch={cfg.batch} layers={cfg.layers} "
          f"slow_rank={cfg.slow_rank} slow_cycles={cfg.slow_cycles} host_sync={cfg.host_sync}", flush=True)
    os._exit(0)  # tearing down NCCL after a captured graph can hang; the traces are written


if __name__ == "__main__":
    main()
