"""The builder's stages keep to their boundaries: what derives figures and what makes page views
(``derive/``, ``context/``) never reach for how the site is loaded or rebuilt quickly, so a
newcomer can change a page without learning the rebuild machinery."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "site_builder"
# What loads the data and what makes rebuilds fast: the stages that derive and plan pages use neither.
MACHINERY = ("site_builder.incremental", "site_builder.parallel", "site_builder.load", "site_builder.repository",
             "site_builder.yaml_reading", "site_builder.fastyaml", "site_builder.spliced")


def imported(path: Path) -> set[str]:
    """The modules ``path`` imports, absolute, relative imports resolved."""
    module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = module.rsplit(".", 1)[0] if path.name != "__init__.py" else module.removesuffix(".__init__")
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[:len(base) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found.add(name)
            found.update(f"{name}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize("stage", ["derive", "context"])
def test_derive_and_context_import_nothing_of_loading_or_rebuilding(stage: str) -> None:
    reaching = {f"{path.relative_to(PACKAGE)}: {name}" for path in sorted((PACKAGE / stage).rglob("*.py"))
                for name in imported(path) if name.startswith(MACHINERY)}
    assert not reaching


def test_the_check_resolves_relative_imports() -> None:
    """The test above would pass for nothing if relative imports went unresolved."""
    assert "site_builder.derive.leaderboard" in imported(PACKAGE / "context" / "tasks.py")
    assert "site_builder.context.kernels" in imported(PACKAGE / "incremental" / "page_signatures.py")
