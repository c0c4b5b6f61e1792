"""Peers for Llama 4 RoPE, behind import guards.

* ``liger``: ``liger_kernel.transformers.llama4_rope.liger_llama4_text_rotary_pos_emb``.
  **It writes its inputs**: when q and k are contiguous and of the compute dtype it rotates them in
  place and returns the same tensors (and its backward rotates the upstream gradients in place).
  The adapter deliberately does NOT clone, so an "inputs unchanged" check flags it; the benchmark
  clones outside the timed region. It also uses only batch 0's frequencies (first S rows of
  freqs_cis), so it is wrong for batch > 1 with per-batch positions.
* ``transformers``: HF ``transformers.models.llama4.modeling_llama4.apply_rotary_emb`` (forward only;
  its backward is autograd of the same ops, i.e. our reference backward).
* ``torch-compile``: ``torch.compile`` of the reference (forward and backward).
"""

from __future__ import annotations

from .._compile import compiled
from . import reference as R


def forward_peers() -> dict:
    peers = {}
    try:
        from liger_kernel.transformers.llama4_rope import liger_llama4_text_rotary_pos_emb

        def liger(inputs: dict) -> dict:
            qo, ko = liger_llama4_text_rotary_pos_emb(inputs["q"], inputs["k"], inputs["freqs_cis"])
            return {"q_out": qo, "k_out": ko}

        peers["liger"] = liger
    except Exception:  # pragma: no cover - not installed on CPU CI
        pass
    try:
        from transformers.models.llama4.modeling_llama4 import apply_rotary_emb

        def hf(inputs: dict) -> dict:
            qo, ko = apply_rotary_emb(inputs["q"], inputs["k"], inputs["freqs_cis"])
            return {"q_out": qo, "k_out": ko}

        peers["transformers"] = hf
    except Exception:  # pragma: no cover
        pass
    peers["torch-compile"] = compiled("llama4-rope-fwd", R.reference)
    return peers


def backward_peers() -> dict:
    peers = {}
    try:
        from liger_kernel.ops.llama4_rope import llama4_rope_forward

        def liger_bwd(inputs: dict, grad_outputs: dict) -> dict:
            # What LigerLlama4RopeFunction.backward does: rotate (dq, dk) by the conjugate, in place.
            dq, dk = llama4_rope_forward(grad_outputs["q_out"], grad_outputs["k_out"], inputs["freqs_cis"],
                                         imag_sign=-1.0)
            return {"q": dq, "k": dk}

        peers["liger"] = liger_bwd
    except Exception:  # pragma: no cover
        pass
    peers["torch-compile"] = compiled("llama4-rope-bwd", R.reference_backward)
    return peers
