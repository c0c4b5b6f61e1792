"""search.js and compare.js against Python: the same answers, case for case (run in node).

The vectors are computed here from the Python implementation, over the tiny index, the bundled
data's index (fixed queries and 400 seeded random ones) and the built site's run mirrors.
"""

from __future__ import annotations

import json
import random

from site_builder.search.compare import compare_runs
from tests.run_json import some_runs
from site_builder.search.match import search
from site_builder.search.query import vocabulary

from .conftest import REPO, run_node
from .vectors import FIXED, random_queries

SEARCH_JS = REPO / "templates" / "static" / "search.js"
COMPARE_JS = REPO / "templates" / "static" / "compare.js"

def _check(report: dict) -> None:
    assert report["cases"] > 0
    assert not report["failures"], json.dumps(report["failures"][:5], indent=1, ensure_ascii=False)


def test_search_js_agrees_on_the_tiny_index(index, tmp_path):
    queries = FIXED + random_queries(index, 200, seed=3)
    cases = [{"q": q, "expected": search(index, q)} for q in queries]
    _check(run_node(SEARCH_JS, {"kind": "search", "index": index, "cases": cases}, tmp_path))


def test_search_js_agrees_on_the_bundled_index(bundled_index, tmp_path):
    queries = FIXED + random_queries(bundled_index, 400)
    vocab = vocabulary(bundled_index)
    cases = [{"q": q, "expected": search(bundled_index, q, vocab)} for q in queries]
    assert sum(1 for case in cases if case["expected"]["exact"]) > 50, "the random queries should answer often"
    assert any(case["expected"]["brackets"] for case in cases) and any(case["expected"]["refused"] for case in cases)
    _check(run_node(SEARCH_JS, {"kind": "search", "index": bundled_index, "cases": cases}, tmp_path))


def _mirrors(site, count: int = 60) -> list[dict]:
    return some_runs(site, count)


def test_compare_js_agrees_on_run_mirrors(site, tmp_path):
    mirrors = _mirrors(site)
    rng = random.Random(5)
    groups = []
    by_cohort: dict[str, list[dict]] = {}
    for mirror in mirrors:
        by_cohort.setdefault(mirror["details"]["cohort"]["key"], []).append(mirror)
    groups += [members[:8] for members in by_cohort.values() if len(members) >= 2]  # comparable sets
    for _ in range(40):  # and mixed ones
        groups.append(rng.sample(mirrors, rng.randint(2, 8)))
    cases = [{"mirrors": group, "expected": compare_runs(group)} for group in groups]
    assert any(case["expected"]["ranking"] for case in cases) and any(not case["expected"]["comparable"] for case in cases)
    _check(run_node(COMPARE_JS, {"kind": "compare", "cases": cases}, tmp_path))
