"""link: resolve names once, check what spans files, and produce canonical manifests with digests.

After ``link`` every entity knows its canonical spec and digest, and every reference points at an
entity: nothing downstream looks a name up in a dict that might miss.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from hashlib import sha256
from typing import Any, Protocol

from schemas.digest import API_VERSION, spec_digest
from schemas.kinds import KIND_FOLDERS
from schemas.shapes import BindingError, bind_axes, concrete_tensors

from .incremental.parse_cache import RUN_DIGEST_KIND, ParseCache
from .load import Document
from .problems import Problem
from .parallel.run_digests import run_digests

# Lists whose order carries no meaning: sorted and de-duplicated before hashing.
SET_LIKE = {("support", "hardwareArchitectures"), ("support", "dtypes"), ("support", "productsTested"),
            ("precision", "reducedModes"), ("correctness", "admittedModes")}


@dataclass(slots=True)  # 100,000 runs: slots make each smaller and quicker to make
class Entity:
    document: Document
    # The canonical spec, or None until first read: a run builds it only when something asks (a
    # run page), from ``_spec_source``; its digest came from the digest cache or ``run_digests``.
    _canonical_spec: dict[str, Any] | None = field(repr=False, compare=False)
    digest: str
    # Resolved references, filled by link(): name of the field -> Entity.
    refs: dict[str, "Entity"] = field(default_factory=dict)
    # For workloads: every axis value (constants and derived included) and concrete tensors.
    axes: dict[str, int] = field(default_factory=dict)
    inputs: dict[str, dict] = field(default_factory=dict)
    outputs: dict[str, dict] = field(default_factory=dict)
    _spec_source: Callable[[], dict[str, Any]] | None = field(default=None, repr=False, compare=False)

    @property
    def canonical_spec(self) -> dict[str, Any]:
        if self._canonical_spec is None:
            self._canonical_spec = self._spec_source()  # type: ignore[misc]
        return self._canonical_spec

    @property
    def kind(self) -> str:
        return self.document.kind

    @property
    def name(self) -> str:
        return self.document.name

    @property
    def model(self):
        return self.document.model

    @property
    def spec(self):
        return self.document.model.spec

    @property
    def metadata(self):
        return self.document.model.metadata

    def manifest(self) -> dict[str, Any]:
        """The canonical manifest: metadata as written, spec with references as digests.

        A canonical spec not made yet is made for this call and not kept: each run's page reads
        its manifest once, and kept on 100,000 runs the specs held ~150 MB in every render worker."""
        spec = self._canonical_spec if self._canonical_spec is not None else self._spec_source()  # type: ignore[misc]
        return {
            "apiVersion": API_VERSION,
            "kind": self.kind,
            "metadata": self.metadata.model_dump(mode="json", exclude_none=True, exclude_defaults=True),
            "spec": spec,
        }


@dataclass
class Catalog:
    by_kind: dict[str, dict[str, Entity]] = field(default_factory=lambda: defaultdict(dict))

    def of(self, kind: str) -> dict[str, Entity]:
        return self.by_kind.get(kind, {})

    @property
    def operations(self) -> dict[str, Entity]:
        return self.of("OperationSpec")

    @property
    def workloads(self) -> dict[str, Entity]:
        return {**self.of("WorkloadCase"), **self.of("WorkloadSuite")}

    @property
    def implementations(self) -> dict[str, Entity]:
        return self.of("ImplementationRevision")

    @property
    def projects(self) -> dict[str, Entity]:
        return self.of("SoftwareProject")

    @property
    def protocols(self) -> dict[str, Entity]:
        return self.of("BenchmarkProtocol")

    @property
    def environments(self) -> dict[str, Entity]:
        return self.of("ExecutionEnvironment")

    @property
    def runs(self) -> dict[str, Entity]:
        return self.of("BenchmarkRun")

    @property
    def hardware(self) -> dict[str, Entity]:
        return self.of("Hardware")

    @property
    def sources(self) -> dict[str, Entity]:
        return self.of("Source")


def _normalise(value: Any, parent: str | None = None, key: str | None = None) -> Any:
    """Set-like lists (found by their last two keys) sorted and de-duplicated.

    Works in place: ``value`` is a fresh ``model_dump`` nobody else holds. Only containers are
    visited (a run's spec has hundreds of scalars and no set-like list)."""
    if isinstance(value, dict):
        for name, item in value.items():
            if isinstance(item, (dict, list)):
                value[name] = _normalise(item, key, name)
        return value
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (dict, list)):
                value[index] = _normalise(item, parent, key)
        if (parent, key) in SET_LIKE:
            return sorted(set(value))
        return value
    return value


def _spec_dump(document: Document) -> dict[str, Any]:
    return _normalise(document.model.spec.model_dump(mode="json", exclude_none=True))


class DigestCache(Protocol):
    """What link needs of ``cache.ParseCache``: digests by key (see ``_run_digest`` and
    ``_entity_digest``); a ``ParseCache``'s are looked up all at once (``_give_digests``)."""

    def run_digest(self, key: str) -> str | None: ...

    def put(self, key: str, kind: str, payload: str) -> None: ...

    def asking_digests(self) -> None: ...


_RUN_REFERENCES = ("implementation", "workload", "protocol", "environment")


def _run_canonical_spec(document: Document, ref_digests: tuple[str, ...]) -> dict[str, Any]:
    """A run's spec with its references replaced by their digests (without ``supersedesDigest``)."""
    body = _spec_dump(document)
    for key, digest in zip(_RUN_REFERENCES, ref_digests):
        body.pop(key)
        body[f"{key}Digest"] = digest
    body.pop("supersedes", None)
    return body


def _superseding(source: Callable[[], dict[str, Any]], digest: str) -> dict[str, Any]:
    spec = source()
    spec["supersedesDigest"] = digest
    return spec


def _run_digest_key(content_key: str, ref_digests: tuple[str, ...], supersedes_digest: str | None) -> str:
    """A run's digest depends on its file and on the digests it refers to, nothing else: the key
    is the file's cache key (path and bytes) and those digests."""
    return sha256(" ".join((content_key, *ref_digests, supersedes_digest or "-")).encode("ascii")).hexdigest()


def _cached_run_digest(entity: Entity, ref_digests: tuple[str, ...], supersedes_digest: str | None,
                       cache: DigestCache | None) -> tuple[str | None, str | None]:
    """(the run's digest if the cache holds it for its file and references, the key to store it under)."""
    content_key = entity.document.content_key
    if cache is None or content_key is None:
        return None, None
    key = _run_digest_key(content_key, ref_digests, supersedes_digest)
    return cache.run_digest(key), key


def _run_digest(entity: Entity, ref_digests: tuple[str, ...], supersedes_digest: str | None,
                cache: DigestCache | None) -> str:
    """The run's digest, from the cache when its file and references are unchanged; otherwise its
    canonical spec is built (and kept on the entity) and hashed, and the digest stored."""
    digest, key = _cached_run_digest(entity, ref_digests, supersedes_digest, cache)
    if digest is None:
        digest = spec_digest("BenchmarkRun", entity.canonical_spec)
        if key is not None:
            cache.put(key, RUN_DIGEST_KIND, digest)  # type: ignore[union-attr]
    return digest


def _entity_digest(document: Document, spec: dict[str, Any], refs: dict[str, Entity], cache: DigestCache | None) -> str:
    """The digest of an entity other than a run, whose canonical spec is ``spec``: kept in the
    digest cache as runs' are (``_run_digest``), by its file's key and the digests it refers to.
    Hashing the canonical specs of a few thousand workloads and implementations cost a rebuild at
    100,000 runs ~0.07 s; the spec itself is still made, as before (pages and derive read it)."""
    content_key = document.content_key
    if cache is None or content_key is None:
        return spec_digest(document.kind, spec)
    key = sha256(" ".join((content_key, document.kind, *(ref.digest for ref in refs.values()))).encode("ascii")).hexdigest()
    digest = cache.run_digest(key)
    if digest is None:
        digest = spec_digest(document.kind, spec)
        cache.put(key, RUN_DIGEST_KIND, digest)
    return digest


def _hash_runs(unhashed: list[tuple[Entity, str | None]], cache: DigestCache | None) -> None:
    """Give each run of ``unhashed`` (with the key its digest is cached under) its digest, all at
    once: thousands of them are hashed across processes (``run_digests``)."""
    digests = run_digests([entity._spec_source for entity, _ in unhashed])  # type: ignore[misc]
    for (entity, key), digest in zip(unhashed, digests):
        entity.digest = digest
        if key is not None:
            cache.put(key, RUN_DIGEST_KIND, digest)  # type: ignore[union-attr]


def _name_reused(document: Document, kind: str, name: str, first: Document) -> Problem:
    return document.problem(f"{kind} name {name!r} is already used by {first.display}", "metadata", "name")


def _in_file_order(documents: list[Document], *reused: list[tuple[Document, Problem]]) -> list[Problem]:
    """The problems of files whose names were taken (each list in file order), all in file order,
    as one pass over every file found them."""
    found = [item for items in reused for item in items]
    if sum(1 for items in reused if items) > 1:
        position = {id(document): index for index, document in enumerate(documents)}
        found.sort(key=lambda item: position[id(item[0])])
    return [problem for _, problem in found]


def _refuse_run(document: Document, spec: Any, resolve: Callable[..., Entity | None], problems: list[Problem],
                implementations: dict[str, Entity], cases: dict[str, Entity], suites: dict[str, Entity],
                protocols: dict[str, Entity], environments: dict[str, Entity], sources: dict[str, Entity]) -> None:
    """Report why a run cannot be linked (``link`` found a reference missing, or the operations of
    its implementation and workload differ) as ``link`` always has: each reference missing, in
    order, then its source (``resolve`` reports each, unless its file failed); or, when all are
    there, the implementation's and the workload's differing operations."""
    implementation = implementations.get(spec.implementation) or resolve(
        document, ("ImplementationRevision",), spec.implementation, "spec", "implementation")
    workload = cases.get(spec.workload) or suites.get(spec.workload) or resolve(
        document, ("WorkloadCase", "WorkloadSuite"), spec.workload, "spec", "workload")
    protocol = protocols.get(spec.protocol) or resolve(
        document, ("BenchmarkProtocol",), spec.protocol, "spec", "protocol")
    environment = environments.get(spec.environment) or resolve(
        document, ("ExecutionEnvironment",), spec.environment, "spec", "environment")
    native = spec.sourceNative
    source = None
    if native is not None:
        source = sources.get(native.source) or resolve(
            document, ("Source",), native.source, "spec", "sourceNative", "source")
    if (implementation is None or workload is None or protocol is None or environment is None
            or (native is not None and source is None)):
        return
    problems.append(document.problem(
        f"implementation {implementation.name!r} is for operation {implementation.refs['operation'].name!r} "
        f"but workload {workload.name!r} is for {workload.refs['operation'].name!r}", "spec", "workload"))


def _give_digests(runs: list[Entity], keys: list[str | None], cache: DigestCache | None) -> None:
    """Each run's digest: the cached one under its key (``keys``, in the order of ``runs``), else
    made now, for all such runs at once (``_hash_runs``)."""
    unhashed: list[tuple[Entity, str | None]] = []  # runs whose digest the cache lacks, with its key there
    if isinstance(cache, ParseCache) and None not in keys:
        # Looked up all at once (``run_digest`` per key cost a rebuild of 100,000 runs 0.2 s).
        for run, key, digest in zip(runs, keys, cache.run_digests(keys)):  # type: ignore[arg-type]
            if digest is None:
                unhashed.append((run, key))
            else:
                run.digest = digest
    else:
        for run, key in zip(runs, keys):
            digest = cache.run_digest(key) if key is not None else None  # type: ignore[union-attr]
            if digest is None:
                unhashed.append((run, key))
            else:
                run.digest = digest
    _hash_runs(unhashed, cache)


# Namespaces for names: workload cases and suites share one, as they share one folder.
def _namespace(kind: str) -> str:
    return "Workload" if kind in ("WorkloadCase", "WorkloadSuite") else kind


def link(documents: list[Document], broken: Iterable[tuple[str, str]] = (),
         cache: DigestCache | None = None) -> tuple[Catalog, list[Problem]]:
    """Resolve every reference. ``broken`` holds (folder, name) of files that failed to load: their
    problems are already reported, so references to them are not reported again as dangling.
    ``cache``: where runs' digests are kept between builds (see ``_run_digest``)."""
    problems: list[Problem] = []
    # (folder, name) of every file that failed, here or in load: one bad file gives one error.
    failed: set[tuple[str, str]] = set(broken)

    def fail(document: Document) -> None:
        failed.add((KIND_FOLDERS[document.kind], document.name))
    # Names in use, by namespace, and the files that reuse one (reported first, in file order).
    # Runs' names are checked as the runs are linked, below: one pass over 100,000 runs' models
    # (each pass over them is mostly waiting for memory) instead of one for names and one to link.
    named: dict[str, dict[str, Document]] = defaultdict(dict)
    spaces: dict[str, dict[str, Document]] = {}  # kind -> its namespace in named: found once per kind
    reused: list[tuple[Document, Problem]] = []
    run_documents: list[Document] = []
    for document in documents:
        kind = document.kind
        if kind == "BenchmarkRun":
            run_documents.append(document)
            continue
        name = document.name
        space = spaces.get(kind)
        if space is None:
            space = spaces[kind] = named[_namespace(kind)]
        if name in space:
            reused.append((document, _name_reused(document, kind, name, space[name])))
            continue
        space[name] = document

    catalog = Catalog()

    def resolve(document: Document, target_kinds: tuple[str, ...], name: str, *location: Any) -> Entity | None:
        for kind in target_kinds:
            entity = catalog.of(kind).get(name)
            if entity is not None:
                return entity
        if any((KIND_FOLDERS[kind], name) in failed for kind in target_kinds):
            return None
        wanted = " or ".join(target_kinds)
        problems.append(document.problem(f"{'.'.join(map(str, location))}: no {wanted} named {name!r}", *location))
        return None

    def add(document: Document, spec: dict[str, Any], **extra: Any) -> Entity:
        digest = _entity_digest(document, spec, extra.get("refs", {}), cache)
        entity = Entity(document=document, _canonical_spec=spec, digest=digest, **extra)
        catalog.by_kind[document.kind][document.name] = entity
        return entity

    # Runs that name a run they supersede, in catalog order, with their references' digests.
    superseding: list[tuple[Entity, tuple[str, ...]]] = []
    if cache is not None:
        cache.asking_digests()
    # Every kind a run may refer to first, then the runs: the order of _LINK_ORDER, runs last.
    others = sorted((document for space, by_name in named.items() if space != "BenchmarkRun"
                     for document in by_name.values()), key=lambda d: _LINK_RANK[d.kind])
    for document in others:
        kind = document.kind
        spec = document.model.spec
        if kind in ("OperationSpec", "SoftwareProject", "BenchmarkProtocol", "ExecutionEnvironment", "Source", "Hardware"):
            add(document, _spec_dump(document))
        elif kind in ("WorkloadCase", "WorkloadSuite"):
            operation = resolve(document, ("OperationSpec",), spec.operation, "spec", "operation")
            if operation is None:
                fail(document)
                continue
            body = _spec_dump(document)
            body.pop("operation")
            op_spec = operation.spec
            if kind == "WorkloadCase":
                try:
                    axes = bind_axes(op_spec, spec.axes)
                    inputs = concrete_tensors(op_spec.inputs, axes, spec.dtype)
                    outputs = concrete_tensors(op_spec.outputs, axes, spec.dtype)
                except BindingError as error:
                    problems.append(document.problem(str(error), "spec", "axes"))
                    fail(document)
                    continue
                unknown = sorted(set(spec.inputData or ()) - set(inputs))
                if unknown:
                    problems.append(document.problem(f"inputData names no input tensor: {', '.join(unknown)}", "spec", "inputData"))
                    fail(document)
                    continue
                body.pop("dtype", None)
                tensors = inputs
                if spec.inputData:
                    # The canonical tensors carry how their values were made; ``inputs`` (what
                    # floors count) stays shapes and dtypes only.
                    tensors = {name: {**tensor, **({"data": body["inputData"][name]} if name in body["inputData"] else {})}
                               for name, tensor in inputs.items()}
                canonical = {"operationSpecDigest": operation.digest, "axes": body["axes"],
                             "tensors": tensors, "correctness": body["correctness"]}
                if "scalars" in body:
                    canonical["scalars"] = body["scalars"]
                add(document, canonical, refs={"operation": operation}, axes=axes, inputs=inputs, outputs=outputs)
            else:
                bad = False
                variable = {name for name, axis in op_spec.axes.items() if axis.role.value == "variable"}
                for index, case in enumerate(spec.cases):
                    try:
                        # A suite's case may leave sizes that vary within it unbound; it has no floor.
                        axes = bind_axes(op_spec, case.axes, partial=True)
                        if variable <= set(case.axes):
                            concrete_tensors(op_spec.inputs, axes, spec.dtype)
                    except BindingError as error:
                        problems.append(document.problem(f"case {index}: {error}", "spec", "cases", index))
                        bad = True
                if bad:
                    fail(document)
                    continue
                canonical = {"operationSpecDigest": operation.digest, **body}
                add(document, canonical, refs={"operation": operation})
        elif kind == "ImplementationRevision":
            in_identity = spec.project is not None
            project = resolve(document, ("SoftwareProject",), document.model.project_name,
                              *(("spec", "project") if in_identity else ("metadata", "project")))
            operation = resolve(document, ("OperationSpec",), spec.operation, "spec", "operation")
            if project is None or operation is None:
                fail(document)
                continue
            body = _spec_dump(document)
            body.pop("project", None)
            if in_identity:
                body["projectDigest"] = project.digest
            body["operation"] = {"specDigest": operation.digest}
            add(document, body, refs={"project": project, "operation": operation})

    implementations, cases, suites, protocols, environments, sources = (catalog.of(kind) for kind in (
        "ImplementationRevision", "WorkloadCase", "WorkloadSuite", "BenchmarkProtocol", "ExecutionEnvironment", "Source"))
    linked: dict[str, Entity] = {}  # the runs, by name
    first_named: dict[str, Document] = {}  # every run's name, with the first file that has it
    reused_by_runs: list[tuple[Document, Problem]] = []
    # (source, external id, the digests it refers to) of every run that has one: a source's id may
    # name one submission measured on several workloads or runners (GPU MODE's "submission/N"),
    # so two runs clash only when they also share implementation, workload, protocol and environment.
    externals: list[tuple[str, ...]] = []
    digest_keys: list[str | None] = []  # each linked run's key in the digest cache, in order
    workloads = {**suites, **cases}  # one namespace: a name is a case's or a suite's, never both's
    for document in run_documents:
        name = document.name
        first = first_named.setdefault(name, document)
        if first is not document:
            reused_by_runs.append((document, _name_reused(document, "BenchmarkRun", name, first)))
            continue
        spec = document.model.spec
        implementation = implementations.get(spec.implementation)
        workload = workloads.get(spec.workload)
        protocol = protocols.get(spec.protocol)
        environment = environments.get(spec.environment)
        if (implementation is None or workload is None or protocol is None or environment is None
                or implementation.refs["operation"] is not workload.refs["operation"]):
            # The checks one by one, reporting each problem by the same code, in the same order,
            # as they always have.
            _refuse_run(document, spec, resolve, problems, implementations, cases, suites, protocols,
                        environments, sources)
            fail(document)
            continue
        refs = {"implementation": implementation, "workload": workload, "protocol": protocol, "environment": environment}
        native = spec.sourceNative
        if native is not None:
            refs["source"] = source = sources.get(native.source) or resolve(
                document, ("Source",), native.source, "spec", "sourceNative", "source")
            if source is None:
                fail(document)
                continue
        ref_digests = (implementation.digest, workload.digest, protocol.digest, environment.digest)  # as _RUN_REFERENCES
        if native is not None and native.externalId:
            externals.append((native.source, native.externalId, *ref_digests))
        # Positional (the fields' order): a run's axes, inputs and outputs are empty, as the defaults.
        linked[name] = entity = Entity(document, None, "", refs, {}, {}, {},
                                       partial(_run_canonical_spec, document, ref_digests))
        content_key = document.content_key  # None when loaded without the cache: no key then
        if content_key is not None and cache is not None:
            digest_keys.append(_run_digest_key(content_key, ref_digests, None))
        else:
            digest_keys.append(None)
        if spec.supersedes:
            superseding.append((entity, ref_digests))
    if linked:
        catalog.by_kind["BenchmarkRun"] = linked
    _give_digests(list(linked.values()), digest_keys, cache)
    # Second pass: references that may point forward within one kind, and checks across runs.
    for run, ref_digests in _targets_first(superseding):
        target = linked.get(run.spec.supersedes)
        if target is None and ("runs", run.spec.supersedes) in failed:
            pass
        elif target is None:
            problems.append(run.document.problem(f"spec.supersedes: no BenchmarkRun named {run.spec.supersedes!r}", "spec", "supersedes"))
        elif target is run:
            problems.append(run.document.problem("a run cannot supersede itself", "spec", "supersedes"))
        else:
            run.refs["supersedes"] = target
            if run._canonical_spec is not None:
                run._canonical_spec["supersedesDigest"] = target.digest
            else:
                run._spec_source = partial(_superseding, run._spec_source, target.digest)  # type: ignore[arg-type]
            run.digest = _run_digest(run, ref_digests, target.digest, cache)
    problems.extend(_duplicate_runs(linked, externals))
    problems.extend(_duplicate_operations(catalog.of("OperationSpec")))
    problems.extend(_other_references(catalog, failed))
    return catalog, _in_file_order(documents, reused, reused_by_runs) + problems


def _targets_first(superseding: list[tuple[Entity, tuple[str, ...]]]) -> list[tuple[Entity, tuple[str, ...]]]:
    """The superseding runs, each after the run it supersedes where that one supersedes another too
    (a chain's oldest first), otherwise in file order. A run's digest covers the digest of the run it
    supersedes, which changes when that one's own ``supersedesDigest`` is added: taken in file order,
    a run of a chain of re-measurements (each week superseding the last) could name its target's
    digest from before that, one no run has."""
    pending = {run.name: (run, ref_digests) for run, ref_digests in superseding}
    ordered = []
    for run, _ in superseding:
        chain, name = [], run.name
        while name in pending:  # down the chain to the first run not waiting for its digest
            entry = pending.pop(name)
            chain.append(entry)
            name = entry[0].spec.supersedes
        ordered.extend(reversed(chain))
    return ordered


_LINK_ORDER = [
    "Source", "Hardware", "OperationSpec", "SoftwareProject", "BenchmarkProtocol", "ExecutionEnvironment",
    "WorkloadCase", "WorkloadSuite", "ImplementationRevision", "BenchmarkRun",
]


_LINK_RANK = {kind: rank for rank, kind in enumerate(_LINK_ORDER)}


def _duplicate_runs(runs: dict[str, Entity], externals: list[tuple[str, ...]]) -> list[Problem]:
    """Runs whose external id or content another run has, each reported against the first of
    them in file order; ``externals``: the (source, external id) of every run with one. Whether
    there are any does not depend on the order: the runs are sorted (100,000 at scale) only to
    report some."""
    if not _any_duplicates(externals, [run.digest for run in runs.values()]):
        return []
    return _duplicates_in(sorted(runs.values(), key=lambda e: e.document.display))


def _any_duplicates(externals: list[tuple[str, ...]], digests: list[str]) -> bool:
    """Whether ``_duplicates_in`` finds any among runs of these external ids and digests, by two
    set sizes: it finds one exactly when two runs share an external id (the second is reported)
    or, when none do (so it keeps every run's digest), two runs share a digest."""
    return len(set(externals)) < len(externals) or len(set(digests)) < len(digests)


def _duplicates_in(runs: Iterable[Entity]) -> list[Problem]:
    """Each run of ``runs`` whose external id or content an earlier one has."""
    problems = []
    seen_external: dict[tuple[str, ...], Entity] = {}
    seen_digest: dict[str, Entity] = {}
    for run in runs:
        native = run.spec.sourceNative
        if native is not None and native.externalId:
            key = (native.source, native.externalId,
                   *(run.refs[reference].digest for reference in _RUN_REFERENCES))
            if key in seen_external:
                problems.append(run.document.problem(
                    f"duplicate run: {native.source} {native.externalId!r} is already in {seen_external[key].document.display}",
                    "spec", "sourceNative", "externalId"))
                continue
            seen_external[key] = run
        if run.digest in seen_digest:
            problems.append(run.document.problem(
                f"duplicate run: same content as {seen_digest[run.digest].document.display}", "spec"))
            continue
        seen_digest[run.digest] = run
    return problems


def _duplicate_operations(operations: dict[str, Entity]) -> list[Problem]:
    """OperationSpecs whose canonical spec another one has, each against the first in file order.

    Two kernels with one spec would share a digest, so their workloads and runs would share
    comparison keys and be ranked against each other: identity must come from what a kernel
    computes (tensors, shapes, semantics), and two different kernels must say so."""
    first: dict[str, Entity] = {}
    problems = []
    for operation in sorted(operations.values(), key=lambda e: e.document.display):
        earlier = first.setdefault(operation.digest, operation)
        if earlier is not operation:
            line, column = earlier.document.locate("spec")
            problems.append(operation.document.problem(
                f"spec: same canonical OperationSpec as {earlier.document.display}:{line}:{column} "
                f"({earlier.name}); two kernels must differ in tensors, shapes or semantics", "spec"))
    return problems


def _other_references(catalog: Catalog, failed: set[tuple[str, str]]) -> list[Problem]:
    problems = []
    for operation in catalog.operations.values():
        meta = operation.metadata
        if meta.headlineWorkload:
            workload = catalog.workloads.get(meta.headlineWorkload)
            if workload is None and ("workloads", meta.headlineWorkload) in failed:
                pass
            elif workload is None:
                problems.append(operation.document.problem(
                    f"metadata.headlineWorkload: no workload named {meta.headlineWorkload!r}", "metadata", "headlineWorkload"))
            elif workload.refs.get("operation") is not operation:
                problems.append(operation.document.problem(
                    f"metadata.headlineWorkload: {meta.headlineWorkload!r} is a workload of another operation", "metadata", "headlineWorkload"))
        for index, source in enumerate(meta.sources):
            if source not in catalog.sources and ("sources", source) not in failed:
                problems.append(operation.document.problem(f"metadata.sources: no Source named {source!r}", "metadata", "sources", index))
    for hardware in catalog.hardware.values():
        spec = hardware.spec
        cites = [(("spec", "bandwidthGBps", "cite", "source"), spec.bandwidthGBps.cite.source)]
        cites += [(("spec", "peakTflops", key, "cite", "source"), rate.cite.source) for key, rate in spec.peakTflops.items()]
        for location, source in cites:
            if source not in catalog.sources and ("sources", source) not in failed:
                problems.append(hardware.document.problem(f"{'.'.join(location)}: no Source named {source!r}", *location))
    return problems
