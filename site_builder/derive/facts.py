"""Reading the linked catalog into the plain facts the derive functions take.

This is the only derive module that knows how entities are stored; everything it produces is a
small frozen dataclass, so the figures themselves can be tested without YAML files.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

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
    harnesses: dict[str, str] = {}  # protocol name -> its harness's name
    # First pass: each run's fields but its evidence level, which needs the other runs.
    fields: list[tuple] = []
    verified: set[str] = set()
    raw_evidence: set[str] = set()
    runs = catalog.runs
    for name in sorted(runs):
        run = runs[name]
        model = run.document.model
        spec = model.spec
        refs = run.refs
        # A run's references are resolved by name (``link``): the names are the spec's own.
        workload_name, protocol_name, environment_name = spec.workload, spec.protocol, spec.environment
        workload = refs["workload"]
        implementation = implementations[spec.implementation]
        metric, value = _primary_metric(spec)
        lane = (workload_name, protocol_name, environment_name, metric)
        if lane not in keys:
            protocol, environment = refs["protocol"], refs["environment"]
            if workload_name not in correctness:
                correctness[workload_name] = correctness_digest(workload.canonical_spec["correctness"])
            keys[lane] = comparison_key_of(
                operation=workload.refs["operation"].digest, workload=workload.digest, protocol=protocol.digest,
                environment=environment.digest, policy_digest=correctness[workload_name], metric=metric)
        harness = harnesses.get(protocol_name)
        if harness is None:
            harness = harnesses[protocol_name] = refs["protocol"].spec.harness.name
        native = spec.sourceNative
        if is_kernelindex_measurement(native.source if native else None, harness):
            verified.add(name)
        if _raw_evidence(spec):
            raw_evidence.add(name)
        supersedes = refs.get("supersedes")
        fields.append((name, run.digest, workload.refs["operation"].name, workload_name, implementation,
                       protocol_name, environment_name, keys[lane], spec.status, value, metric, spec.observedAt,
                       model.metadata.retraction is not None, supersedes.name if supersedes is not None else None))
    # "replicated" needs the other runs: verified runs of one implementation in one group.
    verifications = Counter((cohort, implementation.name)
                            for (name, _, _, _, implementation, _, _, cohort, status, *_) in fields
                            if name in verified and status == "passed")
    facts: dict[str, RunFacts] = {}
    for (name, digest, operation, workload_name, implementation, protocol_name, environment_name, cohort, status,
         value, metric, observed_at, retracted, supersedes) in fields:
        is_verified = name in verified
        facts[name] = RunFacts(
            name=name,
            digest=digest,
            operation=operation,
            workload=workload_name,
            implementation=implementation.name,
            protocol=protocol_name,
            environment=environment_name,
            cohort=cohort,
            status=status,
            value=value,
            metric=metric,
            observed_at=observed_at,
            language=implementation.language,
            baseline=implementation.baseline,
            evidence=evidence_level(
                verified=is_verified,
                verified_count=verifications[(cohort, implementation.name)] if is_verified else 0,
                public_source=implementation.source_url is not None,
                raw_evidence=name in raw_evidence,
            ),
            retracted=retracted,
            supersedes=supersedes,
        )
    return facts


def datasheet_matches(catalog: Catalog) -> list[DatasheetMatch]:
    return [DatasheetMatch(hardware.name, match.product, match.formFactor)
            for hardware in catalog.hardware.values() for match in hardware.spec.matches]
