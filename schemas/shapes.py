"""Binding an operation's axes to a workload's values, and the concrete tensor shapes that follow."""

from __future__ import annotations

from collections.abc import Mapping

from .common import DTYPE_BYTES, DType
from .expressions import ExpressionError, parse_expression
from .kinds import Argument, AxisRole, OperationSpecSpec


class BindingError(ValueError):
    pass


def bind_axes(operation: OperationSpecSpec, bound: Mapping[str, int], *, partial: bool = False) -> dict[str, int]:
    """Every axis value: constants from the operation, variables from ``bound``, derived ones computed.

    ``bound`` must name exactly the variable axes. Derived axes may refer to each other in any
    order; a cycle is an error. ``partial``: variable axes may be left unbound (a suite case whose
    sizes vary within it, as GPU MODE's grouped GEMM lists one m, n, k per group); what depends
    on them is left out of the result.
    """
    variables = {name for name, axis in operation.axes.items() if axis.role is AxisRole.variable}
    unknown = sorted(set(bound) - set(operation.axes))
    if unknown:
        raise BindingError(f"axes not in the operation: {', '.join(unknown)}")
    # Constant and derived axes may be restated (the public KernelIndex's workloads list every
    # axis); a restated value must be the operation's own, checked once all are computed.
    restated = {name: value for name, value in bound.items() if name not in variables}
    bound = {name: value for name, value in bound.items() if name in variables}
    missing = sorted(variables - set(bound))
    if missing and not partial:
        raise BindingError(f"workload does not bind variable axes: {', '.join(missing)}")
    values: dict[str, int] = {}
    for name, axis in operation.axes.items():
        if axis.role is AxisRole.constant:
            values[name] = axis.value  # type: ignore[assignment]
        elif axis.role is AxisRole.variable:
            if name not in bound:  # partial: left unbound
                continue
            value = bound[name]
            if axis.minimum is not None and value < axis.minimum:
                raise BindingError(f"{name} = {value} is below its minimum {axis.minimum}")
            if axis.maximum is not None and value > axis.maximum:
                raise BindingError(f"{name} = {value} is above its maximum {axis.maximum}")
            values[name] = value
    pending = {name: parse_expression(axis.expression) for name, axis in operation.axes.items()
               if axis.role is AxisRole.derived}
    while pending:
        ready = [name for name, expr in pending.items() if expr.names <= set(values)]
        if not ready and partial:
            break  # what depends on an unbound axis stays unknown
        if not ready:
            raise BindingError(f"derived axes depend on each other in a cycle: {', '.join(sorted(pending))}")
        for name in ready:
            try:
                values[name] = pending.pop(name).evaluate(values)
            except ExpressionError as error:
                raise BindingError(f"axis {name}: {error}") from None
    wrong = sorted(name for name, value in restated.items() if name in values and values[name] != value)
    if wrong:
        raise BindingError("only variable axes are bound by a workload; "
                           + ", ".join(f"{name} = {restated[name]} is not the operation's {values[name]}" for name in wrong))
    return values


def concrete_shape(argument: Argument, axes: Mapping[str, int]) -> list[int]:
    assert argument.tensor is not None
    shape = [dim if isinstance(dim, int) else axes[dim] for dim in argument.tensor.shape]
    for dim, size in zip(argument.tensor.shape, shape):
        if size < 0:
            raise BindingError(f"{argument.name}: dimension {dim} evaluates to {size}")
    return shape


def concrete_dtype(argument: Argument, bound_dtype: DType | None) -> str:
    declared = argument.tensor.dtype if argument.tensor else argument.scalar.dtype  # type: ignore[union-attr]
    if declared is DType.float:
        if bound_dtype is None:
            raise BindingError(f"{argument.name} has dtype 'float': the workload must give a dtype")
        return bound_dtype.value
    return declared.value


def concrete_tensors(arguments: list[Argument], axes: Mapping[str, int], bound_dtype: DType | None) -> dict[str, dict]:
    """name -> {shape, dtype} for the tensor arguments (scalars carry no bytes worth counting)."""
    return {
        argument.name: {"shape": concrete_shape(argument, axes), "dtype": concrete_dtype(argument, bound_dtype)}
        for argument in arguments
        if argument.tensor is not None
    }


def tensor_bytes(tensor: Mapping) -> float:
    count = 1
    for size in tensor["shape"]:
        count *= size
    return count * DTYPE_BYTES[tensor["dtype"]]
