"""The models: strictness, durations, dates, axis expressions, and the generated JSON Schemas."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from schemas import kinds
from schemas.expressions import ExpressionError, parse_expression
from schemas.jsonschema import SCHEMA_DIR, generate_schemas
from schemas.kinds import LatencyNs, OperationSpecSpec, Timing
from schemas.shapes import BindingError, bind_axes, concrete_tensors, tensor_bytes


def test_json_schemas_are_up_to_date():
    expected = generate_schemas()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in SCHEMA_DIR.glob("*.schema.json")}
    assert on_disk == expected, "schemas/json is out of date: run `kernelindex schema`"


@pytest.mark.parametrize("text, values, result", [
    ("hidden // q_heads", {"hidden": 8192, "q_heads": 32}, 256),
    ("num_heads * head_dim", {"num_heads": 28, "head_dim": 128}, 3584),
    ("(a + b) % 7 - -c", {"a": 5, "b": 4, "c": 1}, 3),
])
def test_expressions_evaluate(text, values, result):
    assert parse_expression(text).evaluate(values) == result


@pytest.mark.parametrize("text", [
    "__import__('os').system('x')", "a ** 2", "a / b", "a if b else c", "f(a)", "a.b", "[a]", "1.5 * a", "",
    "a" * 300,
])
def test_expressions_refuse_everything_else(text):
    with pytest.raises(ExpressionError):
        parse_expression(text)


def test_division_by_zero_is_an_error():
    with pytest.raises(ExpressionError):
        parse_expression("a // b").evaluate({"a": 1, "b": 0})


@pytest.mark.parametrize("written, ns", [(385536, 385536), ("81.3 us", 81300), ("0.0813 ms", 81300), ("2 s", 2_000_000_000), (81300.0, 81300)])
def test_durations_become_integer_ns(written, ns):
    assert LatencyNs(median=written).median == ns


@pytest.mark.parametrize("written", [0, -5, "1.5 ns", float("nan"), float("inf"), "81.3", "3 min", 1.5, "2 h", True])
def test_bad_durations_are_refused(written):
    with pytest.raises(ValidationError):
        LatencyNs(median=written)


def test_quantiles_must_be_ordered():
    with pytest.raises(ValidationError, match="p20 .* is above median"):
        LatencyNs(median=100, p20=200)


@settings(max_examples=300, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from([0.0, 20.0, 50.0, 80.0, 99.9, 100.0]), st.integers(0, 6)), max_size=8))
def test_the_one_pass_order_check_finds_exactly_the_pairs_out_of_order(entries):
    ranked = sorted(((rank, (), "statistic", float(value)) for rank, value in entries), key=lambda entry: entry[0])
    pairwise = any(low[0] < high[0] and low[3] > high[3] for i, low in enumerate(ranked) for high in ranked[i + 1:])
    assert kinds._inverted(ranked) == pairwise


@pytest.mark.parametrize("mean, problem", [(1005, None), (950, None), (1200, "latency mean (1200 ns, timing.latencyNs.mean)"),
                                           (900, "latency mean (900 ns, timing.latencyNs.mean)")])
def test_a_runs_mean_lies_within_its_minimum_and_maximum(mean, problem):
    timing = Timing(primaryStatistic="median", latencyNs={"median": 1000, "minimum": 950, "maximum": 1100, "mean": mean})
    found = kinds.statistics_out_of_order(timing, ())
    assert (found and found[0].split(" lies outside")[0]) == problem


def test_primary_statistic_must_be_present():
    with pytest.raises(ValidationError, match="latencyNs.mean is missing"):
        Timing(primaryStatistic="mean", latencyNs={"median": 100})


ROPE = {
    "family": "rope",
    "axes": {"seq": {"role": "variable"}, "hidden": {"role": "variable"}, "q_heads": {"role": "constant", "value": 32},
             "head_dim": {"role": "derived", "expression": "hidden // q_heads"}},
    "inputs": [{"name": "q", "tensor": {"shape": [1, "seq", "q_heads", "head_dim"], "dtype": "float"}}],
    "outputs": [{"name": "q_out", "tensor": {"shape": [1, "seq", "q_heads", "head_dim"], "dtype": "float"}}],
}


def test_binding_gives_concrete_shapes():
    operation = OperationSpecSpec.model_validate(ROPE)
    axes = bind_axes(operation, {"seq": 2048, "hidden": 8192})
    assert axes == {"seq": 2048, "hidden": 8192, "q_heads": 32, "head_dim": 256}
    from schemas.common import DType

    tensors = concrete_tensors(operation.inputs, axes, DType.bf16)
    assert tensors == {"q": {"shape": [1, 2048, 32, 256], "dtype": "bf16"}}
    assert tensor_bytes(tensors["q"]) == 33_554_432


@pytest.mark.parametrize("bound, message", [
    ({"seq": 1}, "does not bind variable axes: hidden"),
    ({"seq": 1, "hidden": 2, "q_heads": 3}, "only variable axes"),
    ({"seq": 1, "hidden": 2, "bogus": 3}, "not in the operation: bogus"),
])
def test_binding_errors(bound, message):
    with pytest.raises(BindingError, match=message):
        bind_axes(OperationSpecSpec.model_validate(ROPE), bound)


def test_unknown_keys_are_rejected():
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        OperationSpecSpec.model_validate({**ROPE, "colour": "blue"})


def test_shape_must_name_declared_axes():
    bad = {**ROPE, "inputs": [{"name": "q", "tensor": {"shape": ["nope"], "dtype": "bf16"}}]}
    with pytest.raises(ValidationError, match="unknown axis 'nope'"):
        OperationSpecSpec.model_validate(bad)
