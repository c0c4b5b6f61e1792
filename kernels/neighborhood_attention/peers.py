"""Peers for fused neighborhood attention, behind import guards.

* ``liger``: ``liger_kernel.transformers.LigerFusedNeighborhoodAttention`` (the module, as its
  benchmark times it), with its four Linear layers loaded from the inputs' weights (module built
  once per weight set and cached). Truncated window only: ``boundary="shift"`` raises
  NotImplementedError. Liger's attention is dense O(N^2) with TF32 dots.
* ``torch-compile``: ``torch.compile`` of the reference (forward only).
* Backward peers (``backward_peers``): ``liger`` = autograd through the Liger module (forward
  recomputed inside the call, as for every backward implementation here).
* No Hugging Face Transformers implementation exists for this operation.
"""

from __future__ import annotations

from .._compile import compiled
from . import reference as R

_MODULES: dict = {}


def _liger_module(inputs, num_heads, kernel_size, dilation, scale, grad):
    import torch
    from liger_kernel.transformers.fused_neighborhood_attention import LigerFusedNeighborhoodAttention

    x = inputs["x"]
    C = x.shape[-1]
    key = (tuple(inputs[n].data_ptr() for n in ("wq", "wk", "wv", "wo")),
           tuple(inputs[n]._version for n in ("wq", "wk", "wv", "wo")), num_heads, kernel_size,
           dilation, scale, x.dtype, grad)
    mod = _MODULES.get(key)
    if mod is None:
        mod = LigerFusedNeighborhoodAttention(C, num_heads, kernel_size, dilation, bias=True,
                                              dropout=0.0, scale=scale).to(x.device, x.dtype)
        with torch.no_grad():
            for n, lin in (("q", mod.q_proj), ("k", mod.k_proj), ("v", mod.v_proj), ("o", mod.out_proj)):
                lin.weight.copy_(inputs[f"w{n}"])
                lin.bias.copy_(inputs[f"b{n}"])
        mod.requires_grad_(grad)
        if len(_MODULES) > 4:
            _MODULES.clear()
        _MODULES[key] = mod
    return mod


def backward_peers() -> dict:
    peers = {}
    try:
        import torch
        import liger_kernel.transformers.fused_neighborhood_attention  # noqa: F401

        def liger_bwd(inputs: dict, grad_outputs: dict, num_heads: int = 8, kernel_size: int = 7,
                      dilation: int = 1, boundary: str = "truncate", scale=None) -> dict:
            if boundary != "truncate":
                raise NotImplementedError("Liger implements only the truncated window")
            mod = _liger_module(inputs, num_heads, kernel_size, dilation, scale, True)
            x = inputs["x"].detach().requires_grad_(True)
            params = [x]
            for lin in (mod.q_proj, mod.k_proj, mod.v_proj, mod.out_proj):
                params += [lin.weight, lin.bias]
            with torch.enable_grad():
                out = mod(x)
                grads = torch.autograd.grad(out, params, grad_outputs["out"])
            names = ("x", "wq", "bq", "wk", "bk", "wv", "bv", "wo", "bo")
            return dict(zip(names, grads))

        peers["liger"] = liger_bwd
    except Exception:  # pragma: no cover - not installed on CPU CI
        pass
    return peers


def forward_peers() -> dict:
    peers = {}
    try:
        import torch  # noqa: F401
        from liger_kernel.transformers.fused_neighborhood_attention import LigerFusedNeighborhoodAttention  # noqa: F401

        def liger(inputs: dict, num_heads: int = 8, kernel_size: int = 7, dilation: int = 1,
                  boundary: str = "truncate", scale=None) -> dict:
            if boundary != "truncate":
                raise NotImplementedError("Liger implements only the truncated window")
            x = inputs["x"]
            mod = _liger_module(inputs, num_heads, kernel_size, dilation, scale, False)
            return {"out": mod(x)}

        peers["liger"] = liger
    except Exception:  # pragma: no cover - not installed on CPU CI
        pass
    peers["torch-compile"] = compiled("fna-fwd", R.reference)
    return peers
