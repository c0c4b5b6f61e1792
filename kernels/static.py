"""The bundled families as the harness's planner sees them, without importing torch.

``kernelindex bench --dry-run`` prints a plan in an install without torch (the site builder's):
there only our own implementations are listed, since every peer needs torch to import.
``tests/kernels`` holds this table to the families ``kernels.FAMILIES`` builds.
"""

from __future__ import annotations

# slug -> (dtypes, passes, our forward keys, our backward keys)
STATIC_FAMILIES: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "llama4-rope": (("bfloat16", "float16", "float32"), ("forward", "backward", "full"),
                    ("kernelindex-triton", "pytorch-reference"), ("kernelindex-triton", "pytorch-reference")),
    "fused-neighborhood-attention": (("float32", "bfloat16", "float16"), ("forward", "backward", "full"),
                                     ("kernelindex-triton", "pytorch-reference"), ("kernelindex-triton", "pytorch-reference")),
    "multimodal-rotary-embedding-attention": (("bfloat16", "float32"), ("forward",),
                                              ("kernelindex-triton", "pytorch-reference", "pytorch-sdpa"), ()),
}
