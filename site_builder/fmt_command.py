"""`kernelindex fmt [PATHS] [--check]`: rewrite data files into the canonical form of ``canonical_yaml``.

Thousands of files must take seconds, so:
- a file whose text equals ``canonical_yaml`` of its own values is canonical without the slow
  round-trip parse (what importers write takes this path);
- files are spread over worker processes when there are many;
- a file is written only when its bytes change, atomically, and only after checking that the new
  text means exactly what the old one did (same values, timestamps compared as written).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import click

from .load import DATA_SUFFIXES, display_path
from .problems import Problem
from .canonical_yaml import FormatError, _strip_schema_comment, format_bytes, load_plain, quick_canonical

# Below this many files a worker pool costs more to start than it saves.
PARALLEL_THRESHOLD = 400


@dataclass(frozen=True)
class Outcome:
    path: Path
    display: str
    status: str  # "canonical", "changed" or "error"
    text: str | None = None  # the canonical text, when it differs from the file's
    problem: Problem | None = None


def check_file(path: Path) -> Outcome:
    """Format one file in memory; never writes."""
    display = display_path(path)
    raw = path.read_bytes()
    try:
        if quick_canonical(raw.decode("utf-8"), path):
            return Outcome(path, display, "canonical")
    except UnicodeDecodeError:
        pass  # format_bytes reports where
    try:
        text, formatted = format_bytes(raw, path, display)
    except FormatError as error:
        return Outcome(path, display, "error", problem=error.problem)
    if formatted == text:
        return Outcome(path, display, "canonical")
    if load_plain(_strip_schema_comment(formatted)) != load_plain(_strip_schema_comment(text)):
        # A formatter bug must never change data: refuse rather than write.
        return Outcome(path, display, "error", problem=Problem(
            display, 1, 1, "fmt would change the meaning of this file (a formatter bug); left as it is"))
    return Outcome(path, display, "changed", text=formatted)


def _check_many(paths: list[Path]) -> list[Outcome]:
    return [check_file(path) for path in paths]


def iter_files(paths: Iterable[Path]) -> Iterator[Path]:
    seen: set[Path] = set()
    for path in paths:
        candidates = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in DATA_SUFFIXES) if path.is_dir() else [path]
        for candidate in candidates:
            if candidate not in seen:
                seen.add(candidate)
                yield candidate


def check_files(paths: list[Path], jobs: int = 0) -> list[Outcome]:
    workers = jobs or os.cpu_count() or 1
    if workers <= 1 or len(paths) < PARALLEL_THRESHOLD:
        return _check_many(paths)
    # Large chunks: each task pays one pickling round trip, not one per file.
    size = max(64, len(paths) // (workers * 4))
    chunks = [paths[start:start + size] for start in range(0, len(paths), size)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return [outcome for chunk in pool.map(_check_many, chunks) for outcome in chunk]


def write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.fmt-tmp")
    temporary.write_text(text, encoding="utf-8")
    os.chmod(temporary, path.stat().st_mode & 0o777)
    os.replace(temporary, path)


@click.command(name="fmt")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--check", is_flag=True, help="List files that are not canonical and exit 1; write nothing.")
@click.option("--jobs", "-j", type=int, default=0, show_default="one per CPU", help="Worker processes.")
@click.option("--format", "output_format", type=click.Choice(["text", "github"]), default="text", show_default=True,
              help="github: report files as ::error workflow commands (GitHub Actions marks them in the PR).")
def command(paths: tuple[Path, ...], check: bool, jobs: int, output_format: str) -> None:
    """Rewrite data files into canonical form (keeps comments).

    PATHS are files or folders (default: data). Key order follows the schema, 2-space indent,
    quotes only where needed, and a yaml-language-server comment that points editors at the
    JSON Schema of the file's kind.
    """
    files = list(iter_files(paths or (Path("data"),)))
    outcomes = check_files(files, jobs)
    changed = [o for o in outcomes if o.status == "changed"]
    errors = [o for o in outcomes if o.status == "error"]
    github = output_format == "github"
    for outcome in errors:
        if github:
            from .cli import github_annotation

            click.echo(github_annotation(outcome.problem))
        else:
            click.echo(str(outcome.problem), err=True)
    if check:
        for outcome in changed:
            if github:
                from .cli import github_annotation

                click.echo(github_annotation(Problem(outcome.display, 1, 1, "not in canonical form: run `make fmt` (kernelindex fmt)")))
            else:
                click.echo(f"not canonical: {outcome.display}")
        if changed:
            click.echo(f"{len(changed)} of {len(files)} files not canonical: run `kernelindex fmt` (or `make fmt`)", err=True)
        elif not errors:
            click.echo(f"{len(files)} files canonical")
        sys.exit(1 if changed or errors else 0)
    for outcome in changed:
        write_atomically(outcome.path, outcome.text or "")
        click.echo(f"formatted {outcome.display}")
    click.echo(f"{len(changed)} of {len(files)} files reformatted" + (f", {len(errors)} could not be read" if errors else ""))
    sys.exit(1 if errors else 0)
