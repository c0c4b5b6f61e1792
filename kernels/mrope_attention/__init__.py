"""Qwen2.5-VL multimodal rotary embedding attention (slug ``multimodal-rotary-embedding-attention``)."""

from __future__ import annotations

# Seed 003's 16 (seq, batch) cases.
CASES = [(128, 1), (128, 4), (128, 8), (128, 32), (256, 1), (256, 4), (256, 32), (256, 64), (512, 1),
         (512, 8), (541, 32), (613, 1), (1024, 1), (1024, 2), (1024, 4), (4096, 1)]


def build_family():
    from ..family import KernelFamily
    from . import peers, reference as R, triton_impl as T

    impls = {"kernelindex-triton": T.forward, "pytorch-reference": R.reference, "pytorch-sdpa": R.sdpa}
    impls.update(peers.forward_peers())
    return KernelFamily(
        slug="multimodal-rotary-embedding-attention",
        title="Qwen2.5-VL M-RoPE attention (GQA 28:4, additive mask)",
        dtypes=("bfloat16", "float32"),
        passes=("forward",),
        output_names=("out",),
        make_inputs=R.make_inputs,
        reference=R.reference,
        reference_float64=R.reference_float64,
        implementations=impls,
        bytes_moved=R.bytes_moved,
        flops=R.flops,
        params_from_axes=R.params_from_axes,
        default_axes={"batch": 1, "seq": 1024, "hidden": 3584, "heads": 28, "kv_heads": 4},
        workloads=[{"batch": b, "seq": n, "hidden": 3584, "heads": 28, "kv_heads": 4} for (n, b) in CASES],
        notes="pytorch-reference = HF eager path; pytorch-sdpa = the same with F.scaled_dot_product_attention "
              "(HF's default). A fully masked row yields the uniform average over all N keys (as the reference).",
    )
