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
