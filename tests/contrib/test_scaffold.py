"""kernelindex new run: a file that validates as written, never over another, never half-written."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from site_builder.cli import main
from site_builder.repository import load_catalog
from site_builder.canonical_yaml import format_text, load_plain

from .world import ENVIRONMENT, PROTOCOL, WORKLOAD

FLAGS = ["--implementation", "kernelindex-llama4-rope", "--workload", WORKLOAD, "--protocol", PROTOCOL,
         "--environment", ENVIRONMENT, "--median", "70.1 us", "--p20", "69.8 us", "--p80", "70.6 us",
         "--observed-at", "2025-10-01T10:00:00Z", "--name", "kernelindex-s2048", "--no-interactive"]


def new_run(data_dir: Path, *args: str, input: str | None = None):
    return CliRunner().invoke(main, ["new", "run", "--data", str(data_dir), *args], input=input)


def without(flag: str) -> list[str]:
    index = FLAGS.index(flag)
    return FLAGS[:index] + FLAGS[index + 2:]


def replaced(flag: str, value: str) -> list[str]:
    index = FLAGS.index(flag)
    return FLAGS[:index + 1] + [value] + FLAGS[index + 2:]


def files(folder: Path) -> set[Path]:
    return {path for path in folder.rglob("*")}


def test_flags_write_a_valid_canonical_file(data_dir: Path):
    result = new_run(data_dir, *FLAGS)
    assert result.exit_code == 0, result.output
    path = data_dir / "runs" / "community" / "llama4-rope" / "kernelindex-s2048.yaml"
    assert path.is_file()
    text = path.read_text(encoding="utf-8")
    assert format_text(text, path) == text  # canonical as written
    spec = load_plain(text)["spec"]
    assert spec["timing"] == {"primaryStatistic": "median", "latencyNs": {"median": 70100, "p20": 69800, "p80": 70600}}
    assert spec["observedAt"] == "2025-10-01T10:00:00Z"
    catalog = load_catalog(data_dir)
    assert catalog.runs["kernelindex-s2048"].spec.timing.latencyNs.median == 70100


def test_source_runs_go_under_the_source(data_dir: Path):
    result = new_run(data_dir, *replaced("--name", "from-source"), "--source", "liger-kernel-bench",
                     "--external-id", "llama4_rope/forward/kernelindex")
    assert result.exit_code == 0, result.output
    path = data_dir / "runs" / "liger-kernel-bench" / "llama4-rope" / "from-source.yaml"
    native = load_plain(path.read_text(encoding="utf-8"))["spec"]["sourceNative"]
    assert native == {"source": "liger-kernel-bench", "externalId": "llama4_rope/forward/kernelindex"}


def test_refuses_to_overwrite(data_dir: Path):
    assert new_run(data_dir, *FLAGS).exit_code == 0
    path = data_dir / "runs" / "community" / "llama4-rope" / "kernelindex-s2048.yaml"
    before = path.read_bytes()
    again = new_run(data_dir, *replaced("--median", "70.2 us"))
    assert again.exit_code != 0
    assert "already exists" in again.output
    assert path.read_bytes() == before


def test_invalid_input_leaves_nothing_behind(data_dir: Path):
    before = files(data_dir)
    # Caught before writing: p20 above the median.
    bad = new_run(data_dir, *replaced("--p20", "90 us"))
    assert bad.exit_code != 0 and "p20" in bad.output
    # Caught only by validating the whole folder: the same content as an existing run.
    duplicate = new_run(data_dir, "--implementation", "liger-llama4-rope", "--workload", WORKLOAD, "--protocol", PROTOCOL,
                        "--environment", ENVIRONMENT, "--median", "81.3 us", "--observed-at", "2025-08-07T21:42:12Z",
                        "--name", "liger-again", "--no-interactive")
    assert duplicate.exit_code != 0 and "removed again" in duplicate.output
    assert "duplicate run" in duplicate.output
    # Unknown names, a missing date, a bare number without a unit.
    assert "no implementation named" in new_run(data_dir, *replaced("--implementation", "nope")).output
    assert "missing --observed-at" in new_run(data_dir, *without("--observed-at")).output
    assert "give a unit" in new_run(data_dir, *replaced("--median", "70.1")).output
    assert "not a slug" in new_run(data_dir, *replaced("--name", "../escape")).output
    assert files(data_dir) == before  # not a file, not a folder


def test_prompts_list_the_choices(data_dir: Path):
    answers = "\n".join(["2", "1", "1", "1", "70.1 us", "", "", "2025-10-01T10:00:00Z"]) + "\n"
    result = new_run(data_dir, "--interactive", "--name", "asked", input=answers)
    assert result.exit_code == 0, result.output
    assert "kernelindex-llama4-rope" in result.output and "transformers-llama4-rope" in result.output
    spec = load_plain((data_dir / "runs" / "community" / "llama4-rope" / "asked.yaml").read_text(encoding="utf-8"))["spec"]
    assert spec["implementation"] == "liger-llama4-rope" and spec["timing"]["latencyNs"] == {"median": 70100}
