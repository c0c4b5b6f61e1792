"""Everything but the runs: kernels, workloads, projects, implementations, protocols, environments.

All choices come from one ``random.Random(seed)`` consumed in a fixed order, so a seed gives the
same repository byte for byte. Each entity is a plain dict ready for ``writer.dump``, plus the few
numbers the run generator needs (byte counts, FLOPs, implementation quality).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from datetime import date

from schemas.common import DTYPE_BYTES
from schemas.expressions import parse_expression

from .families import FAMILIES, MODELS, Family, Model
from .hardware import Gpu

API = "kernelindex.dev/v1alpha1"


def envelope(kind: str, metadata: dict, spec: dict) -> dict:
    return {"apiVersion": API, "kind": kind, "metadata": metadata, "spec": spec}


@dataclass
class Workload:
    name: str
    document: dict
    io_bytes: float  # inputs and outputs, each once: the truthful memory floor's numerator
    flops: int
    dtype: str
    axes: dict[str, int]
    suite: bool = False


@dataclass
class Implementation:
    name: str
    document: dict
    project: str
    quality: float  # share of the floor's speed it reaches on a large input
    overhead_us: float  # launch and Python overhead, which dominates small inputs
    baseline: bool


@dataclass
class Kernel:
    name: str
    family: Family
    model: Model
    document: dict
    workloads: list[Workload] = field(default_factory=list)
    implementations: list[Implementation] = field(default_factory=list)
    protocols: list[str] = field(default_factory=list)
    weight: float = 1.0


@dataclass(frozen=True)
class Protocol:
    name: str
    document: dict
    pass_factor: float  # backward and full passes take longer than the forward the floor counts
    statistic: str
    style: str  # "harness", "liger", "tritonbench" or "gpumode": what a run of it records


@dataclass(frozen=True)
class Environment:
    name: str
    document: dict
    gpu: Gpu
    released: date
    speedup: float  # newer compilers and libraries make the same code a little faster


# ---------------------------------------------------------------------------------------------
# Kernels and workloads


def kernel_count(runs: int) -> int:
    """About one kernel per 500 runs, never fewer than a few dozen."""
    return max(24, runs // 500)


def _axis_value(spec: str, model: Model) -> int:
    return getattr(model, spec.split(":", 1)[1])


def _kernel_document(name: str, family: Family, model: Model, headline: str, generation: int = 0) -> dict:
    axes: dict[str, dict] = {}
    for axis, spec in family.axes.items():
        if spec == "var":
            axes[axis] = {"role": "variable"}
        elif spec.startswith("const:"):
            axes[axis] = {"role": "constant", "value": _axis_value(spec, model)}
        else:
            axes[axis] = {"role": "derived", "expression": spec}

    def arguments(items: list[tuple[str, list[str], str]]) -> list[dict]:
        return [{"name": arg, "tensor": {"shape": shape, "dtype": dtype}} for arg, shape, dtype in items]

    metadata = {
        "name": name,
        "title": f"{family.title} ({model.slug})",
        "description": f"{family.title} at the shapes of {model.slug}. Synthetic: generated for scale tests.",
        "models": [model.slug],
        "headlineWorkload": headline,
    }
    if family.flops:
        metadata["flops"] = family.flops
        metadata["flopsDtype"] = "bf16" if family.compute_bound else "fp32"
    spec = {
        "family": family.slug,
        "axes": axes,
        "inputs": arguments(family.inputs),
        "outputs": arguments(family.outputs),
        # Each (family, model) is its own kernel here: where no axis is a model constant, only the
        # expression tells two models' kernels apart, and two kernels never share a canonical spec.
        # A later generation of the same (family, model) (large repositories cycle through the
        # pairs again) says which it is, for the same reason.
        "semantics": {"expression": f"{family.semantics} (at the shapes of {model.slug})"
                                    + (f", generation {generation + 1}" if generation else ""),
                      "mutation": "none", "determinism": "deterministic"},
    }
    return envelope("OperationSpec", metadata, spec)


def _bind(family: Family, model: Model, bound: dict[str, int]) -> dict[str, int]:
    values = dict(bound)
    for axis, spec in family.axes.items():
        if spec.startswith("const:"):
            values[axis] = _axis_value(spec, model)
    for axis, spec in family.axes.items():  # derived axes in this module only refer to earlier ones
        if spec != "var" and not spec.startswith("const:"):
            values[axis] = parse_expression(spec).evaluate(values)
    return values


def _tensor_bytes(items: list[tuple[str, list[str], str]], axes: dict[str, int], dtype: str) -> float:
    total = 0.0
    for _, shape, declared in items:
        count = 1
        for dim in shape:
            count *= axes[dim]
        total += count * DTYPE_BYTES[dtype if declared == "float" else declared]
    return total


_TOLERANCE = {"fp32": 1e-5, "bf16": 1.6e-2, "fp16": 1e-3}


def _workloads(rng: random.Random, kernel: str, family: Family, model: Model) -> list[Workload]:
    # A sub-sweep of every variable axis, crossed: scaling charts need 3+ values of one axis with
    # the others fixed, which a random subset of the full product would not guarantee.
    sweep: dict[str, list[int]] = {}
    for index, (axis, values) in enumerate(family.sweeps.items()):
        count = rng.randint(3, min(5, len(values))) if index == 0 else rng.randint(2, min(3, len(values)))
        start = rng.randint(0, len(values) - count)
        sweep[axis] = values[start:start + count]
    dtypes = ["bf16"] + rng.sample(family.dtypes[1:], rng.randint(0, 1)) if "bf16" in family.dtypes else family.dtypes[:1]
    workloads = []
    for combination in itertools.product(*sweep.values(), dtypes):
        bound = dict(zip(sweep, combination[:-1]))
        dtype = combination[-1]
        axes = _bind(family, model, bound)
        name = kernel + "-" + "-".join(f"{axis.replace('_', '')}{value}" for axis, value in bound.items()) + f"-{dtype}"
        tolerance = _TOLERANCE.get(dtype, 1e-1)
        document = envelope("WorkloadCase", {"name": name, "title": ", ".join(f"{a} = {v}" for a, v in bound.items()) + f" · {dtype}"}, {
            "operation": kernel,
            "axes": bound,
            "dtype": dtype,
            "correctness": {"comparator": "allclose", "maxAbsoluteError": tolerance, "maxRelativeError": tolerance},
        })
        io_bytes = _tensor_bytes(family.inputs, axes, dtype) + _tensor_bytes(family.outputs, axes, dtype)
        flops = parse_expression(family.flops).evaluate(axes) if family.flops else 0
        workloads.append(Workload(name, document, io_bytes, flops, dtype, bound))
    return workloads


def _suite(kernel: str, workloads: list[Workload]) -> Workload:
    """One suite over the bf16 cases, as leaderboards that score a kernel by its mean publish them."""
    cases = [w for w in workloads if w.dtype == "bf16"]
    name = f"{kernel}-suite"
    document = envelope("WorkloadSuite", {"name": name, "title": f"All {len(cases)} bf16 shapes"}, {
        "operation": kernel,
        "cases": [{"externalId": w.name, "axes": w.axes} for w in cases],
        "dtype": "bf16",
        "correctness": cases[0].document["spec"]["correctness"],
        "aggregation": {"metric": "latency", "statistic": "mean"},
    })
    total_bytes = sum(w.io_bytes for w in cases) / len(cases)
    total_flops = sum(w.flops for w in cases) // len(cases)
    return Workload(name, document, total_bytes, total_flops, "bf16", {}, suite=True)


# ---------------------------------------------------------------------------------------------
# Projects and implementations

# slug, name, kind, repository, package, version, license, (language, quality range, overhead µs), baseline
PROJECTS = (
    ("pytorch", "PyTorch", "library", "https://github.com/pytorch/pytorch", "torch", "2.6.0", "BSD-3-Clause"),
    ("transformers", "Hugging Face Transformers", "library", "https://github.com/huggingface/transformers", "transformers", "4.51.3", "Apache-2.0"),
    ("liger-kernel", "Liger-Kernel", "library", "https://github.com/linkedin/Liger-Kernel", "liger-kernel", "0.6.1", "BSD-2-Clause"),
    ("unsloth", "Unsloth", "library", "https://github.com/unslothai/unsloth", "unsloth", "2025.6.1", "Apache-2.0"),
    ("flashinfer", "FlashInfer", "library", "https://github.com/flashinfer-ai/flashinfer", "flashinfer-python", "0.2.5", "Apache-2.0"),
    ("apex", "NVIDIA Apex", "vendor", "https://github.com/NVIDIA/apex", None, None, "BSD-3-Clause"),
    ("kernelindex", "KernelIndex bundled kernels", "library", "https://github.com/kernelindex/kernelindex", "kernelindex", "0.1.0", "Apache-2.0"),
    ("thunderkittens", "ThunderKittens", "library", "https://github.com/HazyResearch/ThunderKittens", None, None, "MIT"),
    ("quack", "QuACK", "library", "https://github.com/Dao-AILab/quack", "quack-kernels", "0.1.10", "Apache-2.0"),
    ("tilelang", "TileLang", "library", "https://github.com/tile-ai/tilelang", "tilelang", "0.1.4", "MIT"),
    ("cutlass", "CUTLASS", "vendor", "https://github.com/NVIDIA/cutlass", "nvidia-cutlass", "3.9.2", "BSD-3-Clause"),
    ("kernel-hackers", "Kernel hackers (individual submissions)", "individual", None, None, None, None),
)
_PROJECT_BY_SLUG = {row[0]: row for row in PROJECTS}

# project, variant, language, quality range, overhead range (µs), baseline role
VARIANTS = (
    ("pytorch", "eager", "python", (0.25, 0.5), (6, 14), True),
    ("transformers", "reference", "python", (0.22, 0.45), (8, 18), True),
    ("pytorch", "compile", "triton", (0.45, 0.8), (4, 8), False),
    ("liger-kernel", "", "triton", (0.6, 0.9), (3, 6), False),
    ("unsloth", "", "triton", (0.55, 0.88), (3, 6), False),
    ("flashinfer", "", "cuda", (0.65, 0.93), (2, 4), False),
    ("apex", "", "cuda", (0.5, 0.85), (2.5, 5), False),
    ("kernelindex", "", "triton", (0.6, 0.92), (3, 6), False),
    ("thunderkittens", "", "cuda", (0.7, 0.95), (2, 4), False),
    ("quack", "", "cute_dsl", (0.7, 0.95), (2, 4), False),
    ("tilelang", "", "tilelang", (0.6, 0.9), (3, 5), False),
    ("cutlass", "", "cpp", (0.65, 0.94), (2, 4), False),
    ("kernel-hackers", "", "cuda", (0.5, 0.97), (2, 5), False),
)


def project_documents() -> list[dict]:
    documents = []
    for slug, name, kind, repository, package, _, _ in PROJECTS:
        spec: dict = {"name": name, "kind": kind}
        if repository:
            spec["repository"] = repository
        if package:
            spec["packages"] = [{"ecosystem": "pypi", "name": package}]
        documents.append(envelope("SoftwareProject", {"name": slug, "title": name}, spec))
    return documents


def _implementation(rng: random.Random, kernel: Kernel, variant: tuple) -> Implementation:
    project, suffix, language, quality, overhead, baseline = variant
    _, project_name, _, repository, package, version, license_id = _PROJECT_BY_SLUG[project]
    name = f"{project}-{suffix + '-' if suffix else ''}{kernel.name}"
    revision: dict = {}
    if repository:
        revision["repository"] = repository
    if version:
        revision["version"] = version
    else:
        revision["commit"] = "%040x" % rng.getrandbits(160)
    symbol = "".join(part.capitalize() for part in kernel.family.slug.split("_"))
    spec: dict = {
        "project": project,
        "operation": kernel.name,
        "projectRevision": revision,
        "callable": {"language": language, "path": f"{kernel.family.slug}.py", "symbol": f"{symbol}Function"},
        "support": {"hardwareArchitectures": ["sm_80", "sm_90"], "dtypes": list(kernel.family.dtypes)},
    }
    if package and version:
        spec["buildVariants"] = [{"name": "default", "install": {"kind": "pip", "package": package, "version": version}}]
    elif repository:
        spec["buildVariants"] = [{"name": "source", "install": {"kind": "git", "repository": repository,
                                                                "commit": revision.get("commit", "main")}}]
    spec["licensing"] = {"declared": license_id} if license_id else {}
    metadata: dict = {"name": name, "title": f"{project_name}{' ' + suffix if suffix else ''} · {kernel.family.title}"}
    if baseline:
        metadata["labels"] = {"role": "baseline"}
    document = envelope("ImplementationRevision", metadata, spec)
    return Implementation(name, document, project, rng.uniform(*quality), rng.uniform(*overhead), baseline)


# ---------------------------------------------------------------------------------------------
# Protocols and environments

_HARNESS = {"name": "KernelIndex harness", "version": "0.1.0", "repository": "https://github.com/kernelindex/kernelindex"}
_LIGER = {"name": "Liger-Kernel benchmark scripts", "repository": "https://github.com/linkedin/Liger-Kernel"}


def protocols() -> list[Protocol]:
    def harness(timed_pass: str) -> dict:
        return {"harness": _HARNESS, "measurement": {
            "timer": "cuda_events", "primaryStatistic": "median", "synchronization": "cuda_synchronize",
            "warmupIterations": 25, "measuredIterations": 100, "cacheFlush": "l2", "cudaGraph": False,
            "timedPass": timed_pass}, "comparability": {"family": "kernelindex_harness"}}

    def liger(timed_pass: str) -> dict:
        return {"harness": _LIGER, "measurement": {"timer": "cuda_events", "primaryStatistic": "median", "timedPass": timed_pass},
                "comparability": {"family": "liger_kernel_bench", "notes": "triton.testing.do_bench, quantiles 0.5/0.2/0.8."}}

    rows = [
        ("kernelindex-harness-forward", "KernelIndex harness · forward pass", harness("forward"), 1.0, "median", "harness"),
        ("kernelindex-harness-backward", "KernelIndex harness · backward pass", harness("backward"), 2.1, "median", "harness"),
        ("liger-bench-do-bench-forward", "Liger benchmark harness · forward pass", liger("forward"), 1.0, "median", "liger"),
        ("liger-bench-do-bench-full", "Liger benchmark harness · full pass", liger("full"), 3.1, "median", "liger"),
        ("tritonbench-do-bench", "TritonBench · do_bench p50", {
            "harness": {"name": "TritonBench", "repository": "https://github.com/meta-pytorch/tritonbench"},
            "measurement": {"timer": "cuda_events", "primaryStatistic": "median", "timedPass": "forward"},
            "comparability": {"family": "tritonbench"}}, 1.02, "median", "tritonbench"),
        ("gpumode-eval-mean", "GPU MODE reference-kernels eval.py · mean", {
            "harness": {"name": "reference-kernels eval.py", "repository": "https://github.com/gpu-mode/reference-kernels"},
            "measurement": {"timer": "cuda_events", "primaryStatistic": "mean", "timedPass": "forward"},
            "comparability": {"family": "gpu_mode"}}, 1.05, "mean", "gpumode"),
    ]
    return [Protocol(slug, envelope("BenchmarkProtocol", {"name": slug, "title": title}, spec), factor, statistic, style)
            for slug, title, spec, factor, statistic, style in rows]


# released, CUDA, driver, torch, triton
STACKS = (
    ("2023-01-15", "12.1", "530.30.02", "2.1.2", "2.1.0"),
    ("2023-10-04", "12.2", "535.104.05", "2.2.1", "2.2.0"),
    ("2024-07-24", "12.4", "550.54.15", "2.4.1", "3.0.0"),
    ("2025-01-29", "12.6", "560.35.03", "2.6.0", "3.2.0"),
    ("2025-08-06", "12.8", "570.124.06", "2.8.0", "3.4.0"),
)
ROCM = (("2023-12-15", "6.0.2", "2.2.1", "2.2.0"), ("2024-10-03", "6.2.4", "2.5.1", "3.1.0"), ("2025-07-30", "6.4.1", "2.8.0", "3.4.0"))


def environments(gpus: list[Gpu]) -> list[Environment]:
    envs: list[Environment] = []
    for gpu in gpus:
        hardware: dict = {"vendor": gpu.vendor, "product": gpu.product, "architecture": gpu.architecture}
        if gpu.form_factor:
            hardware["formFactor"] = gpu.form_factor
        if gpu.memory_bytes:
            hardware["memoryBytes"] = gpu.memory_bytes
        hardware["count"] = 1
        if gpu.vendor == "amd":
            stacks = [(released, None, None, torch, triton, rocm) for released, rocm, torch, triton in ROCM]
        else:
            stacks = [(released, cuda, driver, torch, triton, None) for released, cuda, driver, torch, triton in STACKS]
        # Every GPU gets the stacks current in its lifetime, and at least the last two.
        usable = [stack for stack in stacks if date.fromisoformat(stack[0]) >= gpu.released] or []
        usable = stacks[-max(2, len(usable)):]
        for index, (released, cuda, driver, torch, triton, rocm) in enumerate(usable):
            software: dict = {"operatingSystem": "Ubuntu 22.04"}
            if driver:
                software["driver"] = driver
            if cuda:
                software["cudaToolkit"] = cuda
            software["framework"] = {"name": "pytorch", "version": torch}
            software["libraries"] = {"triton": triton, **({"rocm": rocm} if rocm else {})}
            toolkit = f"cu{cuda.replace('.', '')}" if cuda else f"rocm{rocm}"
            name = f"{gpu.short}-{toolkit}-torch{torch}"
            title = f"{gpu.product} · {'CUDA ' + cuda if cuda else 'ROCm ' + rocm} · PyTorch {torch}"
            document = envelope("ExecutionEnvironment", {"name": name, "title": title},
                                {"hardware": hardware, "software": software})
            envs.append(Environment(name, document, gpu, date.fromisoformat(released), 1.0 + 0.03 * index))
    return envs


# ---------------------------------------------------------------------------------------------


@dataclass
class World:
    kernels: list[Kernel]
    protocols: dict[str, Protocol]
    environments: list[Environment]
    projects: list[dict]


def build_world(rng: random.Random, runs: int, gpus: list[Gpu]) -> World:
    all_protocols = protocols()
    kernels: list[Kernel] = []
    pairs = [(family, model) for model in MODELS for family in FAMILIES]
    for index in range(kernel_count(runs)):
        family, model = pairs[index % len(pairs)]
        generation = index // len(pairs)
        name = f"{family.slug.replace('_', '-')}-{model.slug}" + (f"-g{generation + 1}" if generation else "")
        workloads = _workloads(rng, name, family, model)
        headline = workloads[len(workloads) // 2].name
        kernel = Kernel(name, family, model, _kernel_document(name, family, model, headline, generation), workloads)
        if rng.random() < 0.25:
            kernel.workloads.append(_suite(name, workloads))
        # The eager baseline is always there; a handful of others compete against it.
        variants = [VARIANTS[0]] + ([VARIANTS[1]] if rng.random() < 0.5 else []) + rng.sample(VARIANTS[2:], rng.randint(2, 5))
        kernel.implementations = [_implementation(rng, kernel, variant) for variant in variants]
        kernel.protocols = ["kernelindex-harness-forward"] + rng.sample(
            [p.name for p in all_protocols[1:]], rng.randint(1, 3))
        # A few kernels are popular, most see a modest number of runs (Zipf-like).
        kernel.weight = 1.0 / (1 + rng.random() * len(pairs)) ** 0.8
        kernels.append(kernel)
    return World(kernels, {p.name: p for p in all_protocols}, environments(gpus), project_documents())
