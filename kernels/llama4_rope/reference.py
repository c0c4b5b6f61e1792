"""Llama 4 RoPE (complex-frequency, interleaved pairs): inputs, PyTorch reference, float64 check.

Semantics (kernels.md section 1): for every head of q and k,
``out[..., 2j] + i*out[..., 2j+1] = (x[..., 2j] + i*x[..., 2j+1]) * freqs_cis[b, s, j]``,
computed in fp32 and rounded once to the input dtype. Backward multiplies the upstream gradient
by ``conj(freqs_cis)``. No gradient flows to ``freqs_cis``.
"""

from __future__ import annotations

import torch

THETA = 500000.0  # Llama4TextConfig default (the Liger benchmark builds it with no rope args)


def head_dim_of(axes: dict) -> int:
    if "head_dim" in axes:
        return int(axes["head_dim"])
    return int(axes["hidden"]) // int(axes.get("q_heads", 32))


def positions_for(batch: int, seq: int, device) -> torch.Tensor:
    """Per-batch positions: row 0 is 0..S-1 (the benchmark seed); row b starts at 37*b, so a
    kernel that only honours batch 0's frequencies (as Liger does) is caught when batch > 1."""
    base = torch.arange(seq, device=device, dtype=torch.int64)
    return torch.stack([base + 37 * b for b in range(batch)], 0)


def build_freqs_cis(positions: torch.Tensor, head_dim: int, theta: float = THETA) -> torch.Tensor:
    """HF ``Llama4TextRotaryEmbedding`` (rope_type default, attention_scaling 1): complex64 [B,S,D/2]."""
    dev = positions.device
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.int64, device=dev).float() / head_dim))
    ang = positions.float()[..., None] * inv_freq  # exact K=1 product in fp32
    return torch.polar(torch.ones_like(ang), ang)


def make_inputs(axes: dict, dtype=torch.bfloat16, device="cpu", seed: int = 0) -> dict:
    B = int(axes.get("batch", 1))
    S = int(axes["seq"])
    Hq = int(axes.get("q_heads", 32))
    Hkv = int(axes.get("kv_heads", 8))
    D = head_dim_of(axes)
    if D % 2:
        raise ValueError("head_dim must be even")
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    q = torch.randn((B, S, Hq, D), generator=g, device=device, dtype=torch.float32).to(dtype)
    k = torch.randn((B, S, Hkv, D), generator=g, device=device, dtype=torch.float32).to(dtype)
    freqs = build_freqs_cis(positions_for(B, S, device), D)
    return {"q": q, "k": k, "freqs_cis": freqs}


def params_from_axes(axes: dict) -> dict:
    return {}


def reference(inputs: dict) -> dict:
    """HF ``apply_rotary_emb`` verbatim (fp32 upcast, complex64 multiply, one rounding)."""
    xq, xk, freqs_cis = inputs["q"], inputs["k"], inputs["freqs_cis"]
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    xq_out = torch.view_as_real(xq_ * freqs_cis[:, :, None, :]).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis[:, :, None, :]).flatten(3)
    return {"q_out": xq_out.type_as(xq), "k_out": xk_out.type_as(xk)}


def _rot64(x, f, conj=False):
    x_ = torch.view_as_complex(x.double().reshape(*x.shape[:-1], -1, 2).contiguous())
    f_ = f.to(torch.complex128)[:, :, None, :]
    if conj:
        f_ = f_.conj()
    return torch.view_as_real(x_ * f_).flatten(3)


def reference_float64(inputs: dict) -> dict:
    return {"q_out": _rot64(inputs["q"], inputs["freqs_cis"]), "k_out": _rot64(inputs["k"], inputs["freqs_cis"])}


def make_grad_outputs(inputs: dict, axes: dict | None = None, dtype=None, seed: int = 1) -> dict:
    q, k = inputs["q"], inputs["k"]
    g = torch.Generator(device=q.device)
    g.manual_seed(seed)
    gq = torch.randn(q.shape, generator=g, device=q.device, dtype=torch.float32).to(q.dtype)
    gk = torch.randn(k.shape, generator=g, device=k.device, dtype=torch.float32).to(k.dtype)
    return {"q_out": gq, "k_out": gk}


def reference_backward(inputs: dict, grad_outputs: dict) -> dict:
    """dx = dy * conj(freqs_cis), fp32 math, one rounding (kernels.md 1.5)."""
    f = inputs["freqs_cis"][:, :, None, :].conj()
    out = {}
    for name, gname in (("q", "q_out"), ("k", "k_out")):
        gy = grad_outputs[gname]
        gy_ = torch.view_as_complex(gy.float().reshape(*gy.shape[:-1], -1, 2))
        out[name] = torch.view_as_real(gy_ * f).flatten(3).type_as(gy)
    return out


def reference_backward_float64(inputs: dict, grad_outputs: dict) -> dict:
    f = inputs["freqs_cis"]
    return {"q": _rot64(grad_outputs["q_out"], f, conj=True), "k": _rot64(grad_outputs["k_out"], f, conj=True)}


def bytes_moved(axes: dict, dtype) -> int:
    B = int(axes.get("batch", 1)); S = int(axes["seq"])
    Hq = int(axes.get("q_heads", 32)); Hkv = int(axes.get("kv_heads", 8)); D = head_dim_of(axes)
    es = torch.empty((), dtype=dtype).element_size()
    qk = B * S * (Hq + Hkv) * D * es
    freqs = B * S * (D // 2) * 8
    return 2 * qk + freqs


def flops(axes: dict) -> int:
    B = int(axes.get("batch", 1)); S = int(axes["seq"])
    Hq = int(axes.get("q_heads", 32)); Hkv = int(axes.get("kv_heads", 8)); D = head_dim_of(axes)
    return 6 * B * S * (Hq + Hkv) * (D // 2)
