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
@click.argument("csv_path", metavar="CSV", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("data"),
              show_default=True, help="The data folder to write into.")
def liger(csv_path: Path, data_dir: Path) -> None:
    """Import Liger-Kernel's all_benchmark_data.csv (e.g. data/sources/liger-kernel-bench/all_benchmark_data.csv).

    Every row becomes a run; workloads, implementations and the kernels nobody has curated are
    written with them. Running it twice changes nothing, and files a person wrote are kept.
    """
    from .liger import import_liger

    started = time.perf_counter()
    try:
        report = import_liger(csv_path, data_dir)
    except ImporterError as error:
        raise click.ClickException(str(error)) from None
    for path in report.kept:
        click.echo(f"kept (hand-written): {path}")
    click.echo(f"{data_dir}: {report.summary()} in {time.perf_counter() - started:.1f} s")


@command.command(name="kernelindex-export")
@click.argument("export_path", metavar="FILE", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("data"),
              show_default=True, help="The data folder to write into.")
@click.option("--source", "sources", multiple=True, metavar="SLUG",
              help="Import the runs of this source (repeatable). Default: gpumode-kernelbot and flashinfer-bench; "
                   "sol-execbench adds SOL-ExecBench's leaderboard results.")
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
