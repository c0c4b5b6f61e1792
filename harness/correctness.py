"""Correctness before timing: one checked call of an implementation against the reference.

The policy (DESIGN.md, "Harness and kernels"):
* the call is made once unchecked first (compilation, autotuning and caches happen there, outside
  the poisoned call: torch.compile traces through ``torch.empty`` too);
* outputs are poisoned before the checked call: every ``torch.empty``/``empty_like`` inside it
  returns NaN-filled memory, and on a GPU the caching allocator is primed with NaN-filled blocks of
  the outputs' sizes, so an element the kernel never wrote shows up as NaN instead of a stale
  correct value left by the reference or the first call;
* the inputs (and upstream gradients) are compared bit for bit with a snapshot after the call,
  and outputs may not share storage with inputs: either is the "No mutation or aliasing"
  violation (Liger's RoPE rotates q and k in place). Such a run is still recorded, with status
  ``policy_violation``;
* outputs are compared with the same-dtype PyTorch reference by ``kernels.tolerances.check_close``.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

NO_MUTATION = "No mutation or aliasing"


@dataclass
class Verdict:
    status: str                       # a BenchmarkRun status
    max_abs: float | None = None
    max_rel: float | None = None
    changed_inputs: list[str] = field(default_factory=list)
    aliased_outputs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    fatal: bool = False               # the CUDA context is lost: replace the worker process

    @property
    def timeable(self) -> bool:
        # A policy violation computed the right numbers: time it (restoring its inputs), never rank it.
        return self.status in ("passed", "policy_violation")


def classify_exception(error: BaseException) -> str:
    """Map an exception from an implementation call to a run status."""
    name = type(error).__name__
    module = type(error).__module__ or ""
    text = str(error)
    if name == "OutOfMemoryError" or "out of memory" in text.lower():
        return "resource_exceeded"
    if "CompilationError" in name or module.startswith("triton.compiler") or name in (
            "BackendCompilerFailed", "InductorError") or module.startswith("torch._inductor"):
        return "compile_error"
    return "runtime_error"


def is_fatal(error: BaseException) -> bool:
    """After a CUDA error the context may be unusable (a failed graph capture, an illegal address):
    the worker process is replaced rather than trusted with the next measurement."""
    text = str(error).lower()
    return type(error).__name__ == "AcceleratorError" or "cuda error" in text or any(
        marker in text for marker in ("illegal memory access", "device-side assert", "unspecified launch failure",
                                      "misaligned address", "during capture"))


def snapshot(tensors: dict) -> dict:
    return {name: tensor.detach().clone() for name, tensor in tensors.items() if hasattr(tensor, "detach")}


def restore(tensors: dict, saved: dict) -> None:
    """Copy the pristine values back into the same storage (addresses stay: CUDA graphs replay on them)."""
    for name, original in saved.items():
        tensors[name].detach().copy_(original)


def _storage_span(tensor):
    storage = tensor.untyped_storage()
    start = storage.data_ptr()
    return start, start + storage.nbytes()


def aliased(outputs: dict, inputs: dict) -> list[str]:
    """Names ``out->in`` of outputs whose storage overlaps an input's."""
    found = []
    for out_name, out in outputs.items():
        if not hasattr(out, "untyped_storage") or out.numel() == 0:
            continue
        a0, a1 = _storage_span(out)
        for in_name, tensor in inputs.items():
            if not hasattr(tensor, "untyped_storage") or tensor.device != out.device or tensor.numel() == 0:
                continue
            b0, b1 = _storage_span(tensor)
            if a0 < b1 and b0 < a1:
                found.append(f"{out_name}->{in_name}")
    return found


def prime_allocator(like: dict) -> None:
    """Fill and free blocks of the outputs' sizes so the CUDA caching allocator hands the NaN-filled
    memory to the implementation's outputs (the reference's freed outputs would otherwise be reused)."""
    import torch

    blocks = []
    for tensor in like.values():
        if getattr(tensor, "is_cuda", False):
            block = torch.empty_like(tensor)
            if block.is_floating_point() or block.is_complex():
                block.fill_(float("nan"))
            else:
                block.fill_(-1)
            blocks.append(block)
    del blocks


@contextlib.contextmanager
def poisoned_allocations():
    """``torch.empty``/``empty_like`` return NaN-filled (integers: -1) tensors while active.

    Like ``kernels.checks.poisoned_allocations``, but it never writes a tensor that autograd or a
    tracer owns (a leaf that requires grad, a fake or meta tensor): poisoning must not change what
    the call does, only expose what it leaves unwritten."""
    import torch

    original_empty, original_empty_like = torch.empty, torch.empty_like

    def poison(tensor):
        if tensor.requires_grad or tensor.is_meta or type(tensor) is not torch.Tensor or tensor.dtype == torch.bool:
            return tensor
        with torch.no_grad():
            tensor.fill_(float("nan") if (tensor.is_floating_point() or tensor.is_complex()) else -1)
        return tensor

    torch.empty = lambda *a, **k: poison(original_empty(*a, **k))
    torch.empty_like = lambda *a, **k: poison(original_empty_like(*a, **k))
    try:
        yield
    finally:
        torch.empty, torch.empty_like = original_empty, original_empty_like


def poisoned_call(call, like: dict):
    """Call with outputs poisoned (see the module docstring)."""
    prime_allocator(like)
    with poisoned_allocations():
        return call()


def compare(kernel: str, dtype, outputs, references: dict) -> Verdict:
    """Shape, dtype, then values of every reference output."""
    from kernels.tolerances import check_close

    if not isinstance(outputs, dict):
        return Verdict("incorrect_shape", notes=[f"returned {type(outputs).__name__}, expected a dict of tensors"])
    missing = [name for name in references if name not in outputs]
    if missing:
        return Verdict("incorrect_shape", notes=[f"missing outputs: {', '.join(missing)}"])
    for name, ref in references.items():
        out = outputs[name]
        if tuple(out.shape) != tuple(ref.shape):
            return Verdict("incorrect_shape", notes=[f"{name}: shape {list(out.shape)}, expected {list(ref.shape)}"])
        if out.dtype != ref.dtype:
            return Verdict("incorrect_dtype", notes=[f"{name}: dtype {out.dtype}, expected {ref.dtype}"])
    worst_abs, worst_rel, failed = 0.0, 0.0, []
    for name, ref in references.items():
        ok, max_abs, max_rel = check_close(outputs[name], ref, dtype, kernel)
        if max_abs != max_abs:  # NaN: a non-finite value where the reference is finite
            failed.append(f"{name}: non-finite values (an unwritten or poisoned element)")
            worst_abs = worst_rel = None
            continue
        if worst_abs is not None:
            worst_abs, worst_rel = max(worst_abs, max_abs), max(worst_rel, max_rel)
        if not ok:
            failed.append(f"{name}: max abs error {max_abs:.3g}, max rel error {max_rel:.3g}")
    if failed:
        return Verdict("incorrect_numerical", worst_abs, worst_rel, notes=["outside tolerance: " + "; ".join(failed)])
    return Verdict("passed", worst_abs, worst_rel)


def check_call(kernel: str, dtype, call, watched: dict, references: dict) -> tuple[Verdict, object]:
    """Run ``call()`` once, poisoned, and judge it. ``watched``: the tensors it must not modify."""
    saved = snapshot(watched)
    try:
        call()  # the first call compiles and autotunes; its outputs are dropped and poisoned over
        restore(watched, saved)
        outputs = poisoned_call(call, references)
    except Exception as error:  # noqa: BLE001 - every failure becomes a recorded run
        return Verdict(classify_exception(error), notes=[f"{type(error).__name__}: {_first_line(error)}"],
                       fatal=is_fatal(error)), None
    verdict = compare(kernel, dtype, outputs, references)
    from kernels.checks import changed_inputs

    verdict.changed_inputs = changed_inputs(saved, watched)
    verdict.aliased_outputs = aliased(outputs, watched) if isinstance(outputs, dict) else []
    if verdict.changed_inputs or verdict.aliased_outputs:
        parts = []
        if verdict.changed_inputs:
            parts.append("wrote its inputs " + ", ".join(verdict.changed_inputs))
        if verdict.aliased_outputs:
            parts.append("returned outputs aliasing inputs (" + ", ".join(verdict.aliased_outputs) + ")")
        verdict.notes.append(f"{NO_MUTATION}: " + "; ".join(parts))
        if verdict.status == "passed":
            verdict.status = "policy_violation"
    restore(watched, saved)  # the next call (timing) starts from the same inputs
    return verdict, outputs


def _first_line(error: BaseException) -> str:
    """The gist of an error for a run's notes: its first few non-empty lines, at most 300 characters."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    return " ".join(lines[:3])[:300]
