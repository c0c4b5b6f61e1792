"""A small valid data repository (``base/``) that each hostile case breaks in exactly one place."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from site_builder.cli import main

BASE = Path(__file__).parent / "base"


class DataRepo:
    """A copy of ``base/`` under ``tmp/data``; the working directory is ``tmp``, so errors print ``data/...``."""

    def __init__(self, root: Path):
        self.root = root
        self.data = root / "data"
        shutil.copytree(BASE, self.data)

    def write(self, relative: str, content: str | bytes) -> Path:
        target = self.data / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        return target

    def replace(self, relative: str, old: str, new: str) -> Path:
        text = (self.data / relative).read_text(encoding="utf-8")
        assert text.count(old) == 1, f"{old!r} must occur once in {relative}"
        return self.write(relative, text.replace(old, new))

    def read(self, relative: str) -> str:
        return (BASE / relative).read_text(encoding="utf-8")

    def cli(self, *args: str):
        return CliRunner().invoke(main, list(args), catch_exceptions=False)

    def problems(self) -> list[str]:
        """The problem lines `kernelindex validate data` prints (its summary line left out)."""
        result = self.cli("validate", "data")
        lines = result.stderr.splitlines()
        if result.exit_code == 0:
            assert lines == []
            return []
        assert result.exit_code == 1, result.output
        assert lines[-1] == f"data: {len(lines) - 1} problem{'s' if len(lines) != 2 else ''}"
        return lines[:-1]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DataRepo:
    monkeypatch.chdir(tmp_path)
    return DataRepo(tmp_path)
