"""Compatibility shim for Triton's CPU interpreter (TRITON_INTERPRET=1) with NumPy >= 2.3.

Triton 3.6's interpreter stores scalar kernel arguments as 1-element NumPy arrays and converts
them with ``int(array)`` when they are used as an index (e.g. ``range(0, n)`` with a runtime
``n``); NumPy 2.3+ refuses ``int()`` on arrays with ndim > 0. We re-register ``__index__`` to go
through ``.item()``. Only applied in interpreter mode; a no-op on GPUs.
"""

from __future__ import annotations

import os

_DONE = False


def apply() -> None:
    global _DONE
    if _DONE or os.environ.get("TRITON_INTERPRET", "0") not in ("1", "true", "True"):
        return
    _DONE = True
    try:
        from triton.runtime import interpreter as I
    except Exception:  # pragma: no cover
        return
    orig = getattr(I, "_patch_lang_tensor", None)
    if orig is None or getattr(orig, "_kernelindex", False):
        return

    def patched(tensor, scope):
        orig(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data.reshape(-1)[0]))

    patched._kernelindex = True
    I._patch_lang_tensor = patched

    B = I.InterpreterBuilder
    orig_dot = B.create_dot

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        import numpy as np
        import triton.language as tl

        def fix(x):
            if x.dtype.scalar == tl.bfloat16 or x.dtype == tl.bfloat16:
                data = I._convert_float(x.data, tl.bfloat16, tl.float32, None).view(np.float32)
                return I.TensorHandle(data, tl.float32)
            return x

        return orig_dot(self, fix(a), fix(b), d, input_precision, max_num_imprecise_acc)

    B.create_dot = create_dot
