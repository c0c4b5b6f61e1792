"""`kernelindex bench --dry-run` in the site builder's install (no torch): it prints the plan."""

import sys

from click.testing import CliRunner


def test_dry_run_prints_a_plan_where_torch_is_missing(tiny_data, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ImportError, as without the package
    import kernels

    monkeypatch.setattr(kernels, "_FAMILIES", None)
    from site_builder.cli import main

    result = CliRunner().invoke(main, ["bench", "llama4-rope", "--data", str(tiny_data), "--dry-run", "-p", "all"])
    assert result.exit_code == 0, result.output
    assert "kernelindex-triton -> kernelindex-triton-llama4-rope" in result.output
    assert kernels._FAMILIES is None  # the families (which need torch) were never built


def test_static_description_matches_what_the_families_build():
    import pytest

    pytest.importorskip("torch")
    import kernels
    from kernels.static import STATIC_FAMILIES

    for slug, (dtypes, passes, forward, backward) in STATIC_FAMILIES.items():
        family = kernels.FAMILIES[slug]
        assert (tuple(family.dtypes), tuple(family.passes)) == (dtypes, passes)
        assert set(forward) <= set(family.implementations) and set(backward) <= set(family.backward_implementations)
        ours = {key for key in family.implementations if key.startswith(("kernelindex", "pytorch-"))}
        assert ours == set(forward)
