"""kernelindex diff BASE: what a change to data/ does to the leaderboard, read from git."""

from __future__ import annotations

import os
import subprocess
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from site_builder.cli import main
from site_builder.diff import DiffError, checkout_data_at, diff_data

from .world import FLOOR_NS, run, write

AS_OF = date(2026, 1, 1)
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV}).stdout


@pytest.fixture
def repo(data_dir: Path) -> Path:
    """A git repository whose first commit holds the data: Liger #1 (81.3 µs), Transformers #2."""
    root = data_dir.parent
    git(root, "init", "--quiet", "--initial-branch=main")
    git(root, "add", "data")
    git(root, "commit", "--quiet", "-m", "base")
    return root


RUNS = Path("runs/community/llama4-rope")


def add_run(repo: Path, name: str, implementation: str, median_ns: int) -> None:
    write(repo / "data", {str(RUNS / f"{name}.yaml"): run(name, implementation, median_ns, "2025-09-01T00:00:00Z")})


def test_a_faster_run_is_a_new_record_and_moves_the_others_down(repo: Path):
    add_run(repo, "kernelindex-s2048", "kernelindex-llama4-rope", 70_100)
    result, _, _ = diff_data("HEAD", repo / "data", AS_OF)
    assert [change.name for change in result.added] == ["kernelindex-s2048"]
    assert not result.removed and not result.changed
    (record,) = result.records
    assert record.before.run.name == "liger-s2048" and record.after.run.name == "kernelindex-s2048"
    (moves,) = result.ranks.values()
    assert {(m.run.name, m.before, m.after) for m in moves} == {
        ("kernelindex-s2048", None, 1), ("liger-s2048", 1, 2), ("transformers-s2048", 2, 3)}

    output = CliRunner().invoke(main, ["diff", "HEAD", "--data", str(repo / "data"), "--as-of", "2026-01-01"])
    assert output.exit_code == 0, output.output
    text = output.output
    assert "**1 run added · 1 new record · ranks changed in 1 comparison group**" in text
    assert "#### New records" in text and "70.1 µs" in text and "1.16× faster" in text
    assert "| #2 | #1 | `liger-s2048` |" in text
    assert git(repo, "status", "--porcelain", "--untracked-files=no") == ""  # the working tree is not touched


def test_a_removed_run(repo: Path):
    (repo / "data" / "runs" / "liger-kernel-bench" / "llama4-rope" / "liger-s2048.yaml").unlink()
    result, _, _ = diff_data("HEAD", repo / "data", AS_OF)
    assert [change.name for change in result.removed] == ["liger-s2048"]
    (record,) = result.records
    assert record.after.run.name == "transformers-s2048"
    (moves,) = result.ranks.values()
    assert {(m.run.name, m.before, m.after) for m in moves} == {("liger-s2048", 1, None), ("transformers-s2048", 2, 1)}
    text = CliRunner().invoke(main, ["diff", "HEAD", "--data", str(repo / "data"), "--format", "text",
                                     "--as-of", "2026-01-01"]).output
    assert "removed liger-s2048" in text and "transformers-s2048 #2 → #1" in text


def test_a_run_below_the_floor_is_flagged_and_not_ranked(repo: Path):
    impossible = int(FLOOR_NS * 0.5)
    add_run(repo, "too-fast", "kernelindex-llama4-rope", impossible)
    result, _, _ = diff_data("HEAD", repo / "data", AS_OF)
    (flag,) = result.below_floor
    assert flag.run.name == "too-fast" and flag.floor_ns == pytest.approx(FLOOR_NS)
    assert not result.records and not result.ranks  # the leaderboard itself did not move
    text = CliRunner().invoke(main, ["diff", "HEAD", "--data", str(repo / "data"), "--as-of", "2026-01-01"]).output
    assert "Below the physical floor" in text and "`too-fast`" in text


def test_a_changed_run_says_what_changed(repo: Path):
    path = repo / "data" / "runs" / "liger-kernel-bench" / "llama4-rope" / "transformers-s2048.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("median: 206500", "median: 76500"), encoding="utf-8")
    result, _, _ = diff_data("HEAD", repo / "data", AS_OF)
    (change,) = result.changed
    assert change.name == "transformers-s2048" and "206.5 µs → 76.5 µs" in change.what
    assert result.records[0].after.run.name == "transformers-s2048"


def test_no_change(repo: Path):
    text = CliRunner().invoke(main, ["diff", "HEAD", "--data", str(repo / "data"), "--as-of", "2026-01-01"]).output
    assert "No change to the leaderboard." in text


def test_base_without_data_and_unknown_refs(repo: Path, tmp_path: Path):
    git(repo, "rm", "-r", "--quiet", "data")
    git(repo, "commit", "--quiet", "-m", "no data")
    assert checkout_data_at("HEAD", repo / "data", tmp_path / "scratch") is None
    with pytest.raises(DiffError):
        checkout_data_at("no-such-ref", repo / "data", tmp_path / "scratch")
