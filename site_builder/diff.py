"""`kernelindex diff BASE`: what a change to data/ does to the leaderboard, as a reader sees it.

The data at git ref BASE is read with ``git archive`` into a temporary folder (the working tree is
never touched), both sides are loaded, linked and derived with the site's own derive pass
(``derive.leaderboard``: comparison groups, eligibility, ranking, floors), and the two
leaderboards are compared: runs added, changed and removed; new records (a comparison group's #1
changed); rank changes per comparison group; runs that fell below the physical floor. The
Markdown form is made for a pull-request comment and the Actions job summary.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import click

from .derive.eligibility import BELOW_PHYSICAL_FLOOR, reason_text
from .derive.leaderboard import Cohort, Leaderboard, derive_leaderboard
from .derive.model import RunFacts
from .derive.ranking import RankedRow
from .formatting import latency
from .link import Catalog
from .problems import DataError

# A PR comment holds at most 65,536 characters; lists are cut well before that.
MAX_ROWS = 15
MAX_GROUPS = 12
MAX_CHARS = 60_000


class DiffError(click.ClickException):
    pass


# --------------------------------------------------------------------------------------------
# Reading the data at a git ref


def _git(args: list[str], cwd: Path, binary: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=not binary, check=False)


def checkout_data_at(ref: str, data_dir: Path, into: Path) -> Path | None:
    """Extract ``data_dir`` as it is at ``ref`` under ``into``; None when the ref has no such folder."""
    data_dir = data_dir.resolve()
    existing = next(folder for folder in (data_dir, *data_dir.parents) if folder.is_dir())
    found = _git(["rev-parse", "--show-toplevel"], existing)
    if found.returncode != 0:
        raise DiffError(f"{data_dir} is not inside a git repository")
    top = Path(found.stdout.strip()).resolve()
    relative = data_dir.relative_to(top).as_posix()
    if _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], top).returncode != 0:
        raise DiffError(f"unknown git ref {ref!r} (in CI, fetch it first: actions/checkout with fetch-depth: 0)")
    if not _git(["ls-tree", "-d", ref, "--", relative], top).stdout.strip():
        return None
    archive = _git(["archive", "--format=tar", ref, "--", relative], top, binary=True)
    if archive.returncode != 0:
        raise DiffError(f"git archive {ref} failed: {archive.stderr.decode(errors='replace').strip()}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into / relative


# --------------------------------------------------------------------------------------------
# One side: a catalog and its leaderboard


@dataclass
class Side:
    catalog: Catalog | None
    board: Leaderboard | None

    @property
    def runs(self) -> dict[str, RunFacts]:
        return self.board.runs if self.board else {}

    @property
    def cohorts(self) -> dict[str, Cohort]:
        return self.board.cohorts if self.board else {}

    def rank(self, name: str) -> int | None:
        row = self.board.row_of.get(name) if self.board else None
        return row.rank if row else None

    def manifest(self, name: str) -> str:
        assert self.catalog is not None
        return json.dumps(self.catalog.runs[name].manifest(), sort_keys=True, default=str)


def load_side(data_dir: Path | None, as_of: date) -> Side:
    if data_dir is None:
        return Side(None, None)
    from .repository import load_catalog

    catalog = load_catalog(data_dir)
    return Side(catalog, derive_leaderboard(catalog, as_of))


# --------------------------------------------------------------------------------------------
# The comparison


@dataclass
class RunChange:
    name: str
    before: RunFacts | None
    after: RunFacts | None
    what: list[str] = field(default_factory=list)


@dataclass
class RecordChange:
    group: str
    before: RankedRow | None
    after: RankedRow | None


@dataclass
class RankChange:
    run: RunFacts
    before: int | None
    after: int | None


@dataclass
class FloorFlag:
    run: RunFacts
    group: str
    floor_ns: float


@dataclass
class LeaderboardDiff:
    added: list[RunChange] = field(default_factory=list)
    changed: list[RunChange] = field(default_factory=list)
    removed: list[RunChange] = field(default_factory=list)
    records: list[RecordChange] = field(default_factory=list)
    ranks: dict[str, list[RankChange]] = field(default_factory=dict)  # by group title
    below_floor: list[FloorFlag] = field(default_factory=list)
    unranked: list[tuple[RunFacts, str]] = field(default_factory=list)  # ranked before, not now
    new_groups: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.removed or self.records or self.ranks
                    or self.below_floor or self.unranked)


def group_title(cohort: Cohort) -> str:
    return f"{cohort.workload} · {cohort.label or cohort.gpu.label}"


def _changed_paths(before: object, after: object, prefix: str = "") -> list[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        paths = []
        for key in sorted(set(before) | set(after), key=str):
            paths += _changed_paths(before.get(key), after.get(key), f"{prefix}.{key}" if prefix else str(key))
        return paths
    return [] if before == after else [prefix]


def _describe_change(base: Side, head: Side, name: str) -> list[str]:
    before, after = base.runs[name], head.runs[name]
    what = []
    if before.value_ns != after.value_ns:
        what.append(f"{latency(before.value_ns)} → {latency(after.value_ns)}")
    assert base.catalog is not None and head.catalog is not None
    paths = _changed_paths(base.catalog.runs[name].manifest(), head.catalog.runs[name].manifest())
    # Digest fields change whenever anything they cover does; name what a person edited instead.
    paths = [path for path in paths if not path.endswith("Digest") and "latencyNs" not in path]
    what += paths[:4] + ([f"… and {len(paths) - 4} more"] if len(paths) > 4 else [])
    return what


def compare(base: Side, head: Side) -> LeaderboardDiff:
    result = LeaderboardDiff()
    for name in sorted(set(head.runs) - set(base.runs)):
        result.added.append(RunChange(name, None, head.runs[name]))
    for name in sorted(set(base.runs) - set(head.runs)):
        result.removed.append(RunChange(name, base.runs[name], None))
    for name in sorted(set(base.runs) & set(head.runs)):
        if base.manifest(name) != head.manifest(name):
            result.changed.append(RunChange(name, base.runs[name], head.runs[name], _describe_change(base, head, name)))

    titles = {key: group_title(cohort) for side in (base, head) for key, cohort in side.cohorts.items()}
    for key in sorted(set(base.cohorts) | set(head.cohorts), key=lambda k: titles[k]):
        before, after = base.cohorts.get(key), head.cohorts.get(key)
        old_leader = before.leader if before else None
        new_leader = after.leader if after else None
        if _leader_id(old_leader) != _leader_id(new_leader):
            result.records.append(RecordChange(titles[key], old_leader, new_leader))
        old_ranks = {row.run.name: (row.rank, row.run) for row in (before.rows if before else [])}
        new_ranks = {row.run.name: (row.rank, row.run) for row in (after.rows if after else [])}
        if before is None:
            result.new_groups += 1
            continue  # a new group's ranks are all "new": its record above says what matters
        moves = []
        for name in set(old_ranks) | set(new_ranks):
            old, new = old_ranks.get(name), new_ranks.get(name)
            if (old and old[0]) != (new and new[0]):
                moves.append(RankChange((new or old)[1], old[0] if old else None, new[0] if new else None))
        if moves:
            moves.sort(key=lambda m: (m.after is None, m.after or 0, m.before or 0, m.run.name))
            result.ranks[titles[key]] = moves

    if head.board is not None:
        old_reasons = base.board.reasons if base.board else {}
        for name, reasons in sorted(head.board.reasons.items()):
            run = head.runs[name]
            cohort = head.cohorts[run.cohort]
            if BELOW_PHYSICAL_FLOOR in reasons and BELOW_PHYSICAL_FLOOR not in old_reasons.get(name, ()):
                floor = head.board.floor(run)
                result.below_floor.append(FloorFlag(run, group_title(cohort), floor.truthful_ns if floor else float("nan")))
            elif name in base.runs and base.rank(name) is not None:
                result.unranked.append((run, ", ".join(reason_text(code) for code in reasons)))
    return result


def _leader_id(row: RankedRow | None) -> tuple | None:
    return (row.run.name, row.run.value_ns) if row else None


# --------------------------------------------------------------------------------------------
# Rendering


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _rank(value: int | None) -> str:
    return f"#{value}" if value is not None else "–"


def _table(header: list[str], rows: list[list[object]], limit: int = MAX_ROWS) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows[:limit]]
    if len(rows) > limit:
        lines.append(f"\n… and {len(rows) - limit} more")
    return lines + [""]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary_line(diff: LeaderboardDiff) -> str:
    if diff.empty:
        return "No change to the leaderboard."
    parts = [
        f"{_plural(len(diff.added), 'run')} added" if diff.added else "",
        f"{len(diff.changed)} changed" if diff.changed else "",
        f"{len(diff.removed)} removed" if diff.removed else "",
        _plural(len([r for r in diff.records if r.after]), "new record") if any(r.after for r in diff.records) else "",
        f"{_plural(diff.new_groups, 'new comparison group')}" if diff.new_groups else "",
        f"ranks changed in {_plural(len(diff.ranks), 'comparison group')}" if diff.ranks else "",
        f"{len(diff.below_floor)} below the physical floor" if diff.below_floor else "",
    ]
    return " · ".join(part for part in parts if part)


def _run_cells(run: RunFacts, side: Side) -> list[object]:
    cohort = side.cohorts.get(run.cohort)
    group = group_title(cohort) if cohort else run.workload
    return [f"`{run.name}`", run.implementation, group, latency(run.value_ns), _rank(side.rank(run.name))]


def render_markdown(diff: LeaderboardDiff, base: Side, head: Side, base_ref: str) -> str:
    out = [f"### Leaderboard diff against `{base_ref}`", "", f"**{summary_line(diff)}**", ""]
    out += [f"> {note}" for note in diff.notes] + ([""] if diff.notes else [])
    if diff.records:
        out += ["#### New records", ""]
        rows = []
        for change in diff.records:
            new, old = change.after, change.before
            if new is None:
                rows.append([change.group, "no eligible run now", "–", _leader_text(old), "–"])
                continue
            speedup = f"{old.value_ns / new.value_ns:.2f}× faster" if old and new.value_ns else "first record"
            rows.append([change.group, f"{new.run.implementation} (`{new.run.name}`)", latency(new.value_ns),
                         _leader_text(old), speedup])
        out += _table(["Comparison group", "New #1", "Latency", "Before", "Change"], rows)
    if diff.below_floor:
        out += ["#### Below the physical floor (implausible, not ranked)", ""]
        out += _table(["Run", "Latency", "Floor", "Comparison group"],
                      [[f"`{f.run.name}`", latency(f.run.value_ns), latency(f.floor_ns), f.group] for f in diff.below_floor])
    if diff.ranks:
        out += ["#### Rank changes", ""]
        for index, (group, moves) in enumerate(diff.ranks.items()):
            if index == MAX_GROUPS:
                out += [f"… and {len(diff.ranks) - MAX_GROUPS} more comparison groups", ""]
                break
            out += [f"**{_cell(group)}**", ""]
            out += _table(["Rank", "Before", "Run", "Implementation", "Latency"],
                          [[_rank(m.after) if m.after else "removed", _rank(m.before) if m.before else "new",
                            f"`{m.run.name}`", m.run.implementation, latency(m.run.value_ns)] for m in moves])
    if diff.unranked:
        out += ["#### No longer ranked", ""]
        out += _table(["Run", "Implementation", "Why"], [[f"`{run.name}`", run.implementation, why] for run, why in diff.unranked])
    header = ["Run", "Implementation", "Comparison group", "Latency", "Rank"]
    if diff.added:
        out += [f"#### Runs added ({len(diff.added)})", ""]
        out += _table(header, [_run_cells(change.after, head) for change in diff.added])
    if diff.changed:
        out += [f"#### Runs changed ({len(diff.changed)})", ""]
        out += _table(header + ["What changed"],
                      [_run_cells(change.after, head) + ["; ".join(change.what) or "metadata"] for change in diff.changed])
    if diff.removed:
        out += [f"#### Runs removed ({len(diff.removed)})", ""]
        out += _table(header, [_run_cells(change.before, base) for change in diff.removed])
    text = "\n".join(out).rstrip() + "\n"
    if len(text) > MAX_CHARS:
        cut = text.rfind("\n", 0, MAX_CHARS)
        text = text[:cut] + "\n\n… (cut to fit a comment; run `kernelindex diff` locally for everything)\n"
    return text


def _leader_text(row: RankedRow | None) -> str:
    return f"{row.run.implementation} {latency(row.value_ns)}" if row else "–"


def render_text(diff: LeaderboardDiff, base: Side, head: Side, base_ref: str) -> str:
    out = [f"Leaderboard diff against {base_ref}: {summary_line(diff)}"]
    out += [f"note: {note}" for note in diff.notes]
    for change in diff.records:
        new, old = change.after, change.before
        out.append(f"record  {change.group}: {_leader_text(new) if new else 'no eligible run'} (was {_leader_text(old)})")
    for flag in diff.below_floor:
        out.append(f"floor   {flag.run.name}: {latency(flag.run.value_ns)} is below the floor {latency(flag.floor_ns)} ({flag.group})")
    for group, moves in diff.ranks.items():
        for move in moves:
            out.append(f"rank    {group}: {move.run.name} {_rank(move.before) if move.before else 'new'} → "
                       f"{_rank(move.after) if move.after else 'removed'}")
    for run, why in diff.unranked:
        out.append(f"unrank  {run.name}: {why}")
    out += [f"added   {c.name} {latency(c.after.value_ns)}" for c in diff.added]
    out += [f"changed {c.name}: {'; '.join(c.what) or 'metadata'}" for c in diff.changed]
    out += [f"removed {c.name}" for c in diff.removed]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# The command


def _as_of(explicit: date | None, data_dir: Path) -> date:
    from .asof import resolve_as_of

    return resolve_as_of(explicit, os.environ, data_dir, [])[0]


def diff_data(base_ref: str, data_dir: Path, as_of: date | None = None) -> tuple[LeaderboardDiff, Side, Side]:
    when = _as_of(as_of, data_dir)
    head = load_side(data_dir, when)
    with tempfile.TemporaryDirectory(prefix="kernelindex-diff-") as scratch:
        base_dir = checkout_data_at(base_ref, data_dir, Path(scratch))
        notes = []
        try:
            base = load_side(base_dir, when)
        except DataError as error:
            # The base may not validate under this version's rules; compare against nothing then.
            base = Side(None, None)
            notes.append(f"the data at {base_ref} does not validate with this version "
                         f"({_plural(len(error.problems), 'problem')}); everything is shown as added")
        if base_dir is None:
            notes.append(f"{base_ref} has no data folder; everything is shown as added")
    result = compare(base, head)
    result.notes += notes
    return result, base, head


@click.command(name="diff")
@click.argument("base")
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("data"), show_default=True)
@click.option("--format", "output_format", type=click.Choice(["markdown", "text"]), default="markdown", show_default=True)
@click.option("--as-of", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="The date staleness is measured against (default: as the build chooses it).")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the result to this file.")
def command(base: str, data_dir: Path, output_format: str, as_of, output: Path | None) -> None:
    """What a change to data/ does to the leaderboard, as Markdown.

    Compares the data at git ref BASE (e.g. origin/main) with the working tree: runs added,
    changed and removed; new records; rank changes per comparison group; runs below the floor.
    """
    try:
        result, base_side, head_side = diff_data(base, data_dir, as_of.date() if as_of else None)
    except DataError as error:
        for problem in error.problems:
            click.echo(str(problem), err=True)
        raise DiffError(f"{data_dir} has {_plural(len(error.problems), 'problem')}: run `kernelindex validate`") from None
    render = render_markdown if output_format == "markdown" else render_text
    text = render(result, base_side, head_side, base)
    if output is not None:
        output.write_text(text, encoding="utf-8")
    sys.stdout.write(text)
