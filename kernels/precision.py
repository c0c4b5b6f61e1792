"""What arithmetic each bundled implementation uses beyond its dtype's own (no torch needed).

The harness records these on every run (``spec.precision``) so a ranking can keep TF32 runs apart
from strict fp32 runs ("Precision lanes" in DESIGN.md). They are declared here from reading the
code, per (kernel, implementation key, timed pass, dtype, variant), because nothing at run time can
tell a TF32 product from an fp32 one:

* fused neighborhood attention, fp32: ours runs its two GEMMs (QKV and output projections, cuBLAS)
  in TF32 by default in the forward and in fp32 in the backward; the ``strict`` variant runs the
  forward's GEMMs in fp32 too. Its banded attention is exact fp32 (CUDA-core FMAs). Liger's
  projections are fp32 (torch's default), but its attention kernels use ``tl.dot`` at Triton's
  default precision, which is TF32 for fp32 operands. The reference and torch.compile of it run
  with torch's TF32 switch off (the reference forces it off).
* M-RoPE attention, fp32: ours uses ``tl.dot`` at Triton's default precision (TF32). No committed
  workload is fp32; bf16 products accumulate in fp32, which is bf16's strict arithmetic.
* Llama 4 RoPE: no products; strict in every dtype.

Variants are other settings of one implementation, measured as runs of their own (forward only):
``VARIANTS[kernel][impl][name]`` are the extra keyword arguments the call gets.
"""

from __future__ import annotations

VARIANTS: dict[str, dict[str, dict[str, dict]]] = {
    "fused-neighborhood-attention": {"kernelindex-triton": {"strict": {"tf32": False}}},
}

_NA_GEMMS = "QKV and output projections (cuBLAS GEMMs) in TF32"
_LIGER_DOTS = "attention dot products (Triton tl.dot at its default precision) in TF32"
_TRITON_DOTS = "attention dot products (Triton tl.dot at its default precision) in TF32"


def reduced_precision(kernel: str, impl: str, timed_pass: str, dtype: str, variant: str = "") -> tuple[tuple[str, ...], str]:
    """(reduced-precision modes, where they apply) of one call; ``()`` is strict arithmetic."""
    if dtype != "float32":
        return (), ""
    if kernel == "fused-neighborhood-attention":
        if impl == "kernelindex-triton":
            forward_tf32 = variant != "strict"
            uses = {"forward": forward_tf32, "backward": False, "full": forward_tf32}[timed_pass]
            if uses:
                return ("tf32",), _NA_GEMMS + (" (forward only)" if timed_pass == "full" else "")
            return (), ""
        if impl == "liger":
            return ("tf32",), _LIGER_DOTS
        return (), ""
    if kernel == "multimodal-rotary-embedding-attention" and impl == "kernelindex-triton":
        return ("tf32",), _TRITON_DOTS
    return (), ""


def variants_of(kernel: str, impl: str) -> dict[str, dict]:
    return VARIANTS.get(kernel, {}).get(impl, {})
