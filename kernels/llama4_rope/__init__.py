"""Llama 4 RoPE family (slug ``llama4-rope``)."""

from __future__ import annotations


def build_family():
    from ..family import KernelFamily
    from . import peers, reference as R, triton_impl as T

    impls = {"kernelindex-triton": T.forward, "pytorch-reference": R.reference}
    impls.update(peers.forward_peers())
    bwd = {"kernelindex-triton": T.backward, "pytorch-reference": R.reference_backward}
    bwd.update(peers.backward_peers())
    # Published sweep (Liger benchmark_llama4_rope): seq 1024..16384 at hidden 8192, and hidden
    # 512/2048/8192 at seq 2048; 32 q heads, 8 kv heads, head_dim = hidden/32, batch 1, bf16.
    workloads = [{"batch": 1, "seq": s, "hidden": 8192, "q_heads": 32, "kv_heads": 8}
                 for s in (1024, 2048, 4096, 8192, 16384)]
    workloads += [{"batch": 1, "seq": 2048, "hidden": h, "q_heads": 32, "kv_heads": 8} for h in (512, 2048)]
    return KernelFamily(
        slug="llama4-rope",
        title="Llama 4 RoPE (complex frequencies, interleaved pairs)",
        dtypes=("bfloat16", "float16", "float32"),
        passes=("forward", "backward", "full"),
        output_names=("q_out", "k_out"),
        grad_names=("q", "k"),
        make_inputs=R.make_inputs,
        reference=R.reference,
        reference_float64=R.reference_float64,
        implementations=impls,
        backward_implementations=bwd,
        make_grad_outputs=R.make_grad_outputs,
        reference_backward_float64=R.reference_backward_float64,
        bytes_moved=R.bytes_moved,
        flops=R.flops,
        params_from_axes=R.params_from_axes,
        default_axes={"batch": 1, "seq": 2048, "hidden": 8192, "q_heads": 32, "kv_heads": 8},
        workloads=workloads,
        mutates_inputs=frozenset({"liger"}),
        notes="backward(inputs, grad_outputs) rotates grad_outputs['q_out'/'k_out'] by conj(freqs_cis); "
              "Liger's forward and backward write their inputs (called as-is).",
    )
