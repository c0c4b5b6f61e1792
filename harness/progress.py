"""What the user sees: one line per measurement while the sweep runs, a summary table at the end."""

from __future__ import annotations

from typing import Callable

from .plan import Plan, Task
from .stats import summary_ns


def format_ns(ns: float | None) -> str:
    if ns is None:
        return "-"
    if ns >= 1e6:
        return f"{ns / 1e6:.3f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def short_workload(task: Task) -> str:
    prefix = task.kernel + "-"
    return task.workload[len(prefix):] if task.workload.startswith(prefix) else task.workload


def pass_label(task: Task) -> str:
    return task.timed_pass + (" graph" if task.cuda_graph else "") + (f" {task.variant}" if task.variant else "")


def median_of(result: dict) -> int | None:
    samples = result.get("samples_ns")
    return summary_ns(samples)["median"] if samples else None


class Progress:
    """Prints ``[ 12/287] gpu1  llama4-rope  b1-s2048-…  liger  forward  policy_violation  81.30 µs``."""

    def __init__(self, total: int, echo: Callable[[str], None]):
        self.total, self.echo, self.done = total, echo, 0

    def result(self, task: Task, result: dict, device: int) -> None:
        self.done += 1
        width = len(str(self.total))
        where = f"gpu{device}" if device is not None and device >= 0 else "cpu"
        self.echo(f"[{self.done:>{width}}/{self.total}] {where:<5} {task.kernel:<24.24} {short_workload(task):<30.30} "
                  f"{task.impl:<18} {pass_label(task):<14} {result['status']:<19} {format_ns(median_of(result)):>11}")

    def incident(self, text: str) -> None:
        self.echo(f"!! {text}")


def plan_lines(plan: Plan) -> list[str]:
    lines = [f"{len(plan.tasks)} measurements"]
    by_kernel: dict[str, list[Task]] = {}
    for task in plan.tasks:
        by_kernel.setdefault(task.kernel, []).append(task)
    for kernel, tasks in by_kernel.items():
        workloads = sorted({t.workload for t in tasks})
        impls = list(dict.fromkeys(f"{t.impl} -> {t.implementation}" for t in tasks))
        passes = list(dict.fromkeys(t.timed_pass + (" graph" if t.cuda_graph else "") for t in tasks))
        lines.append(f"\n{kernel}: {len(tasks)} measurements = {len(workloads)} workloads x implementations x passes")
        lines.append("  passes: " + ", ".join(passes))
        lines.append("  implementations:")
        lines += [f"    {item}" for item in impls]
        variants = sorted({(t.impl, t.variant) for t in tasks if t.variant})
        if variants:
            lines.append("  precision variants (forward, each a run of its own): "
                         + ", ".join(f"{impl} {variant}" for impl, variant in variants))
        lines.append("  workloads:")
        lines += [f"    {w}" for w in workloads]
    for suite in plan.suites:
        lines.append(f"\nsuite {suite.suite}: {len(suite.cases)} cases, a suite-mean run per implementation and pass")
    if plan.new_workloads or plan.new_implementations:
        lines.append("\nfiles the sweep adds to data/ (missing there):")
        lines += [f"  workloads/{body['spec']['operation']}/{name}.yaml" for name, body in sorted(plan.new_workloads.items())]
        lines += [f"  implementations/{name}.yaml" for name in sorted(plan.new_implementations)]
    if plan.skipped:
        lines.append("\nnot measured:")
        lines += [f"  {reason}" for reason in plan.skipped]
    return lines


def summary_lines(plan: Plan, results: dict[str, dict], measured_on: dict[str, int]) -> list[str]:
    header = ("kernel", "workload", "implementation", "pass", "status", "median", "p20-p80", "gpu")
    rows = []
    for task in plan.tasks:
        result = results.get(task.key)
        if result is None:
            continue
        samples = result.get("samples_ns")
        spread = "-"
        median = None
        if samples:
            stats = summary_ns(samples)
            median = stats["median"]
            spread = f"{format_ns(stats['p20'])}-{format_ns(stats['p80'])}"
        device = measured_on.get(task.key)
        rows.append((task.kernel, short_workload(task), task.implementation, pass_label(task), result["status"],
                     format_ns(median), spread, "-" if device is None or device < 0 else str(device)))
    widths = [max(len(str(row[i])) for row in rows + [header]) for i in range(len(header))]
    fmt = lambda row: "  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip()  # noqa: E731
    lines = [fmt(header), fmt(tuple("-" * w for w in widths))]
    lines += [fmt(row) for row in rows]
    return lines


def _where(device: int | None) -> str:
    return f"gpu{device}" if device is not None and device >= 0 else "cpu"


def device_lines(per_device: dict[int, dict], wall_s: float, incidents: list[str]) -> list[str]:
    lines = [f"sweep wall time {wall_s:.1f} s on {len(per_device)} device(s)"]
    for device, info in sorted(per_device.items()):
        extra = f", {info['restarts']} worker restart(s)" if info.get("restarts") else ""
        extra += ", gave up on it" if info.get("dead") else ""
        lines.append(f"  {_where(device)}: {info['tasks']} measurements, busy {info['busy_s']:.1f} s{extra}")
    lines += [f"  incident: {text}" for text in incidents]
    return lines
