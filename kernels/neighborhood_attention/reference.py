"""Fused neighborhood attention (Liger module semantics, 1-D): inputs, reference, float64 check.

Pipeline (kernels.md section 3): ``Q,K,V = x W^T + b`` (nn.Linear layout, bias), heads split
head-major, per (b, head) attention of query i over the neighbour set, ``scale = 1/sqrt(d)``
applied to the raw dot product before the softmax, then ``out_proj`` with bias.

Neighbour sets (r = K // 2):
* ``boundary="truncate"`` (Liger, default): ``j = i + D*t`` for t in [-r, r], kept iff 0 <= j < N.
* ``boundary="shift"`` (NATTEN): dilation group g = i mod D, local index i' = i div D, group length
  N_g = ceil((N - g)/D); window start s' = clamp(i' - r, 0, max(N_g - K, 0)); keys
  ``j = g + D*(s' + t)`` for t in [0, K), kept iff j < N. When K*D <= N (NATTEN's requirement)
  every query sees exactly K keys; for shorter sequences the window is the whole group (our
  documented extension).
"""

from __future__ import annotations

import math

import torch


def neighbor_index(N: int, K: int, dilation: int, boundary: str, device="cpu"):
    """Candidate keys ``idx`` [N, K] (int64) and validity ``valid`` [N, K] (bool)."""
    r = K // 2
    i = torch.arange(N, device=device)[:, None]
    t = torch.arange(K, device=device)[None, :]
    if boundary == "truncate":
        j = i + dilation * (t - r)
    elif boundary == "shift":
        g = i % dilation
        ip = i // dilation
        ng = (N - g + dilation - 1) // dilation
        start = torch.minimum(torch.clamp(ip - r, min=0), torch.clamp(ng - K, min=0))
        j = g + dilation * (start + t)
    else:
        raise ValueError(f"boundary must be 'truncate' or 'shift', not {boundary!r}")
    valid = (j >= 0) & (j < N)
    return j, valid


def neighbor_mask(N: int, K: int, dilation: int, boundary: str, device="cpu") -> torch.Tensor:
    """[N, N] bool: query i attends key j. Built by a scatter with no data-dependent shape, so the
    reference never waits for the GPU (boolean indexing would: its result size is read back to the
    host), its host time can be hidden when timed, and it can be captured in a CUDA graph."""
    j, valid = neighbor_index(N, K, dilation, boundary, device)
    hits = torch.zeros(N, N, dtype=torch.int32, device=device)
    hits.scatter_add_(1, j.clamp(0, N - 1), valid.to(torch.int32))
    return hits > 0


def pair_count(N: int, K: int, dilation: int, boundary: str = "truncate") -> int:
    return int(neighbor_index(N, K, dilation, boundary)[1].sum())


def make_inputs(axes: dict, dtype=torch.float32, device="cpu", seed: int = 0) -> dict:
    B = int(axes.get("batch", 2)); N = int(axes["seq"]); C = int(axes.get("hidden", 512))
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    bound = 1.0 / math.sqrt(C)  # nn.Linear's default init range

    def u(*shape):
        return ((torch.rand(shape, generator=g, device=device) * 2 - 1) * bound).to(dtype)

    x = torch.randn((B, N, C), generator=g, device=device).to(dtype)
    out = {"x": x}
    for n in ("q", "k", "v", "o"):
        out[f"w{n}"] = u(C, C)
        out[f"b{n}"] = u(C)
    return out


def params_from_axes(axes: dict) -> dict:
    return {
        "num_heads": int(axes.get("heads", 8)),
        "kernel_size": int(axes.get("kernel_size", 7)),
        "dilation": int(axes.get("dilation", 1)),
        "boundary": "shift" if int(axes.get("shift", 0)) else "truncate",
    }


class _NoTF32:
    def __enter__(self):
        self.old = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = False

    def __exit__(self, *a):
        torch.backends.cuda.matmul.allow_tf32 = self.old


def _forward(inputs, num_heads, kernel_size, dilation, boundary, scale, compute_dtype):
    x = inputs["x"]
    B, N, C = x.shape
    H = num_heads
    d = C // H
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    cast = (lambda t: t.to(compute_dtype)) if compute_dtype is not None else (lambda t: t)
    xx = cast(x)

    def proj(n):
        return torch.nn.functional.linear(xx, cast(inputs[f"w{n}"]), cast(inputs[f"b{n}"]))

    q, k, v = (proj(n).view(B, N, H, d).transpose(1, 2) for n in ("q", "k", "v"))
    att_dtype = torch.float64 if compute_dtype == torch.float64 else torch.float32
    s = (q.to(att_dtype) @ k.to(att_dtype).transpose(-1, -2)) * scale
    mask = neighbor_mask(N, kernel_size, dilation, boundary, x.device)
    s = s.masked_fill(~mask, float("-inf"))
    p = torch.softmax(s, dim=-1)
    o = (p @ v.to(att_dtype)).to(q.dtype)
    o = o.transpose(1, 2).reshape(B, N, C)
    return torch.nn.functional.linear(o, cast(inputs["wo"]), cast(inputs["bo"]))


def reference(inputs: dict, num_heads: int = 8, kernel_size: int = 7, dilation: int = 1,
              boundary: str = "truncate", scale: float | None = None) -> dict:
    """Projections in the input dtype (true fp32 GEMMs, TF32 off), attention in fp32, dense with
    the neighbour mask (O(N^2) on purpose: it is the obviously-correct formulation)."""
    with _NoTF32():
        out = _forward(inputs, num_heads, kernel_size, dilation, boundary, scale, None)
    return {"out": out}


def reference_float64(inputs: dict, num_heads: int = 8, kernel_size: int = 7, dilation: int = 1,
                      boundary: str = "truncate", scale: float | None = None) -> dict:
    return {"out": _forward(inputs, num_heads, kernel_size, dilation, boundary, scale, torch.float64)}


def bytes_moved(axes: dict, dtype) -> int:
    B = int(axes.get("batch", 2)); N = int(axes["seq"]); C = int(axes.get("hidden", 512))
    es = torch.empty((), dtype=dtype).element_size()
    return es * (2 * B * N * C + 4 * C * C + 4 * C)


def flops(axes: dict) -> int:
    B = int(axes.get("batch", 2)); N = int(axes["seq"]); C = int(axes.get("hidden", 512))
    p = params_from_axes(axes)
    pairs = pair_count(N, p["kernel_size"], p["dilation"], p["boundary"])
    return 8 * B * N * C * C + 4 * (C // p["num_heads"]) * pairs * p["num_heads"] * B


GRAD_NAMES = ("x", "wq", "bq", "wk", "bk", "wv", "bv", "wo", "bo")


def make_grad_outputs(inputs: dict, axes: dict | None = None, dtype=None, seed: int = 1) -> dict:
    x = inputs["x"]
    g = torch.Generator(device=x.device)
    g.manual_seed(seed)
    return {"out": torch.randn(x.shape, generator=g, device=x.device).to(x.dtype)}


def _autograd_backward(fwd, inputs, grad_outputs, **params):
    leaves = {k: inputs[k].detach().clone().requires_grad_(True) for k in GRAD_NAMES}
    with torch.enable_grad():
        out = fwd(leaves, **params)["out"]
        grads = torch.autograd.grad(out, [leaves[k] for k in GRAD_NAMES],
                                    grad_outputs["out"].to(out.dtype))
    return dict(zip(GRAD_NAMES, grads))


def reference_backward(inputs: dict, grad_outputs: dict, num_heads: int = 8, kernel_size: int = 7,
                       dilation: int = 1, boundary: str = "truncate", scale: float | None = None) -> dict:
    """Autograd of the reference (same dtype, TF32 off)."""
    with _NoTF32():
        return _autograd_backward(reference, inputs, grad_outputs, num_heads=num_heads, kernel_size=kernel_size,
                                  dilation=dilation, boundary=boundary, scale=scale)


def reference_backward_float64(inputs: dict, grad_outputs: dict, num_heads: int = 8, kernel_size: int = 7,
                               dilation: int = 1, boundary: str = "truncate", scale: float | None = None) -> dict:
    inp64 = {k: v.to(torch.float64) for k, v in inputs.items()}
    g64 = {k: v.to(torch.float64) for k, v in grad_outputs.items()}
    return _autograd_backward(reference_float64, inp64, g64, num_heads=num_heads, kernel_size=kernel_size,
                              dilation=dilation, boundary=boundary, scale=scale)
