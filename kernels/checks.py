"""Helpers for correctness runs (used by tests/kernels and usable by the harness).

* ``snapshot(inputs)`` / ``changed_inputs(snap, inputs)``: detect implementations that write their
  inputs (Liger's RoPE does). Compare bit-for-bit (NaN-aware).
* ``poisoned_allocations()``: a context manager under which ``torch.empty``/``empty_like``
  return NaN-filled float tensors (and -1-filled integer tensors), so an output the kernel failed
  to write shows up as NaN.
* ``run_checked(fn, inputs, params)``: poison, call, and return ``(outputs, changed_input_names)``.
"""

from __future__ import annotations

import contextlib


def snapshot(tensors: dict) -> dict:
    return {k: v.detach().clone() for k, v in tensors.items() if hasattr(v, "detach")}


def _same(a, b) -> bool:
    import torch

    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_complex():
        a, b = torch.view_as_real(a), torch.view_as_real(b)
    if a.is_floating_point():
        return bool(((a == b) | (torch.isnan(a) & torch.isnan(b))).all())
    return bool(torch.equal(a, b))


def changed_inputs(snap: dict, tensors: dict) -> list[str]:
    return [k for k, v in snap.items() if not _same(v, tensors[k])]


@contextlib.contextmanager
def poisoned_allocations():
    import torch

    orig_empty, orig_empty_like = torch.empty, torch.empty_like

    def _poison(t):
        if t.is_floating_point() or t.is_complex():
            t.fill_(float("nan"))
        elif t.dtype != torch.bool:
            t.fill_(-1)
        return t

    def empty(*a, **k):
        return _poison(orig_empty(*a, **k))

    def empty_like(*a, **k):
        return _poison(orig_empty_like(*a, **k))

    torch.empty, torch.empty_like = empty, empty_like
    try:
        yield
    finally:
        torch.empty, torch.empty_like = orig_empty, orig_empty_like


def run_checked(fn, inputs: dict, params: dict | None = None, *extra):
    snap = snapshot(inputs)
    with poisoned_allocations():
        out = fn(inputs, *extra, **(params or {}))
    return out, changed_inputs(snap, inputs)
