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
    it; workloads, implementations and the kernels nobody has curated are written with them.
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
