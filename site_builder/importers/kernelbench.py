"""`kernelindex import kernelbench PATH...`: KernelBench's baseline timings as data files.

Every row of a timing file (see ``kernelbench_timing``) becomes one BenchmarkRun whose timing is
what KernelBench measured: the **mean** of its CUDA-event trials (``primaryStatistic: mean``),
with min and max beside it and the standard deviation as a measurement, never called a median.

Around the runs it writes what they refer to:

- one OperationSpec per problem and *revision*: the problem file read without executing it
  (``kernelbench_problems``). A problem-set version that changed what a problem computes (its
  model code, constructor arguments or input signature) gets a new kernel
  (``<kernel>-r<set>``); one that only resized it is a new workload of the same kernel;
- one WorkloadCase per (kernel, constant values): the module constants bound as axes;
- one BenchmarkProtocol per problem-set version (``kernelbench-timing-<set>``), so runs measured
  on different versions never share a comparison group (the July 2025 v0.1 set enlarged the
  sizes: its timings are not comparable with earlier ones);
- one ImplementationRevision per (configuration, kernel): PyTorch eager (the baseline) and each
  torch.compile mode;
- one ExecutionEnvironment per (GPU, provider).

A problem the importer cannot resolve (no problem set, a file missing from it, a file it cannot
read) is reported with the reason and its rows are skipped; a malformed timing file is an error
and nothing is written. Hand-written files (the source, the project, datasheets) must exist.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schemas.common import API_VERSION
from schemas.kinds import model_for

from .kernelbench_problems import Argument, Problem, read_problem_set
from .kernelbench_timing import Row, TimingFile, find_index, read_timing_file, timing_paths
from .liger import bounded, slugify
from .output import ImporterError, Plan, Report, apply

IMPORTER = "kernelindex import kernelbench"
SOURCE = "kernelbench"
PROJECT = "kernelbench"
RUN_FOLDER = f"runs/{SOURCE}"
REPOSITORY = "https://github.com/ScalingIntelligence/KernelBench"
KERNEL_PREFIX = "kernelbench"
# The kernel slug leaves room for a revision suffix and an implementation prefix inside SLUG_MAX.
KERNEL_SLUG_MAX = 64


@dataclass(frozen=True)
class Gpu:
    slug: str
    label: str
    vendor: str
    product: str
    architecture: str
    form_factor: str | None = None


# The `hardware` strings of the published rows (torch.cuda.get_device_name), with the identity
# the datasheets under data/hardware match on (the same spelling the Liger environments use).
GPUS = {
    "NVIDIA L40S": Gpu("l40s", "L40S", "nvidia", "NVIDIA L40S", "sm_89"),
    "NVIDIA A100-SXM4-80GB": Gpu("a100-sxm4-80gb", "A100 SXM4 80GB", "nvidia", "NVIDIA A100", "sm_80", "SXM4-80GB"),
    "NVIDIA A100-SXM4-40GB": Gpu("a100-sxm4-40gb", "A100 SXM4 40GB", "nvidia", "NVIDIA A100", "sm_80", "SXM4-40GB"),
    "Tesla T4": Gpu("t4", "T4", "nvidia", "NVIDIA T4", "sm_75"),
    "NVIDIA A10G": Gpu("a10g", "A10G", "nvidia", "NVIDIA A10G", "sm_86"),
    "NVIDIA A10": Gpu("a10", "A10", "nvidia", "NVIDIA A10", "sm_86"),
    "NVIDIA L4": Gpu("l4", "L4", "nvidia", "NVIDIA L4", "sm_89"),
    "NVIDIA H100 80GB HBM3": Gpu("h100-sxm", "H100 SXM", "nvidia", "NVIDIA H100", "sm_90", "80GB HBM3"),
    "NVIDIA H100 PCIe": Gpu("h100-pcie", "H100 PCIe", "nvidia", "NVIDIA H100", "sm_90", "PCIe"),
    "NVIDIA B200": Gpu("b200", "B200", "nvidia", "NVIDIA B200", "sm_100"),
}
PROVIDER_TITLES = {"modal": "Modal", "together": "Together AI", "lambdalabs": "Lambda Labs"}


def gpu_of(hardware: str) -> Gpu:
    """A known GPU, else one named after the string (its architecture unknown, so no datasheet)."""
    if hardware in GPUS:
        return GPUS[hardware]
    vendor = "nvidia" if re.search(r"nvidia|tesla|geforce|quadro", hardware, re.I) else \
        "amd" if re.search(r"amd|instinct|radeon", hardware, re.I) else "unknown"
    return Gpu(slugify(hardware)[:40] or "unknown", hardware, vendor, hardware, "unknown")


# Operator families, by the first keyword of a problem's name that matches (level 1 and 2 names
# list the operators: "Conv2d_ReLU_BiasAdd" is a convolution chain). Order matters: the most
# specific first.
FAMILY_KEYWORDS = (
    ("convtranspose", "convolution-transposed"), ("conv_transpose", "convolution-transposed"),
    ("transposed_conv", "convolution-transposed"), ("conv", "convolution"),
    ("matmul", "matmul"), ("gemm", "matmul"), ("matrix", "matmul"), ("bmm", "matmul"), ("linear", "matmul"),
    ("attention", "attention"), ("transformer", "attention"), ("vit", "attention"), ("swin", "attention"),
    ("lstm", "recurrent"), ("gru", "recurrent"), ("rnn", "recurrent"), ("mamba", "recurrent"),
    ("loss", "loss"), ("cross_entropy", "loss"), ("kldiv", "loss"),
    ("norm", "normalization"),
    ("pool", "pooling"),
    ("softmax", "softmax"),
    ("cumsum", "scan"), ("cumprod", "scan"), ("scan", "scan"),
    ("argmax", "reduction"), ("argmin", "reduction"), ("sum_reduction", "reduction"),
    ("mean_reduction", "reduction"), ("max_reduction", "reduction"), ("min_reduction", "reduction"),
    ("product_reduction", "reduction"), ("reduction", "reduction"),
    ("relu", "activation"), ("gelu", "activation"), ("sigmoid", "activation"), ("tanh", "activation"),
    ("swish", "activation"), ("selu", "activation"), ("elu", "activation"), ("softplus", "activation"),
    ("softsign", "activation"), ("hardtanh", "activation"), ("mish", "activation"),
    ("resnet", "cnn"), ("vgg", "cnn"), ("densenet", "cnn"), ("efficientnet", "cnn"), ("mobilenet", "cnn"),
    ("squeezenet", "cnn"), ("googlenet", "cnn"), ("alexnet", "cnn"), ("lenet", "cnn"), ("regnet", "cnn"),
    ("shufflenet", "cnn"), ("convnext", "cnn"), ("unet", "cnn"), ("inception", "cnn"),
    ("mlp", "mlp"),
)


def operator_family(problem: Problem) -> str:
    name = problem.name.lower()
    for keyword, family in FAMILY_KEYWORDS:
        if keyword in name:
            return family
    return "other"


def family_slug(problem: Problem) -> str:
    """The OperationSpec family: KernelBench's own, by level, so its hundreds of problems group
    apart from hand-curated kernels (``kernelbench-l2-convolution``)."""
    return f"kernelbench-l{problem.level}-{operator_family(problem)}"


# --------------------------------------------------------------------------------------------
# Problem sets and the kernels they define


@dataclass(frozen=True)
class ProblemSet:
    name: str  # the commit it was read at (7 hex), or the --problems folder's name
    commit: str | None  # full commit, when known (for source links)
    problems: dict[str, Problem]
    failures: dict[str, str]
    upstream_prefix: str = "KernelBench"  # where level<N>/ sits in the upstream repository


@dataclass
class Kernels:
    """Kernel (revision) and workload names for every problem of every known problem set.

    Names depend on every set read, in order, never on which timing files were imported: the
    first computation of a problem keeps the plain name, a later one is ``-r<set>``; so
    importing one file or all of them names things alike.
    """

    sets: list[ProblemSet]
    kernel_of: dict[tuple[str, str], str] = field(default_factory=dict)  # (set, key) -> kernel
    workload_of: dict[tuple[str, str], str] = field(default_factory=dict)  # (set, key) -> workload
    first: dict[str, tuple[ProblemSet, Problem]] = field(default_factory=dict)  # kernel -> where first seen
    shapes_first: dict[str, tuple[ProblemSet, Problem]] = field(default_factory=dict)  # workload -> first seen

    def __post_init__(self) -> None:
        revisions: dict[tuple[str, str], str] = {}  # (key, computation) -> kernel
        workloads: dict[tuple[str, tuple], str] = {}  # (kernel, shapes) -> workload
        for problem_set in self.sets:
            for key, problem in sorted(problem_set.problems.items()):
                base = base_slug(problem)
                kernel = revisions.get((key, problem.computation))
                if kernel is None:
                    taken = any(k == key for k, _ in revisions)
                    kernel = base if not taken else bounded(f"{base}-r{slugify(problem_set.name)}", f"{key}@{problem_set.name}")
                    revisions[(key, problem.computation)] = kernel
                    self.first[kernel] = (problem_set, problem)
                self.kernel_of[(problem_set.name, key)] = kernel
                shapes = (tuple(sorted(problem.constants.items())), tuple(a.dtype for a in problem.inputs))
                workload = workloads.get((kernel, shapes))
                if workload is None:
                    workload = bounded(f"{kernel}-s{slugify(problem_set.name)}", f"{kernel}@{problem_set.name}")
                    workloads[(kernel, shapes)] = workload
                    self.shapes_first[workload] = (problem_set, problem)
                self.workload_of[(problem_set.name, key)] = workload


def base_slug(problem: Problem) -> str:
    text = f"{KERNEL_PREFIX}-l{problem.level}-{problem.number}-{slugify(problem.name)}"
    if len(text) <= KERNEL_SLUG_MAX:
        return text
    return text[: KERNEL_SLUG_MAX - 9].rstrip("-") + "-" + hashlib.sha256(text.encode()).hexdigest()[:8]


def load_problem_sets(bundled_root: Path | None, extra: Path | None) -> list[ProblemSet]:
    """The bundled sets (oldest first, by the first timing file INDEX.csv pairs with each), then --problems."""
    sets: list[ProblemSet] = []
    if bundled_root is not None:
        located = find_index(bundled_root / "INDEX.csv")
        order: dict[str, tuple[str, str]] = {}
        if located:
            for entry in located[1].values():
                name = Path(entry.problems).name
                seen = order.get(name)
                if seen is None or entry.commit_date < seen[0]:
                    order[name] = (entry.commit_date, entry.commit)
        folders = [folder for folder in (bundled_root / "problems").iterdir() if folder.is_dir()] \
            if (bundled_root / "problems").is_dir() else []
        for folder in sorted(folders, key=lambda f: (order.get(f.name, ("9999", ""))[0], f.name)):
            problems, failures = read_problem_set(folder)
            commit = order.get(folder.name, (None, None))[1]
            sets.append(ProblemSet(folder.name, commit, problems, failures))
    if extra is not None:
        problems, failures = read_problem_set(extra)
        name = slugify(extra.resolve().name) or "problems"
        if name not in {s.name for s in sets}:
            sets.append(ProblemSet(name, None, problems, failures))
    return sets


# --------------------------------------------------------------------------------------------
# Documents


def _envelope(kind: str, metadata: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": metadata, "spec": spec}


def source_url(problem_set: ProblemSet, problem: Problem) -> str | None:
    if problem_set.commit is None:
        return None
    return f"{REPOSITORY}/blob/{problem_set.commit}/{problem_set.upstream_prefix}/level{problem.level}/{problem.file_name}"


def _tensor(argument: Argument) -> dict[str, Any]:
    if argument.shape is None:
        return {"name": argument.name, "scalar": {"dtype": argument.dtype}}
    return {"name": argument.name, "tensor": {"shape": list(argument.shape), "dtype": argument.dtype}}


def problem_title(problem: Problem) -> str:
    words = problem.name.replace("_", " ").strip()
    return f"L{problem.level} #{problem.number} · {words}"


def operation_document(kernel: str, problem_set: ProblemSet, problem: Problem, revision_note: str | None) -> dict[str, Any]:
    url = source_url(problem_set, problem)
    link = f"[`level{problem.level}/{problem.file_name}`]({url})" if url else f"`level{problem.level}/{problem.file_name}`"
    lines = [
        f"KernelBench level {problem.level}, problem {problem.number}: "
        + (problem.summary or f"the model of {problem.file_name}."),
        f"Source: {link} (problem set {problem_set.name}). The inputs and their shapes are read from the file's "
        "module constants and `get_inputs()` without running it; the output is **not declared** (its shape "
        "would need the model to run), so the floor counts the inputs only.",
    ]
    if problem.init_arguments:
        lines.append("Constructor arguments (`get_init_inputs()`): " + ", ".join(f"`{a}`" for a in problem.init_arguments) + ".")
    if problem.settings:
        lines.append("Other module constants: " + ", ".join(f"`{k} = {v}`" for k, v in problem.settings.items()) + ".")
    if revision_note:
        lines.append(revision_note)
    lines.append(f"Written by `{IMPORTER}` from KernelBench (MIT License, Copyright (c) 2023 Anne Ouyang, "
                 "Simon Guo, Azalia Mirhoseini).")
    axes: dict[str, Any] = {axis: {"role": "variable"} for axis in sorted(problem.constants)}
    for name, expression in sorted(problem.derived.items()):
        axes[name] = {"role": "derived", "expression": expression}
    forward = problem.forward
    expression = f"KernelBench level{problem.level}/{problem.file_name} ({kernel}): Model.forward =\n{forward}"
    if len(expression) > 2000:
        expression = expression[:1960].rsplit("\n", 1)[0] + "\n# ... (truncated; see the source file)"
    metadata = {
        "name": kernel,
        "title": problem_title(problem),
        "description": "\n\n".join(lines),
        "aliases": [f"level{problem.level}/{problem.file_name}"],
        "labels": {
            "kernelbench_level": str(problem.level),
            "kernelbench_problem": str(problem.number),
            "kernelbench_family": operator_family(problem),
            "kernelbench_file": problem.file_name[:300],
            "outputs": "undeclared",
            **({"kernelbench_source": url} if url else {}),
        },
        "sources": [SOURCE],
    }
    spec = {
        "family": family_slug(problem),
        "axes": axes,
        "inputs": [_tensor(argument) for argument in problem.inputs],
        # The output's shape needs the model to run: declared as an undimensioned placeholder.
        "outputs": [{"name": "output", "tensor": {"shape": [], "dtype": "float"}}],
        "semantics": {"expression": expression, "determinism": "unspecified"},
    }
    return _envelope("OperationSpec", metadata, spec)


def workload_document(name: str, kernel: str, problem_set: ProblemSet, problem: Problem) -> dict[str, Any]:
    shown = " · ".join(f"{axis} = {value}" for axis, value in sorted(problem.constants.items())) or "fixed shapes"
    metadata = {
        "name": name,
        # Later versions with the same sizes share this workload: it is named after the first.
        "title": f"{shown} · fp32 (sizes as of problem set {problem_set.name})"[:300],
        "labels": {"kernelbench_problem_set": problem_set.name},
    }
    spec = {
        "operation": kernel,
        "axes": dict(sorted(problem.constants.items())),
        # torch's default dtype: KernelBench builds its inputs with torch.rand/randn.
        "dtype": "fp32",
        # Baseline timings run the reference model itself: nothing is compared.
        "correctness": {"comparator": "not_asserted"},
    }
    return _envelope("WorkloadCase", metadata, spec)


def protocol_name(problem_set: ProblemSet) -> str:
    return f"kernelbench-timing-{slugify(problem_set.name)}"


def protocol_document(problem_set: ProblemSet) -> dict[str, Any]:
    harness: dict[str, Any] = {"name": "KernelBench timing script (scripts/generate_baseline_time.py)",
                               "repository": REPOSITORY}
    if problem_set.commit:
        harness["commit"] = problem_set.commit
    metadata = {
        "name": protocol_name(problem_set),
        "title": f"KernelBench baseline timing · problem set {problem_set.name}",
        "labels": {"pass": "forward", "kernelbench_problem_set": problem_set.name},
    }
    spec = {
        "harness": harness,
        "measurement": {"timer": "cuda_events", "primaryStatistic": "mean", "timedPass": "forward"},
        "comparability": {
            "family": f"kernelbench_{slugify(problem_set.name).replace('-', '_')}",
            "notes": (
                "Timed: one forward call of the problem's Model, with CUDA events, over num_trials trials "
                "(100 in the published files); the files keep the mean, standard deviation, minimum and "
                "maximum in ms, rounded to three significant figures. The mean is the primary statistic. "
                f"Only timings measured on problem set {problem_set.name} are comparable with each other: "
                "other versions of KernelBench changed the problem sizes (v0.1, July 2025) or code. "
                "The files record the GPU but no driver, CUDA or torch version."
            ),
        },
    }
    return _envelope("BenchmarkProtocol", metadata, spec)


def environment_name(gpu: Gpu, provider: str) -> str:
    return f"kernelbench-{gpu.slug}-{provider}"


def environment_document(gpu: Gpu, provider: str, hardware: str) -> dict[str, Any]:
    provider_title = PROVIDER_TITLES.get(provider, provider)
    metadata = {
        "name": environment_name(gpu, provider),
        "title": f"KernelBench · {gpu.label} · {provider_title}",
        "description": (f"Where KernelBench's timing rows whose hardware is \"{hardware}\" ran, on {provider_title} "
                        "(from the results folder's name, or the machine an early file names). The files record "
                        "the GPU only, so the environment is the hardware alone."),
        "labels": {"provider": provider, "provider_title": provider_title},
    }
    identity: dict[str, Any] = {"vendor": gpu.vendor, "product": gpu.product, "architecture": gpu.architecture}
    if gpu.form_factor:
        identity["formFactor"] = gpu.form_factor
    return _envelope("ExecutionEnvironment", metadata, {"hardware": identity, "software": {}})


def implementation_name(file: TimingFile, kernel: str) -> str:
    return bounded(f"{file.config.slug}-{kernel}", f"{file.config.slug}/{kernel}")


def implementation_document(file: TimingFile, kernel: str) -> dict[str, Any]:
    config = file.config
    metadata: dict[str, Any] = {"name": implementation_name(file, kernel), "title": config.title,
                                "labels": {"kernelbench_config": config.mode}}
    if not config.compiled and config.slug == "pytorch-eager":
        metadata["labels"]["role"] = "baseline"
    spec = {
        "project": "pytorch",
        "operation": kernel,
        "callable": {"language": "python",
                     "interface": "torch.compile(Model)" if config.compiled else "Model.forward"},
        "licensing": {"declared": "BSD-3-Clause"},
    }
    return _envelope("ImplementationRevision", metadata, spec)


def ns(ms: float) -> int:
    return max(1, round(ms * 1e6))


def run_folder(file: TimingFile) -> str:
    """One folder per timing file: re-importing a file replaces exactly its runs."""
    publication = file.publication
    stem = file.path.name.removesuffix(".json").removeprefix("baseline_time_")
    return f"{RUN_FOLDER}/{publication.date}-{publication.commit[:7]}/{slugify(file.path.parent.name)}/{slugify(stem)}"


def run_name(file: TimingFile, gpu: Gpu, row: Row) -> str:
    publication = file.publication
    # The results folder (A100_modal, A100-80GB_modal) rather than the GPU: a few rows of one
    # folder name another GPU than the folder does, and must not collide with that GPU's own.
    where = file.path.parent.name if file.folder_gpu else file.provider
    text = (f"kb-{publication.date}-{publication.commit[:7]}-{where}-"
            f"{file.config.slug.removeprefix('pytorch-').removeprefix('torch-')}-l{row.level}-{row.problem.split('_', 1)[0]}")
    return bounded(slugify(text), f"{file.identity}#{row.key}")


def run_document(file: TimingFile, row: Row, gpu: Gpu, kernel: str, workload: str, problem_set: ProblemSet,
                 title: str) -> dict[str, Any]:
    publication = file.publication
    labels = {
        "kernelbench_problem_set": problem_set.name,
        "kernelbench_file": (publication.upstream_path or file.path.name)[:300],
    }
    if publication.problems is None:
        labels["problem_set_from"] = "--problems"
    elif Path(publication.problems).name != problem_set.name:
        labels["problem_set_from"] = f"file name match (INDEX.csv pairs {Path(publication.problems).name})"
    metadata = {"name": run_name(file, gpu, row), "title": f"{title} · {file.config.title} · {gpu.label}",
                "labels": labels}
    timing: dict[str, Any] = {
        "primaryStatistic": "mean",
        "latencyNs": {"mean": ns(row.mean), "minimum": ns(row.minimum), "maximum": ns(row.maximum)},
    }
    if row.trials:
        timing["samples"] = row.trials
    spec = {
        "implementation": implementation_name(file, kernel),
        "workload": workload,
        "protocol": protocol_name(problem_set),
        "environment": environment_name(gpu, file.provider),
        "status": "passed",
        "timing": timing,
        "measurements": [{"metric": "latency", "statistic": "std", "unit": "ns", "value": round(row.std * 1e6, 3)}],
        "sourceNative": {
            "source": SOURCE,
            "benchmark": f"{file.config.mode}/{row.key}"[:200],
            "externalId": f"{file.identity}#{row.key}"[:300],
            "metrics": {"mean_ms": row.mean, "std_ms": row.std, "min_ms": row.minimum, "max_ms": row.maximum},
        },
        "observedAt": publication.observed_at,
    }
    return _envelope("BenchmarkRun", metadata, spec)


# --------------------------------------------------------------------------------------------
# The import


@dataclass
class KernelBenchReport:
    files: int = 0
    rows: int = 0
    runs: int = 0
    skipped_files: list[str] = field(default_factory=list)
    # reason -> the rows (file#problem) it kept out
    unresolved: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    notes: list[str] = field(default_factory=list)
    output: Report | None = None

    def summary(self) -> str:
        skipped = sum(len(rows) for rows in self.unresolved.values())
        text = f"{self.files} timing files, {self.rows} rows: {self.runs} runs, {skipped} rows skipped"
        return text + (f"; {self.output.summary()}" if self.output else "")


REQUIRED = (f"sources/{SOURCE}.yaml", "projects/pytorch.yaml")


def _problem_set_for(file: TimingFile, sets: list[ProblemSet], override: ProblemSet | None) -> ProblemSet | None:
    if override is not None:
        return override
    if file.publication.problems is not None:
        name = Path(file.publication.problems).name
        return next((s for s in sets if s.name == name), None)
    return None


def _by_file_name(key: str, paired: ProblemSet, sets: list[ProblemSet]) -> ProblemSet | None:
    position = sets.index(paired)
    for candidate in [*reversed(sets[:position]), *sets[position + 1:]]:
        if key in candidate.problems:
            return candidate
    return None


def _folder_names_other_gpu(folder_gpu: str, hardware: str) -> bool:
    """``A10G`` against "NVIDIA A10": every token of the folder's GPU must be in the row's name."""
    words = set(re.split(r"[\s_-]+", hardware.lower()))
    compact = hardware.lower().replace("-", "").replace(" ", "")
    return not all(token in words or token in compact for token in re.split(r"[_-]+", folder_gpu.lower()) if token)


def plan_import(files: list[TimingFile], sets: list[ProblemSet], override: ProblemSet | None,
                report: KernelBenchReport) -> Plan:
    plan = Plan(IMPORTER)
    kernels = Kernels(sets)
    external: dict[str, str] = {}
    for file in files:
        problem_set = _problem_set_for(file, sets, override)
        if problem_set is None:
            reason = "no problem set: the file is not in an INDEX.csv; pass --problems"
            report.rows += len(file.rows) + len(file.missing)
            report.unresolved[reason].extend(f"{file.path}#{row.key}" for row in file.rows)
            report.unresolved[reason].extend(f"{where} {key}" for key, where in file.missing)
            continue
        plan.add(f"protocols/{protocol_name(problem_set)}.yaml", protocol_document(problem_set))
        for key, where in file.missing:
            report.rows += 1
            report.unresolved["no timing: the file has null for this problem (its timing failed upstream)"].append(
                f"{where} {key}")
        for row in file.rows:
            report.rows += 1
            row_set = problem_set
            problem = problem_set.problems.get(row.key)
            if problem is None and row.key not in problem_set.failures and override is None:
                # Measured on another version than the one at its publishing commit: the same
                # file name in the nearest other set (earlier ones first), said in the run's labels.
                row_set = _by_file_name(row.key, problem_set, sets)
                problem = row_set.problems.get(row.key) if row_set else None
            if problem is None or row_set is None:
                reason = problem_set.failures.get(row.key) or (
                    f"{row.key} is in no problem set read (paired set: {problem_set.name}); the file was "
                    "measured on a version of KernelBench that is not bundled")
                report.unresolved[reason].append(f"{file.path}:{row.line} {row.key}")
                continue
            if row_set is not problem_set:
                note = f"{file.path}: {row.key} is not in {problem_set.name}; matched by file name in {row_set.name}"
                report.notes.append(note)
                plan.add(f"protocols/{protocol_name(row_set)}.yaml", protocol_document(row_set))
            gpu = gpu_of(row.hardware)
            if file.folder_gpu and _folder_names_other_gpu(file.folder_gpu, row.hardware):
                note = f"{file.path}: folder names {file.folder_gpu}, rows say {row.hardware}; the rows win"
                if note not in report.notes:
                    report.notes.append(note)
            kernel = kernels.kernel_of[(row_set.name, row.key)]
            workload = kernels.workload_of[(row_set.name, row.key)]
            first_set, first_problem = kernels.first[kernel]
            note = None
            if kernel != base_slug(problem):
                note = (f"This revision first appears in problem set {first_set.name}: an earlier set's "
                        f"`{problem.file_name}` computed something else (kernel `{base_slug(problem)}`).")
            plan.add(f"kernels/{kernel}.yaml", operation_document(kernel, first_set, first_problem, note))
            shapes_set, shapes_problem = kernels.shapes_first[workload]
            plan.add(f"workloads/{kernel}/{workload}.yaml", workload_document(workload, kernel, shapes_set, shapes_problem))
            plan.add(f"implementations/{implementation_name(file, kernel)}.yaml", implementation_document(file, kernel))
            plan.add(f"environments/{environment_name(gpu, file.provider)}.yaml",
                     environment_document(gpu, file.provider, row.hardware))
            run = run_document(file, row, gpu, kernel, workload, row_set, problem_title(problem))
            name = run["metadata"]["name"]
            if name in external:
                raise ImporterError(f"{file.path}:{row.line}: run {name} would be written twice "
                                    f"(also from {external[name]})")
            external[name] = f"{file.path}:{row.line}"
            plan.add(f"{run_folder(file)}/{name}.yaml", run)
            report.runs += 1
    _validate(plan)
    return plan


def _validate(plan: Plan) -> None:
    """Every planned document against its schema, so a mapping slip fails here, not in validate."""
    for path, document in plan.documents.items():
        try:
            model_for(document["kind"]).model_validate(document)
        except ValueError as error:
            raise ImporterError(f"{path}: the importer built an invalid document: {error}") from None


def bundled_root_of(paths: list[Path]) -> Path | None:
    for path in paths:
        located = find_index(path)
        if located:
            return located[0]
    return None


def import_kernelbench(paths: list[Path], data_dir: Path, problems: Path | None = None,
                       progress=lambda message: None) -> KernelBenchReport:
    report = KernelBenchReport()
    missing = [path for path in REQUIRED if not (data_dir / path).is_file()]
    if missing:
        raise ImporterError(f"{data_dir}: hand-written files the runs refer to are missing: {', '.join(missing)}")
    files: list[TimingFile] = []
    found = timing_paths(paths)
    for number, path in enumerate(found, start=1):
        progress(f"[{number}/{len(found)}] reading {path}")
        result = read_timing_file(path)
        if isinstance(result, str):
            report.skipped_files.append(result)
        else:
            files.append(result)
    report.files = len(files)
    progress("reading the problem sets")
    sets = load_problem_sets(bundled_root_of(found), problems)
    override = next((s for s in sets if problems is not None and s.name == (slugify(problems.resolve().name) or "problems")), None)
    progress("planning")
    plan = plan_import(files, sets, override, report)
    progress(f"writing {len(plan.documents)} documents")
    # Prune only what this import covers: the run folder of each timing file it read.
    folders = sorted({run_folder(f) for f in files})
    report.output = apply(plan, data_dir, prune_under=tuple(folders))
    return report
