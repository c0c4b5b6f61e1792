"""Running a plan: in this process on one device, or spread over several GPUs (``harness.devices``),
then turning the results into run files. Both paths yield the same Outcome, so a multi-GPU sweep
writes files identical in form to a single-GPU one."""

from __future__ import annotations

import platform
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .datarepo import DataIndex
from .devices import Dispatcher, Outcome, physical_ids, process_spawner, worker_argv
from .environment import environment_file, environment_labels, environment_name, environment_spec
from .plan import Plan, Task, TimingOptions
from .runfiles import VERSION_LABELS, Measured, WriteReport, write_sweep


class LocalRunner:
    """Measures tasks in this process on ``cuda:0`` (or the CPU for tests)."""

    def __init__(self, timing: TimingOptions, families: dict | None = None, facts: dict | None = None):
        self.timing = timing
        self._families = families
        self._facts = facts
        self._session = None

    @property
    def families(self) -> dict:
        if self._families is None:
            import kernels

            _allow_recompiles()
            self._families = kernels.FAMILIES
        return self._families

    def describe(self) -> dict:
        """Facts about the device and software (sent as the worker's hello)."""
        if self._facts is None:
            from .versions import peer_versions

            if self.timing.backend == "cuda":
                from .environment import gather_facts

                facts = gather_facts(0)
            else:
                facts = cpu_facts()
            facts["versions"] = peer_versions()
            self._facts = facts
        return self._facts

    def session(self):
        if self._session is None:
            from .environment import clock_reader
            from .measure import Session

            facts = self.describe()
            clocks = clock_reader(facts.get("uuid")) if self.timing.backend == "cuda" else None
            self._session = Session(self.timing, clocks=clocks)
        return self._session

    def run(self, task: Task) -> dict:
        from .measure import crashed_record, measure

        try:
            family = self.families[task.kernel]
            if task.impl not in family.implementations and task.impl not in family.backward_implementations:
                return crashed_record(task, f"implementation {task.impl!r} is not importable on this machine")
            return measure(task, family, self.session())
        except Exception as error:  # noqa: BLE001 - a harness fault still yields a recorded run
            return crashed_record(task, f"harness error: {type(error).__name__}: {error}"[:400])


def _allow_recompiles() -> None:
    """torch.compile specialises on each shape and integer setting; past its recompile limit it
    silently falls back to eager, and "torch-compile" runs would then be eager runs. A sweep
    measures dozens of shapes per kernel, so the limit is raised for the harness's process."""
    try:
        import torch._dynamo.config as dynamo_config
    except Exception:  # noqa: BLE001 - no torch.compile here
        return
    for name in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit", "accumulated_cache_size_limit"):
        if hasattr(dynamo_config, name):
            setattr(dynamo_config, name, max(getattr(dynamo_config, name), 1024 if "accumulated" in name else 128))


def cpu_facts() -> dict:
    import torch

    return {"device_type": "cpu", "name": "CPU", "machine": platform.machine(), "memory_bytes": 0,
            "torch": torch.__version__, "python": platform.python_version(), "os": platform.system()}


@dataclass
class SweepResult:
    outcome: Outcome
    wall_s: float
    measured: list[Measured] = field(default_factory=list)
    environments: dict[str, dict] = field(default_factory=dict)   # name -> file body
    device_environment: dict[int, str] = field(default_factory=dict)


def run_plan(plan: Plan, *, devices: list[int] | None, on_result: Callable[[Task, dict, int], None] | None = None,
             on_incident: Callable[[str], None] | None = None, log_dir: Path | None = None, spawn=None,
             runner: LocalRunner | None = None, time_limit_s: float | None = None,
             task_timeout_s: float = 600.0) -> SweepResult:
    started = time.perf_counter()
    if devices is None:
        runner = runner or LocalRunner(plan.timing)
        outcome = Outcome()
        facts = runner.describe()
        # -1: measured on the CPU (tests), not on a GPU
        device = int(facts.get("physical_index") or 0) if facts.get("device_type") != "cpu" else -1
        outcome.facts[device] = facts
        busy = 0.0
        for position, task in enumerate(plan.tasks):
            if time_limit_s and time.perf_counter() - started > time_limit_s:
                outcome.unmeasured = [t.key for t in plan.tasks[position:]]
                outcome.incidents.append(f"time limit of {time_limit_s:.0f} s reached: {len(outcome.unmeasured)} measurement(s) not started")
                break
            t0 = time.perf_counter()
            result = runner.run(task)
            busy += time.perf_counter() - t0
            outcome.results[task.key] = result
            outcome.measured_on[task.key] = device
            if on_result:
                on_result(task, result, device)
            if result.get("fatal"):
                message = "not measured: an earlier measurement lost the CUDA context (use --devices to isolate workers)"
                for rest in plan.tasks[plan.tasks.index(task) + 1:]:
                    from .measure import crashed_record

                    outcome.results[rest.key] = crashed_record(rest, message)
                    outcome.measured_on[rest.key] = device
                break
        outcome.per_device[device] = {"tasks": len(outcome.results), "busy_s": round(busy, 3), "restarts": 0, "dead": False}
    else:
        spawn = spawn or process_spawner(worker_argv(plan.timing.to_json()), log_dir)
        dispatcher = Dispatcher(devices, spawn, physical=physical_ids(devices), on_result=on_result, on_incident=on_incident,
                                time_limit_s=time_limit_s, task_timeout_s=task_timeout_s)
        outcome = dispatcher.run(plan.tasks)
    return SweepResult(outcome=outcome, wall_s=round(time.perf_counter() - started, 3))


def environment_spec_any(facts: dict) -> dict:
    if facts.get("device_type") == "cpu":
        return {"hardware": {"vendor": "cpu", "product": "CPU (Triton interpreter)", "architecture": facts.get("machine", "unknown").lower().replace("-", "_")},
                "software": {"framework": {"name": "pytorch", "version": facts["torch"]},
                             "libraries": {"python": facts["python"]}}}
    return environment_spec(facts)


def assemble(plan: Plan, result: SweepResult, index: DataIndex | None) -> SweepResult:
    """Results + device facts -> Measured records and the environment each device maps to."""
    for device, facts in sorted(result.outcome.facts.items()):
        spec = environment_spec_any(facts)
        name = environment_name(spec, index)
        result.device_environment[device] = name
        if name not in result.environments:
            labels = environment_labels(facts) if facts.get("device_type") != "cpu" else {}
            result.environments[name] = environment_file(name, spec, labels)
    for task in plan.tasks:
        record = result.outcome.results.get(task.key)
        if record is None:
            continue
        device = result.outcome.measured_on.get(task.key)
        environment = result.device_environment.get(device)
        if environment is None:  # never said hello (died at start): borrow any device's environment
            if not result.device_environment:
                continue
            environment = next(iter(result.device_environment.values()))
        versions = (result.outcome.facts.get(device) or {}).get("versions") or {}
        labels = {}
        if task.impl in VERSION_LABELS:
            label, package = VERSION_LABELS[task.impl]
            if versions.get(package):
                labels[label] = versions[package]
        result.measured.append(Measured(task=task, result=record, environment=environment,
                                        device=device if device is not None and device >= 0 else None, labels=labels))
    return result


def write(plan: Plan, result: SweepResult, out: Path, index: DataIndex | None) -> WriteReport:
    from .tolerance import rule_text

    rules = {(m.task.kernel, m.task.dtype): rule_text(m.task.kernel, m.task.dtype) for m in result.measured}
    work = {m.task.key: m.result["work"] for m in result.measured if m.result.get("work")}
    titles, existing = {}, set()
    if index is not None:
        titles = {name: doc.metadata.get("title") or name for name, doc in index.of("OperationSpec").items()}
        folders = {"BenchmarkProtocol": "protocols", "ExecutionEnvironment": "environments", "WorkloadCase": "workloads",
                   "WorkloadSuite": "workloads", "ImplementationRevision": "implementations"}
        existing = {(folder, name) for kind, folder in folders.items() for name in index.of(kind)}
    return write_sweep(out, plan, result.measured, result.environments, rules=rules, work=work, titles=titles,
                       existing=existing)
