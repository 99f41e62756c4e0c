#!/usr/bin/env python3
"""A real PyTorch decode loop with random weights, timed per batch size on one GPU.

Builds a stack of model-shaped layers of a built-in model (data/engine/models/NAME.yaml) as one
rank at TP 1 (no collectives): embedding, per layer RMSNorm, QKV projection, RoPE, decode
attention over a KV cache of --context tokens per sequence (GQA: SDPA with the query heads of one
KV head packed as its queries; MLA: the absorbed form over the latent cache), o_proj, a dense
SwiGLU FFN or a MoE (router, top-k, grouped expert GEMMs, shared experts), then the final norm,
lm_head and argmax sampling (fed back as the next step's tokens). Weights are bf16 or fp8 e4m3
(per-tensor scales for plain GEMMs, row-wise for grouped ones; lm_head, embedding and router stay
bf16); the KV cache is bf16. Each batch size's step is captured in a CUDA graph and replayed;
besides the whole step, graphs of one part each (attention blocks, attention cores, dense FFN
blocks, MoE blocks, final norm + lm_head) give a per-kernel-class breakdown.

Usage (on a GPU machine):
    python3 bench/gpu/decode_loop.py --models llama-3.3-70b,qwen3-235b-a22b,deepseek-r1 \
        --dtype fp8 --out OUT_DIR [--context 1024] [--max-seconds 240]

Writes OUT_DIR/decode_loop.csv (one row per model and batch) and OUT_DIR/decode_loop.json (the
environment and the choices made), and prints a table. `infermark engine step-time --measured
OUT_DIR/decode_loop.csv` sets the model's prediction beside each row.
"""

import argparse
import csv
import json
import math
import os
import sys
import time
import traceback

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS_DIR = os.path.join(REPO, "data", "engine", "models")
FP8_MAX = 448.0
CSV_FIELDS = [
    "model", "dtype", "kv_dtype", "layers", "dense_layers", "window_layers", "context", "batch",
    "step_ms_median", "step_ms_p10", "step_ms_p90", "replays",
    "attn_ms", "attn_core_ms", "dense_ffn_ms", "moe_ms", "head_ms",
    "experts_touched", "tokens_per_expert_max", "attention_impl", "moe_impl", "gpu",
]

torch = None  # imported in main(): --help and py_compile work without it
F = None


# ----------------------------------------------------------------------------- model specs


def round_half_up(x):
    """Rounds halves up (the same rule as `infermark engine step-time`)."""
    return int(math.floor(x + 0.5))


def load_spec(name):
    """The fields of data/engine/models/NAME.yaml the loop needs, with the defaults model_spec.cpp uses."""
    path = os.path.join(MODELS_DIR, name + ".yaml")
    if not os.path.exists(path):
        known = sorted(f[:-5] for f in os.listdir(MODELS_DIR) if f.endswith(".yaml"))
        raise SystemExit(f"decode_loop: unknown model {name!r} (known: {', '.join(known)})")
    with open(path) as f:
        doc = yaml.safe_load(f)
    a = doc["attention"]
    moe = doc.get("moe") or {}
    ffn = doc.get("ffn") or {}
    spec = {
        "name": doc["name"], "layers": int(doc["layers"]), "hidden": int(doc["hidden"]),
        "vocab": int(doc["vocab"]), "kind": a["kind"], "heads": int(a["heads"]),
        "kv_heads": int(a.get("kv_heads", 0)), "head_dim": int(a.get("head_dim", 0)),
        "q_lora_rank": int(a.get("q_lora_rank", 0)), "kv_lora_rank": int(a.get("kv_lora_rank", 0)),
        "qk_nope_head_dim": int(a.get("qk_nope_head_dim", 0)),
        "qk_rope_head_dim": int(a.get("qk_rope_head_dim", 0)), "v_head_dim": int(a.get("v_head_dim", 0)),
        "sliding_window": int(a.get("sliding_window", 0)), "sliding_layers": int(a.get("sliding_layers", 0)),
        "dense_intermediate": int(ffn.get("intermediate", 0)), "dense_layers": int(ffn.get("dense_layers", 0)),
        "experts": int(moe.get("experts", 0)), "active": int(moe.get("active", 0)),
        "expert_intermediate": int(moe.get("expert_intermediate", 0)),
        "shared_intermediate": int(moe.get("shared_intermediate", 0)) if moe.get("shared_experts", 0) else 0,
    }
    if a.get("sparse"):
        raise SystemExit(f"decode_loop: {name}: block-sparse attention is not implemented in the decode loop")
    return spec


def layer_split(spec, layers):
    """(dense, window) layer counts of a stack of `layers`: the model's shares, rounded half up; a MoE
    model with dense layers keeps at least one of each kind (the rule `engine step-time` uses)."""
    if layers >= spec["layers"]:
        return spec["dense_layers"], spec["sliding_layers"]
    if spec["experts"] == 0:
        dense = layers
    else:
        dense = round_half_up(spec["dense_layers"] * layers / spec["layers"])
        if spec["dense_layers"] > 0:
            dense = max(dense, 1)
        dense = min(dense, layers - 1) if layers > 1 else 0
    window = round_half_up(spec["sliding_layers"] * layers / spec["layers"])
    return dense, window


# ----------------------------------------------------------------------------- building blocks


class Ctx:
    """Shared settings of one build: device, weight dtype, fp8 statistics, calibration switch."""

    def __init__(self, fp8, device):
        self.fp8 = fp8
        self.device = device
        self.calibrating = False
        self.fp8_ms = 1.0
        if fp8:
            self.fp8_ms = rand_fp8((1 << 20,), device).float().pow(2).mean().item()


def rand_fp8(shape, device):
    """Random finite fp8 e4m3 values in [-1.875, 1.875] written in place (no bf16 copy): random bytes
    with the top exponent bit cleared, so no NaN and no value outside the range."""
    u = torch.randint(0, 256, shape, dtype=torch.uint8, device=device)
    u.bitwise_and_(0xBF)
    return u.view(torch.float8_e4m3fn)


def rand_bf16(shape, device, std):
    w = torch.randn(shape, dtype=torch.bfloat16, device=device)
    return w.mul_(std)


def quantize(x, inv_scale):
    """bf16 -> fp8 e4m3 with a static scale (saturating)."""
    return (x.float() * inv_scale).clamp_(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)


class Linear:
    """y = x W^T. bf16: cuBLAS; fp8: torch._scaled_mm with per-tensor scales (weights scaled so the
    output has unit variance; the activation scale is calibrated once on a warm-up pass)."""

    def __init__(self, ctx, n_out, k_in, force_bf16=False):
        self.ctx = ctx
        self.fp8 = ctx.fp8 and not force_bf16
        self.n, self.k = n_out, k_in
        if self.fp8:
            self.w = rand_fp8((n_out, k_in), ctx.device)
            self.scale_b = torch.tensor(1.0 / math.sqrt(k_in * ctx.fp8_ms), dtype=torch.float32, device=ctx.device)
            self.scale_a = torch.ones((), dtype=torch.float32, device=ctx.device)
            self.inv_a = torch.ones((), dtype=torch.float32, device=ctx.device)
        else:
            self.w = rand_bf16((n_out, k_in), ctx.device, 1.0 / math.sqrt(k_in))

    def bytes(self):
        return self.w.numel() * self.w.element_size()

    def calibrate(self, x):
        """Static activation scale from one pass: the input's absolute maximum maps to half the fp8 range."""
        self.scale_a.copy_(torch.clamp(x.abs().amax().float() / (FP8_MAX / 2), min=1e-8))
        self.inv_a.copy_(1.0 / self.scale_a)

    def __call__(self, x):
        if not self.fp8:
            return x @ self.w.t()
        if self.ctx.calibrating:
            self.calibrate(x)
        xq = quantize(x, self.inv_a)
        return torch._scaled_mm(xq, self.w.t(), scale_a=self.scale_a, scale_b=self.scale_b,
                                out_dtype=torch.bfloat16, use_fast_accum=True)

    def reference(self, x):
        """Float32 reference on the same (quantized) operands."""
        if not self.fp8:
            return x.float() @ self.w.float().t()
        xq = quantize(x, self.inv_a).float() * self.scale_a
        return xq @ (self.w.float() * self.scale_b).t()


def rms_norm(x, w):
    return F.rms_norm(x, (x.shape[-1],), w, 1e-6)


def rope(x, cos, sin):
    """NeoX-style rotary embedding on the last dimension (one position for the whole batch)."""
    h = x.shape[-1] // 2
    x1, x2 = x[..., :h], x[..., h:]
    return torch.cat((x1 * cos[:h] - x2 * sin[:h], x2 * cos[h:] + x1 * sin[h:]), dim=-1)


def rope_table(dim, position, device):
    inv = 1.0 / (10000 ** (torch.arange(0, dim, 2, dtype=torch.float32, device=device) / dim))
    ang = torch.cat((inv, inv)) * position
    return ang.cos().to(torch.bfloat16), ang.sin().to(torch.bfloat16)


class SwiGLU:
    """Dense gated FFN: down(silu(gate) * up)."""

    def __init__(self, ctx, hidden, inter):
        self.inter = inter
        self.gate_up = Linear(ctx, 2 * inter, hidden)
        self.down = Linear(ctx, hidden, inter)

    def bytes(self):
        return self.gate_up.bytes() + self.down.bytes()

    def __call__(self, x):
        gu = self.gate_up(x)
        return self.down(F.silu(gu[:, :self.inter]) * gu[:, self.inter:])


class GqaAttention:
    """Grouped-query attention; the cache is [batch, kv_heads, context, head_dim] per K and V."""

    def __init__(self, ctx, spec, max_batch, context, window):
        self.h, self.hkv, self.d = spec["heads"], spec["kv_heads"], spec["head_dim"]
        self.c, self.window = context, window
        self.qkv = Linear(ctx, (self.h + 2 * self.hkv) * self.d, spec["hidden"])
        self.o = Linear(ctx, spec["hidden"], self.h * self.d)
        shape = (max_batch, self.hkv, context, self.d)
        self.k_cache = torch.randn(shape, dtype=torch.bfloat16, device=ctx.device)
        self.v_cache = torch.randn(shape, dtype=torch.bfloat16, device=ctx.device)
        self.cos, self.sin = rope_table(self.d, context - 1, ctx.device)
        self.q_static = None

    def weight_bytes(self):
        return self.qkv.bytes() + self.o.bytes()

    def kv_bytes(self):
        return 2 * self.k_cache.numel() * 2

    def project(self, x):
        b = x.shape[0]
        qkv = self.qkv(x).view(b, self.h + 2 * self.hkv, self.d)
        q = rope(qkv[:, :self.h], self.cos, self.sin)
        k = rope(qkv[:, self.h:self.h + self.hkv], self.cos, self.sin)
        self.k_cache[:b, :, self.c - 1] = k
        self.v_cache[:b, :, self.c - 1] = qkv[:, self.h + self.hkv:]
        return q

    def keys(self, b):
        lo = self.c - self.window if 0 < self.window < self.c else 0
        return self.k_cache[:b, :, lo:], self.v_cache[:b, :, lo:]

    def core(self, q):
        """Decode attention: the query heads of one KV head are packed as that head's queries."""
        b = q.shape[0]
        k, v = self.keys(b)
        qp = q.reshape(b, self.hkv, self.h // self.hkv, self.d)
        return F.scaled_dot_product_attention(qp, k, v).reshape(b, self.h * self.d)

    def check(self, x):
        """(core output, float32 reference) for the queries of `x`."""
        q = self.project(x)
        return self.core(q), self.core_reference(q)

    def core_reference(self, q):
        b = q.shape[0]
        k, v = self.keys(b)
        g = self.h // self.hkv
        kf = k.float().repeat_interleave(g, dim=1)
        vf = v.float().repeat_interleave(g, dim=1)
        s = torch.einsum("bhd,bhcd->bhc", q.float(), kf) / math.sqrt(self.d)
        return torch.einsum("bhc,bhcd->bhd", s.softmax(-1), vf).reshape(b, -1)

    def __call__(self, x):
        return self.o(self.core(self.project(x)))


class MlaAttention:
    """DeepSeek multi-head latent attention, absorbed form for decode: the cache holds the latent
    (kv_lora_rank) and the shared rotary key (qk_rope_head_dim) per token; W_UK is folded into the
    query and W_UV applied after attention (both bf16 batched GEMMs over the heads). The core runs
    as two batched GEMMs with a float32 softmax between them (it reads the cache twice)."""

    def __init__(self, ctx, spec, max_batch, context):
        self.h = spec["heads"]
        self.nope, self.rd = spec["qk_nope_head_dim"], spec["qk_rope_head_dim"]
        self.lora, self.vd, self.c = spec["kv_lora_rank"], spec["v_head_dim"], context
        hidden, qr = spec["hidden"], spec["q_lora_rank"]
        dev = ctx.device
        if qr > 0:
            self.q_a = Linear(ctx, qr, hidden)
            self.q_norm = torch.ones(qr, dtype=torch.bfloat16, device=dev)
            self.q_b = Linear(ctx, self.h * (self.nope + self.rd), qr)
        else:
            self.q_a = None
            self.q_b = Linear(ctx, self.h * (self.nope + self.rd), hidden)
        self.kv_a = Linear(ctx, self.lora + self.rd, hidden)
        self.kv_norm = torch.ones(self.lora, dtype=torch.bfloat16, device=dev)
        self.w_uk = rand_bf16((self.h, self.nope, self.lora), dev, 1.0 / math.sqrt(self.lora))
        self.w_uv = rand_bf16((self.h, self.vd, self.lora), dev, 1.0 / math.sqrt(self.lora))
        self.o = Linear(ctx, hidden, self.h * self.vd)
        self.cache = torch.randn((max_batch, context, self.lora + self.rd), dtype=torch.bfloat16, device=dev)
        self.cos, self.sin = rope_table(self.rd, context - 1, dev)
        self.scale = 1.0 / math.sqrt(self.nope + self.rd)

    def weight_bytes(self):
        n = self.q_b.bytes() + self.kv_a.bytes() + self.o.bytes() + 2 * self.w_uk.numel() * 2
        return n + (self.q_a.bytes() if self.q_a else 0)

    def kv_bytes(self):
        return self.cache.numel() * 2

    def project(self, x):
        b = x.shape[0]
        q_in = rms_norm(self.q_a(x), self.q_norm) if self.q_a else x
        q = self.q_b(q_in).view(b, self.h, self.nope + self.rd)
        kv = self.kv_a(x)
        self.cache[:b, self.c - 1, :self.lora] = rms_norm(kv[:, :self.lora], self.kv_norm)
        self.cache[:b, self.c - 1, self.lora:] = rope(kv[:, self.lora:], self.cos, self.sin)
        q_lat = torch.bmm(q[:, :, :self.nope].transpose(0, 1), self.w_uk).transpose(0, 1)
        return torch.cat((q_lat, rope(q[:, :, self.nope:], self.cos, self.sin)), dim=-1)

    def core(self, q):
        b = q.shape[0]
        cache = self.cache[:b]
        s = torch.bmm(q, cache.transpose(1, 2))
        p = torch.softmax(s.float() * self.scale, dim=-1).to(torch.bfloat16)
        o_lat = torch.bmm(p, cache[:, :, :self.lora])
        return torch.bmm(o_lat.transpose(0, 1), self.w_uv.transpose(1, 2)).transpose(0, 1).reshape(b, -1)

    def check(self, x):
        """(core output, float32 reference): the reference is the non-absorbed form, per-head keys
        and values expanded from the latent, so it checks the absorption too."""
        b = x.shape[0]
        out = self.core(self.project(x))
        q_in = rms_norm(self.q_a(x), self.q_norm) if self.q_a else x
        q = self.q_b(q_in).view(b, self.h, self.nope + self.rd)
        cache = self.cache[:b].float()
        lat, kr = cache[:, :, :self.lora], cache[:, :, self.lora:]
        k_nope = torch.einsum("bcl,hnl->bhcn", lat, self.w_uk.float())
        v = torch.einsum("bcl,hvl->bhcv", lat, self.w_uv.float())
        q_rope = rope(q[:, :, self.nope:], self.cos, self.sin).float()
        s = torch.einsum("bhn,bhcn->bhc", q[:, :, :self.nope].float(), k_nope)
        s = s + torch.einsum("bhr,bcr->bhc", q_rope, kr)
        ref = torch.einsum("bhc,bhcv->bhv", (s * self.scale).softmax(-1), v).reshape(b, -1)
        return out, ref

    def __call__(self, x):
        return self.o(self.core(self.project(x)))


class Moe:
    """Router (bf16), softmax top-k, tokens sorted by expert, two grouped GEMMs (gate/up, down)
    through torch._scaled_grouped_mm (fp8, row-wise scales) or torch._grouped_mm (bf16), combine,
    plus the shared experts as a dense SwiGLU."""

    def __init__(self, ctx, spec, impl):
        self.ctx = ctx
        self.e, self.k = spec["experts"], spec["active"]
        self.hid, self.inter = spec["hidden"], spec["expert_intermediate"]
        self.fp8 = impl == "scaled_grouped_mm"
        dev = ctx.device
        self.router = Linear(ctx, self.e, self.hid, force_bf16=True)
        if self.fp8:
            self.w13 = rand_fp8((self.e, 2 * self.inter, self.hid), dev)
            self.w2 = rand_fp8((self.e, self.hid, self.inter), dev)
            self.sb13 = torch.full((self.e, 2 * self.inter), 1.0 / math.sqrt(self.hid * ctx.fp8_ms),
                                   dtype=torch.float32, device=dev)
            self.sb2 = torch.full((self.e, self.hid), 1.0 / math.sqrt(self.inter * ctx.fp8_ms),
                                  dtype=torch.float32, device=dev)
            self.sa13 = torch.ones((), dtype=torch.float32, device=dev)
            self.sa2 = torch.ones((), dtype=torch.float32, device=dev)
        else:
            self.w13 = rand_bf16((self.e, 2 * self.inter, self.hid), dev, 1.0 / math.sqrt(self.hid))
            self.w2 = rand_bf16((self.e, self.hid, self.inter), dev, 1.0 / math.sqrt(self.inter))
        self.shared = SwiGLU(ctx, self.hid, spec["shared_intermediate"]) if spec["shared_intermediate"] else None
        self.counts = torch.zeros(self.e, dtype=torch.int64, device=dev)

    def bytes(self):
        n = self.w13.numel() * self.w13.element_size() + self.w2.numel() * self.w2.element_size()
        return n + self.router.bytes() + (self.shared.bytes() if self.shared else 0)

    def route(self, x):
        probs = torch.softmax(self.router(x).float(), dim=-1)
        topv, topi = probs.topk(self.k, dim=-1)
        return topv / topv.sum(-1, keepdim=True), topi

    def grouped(self, a, w, sa, sb, offs):
        if not self.fp8:
            return torch._grouped_mm(a, w.transpose(-2, -1), offs=offs)
        if self.ctx.calibrating:
            sa.copy_(torch.clamp(a.abs().amax().float() / (FP8_MAX / 2), min=1e-8))
        aq = quantize(a, 1.0 / sa)
        rows = sa.expand(a.shape[0]).contiguous()
        return torch._scaled_grouped_mm(aq, w.transpose(-2, -1), rows, sb, offs=offs, out_dtype=torch.bfloat16)

    def experts(self, xs, offs):
        h = self.grouped(xs, self.w13, self.sa13 if self.fp8 else None, self.sb13 if self.fp8 else None, offs)
        act = F.silu(h[:, :self.inter]) * h[:, self.inter:]
        return self.grouped(act, self.w2, self.sa2 if self.fp8 else None, self.sb2 if self.fp8 else None, offs)

    def __call__(self, x):
        b = x.shape[0]
        topv, topi = self.route(x)
        flat = topi.reshape(-1)
        perm = torch.argsort(flat, stable=True)
        counts = torch.zeros(self.e, dtype=torch.int64, device=x.device)
        counts.scatter_add_(0, flat, torch.ones_like(flat))
        self.counts.copy_(counts)
        offs = torch.cumsum(counts, 0).to(torch.int32)
        ys = self.experts(x.index_select(0, perm // self.k), offs)
        y = torch.empty_like(ys).index_copy_(0, perm, ys).view(b, self.k, self.hid)
        out = (y.float() * topv.unsqueeze(-1)).sum(1).to(torch.bfloat16)
        return out + self.shared(x) if self.shared else out

    def reference(self, x):
        """Float32 per-token loop over the chosen experts on the same (quantized) operands."""
        topv, topi = self.route(x)
        out = torch.zeros(x.shape[0], self.hid, dtype=torch.float32, device=x.device)
        for t in range(x.shape[0]):
            for j in range(self.k):
                e = int(topi[t, j])
                a = x[t:t + 1]
                if self.fp8:
                    a = quantize(a, 1.0 / self.sa13).float() * self.sa13
                    w13 = self.w13[e].float() * self.sb13[e][:, None]
                    w2 = self.w2[e].float() * self.sb2[e][:, None]
                else:
                    a, w13, w2 = a.float(), self.w13[e].float(), self.w2[e].float()
                h = a @ w13.t()
                if self.fp8:  # the kernel's path: bf16 gate/up, bf16 SwiGLU, then fp8 again
                    h = h.to(torch.bfloat16)
                    act = F.silu(h[:, :self.inter]) * h[:, self.inter:]
                    act = quantize(act, 1.0 / self.sa2).float() * self.sa2
                else:
                    act = F.silu(h[:, :self.inter]) * h[:, self.inter:]
                out[t] += topv[t, j] * (act @ w2.t())[0]
        if self.shared:
            out += self.shared(x).float()
        return out


class Layer:
    def __init__(self, ctx, spec, kind, max_batch, context, window, moe_impl):
        hid = spec["hidden"]
        dev = ctx.device
        self.norm1 = torch.ones(hid, dtype=torch.bfloat16, device=dev)
        self.norm2 = torch.ones(hid, dtype=torch.bfloat16, device=dev)
        if spec["kind"] == "mla":
            self.attn = MlaAttention(ctx, spec, max_batch, context)
        else:
            self.attn = GqaAttention(ctx, spec, max_batch, context, window)
        self.kind = kind
        self.ffn = Moe(ctx, spec, moe_impl) if kind == "moe" else SwiGLU(ctx, hid, spec["dense_intermediate"])

    def attn_block(self, x):
        return x + self.attn(rms_norm(x, self.norm1))

    def ffn_block(self, x):
        return x + self.ffn(rms_norm(x, self.norm2))


class Stack:
    def __init__(self, ctx, spec, layers, dense, window_layers, max_batch, context, moe_impl):
        dev = ctx.device
        self.spec = spec
        self.embed = rand_bf16((spec["vocab"], spec["hidden"]), dev, 1.0)
        self.layers = []
        for i in range(layers):
            kind = "dense" if (i < dense or spec["experts"] == 0) else "moe"
            window = spec["sliding_window"] if (i % 2 == 0 and i // 2 < window_layers) else 0
            self.layers.append(Layer(ctx, spec, kind, max_batch, context, window, moe_impl))
        self.final_norm = torch.ones(spec["hidden"], dtype=torch.bfloat16, device=dev)
        self.lm_head = Linear(ctx, spec["vocab"], spec["hidden"], force_bf16=True)

    def step(self, tokens):
        x = self.embed.index_select(0, tokens)
        for layer in self.layers:
            x = layer.ffn_block(layer.attn_block(x))
        return self.head(x, tokens)

    def head(self, x, tokens):
        nxt = torch.argmax(self.lm_head(rms_norm(x, self.final_norm)), dim=-1)
        tokens.copy_(nxt)
        return nxt


# ----------------------------------------------------------------------------- sizing


def per_layer_bytes(spec, fp8, context, max_batch, moe_impl):
    """Weight and KV bytes of one attention, dense-FFN and MoE layer (without allocating)."""
    wb = 1 if fp8 else 2
    h = spec["hidden"]
    if spec["kind"] == "mla":
        hq = spec["heads"]
        qk = spec["qk_nope_head_dim"] + spec["qk_rope_head_dim"]
        qr = spec["q_lora_rank"]
        q_proj = (qr * h + hq * qk * qr) if qr else hq * qk * h
        attn = (q_proj + (spec["kv_lora_rank"] + spec["qk_rope_head_dim"]) * h + hq * spec["v_head_dim"] * h) * wb
        attn += hq * (spec["qk_nope_head_dim"] + spec["v_head_dim"]) * spec["kv_lora_rank"] * 2  # W_UK, W_UV bf16
        kv = max_batch * context * (spec["kv_lora_rank"] + spec["qk_rope_head_dim"]) * 2
    else:
        d = spec["head_dim"]
        attn = ((spec["heads"] + 2 * spec["kv_heads"]) * d * h + spec["heads"] * d * h) * wb
        kv = 2 * max_batch * spec["kv_heads"] * context * d * 2
    dense = 3 * h * spec["dense_intermediate"] * wb
    eb = 1 if moe_impl == "scaled_grouped_mm" else 2
    moe = 3 * h * spec["expert_intermediate"] * spec["experts"] * eb + h * spec["experts"] * 2
    moe += 3 * h * spec["shared_intermediate"] * wb
    return attn + kv, dense, moe


def choose_layers(spec, fp8, context, max_batch, budget_bytes, requested, moe_impl):
    attn, dense, moe = per_layer_bytes(spec, fp8, context, max_batch, moe_impl)
    fixed = 2 * 2 * spec["vocab"] * spec["hidden"] + 4e9  # embedding, lm_head, activations and graphs
    top = min(requested or spec["layers"], spec["layers"])
    for layers in range(top, 0, -1):
        n_dense, _ = layer_split(spec, layers)
        total = fixed + layers * attn + n_dense * dense + (layers - n_dense) * (moe if spec["experts"] else dense)
        if total <= budget_bytes:
            return layers, total
    raise SystemExit(f"decode_loop: {spec['name']}: not even one layer fits in {budget_bytes / 1e9:.0f} GB")


# ----------------------------------------------------------------------------- checks


def rel_err(out, ref):
    out, ref = out.float(), ref.float()
    if not torch.isfinite(out).all():
        return float("inf")
    return ((out - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def probe_moe_impl(dtype, device):
    """Which grouped GEMM to use: torch._scaled_grouped_mm for fp8 where it runs and is right,
    else torch._grouped_mm in bf16 (the experts are then stored bf16)."""
    if dtype == "fp8" and hasattr(torch, "_scaled_grouped_mm"):
        try:
            e, n, k = 4, 256, 512
            a = rand_fp8((64, k), device)
            w = rand_fp8((e, n, k), device)
            offs = torch.tensor([10, 30, 31, 64], dtype=torch.int32, device=device)
            sa = torch.full((64,), 0.5, dtype=torch.float32, device=device)
            sb = torch.full((e, n), 0.25, dtype=torch.float32, device=device)
            out = torch._scaled_grouped_mm(a, w.transpose(-2, -1), sa, sb, offs=offs, out_dtype=torch.bfloat16)
            ref = torch.empty(64, n, device=device)
            lo = 0
            for g, hi in enumerate(offs.tolist()):
                ref[lo:hi] = (a[lo:hi].float() * 0.5) @ (w[g].float() * 0.25).t()
                lo = hi
            err = rel_err(out, ref)
            if err < 1e-2:
                return "scaled_grouped_mm"
            print(f"decode_loop: torch._scaled_grouped_mm off by {err:.3g}: experts fall back to bf16", file=sys.stderr)
        except Exception as exc:  # noqa: BLE001 - any failure means: use the fallback
            print(f"decode_loop: torch._scaled_grouped_mm unusable ({exc}); experts fall back to bf16", file=sys.stderr)
    if not hasattr(torch, "_grouped_mm"):
        raise SystemExit("decode_loop: this PyTorch has no torch._grouped_mm (needed for the MoE experts)")
    return "grouped_mm"


def self_check(stack, ctx, batch):
    """Each kernel class against a float32 reference on fresh random inputs; raises on a miss."""
    limit = 2e-2 if ctx.fp8 else 1e-2
    dev = ctx.device
    hid = stack.spec["hidden"]
    x = torch.randn(batch, hid, dtype=torch.bfloat16, device=dev)
    results = {}
    layer = stack.layers[0]
    lin = layer.attn.o
    xin = torch.randn(batch, lin.k, dtype=torch.bfloat16, device=dev)
    results["linear"] = rel_err(lin(xin), lin.reference(xin))
    out, ref = layer.attn.check(rms_norm(x, layer.norm1))
    results["attention"] = rel_err(out, ref)
    moe_layers = [l for l in stack.layers if l.kind == "moe"]
    if moe_layers:
        moe = moe_layers[0].ffn
        xm = torch.randn(batch, hid, dtype=torch.bfloat16, device=dev)
        results["moe"] = rel_err(moe(xm), moe.reference(xm))
    bad = {k: v for k, v in results.items() if not v < limit}
    line = ", ".join(f"{k} {v:.2e}" for k, v in results.items())
    print(f"decode_loop: self-check (batch {batch}, limit {limit:g}): {line}", flush=True)
    if bad:
        raise RuntimeError(f"self-check failed: {bad}")
    return results


# ----------------------------------------------------------------------------- timing


def capture(fn):
    """Warms `fn` up on a side stream, then captures it in a CUDA graph."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    torch.cuda.synchronize()
    return g


def time_graph(g, replays, warmup=5):
    for _ in range(warmup):
        g.replay()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(replays)]
    for a, b in ev:
        a.record()
        g.replay()
        b.record()
    torch.cuda.synchronize()
    ms = sorted(a.elapsed_time(b) for a, b in ev)

    def pct(p):
        return ms[min(len(ms) - 1, int(round(p * (len(ms) - 1))))]

    return pct(0.5), pct(0.1), pct(0.9)


def run_model(name, args, device, deadline, moe_impl_all):
    spec = load_spec(name)
    fp8 = args.dtype == "fp8"
    moe_impl = moe_impl_all if spec["experts"] else "none"
    max_batch = max(args.batches)
    budget = args.memory_gb * 1e9
    layers, planned = choose_layers(spec, fp8, args.context, max_batch, budget, args.layers, moe_impl)
    dense, window = layer_split(spec, layers)
    print(f"decode_loop: {name} {args.dtype}: {layers} of {spec['layers']} layers ({dense} dense, "
          f"{layers - dense if spec['experts'] else 0} MoE, {window} sliding-window), context {args.context}, "
          f"batches {args.batches}, planned {planned / 1e9:.1f} GB", flush=True)
    t0 = time.time()
    ctx = Ctx(fp8, device)
    torch.manual_seed(args.seed)
    stack = Stack(ctx, spec, layers, dense, window, max_batch, args.context, moe_impl)
    torch.cuda.synchronize()
    print(f"decode_loop: built in {time.time() - t0:.1f} s; GPU memory in use "
          f"{torch.cuda.memory_allocated() / 1e9:.1f} GB", flush=True)
    attention_impl = "mla_absorbed_bmm" if spec["kind"] == "mla" else "sdpa_gqa_packed"
    gpu = torch.cuda.get_device_name(device)

    # Calibrate the static fp8 activation scales on one eager pass, then check every kernel class.
    tokens = torch.randint(0, spec["vocab"], (max_batch,), device=device)
    ctx.calibrating = True
    stack.step(tokens)
    ctx.calibrating = False
    self_check(stack, ctx, min(4, max_batch))

    rows = []
    for b in args.batches:
        if time.time() > deadline:
            print(f"decode_loop: time budget spent: {name} stops before batch {b}", flush=True)
            break
        tok = torch.randint(0, spec["vocab"], (b,), device=device)
        x = torch.randn(b, spec["hidden"], dtype=torch.bfloat16, device=device)
        qs = [l.attn.project(rms_norm(x, l.norm1)) for l in stack.layers]
        sink = torch.empty_like(x)

        def attn_blocks():
            for l in stack.layers:
                sink.copy_(l.attn_block(x))

        def attn_cores():
            for l, q in zip(stack.layers, qs):
                l.attn.core(q)

        def ffn_blocks(kind):
            def run():
                for l in stack.layers:
                    if l.kind == kind:
                        sink.copy_(l.ffn_block(x))
            return run

        def head():
            stack.head(x, tok)

        g = capture(lambda: stack.step(tok))
        med, p10, p90 = time_graph(g, args.replays)
        del g
        counts = torch.stack([l.ffn.counts for l in stack.layers if l.kind == "moe"]) if moe_impl != "none" else None
        parts = {}
        if not args.no_breakdown:
            jobs = [("attn_ms", attn_blocks), ("attn_core_ms", attn_cores), ("head_ms", head)]
            if dense > 0:
                jobs.append(("dense_ffn_ms", ffn_blocks("dense")))
            if moe_impl != "none" and layers > dense:
                jobs.append(("moe_ms", ffn_blocks("moe")))
            for key, fn in jobs:
                gp = capture(fn)
                parts[key] = time_graph(gp, args.breakdown_replays)[0]
                del gp
        row = {
            "model": name, "dtype": args.dtype, "kv_dtype": "bf16", "layers": layers, "dense_layers": dense,
            "window_layers": window, "context": args.context, "batch": b, "step_ms_median": f"{med:.4f}",
            "step_ms_p10": f"{p10:.4f}", "step_ms_p90": f"{p90:.4f}", "replays": args.replays,
            "attention_impl": attention_impl, "moe_impl": moe_impl, "gpu": gpu,
        }
        for key in ("attn_ms", "attn_core_ms", "dense_ffn_ms", "moe_ms", "head_ms"):
            row[key] = f"{parts[key]:.4f}" if key in parts else ""
        if counts is not None:
            touched = (counts > 0).sum(dim=1).float().mean().item()
            row["experts_touched"] = f"{touched:.1f}"
            row["tokens_per_expert_max"] = int(counts.max().item())
        else:
            row["experts_touched"] = ""
            row["tokens_per_expert_max"] = ""
        rows.append(row)
        print(f"decode_loop: {name} batch {b}: {med:.3f} ms (p10 {p10:.3f}, p90 {p90:.3f})"
              + "".join(f", {k[:-3]} {v:.3f}" for k, v in parts.items())
              + (f", experts touched {row['experts_touched']}" if counts is not None else ""), flush=True)
        torch.cuda.empty_cache()
    del stack
    torch.cuda.empty_cache()
    return rows, {"layers": layers, "dense_layers": dense, "window_layers": window, "planned_gb": planned / 1e9,
                  "build_s": time.time() - t0, "moe_impl": moe_impl, "attention_impl": attention_impl}


def print_table(rows):
    cols = ["model", "layers", "batch", "step_ms_median", "step_ms_p10", "step_ms_p90", "attn_ms", "attn_core_ms",
            "dense_ffn_ms", "moe_ms", "head_ms", "experts_touched"]
    widths = [max(len(c), *(len(str(r.get(c, ""))) for r in rows)) for c in cols]
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths)))
    for r in rows:
        print("  ".join(str(r.get(c, "")).ljust(w) for c, w in zip(cols, widths)))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default="llama-3.3-70b", help="comma-separated built-in model names")
    p.add_argument("--dtype", choices=["bf16", "fp8"], default="fp8", help="weight type (KV cache: bf16)")
    p.add_argument("--context", type=int, default=1024, help="KV tokens each sequence's query attends to")
    p.add_argument("--batches", default="1,2,4,8,16,32,64,128,256", help="comma-separated batch sizes")
    p.add_argument("--layers", type=int, default=0, help="layers to build (0: as many as fit --memory-gb)")
    p.add_argument("--memory-gb", type=float, default=120.0, help="GPU memory the stack may use")
    p.add_argument("--replays", type=int, default=50, help="timed replays of the whole step (>= 50)")
    p.add_argument("--breakdown-replays", type=int, default=20, help="timed replays of each part graph")
    p.add_argument("--no-breakdown", action="store_true", help="time the whole step only")
    p.add_argument("--max-seconds", type=float, default=240.0, help="time budget for all models")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True, help="output folder (decode_loop.csv, decode_loop.json)")
    args = p.parse_args(argv)
    args.models = [m for m in args.models.split(",") if m]
    args.batches = [int(b) for b in args.batches.split(",") if b]
    if args.context < 2 or not args.batches or min(args.batches) < 1 or args.replays < 1:
        p.error("--context must be >= 2, --batches and --replays positive")
    return args


def main(argv=None):
    global torch, F
    args = parse_args(sys.argv[1:] if argv is None else argv)
    import torch as _torch
    import torch.nn.functional as _F
    torch, F = _torch, _F
    if not torch.cuda.is_available():
        raise SystemExit("decode_loop: no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    device = torch.device("cuda", 0)
    start = time.time()
    deadline = start + args.max_seconds
    os.makedirs(args.out, exist_ok=True)
    moe_impl = probe_moe_impl(args.dtype, device)
    meta = {"torch": torch.__version__, "cuda": torch.version.cuda, "gpu": torch.cuda.get_device_name(device),
            "args": {k: v for k, v in vars(args).items()}, "moe_impl": moe_impl, "models": {}}
    all_rows = []
    with torch.inference_mode():
        for i, name in enumerate(args.models):
            if time.time() > deadline:
                print(f"decode_loop: time budget spent before {name}", flush=True)
                meta["models"][name] = {"skipped": "time budget"}
                continue
            # Each remaining model gets an equal share of the time left.
            share = (deadline - time.time()) / (len(args.models) - i)
            try:
                rows, info = run_model(name, args, device, time.time() + share, moe_impl)
            except Exception as exc:  # noqa: BLE001 - one model's failure must not lose the others' rows
                traceback.print_exc()
                print(f"decode_loop: {name}: {exc}", file=sys.stderr, flush=True)
                meta["models"][name] = {"error": str(exc)}
                torch.cuda.empty_cache()
                continue
            all_rows.extend(rows)
            meta["models"][name] = info
            with open(os.path.join(args.out, "decode_loop.csv"), "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=CSV_FIELDS)
                w.writeheader()
                w.writerows(all_rows)
    meta["seconds"] = time.time() - start
    with open(os.path.join(args.out, "decode_loop.json"), "w") as f:
        json.dump(meta, f, indent=2)
    print(f"decode_loop: {len(all_rows)} rows in {meta['seconds']:.0f} s -> {os.path.join(args.out, 'decode_loop.csv')}")
    if all_rows:
        print_table(all_rows)
    return 0 if all_rows else 1


if __name__ == "__main__":
    sys.exit(main())
