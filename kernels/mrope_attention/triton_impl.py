"""Our Qwen2.5-VL M-RoPE attention: 5 launches per forward.

1. one fused QKV GEMM (cuBLAS ``addmm`` on the [C, (H+2Hkv)d] concatenated weight, built once per
   weight set and cached),
2. a Triton kernel applying M-RoPE in place to the Q and K columns of that buffer (our own
   intermediate; fp32 math, one rounding),
3. a small Triton kernel scanning the additive mask once per (batch, query block) for the range
   of KV tiles that hold any unblocked key (causal and padding masks then skip their blocked
   tiles; a block with a fully masked row keeps the full range),
4. a Triton flash-attention kernel (GQA, arbitrary additive mask, fp32 online softmax, bf16 P V),
   reading Q/K/V straight out of the GEMM buffer and writing O head-major into [B*N, H*d],
5. ``o_proj`` (``mm``, no bias).

Fully masked rows: the running max includes the masked scores (the mask is added as a finite
finfo.min, never replaced by -inf), and blocks containing such a row visit every tile, so the row
gets the uniform average over all N keys, exactly what the HF eager/SDPA reference computes.
Skipping a fully blocked tile for rows that do have an unblocked key is exact: those terms are
exp(finfo.min - max) = 0 in fp32.
"""

from __future__ import annotations

import math

import torch

from ..fused_weights import fused_qkv_weights

BLOCKED_THRESHOLD = -1.0e30  # a mask entry <= this counts as blocked (finfo.min is -3.39e38)

_LAUNCHERS = None


def _launchers():
    global _LAUNCHERS
    if _LAUNCHERS is None:
        from .._launch import FastLauncher
        from ._kernels import _attn_fwd_kernel, _mask_range_kernel, _mrope_qk_inplace_kernel

        _LAUNCHERS = tuple(FastLauncher(k) for k in (_mrope_qk_inplace_kernel, _mask_range_kernel, _attn_fwd_kernel))
    return _LAUNCHERS


def _cdiv(a, b):
    return -(-a // b)


def _np2(x):
    return 1 << max(0, (int(x) - 1).bit_length())


def forward(inputs: dict, num_heads: int = 28, num_kv_heads: int = 4, mrope_section=(16, 24, 24),
            block_m: int = 0, block_n: int = 0, num_warps: int = 0, num_stages: int = 0,
            use_range: bool | None = None) -> dict:
    rope_k, range_k, attn_k = _launchers()
    x = inputs["x"]
    B, N, C = x.shape
    H, Hkv = num_heads, num_kv_heads
    HD = inputs["wq"].shape[0] // H
    if HD != _np2(HD):
        raise ValueError("head_dim must be a power of two")
    if sum(mrope_section) != HD // 2:
        raise ValueError("mrope_section must sum to head_dim/2")
    T = B * N
    wt, bias = fused_qkv_weights(inputs)
    qkv = torch.addmm(bias, x.reshape(T, C), wt)  # [T, (H + 2Hkv) * HD]
    cos, sin = inputs["cos"], inputs["sin"]
    if cos.stride(-1) != 1:
        cos = cos.contiguous()
    if sin.stride(-1) != 1 or sin.stride() != cos.stride():
        sin = sin.contiguous()
        cos = cos.contiguous()
    half = HD // 2
    nht = H + Hkv
    bh = min(_np2(nht), max(1, 4096 // HD))
    bt = max(1, 4096 // (HD * bh))
    rope_k.launch((_cdiv(T, bt), _cdiv(nht, bh), 1),
                  (qkv, cos, sin, T, N, nht, qkv.stride(0), cos.stride(0), cos.stride(1), cos.stride(2), HD),
                  {"SEC0": mrope_section[0], "SEC1": mrope_section[0] + mrope_section[1], "HALF": half,
                   "BT": bt, "BH": bh}, num_warps=4)

    on_gpu = x.is_cuda
    BM = block_m or (128 if on_gpu else 16)
    BN = block_n or (64 if on_gpu else 16)
    nw = num_warps or (8 if on_gpu else 4)
    ns = num_stages or (3 if on_gpu else 1)
    NMB, NNB = _cdiv(N, BM), _cdiv(N, BN)
    mask = inputs.get("mask")
    has_mask = mask is not None
    if has_mask:
        if mask.stride(-1) != 1:
            mask = mask.contiguous()
        smb = mask.stride(0) if mask.shape[0] > 1 else 0
        smi, smj = mask.stride(2), mask.stride(3)
    else:
        mask, smb, smi, smj = qkv, 0, 0, 0
    lohi = torch.empty((B, NMB, 2), dtype=torch.int32, device=x.device)
    # A mask row whose length is not a multiple of 16 keys (or whose rows are not 16-byte aligned)
    # cannot be loaded in vectors: Triton cannot prove the column check uniform over a vector, so
    # each thread issues one scalar load per element of every key tile (seq 613 at batch 1 ran
    # 3.2x slower than seq 608). Such a mask is copied once into rows padded to whole key tiles
    # (row stride a multiple of 64 elements), which the attention loads without a column check.
    padded = has_mask and smj == 1 and (N % 16 != 0 or (smi * mask.element_size()) % 16 != 0)
    if padded:
        npad = _cdiv(NNB * BN, 64) * 64
        mcopy = torch.empty((mask.shape[0], N, npad), dtype=mask.dtype, device=x.device)
        mcopy[:, :, :N].copy_(mask[:, 0])
        mask, smb, smi, smj = mcopy, (mcopy.stride(0) if mcopy.shape[0] > 1 else 0), mcopy.stride(1), 1
    if has_mask and use_range is None:
        # The scan costs one launch and one read of the mask: worth it once there are enough
        # tiles to skip (measured on an H200: B*N >= 4096 or N >= 1024).
        use_range = B * N >= 4096 or N >= 1024
    use_range = bool(use_range) and has_mask
    if use_range:
        R = max(1, min(8, 512 // BN, _np2(NNB)))
        range_k.launch((NMB, B, 1), (mask, lohi, N, smb, smi, smj, NMB, NNB, BLOCKED_THRESHOLD),
                       {"BM": BM, "BN": BN, "R": R}, num_warps=8 if on_gpu else 4)
    o = torch.empty((T, H * HD), dtype=x.dtype, device=x.device)
    attn_k.launch((H, NMB, B), (qkv, mask, lohi, o, N, qkv.stride(0), o.stride(0), H * HD, (H + Hkv) * HD,
                                smb, smi, smj, HD ** -0.5, NMB, NNB),
                  {"GROUP": H // Hkv, "HD": HD, "BM": BM, "BN": BN, "HAS_MASK": has_mask, "USE_RANGE": use_range,
                   "MASK_PADDED": padded},
                  num_warps=nw, num_stages=ns)
    out = torch.mm(o, inputs["wo"].t())
    return {"out": out.view(B, N, C)}
