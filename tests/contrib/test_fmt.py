"""kernelindex fmt: one canonical form, comments kept, idempotent, fast path agrees with ruamel."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from site_builder.cli import main
from site_builder.repository import load_catalog
from site_builder.canonical_yaml import (
    SCHEMA_COMMENT_PREFIX, FormatError, _dump, _to_commented, canonical_yaml, emit_simple, format_text, load_plain,
    quick_canonical, schema_comment,
)

from .world import base_documents, run

REPO = Path(__file__).resolve().parents[2]
RUN_PATH = "data/runs/community/llama4-rope/r1.yaml"

HAND_WRITTEN = """\
# A run typed by hand.
kind: BenchmarkRun
apiVersion: kernelindex.dev/v1alpha1
spec:
  observedAt: 2025-08-07T21:42:12Z   # from the benchmark log
  implementation: liger-llama4-rope
  workload: llama4-rope-s2048
  protocol: liger-bench-forward
  environment: liger-bench-h100
  status: "passed"
  timing:
    latencyNs: {p80: 81700, median: 81300}
    primaryStatistic: median
  # where the number comes from
  sourceNative:
    source: liger-kernel-bench
    externalId: 'llama4_rope/forward/liger/seq2048'
metadata:
  title: 'Liger: RoPE on H100'
  name: r1
  labels:
    note: yes
"""


def fmt(text: str, path: str = RUN_PATH) -> str:
    return format_text(text, path)


def test_rewrites_into_canonical_form_keeping_comments():
    out = fmt(HAND_WRITTEN)
    lines = out.splitlines()
    assert lines[0] == SCHEMA_COMMENT_PREFIX + "../../../../schemas/json/BenchmarkRun.authoring.schema.json"
    assert lines[1] == "# A run typed by hand."
    # Envelope order, then the model's field order inside spec and metadata.
    assert [line.split(":")[0] for line in lines if line and not line.startswith((" ", "#"))] == [
        "apiVersion", "kind", "metadata", "spec"]
    assert out.index("  name: r1") < out.index("  title:")
    assert out.index("  implementation:") < out.index("  status:") < out.index("  timing:") < out.index("  observedAt:")
    assert out.index("primaryStatistic: median") < out.index("latencyNs")
    # Comments survive, the timestamp is quoted exactly as written, quotes only where needed.
    assert "# from the benchmark log" in out and "# where the number comes from" in out
    assert "observedAt: '2025-08-07T21:42:12Z'" in out
    assert "  status: passed" in out and "externalId: llama4_rope/forward/liger/seq2048" in out
    assert "title: 'Liger: RoPE on H100'" in out
    assert "note: 'yes'" in out  # YAML 1.1 parsers would read a bare yes as true
    # A short flat mapping written in flow style stays so (its keys reordered by the model).
    assert "latencyNs: {median: 81300, p80: 81700}" in out
    assert out.endswith("\n") and not out.endswith("\n\n")
    assert all(line == line.rstrip() for line in lines)


def test_meaning_is_unchanged():
    assert load_plain(fmt(HAND_WRITTEN)) == load_plain(HAND_WRITTEN)


def test_idempotent():
    once = fmt(HAND_WRITTEN)
    assert fmt(once) == once


def test_nested_and_long_collections_become_block():
    text = ("apiVersion: kernelindex.dev/v1alpha1\nkind: OperationSpec\nmetadata: {name: k, aliases: [a, b]}\n"
            "spec:\n  family: rope\n  axes: {}\n  inputs: [{name: q, tensor: {shape: [n], dtype: fp32}}]\n"
            "  outputs:\n  - name: o\n    tensor: {shape: [n], dtype: fp32}\n")
    out = fmt(text, "data/kernels/k.yaml")
    assert "metadata:\n  name: k\n  aliases: [a, b]\n" in out
    assert "  inputs:\n    - name: q\n      tensor:\n        shape: ['n']\n        dtype: fp32\n" in out
    assert "  axes: {}\n" in out
    many = [f"model-{index:03d}" for index in range(20)]
    long_list = canonical_yaml({"apiVersion": "kernelindex.dev/v1alpha1", "kind": "OperationSpec",
                                "metadata": {"name": "k", "models": many}, "spec": {}})
    assert "  models:\n    - model-000\n" in long_list
    samples = canonical_yaml(run("r", "i", 5) | {"spec": {"evidence": {"rawSamplesNs": list(range(1000, 1200))}}})
    assert "rawSamplesNs: [1000, 1001, " in samples  # numbers stay on one line however many


def test_multi_line_strings_become_literal_blocks_and_folded_text_is_kept():
    text = ("apiVersion: kernelindex.dev/v1alpha1\nkind: Source\nmetadata:\n  name: s\n"
            "  description: >-\n    folded text that a person\n    wrapped by hand\n"
            "spec:\n  title: \"two\\nlines\"\n  url: https://example.invalid/x\n  retrieved: 2026-11-29\n")
    out = fmt(text, "data/sources/s.yaml")
    assert "  description: >-\n    folded text that a person\n    wrapped by hand\n" in out
    assert "  title: |-\n    two\n    lines\n" in out
    assert "  retrieved: '2026-11-29'\n" in out
    assert fmt(out, "data/sources/s.yaml") == out


def test_invalid_yaml_is_reported_with_line_and_column():
    with pytest.raises(FormatError) as caught:
        fmt("apiVersion: x\nkind: [unclosed\n")
    assert caught.value.problem.line >= 2
    with pytest.raises(FormatError):
        fmt("a: &anchor 1\nb: *anchor\n")


def test_schema_comment_points_at_the_generated_schema():
    path = REPO / "data" / "runs" / "community" / "llama4-rope" / "x.yaml"
    comment = schema_comment("BenchmarkRun", path)
    target = (path.parent / comment.removeprefix(SCHEMA_COMMENT_PREFIX)).resolve()
    assert target == REPO / "schemas" / "json" / "BenchmarkRun.authoring.schema.json"
    assert target.is_file()
    assert schema_comment("NotAKind", path) is None


def test_check_lists_non_canonical_files_and_fmt_fixes_them(data_dir: Path):
    runner = CliRunner()
    assert runner.invoke(main, ["fmt", "--check", str(data_dir)]).exit_code == 0
    bad = data_dir / "runs" / "community" / "llama4-rope" / "r1.yaml"
    bad.parent.mkdir(parents=True)
    bad.write_text(HAND_WRITTEN, encoding="utf-8")
    result = runner.invoke(main, ["fmt", "--check", str(data_dir)])
    assert result.exit_code == 1
    assert "not canonical" in result.output and "r1.yaml" in result.output
    assert bad.read_text(encoding="utf-8") == HAND_WRITTEN  # --check writes nothing
    github = runner.invoke(main, ["fmt", "--check", "--format", "github", str(data_dir)])
    assert github.exit_code == 1 and "::error file=" in github.output and "r1.yaml,line=1" in github.output
    fixed = runner.invoke(main, ["fmt", str(data_dir)])
    assert fixed.exit_code == 0 and "1 of" in fixed.output
    assert runner.invoke(main, ["fmt", "--check", str(data_dir)]).exit_code == 0
    load_catalog(data_dir)  # canonical output validates


def test_unchanged_files_are_not_rewritten(data_dir: Path):
    path = data_dir / "kernels" / "llama4-rope.yaml"
    before = path.stat().st_mtime_ns
    assert CliRunner().invoke(main, ["fmt", str(data_dir)]).exit_code == 0
    assert path.stat().st_mtime_ns == before


def test_canonical_yaml_is_a_fixed_point_and_takes_the_fast_path(tmp_path: Path):
    for relative, document in base_documents().items():
        path = tmp_path / "data" / relative
        text = canonical_yaml(document, path)
        assert format_text(text, path) == text, relative
        assert quick_canonical(text, path), relative
        # The fast emitter and ruamel's write the same bytes.
        assert emit_simple(document) is not None
        assert _dump(_to_commented(document), path) == text, relative


def test_quick_path_never_accepts_what_fmt_would_change():
    text = fmt(HAND_WRITTEN)
    assert not quick_canonical(HAND_WRITTEN, RUN_PATH)
    # A file with comments in its body is judged by the slow path, and that path keeps it.
    assert not quick_canonical(text, RUN_PATH) and fmt(text) == text


def test_the_quick_path_reads_the_values_the_formatter_means():
    """The quick path parses with the event loader (``fastyaml``); it must see what ``load_plain``
    sees, timestamps kept as the text written included."""
    from site_builder.canonical_yaml import _load_plain_fast

    body = HAND_WRITTEN.split("\n", 1)[1] + "  samples: [1, 2.5, -3, 1e3, .inf, ~, yes, 'no']\n"
    assert _load_plain_fast(body) == load_plain(body)
    assert isinstance(_load_plain_fast(body)["spec"]["observedAt"], str)


_words = st.text(alphabet=string.ascii_letters + string.digits + " -_./:#,'\"[]{}µ×·@!&*|>%`?", min_size=0, max_size=24)
_scalars = st.one_of(_words, st.integers(-10**12, 10**12), st.booleans(),
                     st.floats(allow_nan=False, allow_infinity=False, width=32), st.sampled_from(["yes", "No", "null", "~", "2025-01-01"]))
_keys = st.from_regex(r"[a-z][a-zA-Z0-9_]{0,11}", fullmatch=True)
_values = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(_keys, inner, max_size=5)), max_leaves=12)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=st.dictionaries(_keys, _values, max_size=6), name=_keys)
def test_any_document_round_trips_and_both_emitters_agree(spec, name):
    document = {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "Source", "metadata": {"name": name}, "spec": spec}
    text = canonical_yaml(document, "data/sources/x.yaml")
    body = text.split("\n", 1)[1]
    assert load_plain(body) == document
    assert format_text(text, "data/sources/x.yaml") == text
    simple = emit_simple(document)
    if simple is not None:
        assert simple == _dump(_to_commented(document), None)
