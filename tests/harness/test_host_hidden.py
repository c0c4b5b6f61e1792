"""Host-proof timing on fakes: a simulated GPU queue shows what the spin hides and what the
host-bound check flags, without torch or a GPU."""

from types import SimpleNamespace

import pytest

from harness.measure import host_bound, sample, starting_spin
from harness.plan import Task, TimingOptions
from harness.timing import CYCLES_PER_US, CudaTimer, host_enqueue_us


class FakeGpu:
    """One stream: the host's clock ``now`` (µs) and the time the GPU finishes what is queued."""

    def __init__(self, host_us: float, device_us: float):
        self.now = 0.0
        self.free_at = 0.0
        self.host_us, self.device_us = host_us, device_us
        gpu = self

        class Event:
            def __init__(self, enable_timing=True):
                self.at = None

            def record(self):
                gpu.free_at = self.at = max(gpu.now, gpu.free_at)

            def query(self):
                return self.at <= gpu.now

            def elapsed_time(self, end):
                return (end.at - self.at) / 1000.0

        def sleep(cycles):
            gpu.free_at = max(gpu.now, gpu.free_at) + cycles / CYCLES_PER_US

        def synchronize():
            gpu.now = max(gpu.now, gpu.free_at)

        self.torch = SimpleNamespace(cuda=SimpleNamespace(Event=Event, _sleep=sleep, synchronize=synchronize))

    def call(self):
        """A call whose launch code runs host_us on the host, then device_us on the GPU."""
        self.now += self.host_us
        self.free_at = max(self.now, self.free_at) + self.device_us


def fake_timer(gpu: FakeGpu) -> CudaTimer:
    timer = CudaTimer.__new__(CudaTimer)
    timer.torch, timer.flush_bytes, timer.buf = gpu.torch, 0, None
    return timer


def test_without_a_spin_a_launch_bound_call_measures_the_host_and_is_flagged():
    gpu = FakeGpu(host_us=50, device_us=10)
    timer = fake_timer(gpu)
    samples = timer.sample(gpu.call, 8, flush=False, hide_host_us=0)
    # the host's 50 µs of launch code per call, not the GPU's 10 µs
    assert samples[0] == pytest.approx(0.060) and samples[1:] == pytest.approx([0.050] * 7)
    assert timer.host_bound == [True] * 8


def test_a_spin_longer_than_the_launch_hides_it_and_nothing_is_flagged():
    gpu = FakeGpu(host_us=50, device_us=10)
    timer = fake_timer(gpu)
    samples = timer.sample(gpu.call, 8, flush=False, hide_host_us=200)
    assert samples == pytest.approx([0.010] * 8)  # device time only
    assert timer.host_bound == [False] * 8


def test_a_spin_shorter_than_the_launch_is_flagged():
    gpu = FakeGpu(host_us=300, device_us=10)
    timer = fake_timer(gpu)
    samples = timer.sample(gpu.call, 4, flush=False, hide_host_us=100)
    assert all(s > 0.010 for s in samples) and all(timer.host_bound)


def test_host_enqueue_time_is_the_median_launch_cost():
    gpu = FakeGpu(host_us=40, device_us=5)
    assert host_enqueue_us(gpu.call, SimpleNamespace(sync=gpu.torch.cuda.synchronize)) >= 0  # real clock: only sane


def test_measure_doubles_the_spin_until_no_sample_is_host_bound():
    gpu = FakeGpu(host_us=700, device_us=10)
    timer = fake_timer(gpu)
    timer.sync = gpu.torch.cuda.synchronize
    options = TimingOptions(warmup=1, target_ms=0.1, min_reps=10, max_reps=10, max_rounds=1, flush_l2=False,
                            hide_host_us=250, spin_over_host=0)
    samples, host = sample(gpu.call, options, timer, None)
    assert host["hide_host_us"] == 1000 and host["host_bound_samples"] == 0  # 250 -> 500 -> 1000 µs
    assert samples == pytest.approx([0.010] * 10)


def test_measure_records_what_stays_host_bound_at_the_longest_spin():
    gpu = FakeGpu(host_us=5000, device_us=10)
    timer = fake_timer(gpu)
    timer.sync = gpu.torch.cuda.synchronize
    options = TimingOptions(warmup=1, target_ms=0.1, min_reps=10, max_reps=10, max_rounds=1, flush_l2=False,
                            hide_host_us=1000, spin_over_host=0, max_hide_host_us=4000)
    samples, host = sample(gpu.call, options, timer, None)
    assert host["hide_host_us"] == 4000 and host["host_bound_samples"] == 10
    assert host_bound(host["host_bound_samples"], len(samples), options.host_bound_rel)


def test_a_call_that_waits_for_the_gpu_stops_the_doubling_and_is_recorded():
    gpu = FakeGpu(host_us=100, device_us=10)
    timer = fake_timer(gpu)
    timer.sync = gpu.torch.cuda.synchronize

    def blocking_call():  # e.g. a pageable host-to-device copy: the host waits for the queue
        gpu.call()
        gpu.torch.cuda.synchronize()

    options = TimingOptions(warmup=1, target_ms=0.1, min_reps=10, max_reps=10, max_rounds=1, flush_l2=False,
                            hide_host_us=250, spin_over_host=3)
    samples, host = sample(blocking_call, options, timer, None)
    assert host["synchronizes"] and host["host_bound_samples"] == 10
    # the fake's launch costs no real time, so the floor (250 µs) already outlasts 3x of it: never doubled
    assert host["hide_host_us"] == 250


def test_the_first_spin_covers_the_measured_launch_cost():
    options = TimingOptions(hide_host_us=250, spin_over_host=3, max_hide_host_us=16000)
    assert starting_spin(options, 20) == 250           # a cheap launch: the floor
    assert starting_spin(options, 400) == 1200         # 3x the launch cost
    assert starting_spin(options, 10_000) == 16000     # never above the cap
    assert starting_spin(TimingOptions(hide_host_us=0), 400) == 0


def test_host_bound_tolerates_a_small_fraction():
    assert not host_bound(1, 100, 0.05) and host_bound(6, 100, 0.05) and not host_bound(0, 0, 0.05)


def _task(kernel, impl, timed_pass="forward", dtype="float32", variant=""):
    return Task(kernel=kernel, workload="w", axes={}, dtype=dtype, impl=impl, implementation=f"{impl}-x",
                timed_pass=timed_pass, variant=variant)


def test_precision_is_declared_per_implementation_pass_dtype_and_variant():
    from harness.runfiles import precision_block

    na = "fused-neighborhood-attention"
    assert precision_block(_task(na, "kernelindex-triton"))["reducedModes"] == ["tf32"]
    assert precision_block(_task(na, "kernelindex-triton", variant="strict")) == {"reducedModes": []}
    assert precision_block(_task(na, "kernelindex-triton", "backward")) == {"reducedModes": []}
    assert precision_block(_task(na, "liger", "backward"))["reducedModes"] == ["tf32"]
    assert precision_block(_task(na, "pytorch-reference")) == {"reducedModes": []}
    assert precision_block(_task(na, "kernelindex-triton", dtype="bfloat16")) == {"reducedModes": []}
    assert precision_block(_task("llama4-rope", "liger")) == {"reducedModes": []}
    # torch's global switch on while measuring: every torch product may be TF32, and the run says so
    assert precision_block(_task(na, "pytorch-reference"), torch_tf32=True)["reducedModes"] == ["tf32"]
    assert "TF32" in precision_block(_task(na, "liger"))["notes"]


def test_variants_are_planned_only_where_they_change_the_arithmetic(tiny_data):
    from harness.datarepo import read_data
    from harness.selection import FamilyInfo, select

    na = "fused-neighborhood-attention"
    info = FamilyInfo(slug=na, forward=("kernelindex-triton",), backward=("kernelindex-triton",),
                      passes=("forward", "backward"), variants={"kernelindex-triton": {"strict": {"tf32": False}}})
    plan = select(read_data(tiny_data), {na: info}, kernels=[na], passes=["forward", "backward"])
    keys = sorted(t.key for t in plan.tasks)
    assert [k for k in keys if k.endswith("/strict")] == [
        f"{na}/fused-neighborhood-attention-tiny/kernelindex-triton-{na}/kernelindex-harness-v1/strict"]
    assert len(keys) == 3  # forward, forward strict, backward
