"""Measure one task: build inputs, check correctness against the reference, then time it.

The result is a plain dict (see ``result_record``) so it crosses process boundaries as JSON; the
run-file writer turns it into a BenchmarkRun. Every task yields a result, whatever happened.
"""

from __future__ import annotations

import time
import traceback
from datetime import datetime, timezone
from typing import Any, Callable

from .correctness import NO_MUTATION, Verdict, check_call, classify_exception, is_fatal, restore, snapshot
from .plan import Task, TimingOptions
from .stats import median_is_stable, to_ns


class Session:
    """Per-process state: the device, the timer (its L2-flush buffer is allocated once) and a clock reader."""

    def __init__(self, timing: TimingOptions, device: str | None = None, clocks: Callable[[], dict] | None = None):
        from . import timing as timing_module

        self.options = timing
        self.device = device or ("cuda" if timing.backend == "cuda" else "cpu")
        self.timer = timing_module.make_timer(timing.backend)
        self.clocks = clocks or (lambda: {})


def _now() -> str:
    moment = datetime.now(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def build_calls(task: Task, family, inputs: dict, grad_outputs: dict | None, params: dict):
    """(call under test, reference call, tensors the call must leave unmodified) for the pass."""
    forward = family.implementations.get(task.impl)
    if task.variant:
        from kernels.precision import variants_of

        settings = variants_of(task.kernel, task.impl)[task.variant]
        plain = forward
        forward = lambda t, **p: plain(t, **p, **settings)  # noqa: E731
    backward = family.backward_implementations.get(task.impl)
    ref_forward = family.reference
    ref_backward = family.backward_implementations.get("pytorch-reference")
    if task.timed_pass == "forward":
        return (lambda t: forward(t, **params)), (lambda t: ref_forward(t, **params)), inputs
    watched = {**inputs, **{f"grad_{name}": tensor for name, tensor in grad_outputs.items()}}

    def split(t):
        return ({k: v for k, v in t.items() if not k.startswith("grad_")},
                {k[5:]: v for k, v in t.items() if k.startswith("grad_")})

    def run_backward(fn):
        def call(t):
            ins, grads = split(t)
            return {f"d_{name}": value for name, value in fn(ins, grads, **params).items()}
        return call

    if task.timed_pass == "backward":
        return run_backward(backward), run_backward(ref_backward), watched

    def run_full(fwd, bwd):
        def call(t):
            ins, grads = split(t)
            out = dict(fwd(ins, **params))
            out.update({f"d_{name}": value for name, value in bwd(ins, grads, **params).items()})
            return out
        return call

    return run_full(forward, backward), run_full(ref_forward, ref_backward), watched


def measure(task: Task, family, session: Session) -> dict[str, Any]:
    """Correctness, then timing; returns a result record (never raises for the implementation's faults)."""
    import torch

    options = session.options
    started = time.perf_counter()
    dtype = getattr(torch, task.dtype)
    notes: list[str] = []
    timing: dict[str, Any] | None = None
    clocks: dict[str, Any] = {}
    try:
        inputs = family.make_inputs(task.axes, dtype, session.device, options.seed)
        params = family.params_from_axes(task.axes)
        grads = None
        if task.timed_pass != "forward":
            grads = family.make_grad_outputs(inputs, task.axes, dtype, options.seed + 1)
        call, reference, watched = build_calls(task, family, inputs, grads, params)
        pristine = snapshot(watched)
        references = reference(snapshot(watched))
        tf32_switch = bool(torch.backends.cuda.matmul.allow_tf32)
    except Exception as error:  # noqa: BLE001 - a broken reference or input builder is recorded too
        return result_record(task, Verdict("invalid_reference", notes=[f"reference or inputs failed: {type(error).__name__}: {error}"[:400]],
                                           fatal=is_fatal(error)), None, {}, started)
    verdict, outputs = check_call(task.kernel, dtype, lambda: call(watched), watched, references)
    if verdict.timeable:
        mutates = bool(verdict.changed_inputs)
        setup = (lambda: restore(watched, pristine)) if mutates else None
        try:
            clocks["before"] = session.clocks()
            fn = lambda: call(watched)  # noqa: E731
            if task.cuda_graph:
                try:
                    fn, graph_verdict = capture_graph(task, fn, watched, pristine, references, mutates)
                except Exception as error:  # noqa: BLE001
                    raise GraphCaptureError(f"CUDA graph capture failed: {type(error).__name__}: {error}") from error
                if graph_verdict is not None:
                    verdict = graph_verdict
            if verdict.timeable:
                samples, host = sample(fn, options, session.timer, setup)
                timing = {"samples_ns": to_ns(samples), "host": host}
                if host["host_bound_samples"] > options.host_bound_rel * len(samples):
                    notes.append(host_bound_note(host, len(samples)))
            clocks["after"] = session.clocks()
        except Exception as error:  # noqa: BLE001
            # A failed capture can leave the CUDA context unusable: the worker is replaced.
            fatal = is_fatal(error) or isinstance(error, GraphCaptureError)
            first = " ".join(line.strip() for line in str(error).splitlines()[:2] if line.strip())[:300]
            verdict = Verdict(classify_exception(error), verdict.max_abs, verdict.max_rel, verdict.changed_inputs,
                              verdict.aliased_outputs, verdict.notes + [f"while timing: {type(error).__name__}: {first}"],
                              fatal=fatal)
            timing = None
    del outputs
    if tf32_switch or torch.backends.cuda.matmul.allow_tf32:
        notes.append("torch's TF32 matmul switch was on while measuring: every torch matrix product may have used TF32")
    record = result_record(task, verdict, timing, clocks, started, notes)
    record["torch_tf32"] = tf32_switch or bool(torch.backends.cuda.matmul.allow_tf32)
    record["work"] = work_of(task, family, dtype)
    return record


def work_of(task: Task, family, dtype) -> dict | None:
    """Bytes (inputs read once, outputs written once) and FLOPs of the forward pass, for GB/s and TFLOP/s."""
    if task.timed_pass != "forward":
        return None
    try:
        return {"bytes": int(family.bytes_moved(task.axes, dtype)), "flops": family.flops(task.axes)}
    except Exception:  # noqa: BLE001 - informative only
        return None


class GraphCaptureError(RuntimeError):
    """The call cannot be captured in a CUDA graph (host synchronisation, CPU work, allocation patterns)."""


def sample(fn, options: TimingOptions, timer, setup) -> tuple[list[float], dict]:
    """Samples (ms) with the host hidden, and what hiding it took.

    The measurement is repeated with twice the spin while more than ``host_bound_rel`` of its
    samples are host-bound (see ``harness.timing``), up to ``max_hide_host_us``. Returns the
    samples and ``{"hide_host_us": spin used, "host_bound_samples": flagged samples, "host_enqueue_us":
    the call's host enqueue time}``."""
    from .timing import host_enqueue_us

    enqueue = host_enqueue_us(fn, timer, setup) if options.hide_host_us > 0 else 0.0
    spin = starting_spin(options, enqueue)
    while True:
        samples, flagged = _rounds(fn, options, timer, setup, spin)
        done = {"hide_host_us": spin, "host_bound_samples": flagged, "host_enqueue_us": round(enqueue, 1)}
        if not host_bound(flagged, len(samples), options.host_bound_rel) or spin <= 0 \
                or spin * 2 > options.max_hide_host_us:
            return samples, done
        if options.spin_over_host > 0 and enqueue > 0 and spin >= options.spin_over_host * enqueue:
            # The spin already outlasted the call's launch code several times over, yet the GPU
            # caught up: the call waits for the GPU itself (a blocking copy, a host read of a
            # device value), so no spin can hide its host time. Recorded as host-bound.
            done["synchronizes"] = True
            return samples, done
        spin *= 2


def starting_spin(options: TimingOptions, enqueue_us: float) -> float:
    """The first spin tried: the floor, or a margin over the call's host enqueue time (0: no spin)."""
    if options.hide_host_us <= 0:
        return 0.0
    wanted = max(options.hide_host_us, options.spin_over_host * enqueue_us)
    return float(min(options.max_hide_host_us, round(wanted / 50) * 50))


def host_bound(flagged: int, count: int, tolerated: float) -> bool:
    """More samples flagged host-bound than the tolerated fraction."""
    return count > 0 and flagged > tolerated * count


def host_bound_note(host: dict, count: int) -> str:
    why = (" (the call waits for the GPU, so no spin can hide its host time)" if host.get("synchronizes") else "")
    return (f"Host-bound: {host['host_bound_samples']} of {count} samples began after the GPU had caught up with the "
            f"host despite a {host['hide_host_us']:g} µs spin{why}, so the latency includes host time")


def _rounds(fn, options: TimingOptions, timer, setup, spin: float) -> tuple[list[float], int]:
    """Samples (ms) until the median is stable or ``max_rounds`` rounds are taken; flagged count."""
    from .timing import time_fn

    samples = time_fn(fn, warmup=options.warmup, flush_l2=options.flush_l2, timer=timer, target_ms=options.target_ms,
                      min_reps=options.min_reps, max_reps=options.max_reps, setup=setup, hide_host_us=spin)
    flagged = sum(map(bool, getattr(timer, "host_bound", ())))
    for _ in range(options.max_rounds - 1):
        if median_is_stable(samples, options.stable_rel):
            break
        samples += time_fn(fn, reps=len(samples), warmup=1, flush_l2=options.flush_l2, timer=timer, setup=setup,
                           hide_host_us=spin)
        flagged += sum(map(bool, getattr(timer, "host_bound", ())))
    return samples, flagged


def capture_graph(task: Task, fn, watched: dict, pristine: dict, references: dict, mutates: bool):
    """Capture ``fn`` in a CUDA graph; returns (replay, verdict or None). The replayed outputs are
    poisoned, replayed into and checked again, so graph capture cannot hide a wrong result."""
    import torch

    from .correctness import compare

    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):  # compile, autotune and allocate outside the capture
            if mutates:
                restore(watched, pristine)
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    if mutates:
        restore(watched, pristine)
    with torch.cuda.graph(graph):
        captured = fn()
    for tensor in captured.values():
        tensor.fill_(float("nan")) if tensor.is_floating_point() else tensor.fill_(-1)
    if mutates:
        restore(watched, pristine)
    graph.replay()
    torch.cuda.synchronize()
    verdict = compare(task.kernel, getattr(torch, task.dtype), captured, references)
    if verdict.status != "passed":
        verdict.notes.insert(0, "CUDA graph replay")
        return graph.replay, verdict
    return graph.replay, None


def result_record(task: Task, verdict: Verdict, timing: dict | None, clocks: dict, started: float,
                  notes: list[str] | None = None) -> dict[str, Any]:
    correctness = {
        "max_abs": verdict.max_abs, "max_rel": verdict.max_rel,
        "inputs_unmodified": not verdict.changed_inputs and not verdict.aliased_outputs,
        "changed_inputs": verdict.changed_inputs, "aliased_outputs": verdict.aliased_outputs,
    }
    if verdict.status in ("runtime_error", "compile_error", "resource_exceeded", "invalid_reference"):
        correctness["inputs_unmodified"] = None  # never got as far as checking
    return {
        "task": task.key,
        "status": verdict.status,
        "notes": list(verdict.notes) + list(notes or []),
        "correctness": correctness,
        "samples_ns": timing["samples_ns"] if timing else None,
        "host": timing.get("host") if timing else None,
        "clocks": clocks,
        "observed_at": _now(),
        "wall_s": round(time.perf_counter() - started, 3),
        "fatal": verdict.fatal,
    }


def crashed_record(task: Task, message: str) -> dict[str, Any]:
    """The result of a task whose worker process died under it on every device it was tried on."""
    return result_record(task, Verdict("runtime_error", notes=[message]), None, {}, time.perf_counter())


def traceback_text() -> str:
    return traceback.format_exc(limit=5)


__all__ = ["NO_MUTATION", "Session", "measure", "crashed_record", "result_record", "sample"]
