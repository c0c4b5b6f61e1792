"""The data repository as a whole: load and link every file, or report every problem."""

from __future__ import annotations

from pathlib import Path

from .link import Catalog, link
from .load import load_documents
from .problems import DataError


def load_catalog(data_dir: Path) -> Catalog:
    """Every file under ``data_dir``, validated and linked; raises DataError listing all problems."""
    if not data_dir.is_dir():
        raise FileNotFoundError(f"{data_dir}: no such data folder")
    documents, problems = load_documents(data_dir)
    catalog, link_problems = link(documents)
    problems.extend(link_problems)
    if problems:
        raise DataError(problems)
    return catalog
