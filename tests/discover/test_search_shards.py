"""The search index in pieces (issue 8): a head and one shard per operation, merged back by
Python and by search.js alike, answering as the whole index does."""

from __future__ import annotations

import json

from site_builder.search.match import search
from site_builder.search.query import parse_query, vocabulary
from site_builder.search.shards import merge, needed, split

from .conftest import REPO, run_node
from .vectors import FIXED, random_queries

SEARCH_JS = REPO / "templates" / "static" / "search.js"


def _groups(index: dict, answer: dict) -> dict:
    """An answer with group positions replaced by group ids, so answers over two layouts compare."""
    def ids(entries):
        return [{**entry, "c": index["co"][entry["c"]][3]} for entry in entries]

    def bracket(b):
        return {**b, **{side: {**b[side], "c": index["co"][b[side]["c"]][3]} for side in ("below", "above") if b[side]}}

    return {**answer, "exact": ids(answer["exact"]), "compatible": ids(answer["compatible"]),
            "brackets": [bracket(b) for b in answer["brackets"]]}


def test_merging_every_shard_gives_back_the_whole_index(bundled_index):
    head, shards = split(bundled_index)
    assert not {"wl", "ln", "co"} & set(head) and sum(head["sh"]) == len(bundled_index["co"])
    assert list(shards) == [op[0] for op, groups in zip(head["op"], head["sh"]) if groups]
    assert merge(head, shards) == bundled_index


def test_a_query_answers_alike_on_the_shards_it_needs(bundled_index):
    head, shards = split(bundled_index)
    vocab = vocabulary(head)
    for q in FIXED + random_queries(bundled_index, 150, seed=11):
        names = needed(head, parse_query(head, q, vocab))
        partial = merge(head, {name: shards[name] for name in names})
        assert _groups(partial, search(partial, q, vocab)) == _groups(bundled_index, search(bundled_index, q, vocab)), q


def test_a_named_kernel_needs_only_its_shard(bundled_index):
    head, _ = split(bundled_index)
    name = head["op"][0][0]
    assert needed(head, parse_query(head, f"op:{name}", vocabulary(head))) == [name]
    assert needed(head, parse_query(head, "nonsense-word-xyz", vocabulary(head))) == []


def test_search_js_needs_and_merges_shards_as_python_does(bundled_index, tmp_path):
    head, shards = split(json.loads(json.dumps(bundled_index)))
    vocab = vocabulary(head)
    cases = []
    for q in FIXED + random_queries(bundled_index, 60, seed=12):
        names = needed(head, parse_query(head, q, vocab))
        cases.append({"q": q, "expected": {"needed": names, "merged": merge(head, {n: shards[n] for n in names})}})
    report = run_node(SEARCH_JS, {"kind": "shards", "head": head, "shards": shards, "cases": cases}, tmp_path)
    assert report["cases"] > 0 and not report["failures"], json.dumps(report["failures"][:3])[:2000]
