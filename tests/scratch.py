"""Scratch folders that are gone when the fixture that made them ends.

A site of the bundled data is about 1 GB on disk (85,000 files), and pytest keeps every folder
``tmp_path_factory`` makes until the session ends. Six suites each building one left 5 GB behind
by the time the last started, more than a CI machine may have free (a CI run failed so, with
"No space left on device"). Fixtures that build or copy something large take their folder from
here, and are scoped as narrowly as their tests allow, so at most one or two sites exist at once.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def scratch_folder(factory: pytest.TempPathFactory, name: str) -> Iterator[Path]:
    folder = factory.mktemp(name)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
