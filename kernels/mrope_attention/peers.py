"""Peers for Qwen2.5-VL M-RoPE attention, behind import guards.

* ``transformers``: HF Qwen2.5-VL pieces: the M-RoPE merge (``apply_multimodal_rotary_pos_emb``
  where the installed version has it; in Transformers 5.x the merge moved into the rotary module,
  so we merge as ``Qwen2_5_VLRotaryEmbedding.recomposition_frequencies`` does and call HF's
  ``apply_rotary_pos_emb``), then HF's ``sdpa_attention_forward`` (the default interface) and the
  projections as nn.Linear does them.
* ``liger``: Liger's M-RoPE Triton kernel (``liger_multimodal_rotary_pos_emb``; it rotates its q/k
  arguments in place, here our fresh projection outputs) + SDPA. Liger has no fused attention.
* ``torch-compile``: ``torch.compile`` of the eager reference.
"""

from __future__ import annotations

from .._compile import compiled
from . import reference as R


class _Stub:
    def __init__(self, groups):
        self.num_key_value_groups = groups
        self.is_causal = True
        self.training = False


def _proj(inputs, H, Hkv):
    import torch.nn.functional as F

    x = inputs["x"]
    B, N, C = x.shape
    d = inputs["wq"].shape[0] // H
    q = F.linear(x, inputs["wq"], inputs["bq"]).view(B, N, H, d).transpose(1, 2)
    k = F.linear(x, inputs["wk"], inputs["bk"]).view(B, N, Hkv, d).transpose(1, 2)
    v = F.linear(x, inputs["wv"], inputs["bv"]).view(B, N, Hkv, d).transpose(1, 2)
    return q, k, v, d


def forward_peers() -> dict:
    peers = {}
    try:
        import torch.nn.functional as F
        from transformers.integrations.sdpa_attention import sdpa_attention_forward
        from transformers.models.qwen2_5_vl import modeling_qwen2_5_vl as M

        def hf(inputs: dict, num_heads: int = 28, num_kv_heads: int = 4, mrope_section=(16, 24, 24)) -> dict:
            q, k, v, d = _proj(inputs, num_heads, num_kv_heads)
            B, _, N, _ = q.shape
            if hasattr(M, "apply_multimodal_rotary_pos_emb"):
                q, k = M.apply_multimodal_rotary_pos_emb(q, k, inputs["cos"], inputs["sin"], list(mrope_section))
            else:
                cos_m, sin_m = R.merge_mrope(inputs["cos"], inputs["sin"], mrope_section)
                q, k = M.apply_rotary_pos_emb(q, k, cos_m, sin_m)
            o, _ = sdpa_attention_forward(_Stub(num_heads // num_kv_heads), q, k, v, inputs["mask"][:, :, :, :N],
                                          dropout=0.0, scaling=d ** -0.5)
            return {"out": F.linear(o.reshape(B, N, num_heads * d), inputs["wo"])}

        peers["transformers"] = hf
    except Exception:  # pragma: no cover - not installed on CPU CI
        pass
    try:
        import torch.nn.functional as F
        from liger_kernel.transformers.qwen2vl_mrope import liger_multimodal_rotary_pos_emb

        def liger(inputs: dict, num_heads: int = 28, num_kv_heads: int = 4, mrope_section=(16, 24, 24)) -> dict:
            q, k, v, d = _proj(inputs, num_heads, num_kv_heads)
            B, _, N, _ = q.shape
            q, k = liger_multimodal_rotary_pos_emb(q, k, inputs["cos"], inputs["sin"], list(mrope_section))
            rep = num_heads // num_kv_heads
            o = F.scaled_dot_product_attention(q, R.repeat_kv(k, rep), R.repeat_kv(v, rep),
                                               attn_mask=inputs["mask"][:, :, :, :N], scale=d ** -0.5)
            return {"out": F.linear(o.transpose(1, 2).reshape(B, N, num_heads * d), inputs["wo"])}

        peers["liger"] = liger
    except Exception:  # pragma: no cover
        pass
    peers["torch-compile"] = compiled("mrope-attn-fwd", R.reference)
    return peers
