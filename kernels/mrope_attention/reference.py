"""Qwen2.5-VL multimodal-rotary-embedding attention (text decoder self-attention).

Semantics (kernels.md section 2, HF ``Qwen2_5_VLAttention`` with the eager interface):
``Q,K,V = x W^T + b`` (bias on q/k/v, none on o), heads split head-major, M-RoPE on Q and K with
the three position streams merged by ``mrope_section`` (pair units, mirrored on both halves) and
half-split pairs (c, c + d/2), GQA (query head h uses kv head h // (H/Hkv)),
``S = Q K^T * d^-0.5 + mask`` (additive, [B,1,N,N], finfo.min for blocked), softmax in fp32,
``O = P V``, ``out = O Wo^T``.

A fully masked row (every key finfo.min, e.g. a left-padding query) gets a **uniform average over
all N keys** (the mask swamps the scores, the row is constant, the softmax is uniform); no NaN.
"""

from __future__ import annotations

import math

import torch

THETA = 1_000_000.0
QWEN25_VL_7B = {"hidden": 3584, "heads": 28, "kv_heads": 4}


def mrope_section_for(head_dim: int) -> tuple[int, int, int]:
    """[16, 24, 24] for head_dim 128; scaled proportionally for the small test shapes."""
    half = head_dim // 2
    if half == 64:
        return (16, 24, 24)
    t = max(1, half // 4)
    h = (half - t) // 2
    return (t, h, half - t - h)


def _dims(axes: dict):
    C = int(axes.get("hidden", 3584)); H = int(axes.get("heads", 28)); Hkv = int(axes.get("kv_heads", 4))
    return int(axes.get("batch", 1)), int(axes["seq"]), C, H, Hkv, C // H


def positions_for(B: int, N: int, device="cpu"):
    """Realistic 3-stream positions [3,B,N] (HF ``get_rope_index`` style) and per-row padding.

    Valid tokens: a text prefix, one image block of Hg x Wg merged patches (t = offset,
    h = offset + row, w = offset + col), then text resuming at max(previous) + 1. Batch rows with
    b % 3 == 1 are left-padded by N//5 tokens (their first queries are fully masked), rows with
    b % 3 == 2 right-padded by N//7; padded positions are 1 (as HF fills them)."""
    pos = torch.ones(3, B, N, dtype=torch.int64)
    lefts, lengths = [], []
    for b in range(B):
        left = N // 5 if b % 3 == 1 else 0
        right = N // 7 if b % 3 == 2 else 0
        L = max(1, N - left - right)
        prefix = max(1, L // 8)
        rest = L - prefix
        side = int(math.isqrt(max(0, rest // 2)))
        hg, wg = side, max(side, 1) + (1 if side else 0)
        if hg * wg > rest or hg == 0:
            hg = wg = 0
        p = []
        for n in range(prefix):
            p.append((n, n, n))
        off = prefix
        for r in range(hg):
            for c in range(wg):
                p.append((off, off + r, off + c))
        nxt = max(max(t) for t in p) + 1 if p else 0
        while len(p) < L:
            p.append((nxt, nxt, nxt))
            nxt += 1
        pos[:, b, left:left + L] = torch.tensor(p, dtype=torch.int64).t()
        lefts.append(left)
        lengths.append(L)
    return pos.to(device), lefts, lengths


def build_cos_sin(pos: torch.Tensor, head_dim: int, dtype, theta: float = THETA):
    """HF rotary module (unmerged, [3,B,N,d]): fp32 angles, cat(freqs, freqs), cast to dtype."""
    dev = pos.device
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.int64, device=dev).float() / head_dim))
    freqs = pos.float()[..., None] * inv_freq
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def build_mask(B: int, N: int, lefts, lengths, dtype, device="cpu"):
    """HF-style additive 4-D mask: 0 where key j <= query i and j is a real token, else finfo.min."""
    i = torch.arange(N, device=device)[:, None]
    j = torch.arange(N, device=device)[None, :]
    allowed = []
    for b in range(B):
        kv = (j >= lefts[b]) & (j < lefts[b] + lengths[b])
        allowed.append((j <= i) & kv)
    allowed = torch.stack(allowed, 0)[:, None]
    mask = torch.zeros(B, 1, N, N, dtype=dtype, device=device)
    return mask.masked_fill(~allowed, torch.finfo(dtype).min)


def make_inputs(axes: dict, dtype=torch.bfloat16, device="cpu", seed: int = 0) -> dict:
    B, N, C, H, Hkv, d = _dims(axes)
    g = torch.Generator(device=device)
    g.manual_seed(seed)

    def nrm(*shape, std=0.02):
        return (torch.randn(shape, generator=g, device=device) * std).to(dtype)

    x = torch.randn((B, N, C), generator=g, device=device).to(dtype)
    pos, lefts, lengths = positions_for(B, N, device)
    cos, sin = build_cos_sin(pos, d, dtype)
    return {
        "x": x, "cos": cos, "sin": sin, "mask": build_mask(B, N, lefts, lengths, dtype, device),
        "wq": nrm(H * d, C), "bq": nrm(H * d, std=0.1),
        "wk": nrm(Hkv * d, C), "bk": nrm(Hkv * d, std=0.1),
        "wv": nrm(Hkv * d, C), "bv": nrm(Hkv * d, std=0.1),
        "wo": nrm(C, H * d),
    }


def params_from_axes(axes: dict) -> dict:
    B, N, C, H, Hkv, d = _dims(axes)
    return {"num_heads": H, "num_kv_heads": Hkv, "mrope_section": mrope_section_for(d)}


def merge_mrope(cos, sin, mrope_section):
    """HF ``apply_multimodal_rotary_pos_emb``'s merge: [3,B,N,d] -> [B,N,d]."""
    sec = list(mrope_section) * 2
    cos_m = torch.cat([m[i % 3] for i, m in enumerate(cos.split(sec, dim=-1))], dim=-1)
    sin_m = torch.cat([m[i % 3] for i, m in enumerate(sin.split(sec, dim=-1))], dim=-1)
    return cos_m, sin_m


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def repeat_kv(x, n_rep):
    b, h, n, d = x.shape
    if n_rep == 1:
        return x
    return x[:, :, None].expand(b, h, n_rep, n, d).reshape(b, h * n_rep, n, d)


def _project_and_rope(inputs, H, Hkv, mrope_section, cast):
    x = cast(inputs["x"])
    B, N, C = x.shape
    d = inputs["wq"].shape[0] // H
    F = torch.nn.functional
    q = F.linear(x, cast(inputs["wq"]), cast(inputs["bq"])).view(B, N, H, d).transpose(1, 2)
    k = F.linear(x, cast(inputs["wk"]), cast(inputs["bk"])).view(B, N, Hkv, d).transpose(1, 2)
    v = F.linear(x, cast(inputs["wv"]), cast(inputs["bv"])).view(B, N, Hkv, d).transpose(1, 2)
    cos_m, sin_m = merge_mrope(cast(inputs["cos"]), cast(inputs["sin"]), mrope_section)
    cos_m, sin_m = cos_m[:, None], sin_m[:, None]
    q = q * cos_m + rotate_half(q) * sin_m
    k = k * cos_m + rotate_half(k) * sin_m
    return q, k, v, d


def _eager(inputs, H, Hkv, mrope_section, cast):
    q, k, v, d = _project_and_rope(inputs, H, Hkv, mrope_section, cast)
    B, _, N, _ = q.shape
    k = repeat_kv(k, H // Hkv)
    v = repeat_kv(v, H // Hkv)
    attn = torch.matmul(q, k.transpose(2, 3)) * (d ** -0.5)
    attn = attn + cast(inputs["mask"])[:, :, :, :N]
    attn = torch.softmax(attn, dim=-1, dtype=torch.float32 if q.dtype != torch.float64 else torch.float64).to(q.dtype)
    o = torch.matmul(attn, v).transpose(1, 2).reshape(B, N, H * d)
    return torch.nn.functional.linear(o, cast(inputs["wo"]))


def reference(inputs: dict, num_heads: int = 28, num_kv_heads: int = 4, mrope_section=(16, 24, 24)) -> dict:
    """HF eager path in the input dtype (bf16 projections, bf16 M-RoPE with its three roundings,
    bf16 scores, fp32 softmax, bf16 P V)."""
    return {"out": _eager(inputs, num_heads, num_kv_heads, mrope_section, lambda t: t)}


def reference_float64(inputs: dict, num_heads: int = 28, num_kv_heads: int = 4, mrope_section=(16, 24, 24)) -> dict:
    return {"out": _eager(inputs, num_heads, num_kv_heads, mrope_section, lambda t: t.to(torch.float64))}


def sdpa(inputs: dict, num_heads: int = 28, num_kv_heads: int = 4, mrope_section=(16, 24, 24)) -> dict:
    """The same pipeline with ``F.scaled_dot_product_attention`` (HF's default interface), GQA
    via repeat_kv, the additive mask passed as ``attn_mask``."""
    q, k, v, d = _project_and_rope(inputs, num_heads, num_kv_heads, mrope_section, lambda t: t)
    B, _, N, _ = q.shape
    k = repeat_kv(k, num_heads // num_kv_heads)
    v = repeat_kv(v, num_heads // num_kv_heads)
    o = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=inputs["mask"][:, :, :, :N],
                                                         dropout_p=0.0, scale=d ** -0.5)
    o = o.transpose(1, 2).reshape(B, N, num_heads * d)
    return {"out": torch.nn.functional.linear(o, inputs["wo"])}


def bytes_moved(axes: dict, dtype) -> int:
    """x, weights, biases, the cos/sin actually needed ([B,N,d] each, one stream per channel), the
    mask and the output."""
    B, N, C, H, Hkv, d = _dims(axes)
    es = torch.empty((), dtype=dtype).element_size()
    w = C * H * d * 2 + 2 * C * Hkv * d + (H * d + 2 * Hkv * d)
    return es * (B * N * C * 2 + w + 2 * B * N * d + B * N * N)


def flops(axes: dict) -> int:
    """Dense count (kernels.md 2.7): projections + QK^T + PV over all N^2 pairs (rope, softmax
    excluded)."""
    B, N, C, H, Hkv, d = _dims(axes)
    proj = 2 * B * N * C * (2 * H * d + 2 * Hkv * d)
    return proj + 4 * B * H * N * N * d
