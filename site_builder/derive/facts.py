"""Reading the linked catalog into the plain facts the derive functions take.

This is the only derive module that knows how entities are stored; everything it produces is a
small dataclass that is never changed once made, so the figures themselves can be tested without
YAML files.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from schemas.digest import canonical_json, sha256_digest

from ..link import Catalog, Entity
from .comparison import comparison_key, correctness_digest, primary_metric
from .evidence import evidence_level, is_kernelindex_measurement
from .floors import DatasheetMatch
from .model import RunFacts
from ..ownsource import OWN_PROJECT, OwnSource
from .usability import InstallRecipe, spdx_license

RAW_EVIDENCE_ARTIFACTS = {"log", "raw_samples", "trace"}


@dataclass(frozen=True, slots=True)
class ImplementationFacts:
    name: str
    language: str
    baseline: bool
    source_url: str | None  # where a reader can read the code; None when it is not public
    license: str | None  # a known SPDX expression
    license_text: str | None  # the licence as written, known or not
    recipe: InstallRecipe | None


def implementation_facts(implementation: Entity, own: OwnSource | None = None) -> ImplementationFacts:
    """``own``: this repository's URL and measured commit, which the build was given: the
    implementations of its own project then link their source file and pin their install there."""
    spec = implementation.spec
    project = implementation.refs["project"].spec
    recipe = None
    if spec.buildVariants:
        install = spec.buildVariants[0].install
        recipe = InstallRecipe(install.kind, install.package, install.version, install.repository, install.commit, install.command)
    source_url = spec.projectRevision.repository or project.repository
    if own is not None and implementation.refs["project"].name == OWN_PROJECT:
        source_url = own.file_url(spec.callable.path) if spec.callable.path else own.repository
        recipe = InstallRecipe("git", "kernelindex", None, own.repository, own.commit, own.install())
    return ImplementationFacts(
        name=implementation.name,
        language=spec.callable.language,
        baseline=implementation.metadata.labels.get("role") == "baseline",
        source_url=source_url,
        license=spdx_license(spec.licensing.declared, spec.licensing.concluded),
        license_text=spec.licensing.concluded or spec.licensing.declared,
        recipe=recipe,
    )


def _raw_evidence(spec) -> bool:
    evidence = spec.evidence
    if evidence is None:
        return False
    return bool(evidence.rawSamplesNs) or any(a.kind in RAW_EVIDENCE_ARTIFACTS for a in evidence.artifacts or ())


def run_facts(catalog: Catalog, implementations: dict[str, ImplementationFacts]) -> dict[str, RunFacts]:
    """Every run's facts, in name order, with its comparison key and evidence level."""
    return run_index(catalog, implementations).facts


@dataclass(slots=True)
class RunIndex:
    """Every run's facts and what the derive pass reads of them as a whole, gathered in the one
    pass that makes them (each would otherwise be another pass over 100,000 runs)."""

    facts: dict[str, RunFacts]  # by name, in name order
    groups: dict[str, list[RunFacts]]  # ``group_by_cohort`` of the facts
    pairs: list[tuple[str, str]]  # each (workload, environment) of a run once, in the order the runs first have it
    superseded: frozenset[str]  # ``superseded_names`` of the facts
    # (source, kernel) -> how many runs of the kernel the source published natively (spec.sourceNative)
    sources: Counter[tuple[str, str]]


def run_index(catalog: Catalog, implementations: dict[str, ImplementationFacts]) -> RunIndex:
    """``run_facts``, grouped by comparison key as it goes.

    What a run's facts share with other runs is read once and kept: an implementation's part of the
    facts, a workload's policy digest, and a lane's (workload, protocol, environment, metric,
    precision lane) key and group, since most runs share their lane with others."""
    # An implementation's name, language, whether it is a baseline, and an unverified run's evidence
    # level without and with raw evidence.
    by_implementation = {name: (facts.name, facts.language, facts.baseline, _unverified_levels(facts))
                         for name, facts in implementations.items()}
    parts = _KeyParts()
    lanes: dict[tuple, tuple[str, list[RunFacts], str]] = {}  # lane -> its key, that key's group, its operation
    groups: dict[str, list[RunFacts]] = {}
    superseded: set[str] = set()
    facts: dict[str, RunFacts] = {}
    verified: list[tuple[RunFacts, bool]] = []  # verified runs' facts, and whether each has raw evidence
    sources: Counter[tuple[str, str]] = Counter()
    runs = catalog.runs
    for name in sorted(runs):
        run = runs[name]
        model = run.document.model
        spec = model.spec
        # A run's references are resolved by name (``link``): the names are the spec's own.
        workload_name, protocol_name, environment_name = spec.workload, spec.protocol, spec.environment
        implementation, language, baseline, levels = by_implementation[spec.implementation]
        metric, value = primary_metric(spec)
        declared = spec.precision
        precision = tuple(declared.reducedModes) if declared is not None else None
        precision_lane = parts.precision_lane(workload_name, precision, run.refs) if precision else ""
        lane = (workload_name, protocol_name, environment_name, metric, precision_lane)
        found = lanes.get(lane)
        if found is None:
            key, operation = parts.comparison_key(lane[:4], run.refs)
            if precision_lane:
                key = precision_lane_key(key, precision_lane)
            group = groups.get(key)  # workloads of one spec under two names have one digest: one key
            if group is None:
                group = groups[key] = []
            found = lanes[lane] = (key, group, operation)
        key, group, operation = found
        native = spec.sourceNative
        if native is not None:
            sources[native.source, operation] += 1
        is_verified = native is not None and is_kernelindex_measurement(native.source, parts.harness(protocol_name, run.refs))
        raw_evidence = spec.evidence is not None and _raw_evidence(spec)
        # A verified run's level also counts the other runs: ``_count_verifications`` settles it.
        evidence = evidence_level(verified=True, verified_count=0, public_source=implementations[spec.implementation]
                                  .source_url is not None, raw_evidence=raw_evidence) if is_verified else levels[raw_evidence]
        # ``link`` resolves spec.supersedes (to a run of that name) and nothing else to "supersedes".
        supersedes = run.refs.get("supersedes") if spec.supersedes else None
        if supersedes is not None:
            superseded.add(supersedes.name)
        # Positional, in the order of RunFacts' fields: seventeen keywords cost more at 100,000 runs.
        facts[name] = fact = RunFacts(
            name, run.digest, operation, workload_name, implementation, protocol_name, environment_name, key,
            spec.status, value, metric, spec.observedAt, language, baseline, evidence,
            model.metadata.retraction is not None, supersedes.name if supersedes is not None else None, precision,
            precision_lane)
        group.append(fact)
        if is_verified:
            verified.append((fact, raw_evidence))
    if verified:
        _count_verifications(facts, verified, implementations, groups)
    # A pair's first run is the first run of its first lane: lanes are in the order runs first have them.
    pairs = list(dict.fromkeys([(workload, environment) for workload, _, environment, _, _ in lanes]))
    return RunIndex(facts, groups, pairs, frozenset(superseded), sources)


def precision_lane_key(key: str, lane: str) -> str:
    """The group key of a precision lane's runs: the comparison key (the public KernelIndex's, kept
    for strict runs) hashed with the lane, so reduced-precision runs form a group of their own."""
    return sha256_digest(canonical_json({"comparisonKey": key, "precisionLane": lane}))


def precision_lane(modes: tuple[str, ...], admitted: tuple[str, ...]) -> str:
    """The lane of a run declaring ``modes`` on a workload whose policy admits ``admitted``."""
    return "+".join(sorted(set(modes) - set(admitted)))


def _unverified_levels(implementation: ImplementationFacts) -> tuple[str, str]:
    """The implementation's unverified runs' evidence level, without and with raw evidence."""
    public_source = implementation.source_url is not None
    return tuple(evidence_level(verified=False, verified_count=0, public_source=public_source, raw_evidence=raw)
                 for raw in (False, True))  # type: ignore[return-value]


class _KeyParts:
    """What the lanes of many runs share, each worked out once: the digest of a workload's
    correctness policy, a workload's admitted precision modes, a protocol's harness."""

    def __init__(self) -> None:
        self._policies: dict[str, str] = {}  # workload name -> its correctness policy's digest
        self._harnesses: dict[str, str] = {}  # protocol name -> its harness's name
        self._admitted: dict[str, tuple[str, ...]] = {}  # workload name -> reduced modes its policy admits

    def comparison_key(self, lane: tuple[str, str, str, str | None], refs: dict[str, Entity]) -> tuple[str, str]:
        """The comparison key of a run's lane (workload, protocol, environment, metric: the names
        its references ``refs`` were resolved by), and its operation's name."""
        workload_name, _, _, metric = lane
        workload = refs["workload"]
        operation = workload.refs["operation"]
        policy_digest = self._policies.get(workload_name)
        if policy_digest is None:
            policy_digest = self._policies[workload_name] = correctness_digest(workload.canonical_spec["correctness"])
        return comparison_key(
            operation=operation.digest, workload=workload.digest, protocol=refs["protocol"].digest,
            environment=refs["environment"].digest, policy_digest=policy_digest, metric=metric), operation.name

    def precision_lane(self, workload_name: str, modes: tuple[str, ...], refs: dict[str, Entity]) -> str:
        """``precision_lane`` of a run declaring ``modes``, its workload's admitted modes read once."""
        admitted = self._admitted.get(workload_name)
        if admitted is None:
            policy = refs["workload"].spec.correctness
            admitted = self._admitted[workload_name] = tuple(policy.admittedModes or ())
        return precision_lane(modes, admitted)

    def harness(self, protocol_name: str, refs: dict[str, Entity]) -> str:
        """The name of the harness of a run's protocol."""
        harness = self._harnesses.get(protocol_name)
        if harness is None:
            harness = self._harnesses[protocol_name] = refs["protocol"].spec.harness.name
        return harness


def _count_verifications(facts: dict[str, RunFacts], verified: list[tuple[RunFacts, bool]],
                         implementations: dict[str, ImplementationFacts], groups: dict[str, list[RunFacts]]) -> None:
    """The levels of the ``verified`` runs' facts, given the count "replicated" needs: verified,
    passed runs of one implementation in one group (in ``facts`` and in the run's group)."""
    counts = Counter((fact.cohort, fact.implementation) for fact, _ in verified if fact.status == "passed")
    for fact, raw_evidence in verified:
        evidence = evidence_level(verified=True, verified_count=counts[(fact.cohort, fact.implementation)],
                                  public_source=implementations[fact.implementation].source_url is not None,
                                  raw_evidence=raw_evidence)
        if evidence != fact.evidence:
            facts[fact.name] = settled = replace(fact, evidence=evidence)
            group = groups[fact.cohort]
            # Found by identity: ``list.index`` would compare facts field by field.
            group[next(position for position, run in enumerate(group) if run is fact)] = settled


def datasheet_matches(catalog: Catalog) -> list[DatasheetMatch]:
    return [DatasheetMatch(hardware.name, match.product, match.formFactor)
            for hardware in catalog.hardware.values() for match in hardware.spec.matches]
