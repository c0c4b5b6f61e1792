"""Reading KernelBench's published baseline timing files (``results/timing/**/baseline_time_*.json``).

A timing file maps level -> problem file name -> ``{mean, std, min, max, num_trials, hardware,
device}`` in milliseconds. What a file does not say in its rows comes from where it sits:

- the configuration from its name: ``baseline_time_torch.json`` is PyTorch eager,
  ``baseline_time_torch_compile_inductor_<mode>.json`` a torch.compile mode,
  ``baseline_time_torch_compile_<backend>.json`` another backend; a few early files name the
  machine instead (``baseline_time_matx3.json`` eager, ``baseline_time_torch_compile_matx3.json``
  torch.compile with its mode unrecorded);
- the GPU from the rows' ``hardware`` (the ``<GPU>_<provider>/`` folder only names it again);
- the provider from that folder, or from the machine name of an early file;
- when and where it was published, and the problem set it was measured on, from ``INDEX.csv``
  (shared/data/kernelbench layout) or, failing that, a ``<YYYY-MM-DD>-<commit>/`` folder.

A file that is not JSON of that shape is malformed: ``TimingError`` names file:line.
"""

from __future__ import annotations

import csv
import json
import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .output import ImporterError

# Files whose name says a machine, not a configuration (the first published timings, Dec 2024).
EARLY_MACHINES = {"cleaned", "matx2", "matx3"}
_PUBLICATION_FOLDER = re.compile(r"^(\d{4}-\d{2}-\d{2})-([0-9a-f]{7,40})$")
_ROW_KEYS = ("mean", "std", "min", "max")
MAX_TIMING_BYTES = 20_000_000


class TimingError(ImporterError):
    """A malformed timing file: the message starts with file:line."""


@dataclass(frozen=True)
class Config:
    """How the problem's model was run."""

    slug: str  # implementation prefix: pytorch-eager, torch-compile-max-autotune, ...
    title: str
    compiled: bool
    mode: str  # eager, or the torch.compile mode/backend as the file names it


def config_from_name(file_name: str) -> tuple[Config, str | None]:
    """(configuration, machine named instead of a provider folder) from ``baseline_time_<x>.json``."""
    stem = file_name[: -len(".json")] if file_name.endswith(".json") else file_name
    rest = stem[len("baseline_time_"):] if stem.startswith("baseline_time_") else stem
    if rest == "torch":
        return Config("pytorch-eager", "PyTorch eager", False, "eager"), None
    if rest.startswith("torch_compile_"):
        suffix = rest[len("torch_compile_"):]
        if suffix in EARLY_MACHINES:
            return Config("torch-compile", "torch.compile (mode not recorded)", True, "unrecorded"), suffix
        if suffix.startswith("inductor_"):
            mode = suffix[len("inductor_"):]
            return Config(f"torch-compile-{_slug(mode)}", f"torch.compile · inductor {mode}", True, mode), None
        return Config(f"torch-compile-{_slug(suffix)}", f"torch.compile · {suffix} backend", True, suffix), None
    if rest in EARLY_MACHINES:
        return Config("pytorch-eager", "PyTorch eager", False, "eager"), rest
    # A name this reader has not seen (another branch's experiment): kept apart under its own name.
    return Config(f"kernelbench-{_slug(rest)}", f"KernelBench configuration {rest}", False, rest), None


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "unnamed"


@dataclass(frozen=True)
class Row:
    level: int
    problem: str  # file name, e.g. "1_Square_matrix_multiplication_.py"
    line: str  # "line:column" where the problem's entry starts in the file
    mean: float  # ms
    std: float
    minimum: float
    maximum: float
    trials: int | None
    hardware: str
    device: str | None

    @property
    def key(self) -> str:
        return f"level{self.level}/{self.problem}"


@dataclass(frozen=True)
class Publication:
    """Where a timing file came from: its publishing commit and date, and its problem set."""

    date: str  # YYYY-MM-DD
    observed_at: str  # ISO 8601 UTC of the publishing commit (its date at 00:00 without INDEX.csv)
    commit: str  # as long as known
    upstream_path: str | None
    problems: Path | None  # the problem set paired with it (INDEX.csv)


@dataclass(frozen=True)
class TimingFile:
    path: Path
    config: Config
    provider: str  # modal, together, lambdalabs, matx3, ... (lower case)
    folder_gpu: str | None  # the GPU as the folder names it (A100-80GB), for the report
    publication: Publication
    rows: tuple[Row, ...]
    missing: tuple[tuple[str, str], ...] = ()  # (level/problem, file:line:col) left null in the file

    @property
    def identity(self) -> str:
        """date-commit/provider-folder/config: unique per published file, stable across runs."""
        return f"{self.publication.date}-{self.publication.commit[:7]}/{self.path.parent.name}/{self.path.name}"


def _position(text: str, needle: str, start: int = 0) -> tuple[str, int]:
    """("line:column" of ``needle`` at or after ``start``, where the search goes on): the
    published files are one line each, so the column is what finds a row."""
    index = text.find(needle, start)
    if index < 0:
        return "1", start
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return f"{line}:{column}", index + len(needle)


def read_rows(path: Path) -> tuple[tuple[Row, ...], tuple[tuple[str, str], ...]]:
    """(rows, (level/problem, where) of the entries the file leaves null: timings that failed)."""
    try:
        if path.stat().st_size > MAX_TIMING_BYTES:
            raise TimingError(f"{path}:1: larger than {MAX_TIMING_BYTES} bytes")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise TimingError(f"{path}:1: cannot be read: {error}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise TimingError(f"{path}:{error.lineno}:{error.colno}: not JSON: {error.msg}") from None
    if not isinstance(document, dict):
        raise TimingError(f"{path}:1: expected an object of levels")
    rows: list[Row] = []
    missing: list[tuple[str, str]] = []
    cursor = 0
    for level_name, problems in document.items():
        level_line, cursor = _position(text, json.dumps(level_name), cursor)
        match = re.fullmatch(r"level(\d+)", level_name)
        if not match:
            raise TimingError(f"{path}:{level_line}: key {level_name!r} is not level<N>")
        if not isinstance(problems, dict):
            raise TimingError(f"{path}:{level_line}: {level_name} is not an object of problems")
        for problem, values in problems.items():
            line, cursor = _position(text, json.dumps(problem), cursor)
            if values is None:
                missing.append((f"{level_name}/{problem}", f"{path}:{line}"))
                continue
            rows.append(_row(path, line, int(match.group(1)), problem, values))
    return tuple(rows), tuple(missing)


def _number(path: Path, line: str, values: dict, key: str) -> float:
    value = values.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise TimingError(f"{path}:{line}: {key} must be a finite non-negative number of ms, not {value!r}")
    return float(value)


def _row(path: Path, line: str, level: int, problem: str, values: object) -> Row:
    if not isinstance(values, dict):
        raise TimingError(f"{path}:{line}: {problem}: expected an object of statistics")
    if not re.fullmatch(r"\d+_[^/\\]+\.py", problem):
        raise TimingError(f"{path}:{line}: {problem!r} is not a problem file name (<number>_<name>.py)")
    mean, std, minimum, maximum = (_number(path, line, values, key) for key in _ROW_KEYS)
    if not (minimum <= mean <= maximum):
        raise TimingError(f"{path}:{line}: {problem}: expected min <= mean <= max, got {minimum}, {mean}, {maximum}")
    if mean <= 0:
        raise TimingError(f"{path}:{line}: {problem}: mean must be above 0")
    trials = values.get("num_trials")
    if trials is not None and (isinstance(trials, bool) or not isinstance(trials, int) or trials < 1):
        raise TimingError(f"{path}:{line}: {problem}: num_trials must be a positive integer")
    hardware = values.get("hardware")
    if not isinstance(hardware, str) or not hardware.strip() or len(hardware) > 200:
        raise TimingError(f"{path}:{line}: {problem}: hardware must name the GPU")
    device = values.get("device")
    return Row(level=level, problem=problem, line=line, mean=mean, std=std, minimum=minimum, maximum=maximum,
               trials=trials, hardware=hardware.strip(), device=device if isinstance(device, str) else None)


# --------------------------------------------------------------------------------------------
# Where a file came from


@dataclass(frozen=True)
class IndexEntry:
    upstream_path: str
    commit: str
    commit_date: str
    problems: str  # relative to the INDEX.csv folder


def find_index(path: Path) -> tuple[Path, dict[str, IndexEntry]] | None:
    """The nearest INDEX.csv above ``path`` (shared/data/kernelbench layout), by relative timing path."""
    for folder in path.resolve().parents:
        index = folder / "INDEX.csv"
        if index.is_file():
            with index.open(newline="", encoding="utf-8") as handle:
                entries = {
                    row["path"]: IndexEntry(row["upstream_path"], row["commit"], row["commit_date"],
                                            row["problems_at_that_commit"])
                    for row in csv.DictReader(handle)
                }
            return folder, entries
    return None


def publication_of(path: Path) -> Publication | None:
    located = find_index(path)
    if located:
        root, entries = located
        entry = entries.get(path.resolve().relative_to(root).as_posix())
        if entry:
            moment = datetime.fromisoformat(entry.commit_date).astimezone(timezone.utc)
            observed = moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")
            return Publication(date=moment.strftime("%Y-%m-%d"), observed_at=observed, commit=entry.commit,
                               upstream_path=entry.upstream_path, problems=root / entry.problems)
    for folder in path.parents:
        match = _PUBLICATION_FOLDER.match(folder.name)
        if match:
            return Publication(date=match.group(1), observed_at=f"{match.group(1)}T00:00:00.000Z",
                               commit=match.group(2), upstream_path=None, problems=None)
    return None


def read_timing_file(path: Path) -> TimingFile | str:
    """The file, or (a string) why it cannot be placed; malformed contents raise ``TimingError``."""
    if not (path.name.startswith("baseline_time_") and path.name.endswith(".json")):
        return f"{path}: not a baseline_time_<config>.json file"
    rows, missing = read_rows(path)
    publication = publication_of(path)
    if publication is None:
        return f"{path}: no publication date: not in INDEX.csv and not under a <YYYY-MM-DD>-<commit>/ folder"
    config, machine = config_from_name(path.name)
    folder = path.parent.name
    folder_gpu = None
    if machine is not None:
        provider = machine
    elif "_" in folder and not _PUBLICATION_FOLDER.match(folder):
        folder_gpu, provider = folder.rsplit("_", 1)
    else:
        provider = "unknown"
    return TimingFile(path=path, config=config, provider=_slug(provider), folder_gpu=folder_gpu,
                      publication=publication, rows=rows, missing=missing)


def timing_paths(arguments: list[Path]) -> list[Path]:
    """Every ``*.json`` a PATH argument names (a file, or a folder searched recursively), sorted."""
    found: set[Path] = set()
    for argument in arguments:
        if argument.is_dir():
            found.update(path for path in argument.rglob("*.json") if path.is_file())
        else:
            found.add(argument)
    return sorted(found)
