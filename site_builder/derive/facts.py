"""Reading the linked catalog into the plain facts the derive functions take.

This is the only derive module that knows how entities are stored; everything it produces is a
small frozen dataclass, so the figures themselves can be tested without YAML files.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from ..link import Catalog, Entity
from .comparison import comparison_key, primary_metric
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


def _raw_evidence(run: Entity) -> bool:
    evidence = run.spec.evidence
    if evidence is None:
        return False
    return bool(evidence.rawSamplesNs) or any(a.kind in RAW_EVIDENCE_ARTIFACTS for a in evidence.artifacts or ())


def run_facts(catalog: Catalog, implementations: dict[str, ImplementationFacts]) -> dict[str, RunFacts]:
    """Every run's facts, in name order, with its comparison key and evidence level."""
    keys: dict[tuple, str] = {}  # one key per (workload, protocol, environment, metric), not per run
    facts: dict[str, RunFacts] = {}
    verified: set[str] = set()
    for name in sorted(catalog.runs):
        run = catalog.runs[name]
        spec = run.spec
        workload, protocol, environment = run.refs["workload"], run.refs["protocol"], run.refs["environment"]
        implementation = implementations[run.refs["implementation"].name]
        timing = spec.timing.model_dump() if spec.timing else None
        measurements = [m.model_dump() for m in spec.measurements] if spec.measurements and not timing else None
        metric, value = primary_metric(timing, measurements)
        lane = (workload.name, protocol.name, environment.name, metric)
        if lane not in keys:
            keys[lane] = comparison_key(
                operation=workload.refs["operation"].digest, workload=workload.digest, protocol=protocol.digest,
                environment=environment.digest, correctness=workload.canonical_spec["correctness"], metric=metric)
        if is_kernelindex_measurement(spec.sourceNative.source if spec.sourceNative else None, protocol.spec.harness.name):
            verified.add(name)
        facts[name] = RunFacts(
            name=name,
            digest=run.digest,
            operation=workload.refs["operation"].name,
            workload=workload.name,
            implementation=implementation.name,
            protocol=protocol.name,
            environment=environment.name,
            cohort=keys[lane],
            status=spec.status,
            value=value,
            metric=metric,
            observed_at=spec.observedAt,
            language=implementation.language,
            baseline=implementation.baseline,
            evidence="reported",  # set below, once every run's facts are known
            retracted=run.metadata.retraction is not None,
            supersedes=run.refs["supersedes"].name if "supersedes" in run.refs else None,
        )
    # "replicated" needs the other runs: verified runs of one implementation in one group.
    verifications = Counter((facts[name].cohort, facts[name].implementation) for name in verified
                            if facts[name].status == "passed")
    for name, fact in facts.items():
        level = evidence_level(
            verified=name in verified,
            verified_count=verifications[(fact.cohort, fact.implementation)],
            public_source=implementations[fact.implementation].source_url is not None,
            raw_evidence=_raw_evidence(catalog.runs[name]),
        )
        if level != fact.evidence:
            facts[name] = replace(fact, evidence=level)
    return facts


def datasheet_matches(catalog: Catalog) -> list[DatasheetMatch]:
    return [DatasheetMatch(hardware.name, match.product, match.formFactor)
            for hardware in catalog.hardware.values() for match in hardware.spec.matches]
