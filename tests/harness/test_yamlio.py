from harness.yamlio import dump, load_text, write_if_changed


def test_round_trip_keeps_types_and_order():
    body = {"name": "x", "when": "2026-11-29T10:00:00.000Z", "flag": "true", "version": "3.6.0", "n": 3,
            "f": 1e-05, "g": 0.25, "yes": "no", "nested": {"list": [1, 2, 3], "empty": {}, "none": []},
            "items": [{"a": "b: c"}, {"a": " spaced "}], "quote": 'say "hi"', "unicode": "µs · ok"}
    text = dump(body)
    assert load_text(text) == body
    assert list(load_text(text)) == list(body)


def test_floats_always_read_back_as_floats_even_in_yaml_1_1():
    text = dump({"small": 1e-05, "big": 1.5e20})
    assert "1.0e-05" in text
    assert load_text(text) == {"small": 1e-05, "big": 1.5e20}


def test_long_sample_lists_wrap_and_round_trip():
    samples = list(range(100_000, 100_400))
    text = dump({"spec": {"evidence": {"rawSamplesNs": samples}}})
    assert max(len(line) for line in text.splitlines()) <= 100
    assert load_text(text)["spec"]["evidence"]["rawSamplesNs"] == samples


def test_same_document_same_bytes(tmp_path):
    body = {"a": [1, 2], "b": {"c": "d"}}
    path = tmp_path / "x.yaml"
    assert write_if_changed(path, dump(body)) is True
    assert write_if_changed(path, dump(dict(body))) is False
    assert not list(tmp_path.glob(".*.tmp"))
