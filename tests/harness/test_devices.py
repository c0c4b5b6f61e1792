"""Spreading a sweep over GPUs: parsing --devices, balancing, merging, crash retry (fake devices and workers)."""

import queue
import sys
import threading
from pathlib import Path

import pytest

from harness.datarepo import read_data
from harness.devices import (MAX_RESTARTS_PER_DEVICE, DeviceError, Dispatcher, DeviceState, WorkerHandle, choose_task,
                             parse_devices, process_spawner)
from harness.plan import Task
from harness.selection import select
from harness.sweep import SweepResult, assemble, write

from .synthetic import FACTS, fake_result
from .test_selection import FAMILIES


def _task(workload, impl="kernelindex-triton", kernel="llama4-rope", timed_pass="forward"):
    return Task(kernel=kernel, workload=workload, axes={}, dtype="float32", impl=impl, implementation=f"{impl}-{kernel}",
                timed_pass=timed_pass)


def test_parse_devices():
    assert parse_devices(None, 2) is None
    assert parse_devices("all", 2) == [0, 1]
    assert parse_devices("1,0", 2) == [1, 0]
    for text, count, message in (("all", 0, "no CUDA GPU"), ("2", 2, "no GPU 2"), ("0,0", 2, "twice"), ("x", 2, "indices")):
        with pytest.raises(DeviceError, match=message):
            parse_devices(text, count)


def test_a_worker_keeps_to_its_group_and_spreads_to_free_groups():
    a1, a2 = _task("w1", "impl-a"), _task("w2", "impl-a")
    b1 = _task("w1", "impl-b")
    state = DeviceState(0, "0", last_group=a1.group)
    assert choose_task([b1, a2], state, busy_groups=set(), excluded={}, alive={0, 1}) is a2
    fresh = DeviceState(1, "1")
    assert choose_task([a2, b1], fresh, busy_groups={a1.group}, excluded={}, alive={0, 1}) is b1
    assert choose_task([a2], fresh, busy_groups={a1.group}, excluded={}, alive={0, 1}) is a2  # help with a busy group
    # a task that crashed a worker on GPU 1 goes elsewhere while another GPU is alive...
    assert choose_task([a2], fresh, busy_groups=set(), excluded={a2.key: {1}}, alive={0, 1}) is None
    # ...but not if GPU 1 is the only one left
    assert choose_task([a2], fresh, busy_groups=set(), excluded={a2.key: {1}}, alive={1}) is a2


class ThreadWorker(WorkerHandle):
    """An in-process fake GPU worker; ``crash(task, device)`` decides when it dies."""

    def __init__(self, device, serial, events, crash):
        self.device, self.serial, self.events, self.crash = device, serial, events, crash
        self.dead = False
        events.put(("message", self, {"op": "hello", "facts": dict(FACTS, physical_index=device)}))

    def send(self, message):
        if self.dead:
            return
        if message["op"] == "stop":
            self.dead = True
            self.events.put(("exit", self, 0))
            return
        task = Task.from_json(message["task"])
        if self.crash(task, self.device):
            self.dead = True
            self.events.put(("exit", self, -11))
            return
        threading.Timer(0.001, lambda: self.events.put(("message", self, {"op": "result", "key": task.key,
                                                                          "result": fake_result(task)}))).start()

    def kill(self):
        if not self.dead:
            self.dead = True
            self.events.put(("exit", self, -9))


def _spawner(crash=lambda task, device: False, spawned=None):
    def spawn(device, physical, serial, events):
        if spawned is not None:
            spawned.append(device)
        return ThreadWorker(device, serial, events, crash)
    return spawn


def _tasks(n=12):
    return [_task(f"w{i}", impl) for i in range(n // 2) for impl in ("impl-a", "impl-b")]


def test_every_task_is_measured_once_and_both_gpus_share_the_work():
    tasks = _tasks()
    order = {}
    outcome = Dispatcher([0, 1], _spawner(), on_result=lambda task, result, device: order.setdefault(device, []).append(task.impl)).run(tasks)
    assert set(outcome.results) == {t.key for t in tasks}
    assert set(outcome.measured_on.values()) == {0, 1}
    assert sum(info["tasks"] for info in outcome.per_device.values()) == len(tasks)
    assert outcome.incidents == []
    # group affinity: each GPU starts on its own group and switches at most once (to help at the end)
    assert order[0][0] != order[1][0]
    for impls in order.values():
        assert sum(1 for a, b in zip(impls, impls[1:]) if a != b) <= 1


def test_a_crash_is_reported_and_the_task_retried_on_another_gpu():
    tasks = _tasks()
    victim = tasks[3]
    spawned, crashed_on = [], []

    def crash_once(task, device):
        if task.key == victim.key and not crashed_on:
            crashed_on.append(device)
            return True
        return False

    outcome = Dispatcher([0, 1], _spawner(crash_once, spawned)).run(tasks)
    assert set(outcome.results) == {t.key for t in tasks}
    assert outcome.results[victim.key]["status"] == "passed"
    assert outcome.measured_on[victim.key] == 1 - crashed_on[0]  # retried on the other GPU
    assert any(f"GPU {crashed_on[0]}: worker exited with code -11" in text and "retrying it on another GPU" in text
               for text in outcome.incidents)
    assert spawned.count(crashed_on[0]) == 2  # the crashed GPU's worker was restarted


def test_a_task_that_crashes_every_gpu_is_recorded_as_failed():
    tasks = _tasks(4)
    victim = tasks[0]
    outcome = Dispatcher([0, 1], _spawner(lambda task, device: task.key == victim.key)).run(tasks)
    assert outcome.results[victim.key]["status"] == "runtime_error"
    assert "exited (code -11)" in outcome.results[victim.key]["notes"][0]
    assert all(outcome.results[t.key]["status"] == "passed" for t in tasks[1:])


def test_a_gpu_that_keeps_crashing_is_given_up_and_the_other_finishes():
    tasks = _tasks(8)
    outcome = Dispatcher([0, 1], _spawner(lambda task, device: device == 1)).run(tasks)
    assert all(r["status"] == "passed" for r in outcome.results.values())
    assert set(outcome.measured_on.values()) == {0}
    assert outcome.per_device[1]["restarts"] <= MAX_RESTARTS_PER_DEVICE


def test_a_hung_task_is_killed_and_recorded_as_timeout():
    tasks = [_task("slow"), _task("fast")]

    class Hang(ThreadWorker):
        def send(self, message):
            if message["op"] == "run" and Task.from_json(message["task"]).workload == "slow":
                return  # never answers
            super().send(message)

    outcome = Dispatcher([0, 1], lambda d, p, s, e: Hang(d, s, e, lambda t, dev: False), task_timeout_s=0.2).run(tasks)
    assert outcome.results[tasks[0].key]["status"] == "timeout"
    assert outcome.results[tasks[1].key]["status"] == "passed"


def test_merged_files_match_a_single_gpu_sweep_in_form(tiny_data, tmp_path):
    """Two GPUs with one environment write the same set of files as one GPU; only the
    device fields (gpu_index, device_index) may differ."""
    from .conftest import make_data

    def sweep(data, devices):
        index = read_data(data)
        plan = select(index, FAMILIES, passes=["forward", "backward"])
        outcome = Dispatcher(devices, _spawner()).run(plan.tasks)
        result = assemble(plan, SweepResult(outcome=outcome, wall_s=0.1), index)
        write(plan, result, data, index)
        return {p.relative_to(data): p.read_text() for p in sorted(data.rglob("*.yaml")) if "kernelindex" in p.name or "runs" in p.parts}

    one = sweep(tiny_data, [0])
    two = sweep(make_data(tmp_path / "two"), [0, 1])
    assert set(one) == set(two)

    def strip(text):
        return "\n".join(line for line in text.splitlines() if "gpu_index" not in line and "device_index" not in line
                         and "cases_on_gpus" not in line)
    assert {k: strip(v) for k, v in one.items()} == {k: strip(v) for k, v in two.items()}


def test_real_worker_processes_speak_the_protocol_and_survive_a_crash(tmp_path, monkeypatch):
    """The subprocess path: CUDA_VISIBLE_DEVICES pins each worker; a crashed worker's task is retried elsewhere."""
    tasks = _tasks(12)
    monkeypatch.setenv("FAKE_CRASH", f"{tasks[2].workload}@0,{tasks[3].workload}@0")
    monkeypatch.setenv("FAKE_DELAY", "0.1")  # so both workers are up before the work runs out
    argv = [sys.executable, str(Path(__file__).with_name("fake_worker.py"))]
    outcome = Dispatcher([0, 1], process_spawner(argv, log_dir=tmp_path), task_timeout_s=60).run(tasks)
    assert set(outcome.results) == {t.key for t in tasks}
    assert all(r["status"] == "passed" for r in outcome.results.values())
    assert outcome.measured_on[tasks[2].key] == 1 and outcome.measured_on[tasks[3].key] == 1
    assert sorted(outcome.facts) == [0, 1] and outcome.facts[1]["physical_index"] == 1
    assert set(outcome.measured_on.values()) == {0, 1}
    assert any("exited with code 9" in text for text in outcome.incidents)


def test_a_time_limit_keeps_what_was_measured():
    tasks = _tasks(40)

    class Slow(ThreadWorker):
        def send(self, message):
            if message["op"] == "run":
                import time
                time.sleep(0.02)
            super().send(message)

    outcome = Dispatcher([0, 1], lambda d, p, s, e: Slow(d, s, e, lambda t, dev: False), time_limit_s=0.1).run(tasks)
    assert outcome.results and outcome.unmeasured
    assert len(outcome.results) + len(outcome.unmeasured) == len(tasks)
    assert any("time limit" in text for text in outcome.incidents)


def test_on_one_gpu_a_crashed_task_is_retried_once_in_a_fresh_worker():
    tasks = _tasks(4)
    crashed = []

    def crash_once(task, device):
        if task.key == tasks[1].key and not crashed:
            crashed.append(device)
            return True
        return False

    outcome = Dispatcher([0], _spawner(crash_once)).run(tasks)
    assert all(r["status"] == "passed" for r in outcome.results.values())
    assert any("retrying it in a fresh worker" in text for text in outcome.incidents)


def test_after_a_fatal_result_the_worker_gets_no_more_work_and_no_task_is_blamed():
    """A measurement that hits a CUDA error is recorded; its worker exits and is replaced, and the
    task that would have come next is measured by a fresh worker, not charged with the exit."""
    tasks = _tasks(6)

    class Fatal(ThreadWorker):
        def send(self, message):
            if message["op"] == "run" and Task.from_json(message["task"]).key == tasks[0].key:
                task = Task.from_json(message["task"])
                result = dict(fake_result(task, status="runtime_error"), fatal=True)
                self.events.put(("message", self, {"op": "result", "key": task.key, "result": result}))
                self.dead = True
                threading.Timer(0.05, lambda: self.events.put(("exit", self, 3))).start()
                return
            super().send(message)

    outcome = Dispatcher([0], lambda d, p, s, e: Fatal(d, s, e, lambda t, dev: False)).run(tasks)
    assert outcome.results[tasks[0].key]["status"] == "runtime_error"
    assert all(outcome.results[t.key]["status"] == "passed" for t in tasks[1:])
    assert not any("during" in text for text in outcome.incidents)
