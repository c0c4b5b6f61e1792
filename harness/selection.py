"""Selection: what the user asked for (kernels, workloads, implementations, passes) -> a Plan.

Pure: it reads a DataIndex and a description of each kernel family (which implementations are
importable here, which passes they have), so it is tested without torch or a GPU.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .axes import DTYPE_TORCH, family_axes
from .datarepo import DataIndex, Doc
from .implementations import implementation_file, implementation_name
from .plan import PASSES, Plan, SuiteRef, Task, TimingOptions

DEFAULT_PASSES = ("forward", "backward")
# The order implementations are listed and measured in: ours first, then peers, then the floor.
IMPL_ORDER = ("kernelindex-triton", "liger", "transformers", "torch-compile", "pytorch-sdpa", "pytorch-reference")


class SelectionError(ValueError):
    """The request names something that does not exist: a one-line message for the user."""


@dataclass(frozen=True)
class FamilyInfo:
    slug: str
    forward: tuple[str, ...]           # implementation keys with a forward
    backward: tuple[str, ...] = ()     # implementation keys with a backward
    passes: tuple[str, ...] = ("forward",)
    dtypes: tuple[str, ...] = ("bfloat16", "float16", "float32")
    versions: dict = field(default_factory=dict)   # impl key -> package version, for labels and files
    variants: dict = field(default_factory=dict)   # impl key -> {variant name: extra kwargs} (forward only)


def family_infos(slugs=None) -> dict[str, FamilyInfo]:
    """Describe the bundled families (imports torch and whichever peers are installed). Without
    torch (the site builder's install), our own implementations only, from ``kernels.static``: a
    plan can be printed anywhere, though only a GPU machine can measure it."""
    from kernels.precision import VARIANTS

    from .versions import peer_versions

    versions = peer_versions()
    infos = {}
    for slug, (dtypes, passes, forward, backward) in _described_families().items():
        if slugs is not None and slug not in slugs:
            continue
        infos[slug] = FamilyInfo(slug=slug, forward=forward, backward=backward, passes=passes, dtypes=dtypes,
                                 versions=versions, variants=VARIANTS.get(slug, {}))
    return infos


def _described_families() -> dict[str, tuple]:
    """slug -> (dtypes, passes, forward keys, backward keys), importing the families where torch is."""
    try:
        import torch  # noqa: F401
    except ImportError:
        from kernels.static import STATIC_FAMILIES

        return STATIC_FAMILIES
    import kernels

    return {slug: (tuple(family.dtypes), tuple(family.passes), tuple(family.implementations),
                   tuple(family.backward_implementations)) for slug, family in kernels.FAMILIES.items()}


def _order(keys) -> list[str]:
    return sorted(keys, key=lambda k: (IMPL_ORDER.index(k) if k in IMPL_ORDER else len(IMPL_ORDER), k))


def select(index: DataIndex, families: dict[str, FamilyInfo], *, kernels: list[str] | None = None,
           workloads: list[str] | None = None, impls: list[str] | None = None, passes: list[str] | None = None,
           cuda_graph: str = "off", timing: TimingOptions | None = None) -> Plan:
    """``cuda_graph``: "off" (CUDA events only), "on" (also graph replay) or "only"."""
    plan = Plan(tasks=[], timing=timing or TimingOptions())
    kernels = list(kernels or [])
    for kernel in kernels:
        if kernel not in families:
            raise SelectionError(f"unknown kernel {kernel!r}; bundled: {', '.join(sorted(families))}")
        if not index.has("OperationSpec", kernel):
            raise SelectionError(f"kernel {kernel!r} has no data/kernels/{kernel}.yaml")
    for name in workloads or []:
        doc = index.workload(name)
        if doc is None:
            raise SelectionError(f"no workload named {name!r} in {index.root}/workloads")
        if not kernels or doc.spec.get("operation") in kernels:
            continue
        raise SelectionError(f"workload {name!r} is for kernel {doc.spec.get('operation')!r}, not {', '.join(kernels)}")
    if not kernels:
        wanted_ops = {index.workload(n).spec.get("operation") for n in workloads or []}
        kernels = sorted(k for k in families if index.has("OperationSpec", k) and (not wanted_ops or k in wanted_ops))
    for p in passes or []:
        if p not in PASSES:
            raise SelectionError(f"unknown pass {p!r}; one of {', '.join(PASSES)}")
    graph_modes = {"off": (False,), "on": (False, True), "only": (True,)}[cuda_graph]

    existing_impls = set(index.of("ImplementationRevision"))
    for kernel in kernels:
        info = families[kernel]
        chosen = _implementations(kernel, info, impls, existing_impls, plan)
        kernel_passes = [p for p in (passes or DEFAULT_PASSES) if p in info.passes]
        for p in passes or []:
            if p not in info.passes:
                plan.skipped.append(f"{kernel}: no {p} pass (the family has {', '.join(info.passes)})")
        cases, suites = _cases(index, kernel, info, workloads, plan)
        for key in chosen:
            name = implementation_name(key, kernel, existing_impls)
            if name not in existing_impls and name not in plan.new_implementations:
                plan.new_implementations[name] = implementation_file(
                    key, kernel, name, project_for_peer=_peer_project(index, key),
                    version=_pinned_version(key, info.versions), family_dtypes=info.dtypes)
            for timed_pass in kernel_passes:
                if timed_pass != "forward" and key not in info.backward:
                    continue
                if timed_pass == "full" and key not in info.forward:
                    continue
                # Other precision settings of the implementation are runs of their own (forward only).
                variants = [""] + (sorted(info.variants.get(key, {})) if timed_pass == "forward" else [])
                for graph in graph_modes:
                    for workload, axes, dtype, suite, case_index in cases:
                        for variant in variants:
                            if variant and not _variant_matters(kernel, key, dtype, variant):
                                continue
                            plan.tasks.append(Task(kernel=kernel, workload=workload, axes=axes, dtype=dtype, impl=key,
                                                   implementation=name, timed_pass=timed_pass, cuda_graph=graph,
                                                   suite=suite, case_index=case_index, variant=variant))
        for suite_name, case_names in suites.items():
            plan.suites.append(SuiteRef(kernel=kernel, suite=suite_name, cases=tuple(case_names)))
    if not plan.tasks:
        plan.skipped.append("nothing to measure: check the kernel, workload, implementation and pass names")
    return plan


def _variant_matters(kernel: str, key: str, dtype: str, variant: str) -> bool:
    """A variant is measured only where it changes the arithmetic (TF32 off means nothing for bf16)."""
    from kernels.precision import reduced_precision

    return reduced_precision(kernel, key, "forward", dtype, variant) != reduced_precision(kernel, key, "forward", dtype)


def _implementations(kernel: str, info: FamilyInfo, wanted: list[str] | None, existing: set[str], plan: Plan) -> list[str]:
    available = set(info.forward) | set(info.backward)
    if not wanted:
        return _order(available)
    chosen = []
    for item in wanted:
        key = _key_for(item, kernel, available, existing)
        if key is None:
            plan.skipped.append(f"{kernel}: implementation {item!r} is not available here "
                                f"(importable: {', '.join(_order(available))})")
        elif key not in chosen:
            chosen.append(key)
    return _order(chosen)


def _key_for(item: str, kernel: str, available: set[str], existing: set[str]) -> str | None:
    """Accept a family key (``liger``) or the data name it is recorded as (``liger-llama4-rope``)."""
    if item in available:
        return item
    for key in available:
        if implementation_name(key, kernel, existing) == item:
            return key
    return None


def _cases(index: DataIndex, kernel: str, info: FamilyInfo, wanted: list[str] | None, plan: Plan):
    """Every case to measure as (workload name, family axes, torch dtype, suite, case index), and
    each suite's case names in the suite's order (a case may also be a workload on its own)."""
    operation = index.get("OperationSpec", kernel)
    docs = [index.workload(n) for n in wanted] if wanted else index.workloads_of(kernel)
    docs = [d for d in docs if d is not None and d.spec.get("operation") == kernel]
    entries: dict[str, tuple] = {}
    suites: dict[str, list[str]] = {}
    for doc in docs:
        if doc.kind == "WorkloadCase":
            entry = _case_entry(operation, doc.name, doc.spec.get("axes") or {}, doc.spec.get("dtype"), info, plan)
            if entry:
                entries.setdefault(entry[0], entry + (None, None))
            continue
        members = suites.setdefault(doc.name, [])
        for position, case in enumerate(doc.spec.get("cases") or []):
            name = _suite_case_workload(index, doc, position, case, info, plan)
            entry = _case_entry(operation, name, case.get("axes") or {}, doc.spec.get("dtype"), info, plan)
            if entry is None:
                continue
            members.append(name)
            if entry[0] not in entries or entries[entry[0]][3] is None:
                entries[entry[0]] = entry + (doc.name, position)
    complete = {suite: names for suite, names in suites.items()
                if len(names) == len((index.workload(suite).spec.get("cases") or []))}
    for suite in sorted(set(suites) - set(complete)):
        plan.skipped.append(f"{suite}: not every case can be measured here, so no suite mean")
    return list(entries.values()), complete


def _case_entry(operation: Doc, name: str, axes: dict, dtype_token, info: FamilyInfo, plan: Plan):
    dtype = DTYPE_TORCH.get(str(dtype_token)) if dtype_token else None
    if dtype is None:
        dtype = _single_float_dtype(operation)
    if dtype is None or dtype not in info.dtypes:
        plan.skipped.append(f"{name}: dtype {dtype_token or '?'} is not one the bundled kernel supports")
        return None
    return (name, family_axes(operation.spec, axes), dtype)


def _single_float_dtype(operation: Doc):
    dtypes = {DTYPE_TORCH.get(str(arg.get("tensor", {}).get("dtype"))) for arg in operation.spec.get("inputs") or []}
    dtypes.discard(None)
    return dtypes.pop() if len(dtypes) == 1 else None


def _suite_case_workload(index: DataIndex, suite: Doc, position: int, case: dict, info: FamilyInfo, plan: Plan) -> str:
    """The WorkloadCase a suite case is recorded under: an existing case with the same axes and
    dtype, else one the harness adds (``<suite>-<axes>``)."""
    operation = suite.spec.get("operation")
    axes = case.get("axes") or {}
    dtype = suite.spec.get("dtype")
    for doc in index.of("WorkloadCase").values():
        if (doc.spec.get("operation") == operation and (doc.spec.get("axes") or {}) == axes
                and doc.spec.get("dtype") == dtype):
            return doc.name
    name = f"{suite.name}-" + "-".join(f"{key.replace('_', '')}{value}" for key, value in axes.items())
    name = name[:100]
    if name not in plan.new_workloads:
        plan.new_workloads[name] = suite_case_file(suite, position, case, name, info)
    return name


def suite_case_file(suite: Doc, position: int, case: dict, name: str, info: FamilyInfo) -> dict:
    from .tolerance import correctness_policy

    count = len(suite.spec.get("cases") or [])
    spec = {"operation": suite.spec.get("operation"), "axes": dict(case.get("axes") or {})}
    if suite.spec.get("dtype"):
        spec["dtype"] = suite.spec["dtype"]
    dtype = DTYPE_TORCH.get(str(suite.spec.get("dtype")), "bfloat16")
    spec["correctness"] = correctness_policy(suite.spec.get("operation"), dtype)
    label = " · ".join(f"{key} = {value}" for key, value in (case.get("axes") or {}).items())
    metadata = {"name": name, "title": f"{label} · {suite.spec.get('dtype') or dtype} (case {position + 1} of {count} of {suite.name})",
                "description": f"Case {position + 1} of the suite `{suite.name}`, added by `kernelindex bench` so each case's "
                               f"measurement is a run of its own; the correctness policy is the harness's.",
                "labels": {"suite": suite.name}}
    if case.get("externalId"):
        metadata["labels"]["suite_case"] = str(case["externalId"])
    return {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "WorkloadCase", "metadata": metadata, "spec": spec}


def _pinned_version(key: str, versions: dict) -> str | None:
    """Our implementations carry KernelIndex's version (the code is ours, torch.compile included);
    a peer adapter carries its package's."""
    from .implementations import OURS

    return versions.get("kernelindex") if key in OURS else versions.get(key)


def _peer_project(index: DataIndex, key: str) -> str | None:
    """The SoftwareProject a peer's implementation belongs to, when data/ has it."""
    from .implementations import PEER_PROJECTS

    project = PEER_PROJECTS.get(key, (None,))[0]
    return project if project and index.has("SoftwareProject", project) else None
