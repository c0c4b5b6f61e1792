"""GPU timing utilities: CUDA events, warm-up, L2 flush between repetitions, N samples.

Methodology (one sample = one call):
* warm-up: ``warmup`` untimed calls (compilation, autotuning, allocator warm-up),
* before each timed call, the L2 is flushed by writing (``zero_``) a buffer of ``flush_bytes``
  (default 256 MiB, > 4x the 60 MB L2 of an H200; ``l2_flush_bytes()`` reads the device's L2),
* optionally (``hide_host_us`` > 0) a GPU spin (``torch.cuda._sleep``) of about that many
  microseconds is enqueued after the flush, so the GPU is still busy while the host runs the
  call's Python and launch code: the events then bracket device time only, even for calls whose
  host overhead exceeds the flush time (without it, small kernels measure the host, as
  ``triton.testing.do_bench`` does),
* host-bound check: right after the call has been enqueued, the start event is queried. If the GPU
  has already passed it, the spin ran out before the host finished launching the call, so the GPU
  may have waited on the host inside the bracket: that sample is flagged (``timer.host_bound``, one
  flag per sample of the last ``sample`` call). A sample set with flags measured the host, at least
  in part; ``harness.measure`` then retries with a longer spin and records what remained,
* the call is bracketed by two CUDA events recorded on the current stream; flush and spin are
  outside the bracket,
* ``reps`` samples in milliseconds are returned; ``summarize`` gives median, p20, p80, mean, min,
  count.

``backend="cpu"`` uses ``time.perf_counter`` and no flush (tests, and CPU-only sanity runs).
Dependencies: torch only for the CUDA backend (imported lazily).
"""

from __future__ import annotations

import statistics
import time
from typing import Callable, Sequence

DEFAULT_FLUSH_BYTES = 256 * 1024 * 1024
CYCLES_PER_US = 1980  # H100/H200 boost clock; only sizes the host-hiding spin


def _quantile(sorted_xs: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile (numpy's default) of already sorted samples."""
    n = len(sorted_xs)
    if n == 0:
        return float("nan")
    pos = q * (n - 1)
    lo = int(pos)
    hi = min(lo + 1, n - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


def summarize(samples: Sequence[float]) -> dict:
    xs = sorted(float(x) for x in samples)
    if not xs:
        return {"median": float("nan"), "p20": float("nan"), "p80": float("nan"), "mean": float("nan"),
                "min": float("nan"), "count": 0}
    return {"median": _quantile(xs, 0.5), "p20": _quantile(xs, 0.2), "p80": _quantile(xs, 0.8),
            "mean": statistics.fmean(xs), "min": xs[0], "count": len(xs)}


def l2_flush_bytes(device=None) -> int:
    """4x the device's L2 (at least DEFAULT_FLUSH_BYTES)."""
    try:
        import torch

        props = torch.cuda.get_device_properties(device if device is not None else torch.cuda.current_device())
        l2 = int(getattr(props, "L2_cache_size", 0) or 0)
        return max(DEFAULT_FLUSH_BYTES, 4 * l2)
    except Exception:
        return DEFAULT_FLUSH_BYTES


class CudaTimer:
    host_bound: list[bool] = []

    def __init__(self, flush_bytes: int | None = None, device=None):
        import torch

        self.torch = torch
        self.flush_bytes = flush_bytes if flush_bytes is not None else l2_flush_bytes(device)
        self.buf = torch.empty(self.flush_bytes, dtype=torch.uint8, device=device or "cuda") if self.flush_bytes else None

    def flush(self):
        if self.buf is not None:
            self.buf.zero_()

    def sample(self, fn: Callable[[], object], reps: int, flush: bool = True,
               setup: Callable[[], object] | None = None, hide_host_us: float = 0.0) -> list[float]:
        torch = self.torch
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        cycles = int(hide_host_us * CYCLES_PER_US)
        flags = []
        for r in range(reps):
            if setup is not None:
                setup()
            if flush:
                self.flush()
            if cycles > 0:
                torch.cuda._sleep(cycles)
            starts[r].record()
            fn()
            # True: the GPU reached the bracket's start before the last launch was enqueued.
            flags.append(bool(starts[r].query()))
            ends[r].record()
        torch.cuda.synchronize()
        self.host_bound = flags
        return [s.elapsed_time(e) for s, e in zip(starts, ends)]

    def sync(self):
        self.torch.cuda.synchronize()


class CpuTimer:
    host_bound: list[bool] = []

    def __init__(self, *a, **k):
        self.host_bound = []

    def flush(self):
        pass

    def sample(self, fn, reps, flush=True, setup=None, hide_host_us=0.0):
        out = []
        for _ in range(reps):
            if setup is not None:
                setup()
            t = time.perf_counter()
            fn()
            out.append((time.perf_counter() - t) * 1e3)
        self.host_bound = [False] * reps  # a host clock measures the host by design: nothing to flag
        return out

    def sync(self):
        pass


def make_timer(backend: str = "cuda", **kw):
    if backend == "cuda":
        return CudaTimer(**kw)
    if backend == "cpu":
        return CpuTimer()
    raise ValueError(backend)


def time_fn(fn: Callable[[], object], *, reps: int | None = None, warmup: int = 5, flush_l2: bool = True,
            backend: str = "cuda", timer=None, target_ms: float = 200.0, min_reps: int = 10,
            max_reps: int = 200, setup: Callable[[], object] | None = None,
            hide_host_us: float = 0.0) -> list[float]:
    """Time ``fn()``; returns the samples in milliseconds.

    ``reps=None`` picks the count so the timed samples take about ``target_ms`` (bounded by
    ``min_reps``/``max_reps``), from the warm-up calls. ``setup`` runs before each call, outside
    the timed region (e.g. cloning inputs for implementations that write them)."""
    timer = timer or make_timer(backend)
    for _ in range(max(1, warmup)):
        if setup is not None:
            setup()
        fn()
    timer.sync()
    if reps is None:
        est = timer.sample(fn, 3, flush=flush_l2, setup=setup, hide_host_us=hide_host_us)
        per = max(statistics.median(est), 1e-3)
        reps = int(min(max_reps, max(min_reps, target_ms / per)))
    return timer.sample(fn, reps, flush=flush_l2, setup=setup, hide_host_us=hide_host_us)


def host_enqueue_us(fn: Callable[[], object], timer, setup: Callable[[], object] | None = None, n: int = 5) -> float:
    """The median of ``n`` host-side enqueues of ``fn()`` from an idle queue, in µs: how long the
    GPU would wait on the host for one call, which the spin before each sample must outlast."""
    times = []
    for _ in range(n):
        if setup is not None:
            setup()
        timer.sync()
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e6)
    timer.sync()
    return statistics.median(times)


def host_timing(fn: Callable[[], object], n: int = 20, backend: str = "cuda") -> dict:
    """Host-inclusive cost of back-to-back calls (no flush, no spin): ``e2e_ms`` = wall time per
    call including the final synchronisation (what a launch-bound caller sees), ``host_ms`` = wall
    time per call of the enqueue loop alone (Python + launch overhead, while the queue is not
    full)."""
    sync = (lambda: __import__("torch").cuda.synchronize()) if backend == "cuda" else (lambda: None)
    fn()
    sync()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    t1 = time.perf_counter()
    sync()
    t2 = time.perf_counter()
    return {"e2e_ms": (t2 - t0) * 1e3 / n, "host_ms": (t1 - t0) * 1e3 / n, "n": n}
