"""`kernelindex export`: this repository's catalogue in the public KernelIndex's export format.

One ``{"table": ..., "row": ...}`` per line (``importers.export_rows``), with the tables and row
fields ``kernelindex import kernelindex-export`` reads, so importing an export of ours gives back
the same files: sources (with their policy: license, terms, attribution), projects, operations
and their aliases, workloads, implementations, benchmark runs (each with its run, protocol and
environment manifests in canonical form) and record events (ours: the running minimum of each
comparison group, ``policyVersion`` ``kernelindex-records-v1``). Row ids are the objects' digests
(names for projects and sources, which a run does not refer to by digest), so one catalogue
always exports to the same bytes.

What differs from the public KernelIndex's own export: an implementation that names its project in
``spec.project`` carries ``projectDigest`` in its manifest (our identity includes the project; an
imported one names it in ``metadata.project`` and keeps the upstream digest), and the tables of
its serving catalogue, measurements and artifacts are not written.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import click

from schemas.common import format_utc

from .derive.leaderboard import Leaderboard
from .link import Catalog, Entity

RECORD_POLICY = "kernelindex-records-v1"


def _manifest(entity: Entity, extra_metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    manifest = entity.manifest()
    metadata = manifest["metadata"]
    for key in ("project", "aliases", "sources", "retraction", "attestations"):
        metadata.pop(key, None)
    metadata.update(extra_metadata or {})
    return manifest


def _plain_numbers(value: Any) -> Any:
    """Whole floats written as integers, as RFC 8785 (and the public KernelIndex's export) writes
    them: an error bound of 0.0 is read back as 0, and the file a re-import writes stays the same."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {key: _plain_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain_numbers(item) for item in value]
    return value


def _day(value: date) -> str:
    return f"{value.isoformat()}T00:00:00.000Z"


def export_rows(catalog: Catalog, board: Leaderboard) -> Iterator[tuple[str, dict[str, Any]]]:
    for table, row in _rows(catalog, board):
        yield table, _plain_numbers(row)


def _rows(catalog: Catalog, board: Leaderboard) -> Iterator[tuple[str, dict[str, Any]]]:
    sources = catalog.sources
    for name, source in sorted(sources.items()):
        spec = source.spec
        policy = {key: value for key, value in (("url", spec.url), ("license", spec.license), ("terms", spec.terms),
                                                ("attribution", spec.attribution),
                                                ("verified", spec.retrieved.isoformat())) if value}
        yield "sources", {"id": f"source:{name}", "slug": name, "name": spec.title, "kind": None,
                          "policy": policy, "createdAt": _day(spec.retrieved)}
    for name, project in sorted(catalog.projects.items()):
        title = project.metadata.title or project.spec.name
        yield "projects", {"id": f"project:{name}", "slug": name, "name": title,
                           "manifest": _manifest(project, {"title": title} if project.metadata.title else None)}
    for name, operation in sorted(catalog.operations.items()):
        metadata = operation.metadata
        refs = [{"url": sources[slug].spec.url} for slug in metadata.sources if slug in sources]
        manifest = _manifest(operation, {"sourceRefs": refs} if refs else None)
        for key in ("models", "headlineWorkload", "flops", "flopsDtype", "headroomV1Inputs"):
            manifest["metadata"].pop(key, None)
        yield "operations", {"id": operation.digest, "slug": name, "name": metadata.title or name,
                             "family": operation.spec.family, "semanticDigest": operation.digest,
                             "schemaVersion": manifest["apiVersion"], "manifest": manifest, "tags": [operation.spec.family]}
        for alias in metadata.aliases:
            yield "operation_aliases", {"operationId": operation.digest, "alias": alias}
    for name, workload in sorted(catalog.workloads.items()):
        yield "workloads", {"id": workload.digest, "operationId": workload.refs["operation"].digest,
                            "workloadDigest": workload.digest, "schemaVersion": "kernelindex.dev/v1alpha1",
                            "manifest": _manifest(workload)}
    for name, implementation in sorted(catalog.implementations.items()):
        yield "implementations", {"id": implementation.digest, "slug": name,
                                  "projectId": f"project:{implementation.refs['project'].name}",
                                  "operationId": implementation.refs["operation"].digest,
                                  "implementationDigest": implementation.digest,
                                  "title": implementation.metadata.title, "manifest": _manifest(implementation)}
    facts = board.runs
    for name, run in sorted(catalog.runs.items()):
        spec, refs = run.spec, run.refs
        retraction = run.metadata.retraction
        fact = facts.get(name)
        native = spec.sourceNative
        yield "benchmark_runs", {
            "id": run.digest, "runDigest": run.digest,
            "implementationId": refs["implementation"].digest, "workloadId": refs["workload"].digest,
            "sourceId": f"source:{native.source}" if native else None,
            "status": spec.status, "observedAt": format_utc(spec.observedAt),
            "protocolKey": refs["protocol"].digest, "environmentKey": refs["environment"].digest,
            "comparisonKey": fact.cohort if fact else None,
            "primaryValue": fact.value if fact else None,
            "retractedAt": _day(retraction.date) if retraction else None,
            "retractionReason": retraction.reason if retraction else None,
            "manifest": {"run": _manifest(run), "protocol": _manifest(refs["protocol"]),
                         "environment": _manifest(refs["environment"])},
        }
    for key, cohort in sorted(board.cohorts.items()):
        for event in cohort.history:
            yield "record_events", {
                "id": f"{key}:{event.run.digest}", "comparisonKey": key, "runId": event.run.digest,
                "previousRunId": event.previous.digest if event.previous else None,
                "policyVersion": RECORD_POLICY, "cause": "new_run", "at": format_utc(event.run.observed_at),
            }


@click.command(name="export")
@click.option("--data", "data_dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default="data", show_default=True, help="The data folder to export.")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write here (.jsonl, or .jsonl.zst compressed); default: standard output.")
@click.option("--as-of", "as_of", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="The date ranking and history are derived as of (default: as `build` chooses it).")
def command(data_dir, out, as_of) -> None:
    """Write the catalogue in the public KernelIndex's export format (JSON Lines, one table row a line)."""
    import os
    import sys
    import time

    from .asof import as_of_before_loading, resolve_as_of
    from .derive.leaderboard import derive_leaderboard
    from .importers.export_rows import write_rows
    from .problems import DataError
    from .repository import load_catalog

    started = time.perf_counter()
    known = as_of_before_loading(as_of.date() if as_of else None, os.environ, data_dir)
    try:
        catalog = load_catalog(data_dir, known[0] if known else None)
    except DataError as error:
        raise click.ClickException(str(error)) from None
    day, _source = resolve_as_of(None, os.environ, data_dir, (run.spec.observedAt for run in catalog.runs.values()),
                                 known=known)
    board = derive_leaderboard(catalog, day)
    count = write_rows(out, export_rows(catalog, board), out=None if out else sys.stdout.buffer)
    if out:
        click.echo(f"{out}: {count:,} rows in {time.perf_counter() - started:.1f} s", err=True)
