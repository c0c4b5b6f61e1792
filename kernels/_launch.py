"""Low-overhead Triton launches.

``FastLauncher(jitfn).launch(grid, args, constexprs, **opts)`` launches exactly like
``jitfn[grid](*args, **constexprs, **opts)``, but after the first launch for a given
specialization key it calls the cached ``CompiledKernel`` directly, skipping Triton's per-call
argument binder and cache-key computation (tens of microseconds of Python on slow hosts).

The key reproduces what Triton specializes on: tensor dtype and 16-byte alignment of its address,
integer == 1, integer divisible by 16, and whether it fits in int32; constexprs and launch options
verbatim. Disabled under the interpreter (``TRITON_INTERPRET=1``) or with
``KERNELINDEX_FAST_LAUNCH=0``; any failure in the fast path turns it off for the process and falls
back to the normal launch.
"""

from __future__ import annotations

import os

_ENABLED = os.environ.get("KERNELINDEX_FAST_LAUNCH", "1") != "0" and os.environ.get("TRITON_INTERPRET", "0") in ("0", "")


def set_enabled(on: bool) -> None:
    """Turn the fast path on/off for this process (benchmarks compare both)."""
    global _ENABLED
    _ENABLED = bool(on) and os.environ.get("TRITON_INTERPRET", "0") in ("0", "")


def _spec(args):
    out = []
    for a in args:
        if hasattr(a, "data_ptr"):
            out.append((a.dtype, a.data_ptr() % 16 == 0))
        elif isinstance(a, bool):
            out.append(("b", a))
        elif isinstance(a, int):
            out.append((a == 1, a % 16 == 0, -(2 ** 31) <= a < 2 ** 31))
        else:
            out.append(type(a))
    return tuple(out)


class FastLauncher:
    def __init__(self, jitfn):
        self.fn = jitfn
        self.cache: dict = {}
        self.names = list(jitfn.arg_names)

    def launch(self, grid, args: tuple, constexprs: dict, **opts):
        global _ENABLED
        if not _ENABLED:
            return self.fn[grid](*args, **constexprs, **opts)
        key = (_spec(args), tuple(constexprs.items()), tuple(opts.items()))
        ck = self.cache.get(key)
        if ck is None:
            ck = self.fn[grid](*args, **constexprs, **opts)
            if ck is not None and hasattr(ck, "__getitem__"):
                tail = [constexprs[n] for n in self.names[len(args):]]
                self.cache[key] = (ck, tail)
            return ck
        try:
            kernel, tail = ck
            kernel[tuple(grid) + (1,) * (3 - len(grid))](*args, *tail)
        except Exception:  # pragma: no cover - defensive: never break a call
            _ENABLED = False
            return self.fn[grid](*args, **constexprs, **opts)
        return kernel
