"""torch.compile of a reference, built lazily once per process (peer "torch-compile")."""

from __future__ import annotations

_COMPILED: dict = {}


def compiled(key: str, fn, **kw):
    def call(*args, **kwargs):
        c = _COMPILED.get(key)
        if c is None:
            import torch

            c = torch.compile(fn, **kw)
            _COMPILED[key] = c
        return c(*args, **kwargs)

    call.__name__ = f"compiled_{key}"
    return call
