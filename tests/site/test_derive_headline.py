"""Licences, install pinning, usability, the headline slot and fastest-by-language."""

import pytest

from site_builder.derive.headline import fastest_by_language, headline
from site_builder.derive.ranking import rank_runs
from site_builder.derive.usability import (
    INSTALL_UNPINNED, LICENSE_UNKNOWN, NO_INSTALL_RECIPE, NO_PUBLIC_SOURCE, InstallRecipe, install_command,
    measured_version, spdx_license, usability,
)


@pytest.mark.parametrize("declared, concluded, expected", [
    ("BSD-2-Clause", None, "BSD-2-Clause"),
    ("apache-2.0", None, "Apache-2.0"),  # case-corrected
    ("MIT", "Apache-2.0 OR MIT", "Apache-2.0 OR MIT"),  # concluded wins
    ("(MIT OR Apache-2.0) and bsd-3-clause", None, "(MIT OR Apache-2.0) AND BSD-3-Clause"),
    ("Apache-2.0 WITH LLVM-exception", None, "Apache-2.0 WITH LLVM-exception"),
    ("unknown", None, None),
    ("LicenseRef-GPUMode-Reciprocity-1.0", None, None),
    ("MIT; see file", None, None),
    (None, None, None),
])
def test_spdx_license(declared, concluded, expected):
    assert spdx_license(declared, concluded) == expected


def test_pip_recipe_is_repinned_to_the_measured_release():
    liger = InstallRecipe("pip", package="liger-kernel")
    version = measured_version("liger-kernel", {"liger_version": "0.6.1"})
    assert install_command(liger, version) == ('pip install "liger-kernel==0.6.1"', True)
    assert install_command(InstallRecipe("pip", package="liger-kernel", version="0.5.10")) == (
        'pip install "liger-kernel==0.5.10"', True)
    assert install_command(liger) == ("pip install liger-kernel", False)
    assert measured_version("other", {"liger_version": "0.6.1"}) is None
    assert measured_version("other", {"package_version": "1.2"}) == "1.2"


def test_other_recipe_kinds_and_pinning():
    git = InstallRecipe("git", repository="https://github.com/x/y", commit="a" * 40)
    assert install_command(git) == (f"pip install git+https://github.com/x/y@{'a' * 40}", True)
    assert install_command(InstallRecipe("git", repository="https://github.com/x/y"))[1] is False
    assert install_command(InstallRecipe("container", command="docker pull ghcr.io/x/y:1.2")) == (
        "docker pull ghcr.io/x/y:1.2", True)
    assert install_command(InstallRecipe("container", command="docker pull ghcr.io/x/y:latest"))[1] is False
    assert install_command(InstallRecipe("source")) == (None, False)
    assert install_command(None) == (None, False)


def test_usability_reasons():
    assert usability(public_source=True, license="MIT", install="pip install x==1", pinned=True).usable
    unusable = usability(public_source=False, license=None, install=None, pinned=False)
    assert unusable.reasons == (NO_PUBLIC_SOURCE, NO_INSTALL_RECIPE, LICENSE_UNKNOWN)
    assert usability(public_source=True, license="MIT", install="pip install x", pinned=False).reasons == (INSTALL_UNPINNED,)


def _usable_when(names):
    return lambda row: usability(public_source=row.run.name in names, license="MIT", install="pip install x==1", pinned=True)


def test_headline_usable_today(run):
    rows = rank_runs([run("liger", 81280, language="triton"), run("hf", 206496, baseline=True, language="python")])
    slot = headline(rows, _usable_when({"liger"}))
    assert slot.heading == "Fastest reported · usable today" and slot.usable_today
    assert f"{slot.vs_baseline:.2f}" == "2.54" and slot.best_usable is None


def test_headline_not_usable_names_the_best_usable(run):
    rows = rank_runs([run("riac", 166200, evidence="verified"), run("b", 170000), run("c", 180000)])
    slot = headline(rows, _usable_when({"c"}))
    assert slot.heading == "Fastest verified" and not slot.usable_today
    assert slot.best_usable.run.name == "c"
    assert headline(rows, _usable_when(set())).best_usable is None
    assert headline([], _usable_when(set())) is None


def test_fastest_by_language_needs_two_languages(run):
    rows = rank_runs([run("l1", 81280, language="triton"), run("l2", 81800, language="triton"),
                      run("hf", 206496, language="python"), run("x", 300000, language="unknown")])
    best = fastest_by_language(rows)
    assert [(b.language, b.row.run.name) for b in best] == [("triton", "l1"), ("python", "hf")]
    assert f"{best[1].vs_first:.2f}" == "2.54"
    assert fastest_by_language(rank_runs([run("a", 1, language="triton"), run("b", 2, language="unknown")])) == []
