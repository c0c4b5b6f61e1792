"""Reading the linked catalog into the plain facts the derive functions take.

This is the only derive module that knows how entities are stored; everything it produces is a
small dataclass that is never changed once made, so the figures themselves can be tested without
YAML files.
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


# primary_metric's metric for each statistic a timing may name: one string shared by every run
# (100,000 runs each held its own copy of "latency:median:ns").
LATENCY_METRICS = {statistic: primary_metric({"primaryStatistic": statistic, "latencyNs": {statistic: 0}}, None)[0]
                   for statistic in ("median", "mean")}


def _primary_metric(spec) -> tuple[str | None, float | None]:
    """``primary_metric`` of the run's timing or measurements, read from the model's attributes:
    ``model_dump`` per run cost more than the rest of a run's facts together at 100,000 runs."""
    timing = spec.timing
    if timing is not None:
        # Validation holds a timing to a primary statistic it has (``Timing``), so primary_metric's
        # fallback to the other one never applies: the statistic's metric and value, as it gives them.
        statistic = timing.primaryStatistic
        return LATENCY_METRICS[statistic], getattr(timing.latencyNs, statistic)
    if spec.measurements:
        return primary_metric(None, [{"metric": m.metric, "statistic": m.statistic, "unit": m.unit, "value": m.value}
                                     for m in spec.measurements])
    return None, None


def run_facts(catalog: Catalog, implementations: dict[str, ImplementationFacts]) -> dict[str, RunFacts]:
    """Every run's facts, in name order, with its comparison key and evidence level."""
    keys: dict[tuple, str] = {}  # one key per (workload, protocol, environment, metric), not per run
    workloads: dict[str, tuple[str, str]] = {}  # workload name -> (its operation's name, its correctness digest)
    harnesses: dict[str, str] = {}  # protocol name -> its harness's name
    facts: dict[str, RunFacts] = {}
    verified: list[tuple[RunFacts, bool]] = []  # verified runs' facts, and whether each has raw evidence
    runs = catalog.runs
    for name in sorted(runs):
        run = runs[name]
        model = run.document.model
        spec = model.spec
        refs = run.refs
        # A run's references are resolved by name (``link``): the names are the spec's own.
        workload_name, protocol_name, environment_name = spec.workload, spec.protocol, spec.environment
        implementation = implementations[spec.implementation]
        metric, value = _primary_metric(spec)
        lane = (workload_name, protocol_name, environment_name, metric)
        key = keys.get(lane)
        if key is None:
            workload = refs["workload"]
            if workload_name not in workloads:
                workloads[workload_name] = (workload.refs["operation"].name,
                                            correctness_digest(workload.canonical_spec["correctness"]))
            key = keys[lane] = comparison_key_of(
                operation=workload.refs["operation"].digest, workload=workload.digest, protocol=refs["protocol"].digest,
                environment=refs["environment"].digest, policy_digest=workloads[workload_name][1], metric=metric)
        harness = harnesses.get(protocol_name)
        if harness is None:
            harness = harnesses[protocol_name] = refs["protocol"].spec.harness.name
        native = spec.sourceNative
        is_verified = is_kernelindex_measurement(native.source if native else None, harness)
        raw_evidence = _raw_evidence(spec)
        # A verified run's level also counts the other runs: ``_count_verifications`` settles it.
        evidence = evidence_level(verified=is_verified, verified_count=0,
                                  public_source=implementation.source_url is not None, raw_evidence=raw_evidence)
        supersedes = refs.get("supersedes")
        # Positional, in the order of RunFacts' fields: seventeen keywords cost more at 100,000 runs.
        facts[name] = fact = RunFacts(
            name, run.digest, workloads[workload_name][0], workload_name, implementation.name, protocol_name,
            environment_name, key, spec.status, value, metric, spec.observedAt, implementation.language,
            implementation.baseline, evidence, model.metadata.retraction is not None,
            supersedes.name if supersedes is not None else None)
        if is_verified:
            verified.append((fact, raw_evidence))
    _count_verifications(facts, verified, implementations)
    return facts


def _count_verifications(facts: dict[str, RunFacts], verified: list[tuple[RunFacts, bool]],
                         implementations: dict[str, ImplementationFacts]) -> None:
    """The levels of the ``verified`` runs' facts, given the count "replicated" needs: verified,
    passed runs of one implementation in one group."""
    counts = Counter((fact.cohort, fact.implementation) for fact, _ in verified if fact.status == "passed")
    for fact, raw_evidence in verified:
        evidence = evidence_level(verified=True, verified_count=counts[(fact.cohort, fact.implementation)],
                                  public_source=implementations[fact.implementation].source_url is not None,
                                  raw_evidence=raw_evidence)
        if evidence != fact.evidence:
            facts[fact.name] = replace(fact, evidence=evidence)


def datasheet_matches(catalog: Catalog) -> list[DatasheetMatch]:
    return [DatasheetMatch(hardware.name, match.product, match.formFactor)
            for hardware in catalog.hardware.values() for match in hardware.spec.matches]
