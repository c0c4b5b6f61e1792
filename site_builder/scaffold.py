"""`kernelindex new run`: scaffold a run file that validates as written.

Every value comes from a flag (for scripts) or, on a terminal, from a prompt that lists the names
the data already has. The file is written in canonical form to
``data/runs/<source or community>/<kernel>/<name>.yaml``, never over an existing file, and the
whole data folder is validated afterwards: if anything fails, the file (and any folder made for
it) is removed again, so a failed scaffold leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import click
from pydantic import TypeAdapter, ValidationError

from schemas.common import API_VERSION, DurationNs, UtcDateTime, check_slug, format_utc
from schemas.kinds import RUN_STATUSES, BenchmarkRun

from .problems import DataError
from .canonical_yaml import write_canonical

COMMUNITY = "community"
SLUG_LIMIT = 100

_duration = TypeAdapter(DurationNs)
_moment = TypeAdapter(UtcDateTime)


class ScaffoldError(click.ClickException):
    pass


def parse_duration(text: str, label: str) -> int:
    """Integer nanoseconds from "81.3 us", "0.0813 ms" or "81300 ns"; a unit is required."""
    text = text.strip()
    if text and text.replace(".", "", 1).isdigit():
        raise ScaffoldError(f"{label}: give a unit, e.g. '{text} us' (ns, us, ms or s)")
    try:
        return _duration.validate_python(text)
    except ValidationError as error:
        raise ScaffoldError(f"{label}: {error.errors()[0]['msg'].removeprefix('Value error, ')}") from None


def parse_moment(text: str) -> str:
    """A timezone-aware ISO 8601 date-time, as written (validated, not rewritten)."""
    try:
        _moment.validate_python(text.strip())
    except ValidationError as error:
        raise ScaffoldError(f"--observed-at: {error.errors()[0]['msg'].removeprefix('Value error, ')}") from None
    return text.strip()


def default_name(implementation: str, workload: str, environment: str, observed_at: str) -> str:
    """A readable, deterministic slug; shortened with a hash when it would pass the slug limit."""
    day = _moment.validate_python(observed_at).strftime("%Y%m%d")
    name = f"{implementation}-{workload}-{environment}-{day}"
    if len(name) <= SLUG_LIMIT:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[:SLUG_LIMIT - 9].rstrip('-._')}-{digest}"


def run_document(*, name: str, implementation: str, workload: str, protocol: str, environment: str,
                 median_ns: int, p20_ns: int | None, p80_ns: int | None, observed_at: str, status: str,
                 source: str | None, external_id: str | None, title: str | None) -> dict[str, Any]:
    latency = {"median": median_ns}
    if p20_ns is not None:
        latency["p20"] = p20_ns
    if p80_ns is not None:
        latency["p80"] = p80_ns
    metadata: dict[str, Any] = {"name": name}
    if title:
        metadata["title"] = title
    spec: dict[str, Any] = {
        "implementation": implementation, "workload": workload, "protocol": protocol, "environment": environment,
        "status": status, "timing": {"primaryStatistic": "median", "latencyNs": latency},
    }
    if source:
        spec["sourceNative"] = {"source": source, **({"externalId": external_id} if external_id else {})}
    spec["observedAt"] = observed_at
    return {"apiVersion": API_VERSION, "kind": "BenchmarkRun", "metadata": metadata, "spec": spec}


def _choose(label: str, options: Sequence[str], given: str | None, interactive: bool, flag: str) -> str:
    """A name from ``options``: the flag's value, else (on a terminal) a prompt listing them."""
    if given is not None:
        if given not in options:
            hint = f"; known: {', '.join(options[:12])}{' …' if len(options) > 12 else ''}" if options else ""
            raise ScaffoldError(f"{flag}: no {label} named {given!r}{hint}")
        return given
    if not interactive:
        raise ScaffoldError(f"missing {flag} (or run on a terminal to be asked)")
    if not options:
        raise ScaffoldError(f"the data has no {label} to choose from: add one first (see CONTRIBUTING.md)")
    click.echo(f"{label.capitalize()}s:")
    for index, option in enumerate(options, 1):
        click.echo(f"  {index:>3}  {option}")
    while True:
        answer = click.prompt(f"{label.capitalize()} (number or name)", default=options[0] if len(options) == 1 else None).strip()
        if answer.isdigit() and 1 <= int(answer) <= len(options):
            return options[int(answer) - 1]
        if answer in options:
            return answer
        click.echo(f"  not one of the {len(options)} listed", err=True)


def _ask_duration(label: str, given: str | None, interactive: bool, flag: str, required: bool) -> int | None:
    if given is not None:
        return parse_duration(given, flag)
    if not interactive:
        if required:
            raise ScaffoldError(f"missing {flag}, e.g. {flag} '81.3 us'")
        return None
    while True:
        answer = click.prompt(f"{label} with unit (e.g. 81.3 us)" + ("" if required else ", empty to skip"),
                              default="" if not required else None, show_default=False).strip()
        if not answer and not required:
            return None
        try:
            return parse_duration(answer, label)
        except ScaffoldError as error:
            click.echo(f"  {error.message}", err=True)


def _remove_created(path: Path, stop: Path) -> None:
    """Remove the file and the folders made for it, up to (not including) ``stop``."""
    path.unlink(missing_ok=True)
    folder = path.parent
    while folder != stop and stop in folder.parents:
        try:
            folder.rmdir()  # only succeeds when empty: folders that held other files stay
        except OSError:
            break
        folder = folder.parent


def _load(data_dir: Path):
    from .repository import load_catalog

    return load_catalog(data_dir)


@click.group(name="new")
def command() -> None:
    """Scaffold a new data file (e.g. `new run`)."""


@command.command(name="run")
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("data"), show_default=True)
@click.option("--implementation", help="ImplementationRevision name (data/implementations/).")
@click.option("--workload", help="WorkloadCase or WorkloadSuite name of the implementation's kernel.")
@click.option("--protocol", help="BenchmarkProtocol name: how it was timed.")
@click.option("--environment", help="ExecutionEnvironment name: the GPU and software.")
@click.option("--median", help="Median latency with its unit, e.g. '81.3 us'.")
@click.option("--p20", help="20th percentile latency with its unit (optional).")
@click.option("--p80", help="80th percentile latency with its unit (optional).")
@click.option("--observed-at", help="When it was measured: ISO 8601 with a timezone, e.g. 2025-08-07T21:42:12Z.")
@click.option("--status", type=click.Choice(RUN_STATUSES), default="passed", show_default=True)
@click.option("--source", help="Source name when the figure comes from a published source (else the run is 'community').")
@click.option("--external-id", help="The source's own id for this figure (with --source).")
@click.option("--name", help="The run's name (a slug); default: implementation-workload-environment-date.")
@click.option("--title", help="A short title for pages (optional).")
@click.option("--interactive/--no-interactive", default=None,
              help="Ask for missing values (default: only when stdin is a terminal).")
def new_run(data_dir: Path, implementation: str | None, workload: str | None, protocol: str | None,
            environment: str | None, median: str | None, p20: str | None, p80: str | None,
            observed_at: str | None, status: str, source: str | None, external_id: str | None,
            name: str | None, title: str | None, interactive: bool | None) -> None:
    """Write data/runs/<source or community>/<kernel>/<name>.yaml, validated, never overwriting.

    \b
    Non-interactive (scripts, CI):
      kernelindex new run --implementation liger-rope --workload llama4-rope-... \\
        --protocol liger-bench-do-bench-forward --environment liger-bench-nvidia-h100-80gb-hbm3 \\
        --median '81.3 us' --p20 '80.9 us' --p80 '81.8 us' --observed-at 2025-08-07T21:42:12Z
    """
    if interactive is None:
        interactive = sys.stdin.isatty()
    try:
        catalog = _load(data_dir)
    except DataError as error:
        for problem in error.problems:
            click.echo(str(problem), err=True)
        raise ScaffoldError(f"{data_dir} has {len(error.problems)} problem(s): fix them before adding a run") from None
    except FileNotFoundError as error:
        raise ScaffoldError(str(error)) from None

    implementation = _choose("implementation", sorted(catalog.implementations), implementation, interactive, "--implementation")
    operation = catalog.implementations[implementation].refs["operation"].name
    workloads = sorted(name for name, entity in catalog.workloads.items() if entity.refs["operation"].name == operation)
    workload = _choose(f"workload of {operation}", workloads, workload, interactive, "--workload")
    protocol = _choose("protocol", sorted(catalog.protocols), protocol, interactive, "--protocol")
    environment = _choose("environment", sorted(catalog.environments), environment, interactive, "--environment")
    if source is not None and source not in catalog.sources:
        raise ScaffoldError(f"--source: no Source named {source!r}")
    if external_id and not source:
        raise ScaffoldError("--external-id needs --source")

    median_ns = _ask_duration("Median latency", median, interactive, "--median", required=True)
    p20_ns = _ask_duration("p20 latency", p20, interactive, "--p20", required=False)
    p80_ns = _ask_duration("p80 latency", p80, interactive, "--p80", required=False)
    if observed_at is None:
        if not interactive:
            # Never the wall clock in scripts: a run file says when it was measured, not when it was written.
            raise ScaffoldError("missing --observed-at, e.g. --observed-at 2025-08-07T21:42:12Z")
        now = format_utc(datetime.now(timezone.utc))
        observed_at = click.prompt("Observed at (ISO 8601 with timezone)", default=now)
    observed_at = parse_moment(observed_at)

    name = name or default_name(implementation, workload, environment, observed_at)
    try:
        check_slug(name)
    except ValueError as error:
        raise ScaffoldError(f"--name: {error}") from None
    document = run_document(
        name=name, implementation=implementation, workload=workload, protocol=protocol, environment=environment,
        median_ns=median_ns, p20_ns=p20_ns, p80_ns=p80_ns, observed_at=observed_at, status=status,
        source=source, external_id=external_id, title=title)
    try:
        BenchmarkRun.model_validate(document)  # fail before touching the disk
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ScaffoldError(f"{where}: {first['msg'].removeprefix('Value error, ')}") from None

    runs_dir = data_dir / "runs"
    path = runs_dir / (source or COMMUNITY) / operation / f"{name}.yaml"
    if path.exists():
        raise ScaffoldError(f"{path} already exists; pass another --name (nothing was written)")
    if name in catalog.runs:
        raise ScaffoldError(f"a run named {name!r} already exists ({catalog.runs[name].document.display}); pass another --name")
    try:
        write_canonical(path, document)
    except FileExistsError:
        raise ScaffoldError(f"{path} already exists; pass another --name (nothing was written)") from None
    try:
        _load(data_dir)
    except DataError as error:
        _remove_created(path, runs_dir)
        for problem in error.problems:
            click.echo(str(problem), err=True)
        raise ScaffoldError(f"the new run does not validate; {path} was removed again") from None
    except BaseException:
        _remove_created(path, runs_dir)
        raise
    click.echo(f"wrote {path}")
    click.echo("next: `make validate`, then commit it and open a pull request (see CONTRIBUTING.md)")
