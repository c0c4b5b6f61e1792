"""The library-internal speedups (site_builder/library_speedups.py) change no byte of the site.

The bundled data is built twice, with every speedup and with none; every file must be the same.
The build with none is made with the speedups' own code booby-trapped, so it shows that the switch
really leaves them out (and the builder then uses the libraries' public API only).
"""

from __future__ import annotations

import hashlib
from datetime import date
from pathlib import Path
from types import SimpleNamespace

import pytest
from jinja2 import DictLoader, Environment, StrictUndefined

from site_builder import library_speedups
from site_builder.build import build_site
from site_builder.page_views import Link
from tests.bundled import bundled_data
from tests.scratch import scratch_folder

DATA = Path(__file__).resolve().parents[2] / "data"
AS_OF = date(2026, 12, 2)  # after the newest observation in data/


def _digests(site: Path) -> dict[str, str]:
    """Each file's SHA-256, by path: two sites compare without both on disk or in memory at once."""
    return {str(path.relative_to(site)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(site.rglob("*")) if path.is_file()}


def _trap(*_args, **_kwargs):
    raise AssertionError("a library speedup ran while every one was switched off")


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> tuple[dict[str, str], dict[str, str]]:
    if not any((DATA / "runs").rglob("*.yaml")):
        pytest.skip("data/runs/ is empty: the bundled data has not landed yet (issue 2)")
    with scratch_folder(tmp_path_factory, "speedups-all") as folder:
        build_site(bundled_data(), folder / "site", as_of=AS_OF, cache=False, library_speedups=library_speedups.ALL)
        with_all = _digests(folder / "site")
    with scratch_folder(tmp_path_factory, "speedups-none") as folder, pytest.MonkeyPatch.context() as patch:
        for name in ("_escape_inner", "_new", "fast_call", "_call_macro", "PageEnvironment"):
            patch.setattr(library_speedups, name, _trap)
        build_site(bundled_data(), folder / "site", as_of=AS_OF, cache=False, library_speedups=library_speedups.NONE)
        return with_all, _digests(folder / "site")


def test_the_site_is_byte_identical_with_the_speedups_on_and_off(sites):
    with_all, with_none = sites
    assert sorted(with_all) == sorted(with_none)
    assert len(with_all) > 1000 and any(name.endswith(".html") for name in with_all)
    differing = [name for name in with_all if with_all[name] != with_none[name]]
    assert not differing, f"{len(differing)} files differ, first {differing[:5]}"


def test_the_switch_restores_the_speedups_after_a_build(sites):
    assert library_speedups.active() == library_speedups.ALL


def test_with_none_the_builder_uses_public_api():
    with library_speedups.only(library_speedups.NONE):
        assert type(library_speedups.environment(autoescape=True)) is Environment
        made = library_speedups.unchecked(Link, title="<t>", url="x.html")
        assert made == Link.model_construct(title="<t>", url="x.html")
        assert library_speedups.escape_text("<a & b>") == "&lt;a &amp; b&gt;"
    assert type(library_speedups.environment(autoescape=True)) is library_speedups.PageEnvironment


@pytest.mark.parametrize(("value", "expected"), [
    (None, library_speedups.ALL), ("1", library_speedups.ALL), ("0", library_speedups.NONE),
    ("direct_calls, unchecked_views", frozenset({"direct_calls", "unchecked_views"})),
])
def test_the_setting_names_all_none_or_some(value, expected):
    assert library_speedups.parse_setting(value) == expected


def test_an_unknown_speedup_is_refused_with_the_known_names():
    with pytest.raises(ValueError, match="unknown speedup fastest.*direct_calls"):
        library_speedups.parse_setting("direct_calls,fastest")


@pytest.mark.parametrize("left_out", library_speedups.NAMES)
def test_each_speedup_can_be_left_out_alone(left_out):
    # The settings benchmarks/library_speedups.py measures: every speedup but one. Templates that
    # extend, import macros, call them every way and read attributes render as stock Jinja renders.
    from tests.site.test_render_parts import TEMPLATES, _call_environment

    with library_speedups.only(library_speedups.ALL - {left_out}):
        page = SimpleNamespace(title="A <b> & c", html="<p>raw</p>", count=7, ratio=0.25,
                               items=[SimpleNamespace(name="x<y"), SimpleNamespace(name=3)],
                               meta={"spec": {"status": "passed & <ok>"}})
        options = dict(loader=DictLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined, trim_blocks=True,
                       lstrip_blocks=True, keep_trailing_newline=True)
        expected = Environment(**options).get_template("page.html").render(page=page)
        assert library_speedups.environment(**options).get_template("page.html").render(page=page) == expected
        stock = _call_environment(Environment, "")
        chosen = _call_environment(type(library_speedups.environment()), "")
        assert chosen.get_template("page.html").render() == stock.get_template("page.html").render()
        view = library_speedups.unchecked_page(Link, title="t", url="u")
        assert view == Link(title="t", url="u") and view.__pydantic_fields_set__ == {"title", "url"}
