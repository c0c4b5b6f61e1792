from pathlib import Path

import pytest

from .world import base_documents, write


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A valid data folder (tmp/data) with two runs in one comparison group."""
    root = tmp_path / "data"
    write(root, base_documents())
    return root
