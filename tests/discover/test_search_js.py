"""search.js and compare.js against Python: the same answers, case for case (run in node).

The vectors are computed here from the Python implementation, over the tiny index, the bundled
data's index (fixed queries and 400 seeded random ones) and the built site's run mirrors.
"""

from __future__ import annotations

import json
import random

from site_builder.search.compare import compare_runs
from site_builder.search.match import search
from site_builder.search.query import DTYPE_SYNONYMS, FACET_PREFIXES, vocabulary

from .conftest import REPO, run_node

SEARCH_JS = REPO / "templates" / "static" / "search.js"
COMPARE_JS = REPO / "templates" / "static" / "compare.js"

FIXED = [
    "", "   ", "rope h100 bf16 seq=4096", "llama4-rope h100 seq=3000", "llama4-rope h100 seq=3000 hidden=4000",
    "rope h100 backward triton", "cross entropy a100", "xyzzy", "qwen", "softmax rtx3090 verified",
    "layer-norm n=5000 m=4096", "op:rope seq_len=4k", "gpu:pcie is:usable", "4096", "seq:2048 llama", "MIT python memory",
    "rope,h100,,bf16", "seq = 4096 rope", "evidence:replicated", "family:loss t=2048 v=4000", "bfloat16 half float32",
    "kernel:nope gpu:nope", "=5", "a=b", "seq=99999999999999999", "ROPE H100", "rope  op:rms-norm", "license:apache-2.0",
    "is:source is:installable rope", "gpu:h100-sxm pass:full metric:memory", "llama-4-scout", "hidden=8k seq=1k",
]


def random_queries(index: dict, count: int, seed: int = 9) -> list[str]:
    """Words from every kind of the vocabulary, axis bindings from measured shapes (and near them),
    facet prefixes, free text and noise."""
    rng = random.Random(seed)
    vocab = vocabulary(index)
    words = sorted(word for kind in vocab.values() for word in kind)
    bindings = []
    for workload in index["wl"]:
        if isinstance(workload[2], list):
            op = index["op"][workload[0]]
            for name, value in zip(op[5], workload[2]):
                bindings.append((name, value))
    aliases = sorted({alias for op in index["op"] for alias in op[6]})
    noise = ["xyzzy", "42", "seq=", "=", ":", "gpu:", "is:fast", "norm", "attention", "loss", "ent", *DTYPE_SYNONYMS]
    queries = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 6)):
            pick = rng.random()
            if pick < 0.45:
                parts.append(rng.choice(words))
            elif pick < 0.75:
                name, value = rng.choice(bindings)
                key = rng.choice([name, rng.choice(aliases)])
                value = rng.choice([value, value + 1, max(1, value // 2), value * 3])
                parts.append(f"{key}{rng.choice(['=', '=', ':', ' = '])}{value}")
            elif pick < 0.85:
                parts.append(f"{rng.choice(sorted(FACET_PREFIXES))}:{rng.choice(words)}")
            else:
                parts.append(rng.choice(noise))
        queries.append(rng.choice([" ", "  ", ", "]).join(parts))
    return queries


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
    found = []
    for path in sorted((site / "api/v1/runs").glob("*.json"))[:count]:
        found.append(json.loads(path.read_text(encoding="utf-8")))
    return found


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
