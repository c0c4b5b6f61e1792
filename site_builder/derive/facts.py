"""Reading the linked catalog into the plain facts the derive functions take.

This is the only derive module that knows how entities are stored; everything it produces is a
small frozen dataclass, so the figures themselves can be tested without YAML files.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from ..link import Catalog, Entity
from .comparison import comparison_key_of, correctness_digest, primary_metric
from .evidence import evidence_level, is_kernelindex_measurement
from .floors import DatasheetMatch
from .model import RunFacts
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


def implementation_facts(implementation: Entity) -> ImplementationFacts:
    spec = implementation.spec
    project = implementation.refs["project"].spec
    recipe = None
    if spec.buildVariants:
        install = spec.buildVariants[0].install
        recipe = InstallRecipe(install.kind, install.package, install.version, install.repository, install.commit, install.command)
    return ImplementationFacts(
        name=implementation.name,
        language=spec.callable.language,
        baseline=implementation.metadata.labels.get("role") == "baseline",
        source_url=spec.projectRevision.repository or project.repository,
        license=spdx_license(spec.licensing.declared, spec.licensing.concluded),
        license_text=spec.licensing.concluded or spec.licensing.declared,
        recipe=recipe,
    )


def _raw_evidence(spec) -> bool:
    evidence = spec.evidence
    if evidence is None:
        return False
    return bool(evidence.rawSamplesNs) or any(a.kind in RAW_EVIDENCE_ARTIFACTS for a in evidence.artifacts or ())


def _primary_metric(spec) -> tuple[str | None, float | None]:
    """``primary_metric`` of the run's timing or measurements, read from the model's attributes:
    ``model_dump`` per run cost more than the rest of a run's facts together at 100,000 runs."""
    timing = spec.timing
    if timing is not None:
        latency = timing.latencyNs
        # The two statistics primary_metric may read; the other fields never decide the value.
        return primary_metric({"primaryStatistic": timing.primaryStatistic,
                               "latencyNs": {"median": latency.median, "mean": latency.mean}}, None)
    if spec.measurements:
        return primary_metric(None, [{"metric": m.metric, "statistic": m.statistic, "unit": m.unit, "value": m.value}
                                     for m in spec.measurements])
    return None, None


def run_facts(catalog: Catalog, implementations: dict[str, ImplementationFacts]) -> dict[str, RunFacts]:
    """Every run's facts, in name order, with its comparison key and evidence level."""
    keys: dict[tuple, str] = {}  # one key per (workload, protocol, environment, metric), not per run
    correctness: dict[str, str] = {}  # workload name -> digest of its correctness policy
    facts: dict[str, RunFacts] = {}
    verified: set[str] = set()
    raw_evidence: set[str] = set()
    runs = catalog.runs
    for name in sorted(runs):
        run = runs[name]
        model = run.document.model
        spec = model.spec
        refs = run.refs
        workload, protocol, environment = refs["workload"], refs["protocol"], refs["environment"]
        implementation = implementations[refs["implementation"].name]
        metric, value = _primary_metric(spec)
        workload_name, protocol_name, environment_name = workload.name, protocol.name, environment.name
        lane = (workload_name, protocol_name, environment_name, metric)
        if lane not in keys:
            if workload_name not in correctness:
                correctness[workload_name] = correctness_digest(workload.canonical_spec["correctness"])
            keys[lane] = comparison_key_of(
                operation=workload.refs["operation"].digest, workload=workload.digest, protocol=protocol.digest,
                environment=environment.digest, policy_digest=correctness[workload_name], metric=metric)
        if is_kernelindex_measurement(spec.sourceNative.source if spec.sourceNative else None, protocol.spec.harness.name):
            verified.add(name)
        if _raw_evidence(spec):
            raw_evidence.add(name)
        supersedes = refs.get("supersedes")
        facts[name] = RunFacts(
            name=name,
            digest=run.digest,
            operation=workload.refs["operation"].name,
            workload=workload_name,
            implementation=implementation.name,
            protocol=protocol_name,
            environment=environment_name,
            cohort=keys[lane],
            status=spec.status,
            value=value,
            metric=metric,
            observed_at=spec.observedAt,
            language=implementation.language,
            baseline=implementation.baseline,
            evidence="reported",  # set below, once every run's facts are known
            retracted=model.metadata.retraction is not None,
            supersedes=supersedes.name if supersedes is not None else None,
        )
    # "replicated" needs the other runs: verified runs of one implementation in one group.
    verifications = Counter((facts[name].cohort, facts[name].implementation) for name in verified
                            if facts[name].status == "passed")
    for name, fact in facts.items():
        level = evidence_level(
            verified=name in verified,
            verified_count=verifications[(fact.cohort, fact.implementation)],
            public_source=implementations[fact.implementation].source_url is not None,
            raw_evidence=name in raw_evidence,
        )
        if level != fact.evidence:
            facts[name] = replace(fact, evidence=level)
    return facts


def datasheet_matches(catalog: Catalog) -> list[DatasheetMatch]:
    return [DatasheetMatch(hardware.name, match.product, match.formFactor)
            for hardware in catalog.hardware.values() for match in hardware.spec.matches]
