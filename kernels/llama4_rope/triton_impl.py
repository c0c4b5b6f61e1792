"""Our Llama 4 RoPE: one Triton launch rotates q and k (forward, or by the conjugate for
backward), out of place, fp32 math, one rounding.

Design:
* grid = (token blocks, q head blocks + k head blocks); a program rotates a
  [BLOCK_T tokens, BLOCK_H heads, head_dim] tile. Rows are loaded contiguously (16-byte vectors),
  then reshaped to [..., head_dim/2, 2] and split into real/imag in registers; the result is joined
  back and stored contiguously. The frequency row (complex64 viewed as fp32 pairs, no copy) is
  loaded once per tile and broadcast over the heads of the tile.
* Small head_dim -> many tokens per program (tile size ~``block_elems`` elements).
* Per-batch frequencies are honoured (``freqs_cis`` [B,S,D/2], or [1,S,D/2]/[S,D/2] broadcast).
* Any even head_dim (padded to a power of two in registers, masked in memory).
* No copies when q/k have a contiguous last dim; outputs are freshly allocated (contiguous).
"""

from __future__ import annotations

import torch

_META_CACHE: dict = {}


_LAUNCHER = None


def _kernel():
    global _LAUNCHER
    if _LAUNCHER is None:
        from .._launch import FastLauncher
        from ._kernels import _llama4_rope_kernel

        _LAUNCHER = FastLauncher(_llama4_rope_kernel)
    return _LAUNCHER


def _np2(x: int) -> int:
    return 1 << max(0, (int(x) - 1).bit_length())


def _meta(S, Hq, Hkv, D, block_elems, num_warps):
    key = (Hq, Hkv, D, block_elems, num_warps)
    m = _META_CACHE.get(key)
    if m is None:
        DH = _np2(D // 2)
        DP = 2 * DH
        bhq = min(_np2(Hq), max(1, block_elems // DP))
        bhk = min(_np2(Hkv), max(1, block_elems // DP)) if Hkv > 0 else 1
        bt = max(1, block_elems // (DP * max(bhq, bhk)))
        nw = num_warps or max(1, min(8, (bt * bhq * DP) // 512))
        m = (DH, bhq, bhk, bt, nw, -(-Hq // bhq), -(-Hkv // bhk) if Hkv > 0 else 0)
        _META_CACHE[key] = m
    return m


def rope_apply(q, k, freqs_cis, conj: bool = False, block_elems: int = 8192, num_warps: int = 0):
    """Rotate q [B,S,Hq,D] and k [B,S,Hkv,D] by freqs_cis (complex64 [B|1,S,D/2] or [S,D/2]);
    ``conj=True`` multiplies by the conjugate (the backward). Returns fresh (q_out, k_out)."""
    B, S, Hq, D = q.shape
    Hkv = k.shape[2]
    if q.stride(-1) != 1:
        q = q.contiguous()
    if k.stride(-1) != 1:
        k = k.contiguous()
    f = torch.view_as_real(freqs_cis) if freqs_cis.is_complex() else freqs_cis
    if f.dim() == 3:  # [S, D/2, 2]
        f = f.unsqueeze(0)
    if f.stride(-2) != 2 or f.stride(-1) != 1:
        f = f.contiguous()
    sfb = 0 if f.shape[0] == 1 else f.stride(0)
    qo = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    ko = torch.empty(k.shape, dtype=k.dtype, device=k.device)
    T = B * S
    if T == 0:
        return qo, ko
    DH, bhq, bhk, bt, nw, nqb, nkb = _meta(S, Hq, Hkv, D, block_elems, num_warps)
    grid = (-(-T // bt), nqb + nkb)
    _kernel().launch(grid, (q, k, qo, ko, f, T, S, Hq, Hkv, D,
                            q.stride(0), q.stride(1), q.stride(2), k.stride(0), k.stride(1), k.stride(2),
                            qo.stride(0), qo.stride(1), qo.stride(2), ko.stride(0), ko.stride(1), ko.stride(2),
                            sfb, f.stride(1), nqb),
                     {"BT": bt, "BHQ": bhq, "BHK": bhk, "DH": DH, "CONJ": conj}, num_warps=nw)
    return qo, ko


def forward(inputs: dict, block_elems: int = 8192, num_warps: int = 0) -> dict:
    qo, ko = rope_apply(inputs["q"], inputs["k"], inputs["freqs_cis"], False, block_elems, num_warps)
    return {"q_out": qo, "k_out": ko}


def backward(inputs: dict, grad_outputs: dict, block_elems: int = 8192, num_warps: int = 0) -> dict:
    dq, dk = rope_apply(grad_outputs["q_out"], grad_outputs["k_out"], inputs["freqs_cis"], True,
                        block_elems, num_warps)
    return {"q": dq, "k": dk}
