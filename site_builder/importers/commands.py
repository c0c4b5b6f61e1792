"""`kernelindex import <source> ...`: one subcommand per source."""

from __future__ import annotations

import time
from pathlib import Path

import click

from .output import ImporterError


@click.group(name="import")
def command() -> None:
    """Turn an external source's published data into data files (runs, workloads, implementations)."""


@command.command(name="liger")
@click.argument("paths", metavar="PATH...", nargs=-1, required=True,
                type=click.Path(exists=True, path_type=Path))
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("data"),
              show_default=True, help="The data folder to write into.")
def liger(paths: tuple[Path, ...], data_dir: Path) -> None:
    """Import Liger-Kernel's benchmark CSVs: all_benchmark_data.csv, gh-pages snapshots, or both.

    Each PATH is a CSV (all_benchmark_data.csv, or one benchmarks/<folder>/benchmark.csv), a
    folder laid out like Liger's gh-pages branch, or an INDEX.csv (or a folder holding one) that
    dates each snapshot. Every distinct measurement becomes one run, whichever files published
    it; workloads and implementations are written with them. Kernels are declared by hand
    (liger_catalog.py maps the CSV onto them); one nobody declared is imported as a placeholder
    and named on the output.
    Running it twice changes nothing, and files a person wrote are kept. The whole bundled data:

        kernelindex import liger data/sources/liger-kernel-bench/all_benchmark_data.csv ../shared/data/liger-gh-pages
    """
    from .liger import import_liger_with_outcome

    started = time.perf_counter()

    def progress(done: int, total: int, name: str) -> None:
        if total > 1:
            click.echo(f"read {done}/{total}: {name}", err=True)

    try:
        report, outcome = import_liger_with_outcome(list(paths), data_dir, progress)
    except ImporterError as error:
        raise click.ClickException(str(error)) from None
    for path in report.kept:
        click.echo(f"kept (hand-written): {path}")
    for note in report.notes:
        click.echo(note)
    for line in outcome.lines():
        click.echo(line)
    click.echo(f"{data_dir}: {report.summary()} in {time.perf_counter() - started:.1f} s")


@command.command(name="kernelindex-export")
@click.argument("export_path", metavar="FILE", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("data"),
              show_default=True, help="The data folder to write into.")
@click.option("--source", "sources", multiple=True, metavar="SLUG",
              help="Import only the runs of this source (repeatable). Default: gpumode-kernelbot, flashinfer-bench "
                   "and sol-execbench (its leaderboard results only, as the public KernelIndex shows them). "
                   "Runs this importer wrote for a source left out are removed.")
@click.option("--verbose", is_flag=True, help="List every object left out, with why.")
def kernelindex_export(export_path: Path, data_dir: Path, sources: tuple[str, ...], verbose: bool) -> None:
    """Import the public KernelIndex's catalog export (catalog-*.jsonl.zst or .jsonl).

    Writes the chosen sources' runs with every kernel, workload, implementation, project, protocol,
    environment and source they need, by name, each with the export's digest (checked before any
    file is written). Running it twice changes nothing; files a person wrote are kept; a later
    export updates what changed, and runs it no longer holds are removed and listed as withdrawn.
    """
    from .kernelindex_export import DEFAULT_SOURCES, import_export

    started = time.perf_counter()

    def progress(message: str) -> None:
        click.echo(f"[{time.perf_counter() - started:5.1f} s] {message}", err=True)

    try:
        report = import_export(export_path, data_dir, sources or DEFAULT_SOURCES, progress)
    except ImporterError as error:
        raise click.ClickException(str(error)) from None
    for path in report.files.kept:
        click.echo(f"kept (hand-written): {path}")
    for table, count in sorted(report.unknown_tables.items()):
        click.echo(f"not read: table {table} ({count:,} rows)")
    for line in report.skipped if verbose else report.skipped[:20]:
        click.echo(f"skipped {line}")
    if len(report.skipped) > 20 and not verbose:
        click.echo(f"... and {len(report.skipped) - 20} more skipped (--verbose lists them)")
    for name in report.retracted:
        click.echo(f"retracted upstream: {name}")
    for path in report.withdrawn:
        click.echo(f"withdrawn (no longer in the export): {path}")
    click.echo(f"{data_dir}: {report.summary()} in {time.perf_counter() - started:.1f} s")


@command.command(name="kernelbench")
@click.argument("paths", metavar="PATH...", nargs=-1, required=True,
                type=click.Path(exists=True, path_type=Path))
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("data"),
              show_default=True, help="The data folder to write into.")
@click.option("--problems", "problems_dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=None, help="A KernelBench problem set (a folder with level1/ level2/ ...) to resolve every "
                                 "file's problems against, instead of the set INDEX.csv pairs with it.")
@click.option("--verbose", is_flag=True, help="List every skipped row, not only the reasons.")
def kernelbench(paths: tuple[Path, ...], data_dir: Path, problems_dir: Path | None, verbose: bool) -> None:
    """Import KernelBench baseline timing files (a baseline_time_<config>.json, or folders of them).

    Every row becomes a run (the mean of its trials, with min/max/std); each problem becomes a
    kernel read from its problem file without running it. A problem that cannot be resolved is
    reported with its reason and skipped; a malformed file stops the import before anything is
    written. Running it twice changes nothing.
    """
    from .kernelbench import import_kernelbench

    started = time.perf_counter()
    try:
        report = import_kernelbench(list(paths), data_dir, problems_dir,
                                    progress=lambda message: click.echo(message, err=True))
    except ImporterError as error:
        raise click.ClickException(str(error)) from None
    for line in report.skipped_files:
        click.echo(f"skipped file: {line}")
    for reason, rows in sorted(report.unresolved.items()):
        click.echo(f"skipped {len(rows)} row{'s' if len(rows) != 1 else ''}: {reason}")
        for row in rows if verbose else rows[:3]:
            click.echo(f"  {row}")
        if not verbose and len(rows) > 3:
            click.echo(f"  ... and {len(rows) - 3} more (--verbose lists them)")
    for note in report.notes:
        click.echo(f"note: {note}")
    if report.output:
        for path in report.output.kept:
            click.echo(f"kept (hand-written): {path}")
    click.echo(f"{data_dir}: {report.summary()} in {time.perf_counter() - started:.1f} s")
