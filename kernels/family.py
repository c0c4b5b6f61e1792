"""The `KernelFamily` record: everything the harness needs to build inputs for one operation,
run every implementation of it, check the outputs and count its bytes and FLOPs.

Calling convention (every callable below is out of place and returns a dict of tensors):

* ``inputs = family.make_inputs(axes, dtype, device, seed)`` -> ``dict[str, Tensor]``
* ``params = family.params_from_axes(axes)`` -> keyword arguments (non-tensor settings such as
  ``num_heads`` or ``kernel_size``), passed as ``**params`` to every implementation.
* ``out = family.implementations[name](inputs, **params)`` -> ``dict[str, Tensor]`` keyed by
  ``family.output_names``. ``family.reference`` is the same as
  ``implementations["pytorch-reference"]``.
* ``family.reference_float64(inputs, **params)`` -> the same outputs computed in float64 (used to
  check the reference itself).
* Backward (only where ``"backward" in family.passes``):
  ``grads = family.backward_implementations[name](inputs, grad_outputs, **params)`` with
  ``grad_outputs`` keyed by ``output_names`` and ``grads`` keyed by ``family.grad_names``.
  ``family.make_grad_outputs(inputs, axes, dtype, seed)`` builds random upstream gradients.
  ``"full"`` means forward then backward of the same implementation.
* ``family.bytes_moved(axes, dtype)`` -> inputs read once + outputs written once (bytes);
  ``family.flops(axes)`` -> useful floating-point operations (``None`` where not meaningful).

Peers (Liger, Transformers, torch.compile) live behind import guards: a peer whose package is
missing is simply absent from ``implementations``. ``family.mutates_inputs`` names the
implementations known to write their inputs (Liger's RoPE); they are called as-is so that an
"inputs unchanged" check catches them -- clone the inputs before each call if you time them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

DTYPE_NAMES = ("float32", "float16", "bfloat16", "float64")


def dtype_from_name(name: str):
    import torch

    return getattr(torch, name)


def dtype_name(dtype) -> str:
    return str(dtype).replace("torch.", "")


@dataclass
class KernelFamily:
    slug: str
    title: str
    dtypes: tuple[str, ...]
    passes: tuple[str, ...]
    output_names: tuple[str, ...]
    make_inputs: Callable[..., dict]
    reference: Callable[..., dict]
    reference_float64: Callable[..., dict]
    implementations: dict[str, Callable[..., dict]]
    bytes_moved: Callable[[dict, Any], int]
    flops: Callable[[dict], int | None]
    params_from_axes: Callable[[dict], dict]
    default_axes: dict[str, int]
    # Published workloads (list of axes dicts) the benchmark sweeps.
    workloads: list[dict] = field(default_factory=list)
    grad_names: tuple[str, ...] = ()
    backward_implementations: dict[str, Callable[..., dict]] = field(default_factory=dict)
    make_grad_outputs: Callable[..., dict] | None = None
    # float64 computation of the reference backward (same signature as a backward implementation)
    reference_backward_float64: Callable[..., dict] | None = None
    # Implementations known to write into their inputs (call them on clones when timing).
    mutates_inputs: frozenset[str] = frozenset()
    # Free-form notes the methodology page may print.
    notes: str = ""

    def torch_dtypes(self):
        return tuple(dtype_from_name(n) for n in self.dtypes)
