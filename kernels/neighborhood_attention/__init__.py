"""Fused neighborhood attention family (slug ``fused-neighborhood-attention``)."""

from __future__ import annotations

# Liger's benchmark configs (fp32): (batch, hidden, heads, kernel_size, dilation)
LIGER_CONFIGS = [(2, 512, 8, 7, 1), (4, 768, 12, 7, 1), (2, 1024, 16, 9, 1), (2, 512, 8, 7, 2)]
LIGER_SEQS = [64, 128, 256, 512, 1024, 2048, 4096]


def build_family():
    from ..family import KernelFamily
    from . import peers, reference as R, triton_impl as T

    impls = {"kernelindex-triton": T.forward, "pytorch-reference": R.reference}
    impls.update(peers.forward_peers())
    bwd = {"kernelindex-triton": T.backward, "pytorch-reference": R.reference_backward}
    bwd.update(peers.backward_peers())
    workloads = [{"batch": b, "seq": n, "hidden": c, "heads": h, "kernel_size": k, "dilation": d}
                 for (b, c, h, k, d) in LIGER_CONFIGS for n in LIGER_SEQS]
    return KernelFamily(
        slug="fused-neighborhood-attention",
        title="Fused neighborhood attention (Liger module semantics, 1-D)",
        dtypes=("float32", "bfloat16", "float16"),
        passes=("forward", "backward", "full"),
        output_names=("out",),
        grad_names=R.GRAD_NAMES,
        backward_implementations=bwd,
        make_grad_outputs=R.make_grad_outputs,
        reference_backward_float64=R.reference_backward_float64,
        make_inputs=R.make_inputs,
        reference=R.reference,
        reference_float64=R.reference_float64,
        implementations=impls,
        bytes_moved=R.bytes_moved,
        flops=R.flops,
        params_from_axes=R.params_from_axes,
        default_axes={"batch": 2, "seq": 128, "hidden": 512, "heads": 8, "kernel_size": 7, "dilation": 2},
        workloads=workloads,
        notes="params: num_heads, kernel_size, dilation, boundary ('truncate' = Liger, 'shift' = NATTEN; "
              "axes key shift=1 selects it). Ours runs its GEMMs with TF32 for fp32 inputs. "
              "backward(inputs, grad_outputs={'out': g}, **params) returns grads for x and all weights/biases "
              "and recomputes the forward (no saved state), for every implementation.",
    )
