"""Data-file axes -> the keyword axes a kernel family's ``make_inputs`` reads.

Workload files use the names their source used (``seq_len``, ``batch_size`` for the SOL suite;
``seq``, ``hidden`` for Liger's); the bundled families read short names. Both are passed, so a
family reads what it knows and ignores the rest. Constant axes of the operation are added too.
"""

from __future__ import annotations

ALIASES = {
    "seq_len": "seq", "sequence_length": "seq", "batch_size": "batch", "hidden_size": "hidden",
    "num_heads": "heads", "num_attention_heads": "heads", "num_kv_heads": "kv_heads",
    "num_key_value_heads": "kv_heads", "num_q_heads": "q_heads",
}

DTYPE_TORCH = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32", "fp64": "float64"}
DTYPE_TOKEN = {value: key for key, value in DTYPE_TORCH.items()}


def family_axes(operation_spec: dict, bound: dict) -> dict:
    axes: dict = {}
    for name, axis in (operation_spec.get("axes") or {}).items():
        if isinstance(axis, dict) and axis.get("role") == "constant" and axis.get("value") is not None:
            axes[name] = int(axis["value"])
    axes.update({name: int(value) for name, value in bound.items()})
    for name, value in list(axes.items()):
        alias = ALIASES.get(name)
        if alias and alias not in axes:
            axes[alias] = value
    return dict(sorted(axes.items()))
