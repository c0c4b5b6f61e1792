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
import math
import re
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any

from schemas.common import API_VERSION, SLUG_MAX, format_utc
from schemas.kinds import model_for

from .liger_catalog import SWEEP_KEYS, TORCH_DTYPES, LigerKernel, entry
from .liger_inputs import CsvInput, Snapshot, discover
from .liger_splits import Split, read_splits, split_for
from .output import ImporterError, Plan, Report, apply, read_document

IMPORTER = "kernelindex import liger"
# semantics.expression of an undeclared kernel: the prefix, then the source benchmark it stands for.
UNDECLARED_PREFIX = "undeclared: "
SOURCE = "liger-kernel-bench"
RUN_FOLDER = f"runs/{SOURCE}"
# Rows only Liger's gh-pages branch published (its per-commit CI runs): their own source and folder.
HISTORY_SOURCE = "liger-kernel-gh-pages"

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
    mode: str  # forward, backward, full, no-grad-forward (or a mode Liger adds later)
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
    path: str = ""  # the file it was first read from (for messages)
    key: int = 0  # unique among the rows of one import (lines repeat across files)
    # Every gh-pages snapshot that published this very measurement, oldest first; empty for a
    # row of a curated file only (all_benchmark_data.csv).
    snapshots: tuple[Snapshot, ...] = field(default=(), compare=False, hash=False)
    in_curated: bool = True  # published in a curated file (its run keeps that file's name and source)

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


KNOWN_MODES = ("forward", "backward", "full", "no-grad-forward")
MODE = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
METRICS = (("speed", "ms"), ("memory", "MB"))


@dataclass(frozen=True)
class Unmapped:
    """A well-formed row the importer cannot map to a run yet: what must be declared first."""

    where: str
    reason: str


def read_rows(path: Path) -> list[Row]:
    """Every data row of one CSV; a row that cannot be mapped is an error here (see read_inputs)."""
    rows, unmapped = _read_file(path, path.as_posix(), start_key=0)
    if unmapped:
        raise ImporterError(f"{unmapped[0].where}: {unmapped[0].reason}")
    return rows


def _read_file(path: Path, shown: str, start_key: int) -> tuple[list[Row], list[Unmapped]]:
    rows: list[Row] = []
    unmapped: list[Unmapped] = []
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header != HEADER:
            raise ImporterError(f"{shown}:1: not a Liger-Kernel benchmark CSV (expected the header {','.join(HEADER)})")
        for line, fields in enumerate(reader, start=2):
            if not fields:
                continue  # a blank line (a trailing newline too many) holds no row
            row = _row(shown, line, fields, start_key + len(rows))
            if isinstance(row, Unmapped):
                unmapped.append(row)
            else:
                rows.append(row)
    return rows, unmapped


def _row(path: str, line: int, fields: list[str], key: int) -> Row | Unmapped:
    """One row; malformed content raises (file:line), content not mapped yet comes back as Unmapped."""
    where = f"{path}:{line}"
    if len(fields) != len(HEADER):
        raise ImporterError(f"{where}: {len(fields)} columns, expected {len(HEADER)}")
    value = dict(zip(HEADER, fields))
    try:
        config = json.loads(value["extra_benchmark_config_str"])
        y50, y20, y80 = (float(value[f"y_value_{q}"]) for q in (50, 20, 80))
        datetime.strptime(value["timestamp"], "%Y-%m-%d %H:%M:%S")
    except ValueError as error:
        raise ImporterError(f"{where}: {error}") from None
    if not isinstance(config, dict):
        raise ImporterError(f"{where}: extra_benchmark_config_str is not a JSON object")
    if not (0 < y20 <= y50 <= y80) or not all(map(math.isfinite, (y20, y50, y80))):
        raise ImporterError(f"{where}: quantiles must satisfy 0 < y_20 <= y_50 <= y_80")
    for column in ("kernel_name", "kernel_provider", "x_name", "gpu_name"):
        if not value[column].strip():
            raise ImporterError(f"{where}: {column} is empty")
    if not MODE.match(value["kernel_operation_mode"]):
        raise ImporterError(f"{where}: mode {value['kernel_operation_mode']!r} is not a word")
    if (value["metric_name"], value["metric_unit"]) not in METRICS:
        return Unmapped(where, f"metric {value['metric_name']}/{value['metric_unit']} has no mapping")
    x_value = _integer(value["x_value"])
    if x_value is None:
        return Unmapped(where, f"x value {value['x_value']!r} ({value['x_name']}) is not an integer")
    return Row(
        line=line, kernel=value["kernel_name"], provider=value["kernel_provider"],
        mode=value["kernel_operation_mode"], metric=value["metric_name"], x_name=value["x_name"],
        x_value=x_value, y50=y50, y20=y20, y80=y80, config_text=value["extra_benchmark_config_str"],
        config=config, gpu=value["gpu_name"], timestamp=value["timestamp"], liger_version=value["liger_version"],
        path=path, key=key,
    )


def _integer(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return None
    return int(number) if math.isfinite(number) and number == int(number) else None


@dataclass
class Reading:
    """What the inputs hold: distinct rows, and what was set aside."""

    rows: list[Row]
    published: int  # data rows read, duplicates included
    unmapped: list[Unmapped]
    files: int


def _identity(row: Row) -> tuple:
    # "The same measurement" (see CONTRIBUTING): every column equal, the timestamp and the three
    # quantiles included. Liger's own key plus the timestamp never maps to two different values in
    # the published files, so this is the key Liger de-duplicates on, made exact.
    return (row.kernel, row.provider, row.mode, row.metric, row.x_name, row.x_value, row.y50, row.y20, row.y80,
            row.config_text, row.gpu, row.timestamp, row.liger_version)


def read_inputs(inputs: list[CsvInput], progress: Callable[[int, int, str], None] | None = None) -> Reading:
    """Every distinct measurement of the inputs, each with the snapshots that published it."""
    first: dict[tuple, Row] = {}
    snapshots: dict[tuple, list[Snapshot]] = defaultdict(list)
    curated: set[tuple] = set()
    unmapped: list[Unmapped] = []
    published = 0
    for number, item in enumerate(inputs, start=1):
        shown = item.snapshot.path if item.snapshot else item.path.as_posix()
        rows, skipped = _read_file(item.path, shown, start_key=published)
        published += len(rows) + len(skipped)
        unmapped.extend(skipped)
        for row in rows:
            identity = _identity(row)
            first.setdefault(identity, row)
            if item.snapshot is None:
                curated.add(identity)
            elif item.snapshot not in snapshots[identity]:
                snapshots[identity].append(item.snapshot)
        if progress:
            progress(number, len(inputs), shown)
    distinct = [replace(row, snapshots=tuple(snapshots[identity]), in_curated=identity in curated)
                for identity, row in first.items()]
    return Reading(rows=distinct, published=published, unmapped=unmapped, files=len(inputs))


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
    # Rows only the gh-pages snapshots hold ran in Liger's CI benchmark workflow (every script, on
    # one host, at each commit): a protocol of their own, so a weekly series is never ranked
    # against the one-off runs of all_benchmark_data.csv (the seeds' groups stay as they are).
    prefix = "liger-bench" if row.in_curated else "liger-ci"
    if row.metric == "speed":
        return f"{prefix}-do-bench-{row.mode}"
    return f"{prefix}-memory" if row.mode == "full" else f"{prefix}-memory-{row.mode}"


def split_protocol(row: Row, splits: dict[tuple[str, str], Split]) -> str | None:
    """The protocol version the row is on when its benchmark changed meaning (see liger_splits)."""
    return split_for(protocol_name(row), row.kernel, row.snapshots, splits)


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
    # Liger's kernel with fp32 accumulation (gh-pages rows from 2025-10 on).
    "liger-fp32-accum": _liger("liger-fp32-accum", "Liger (fp32 accumulation)"),
}


def provider(row: Row) -> Provider:
    """The row's provider; one not in PROVIDERS yet is guessed from its name and marked undeclared:
    a ``liger…`` name is a Liger variant, anything else a project of its own (a placeholder file)."""
    known = PROVIDERS.get(row.provider)
    if known is not None:
        return known
    if row.provider.startswith("liger"):
        return _liger(slugify(row.provider), f"Liger ({row.provider})")
    return Provider(slugify(row.provider), row.provider, slugify(row.provider), "unknown", "NOASSERTION")


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


def run_document(row: Row, binding: Binding, name: str, operation_title: str, workload: str,
                 protocol: str | None = None, external: str | None = None) -> dict[str, Any]:
    unit = "ms" if row.metric == "speed" else "mb"
    what = row.mode if row.metric == "speed" else f"peak memory ({row.mode})"
    labels = {
        "liger_version": row.liger_version,
        # With the config kept verbatim, the row's own key (Liger de-duplicates on kernel,
        # provider, mode, metric, x, config and GPU) can be rebuilt from the run.
        "liger_x": f"{row.x_name}={row.x_value}",
        "liger_config": row.config_text,
        **snapshot_labels(row.snapshots),
    }
    metadata = {"name": name, "title": f"{operation_title} · {row.provider} · {what}", "labels": labels}
    spec = {
        "implementation": implementation_name(row),
        "workload": workload,
        "protocol": protocol or protocol_name(row),
        "environment": environment_name(row),
        "status": "passed",
        **_result(row),
        "sourceNative": {
            "source": run_source(row),
            "benchmark": f"{row.kernel}/{mode_segment(row)}",
            "externalId": external or external_id(row, binding),
            "metrics": {f"{unit}_20": row.y20, f"{unit}_50": row.y50, f"{unit}_80": row.y80},
        },
        "observedAt": observed_at(row),
    }
    return _envelope("BenchmarkRun", metadata, spec)


LABEL_MAX = 300


def snapshot_labels(snapshots: tuple[Snapshot, ...]) -> dict[str, str]:
    """Where a measurement came from: the gh-pages snapshot that first published it (folder, source
    commit, release, publication time) and any later snapshot that published it again."""
    if not snapshots:
        return {}
    first = snapshots[0]
    labels = {"liger_snapshot": first.label, "liger_commit": first.commit}
    if first.release:
        labels["liger_release"] = first.release
    if first.published:
        labels["liger_published"] = first.published
    if len(snapshots) > 1:
        again = " ".join(snapshot.label for snapshot in snapshots[1:])
        labels["liger_republished"] = again if len(again) <= LABEL_MAX else f"{len(snapshots) - 1} later snapshots"
    return labels


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
    needed = set()
    for row in rows:
        needed.add(f"sources/{run_source(row)}.yaml")
        needed.add(f"protocols/{protocol_name(row)}.yaml")
        needed.add(f"environments/{environment_name(row)}.yaml")
        needed.add(f"projects/{provider(row).project}.yaml")
        declared = entry(row.kernel)
        if declared:
            needed.add(f"kernels/{declared.operation}.yaml")
    return sorted(needed)


# What may be new in a later gh-pages file and gets a placeholder (marked "needs declaring") rather
# than stopping the import: the folder of each kind of file.
PLACEHOLDER_FOLDERS = ("protocols", "environments", "projects")


def placeholder_document(path: str, rows: list[Row]) -> dict[str, Any]:
    """A protocol, environment or project the rows need and nobody has written yet: the least that
    is true about it, labelled so that pages and people see it still needs declaring."""
    folder, name = path.split("/")[0], path.split("/")[-1].removesuffix(".yaml")
    note = (f"Written by `{IMPORTER}` because Liger rows refer to it and no file declared it. "
            "Replace it with a hand-written file (without the generated_by label).")
    metadata: dict[str, Any] = {"name": name, "title": name, "description": note, "labels": {"declared": "no"}}
    if folder == "protocols":
        row = next(r for r in rows if protocol_name(r) == name)
        metadata["labels"]["pass"] = row.mode
        spec: dict[str, Any] = {
            "harness": {"name": "Liger-Kernel benchmark scripts", "repository": "https://github.com/linkedin/Liger-Kernel"},
            "measurement": {"timer": "cuda_events" if row.metric == "speed" else "allocator_peak",
                            "primaryStatistic": "median"},
            "comparability": {"family": "liger_kernel_bench",
                              "notes": f"Liger mode {row.mode!r}, metric {row.metric}: not described yet."},
        }
        return _envelope("BenchmarkProtocol", metadata, spec)
    if folder == "environments":
        gpu = next(r.gpu for r in rows if environment_name(r) == name)
        metadata["title"] = f"Liger benchmark host · {gpu}"
        vendor = gpu.split()[0].lower() if gpu.split() else "unknown"
        spec = {"hardware": {"vendor": slugify(vendor) or "unknown", "product": gpu, "architecture": "unknown"},
                "software": {}}
        return _envelope("ExecutionEnvironment", metadata, spec)
    row = next(r for r in rows if provider(r).project == name)
    return _envelope("SoftwareProject", metadata, {"name": row.provider})


def _missing(rows: list[Row], data_dir: Path) -> list[str]:
    return [path for path in required_files(rows) if not (data_dir / path).is_file()]


def _check_required(rows: list[Row], data_dir: Path) -> None:
    missing = [path for path in _missing(rows, data_dir) if path.split("/")[0] not in PLACEHOLDER_FOLDERS]
    if missing:
        raise ImporterError(f"{data_dir}: hand-written files the runs refer to are missing: {', '.join(missing)}")


def run_source(row: Row) -> str:
    """A row of a curated file keeps that file's source; a row only gh-pages published has its own."""
    return SOURCE if row.in_curated else HISTORY_SOURCE


def run_folder(row: Row) -> str:
    return f"runs/{run_source(row)}"


def _run_names(rows: list[Row], ids: dict[int, str]) -> dict[int, str]:
    """Run names from the external id without its time; rows that would share one get their time too.

    Names are decided among the rows of one source: a curated file's runs keep the names they had
    before any history was imported, and every gh-pages run (a series over many snapshots) carries
    its time.
    """
    base = {row.key: "liger-" + slugify(ids[row.key].rsplit("/", 1)[0]) for row in rows}
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for row in rows:
        counts[(run_source(row), base[row.key])] += 1
    names = {}
    for row in rows:
        name = base[row.key]
        if not row.in_curated or counts[(run_source(row), name)] > 1:
            name += "-" + slugify(ids[row.key].rsplit("/", 1)[1])
        names[row.key] = bounded(name, ids[row.key])
    return names


def _operation_titles(rows: list[Row], data_dir: Path) -> dict[str, str]:
    titles = {}
    for kernel in {row.kernel for row in rows}:
        existing = read_document(data_dir / "kernels" / f"{operation_name(kernel)}.yaml")
        title = (existing or {}).get("metadata", {}).get("title")
        titles[kernel] = title or kernel_title(kernel)
    return titles


@dataclass
class Outcome:
    """What an import did beyond writing: rows set aside, placeholders, duplicates."""

    published: int = 0  # rows read, duplicates included
    distinct: int = 0  # distinct measurements
    files: int = 0
    unmapped: list[Unmapped] = field(default_factory=list)
    placeholders: list[str] = field(default_factory=list)  # files written because nobody declared them yet
    generated_kernels: list[str] = field(default_factory=list)  # kernels with a generated (undeclared) spec
    splits: dict[str, int] = field(default_factory=dict)  # protocol version -> runs on it
    guessed_providers: list[str] = field(default_factory=list)  # providers not in PROVIDERS, mapped by their name

    def lines(self) -> list[str]:
        lines = [f"{self.files} file(s), {self.published} rows, {self.distinct} distinct measurements "
                 f"({self.published - self.distinct - len(self.unmapped)} published more than once)"]
        for name, count in sorted(self.splits.items()):
            lines.append(f"protocol version {name}: {count} runs")
        for name in self.guessed_providers:
            lines.append(f"needs declaring: provider {name!r} is not in PROVIDERS (mapped by its name)")
        for path in self.placeholders:
            lines.append(f"needs declaring: {path} (a placeholder was written)")
        reasons: dict[str, list[str]] = defaultdict(list)
        for item in self.unmapped:
            reasons[item.reason].append(item.where)
        for reason, where in sorted(reasons.items()):
            lines.append(f"not imported ({len(where)} row(s), e.g. {where[0]}): {reason}")
        return lines


def _bind_all(rows: list[Row], outcome: Outcome) -> tuple[list[Row], dict[int, Binding]]:
    """Each row's binding; a row the tables cannot bind is set aside as unmapped, not fatal."""
    bound, bindings = [], {}
    for row in rows:
        try:
            bindings[row.key] = bind(row)
        except ImporterError as error:
            outcome.unmapped.append(Unmapped(row.where, str(error).removeprefix(f"line {row.line}: ")))
            continue
        bound.append(row)
    return bound, bindings


def plan_import(rows: list[Row], data_dir: Path, outcome: Outcome | None = None) -> Plan:
    """Every document the rows call for, checked for clashes; writes nothing."""
    outcome = outcome if outcome is not None else Outcome()
    plan = Plan(IMPORTER)
    splits = read_splits(data_dir)
    rows, bindings = _bind_all(rows, outcome)
    rows = _same_axes(rows, bindings, outcome)
    rows = _check_declared_axes(rows, bindings, data_dir, outcome)
    ids = _unique_ids(rows, {row.key: external_id(row, bindings[row.key]) for row in rows})
    names = _run_names(rows, ids)
    titles = _operation_titles(rows, data_dir)
    workloads: dict[str, tuple] = {}
    origins: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    series: dict[tuple[str, ...], list[tuple[str, str, str]]] = defaultdict(list)
    for row in rows:
        binding, operation = bindings[row.key], operation_name(row.kernel)
        workload = workload_name(operation, row.kernel, binding)
        identity = (tuple(sorted(binding.all_axes.items())), binding.dtype, tuple(sorted(binding.settings.items())))
        if workloads.setdefault(workload, identity) != identity:
            raise ImporterError(f"{row.where}: workload name {workload} would stand for two different workloads")
        plan.add(f"workloads/{operation}/{workload}.yaml", workload_document(workload, operation, row.kernel, binding))
        plan.add(f"implementations/{implementation_name(row)}.yaml", implementation_document(row))
        protocol = split_protocol(row, splits) or protocol_name(row)
        if protocol != protocol_name(row):
            outcome.splits[protocol] = outcome.splits.get(protocol, 0) + 1
        run = run_document(row, binding, names[row.key], titles[row.kernel], workload, protocol, ids[row.key])
        path = f"{run_folder(row)}/{operation}/{names[row.key]}.yaml"
        plan.add(path, run)
        if not row.in_curated:
            series[(run["spec"]["implementation"], workload, protocol, run["spec"]["environment"])].append(
                (run["spec"]["observedAt"], names[row.key], path))
        for axis, origin in binding.origins.items():
            origins[row.kernel][axis].add(origin)
    _chain_series(plan, series)
    for kernel, kernel_origins in sorted(origins.items()):
        if entry(kernel) is None:
            plan.add(f"kernels/{operation_name(kernel)}.yaml", generated_operation(kernel, kernel_origins))
            outcome.generated_kernels.append(kernel)
    outcome.guessed_providers.extend(sorted({row.provider for row in rows if row.provider not in PROVIDERS}))
    for path in _missing(rows, data_dir):
        if path.split("/")[0] in PLACEHOLDER_FOLDERS:
            plan.add(path, placeholder_document(path, rows))
            outcome.placeholders.append(path)
    _validate(plan)
    return plan


def _check_declared_axes(rows: list[Row], bindings: dict[int, Binding], data_dir: Path,
                         outcome: Outcome) -> list[Row]:
    """A declared kernel's rows must bind exactly its variable axes, or its workloads would not load:
    a row that does not (a renamed config key the catalogue does not map yet) is set aside."""
    kept = []
    variables: dict[str, set[str] | None] = {}
    for row in rows:
        declared = entry(row.kernel)
        if declared is None:
            kept.append(row)
            continue
        if declared.operation not in variables:
            document = read_document(data_dir / "kernels" / f"{declared.operation}.yaml")
            axes = ((document or {}).get("spec") or {}).get("axes")
            # A missing or unreadable file is _check_required's (or validate's) to report.
            variables[declared.operation] = None if not isinstance(axes, dict) else {
                name for name, axis in axes.items() if isinstance(axis, dict) and axis.get("role") == "variable"}
        bound = set(bindings[row.key].all_axes)
        if variables[declared.operation] is not None and bound != variables[declared.operation]:
            outcome.unmapped.append(Unmapped(row.where, (
                f"{row.kernel} binds axes {', '.join(sorted(bound))} but "
                f"kernels/{declared.operation}.yaml declares the variable axes "
                f"{', '.join(sorted(variables[declared.operation] or ()))}: map them in liger_catalog.py")))
            continue
        kept.append(row)
    return kept


def undeclared_kernels(rows: list[Row]) -> list[str]:
    """The kernel names of ``rows`` the catalogue does not know: each needs a declaration."""
    return sorted({row.kernel for row in rows if entry(row.kernel) is None})


def _chain_series(plan: Plan, series: dict[tuple[str, ...], list[tuple[str, str, str]]]) -> None:
    """Each CI run supersedes the previous measurement of its series (same implementation, workload,
    protocol and GPU), so a comparison group ranks the latest snapshot and lists the older weeks as
    superseded; the history chart still shows every one."""
    for points in series.values():
        points.sort()
        for (_, previous, _), (_, _, path) in zip(points, points[1:]):
            plan.documents[PurePosixPath(path)]["spec"]["supersedes"] = previous


def _unique_ids(rows: list[Row], ids: dict[int, str]) -> dict[int, str]:
    """External ids, one per run: two different measurements that would share one (they differ only
    in a setting the id leaves out) each get 8 hex of their own row, so neither is lost."""
    holders: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        holders[ids[row.key]].append(row)
    unique = dict(ids)
    for external, sharing in holders.items():
        if len(sharing) > 1:
            for row in sharing:
                digest = hashlib.sha256(repr(_identity(row)).encode("utf-8")).hexdigest()[:8]
                unique[row.key] = f"{external}-{digest}"
    return unique


def _same_axes(rows: list[Row], bindings: dict[int, Binding], outcome: Outcome) -> list[Row]:
    """One OperationSpec per kernel, so every row of a generated kernel must bind the same axes: the
    rows of the shape most rows have are kept, the others set aside until liger_catalog.py declares the kernel."""
    shapes: dict[str, dict[tuple[str, ...], list[Row]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        if entry(row.kernel) is None:
            shapes[row.kernel][tuple(sorted(bindings[row.key].axes))].append(row)
    dropped: set[int] = set()
    for kernel, by_shape in shapes.items():
        if len(by_shape) < 2:
            continue
        kept = max(by_shape, key=lambda axes: (len(by_shape[axes]), axes))
        for axes, sharing in by_shape.items():
            if axes != kept:
                reason = (f"{kernel} binds axes {', '.join(axes)} where its other rows bind {', '.join(kept)}: "
                          "declare it in liger_catalog.py")
                outcome.unmapped.extend(Unmapped(row.where, reason) for row in sharing)
                dropped.update(row.key for row in sharing)
    return [row for row in rows if row.key not in dropped]


def _validate(plan: Plan) -> None:
    """Every planned document against its schema, so a mapping slip fails here, not in validate."""
    for path, document in plan.documents.items():
        try:
            model_for(document["kind"]).model_validate(document)
        except ValueError as error:
            raise ImporterError(f"{path}: the importer built an invalid document: {error}") from None


def _prune_folders(rows: list[Row], data_dir: Path) -> tuple[str, ...]:
    """Where files this import no longer plans are removed.

    Only the run folders of the sources this import read: importing all_benchmark_data.csv alone
    must not remove the history's runs. The shared folders (kernels, workloads, implementations)
    only when no other Liger source has runs left, since this plan does not cover what they use.
    """
    sources = {run_source(row) for row in rows}
    others = [data_dir / "runs" / other for other in sorted({SOURCE, HISTORY_SOURCE} - sources)]
    shared_safe = not any(folder.is_dir() and any(folder.rglob("*.yaml")) for folder in others)
    folders = tuple(f"runs/{source}" for source in sorted(sources))
    return (("kernels", "workloads", "implementations") if shared_safe else ()) + folders


def import_liger(paths: Path | list[Path], data_dir: Path,
                 progress: Callable[[int, int, str], None] | None = None) -> Report:
    report, _ = import_liger_with_outcome(paths, data_dir, progress)
    return report


def import_liger_with_outcome(paths: Path | list[Path], data_dir: Path,
                              progress: Callable[[int, int, str], None] | None = None) -> tuple[Report, Outcome]:
    """Read every input, plan every document (nothing written on any error), then write."""
    inputs = discover([paths] if isinstance(paths, Path) else list(paths))
    reading = read_inputs(inputs, progress)
    outcome = Outcome(published=reading.published, distinct=len(reading.rows), files=reading.files,
                      unmapped=list(reading.unmapped))
    _check_required(reading.rows, data_dir)
    plan = plan_import(reading.rows, data_dir, outcome)
    report = apply(plan, data_dir, prune_under=_prune_folders(reading.rows, data_dir))
    report.notes.extend(
        f"undeclared kernel {kernel}: imported as kernels/{operation_name(kernel)}.yaml (awaiting a declaration); "
        f"declare its tensors there and add it to site_builder/importers/liger_catalog.py"
        for kernel in outcome.generated_kernels)
    return report, outcome
