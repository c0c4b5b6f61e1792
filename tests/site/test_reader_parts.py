"""The reader's words and numbers (issue 25): plain words for data keys and statuses, never a raw
float or "−0.0 %", the headline's rule against noisy runs, the build's own-repository setting, the
per-GPU index paths and the favicon."""

from __future__ import annotations

import struct
from datetime import datetime, timezone

import pytest

from site_builder import formatting, urls
from site_builder.derive.eligibility import reason_text
from site_builder.derive.headline import headline, unsteady
from site_builder.derive.model import RunFacts
from site_builder.derive.ranking import rank_runs
from site_builder.derive.usability import InstallRecipe, install_command, usability
from site_builder.favicon import favicon_ico
from site_builder.ownsource import own_source


@pytest.mark.parametrize(("key", "value", "text"), [
    ("ms_20", 0.3846847891807556, "latency p20 384.7 µs"),  # seed 001's "ms 20 0.3846847891807556"
    ("ms_50", 0.38553598523139954, "latency median 385.5 µs"),
    ("mb_80", 115.5, "memory p80 115.5 MiB"),
    ("device_index", 1.0, "GPU index 1"),  # not "device index 1.0"
    ("memory_clock_mhz_after", 3201.0, "memory clock after 3,201 MHz"),
    ("sol_score", 0.67, "SOL score 67%"),
    ("bytes_moved", 85983232.0, "bytes moved 85,983,232"),
])
def test_source_figures_read_in_words_and_units(key, value, text):
    assert formatting.source_metric(key, value) == text


def test_keys_and_values_read_as_words():
    assert formatting.words("primaryStatistic") == "primary statistic"
    assert formatting.words("cudaToolkit") == "cuda toolkit" and formatting.words("device_index") == "device index"
    assert formatting.plain(False) == "no" and formatting.plain(True) == "yes"  # not Python's False
    assert formatting.plain(0.015625) == "0.01562" and formatting.plain(3.0) == "3" and formatting.plain("x") == "x"


@pytest.mark.parametrize(("fraction", "text"), [
    (0.2543, "−25%"), (0.004, "−0.4%"), (0.0000423, "−0.004%"), (0.0, "±0%"), (None, "–")])
def test_a_record_break_never_reads_minus_zero(fraction, text):
    assert formatting.drop(fraction) == text


def test_statuses_read_as_what_happened():
    text = reason_text("STATUS_POLICY_VIOLATION")
    assert "writes its inputs in place" in text and "POLICY" not in text and "policy" not in text
    assert reason_text("STATUS_SOMETHING_NEW") == "status something new"  # an unknown status still reads


def _run(name: str, value: float, implementation: str, baseline: bool = False) -> RunFacts:
    return RunFacts(name=name, digest=f"sha256:{name}", operation="op", workload="w", implementation=implementation,
                    protocol="p", environment="e", cohort="c", status="passed", value=value, metric="latency:median:ns",
                    observed_at=datetime(2026, 11, 29, tzinfo=timezone.utc), baseline=baseline)


def test_unsteady_runs_are_named_by_their_spread():
    # Issue 25's H200 run: median 118.4 µs, p20 91.2, p80 147.1, fastest repetition 22.6.
    assert unsteady(118_400, 91_200, 147_100, 22_600) == "host-bound"
    assert unsteady(118_400, 91_200, 147_100, None) == "noisy"
    assert unsteady(81_280, 80_900, 81_700, 80_100) is None  # the seed's Liger run: a tight spread
    assert unsteady(81_280, None, None, None) is None  # no spread published: taken as it is


def test_the_headline_passes_over_a_noisy_leader_but_the_ranking_keeps_it():
    rows = rank_runs([_run("noisy", 118_400, "ours"), _run("steady", 291_600, "liger"),
                      _run("base", 545_000, "torch", baseline=True)])
    slot = headline(rows, lambda row: usability(public_source=True, license="MIT", install="pip install x==1", pinned=True),
                    steady=lambda row: row.run.name != "noisy")
    assert rows[0].run.name == "noisy" and rows[0].rank == 1
    assert slot.leader.run.name == "steady" and [r.run.name for r in slot.passed_over] == ["noisy"]
    assert f"{slot.vs_baseline:.2f}" == f"{545_000 / 291_600:.2f}"  # the featured run's own ratio
    everyone_noisy = headline(rows, lambda row: usability(public_source=False, license=None, install=None, pinned=False),
                              steady=lambda row: False)
    assert everyone_noisy.leader.run.name == "noisy" and everyone_noisy.passed_over == ()


def test_own_source_pins_the_install_and_links_the_file():
    own = own_source("https://github.com/owner/kernelindex/", "0123456789ABCDEF0123456789abcdef01234567")
    assert own.repository == "https://github.com/owner/kernelindex" and own.commit.islower()
    assert own.file_url("kernels/llama4_rope/triton_impl.py") == (
        "https://github.com/owner/kernelindex/blob/0123456789abcdef0123456789abcdef01234567/kernels/llama4_rope/triton_impl.py")
    recipe = InstallRecipe("git", "kernelindex", None, own.repository, own.commit, own.install())
    command, pinned = install_command(recipe)
    assert pinned and command == ('pip install "kernelindex[kernels] @ '
                                  'git+https://github.com/owner/kernelindex@0123456789abcdef0123456789abcdef01234567"')
    assert own_source(None, None) is None and own_source("", "") is None
    for repository, commit in (("https://github.com/o/r", None), (None, "abcdef0"), ("http://github.com/o/r", "abcdef0"),
                               ("https://github.com/o/r", "not-hex"), ("https://github.com/o/r", "abc")):
        with pytest.raises(ValueError):
            own_source(repository, commit)


def test_the_index_has_a_static_page_per_gpu_and_pass():
    assert urls.index_for(None, None) == urls.INDEX
    assert urls.index_for("h100-sxm", None) == "on/h100-sxm.html"
    assert urls.index_for("h100-sxm", "backward") == "on/h100-sxm-backward.html"
    assert urls.index_for(None, "forward") == "on/all-forward.html"
    assert urls.mirror(urls.index_for("h200", None)).startswith(urls.API_ROOT)


def test_the_favicon_is_an_icon_of_one_image():
    icon = favicon_ico()
    reserved, kind, count = struct.unpack("<HHH", icon[:6])
    assert (reserved, kind, count) == (0, 1, 1)
    width, height, _, _, planes, bits, size, offset = struct.unpack("<BBBBHHII", icon[6:22])
    assert (width, height, bits) == (16, 16, 32) and offset == 22 and len(icon) == offset + size
    assert favicon_ico() == icon  # the same bytes every build
