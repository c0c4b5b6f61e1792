"""Loader round trips: a valid file, written any way YAML allows, loads to the same model and digest."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemas.digest import canonical_json, identity_body
from schemas.kinds import KIND_FOLDERS, model_for
from site_builder.link import link
from site_builder.load import load_documents, validate_object
from site_builder.yaml_reading import load_text

from .strategies import project_file, run_file
from .yamltext import emit

BASE = Path(__file__).resolve().parent.parent / "hostile" / "base"
DATA = Path("/nonexistent/data")  # validate_object reads no file when it is given the text
BASE_DOCUMENTS, BASE_PROBLEMS = load_documents(BASE)
assert BASE_PROBLEMS == []

seeds = st.integers(min_value=0, max_value=2**32 - 1)
styles = st.sampled_from([0.0, 0.5, 1.0])  # all block, mixed, all flow


def load(text: str, kind: str, name: str):
    raw, problems = load_text(text, "generated.yaml")
    assert problems == [], f"{problems}\n{text}"
    path = DATA / KIND_FOLDERS[kind] / f"{name}.yaml"
    document, problems = validate_object(raw, path, str(path), DATA, text=text)
    assert problems == [], f"{problems}\n{text}"
    return document


def written(value: dict, seed: int, flow: float) -> str:
    return emit(value, random.Random(seed), flow=flow)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(run_file(), project_file()), seeds, styles)
def test_a_file_loads_to_its_model(file, seed, flow):
    expected = model_for(file["kind"]).model_validate(file)
    document = load(written(file, seed, flow), file["kind"], file["metadata"]["name"])
    assert document.model == expected


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(run_file(), project_file()), seeds, seeds, styles)
def test_dump_then_load_is_the_identity(file, seed_a, seed_b, flow):
    # What the formatter and the scaffold rely on: the model's own dump is a valid file of the same model.
    first = load(written(file, seed_a, flow), file["kind"], file["metadata"]["name"])
    dumped = first.model.model_dump(mode="json", exclude_none=True)
    again = load(written(dumped, seed_b, 1.0 - flow), file["kind"], file["metadata"]["name"])
    assert again.model == first.model


def _linked_run(text: str, name: str):
    document = load(text, "BenchmarkRun", name)
    catalog, problems = link(BASE_DOCUMENTS + [document])
    assert problems == []
    return catalog.runs[name]


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(run_file(name="generated-run"), seeds, seeds, styles, styles)
def test_digest_ignores_key_order_style_and_comments(file, seed_a, seed_b, flow_a, flow_b):
    a = _linked_run(written(file, seed_a, flow_a), "generated-run")
    b = _linked_run(written(file, seed_b, flow_b), "generated-run")
    assert canonical_json(identity_body("BenchmarkRun", a.canonical_spec)) == canonical_json(
        identity_body("BenchmarkRun", b.canonical_spec))
    assert a.digest == b.digest


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(run_file(name="generated-run"), st.text(max_size=20), seeds)
def test_metadata_never_changes_a_digest(file, title, seed):
    a = _linked_run(written(file, seed, 0.5), "generated-run")
    file["metadata"] = {"name": "generated-run", "title": title, "labels": {"note": title}}
    b = _linked_run(written(file, seed, 0.5), "generated-run")
    assert a.digest == b.digest


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(run_file(name="generated-run"), seeds)
def test_durations_and_time_zones_do_not_change_a_digest(file, seed):
    # 81300 ns written as "81.3 us" and a moment written in another zone are the same run.
    a = _linked_run(written(file, seed, 0.5), "generated-run")
    latency = file["spec"]["timing"]["latencyNs"]
    latency["median"] = f"{latency['median'] / 1000} us" if latency["median"] % 1000 == 0 else f"{latency['median']} ns"
    observed = a.spec.observedAt
    file["spec"]["observedAt"] = observed.strftime("%Y-%m-%dT%H:%M:%S.") + f"{observed.microsecond // 1000:03d}Z"
    b = _linked_run(written(file, seed, 0.5), "generated-run")
    assert a.digest == b.digest


@pytest.mark.parametrize("document", BASE_DOCUMENTS, ids=lambda d: d.name)
@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=seeds, flow=styles)
def test_every_kind_round_trips_in_any_style(document, seed, flow):
    # Each kind of the base repository, rewritten in another style and key order, is the same model
    # and, once linked, has the same digest.
    dumped = document.model.model_dump(mode="json", exclude_none=True)
    again = load(written(dumped, seed, flow), document.kind, document.name)
    assert again.model == document.model
    others = [d for d in BASE_DOCUMENTS if d is not document]
    before, _ = link(BASE_DOCUMENTS)
    after, problems = link(others + [again])
    assert problems == []
    assert after.by_kind[document.kind][document.name].digest == before.by_kind[document.kind][document.name].digest
