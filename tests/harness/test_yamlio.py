"""The harness writes data files through the one canonical writer, so they pass `kernelindex fmt --check`."""

from harness.runfiles import HEADER
from harness.run_yaml import dump, load_text, write_if_changed
from site_builder.canonical_yaml import format_text

RUN = {
    "apiVersion": "kernelindex.dev/v1alpha1",
    "kind": "BenchmarkRun",
    "metadata": {"name": "x-run", "title": "A title · with: a colon", "labels": {"gpu_index": "0", "flag": "true"}},
    "spec": {
        "status": "passed",
        "timing": {"median": 331904, "p20": 331000, "p80": 333000},
        "evidence": {"notes": 'say "hi" µs', "rawSamplesNs": list(range(100_000, 100_400)), "tiny": 1e-05},
        "observedAt": "2026-11-29T13:50:52.916Z",
    },
}


def test_written_run_is_already_canonical(tmp_path):
    path = tmp_path / "data" / "runs" / "kernelindex-harness" / "k" / "x-run.yaml"
    text = dump(RUN, path, header=HEADER)
    assert format_text(text, path) == text
    assert load_text(text) == RUN


def test_header_sits_below_the_schema_comment_where_fmt_keeps_it(tmp_path):
    (tmp_path / "schemas" / "json").mkdir(parents=True)
    path = tmp_path / "data" / "runs" / "kernelindex-harness" / "k" / "x-run.yaml"
    (tmp_path / "data").mkdir()
    lines = dump(RUN, path, header=HEADER).splitlines()
    assert lines[0].startswith("# yaml-language-server: $schema=")
    assert lines[1] == f"# {HEADER}"
    assert lines[2] == "apiVersion: kernelindex.dev/v1alpha1"


def test_strings_that_look_like_other_types_stay_strings(tmp_path):
    text = dump(RUN, tmp_path / "x.yaml")
    back = load_text(text)
    assert back["metadata"]["labels"] == {"gpu_index": "0", "flag": "true"}
    assert back["spec"]["evidence"]["tiny"] == 1e-05


def test_same_document_same_bytes(tmp_path):
    path = tmp_path / "x.yaml"
    assert write_if_changed(path, dump(RUN, path)) is True
    assert write_if_changed(path, dump(dict(RUN), path)) is False
    assert not list(tmp_path.glob(".*.tmp"))
