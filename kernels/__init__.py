"""KernelIndex bundled kernels: three families, each a :class:`kernels.family.KernelFamily`.

``FAMILIES`` (slug -> KernelFamily) is built lazily on first access, so ``import kernels`` needs
neither torch nor triton nor a GPU; building it imports torch, and Triton is imported only when a
Triton implementation is first called.
"""

from __future__ import annotations

SLUGS = ("llama4-rope", "fused-neighborhood-attention", "multimodal-rotary-embedding-attention")

_FAMILIES = None


def _build():
    from .llama4_rope import build_family as rope
    from .mrope_attention import build_family as mrope
    from .neighborhood_attention import build_family as na

    fams = [rope(), na(), mrope()]
    return {f.slug: f for f in fams}


def get_families() -> dict:
    global _FAMILIES
    if _FAMILIES is None:
        _FAMILIES = _build()
    return _FAMILIES


def __getattr__(name):
    if name == "FAMILIES":
        return get_families()
    raise AttributeError(name)
