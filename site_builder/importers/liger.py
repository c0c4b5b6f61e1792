"""`kernelindex import liger CSV`: Liger-Kernel's ``all_benchmark_data.csv`` as data files.

Every row of the CSV becomes one BenchmarkRun (``runs/liger-kernel-bench/<kernel>/``):

- a speed row (ms) gets timing ``median`` = ``y_value_50`` in ns, p20 and p80 as measurements,
  the raw ms values as source-native metrics, and the protocol of its timed pass
  (``liger-bench-do-bench-<mode>``), exactly as seeds 001 and 002 publish such a run;
- a memory row (MB, which Liger means as 2^20 bytes) gets measurements only, in MiB, under
  ``liger-bench-memory`` (``-forward`` / ``-backward`` for the few rows of those modes).

Around the runs it writes what they refer to: one WorkloadCase per distinct (kernel, axis values,
dtype), so a shape reached from two sweeps (``H=8192`` at seq 2048 and ``T=2048`` at hidden 8192)
is one workload; one ImplementationRevision per (provider, kernel). Which OperationSpec a row
measured, and how its CSV parameters become that operation's axes, is the catalogue's
(``liger_catalog``); a kernel the catalogue does not know still imports, with a generated
OperationSpec marked undeclared (its identity names the benchmark, so it never shares a digest),
and the import says what needs declaring. Protocols, environments, projects and declared kernels
are written by people and must already exist: the importer refers to them and never rewrites them
(see ``output`` for the rules on files).
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from schemas.common import API_VERSION, SLUG_MAX, format_utc
from schemas.kinds import model_for

from .liger_catalog import SWEEP_KEYS, TORCH_DTYPES, LigerKernel, entry
from .output import ImporterError, Plan, Report, apply, read_document

IMPORTER = "kernelindex import liger"
# semantics.expression of an undeclared kernel: the prefix, then the source benchmark it stands for.
UNDECLARED_PREFIX = "undeclared: "
SOURCE = "liger-kernel-bench"
RUN_FOLDER = f"runs/{SOURCE}"

HEADER = [
    "kernel_name", "kernel_provider", "kernel_operation_mode", "metric_name", "metric_unit", "x_name",
    "x_label", "x_value", "y_value_50", "y_value_20", "y_value_80", "extra_benchmark_config_str",
    "gpu_name", "timestamp", "liger_version",
]


# --------------------------------------------------------------------------------------------
# Reading the CSV


@dataclass(frozen=True)
class Row:
    line: int
    kernel: str
    provider: str
    mode: str  # forward, backward or full
    metric: str  # speed or memory
    x_name: str
    x_value: int
    y50: float
    y20: float
    y80: float
    config_text: str  # verbatim: its key order is part of Liger's own row identity
    config: dict[str, Any] = field(compare=False, hash=False)
    gpu: str
    timestamp: str  # "YYYY-MM-DD HH:MM:SS", the benchmarking host's clock, no zone
    liger_version: str


def read_rows(path: Path) -> list[Row]:
    """Every data row of the CSV, checked against the format its writer (Liger's utils.py) uses."""
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header != HEADER:
            raise ImporterError(f"{path}:1: not a Liger-Kernel benchmark CSV (expected the header {','.join(HEADER)})")
        return [_row(path, line, fields) for line, fields in enumerate(reader, start=2)]


def _row(path: Path, line: int, fields: list[str]) -> Row:
    if len(fields) != len(HEADER):
        raise ImporterError(f"{path}:{line}: {len(fields)} columns, expected {len(HEADER)}")
    value = dict(zip(HEADER, fields))
    try:
        config = json.loads(value["extra_benchmark_config_str"])
        x_value = int(value["x_value"])
        y50, y20, y80 = (float(value[f"y_value_{q}"]) for q in (50, 20, 80))
        datetime.strptime(value["timestamp"], "%Y-%m-%d %H:%M:%S")
    except ValueError as error:
        raise ImporterError(f"{path}:{line}: {error}") from None
    if (value["metric_name"], value["metric_unit"]) not in (("speed", "ms"), ("memory", "MB")):
        raise ImporterError(f"{path}:{line}: unknown metric {value['metric_name']}/{value['metric_unit']}")
    if value["kernel_operation_mode"] not in ("forward", "backward", "full"):
        raise ImporterError(f"{path}:{line}: unknown mode {value['kernel_operation_mode']!r}")
    if not isinstance(config, dict):
        raise ImporterError(f"{path}:{line}: extra_benchmark_config_str is not a JSON object")
    if not (0 < y20 <= y50 <= y80):
        raise ImporterError(f"{path}:{line}: quantiles must satisfy 0 < y_20 <= y_50 <= y_80")
    return Row(
        line=line, kernel=value["kernel_name"], provider=value["kernel_provider"],
        mode=value["kernel_operation_mode"], metric=value["metric_name"], x_name=value["x_name"],
        x_value=x_value, y50=y50, y20=y20, y80=y80, config_text=value["extra_benchmark_config_str"],
        config=config, gpu=value["gpu_name"], timestamp=value["timestamp"], liger_version=value["liger_version"],
    )


# --------------------------------------------------------------------------------------------
# What a row measured: axis values, dtype and the other settings


@dataclass(frozen=True)
class Binding:
    axes: dict[str, int]  # from the row, named as the operation names them; they make the external id
    implied: dict[str, int]  # axes the benchmark fixes without recording them (Llama 4 RoPE: batch 1)
    dtype: str
    dtype_from_script: bool  # the CSV has no dtype; it comes from the catalogue's script_dtype
    settings: dict[str, str]  # non-integer parameters (eps, hidden_act, ...)
    origins: dict[str, str]  # axis -> the CSV name it came from (for the generated kernel's text)

    @property
    def all_axes(self) -> dict[str, int]:
        return {**self.implied, **self.axes}


def _parameters(row: Row) -> tuple[dict[str, int], dict[str, Any]]:
    """(integer parameters, other parameters) of a row; the swept x value overrides its config key."""
    integers: dict[str, int] = {}
    others: dict[str, Any] = {}
    for key, value in row.config.items():
        if key == "dtype" or key in SWEEP_KEYS or value is None:
            continue
        if isinstance(value, int) and not isinstance(value, bool):
            integers[key] = value
        else:
            others[key] = value
    integers[row.x_name] = row.x_value
    return integers, others


def _setting_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _dtype(row: Row, script_dtype: str | None) -> tuple[str, bool]:
    name = row.config.get("dtype")
    if name is not None:
        if name not in TORCH_DTYPES:
            raise ImporterError(f"line {row.line}: unknown dtype {name!r}")
        return TORCH_DTYPES[name], False
    if script_dtype is not None:
        return script_dtype, True
    raise ImporterError(f"line {row.line}: {row.kernel} rows carry no dtype and its catalogue entry gives no "
                        f"script_dtype (site_builder/importers/liger_catalog.py)")


def _put(row: Row, axes: dict[str, int], origins: dict[str, str], axis: str, value: int, origin: str) -> None:
    if axes.get(axis, value) != value:
        raise ImporterError(f"line {row.line}: {row.kernel} gives {axis} two values")
    axes[axis], origins[axis] = value, origin


def bind_declared(row: Row, kernel: LigerKernel) -> Binding:
    """A row of a catalogued kernel: every integer parameter lands on a declared axis, or it is an error."""
    integers, others = _parameters(row)
    axes: dict[str, int] = {}
    origins: dict[str, str] = {}
    for axis, (left, right) in kernel.products.items():
        if left in integers and right in integers:
            _put(row, axes, origins, axis, integers.pop(left) * integers.pop(right), f"{left}·{right}")
    settings: dict[str, str] = {}
    for key, value in integers.items():
        if key in kernel.ignored:
            continue
        if key in kernel.integer_settings:
            settings[_axis_name(key)] = _setting_text(value)
            continue
        if key not in kernel.axes:
            raise ImporterError(f"line {row.line}: {row.kernel} parameter {key!r} has no axis in {kernel.operation}: "
                                f"add it to its entry in site_builder/importers/liger_catalog.py")
        _put(row, axes, origins, kernel.axes[key], value, key)
    for key, value in others.items():
        if key in kernel.assumed:
            if kernel.assumed[key] != value:
                raise ImporterError(f"line {row.line}: {kernel.operation} assumes {key} = {kernel.assumed[key]!r}, "
                                    f"the row has {value!r}")
            continue
        settings[_axis_name(key)] = _setting_text(value)
    dtype, from_script = _dtype(row, kernel.script_dtype)
    return Binding(axes=axes, implied=dict(kernel.implied), dtype=dtype, dtype_from_script=from_script,
                   settings=settings, origins=origins)


def _axis_name(key: str) -> str:
    return key.lower()


def bind_undeclared(row: Row) -> Binding:
    """A row of a kernel the catalogue does not know: its integer parameters, lowercased, as axes."""
    integers, others = _parameters(row)
    axes: dict[str, int] = {}
    origins: dict[str, str] = {}
    for key, value in integers.items():
        _put(row, axes, origins, _axis_name(key), value, key)
    dtype, from_script = _dtype(row, None)
    settings = {_axis_name(key): _setting_text(value) for key, value in others.items()}
    return Binding(axes=axes, implied={}, dtype=dtype, dtype_from_script=from_script, settings=settings, origins=origins)


def bind(row: Row) -> Binding:
    kernel = entry(row.kernel)
    return bind_declared(row, kernel) if kernel else bind_undeclared(row)


# --------------------------------------------------------------------------------------------
# Names


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def bounded(name: str, key: str) -> str:
    """``name`` if it fits a slug; else cut, with 8 hex of ``key``'s hash so cut names stay distinct."""
    if len(name) <= SLUG_MAX:
        return name
    suffix = hashlib.sha256(key.encode("utf-8")).hexdigest()[:8]
    return name[: SLUG_MAX - len(suffix) - 1].rstrip("-") + "-" + suffix


def operation_name(kernel: str) -> str:
    declared = entry(kernel)
    return declared.operation if declared else slugify(kernel)


def mode_segment(row: Row) -> str:
    """The mode part of a run's external id: the timed pass, or memory (memory-<mode> off the full pass)."""
    if row.metric == "speed":
        return row.mode
    return "memory" if row.mode == "full" else f"memory-{row.mode}"


def external_id(row: Row, binding: Binding) -> str:
    """As seed 001: kernel/mode/provider/gpu/axes sorted as key+value joined by '-', then dtype/time."""
    axes = "-".join(f"{axis}{value}" for axis, value in sorted(binding.axes.items()))
    time = row.timestamp.replace(" ", "-").replace(":", "-")
    return f"{row.kernel}/{mode_segment(row)}/{row.provider}/{slugify(row.gpu)}/{axes}-{binding.dtype}/{time}"


def workload_name(operation: str, kernel: str, binding: Binding) -> str:
    declared = entry(kernel)
    if declared and declared.name_parts:
        axes = binding.all_axes
        parts = [f"{short}{axes[axis]}" for axis, short in declared.name_parts]
    else:
        # The row's own axes only: an implied axis (rope's batch 1) is the same for every row of
        # the kernel, and leaving it out keeps the names the importer gave before it was declared.
        parts = [f"{slugify(axis)}{value}" for axis, value in sorted(binding.axes.items())]
    text = "-".join([operation, *parts, binding.dtype])
    return bounded(slugify(text), text)


def protocol_name(row: Row) -> str:
    if row.metric == "speed":
        return f"liger-bench-do-bench-{row.mode}"
    return "liger-bench-memory" if row.mode == "full" else f"liger-bench-memory-{row.mode}"


def environment_name(row: Row) -> str:
    return f"liger-bench-{slugify(row.gpu)}"


# --------------------------------------------------------------------------------------------
# Providers: who wrote the code a row timed


@dataclass(frozen=True)
class Provider:
    prefix: str  # implementation names are <prefix>-<operation>
    title: str
    project: str
    language: str
    license: str  # SPDX
    # The source's reference implementation, that the others are compared with.
    baseline: bool = False
    # Installable from PyPI; unpinned here because each run's liger_version label pins it.
    pip_package: str | None = None


def _liger(prefix: str, title: str) -> Provider:
    return Provider(prefix, title, "liger-kernel", "triton", "BSD-2-Clause", pip_package="liger-kernel")


PROVIDERS = {
    "liger": _liger("liger", "Liger"),
    "liger_tiled": _liger("liger-tiled", "Liger (tiled)"),
    "liger_fused_add_rms_norm": _liger("liger-fused-add-rms-norm", "Liger (fused add + RMSNorm)"),
    "liger_rms_norm": _liger("liger-rms-norm", "Liger (RMSNorm)"),
    "liger_in_place": _liger("liger-in-place", "Liger (in place)"),
    # Eager references: the code Liger replaces. They have no install recipe of their own here.
    "huggingface": Provider("transformers", "Transformers", "huggingface-transformers", "python", "Apache-2.0", baseline=True),
    "torch": Provider("pytorch", "PyTorch", "pytorch", "python", "BSD-3-Clause", baseline=True),
    "megatron": Provider("megatron", "Megatron", "megatron-lm", "python", "BSD-3-Clause", baseline=True),
    "megatron-unfused": Provider("megatron-unfused", "Megatron (unfused)", "megatron-lm", "python", "BSD-3-Clause", baseline=True),
    # Other contenders: compiled or fused, not the reference.
    "torch_compile": Provider("torch-compile", "torch.compile", "pytorch", "python", "BSD-3-Clause"),
    "megatron-fused": Provider("megatron-fused", "Megatron (fused)", "megatron-lm", "python", "BSD-3-Clause"),
    "deepspeed_tiled": Provider("deepspeed-tiled", "DeepSpeed (tiled)", "deepspeed", "python", "Apache-2.0"),
}


def provider(row: Row) -> Provider:
    if row.provider not in PROVIDERS:
        raise ImporterError(f"line {row.line}: unknown provider {row.provider!r}: add it to PROVIDERS")
    return PROVIDERS[row.provider]


def implementation_name(row: Row) -> str:
    return bounded(f"{provider(row).prefix}-{operation_name(row.kernel)}", f"{row.provider}/{row.kernel}")


# --------------------------------------------------------------------------------------------
# Documents


def _envelope(kind: str, metadata: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": metadata, "spec": spec}


def ns(ms: float) -> int:
    return round(ms * 1e6)


def observed_at(row: Row) -> str:
    # The CSV's clock has no zone; read as UTC, as the public KernelIndex did (seed 001).
    moment = datetime.strptime(row.timestamp, "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc)
    return format_utc(moment)


def _result(row: Row) -> dict[str, Any]:
    """The measured part of a run's spec: timing for speed rows, measurements only for memory."""
    if row.metric == "speed":
        return {
            "timing": {"primaryStatistic": "median", "latencyNs": {"median": ns(row.y50)}},
            "measurements": [
                {"metric": "latency", "statistic": "p20", "unit": "ns", "value": ns(row.y20)},
                {"metric": "latency", "statistic": "p80", "unit": "ns", "value": ns(row.y80)},
            ],
        }
    return {"measurements": [
        {"metric": "memory", "statistic": statistic, "unit": "MiB", "value": value}
        for statistic, value in (("median", row.y50), ("p20", row.y20), ("p80", row.y80))
    ]}


def run_document(row: Row, binding: Binding, name: str, operation_title: str, workload: str) -> dict[str, Any]:
    unit = "ms" if row.metric == "speed" else "mb"
    what = row.mode if row.metric == "speed" else f"peak memory ({row.mode})"
    metadata = {
        "name": name,
        "title": f"{operation_title} · {row.provider} · {what}",
        "labels": {
            "liger_version": row.liger_version,
            # With the config kept verbatim, the row's own key (Liger de-duplicates on kernel,
            # provider, mode, metric, x, config and GPU) can be rebuilt from the run.
            "liger_x": f"{row.x_name}={row.x_value}",
            "liger_config": row.config_text,
        },
    }
    spec = {
        "implementation": implementation_name(row),
        "workload": workload,
        "protocol": protocol_name(row),
        "environment": environment_name(row),
        "status": "passed",
        **_result(row),
        "sourceNative": {
            "source": SOURCE,
            "benchmark": f"{row.kernel}/{mode_segment(row)}",
            "externalId": external_id(row, binding),
            "metrics": {f"{unit}_20": row.y20, f"{unit}_50": row.y50, f"{unit}_80": row.y80},
        },
        "observedAt": observed_at(row),
    }
    return _envelope("BenchmarkRun", metadata, spec)


def workload_document(name: str, operation: str, kernel: str, binding: Binding) -> dict[str, Any]:
    shown = [(axis, value) for axis, value in _ordered_axes(kernel, binding) if axis not in binding.implied]
    labels = dict(sorted(binding.settings.items()))
    if binding.dtype_from_script:
        labels["dtype_from"] = "benchmark script"
    metadata: dict[str, Any] = {"name": name, "title": " · ".join([*(f"{a} = {v}" for a, v in shown), binding.dtype])}
    if labels:
        metadata["labels"] = labels
    spec = {
        "operation": operation,
        "axes": dict(_ordered_axes(kernel, binding)),
        "dtype": binding.dtype,
        # Liger's benchmark scripts time without checking outputs; the CSV asserts nothing.
        "correctness": {"comparator": "not_asserted"},
    }
    return _envelope("WorkloadCase", metadata, spec)


def _ordered_axes(kernel: str, binding: Binding) -> list[tuple[str, int]]:
    axes = binding.all_axes
    declared = entry(kernel)
    if declared and declared.name_parts:
        return [(axis, axes[axis]) for axis, _ in declared.name_parts]
    return sorted(axes.items())


def implementation_document(row: Row) -> dict[str, Any]:
    who = provider(row)
    metadata: dict[str, Any] = {"name": implementation_name(row), "title": who.title}
    if who.baseline:
        metadata["labels"] = {"role": "baseline"}
    spec: dict[str, Any] = {
        "project": who.project,
        "operation": operation_name(row.kernel),
        "callable": {"language": who.language},
    }
    if who.pip_package:
        spec["buildVariants"] = [{"name": "pip", "install": {"kind": "pip", "package": who.pip_package}}]
    spec["licensing"] = {"declared": who.license}
    return _envelope("ImplementationRevision", metadata, spec)


ACRONYMS = {"rms": "RMS", "jsd": "JSD", "kl": "KL", "tvd": "TVD", "moe": "MoE", "cpo": "CPO", "orpo": "ORPO",
            "simpo": "SimPO", "grpo": "GRPO", "kto": "KTO", "geglu": "GeGLU", "swiglu": "SwiGLU", "rope": "RoPE",
            "relu": "ReLU"}
# First match wins: a kernel's family from the words in its name.
FAMILIES = (("multi_token_attention", "multi-token-attention"), ("rope", "rope"), ("attention", "attention"),
            ("norm", "normalization"), ("loss", "loss"), ("cross_entropy", "loss"), ("jsd", "loss"),
            ("kl_div", "loss"), ("tvd", "loss"), ("glu", "gated-activation"), ("relu", "activation"),
            ("softmax", "softmax"), ("sparsemax", "softmax"), ("moe", "mixture-of-experts"),
            ("embedding", "embedding"))


def kernel_title(kernel: str) -> str:
    words = [ACRONYMS.get(word, word) for word in kernel.split("_")]
    return " ".join([words[0][:1].upper() + words[0][1:], *words[1:]])


def kernel_family(kernel: str) -> str:
    return next((family for word, family in FAMILIES if word in kernel), slugify(kernel))


def generated_operation(kernel: str, origins: Mapping[str, set[str]]) -> dict[str, Any]:
    """An OperationSpec for a kernel nobody has declared: its axes, and honestly nothing else.

    Its identity names the Liger benchmark (``semantics.expression``), so two undeclared kernels
    never share a digest or a comparison key even though neither declares a tensor shape.
    """
    axes = ", ".join(f"`{axis}` ({' / '.join(sorted(origins[axis]))})" for axis in sorted(origins))
    description = (
        f"The `{kernel}` benchmark of Liger-Kernel, **awaiting a declaration**: nobody has yet written "
        f"down what it computes (its tensors, their shapes and dtypes), so no floor is derived and its "
        f"runs are kept off the record tables. Its axes are the benchmark's integer parameters, named "
        f"after the CSV's: {axes}. To declare it, write this file by hand (without the generated_by "
        f"label) and add `{kernel}` to site_builder/importers/liger_catalog.py."
    )
    metadata = {
        "name": operation_name(kernel),
        "title": kernel_title(kernel),
        "description": description,
        "aliases": [kernel],
        "labels": {"semantics": "undeclared"},
        "sources": [SOURCE],
    }
    spec = {
        "family": kernel_family(kernel),
        "axes": {axis: {"role": "variable"} for axis in sorted(origins)},
        "inputs": [{"name": "x", "tensor": {"shape": [], "dtype": "float"}}],
        "outputs": [{"name": "y", "tensor": {"shape": [], "dtype": "float"}}],
        "semantics": {"expression": f"{UNDECLARED_PREFIX}{SOURCE}/{kernel}", "determinism": "unspecified"},
    }
    return _envelope("OperationSpec", metadata, spec)


# --------------------------------------------------------------------------------------------
# The import


def required_files(rows: list[Row]) -> list[str]:
    """Hand-written files the runs refer to; the importer does not invent them."""
    needed = {f"sources/{SOURCE}.yaml"}
    for row in rows:
        needed.add(f"protocols/{protocol_name(row)}.yaml")
        needed.add(f"environments/{environment_name(row)}.yaml")
        needed.add(f"projects/{provider(row).project}.yaml")
        declared = entry(row.kernel)
        if declared:
            needed.add(f"kernels/{declared.operation}.yaml")
    return sorted(needed)


def _check_required(rows: list[Row], data_dir: Path) -> None:
    missing = [path for path in required_files(rows) if not (data_dir / path).is_file()]
    if missing:
        raise ImporterError(f"{data_dir}: hand-written files the runs refer to are missing: {', '.join(missing)}")


def _run_names(rows: list[Row], ids: dict[int, str]) -> dict[int, str]:
    """Run names from the external id without its time; rows that would share one get their time too."""
    base = {row.line: "liger-" + slugify(ids[row.line].rsplit("/", 1)[0]) for row in rows}
    counts: dict[str, int] = defaultdict(int)
    for name in base.values():
        counts[name] += 1
    names = {}
    for row in rows:
        name = base[row.line]
        if counts[name] > 1:
            name += "-" + slugify(row.timestamp)
        names[row.line] = bounded(name, ids[row.line])
    return names


def _operation_titles(rows: list[Row], data_dir: Path) -> dict[str, str]:
    titles = {}
    for kernel in {row.kernel for row in rows}:
        existing = read_document(data_dir / "kernels" / f"{operation_name(kernel)}.yaml")
        title = (existing or {}).get("metadata", {}).get("title")
        titles[kernel] = title or kernel_title(kernel)
    return titles


def plan_import(rows: list[Row], data_dir: Path) -> Plan:
    """Every document the rows call for, checked for clashes; writes nothing."""
    plan = Plan(IMPORTER)
    bindings = {row.line: bind(row) for row in rows}
    ids = {row.line: external_id(row, bindings[row.line]) for row in rows}
    _check_unique_ids(rows, ids)
    names = _run_names(rows, ids)
    titles = _operation_titles(rows, data_dir)
    workloads: dict[str, tuple] = {}
    origins: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for row in rows:
        binding, operation = bindings[row.line], operation_name(row.kernel)
        workload = workload_name(operation, row.kernel, binding)
        identity = (tuple(sorted(binding.all_axes.items())), binding.dtype, tuple(sorted(binding.settings.items())))
        if workloads.setdefault(workload, identity) != identity:
            raise ImporterError(f"line {row.line}: workload name {workload} would stand for two different workloads")
        plan.add(f"workloads/{operation}/{workload}.yaml", workload_document(workload, operation, row.kernel, binding))
        plan.add(f"implementations/{implementation_name(row)}.yaml", implementation_document(row))
        run = run_document(row, binding, names[row.line], titles[row.kernel], workload)
        plan.add(f"{RUN_FOLDER}/{operation}/{names[row.line]}.yaml", run)
        for axis, origin in binding.origins.items():
            origins[row.kernel][axis].add(origin)
    _check_declared_axes(rows, bindings, data_dir)
    for kernel, kernel_origins in sorted(origins.items()):
        if entry(kernel) is None:
            _check_same_axes(kernel, rows, bindings)
            plan.add(f"kernels/{operation_name(kernel)}.yaml", generated_operation(kernel, kernel_origins))
    _validate(plan)
    return plan


def _check_declared_axes(rows: list[Row], bindings: dict[int, Binding], data_dir: Path) -> None:
    """A declared kernel's rows must bind exactly its variable axes, or its workloads would not load."""
    variables: dict[str, set[str] | None] = {}
    for row in rows:
        declared = entry(row.kernel)
        if declared is None:
            continue
        if declared.operation not in variables:
            document = read_document(data_dir / "kernels" / f"{declared.operation}.yaml")
            axes = ((document or {}).get("spec") or {}).get("axes")
            # A missing or unreadable file is _check_required's (or validate's) to report.
            variables[declared.operation] = None if not isinstance(axes, dict) else {
                name for name, axis in axes.items() if isinstance(axis, dict) and axis.get("role") == "variable"}
        bound = set(bindings[row.line].all_axes)
        if variables[declared.operation] is not None and bound != variables[declared.operation]:
            raise ImporterError(
                f"line {row.line}: {row.kernel} binds axes {', '.join(sorted(bound))} but "
                f"kernels/{declared.operation}.yaml declares the variable axes "
                f"{', '.join(sorted(variables[declared.operation] or ()))}")


def undeclared_kernels(rows: list[Row]) -> list[str]:
    """The kernel names of ``rows`` the catalogue does not know: each needs a declaration."""
    return sorted({row.kernel for row in rows if entry(row.kernel) is None})


def _check_unique_ids(rows: list[Row], ids: dict[int, str]) -> None:
    first: dict[str, int] = {}
    for row in rows:
        seen = first.setdefault(ids[row.line], row.line)
        if seen != row.line:
            raise ImporterError(f"line {row.line}: same external id as line {seen}: {ids[row.line]}")


def _check_same_axes(kernel: str, rows: list[Row], bindings: dict[int, Binding]) -> None:
    # One OperationSpec per kernel: every row must bind the same axes (else declare the kernel).
    shapes = {tuple(sorted(bindings[row.line].axes)): row.line for row in rows if row.kernel == kernel}
    if len(shapes) > 1:
        detail = "; ".join(f"line {line}: {', '.join(axes)}" for axes, line in sorted(shapes.items(), key=lambda i: i[1]))
        raise ImporterError(f"{kernel} rows bind different axes ({detail}): declare it in site_builder/importers/liger_catalog.py")


def _validate(plan: Plan) -> None:
    """Every planned document against its schema, so a mapping slip fails here, not in validate."""
    for path, document in plan.documents.items():
        try:
            model_for(document["kind"]).model_validate(document)
        except ValueError as error:
            raise ImporterError(f"{path}: the importer built an invalid document: {error}") from None


def import_liger(csv_path: Path, data_dir: Path) -> Report:
    rows = read_rows(csv_path)
    _check_required(rows, data_dir)
    plan = plan_import(rows, data_dir)
    report = apply(plan, data_dir, prune_under=("kernels", "workloads", "implementations", RUN_FOLDER))
    report.notes.extend(
        f"undeclared kernel {kernel}: imported as kernels/{operation_name(kernel)}.yaml (awaiting a declaration); "
        f"declare its tensors there and add it to site_builder/importers/liger_catalog.py"
        for kernel in undeclared_kernels(rows))
    return report
