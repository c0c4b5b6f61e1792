"""`kernelindex validate --format github`: problems as ::error workflow commands on file and line."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from site_builder.cli import github_annotation, main
from site_builder.problems import Problem


def test_escapes_what_workflow_commands_reserve():
    line = github_annotation(Problem("data/runs/a,b:c.yaml", 12, 5, "50% faster\nthan: the floor"))
    assert line == ("::error file=data/runs/a%2Cb%3Ac.yaml,line=12,col=5,title=kernelindex validate::"
                    "50%25 faster than: the floor")


def test_validate_annotates_the_broken_line(data_dir: Path):
    run = data_dir / "runs" / "liger-kernel-bench" / "llama4-rope" / "liger-s2048.yaml"
    run.write_text(run.read_text(encoding="utf-8").replace("implementation: liger-llama4-rope",
                                                           "implementation: no-such-thing"), encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", "--format", "github", str(data_dir)])
    assert result.exit_code == 1
    (annotation,) = [line for line in result.output.splitlines() if line.startswith("::error ")]
    line_number = next(index for index, text in enumerate(run.read_text(encoding="utf-8").splitlines(), 1)
                       if "no-such-thing" in text)
    assert "liger-s2048.yaml" in annotation and f",line={line_number},col=" in annotation
    assert "no-such-thing" in annotation
