"""The query parser (site_builder/search/query.py) on a tiny hand-written index."""

from __future__ import annotations

from site_builder.search.query import parse_query, parse_value, vocabulary


def kinds(query: dict) -> list[tuple[str, str]]:
    return [tuple(term) for term in query["terms"]]


def test_the_issue_example_parses_into_facets(index):
    query = parse_query(index, "rope h100 bf16 seq=4096")
    assert kinds(query) == [("rope", "family"), ("h100", "gpu"), ("bf16", "dtype"), ("seq=4096", "axis")]
    assert query["ops"] == ["rope"]
    assert query["gpu"] == ["h100-pcie", "h100-sxm"]  # a word two GPUs share names both
    assert query["dtype"] == ["bf16"]
    assert query["axes"] == [["seq", 4096]]
    assert query["unknown"] == []


def test_values_spaces_and_suffixes():
    assert parse_value("4096") == 4096
    assert parse_value("4k") == 4096
    assert parse_value("4K".lower()) == 4096
    assert parse_value("4.5") is None and parse_value("-1") is None and parse_value("") is None
    assert parse_value("9" * 16) is None  # beyond what JavaScript holds exactly
    assert parse_value("٤") is None  # ASCII digits only, as in JavaScript


def test_spaces_around_equals_and_colons_close_up(index):
    query = parse_query(index, "  ROPE   seq = 2k,hidden=4096  gpu : b200 ")
    assert query["axes"] == [["seq", 2048], ["hidden", 4096]]
    assert query["gpu"] == ["b200"]


def test_a_later_binding_of_one_axis_wins(index):
    assert parse_query(index, "seq=1 seq=2")["axes"] == [["seq", 2]]
    assert parse_query(index, "seq-len=1")["axes"] == [["seq_len", 1]]


def test_explicit_facets_and_axis_with_colon(index):
    query = parse_query(index, "op:rope lang:triton license:mit evidence:verified is:usable pass:forward metric:latency seq:2048")
    assert query["ops"] == ["rope"] and query["lang"] == ["triton"] and query["license"] == ["MIT"]
    assert query["evidence"] == "verified" and query["flags"] == ["usable"]
    assert query["pass"] == ["forward"] and query["metric"] == ["latency:median:ns"]
    assert query["axes"] == [["seq", 2048]]


def test_family_wins_over_an_operation_of_the_same_name(index):
    index["op"][1][0] = "normalization"  # an operation named like a family
    query = parse_query(index, "normalization")
    assert kinds(query) == [("normalization", "family")]
    assert parse_query(index, "op:normalization")["terms"] == [["op:normalization", "op"]]


def test_aliases_with_dash_or_underscore(index):
    assert parse_query(index, "rms-norm")["ops"] == ["rms-norm"]
    assert parse_query(index, "rms_norm")["ops"] == ["rms-norm"]


def test_dtype_synonyms_only_when_the_index_has_the_dtype(index):
    assert parse_query(index, "bfloat16")["dtype"] == ["bf16"]
    assert parse_query(index, "half")["unknown"] == ["half"]  # no fp16 here


def test_free_text_narrows_and_unknown_words_are_reported(index):
    query = parse_query(index, "rotary xyzzy 4096")
    assert query["ops"] == ["rope"]  # "rotary" is an alias; exact aliases are op terms
    assert query["unknown"] == ["xyzzy", "4096"]  # a bare number names no axis
    text = parse_query(index, "rms")
    assert kinds(text) == [("rms", "text")] and text["ops"] == ["rms-norm"]
    assert parse_query(index, "llama")["ops"] == ["rope"]  # free text reads the model tags too


def test_kernel_facets_intersect_and_can_leave_nothing(index):
    assert parse_query(index, "rope normalization")["ops"] == ["rope", "rms-norm"]  # one kind: a union
    assert parse_query(index, "rope op:rms-norm")["ops"] == []  # two kinds: an intersection
    assert parse_query(index, "llama-x rope")["ops"] == ["rope"]


def test_evidence_keeps_the_strongest_asked(index):
    assert parse_query(index, "verified reported")["evidence"] == "verified"


def test_vocabulary_lists_every_kind(index):
    vocab = vocabulary(index)
    assert vocab["gpu"]["h100"] == ["h100-pcie", "h100-sxm"]
    assert vocab["op"]["rms_norm"] == ["rms-norm"]
    assert "unknown" not in vocab["lang"]
    assert vocab["flag"].keys() == {"installable", "source", "usable"}
