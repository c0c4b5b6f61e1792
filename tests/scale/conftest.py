"""A small synthetic repository, generated once per session (a few hundred runs: seconds, not minutes)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from site_builder.synth import synthesize

SMALL_RUNS = 200


@pytest.fixture(scope="session")
def synthetic_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("synth") / "data"
    synthesize(out, SMALL_RUNS, seed=7, datasheets=None)
    return out


@pytest.fixture
def synthetic(synthetic_source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy (tests change files), with its own cache folder."""
    data = tmp_path / "data"
    shutil.copytree(synthetic_source, data)
    monkeypatch.setenv("KERNELINDEX_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return data
