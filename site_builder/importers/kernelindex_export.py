"""`kernelindex import kernelindex-export FILE`: the public KernelIndex's catalog export as data files.

The export holds canonical manifests (references are digests); this writes their authoring form
(references are names) so that the builder's canonical form of each written file has exactly the
export's digest. Every run of the chosen sources is written with what it refers to:

- ``kernels/<operation>.yaml``: the operation's manifest, its aliases and the sources using it;
- ``workloads/<operation>/<workload>.yaml``: a case binds the axes the export lists (constant and
  derived ones included, checked against the operation) and records how each input was generated;
  its tensors follow from the operation, and a case whose listed tensors do not is skipped;
- ``implementations/<name>.yaml``: the revision, naming its project in ``metadata.project`` because
  the export's digests cover no project;
- ``projects/``, ``protocols/``, ``environments/``, ``sources/`` (license, terms and attribution from
  the export's source policy) and ``runs/<source>/<operation>/<run>.yaml``.

Before anything is written the whole plan is built in a scratch folder and linked by the same code
``validate`` runs; an object whose digest is not the export's is left out with the runs that need it,
and the report says which. Re-running changes no byte, a person's file is kept, and a run that a
later export no longer holds is removed (reported as withdrawn), while a run the export marks
retracted keeps its file with ``metadata.retraction``.
"""

from __future__ import annotations

import re
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from pydantic import ValidationError

from schemas.common import API_VERSION, SLUG_MAX, check_slug
from schemas.kinds import OperationSpecSpec, model_for
from schemas.shapes import BindingError, bind_axes, concrete_tensors

from .export_rows import Export, read_export
from .output import GENERATED_LABEL, ImporterError, Plan, Report, apply

IMPORTER = "kernelindex import kernelindex-export"
# The sources whose runs are imported unless --source narrows them. Of SOL-ExecBench the export holds
# only what the public KernelIndex itself displays (FALLBACK_POLICY below): leaderboard results per
# submission (suite means and the leaderboard's metrics) over definitions taken from the
# leaderboard's public API. Nothing of the SOL-ExecBench dataset, whose license forbids
# redistribution, is in the export, so importing those facts by default redistributes no more than
# that site shows. (Its definitions alone are not imported: a kernel without a workload has no page here.)
DEFAULT_SOURCES = ("gpumode-kernelbot", "flashinfer-bench", "sol-execbench")
# A definition whose manifest cites this page came from SOL-ExecBench's leaderboard API.
SOURCE_OF_DEFINITION = {"research.nvidia.com/benchmarks/sol-execbench": "sol-execbench"}
# The export itself, credited on every page that shows its data (Apache-2.0, see SOURCE.md beside it).
EXPORT_SOURCE = "kernelindex-export"
FOLDERS = ("sources", "kernels", "workloads", "projects", "implementations", "protocols", "environments", "runs")

# What the export's policy leaves out for a source with no policy row (SOL-ExecBench), taken from
# the upstream docs/source-policy.md.
FALLBACK_POLICY: dict[str, dict[str, str]] = {
    "sol-execbench": {
        "url": "https://research.nvidia.com/benchmarks/sol-execbench",
        "terms": "Leaderboard facts from the public leaderboard API (kernel names, axes, shapes, dtypes, "
                 "workload axis values, submission results), under the NVIDIA website terms of use. Nothing "
                 "from the SOL-ExecBench dataset, whose license forbids redistribution.",
        "attribution": "NVIDIA SOL-ExecBench",
    },
}


@dataclass
class ImportReport:
    files: Report = field(default_factory=Report)
    runs: Counter = field(default_factory=Counter)  # imported runs by source
    skipped: list[str] = field(default_factory=list)  # one line per object left out, with why
    unknown_tables: Counter = field(default_factory=Counter)
    retracted: list[str] = field(default_factory=list)  # runs the export marks retracted
    withdrawn: list[str] = field(default_factory=list)  # runs imported before that the export no longer holds
    digests_checked: int = 0

    def summary(self) -> str:
        runs = ", ".join(f"{source} {count:,}" for source, count in sorted(self.runs.items()))
        return (f"{sum(self.runs.values()):,} runs ({runs}); {self.digests_checked:,} digests equal the export's; "
                f"{len(self.skipped)} skipped; {len(self.retracted)} retracted; {len(self.withdrawn)} withdrawn; "
                f"files: {self.files.summary()}")


# --------------------------------------------------------------------------------------------
# Names


_NOT_SLUG = re.compile(r"[^a-z0-9._-]+")


def slugify(text: str) -> str:
    slug = _NOT_SLUG.sub("-", text.lower()).strip("-.") or "unnamed"
    return re.sub(r"\.{2,}", ".", slug)[:SLUG_MAX].rstrip("-.")


def _valid_slug(text: Any) -> str | None:
    try:
        return check_slug(text) if isinstance(text, str) else None
    except ValueError:
        return None


def unique_names(items: Iterable[tuple[str, str]]) -> dict[str, str]:
    """digest -> name: each item's wanted name (made a slug), with the digest's first hex digits
    added to every name that two different digests want, so no name depends on which came first."""
    wanted: dict[str, str] = {}
    for digest, name in items:
        wanted.setdefault(digest, _valid_slug(name) or slugify(name))
    users = Counter(wanted.values())
    names = {}
    for digest, name in wanted.items():
        if users[name] > 1:
            suffix = "-" + digest.removeprefix("sha256:")[:8]
            name = name[: SLUG_MAX - len(suffix)].rstrip("-.") + suffix
        names[digest] = name
    return names


# --------------------------------------------------------------------------------------------
# Documents


# The axis FlashInfer-Bench's paged attention kernels size their KV cache's page pool with.
PAGE_POOL_AXIS = "num_pages"


def page_pools(spec: dict[str, Any]) -> list[str]:
    """The inputs that are a paged KV cache's whole page pool (shape ``[num_pages, ...]``), which the
    floor leaves out (``floorExcludes``): a paged kernel reads only the pages its ``kv_indices``
    list, often a fifth of the pool or less, so counting the pool put the floor above real runs.
    The export declares the pool's shape, not how much of it a call reads."""
    return [argument["name"] for argument in spec.get("inputs") or []
            if ((argument.get("tensor") or {}).get("shape") or [None])[0] == PAGE_POOL_AXIS]


def _document(kind: str, metadata: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": metadata, "spec": spec}


def _metadata(name: str, manifest: dict[str, Any], **extra: Any) -> dict[str, Any]:
    source = manifest.get("metadata") or {}
    metadata: dict[str, Any] = {"name": name}
    for key, limit in (("title", 300), ("description", 20_000)):
        if isinstance(source.get(key), str) and source[key].strip():
            metadata[key] = source[key][:limit]
    labels = {key: str(value)[:300] for key, value in (source.get("labels") or {}).items()
              if isinstance(key, str) and re.fullmatch(r"[a-z][a-z0-9_]*", key) and len(key) <= 64}
    if labels:
        metadata["labels"] = labels
    metadata.update({key: value[:300] if key == "title" else value for key, value in extra.items() if value})
    return metadata


def source_document(row: dict[str, Any], retrieved: str) -> dict[str, Any]:
    slug = row["slug"]
    policy = {**FALLBACK_POLICY.get(slug, {}), **{k: v for k, v in (row.get("policy") or {}).items() if v}}
    spec: dict[str, Any] = {"title": row.get("name") or slug,
                            "url": policy.get("url") or "https://github.com/SamMausberg/KernelIndex",
                            "retrieved": policy.get("verified") or retrieved}
    for key in ("license", "terms", "attribution"):
        if isinstance(policy.get(key), str):
            spec[key] = policy[key]
    description = ("Runs imported from the public KernelIndex's catalog export (`kernelindex import "
                   "kernelindex-export`), which names this source as theirs.")
    return _document("Source", {"name": slug, "title": row.get("name") or slug, "description": description}, spec)


def export_source_document(retrieved: str) -> dict[str, Any]:
    return _document("Source", {
        "name": EXPORT_SOURCE,
        "title": "Public KernelIndex catalog export",
        "description": ("The versioned catalog export of the public KernelIndex "
                        "(registry/exports/ of SamMausberg/KernelIndex, Apache-2.0; its license and notice ship in "
                        "`data/sources/kernelindex-export/`). Manifests keep their digests; each run also credits "
                        "the source that published it."),
    }, {
        "title": "Public KernelIndex catalog export",
        "url": "https://github.com/SamMausberg/KernelIndex",
        "license": "Apache-2.0",
        "retrieved": retrieved,
        "publisher": "KernelIndex (SamMausberg/KernelIndex)",
        "attribution": "Catalog export of the public KernelIndex (kernelindex.com), Apache-2.0",
    })


# --------------------------------------------------------------------------------------------
# Planning


@dataclass
class _Pick:
    """The export's objects one run needs, and the run."""

    run: dict[str, Any]
    source: str
    implementation: dict[str, Any]
    workload: dict[str, Any]
    operation: dict[str, Any]
    project: dict[str, Any]


class _Planner:
    def __init__(self, export: Export, sources: tuple[str, ...], report: ImportReport):
        self.export = export
        self.report = report
        self.sources = export.by_id("sources")
        self.slug_of_source = {row_id: row.get("slug") for row_id, row in self.sources.items()}
        self.operations = export.by_id("operations")
        self.workloads = export.by_id("workloads")
        self.implementations = export.by_id("implementations")
        self.projects = export.by_id("projects")
        self.wanted = set(sources)
        self.aliases: dict[str, list[str]] = defaultdict(list)
        for row in export.rows("operation_aliases"):
            if isinstance(row.get("alias"), str):
                self.aliases[row.get("operationId")].append(row["alias"])
        self.retrieved = max((str(row.get("createdAt", ""))[:10] for row in export.rows("sources")), default="") or "2026-01-01"
        # Names are chosen over the whole export, so choosing sources never renames a file.
        self.operation_names = unique_names((row.get("semanticDigest", row_id), row.get("slug") or row_id)
                                            for row_id, row in self.operations.items())
        self.workload_names = unique_names((row.get("workloadDigest", row_id), (row.get("manifest") or {}).get("metadata", {}).get("name") or row_id)
                                           for row_id, row in self.workloads.items())
        self.implementation_names = unique_names(
            (row.get("implementationDigest", row_id), (row.get("manifest") or {}).get("metadata", {}).get("name") or row.get("slug") or row_id)
            for row_id, row in self.implementations.items())
        self.project_names = unique_names((row_id, row.get("slug") or row.get("name") or row_id) for row_id, row in self.projects.items())
        runs = export.rows("benchmark_runs")
        self.run_names = unique_names((row.get("runDigest", ""), _run_manifest(row, "run").get("metadata", {}).get("name") or row.get("id", ""))
                                      for row in runs)
        self.protocol_names = unique_names((row.get("protocolKey", ""), _run_manifest(row, "protocol").get("metadata", {}).get("name") or "protocol")
                                           for row in runs)
        self.environment_names = unique_names((row.get("environmentKey", ""), _run_manifest(row, "environment").get("metadata", {}).get("name") or "environment")
                                              for row in runs)

    def skip(self, what: str, why: str) -> None:
        self.report.skipped.append(f"{what}: {why}")

    def picks(self, excluded: set[str]) -> list[_Pick]:
        picks = []
        for row in self.export.rows("benchmark_runs"):
            source = self.slug_of_source.get(row.get("sourceId"))
            if source not in self.wanted:
                continue
            run_id = row.get("runDigest") or row.get("id")
            manifest = _run_manifest(row, "run")
            if manifest.get("kind") != "BenchmarkRun":
                self.skip(f"run {run_id}", f"unknown run kind {manifest.get('kind')!r}")
                continue
            implementation = self.implementations.get(row.get("implementationId"))
            workload = self.workloads.get(row.get("workloadId"))
            if implementation is None or workload is None:
                self.skip(f"run {run_id}", "its implementation or workload is not in the export")
                continue
            operation = self.operations.get(workload.get("operationId"))
            project = self.projects.get(implementation.get("projectId"))
            if operation is None or project is None:
                self.skip(f"run {run_id}", "its operation or project is not in the export")
                continue
            if implementation.get("operationId") != workload.get("operationId"):
                self.skip(f"run {run_id}", "its implementation and workload are of different operations")
                continue
            digests = {row.get("runDigest"), implementation.get("implementationDigest"), workload.get("workloadDigest"),
                       operation.get("semanticDigest"), row.get("protocolKey"), row.get("environmentKey")}
            if digests & excluded:
                continue
            picks.append(_Pick(row, source, implementation, workload, operation, project))
        return picks

    def plan(self, excluded: set[str]) -> tuple[Plan, dict[str, tuple[str, str]]]:
        """The plan, and for each planned path the (kind, digest) the export gives it."""
        plan = Plan(IMPORTER)
        expected: dict[str, tuple[str, str]] = {}
        picks = self.picks(excluded)
        operation_sources: dict[str, set[str]] = defaultdict(set)
        checked_workloads: dict[str, bool] = {}
        kept: list[_Pick] = []
        for pick in picks:
            digest = pick.workload.get("workloadDigest")
            if digest not in checked_workloads:
                checked_workloads[digest] = self._workload_fits(pick.workload, pick.operation)
            if checked_workloads[digest]:
                kept.append(pick)
                sources = operation_sources[pick.operation["semanticDigest"]]
                sources.add(pick.source)
                sources.update(_definition_sources(pick.operation))
        credited = set().union(*operation_sources.values()) if operation_sources else set()
        for row in self.export.rows("sources"):
            if row.get("slug") in credited:
                plan.add(f"sources/{row['slug']}.yaml", source_document(row, self.retrieved))
        plan.add(f"sources/{EXPORT_SOURCE}.yaml", export_source_document(self.retrieved))

        def add(relative: str, document: dict[str, Any], digest: str | None) -> None:
            plan.add(relative, document)
            if digest:
                expected[relative] = (document["kind"], digest)

        operations = {row.get("semanticDigest"): row for row in self.operations.values()}
        for op_digest, sources in sorted(operation_sources.items()):
            op_name = self.operation_names[op_digest]
            add(f"kernels/{op_name}.yaml", self._operation(operations[op_digest], op_name, sorted(sources)), op_digest)
        for pick in kept:
            operation, workload, implementation, run = pick.operation, pick.workload, pick.implementation, pick.run
            op_digest = operation["semanticDigest"]
            op_name = self.operation_names[op_digest]
            wl_name = self.workload_names[workload["workloadDigest"]]
            add(f"workloads/{op_name}/{wl_name}.yaml", self._workload(workload, wl_name, op_name, operation),
                workload["workloadDigest"])
            project_name = self.project_names[pick.project["id"]]
            add(f"projects/{project_name}.yaml", self._project(pick.project, project_name), None)
            impl_name = self.implementation_names[implementation["implementationDigest"]]
            add(f"implementations/{impl_name}.yaml", self._implementation(implementation, impl_name, op_name, project_name),
                implementation["implementationDigest"])
            protocol_name = self.protocol_names[run["protocolKey"]]
            protocol = _run_manifest(run, "protocol")
            add(f"protocols/{protocol_name}.yaml",
                _document("BenchmarkProtocol", _metadata(protocol_name, protocol), protocol.get("spec", {})), run["protocolKey"])
            environment_name = self.environment_names[run["environmentKey"]]
            environment = _run_manifest(run, "environment")
            add(f"environments/{environment_name}.yaml",
                _document("ExecutionEnvironment", _metadata(environment_name, environment), environment.get("spec", {})),
                run["environmentKey"])
            run_name = self.run_names[run["runDigest"]]
            document = self._run(run, run_name, impl_name, wl_name, protocol_name, environment_name)
            add(f"runs/{pick.source}/{op_name}/{run_name}.yaml", document, run["runDigest"])
            if "retraction" in document["metadata"]:
                self.report.retracted.append(run_name)
        return plan, expected

    def _workload_fits(self, row: dict[str, Any], operation: dict[str, Any]) -> bool:
        """Whether our authoring form can say this workload: its axes bind the operation, and (for a
        case) its tensors are the ones the operation's inputs give at those axes."""
        manifest = row.get("manifest") or {}
        spec = manifest.get("spec") or {}
        what = f"workload {(manifest.get('metadata') or {}).get('name', row.get('id'))}"
        try:
            op_spec = OperationSpecSpec.model_validate((operation.get("manifest") or {}).get("spec"))
        except ValidationError as error:
            self.skip(what, f"its operation does not validate: {_first_error(error)}")
            return False
        kind = manifest.get("kind")
        try:
            if kind == "WorkloadCase":
                axes = bind_axes(op_spec, spec.get("axes") or {})
                derived = concrete_tensors(op_spec.inputs, axes, None)
                listed = {name: {"shape": tensor.get("shape"), "dtype": tensor.get("dtype")}
                          for name, tensor in (spec.get("tensors") or {}).items()}
                if derived != listed:
                    self.skip(what, "its tensors are not those of the operation's inputs at its axes")
                    return False
                extra = {key for tensor in (spec.get("tensors") or {}).values() for key in tensor} - {"shape", "dtype", "data"}
                if extra:
                    self.skip(what, f"tensor fields this schema has no place for: {', '.join(sorted(extra))}")
                    return False
            elif kind == "WorkloadSuite":
                for case in spec.get("cases") or []:
                    bind_axes(op_spec, case.get("axes") or {}, partial=True)
            else:
                self.skip(what, f"unknown workload kind {kind!r}")
                return False
        except BindingError as error:
            self.skip(what, str(error))
            return False
        return True

    def _operation(self, row: dict[str, Any], name: str, sources: list[str]) -> dict[str, Any]:
        manifest = row.get("manifest") or {}
        aliases = sorted({alias for alias in self.aliases.get(row.get("id"), []) if alias != name and len(alias) <= 200})[:20]
        metadata = _metadata(name, manifest, aliases=aliases, sources=[*sources, EXPORT_SOURCE])
        spec = manifest.get("spec", {})
        pools = page_pools(spec)
        if pools:
            metadata["floorExcludes"] = pools
        return _document("OperationSpec", metadata, spec)

    def _workload(self, row: dict[str, Any], name: str, operation: str, operation_row: dict[str, Any]) -> dict[str, Any]:
        manifest = row.get("manifest") or {}
        spec = dict(manifest.get("spec") or {})
        spec.pop("operationSpecDigest", None)
        if manifest.get("kind") == "WorkloadCase":
            tensors = spec.pop("tensors", {}) or {}
            # In the operation's input order, the order the builder gives the canonical tensors.
            order = [argument.get("name") for argument in ((operation_row.get("manifest") or {}).get("spec") or {}).get("inputs", [])]
            data = {tensor_name: tensors[tensor_name]["data"] for tensor_name in order
                    if "data" in (tensors.get(tensor_name) or {})}
            if data:
                spec["inputData"] = data
        return _document(manifest.get("kind", "WorkloadCase"), _metadata(name, manifest), {"operation": operation, **spec})

    def _project(self, row: dict[str, Any], name: str) -> dict[str, Any]:
        manifest = row.get("manifest") or {}
        spec = manifest.get("spec") or {"name": row.get("name") or name}
        return _document("SoftwareProject", _metadata(name, manifest, title=row.get("name")), spec)

    def _implementation(self, row: dict[str, Any], name: str, operation: str, project: str) -> dict[str, Any]:
        manifest = row.get("manifest") or {}
        spec = dict(manifest.get("spec") or {})
        spec.pop("operation", None)
        metadata = _metadata(name, manifest, title=(manifest.get("metadata") or {}).get("title") or row.get("title"))
        metadata["project"] = project
        return _document("ImplementationRevision", metadata, {"operation": operation, **spec})

    def _run(self, row: dict[str, Any], name: str, implementation: str, workload: str, protocol: str,
             environment: str) -> dict[str, Any]:
        manifest = _run_manifest(row, "run")
        spec = dict(manifest.get("spec") or {})
        for key in ("implementationDigest", "workloadDigest", "protocolDigest", "environmentDigest"):
            spec.pop(key, None)
        metadata = _metadata(name, manifest)
        if row.get("retractedAt"):
            metadata["retraction"] = {"date": str(row["retractedAt"])[:10],
                                      "reason": str(row.get("retractionReason") or "retracted by the public KernelIndex")[:2000]}
        return _document("BenchmarkRun", metadata, {"implementation": implementation, "workload": workload,
                                                    "protocol": protocol, "environment": environment, **spec})


def _definition_sources(operation: dict[str, Any]) -> set[str]:
    """Sources the operation's definition was taken from, by the pages its manifest cites."""
    refs = ((operation.get("manifest") or {}).get("metadata") or {}).get("sourceRefs") or []
    urls = [ref.get("url", "") for ref in refs if isinstance(ref, dict)]
    return {source for marker, source in SOURCE_OF_DEFINITION.items() if any(marker in url for url in urls)}


def _run_manifest(row: dict[str, Any], part: str) -> dict[str, Any]:
    manifest = row.get("manifest") or {}
    value = manifest.get(part) if isinstance(manifest, dict) else None
    return value if isinstance(value, dict) else {}


def _first_error(error: ValidationError) -> str:
    first = error.errors(include_url=False)[0]
    return f"{'.'.join(map(str, first['loc']))}: {first['msg']}"


# --------------------------------------------------------------------------------------------
# Checking digests before writing


def _invalid(plan: Plan, expected: dict[str, tuple[str, str]]) -> set[str]:
    """Digests (as the export gives them) of planned objects that do not validate on their own."""
    bad = set()
    for relative, document in plan.documents.items():
        try:
            model_for(document["kind"]).model_validate(document)  # type: ignore[union-attr]
        except ValidationError:
            if str(relative) in expected:
                bad.add(expected[str(relative)][1])
    return bad


def digests_of_plan(plan: Plan) -> dict[str, str]:
    """path -> the digest the builder gives each planned file, from a scratch data folder."""
    from ..problems import DataError
    from ..repository import load_catalog
    from ..canonical_yaml import canonical_yaml

    with tempfile.TemporaryDirectory(prefix="kernelindex-import-") as scratch:
        root = Path(scratch)
        for relative, document in plan.documents.items():
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(canonical_yaml(document, path), encoding="utf-8")
        try:
            catalog = load_catalog(root, cache=False)
        except DataError as error:
            raise ImporterError(f"the planned files do not link: {error}") from None
        digests = {}
        for kind, entities in catalog.by_kind.items():
            for entity in entities.values():
                relative = PurePosixPath(Path(entity.document.file).relative_to(root).as_posix())
                digests[str(relative)] = entity.digest
        return digests


def plan_import(export: Export, sources: tuple[str, ...], report: ImportReport,
                progress: Callable[[str], None] = lambda _message: None) -> Plan:
    planner = _Planner(export, sources, report)
    excluded: set[str] = set()
    left_out: list[str] = []  # objects whose check failed, over every attempt
    for _attempt in range(3):
        report.skipped = []
        report.retracted = []
        plan, expected = planner.plan(excluded)
        report.skipped = left_out + report.skipped
        invalid = _invalid(plan, expected)
        if invalid:
            for relative, (kind, digest) in sorted(expected.items()):
                if digest in invalid:
                    left_out.append(f"object {relative}: does not validate against this schema")
            excluded |= invalid
            continue
        progress(f"checking the digests of {len(plan.documents):,} planned files")
        digests = digests_of_plan(plan)
        wrong = {digest for relative, (_kind, digest) in expected.items() if digests.get(relative) != digest}
        if not wrong:
            report.digests_checked = len(expected)
            return plan
        for relative, (kind, digest) in sorted(expected.items()):
            if digest in wrong:
                left_out.append(f"object {relative}: its {kind} digest would be {digests.get(relative)}, not the export's {digest}")
        excluded |= wrong
    raise ImporterError("the plan did not settle: objects keep failing their digest check (see the skipped list)")


def import_export(path: Path, data_dir: Path, sources: tuple[str, ...] = DEFAULT_SOURCES,
                  progress: Callable[[str], None] = lambda _message: None) -> ImportReport:
    report = ImportReport()
    progress(f"reading {path}")
    export = read_export(path)
    report.unknown_tables = export.skipped
    known = {row.get("slug") for row in export.rows("sources")}
    unknown = sorted(set(sources) - known)
    if unknown:
        raise ImporterError(f"{path}: no source named {', '.join(unknown)} (the export has {', '.join(sorted(s for s in known if s))})")
    plan = plan_import(export, sources, report, progress)
    for relative in plan.documents:
        if relative.parts[0] == "runs":
            report.runs[relative.parts[1]] += 1
    progress(f"writing {len(plan.documents):,} files into {data_dir}")
    report.files = apply(plan, data_dir, prune_under=FOLDERS)
    report.withdrawn = [name for name in report.files.removed if name.startswith("runs/")]
    return report


__all__ = ["DEFAULT_SOURCES", "GENERATED_LABEL", "IMPORTER", "ImportReport", "import_export", "plan_import"]
