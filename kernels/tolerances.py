"""Per-family, per-dtype tolerances: THE one place they are defined.

Comparison rule (the same for every family; ``torch.allclose``'s rule, applied element-wise):

    ok  <=>  no NaN/Inf where the reference is finite, shapes and dtypes equal, and
             |out - ref| <= atol + rtol * |ref|   for every element

``ref`` is the PyTorch reference of the same family run on the same inputs in the same dtype
(for the reference itself: the float64 computation, see ``REFERENCE_VS_FLOAT64``). Max absolute
and max relative errors are reported alongside (relative error uses ``max(|ref|, atol)`` in the
denominator so that near-zero references do not blow it up).

``TOLERANCES`` is a plain nested dict, ``family slug -> dtype name -> (atol, rtol, why)``;
``tolerance_rows()`` flattens it into rows for the methodology page.
"""

from __future__ import annotations

RULE = "|out - ref| <= atol + rtol * |ref| element-wise, no NaN/Inf; ref = same-dtype PyTorch reference"

TOLERANCES: dict[str, dict[str, tuple[float, float, str]]] = {
    "llama4-rope": {
        "float32": (1e-5, 1e-5, "fp32 math in both; only fma/mul+add ordering differs"),
        "float16": (1e-3, 1e-3, "fp32 math, one rounding to fp16; expect <= 1 ulp"),
        "bfloat16": (1e-2, 1e-2, "fp32 math, one rounding to bf16; expect <= 1 ulp (kernels.md 1.6)"),
    },
    "fused-neighborhood-attention": {
        "float32": (5e-3, 5e-3, "Liger's fp32 tolerance; our projections may use TF32 (documented)"),
        "float16": (1e-2, 1e-2, "fp16 projections, fp32 softmax"),
        "bfloat16": (5e-2, 5e-2, "Liger's bf16 tolerance"),
    },
    "multimodal-rotary-embedding-attention": {
        "bfloat16": (2e-2, 2e-2, "vs the HF-eager bf16 reference: flash-style fp32 scores and one "
                     "rounding of M-RoPE vs eager's bf16 scores and three roundings (kernels.md 2.5)"),
        "float32": (1e-2, 1e-2, "Triton dots in TF32"),
    },
}

# The reference against a float64 computation of the same math on the same (rounded) inputs.
REFERENCE_VS_FLOAT64: dict[str, dict[str, tuple[float, float, str]]] = {
    "llama4-rope": {
        "float32": (1e-5, 1e-5, ""),
        "float16": (1e-3, 1e-3, "one fp16 rounding"),
        "bfloat16": (8e-3, 8e-3, "one bf16 rounding"),
    },
    "fused-neighborhood-attention": {
        "float32": (1e-4, 1e-4, "true fp32 GEMMs (TF32 off)"),
        "float16": (1e-2, 1e-2, ""),
        "bfloat16": (5e-2, 5e-2, ""),
    },
    "multimodal-rotary-embedding-attention": {
        "bfloat16": (3e-2, 3e-2, "HF eager rounds Q/K/V, rope, scores and P to bf16"),
        "float32": (1e-4, 1e-4, ""),
    },
}


def get_tolerance(family: str, dtype, table=None) -> tuple[float, float]:
    table = TOLERANCES if table is None else table
    name = dtype if isinstance(dtype, str) else str(dtype).replace("torch.", "")
    atol, rtol, _ = table[family][name]
    return atol, rtol


def tolerance_rows(table=None) -> list[dict]:
    """Rows ``{family, dtype, atol, rtol, rule, why}`` for printing."""
    table = TOLERANCES if table is None else table
    rows = []
    for fam, per in table.items():
        for dt, (atol, rtol, why) in per.items():
            rows.append({"family": fam, "dtype": dt, "atol": atol, "rtol": rtol, "rule": RULE, "why": why})
    return rows


def check_close(out, ref, dtype, family: str, table=None) -> tuple[bool, float, float]:
    """Return ``(ok, max_abs_err, max_rel_err)`` for one output tensor (see the module rule)."""
    import torch

    atol, rtol = get_tolerance(family, dtype, table)
    if tuple(out.shape) != tuple(ref.shape):
        return False, float("inf"), float("inf")
    o = out.detach().to(torch.float64)
    r = ref.detach().to(torch.float64)
    if o.numel() == 0:
        return True, 0.0, 0.0
    finite_ref = torch.isfinite(r)
    bad = (~torch.isfinite(o)) & finite_ref
    diff = (o - r).abs()
    diff = torch.where(finite_ref, diff, torch.zeros_like(diff))
    max_abs = float(diff.max())
    max_rel = float((diff / r.abs().clamp_min(atol)).max())
    ok = (not bool(bad.any())) and bool((diff <= atol + rtol * r.abs().where(finite_ref, torch.zeros_like(r))).all())
    if out.dtype != ref.dtype:
        ok = False
    if bool(bad.any()):
        max_abs = max_rel = float("nan")
    return ok, max_abs, max_rel


def check_outputs(outs: dict, refs: dict, dtype, family: str, table=None) -> tuple[bool, dict]:
    """Check every named output; returns ``(all_ok, {name: (ok, max_abs, max_rel)})``."""
    res = {name: check_close(outs[name], refs[name], dtype, family, table) for name in refs}
    return all(v[0] for v in res.values()), res
