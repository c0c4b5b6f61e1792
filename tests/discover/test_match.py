"""The matcher (site_builder/search/match.py): exact, compatible, bracketing, refusal, filters."""

from __future__ import annotations

from site_builder.search.index import axis_aliases, cohort_label
from site_builder.search.match import search


def gids(index, entries) -> list[str]:
    return [index["co"][entry["c"]][3] for entry in entries]


def test_nothing_understood_answers_nothing(index):
    for text in ("", "   ", "xyzzy 42"):
        answer = search(index, text)
        assert answer["exact"] == answer["compatible"] == answer["brackets"] == []


def test_exact_then_compatible_with_what_differs(index):
    answer = search(index, "rope h100 bf16 seq=2048 hidden=4096")
    assert gids(index, answer["exact"]) == ["a100000000000000", "a300000000000000", "a350000000000000"]
    compatible = {index["co"][e["c"]][3]: e["differs"] for e in answer["compatible"]}
    assert compatible["a200000000000000"] == [["gpu", "gpu", ["h100-pcie", "h100-sxm"], "b200"]]
    assert compatible["a600000000000000"] == [["dtype", "dtype", ["bf16"], "fp32"]]
    assert compatible["a500000000000000"] == [["axis", "hidden", 4096, 1024]]
    assert compatible["a700000000000000"] == [  # a suite: no dtype of its own, no single shape
        ["gpu", "gpu", ["h100-pcie", "h100-sxm"], "b200"], ["dtype", "dtype", ["bf16"], None],
        ["axis", "seq", 2048, None], ["axis", "hidden", 4096, None]]
    counts = [len(e["differs"]) for e in answer["compatible"]]
    assert counts == sorted(counts)  # fewest differences first
    assert answer["brackets"] == [] and answer["refused"] is None  # brackets only when nothing is exact


def test_bracketing_an_unmeasured_shape(index):
    answer = search(index, "rope h100 bf16 forward latency seq=4096 hidden=4096")
    assert answer["exact"] == []
    [bracket] = answer["brackets"]
    assert bracket["axis"] == "seq" and bracket["asked"] == 4096
    assert bracket["below"]["v"] == 2048 and index["co"][bracket["below"]["c"]][3] == "a100000000000000"
    assert bracket["above"]["v"] == 8192 and index["co"][bracket["above"]["c"]][3] == "a400000000000000"


def test_one_sided_brackets_say_so(index):
    answer = search(index, "rope h100 bf16 forward latency seq=16384")
    # one bracket per shape of the other axes: hidden 4096 (nearest 8192) and hidden 1024 (2048)
    assert [(b["below"]["v"], b["above"]) for b in answer["brackets"]] == [(8192, None), (2048, None)]
    # without a dtype, fp32 is a shape of its own too
    assert len(search(index, "rope h100 forward latency seq=16384")["brackets"]) == 3


def test_bracketing_refuses_two_differing_axes(index):
    answer = search(index, "rope h100 forward latency seq=3000 hidden=2000")
    assert answer["brackets"] == [] and answer["refused"] == ["hidden", "seq"]


def test_short_axis_names_answer(index):
    answer = search(index, "rope s=1024 h100 forward latency")
    assert gids(index, answer["exact"]) == ["a000000000000000"]
    assert search(index, "rms-norm rows=4096 n=4096")["exact"][0]["c"] == 9


def test_row_filters_keep_rows_and_count_dropped_groups(index):
    answer = search(index, "rope h100 forward latency seq=2048 hidden=4096 usable")
    [entry] = answer["exact"]
    assert entry["rows"] == [0]  # Liger's row is usable; the others are not
    answer = search(index, "rope h100 forward seq=2048 hidden=4096 verified")
    assert answer["exact"] == [] and answer["dropped"] >= 1
    answer = search(index, "rope python")
    assert all(index["im"][index["co"][e["c"]][4][3 * e["rows"][0]]][0] == "Transformers" for e in answer["exact"])
    assert gids(index, search(index, "license:mit rms-norm")["exact"]) == ["a800000000000000"]
    secret = search(index, "rope source")  # the implementation without source never answers
    assert all(index["co"][e["c"]][4][3 * r] != 2 for e in secret["exact"] for r in e["rows"])


def test_pass_and_metric_filter_groups(index):
    answer = search(index, "rope backward")
    assert gids(index, answer["exact"]) == ["a300000000000000"] and answer["compatible"] == []
    assert gids(index, search(index, "rope memory")["exact"]) == ["a350000000000000"]


def test_cohort_labels_decode(index):
    assert cohort_label(index, index["co"][1]) == "NVIDIA H100 SXM · forward"
    assert cohort_label(index, index["co"][2]) == "NVIDIA B200"
    assert cohort_label(index, index["co"][6]) == "Custom label"


def test_axis_aliases():
    aliases = axis_aliases(["num_q_heads", "num_kv_heads", "seq_len", "t", "hidden_size"])
    assert aliases["q_heads"] == 0 and aliases["kv_heads"] == 1 and aliases["numqheads"] == 0
    assert "heads" not in aliases and "num" not in aliases and "len" not in aliases  # ambiguous or generic
    assert "seq" not in aliases  # seq_len and the "t" convention both answer to it: ambiguous, dropped
    assert axis_aliases(["seq_len", "hidden_size"])["seq"] == 0
    assert aliases["tokens"] == 3 and aliases["t"] == 3 and aliases["hidden"] == 4
    assert axis_aliases(["seq", "t"])["seq"] == 0  # an exact name wins over a convention


# ------------------------------------------------------------------------------------------------
# On the bundled data


def _answers(index, answer, key="exact"):
    found = []
    for entry in answer[key]:
        cohort = index["co"][entry["c"]]
        workload = index["wl"][cohort[0]]
        op = index["op"][workload[0]]
        found.append((op[0], dict(zip(op[5], workload[2])) if isinstance(workload[2], list) else {}, cohort_label(index, cohort)))
    return found


def test_bundled_rope_h100_bf16_seq4096(bundled_index):
    answer = search(bundled_index, "rope h100 bf16 seq=4096")
    found = _answers(bundled_index, answer)
    assert found, "the seed's RoPE on H100 at seq 4096 answers exactly"
    assert all(op in ("llama4-rope", "rope", "qwen2vl-mrope", "multimodal-rotary-embedding-attention") for op, _, _ in found)
    assert all(axes.get("seq", axes.get("seq_len")) == 4096 and "H100" in label for _, axes, label in found)
    assert any(op == "llama4-rope" and label.endswith("forward") for op, _, label in found)


def test_bundled_unmeasured_shape_brackets(bundled_index):
    answer = search(bundled_index, "llama4-rope h100 bf16 seq=3000 hidden=8192")
    assert answer["exact"] == []
    both = [b for b in answer["brackets"] if b["below"] and b["above"]]
    assert both, "seq 3000 was never measured: 2048 and 4096 bracket it"
    assert {(b["below"]["v"], b["above"]["v"]) for b in both} == {(2048, 4096)}
    assert all(b["axis"] == "seq" and b["asked"] == 3000 for b in answer["brackets"])


def test_bundled_two_unmeasured_axes_are_refused(bundled_index):
    answer = search(bundled_index, "llama4-rope h100 seq=3000 hidden=5000")
    assert answer["exact"] == [] and answer["brackets"] == [] and answer["refused"] == ["hidden", "seq"]
