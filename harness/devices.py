"""Spreading a sweep over the GPUs of one host: one worker process per GPU, pinned to it.

Each worker is ``python -m harness.worker`` with ``CUDA_VISIBLE_DEVICES`` set to its GPU, so it
sees that GPU alone as ``cuda:0`` and nothing it does can touch another. Tasks are handed out one
at a time (dynamic balancing: task durations differ by 1000x), and a worker keeps to one group of
tasks (kernel, implementation, pass) while it can, so Triton and torch.compile compile each group
once per worker rather than once per task. A worker that dies is reported; the task it held is
retried on another GPU (a task that kills workers on two GPUs is recorded as a failed run) and the
worker is restarted, up to a limit. Everything else about the environment is inherited unchanged
(the image's NCCL and NVLink-multicast settings included).

The dispatcher talks to workers through a small interface, so the CPU tests drive it with fake
workers and a fake device list.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .plan import Task

MAX_TASK_ATTEMPTS = 2       # worker deaths a task may cause before it is recorded as failed
MAX_RESTARTS_PER_DEVICE = 3


class DeviceError(ValueError):
    pass


def parse_devices(text: str | None, count: int) -> list[int] | None:
    """``None`` (no --devices): run in this process. ``all``: every visible GPU. ``0,2``: those."""
    if text is None:
        return None
    text = text.strip()
    if text == "all":
        if count < 1:
            raise DeviceError("--devices all: no CUDA GPU is visible")
        return list(range(count))
    try:
        devices = [int(part) for part in text.split(",") if part.strip() != ""]
    except ValueError:
        raise DeviceError(f"--devices {text!r}: give 'all' or GPU indices such as 0,1") from None
    if not devices:
        raise DeviceError("--devices: no GPU index given")
    if len(set(devices)) != len(devices):
        raise DeviceError(f"--devices {text!r}: an index appears twice")
    bad = [d for d in devices if d < 0 or d >= count]
    if bad:
        raise DeviceError(f"--devices {text!r}: no GPU {', '.join(map(str, bad))} (this host has {count})")
    return devices


def physical_ids(devices: list[int]) -> list[str]:
    """The ids to put in each worker's CUDA_VISIBLE_DEVICES: our indices are positions in the
    parent's own CUDA_VISIBLE_DEVICES when it is set (so `--devices 0` under CUDA_VISIBLE_DEVICES=3
    means GPU 3), else the GPUs' own indices."""
    parent = [item.strip() for item in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if item.strip()]
    return [parent[d] if parent and d < len(parent) else str(d) for d in devices]


# ------------------------------------------------------------------------------------------------
# Worker handles


class WorkerHandle:
    """What the dispatcher needs from a worker: send a message, kill it. Messages and the exit come
    back through the shared event queue as ("message", worker, dict) and ("exit", worker, code)."""

    device: int
    serial: int

    def send(self, message: dict) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def kill(self) -> None:  # pragma: no cover - interface
        raise NotImplementedError


class ProcessWorker(WorkerHandle):
    """A worker process speaking JSON lines on stdin/stdout; its stderr goes to a log file."""

    def __init__(self, device: int, serial: int, argv: list[str], events: queue.Queue, env: dict[str, str],
                 log_path: Path | None = None):
        self.device, self.serial = device, serial
        self.log = open(log_path, "a", encoding="utf-8") if log_path else subprocess.DEVNULL
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                        env=env, text=True, bufsize=1)
        self.events = events
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            line = line.strip()
            if not line:
                continue
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                continue  # a stray print that escaped the worker's stdout redirection
            self.events.put(("message", self, message))
        code = self.process.wait()
        self.events.put(("exit", self, code))

    def send(self, message: dict) -> None:
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(json.dumps(message) + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass  # it died; its exit event is on the way

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()


def process_spawner(argv: list[str], log_dir: Path | None = None) -> Callable[[int, str, int, queue.Queue], WorkerHandle]:
    """Spawn ``argv`` pinned to one GPU. The environment is the parent's, plus CUDA_VISIBLE_DEVICES."""

    def spawn(device: int, physical: str, serial: int, events: queue.Queue) -> WorkerHandle:
        env = dict(os.environ)
        env["CUDA_VISIBLE_DEVICES"] = physical
        env["PYTHONUNBUFFERED"] = "1"
        env.setdefault("PYTHONPATH", str(Path(__file__).resolve().parent.parent))
        log = (Path(log_dir) / f"worker-gpu{device}.log") if log_dir else None
        return ProcessWorker(device, serial, argv, events, env, log)

    return spawn


def worker_argv(timing: dict) -> list[str]:
    return [sys.executable, "-m", "harness.worker", "--timing", json.dumps(timing)]


# ------------------------------------------------------------------------------------------------
# Dispatcher


@dataclass
class DeviceState:
    device: int
    physical: str
    worker: WorkerHandle | None = None
    ready: bool = False
    task: Task | None = None
    started_at: float = 0.0
    last_group: tuple | None = None
    restarts: int = 0
    dead: bool = False
    facts: dict | None = None
    measured: int = 0
    busy_s: float = 0.0


@dataclass
class Outcome:
    results: dict[str, dict] = field(default_factory=dict)        # task key -> result record
    measured_on: dict[str, int] = field(default_factory=dict)     # task key -> device
    facts: dict[int, dict] = field(default_factory=dict)          # device -> hello facts
    incidents: list[str] = field(default_factory=list)            # crashes, retries, restarts
    per_device: dict[int, dict] = field(default_factory=dict)     # device -> {"tasks": n, "busy_s": s}
    unmeasured: list[str] = field(default_factory=list)           # task keys left when the time limit hit


def choose_task(pending: list[Task], state: DeviceState, busy_groups: set, excluded: dict[str, set[int]],
                alive: set[int]) -> Task | None:
    """The next task for a free worker: its own group first, then a group nobody is working on,
    then help with any group. A task that crashed on this device goes elsewhere if anyone else is alive."""
    def allowed(task: Task) -> bool:
        banned = excluded.get(task.key, set())
        return state.device not in banned or not (alive - banned)

    candidates = [t for t in pending if allowed(t)]
    if not candidates:
        return None
    for test in (lambda t: t.group == state.last_group, lambda t: t.group not in busy_groups):
        for task in candidates:
            if test(task):
                return task
    return candidates[0]


class Dispatcher:
    def __init__(self, devices: list[int], spawn: Callable[[int, str, int, queue.Queue], WorkerHandle], *,
                 physical: list[str] | None = None, task_timeout_s: float = 900.0,
                 on_result: Callable[[Task, dict, int], None] | None = None,
                 on_incident: Callable[[str], None] | None = None, crashed_result: Callable[[Task, str], dict] | None = None,
                 time_limit_s: float | None = None):
        self.devices = devices
        self.physical = physical or [str(d) for d in devices]
        self.spawn = spawn
        self.task_timeout_s = task_timeout_s
        self.on_result = on_result or (lambda task, result, device: None)
        self.on_incident = on_incident or (lambda text: None)
        self.crashed_result = crashed_result or _crashed_result
        self.events: queue.Queue = queue.Queue()
        self.serial = 0
        self.timed_out: set[str] = set()
        self.attempts: dict[str, int] = {}
        # After this many seconds no new task is started; what is measured is kept (a lease-sized sweep).
        self.time_limit_s = time_limit_s

    def _start(self, state: DeviceState) -> None:
        self.serial += 1
        state.worker = self.spawn(state.device, state.physical, self.serial, self.events)
        state.ready, state.task = False, None

    def _incident(self, outcome: Outcome, text: str) -> None:
        outcome.incidents.append(text)
        self.on_incident(text)

    def run(self, tasks: list[Task]) -> Outcome:
        outcome = Outcome()
        states = {d: DeviceState(d, p) for d, p in zip(self.devices, self.physical)}
        pending = list(tasks)
        crashed_on: dict[str, set[int]] = {}
        for state in states.values():
            self._start(state)
        deadline = time.monotonic() + self.time_limit_s if self.time_limit_s else float("inf")

        def alive() -> set[int]:
            return {d for d, s in states.items() if not s.dead}

        def assign(state: DeviceState) -> None:
            if state.dead or not state.ready or state.task is not None:
                return
            busy = {s.last_group for s in states.values() if s is not state and s.task is not None}
            task = choose_task(pending, state, busy, crashed_on, alive())
            if task is None:
                return
            pending.remove(task)
            state.task, state.started_at, state.last_group = task, time.monotonic(), task.group
            state.worker.send({"op": "run", "task": task.to_json()})

        def finish(task: Task, result: dict, device: int) -> None:
            outcome.results[task.key] = result
            outcome.measured_on[task.key] = device
            self.on_result(task, result, device)

        while pending or any(s.task is not None for s in states.values()):
            if pending and time.monotonic() > deadline:
                outcome.unmeasured.extend(task.key for task in pending)
                self._incident(outcome, f"time limit of {self.time_limit_s:.0f} s reached: {len(pending)} measurement(s) not started")
                pending.clear()
                continue
            if not alive():
                for task in pending:
                    finish(task, self.crashed_result(task, "not measured: every worker process died"), -1)
                pending.clear()
                break
            try:
                kind, worker, payload = self.events.get(timeout=0.25)
            except queue.Empty:
                kind = None
            if kind is not None:
                state = states[worker.device]
                if state.worker is not worker:
                    continue  # an event from a worker already replaced
                if kind == "message" and payload.get("op") == "hello":
                    state.ready, state.facts = True, payload.get("facts") or {}
                    outcome.facts[state.device] = state.facts
                elif kind == "message" and payload.get("op") == "result" and state.task is not None:
                    task, state.task = state.task, None
                    state.busy_s += time.monotonic() - state.started_at
                    state.measured += 1
                    finish(task, payload["result"], state.device)
                    if payload["result"].get("fatal"):
                        # The worker exits after a CUDA error: hand it nothing more (the next task
                        # would be blamed for its exit); its exit event starts a fresh one.
                        state.ready = False
                elif kind == "exit":
                    self._worker_exited(state, payload, pending, crashed_on, outcome, finish)
            now = time.monotonic()
            for state in states.values():
                if state.task is not None and now - state.started_at > self.task_timeout_s:
                    self._incident(outcome, f"GPU {state.device}: {state.task.key} ran past {self.task_timeout_s:.0f} s; worker killed")
                    self.timed_out.add(state.task.key)
                    state.worker.kill()  # its exit event retries the task elsewhere
                    state.started_at = float("inf")
            for state in states.values():
                assign(state)
        for state in states.values():
            if state.worker is not None and not state.dead:
                state.worker.send({"op": "stop"})
        deadline = time.monotonic() + 30
        remaining = {d for d, s in states.items() if s.worker is not None and not s.dead}
        while remaining and time.monotonic() < deadline:
            try:
                kind, worker, _ = self.events.get(timeout=0.5)
            except queue.Empty:
                continue
            if kind == "exit":
                remaining.discard(worker.device)
        for state in states.values():
            if state.worker is not None:
                state.worker.kill()
            outcome.per_device[state.device] = {"tasks": state.measured, "busy_s": round(state.busy_s, 3),
                                                "restarts": state.restarts, "dead": state.dead}
        return outcome

    def _worker_exited(self, state: DeviceState, code: Any, pending: list[Task], crashed_on: dict[str, set[int]],
                       outcome: Outcome, finish) -> None:
        task = state.task
        state.task, state.ready = None, False
        if task is not None:
            crashed_on.setdefault(task.key, set()).add(state.device)
            tried = crashed_on[task.key]
            self.attempts[task.key] = self.attempts.get(task.key, 0) + 1
            # Retried once, on another GPU when there is one (a fresh worker on the same GPU otherwise:
            # the crash may have been an earlier measurement's damage to the CUDA context).
            if self.attempts[task.key] >= MAX_TASK_ATTEMPTS:
                self._incident(outcome, f"GPU {state.device}: worker exited with code {code} during {task.key}; "
                                        f"failed on GPU(s) {', '.join(map(str, sorted(tried)))}, recorded as a failed run")
                result = self.crashed_result(task, f"the worker process exited (code {code}) during this measurement "
                                                   f"on GPU(s) {', '.join(map(str, sorted(tried)))}")
                if task.key in self.timed_out:
                    result["status"] = "timeout"
                finish(task, result, state.device)
            else:
                where = "on another GPU" if len(self.devices) > 1 else "in a fresh worker"
                self._incident(outcome, f"GPU {state.device}: worker exited with code {code} during {task.key}; retrying it {where}")
                pending.insert(0, task)
        elif pending:
            self._incident(outcome, f"GPU {state.device}: worker exited with code {code}")
        if pending:
            if state.restarts < MAX_RESTARTS_PER_DEVICE:
                state.restarts += 1
                self._incident(outcome, f"GPU {state.device}: restarting its worker ({state.restarts} of {MAX_RESTARTS_PER_DEVICE})")
                self._start(state)
                return
            self._incident(outcome, f"GPU {state.device}: too many worker restarts; no more work goes to it")
        state.dead = True
        state.worker = None


def _crashed_result(task: Task, message: str) -> dict:
    from .measure import crashed_record

    return crashed_record(task, message)
