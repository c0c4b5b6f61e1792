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

    Every row becomes a run; workloads and implementations are written with them. Kernels are
    declared by hand (liger_catalog.py maps the CSV onto them); one nobody declared is imported
    as a placeholder and named on the output. Running it twice changes nothing, and files a
    person wrote are kept.
    """
    from .liger import import_liger

    started = time.perf_counter()
    try:
        report = import_liger(csv_path, data_dir)
    except ImporterError as error:
        raise click.ClickException(str(error)) from None
    for path in report.kept:
        click.echo(f"kept (hand-written): {path}")
    for note in report.notes:
        click.echo(note)
    click.echo(f"{data_dir}: {report.summary()} in {time.perf_counter() - started:.1f} s")
