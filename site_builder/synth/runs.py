"""The runs: N BenchmarkRun documents spread over three years, with realistic latencies.

A run's latency is the implementation's share of the physical floor (the larger of the memory
floor, inputs and outputs once over datasheet bandwidth, and the arithmetic floor), plus its
launch overhead, times the timed pass and the software stack, with log-normal noise. It never
lands below the floor, except for a deliberate few "implausible" runs the builder must flag.
Most runs pass; some fail, some are retracted, some superseded by a re-measurement.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

from .world import Environment, Kernel, World, envelope

START = datetime(2023, 6, 1, tzinfo=timezone.utc)
SPAN = timedelta(days=3 * 365)

FAILURES = ("incorrect_numerical", "runtime_error", "compile_error", "timeout", "resource_exceeded", "incorrect_shape")
P_FAILED = 0.04
P_RETRACTED = 0.006
# Share of re-measurements (same implementation, workload, protocol and environment as an earlier
# passed run) that supersede it; at 100k runs about 5% of runs are such re-measurements.
P_SUPERSEDES_RERUN = 0.25
P_IMPLAUSIBLE = 0.001
P_ATTESTED = 0.004


def _timestamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def floor_seconds(io_bytes: float, flops: int, dtype: str, environment: Environment, compute_bound: bool) -> float:
    """At least the floor the builder derives: its arithmetic floor uses a peak no lower than ours."""
    gpu = environment.gpu
    memory = io_bytes / (gpu.bandwidth_gbps * 1e9)
    if not flops:
        return memory
    if compute_bound:
        peak = gpu.peak("tf32", "fp32") if dtype == "fp32" else gpu.peak("bf16", "fp16")
    else:
        peak = gpu.peak("fp32")
    return max(memory, flops / (peak * 1e12))


class RunGenerator:
    def __init__(self, rng: random.Random, world: World, total: int):
        self.rng = rng
        self.world = world
        self.total = total
        self.kernel_weights = list(itertools.accumulate(k.weight for k in world.kernels))
        self.gpu_names = sorted({env.gpu.slug for env in world.environments})
        self.envs_by_gpu = {name: [e for e in world.environments if e.gpu.slug == name] for name in self.gpu_names}
        # The latest run per (implementation, workload, protocol, environment): what a re-run supersedes.
        self.latest: dict[tuple[str, str, str, str], str] = {}
        self.used_names: set[str] = set()

    def _environment(self, moment: datetime) -> Environment:
        rng = self.rng
        day = moment.date()
        candidates = [name for name in self.gpu_names if self.envs_by_gpu[name][0].released <= day] or self.gpu_names
        weights = [self.envs_by_gpu[name][0].gpu.weight for name in candidates]
        gpu = rng.choices(candidates, weights)[0]
        envs = [e for e in self.envs_by_gpu[gpu] if e.released <= day] or self.envs_by_gpu[gpu][:1]
        # Newer stacks are used more once they exist.
        return rng.choices(envs, [2.0 ** i for i in range(len(envs))])[0]

    def generate(self) -> Iterator[tuple[Kernel, dict]]:
        rng = self.rng
        step = SPAN / self.total
        for index in range(self.total):
            # Strictly increasing times: two runs never share observedAt, so never a digest.
            moment = START + step * index + step * rng.random() * 0.9
            moment = moment.replace(microsecond=moment.microsecond // 1000 * 1000)
            kernel = self.world.kernels[bisect.bisect(self.kernel_weights, rng.random() * self.kernel_weights[-1])]
            yield kernel, self._run(index, moment, kernel)

    def _run(self, index: int, moment: datetime, kernel: Kernel) -> dict:
        rng = self.rng
        workload = rng.choice(kernel.workloads)
        implementation = rng.choice(kernel.implementations)
        protocol = self.world.protocols[rng.choice(kernel.protocols)]
        if workload.suite:
            protocol = self.world.protocols["gpumode-eval-mean"]
        environment = self._environment(moment)
        key = (implementation.name, workload.name, protocol.name, environment.name)
        day = moment.strftime("%Y%m%d")
        name = f"{implementation.name}-{environment.gpu.short}-{day}-{index:06d}"[-100:].lstrip("-._")

        floor = floor_seconds(workload.io_bytes, workload.flops, workload.dtype, environment, kernel.family.compute_bound)
        expected = (floor / implementation.quality + implementation.overhead_us * 1e-6) * protocol.pass_factor / environment.speedup
        median_ns = max(int(expected * 1e9 * math.exp(rng.gauss(0.0, 0.06))), math.ceil(floor * 1e9 * 1.01) + 1)
        implausible = rng.random() < P_IMPLAUSIBLE
        if implausible:
            median_ns = max(1, int(floor * 1e9 * rng.uniform(0.3, 0.9)))

        status = "passed"
        if not implausible and rng.random() < P_FAILED:
            status = rng.choice(FAILURES)
        metadata: dict = {"name": name, "title": f"{kernel.family.title} · {implementation.project} · {environment.gpu.short}"}
        spec: dict = {
            "implementation": implementation.name,
            "workload": workload.name,
            "protocol": protocol.name,
            "environment": environment.name,
            "status": status,
        }
        if status in ("passed", "incorrect_numerical"):
            spec["timing"] = self._timing(median_ns, protocol.statistic)
        if protocol.style == "liger":
            metadata["labels"] = {"liger_version": rng.choice(("0.5.10", "0.6.0", "0.6.1"))}
            spec.update(self._liger_fields(kernel, implementation.name, environment.name, workload.name, protocol, index, spec.get("timing")))
        if protocol.style == "harness":
            spec["correctness"] = self._correctness(status)
            if rng.random() < 0.3:
                spec["evidence"] = self._evidence(rng, median_ns, index)
        previous = self.latest.get(key)
        if previous is not None and status == "passed" and rng.random() < P_SUPERSEDES_RERUN:
            spec["supersedes"] = previous
        spec["observedAt"] = _timestamp(moment)
        if status == "passed":
            self.latest[key] = name
        if rng.random() < P_RETRACTED:
            metadata["retraction"] = {"date": (moment + timedelta(days=rng.randint(1, 90))).date().isoformat(),
                                      "reason": "The harness measured a cached result; see the attached log."}
        if rng.random() < P_ATTESTED:
            metadata["attestations"] = [{"kind": rng.choice(("reproduced", "note", "environment_note")),
                                         "author": f"contributor-{rng.randint(1, 400)}",
                                         "date": (moment + timedelta(days=rng.randint(1, 60))).date().isoformat(),
                                         "note": "Reran on a second machine; within 2% of the reported median."}]
        return envelope("BenchmarkRun", metadata, spec)

    @staticmethod
    def _liger_fields(kernel: Kernel, implementation: str, environment: str, workload: str, protocol, index: int,
                      timing: dict | None) -> dict:
        """What the Liger importer writes: p20/p80 as measurements, the CSV's ms values source-native."""
        fields: dict = {}
        metrics: dict = {}
        if timing is not None:
            latency = timing["latencyNs"]
            fields["measurements"] = [
                {"metric": "latency", "statistic": name, "unit": "ns", "value": float(latency[name])} for name in ("p20", "p80")]
            metrics = {f"ms_{q}": latency[name] / 1e6 for q, name in (("20", "p20"), ("50", "median"), ("80", "p80"))}
        fields["sourceNative"] = {
            "source": "liger-kernel-bench",
            "benchmark": f"{kernel.family.slug}/{protocol.document['spec']['measurement']['timedPass']}",
            "externalId": f"{implementation}/{environment}/{workload}/{index}",
            "metrics": metrics,
        }
        return fields

    def _timing(self, median_ns: int, statistic: str) -> dict:
        rng = self.rng
        spread = abs(rng.gauss(0.0, 0.006)) + 0.0005
        latency: dict = {
            "median": median_ns,
            "p20": max(1, int(median_ns * (1 - spread))),
            "p80": int(median_ns * (1 + spread * rng.uniform(0.8, 1.6))) + 1,
        }
        if statistic == "mean":
            latency = {"mean": int(median_ns * (1 + spread)), "minimum": latency["p20"], "maximum": latency["p80"] * 2}
        return {"primaryStatistic": statistic, "latencyNs": latency, "samples": 100}

    def _correctness(self, status: str) -> dict:
        rng = self.rng
        error = rng.uniform(1e-5, 4e-3) * (40 if status == "incorrect_numerical" else 1)
        return {"comparator": "allclose", "maximumAbsoluteError": round(error, 7),
                "maximumRelativeError": round(error * rng.uniform(1, 8), 7),
                "matchedRatio": 1.0 if status != "incorrect_numerical" else round(rng.uniform(0.9, 0.999), 4),
                "inputsUnmodified": True}

    @staticmethod
    def _evidence(rng: random.Random, median_ns: int, index: int) -> dict:
        evidence: dict = {"artifacts": [{"kind": "log", "url": f"https://github.com/kernelindex/kernelindex/actions/runs/{10_000_000 + index}"}]}
        if rng.random() < 0.2:
            evidence["rawSamplesNs"] = sorted(max(1, int(median_ns * rng.gauss(1.0, 0.004))) for _ in range(16))
        return evidence
