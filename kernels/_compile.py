"""torch.compile of a reference, built lazily once per process (peer "torch-compile").

Compiled with ``dynamic=False``: one graph per input shape, as a user compiling for one model
shape gets. Without it, torch.compile turns a dimension dynamic as soon as a second shape arrives,
so which shapes ran with specialised code depended on the order a sweep visited them in: the
harness and ``benchmarks/kernels_bench.py`` visit shapes in different orders, and their
torch.compile figures differed by up to 25% (issue 26)."""

from __future__ import annotations

_COMPILED: dict = {}


def compiled(key: str, fn, **kw):
    def call(*args, **kwargs):
        c = _COMPILED.get(key)
        if c is None:
            import torch

            c = torch.compile(fn, **{"dynamic": False, **kw})
            _COMPILED[key] = c
        return c(*args, **kwargs)

    call.__name__ = f"compiled_{key}"
    return call
