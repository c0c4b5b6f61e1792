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


def test_the_parts_are_built_as_split_would_cut_the_whole_index(board):
    from site_builder.search.index import build_search_index, index_json, search_parts
    head, shards = search_parts(board)
    whole_head, whole_shards = split(build_search_index(board))
    assert index_json(head) == index_json(whole_head)
    assert list(shards) == list(whole_shards)
    assert all(index_json(shards[name]) == index_json(whole_shards[name]) for name in shards)


def test_usability_decided_once_per_implementation_agrees_with_the_board(board):
    from site_builder.search.index import usability_of_rows
    usable = usability_of_rows(board)
    assert all(usable(run) == board.usability(run).usable for run in board.runs.values())


def test_a_verdict_that_turns_on_the_measured_version_is_asked_run_by_run():
    from types import SimpleNamespace

    from site_builder.derive.usability import InstallRecipe
    from site_builder.search.index import usability_of_rows

    asked = []
    implementations = {
        "unpinned-pip": SimpleNamespace(recipe=InstallRecipe("pip", package="liger-kernel"), source_url="https://x", license="MIT"),
        "pinned-pip": SimpleNamespace(recipe=InstallRecipe("pip", package="p", version="1.0"), source_url="https://x", license="MIT"),
        "no-source": SimpleNamespace(recipe=InstallRecipe("pip", package="p"), source_url=None, license="MIT"),
    }
    board = SimpleNamespace(implementations=implementations,
                            usability=lambda run: asked.append(run.name) or SimpleNamespace(usable=run.name == "yes"))
    usable = usability_of_rows(board)
    run = lambda name, impl: SimpleNamespace(name=name, implementation=impl)  # noqa: E731
    assert usable(run("yes", "unpinned-pip")) and not usable(run("no", "unpinned-pip"))
    assert usable(run("a", "pinned-pip")) and usable(run("b", "pinned-pip"))
    assert not usable(run("c", "no-source"))
    assert asked == ["yes", "no"]
