"""Results -> run files (and the protocol, environment, workload and implementation files they name).

A run file's name depends only on what was measured where (implementation, workload, protocol,
environment), never on when: re-running a sweep on the same environment rewrites the same files,
and the same results always give byte-identical files. Runs live under
``data/runs/kernelindex-harness/<kernel>/``.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .plan import HARNESS_SOURCE, PROTOCOL_BASE, Plan, SuiteRef, Task, TimingOptions, protocol_name
from .stats import suite_mean_ns, summary_ns
from .run_yaml import dump, write_if_changed

API_VERSION = "kernelindex.dev/v1alpha1"
RUN_FOLDER = Path("runs") / HARNESS_SOURCE
HEADER = "Written by `kernelindex bench` (harness/). Re-running the same measurement rewrites this file."
STATISTICS = ("median", "mean", "minimum", "maximum", "p20", "p80")
# Peer package versions recorded on runs (as the Liger importer records liger_version).
# implementation key -> (label, version key in the worker's versions)
VERSION_LABELS = {"liger": ("liger_version", "liger"), "transformers": ("transformers_version", "transformers"),
                  "torch-compile": ("torch_version", "torch")}


@dataclass
class Measured:
    """One task's result with where it was measured."""

    task: Task
    result: dict
    environment: str          # ExecutionEnvironment name
    device: int | None = None  # physical GPU index that measured it
    labels: dict = field(default_factory=dict)


# ------------------------------------------------------------------------------------------------
# Names


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-.")


def _fit(name: str, key: str, limit: int = 100) -> str:
    """Slugs are at most 100 characters: shorten long ones and keep them unique with a hash."""
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(key.encode()).hexdigest()[:8]
    return name[: limit - 9].rstrip("-._") + "-" + digest


def _short_workload(kernel: str, workload: str) -> str:
    return workload[len(kernel) + 1:] if workload.startswith(kernel + "-") else workload


def _short_environment(environment: str) -> str:
    for prefix in ("kernelindex-nvidia-", "kernelindex-"):
        if environment.startswith(prefix):
            return environment[len(prefix):]
    return environment


# Short kernel names keep run names readable within the 100-character slug limit.
KERNEL_SHORT = {"fused-neighborhood-attention": "fna", "multimodal-rotary-embedding-attention": "mrope-attn"}


def _short_implementation(kernel: str, implementation: str) -> str:
    return implementation[: -len(kernel) - 1] if implementation.endswith("-" + kernel) else implementation


def protocol_suffix(timed_pass: str, cuda_graph: bool) -> str:
    return timed_pass + ("-cudagraph" if cuda_graph else "")


def run_name(implementation: str, kernel: str, workload: str, timed_pass: str, cuda_graph: bool, environment: str,
             variant: str = "") -> str:
    parts = [KERNEL_SHORT.get(kernel, kernel), _short_implementation(kernel, implementation), _short_workload(kernel, workload),
             protocol_suffix(timed_pass, cuda_graph), *([variant] if variant else []), _short_environment(environment)]
    key = [kernel, implementation, workload, timed_pass, str(cuda_graph), environment, *([variant] if variant else [])]
    return _fit(_slug("-".join(parts)), "/".join(key))


def external_id(kernel: str, workload: str, implementation: str, protocol: str, environment: str, variant: str = "") -> str:
    return "/".join([kernel, workload, implementation, protocol, environment, *([variant] if variant else [])])


def precision_block(task: Task, torch_tf32: bool = False) -> dict[str, Any]:
    """The run's declared arithmetic (``kernels.precision``); torch's global TF32 switch adds TF32."""
    from kernels.precision import reduced_precision

    modes, where = reduced_precision(task.kernel, task.impl, task.timed_pass, task.dtype, task.variant)
    if torch_tf32 and task.dtype == "float32" and "tf32" not in modes:
        modes, where = (*modes, "tf32"), "; ".join(filter(None, [where, "torch matrix products (global TF32 switch on)"]))
    block: dict[str, Any] = {"reducedModes": sorted(set(modes))}
    if where:
        block["notes"] = where[0].upper() + where[1:] + "."
    return block


def run_path(root: Path, kernel: str, name: str) -> Path:
    return Path(root) / RUN_FOLDER / kernel / f"{name}.yaml"


# ------------------------------------------------------------------------------------------------
# Run bodies


def _correctness(task: Task, result: dict, rule: str) -> dict[str, Any] | None:
    check = result.get("correctness") or {}
    if result["status"] in ("runtime_error", "compile_error", "resource_exceeded", "invalid_reference"):
        block: dict[str, Any] = {"comparator": "allclose"}
    else:
        block = {"comparator": "allclose"}
        if check.get("max_abs") is not None:
            block["maximumAbsoluteError"] = float(check["max_abs"])
        if check.get("max_rel") is not None:
            block["maximumRelativeError"] = float(check["max_rel"])
    if check.get("inputs_unmodified") is not None:
        block["inputsUnmodified"] = bool(check["inputs_unmodified"])
    notes = [f"Against the same-dtype PyTorch reference, {rule}."] + list(result.get("notes") or [])
    block["notes"] = " ".join(note if note.endswith(".") else note + "." for note in notes)[:2000]
    return block


def _timing(samples: list[int]) -> tuple[dict, dict]:
    stats = summary_ns(samples)
    latency = {key: stats[key] for key in STATISTICS}
    return {"primaryStatistic": "median", "latencyNs": latency, "samples": stats["count"]}, stats


_CLOCK_METRICS = {"sm_mhz": "sm_clock_mhz", "memory_mhz": "memory_clock_mhz", "temperature_c": "temperature_c"}


def _clock_metrics(clocks: dict) -> dict[str, float]:
    """SM/memory clocks and temperature read just before and just after the timed samples."""
    metrics: dict[str, float] = {}
    for when in ("before", "after"):
        for key, value in (clocks.get(when) or {}).items():
            if key in _CLOCK_METRICS and value is not None:
                metrics[f"{_CLOCK_METRICS[key]}_{when}"] = float(value)
    return metrics


def _host_metrics(host: dict | None) -> dict[str, float]:
    """How the host was hidden: the spin before each sample (µs), the call's host enqueue time (µs)
    and how many samples were still host-bound (see harness.timing)."""
    if not host:
        return {}
    return {"host_spin_us": float(host["hide_host_us"]), "host_enqueue_us": float(host.get("host_enqueue_us") or 0.0),
            "host_bound_samples": float(host["host_bound_samples"])}


def _significant(value: float, digits: int = 4) -> float:
    return float(f"{value:.{digits}g}")


def run_file(measured: Measured, *, rule: str, work: dict | None = None, title_kernel: str | None = None) -> dict[str, Any]:
    """The BenchmarkRun for one measurement. ``work``: {"bytes": ..., "flops": ...} of the forward pass."""
    task, result, environment = measured.task, measured.result, measured.environment
    protocol = task.protocol
    name = run_name(task.implementation, task.kernel, task.workload, task.timed_pass, task.cuda_graph, environment,
                    task.variant)
    labels = dict(measured.labels)
    if measured.device is not None:
        labels["gpu_index"] = str(measured.device)
    metadata: dict[str, Any] = {
        "name": name,
        "title": f"{title_kernel or task.kernel} · {task.implementation} · {protocol_suffix(task.timed_pass, task.cuda_graph)}"
                 + (f" · {task.variant}" if task.variant else ""),
    }
    if labels:
        metadata["labels"] = dict(sorted(labels.items()))
    spec: dict[str, Any] = {
        "implementation": task.implementation,
        "workload": task.workload,
        "protocol": protocol,
        "environment": environment,
        "status": result["status"],
    }
    metrics: dict[str, float] = {}
    samples = result.get("samples_ns")
    if samples:
        timing, stats = _timing(samples)
        spec["timing"] = timing
        measurements = []
        if work and task.timed_pass == "forward":
            seconds = stats["median"] * 1e-9
            if work.get("bytes"):
                measurements.append({"metric": "bandwidth", "statistic": "median", "unit": "GB/s",
                                     "value": _significant(work["bytes"] / seconds / 1e9)})
                metrics["bytes_moved"] = float(work["bytes"])
            if work.get("flops"):
                measurements.append({"metric": "throughput", "statistic": "median", "unit": "TFLOP/s",
                                     "value": _significant(work["flops"] / seconds / 1e12)})
                metrics["flops"] = float(work["flops"])
        if measurements:
            spec["measurements"] = measurements
    metrics.update(_clock_metrics(result.get("clocks") or {}))
    metrics.update(_host_metrics(result.get("host")))
    if measured.device is not None:
        metrics["device_index"] = float(measured.device)
    spec["sourceNative"] = {
        "source": HARNESS_SOURCE,
        "benchmark": f"{task.kernel}/{protocol_suffix(task.timed_pass, task.cuda_graph)}",
        "externalId": external_id(task.kernel, task.workload, task.implementation, protocol, environment, task.variant),
        "metrics": dict(sorted(metrics.items())),
    }
    spec["correctness"] = _correctness(task, result, rule)
    if samples:
        spec["evidence"] = {"rawSamplesNs": list(samples)}
    spec["precision"] = precision_block(task, bool(result.get("torch_tf32")))
    spec["observedAt"] = result["observed_at"]
    return {"apiVersion": API_VERSION, "kind": "BenchmarkRun", "metadata": metadata, "spec": spec}


def suite_run_file(suite: SuiteRef, members: list[Measured], *, rule: str, title_kernel: str | None = None) -> dict[str, Any] | None:
    """The suite-mean run of one implementation and protocol: the mean of the cases' medians.

    Only when every case of the suite was measured in this sweep; a failed case makes the suite
    run fail with the case's status (and no latency), so a partial mean never poses as the suite's."""
    by_case = {m.task.workload: m for m in members}
    if any(case not in by_case for case in suite.cases):
        return None
    ordered = [by_case[case] for case in suite.cases]
    first = ordered[0]
    task, environment = first.task, first.environment
    if any(m.environment != environment for m in ordered):
        return None  # cases measured on GPUs whose environments differ: no honest mean
    statuses = [m.result["status"] for m in ordered]
    bad = [(m.task.workload, m.result["status"]) for m in ordered if m.result["status"] not in ("passed", "policy_violation")]
    status = bad[0][1] if bad else ("policy_violation" if "policy_violation" in statuses else "passed")
    protocol = task.protocol
    name = run_name(task.implementation, task.kernel, suite.suite, task.timed_pass, task.cuda_graph, environment,
                    task.variant)
    spec: dict[str, Any] = {"implementation": task.implementation, "workload": suite.suite, "protocol": protocol,
                            "environment": environment, "status": status}
    medians = [summary_ns(m.result["samples_ns"])["median"] for m in ordered if m.result.get("samples_ns")]
    if not bad and len(medians) == len(ordered):
        spec["timing"] = {"primaryStatistic": "mean", "latencyNs": {"mean": suite_mean_ns(medians)}, "samples": len(medians)}
    devices = sorted({m.device for m in ordered if m.device is not None})
    metrics = {"cases": float(len(ordered)), "cases_passed": float(statuses.count("passed"))}
    spec["sourceNative"] = {"source": HARNESS_SOURCE, "benchmark": f"{task.kernel}/{protocol_suffix(task.timed_pass, task.cuda_graph)}/suite",
                            "externalId": external_id(task.kernel, suite.suite, task.implementation, protocol, environment,
                                                      task.variant),
                            "metrics": metrics}
    errors_abs = [m.result["correctness"].get("max_abs") for m in ordered if (m.result.get("correctness") or {}).get("max_abs") is not None]
    errors_rel = [m.result["correctness"].get("max_rel") for m in ordered if (m.result.get("correctness") or {}).get("max_rel") is not None]
    unmodified = [m.result["correctness"].get("inputs_unmodified") for m in ordered]
    correctness: dict[str, Any] = {"comparator": "allclose"}
    if errors_abs and len(errors_abs) == len(ordered):
        correctness["maximumAbsoluteError"] = float(max(errors_abs))
        correctness["maximumRelativeError"] = float(max(errors_rel))
    if all(u is not None for u in unmodified):
        correctness["inputsUnmodified"] = all(unmodified)
    note = f"Mean over the suite's {len(ordered)} cases of each case's median (each case its own run); every case against the same-dtype PyTorch reference, {rule}."
    if bad:
        note += " Failed cases: " + ", ".join(f"{case} ({state})" for case, state in bad) + "."
    correctness["notes"] = note[:2000]
    spec["correctness"] = correctness
    spec["precision"] = precision_block(task, any(m.result.get("torch_tf32") for m in ordered))
    spec["observedAt"] = max(m.result["observed_at"] for m in ordered)
    labels = {"cases_on_gpus": ",".join(str(d) for d in devices)} if devices else {}
    for m in ordered:
        labels.update({k: v for k, v in m.labels.items() if k.endswith("_version")})
    metadata: dict[str, Any] = {"name": name, "title": f"{title_kernel or task.kernel} · {task.implementation} · "
                                                       f"{protocol_suffix(task.timed_pass, task.cuda_graph)} · suite mean"}
    if labels:
        metadata["labels"] = dict(sorted(labels.items()))
    return {"apiVersion": API_VERSION, "kind": "BenchmarkRun", "metadata": metadata, "spec": spec}


# ------------------------------------------------------------------------------------------------
# Protocols


def protocol_file(timed_pass: str, cuda_graph: bool, timing: TimingOptions | None = None) -> dict[str, Any]:
    timing = timing or TimingOptions()
    name = protocol_name(timed_pass, cuda_graph)
    what = {"forward": "the forward call", "backward": "the backward call (gradients of every input from fixed "
            "upstream gradients)", "full": "the forward call followed by the backward call"}[timed_pass]
    how = ("each sample is one replay of a CUDA graph captured from the call (launch overhead removed)" if cuda_graph
           else "each sample is one call bracketed by two CUDA events on the current stream")
    notes = (
        f"Timed: {what}. {how[0].upper() + how[1:]}; before every sample the L2 cache is flushed by writing a buffer of "
        f"max(256 MiB, 4x L2) outside the timed region, then a GPU spin of at least {timing.hide_host_us:g} µs and "
        f"{timing.spin_over_host:g}x the call's host enqueue time keeps the GPU busy while the host launches the call, so the "
        f"events bracket device time only; a sample whose start event the GPU had already passed when the call was "
        f"enqueued is host-bound, and while more than {timing.host_bound_rel:.0%} are, the measurement is repeated with "
        f"twice the spin (up to {timing.max_hide_host_us / 1000:g} ms); the spin used and the host-bound count are "
        f"recorded on each run. {timing.warmup} untimed warm-up calls first (compilation and "
        f"autotuning are never timed). Samples: enough to fill about {timing.target_ms:g} ms of GPU time, at least "
        f"{timing.min_reps} and at most {timing.max_reps} per round; up to {timing.max_rounds} rounds, until the "
        f"median's distribution-free 95% interval is within {timing.stable_rel:.0%} of it. Primary statistic: median; "
        f"p20, p80, mean, min and max are recorded, the raw samples kept as evidence. Correctness is checked before "
        f"timing against the bundled PyTorch reference in the same dtype (kernels/tolerances.py), with outputs "
        f"poisoned with NaN and inputs compared bit for bit after the call; an implementation that writes its inputs "
        f"is recorded as a policy violation (timed with its inputs restored before each sample, never ranked). "
        f"Every implementation is measured side by side in one process on one GPU.")
    return {
        "apiVersion": API_VERSION, "kind": "BenchmarkProtocol",
        "metadata": {
            "name": name,
            "title": f"KernelIndex harness v1 · {timed_pass} pass" + (" · CUDA graph replay" if cuda_graph else ""),
            "labels": {"pass": timed_pass},
        },
        "spec": {
            "harness": {"name": "KernelIndex harness", "version": "1", "repository": "https://github.com/kernelindex/kernelindex"},
            "measurement": {
                "timer": "cuda_graph_replay_events" if cuda_graph else "cuda_events",
                "primaryStatistic": "median",
                "synchronization": "cuda_events",
                "warmupIterations": timing.warmup,
                "measuredIterations": timing.min_reps,
                "cacheFlush": "l2_buffer_write",
                "cudaGraph": cuda_graph,
                "timedPass": timed_pass,
            },
            "comparability": {"family": PROTOCOL_BASE.replace("-", "_"), "notes": notes},
        },
    }


# ------------------------------------------------------------------------------------------------
# Writing everything


@dataclass
class WriteReport:
    written: list[Path] = field(default_factory=list)     # created or changed
    unchanged: list[Path] = field(default_factory=list)
    runs: list[Path] = field(default_factory=list)


def _write(path: Path, body: dict, report: WriteReport, header: str | None = HEADER) -> None:
    changed = write_if_changed(path, dump(body, path, header=header))
    (report.written if changed else report.unchanged).append(path)


def write_sweep(root: Path, plan: Plan, measured: list[Measured], environments: dict[str, dict], *,
                rules: dict[tuple[str, str], str], work: dict[str, dict] | None = None,
                titles: dict[str, str] | None = None, existing: set[tuple[str, str]] | None = None) -> WriteReport:
    """Write every file the sweep's runs need into ``root`` (a data folder).

    ``environments``: name -> ExecutionEnvironment body (written only if missing);
    ``rules``: (kernel, dtype) -> tolerance text; ``work``: task key -> bytes/flops;
    ``existing``: (kind folder, name) pairs already present (protocols, workloads, implementations)."""
    root = Path(root)
    report = WriteReport()
    existing = existing or set()

    def missing(folder: str, name: str, path: Path) -> bool:
        return (folder, name) not in existing and not path.exists()

    used_protocols = sorted({(m.task.timed_pass, m.task.cuda_graph) for m in measured})
    for timed_pass, graph in used_protocols:
        name = protocol_name(timed_pass, graph)
        path = root / "protocols" / f"{name}.yaml"
        if missing("protocols", name, path):
            # The protocol states the harness's policy (the defaults), whatever a test run overrode.
            _write(path, protocol_file(timed_pass, graph), report, header=None)
    for name, body in sorted(environments.items()):
        path = root / "environments" / f"{name}.yaml"
        if missing("environments", name, path):
            _write(path, body, report, header=None)
    used_workloads = {m.task.workload for m in measured}
    for name, body in sorted(plan.new_workloads.items()):
        path = root / "workloads" / body["spec"]["operation"] / f"{name}.yaml"
        if name in used_workloads and missing("workloads", name, path):
            _write(path, body, report, header=None)
    used_implementations = {m.task.implementation for m in measured}
    for name, body in sorted(plan.new_implementations.items()):
        path = root / "implementations" / f"{name}.yaml"
        if name in used_implementations and missing("implementations", name, path):
            _write(path, body, report, header=None)
    for m in sorted(measured, key=lambda m: m.task.key):
        body = run_file(m, rule=rules[(m.task.kernel, m.task.dtype)], work=(work or {}).get(m.task.key),
                        title_kernel=(titles or {}).get(m.task.kernel))
        path = run_path(root, m.task.kernel, body["metadata"]["name"])
        _write(path, body, report)
        report.runs.append(path)
    for suite in plan.suites:
        groups: dict[tuple, list[Measured]] = {}
        for m in measured:
            if m.task.kernel == suite.kernel and m.task.workload in suite.cases:
                groups.setdefault((m.task.implementation, m.task.timed_pass, m.task.cuda_graph, m.task.variant, m.environment),
                                  []).append(m)
        for members in groups.values():
            dtype = members[0].task.dtype
            body = suite_run_file(suite, members, rule=rules[(suite.kernel, dtype)], title_kernel=(titles or {}).get(suite.kernel))
            if body is None:
                continue
            path = run_path(root, suite.kernel, body["metadata"]["name"])
            _write(path, body, report)
            report.runs.append(path)
    return report
