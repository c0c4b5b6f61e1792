"""The correctness policy: poisoned outputs, unmodified inputs, tolerances, failures recorded."""

import dataclasses

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.kernels

from harness.correctness import NO_MUTATION, check_call, classify_exception  # noqa: E402
from harness.measure import Session, measure  # noqa: E402
from harness.plan import Task, TimingOptions  # noqa: E402

AXES = {"batch": 1, "seq": 4, "hidden": 16, "q_heads": 2, "kv_heads": 1}


@pytest.fixture(scope="module")
def rope():
    import kernels

    return kernels.FAMILIES["llama4-rope"]


def _inputs(rope):
    return rope.make_inputs(AXES, torch.float32, "cpu", 0)


def _check(rope, impl):
    inputs = _inputs(rope)
    references = rope.reference({k: v.clone() for k, v in inputs.items()})
    return check_call("llama4-rope", torch.float32, lambda: impl(inputs), inputs, references), inputs


def test_a_correct_out_of_place_implementation_passes(rope):
    (verdict, outputs), _ = _check(rope, rope.implementations["kernelindex-triton"])
    assert verdict.status == "passed" and verdict.max_abs is not None and verdict.max_abs <= 1e-5
    assert verdict.changed_inputs == [] and verdict.aliased_outputs == []


def test_an_output_left_unwritten_reads_as_poison(rope):
    def lazy(inputs):
        out = rope.reference(inputs)
        q_out = torch.empty_like(out["q_out"])  # poisoned by the harness: NaN, never a stale right answer
        q_out[..., : q_out.shape[-1] // 2] = out["q_out"][..., : q_out.shape[-1] // 2]
        return {"q_out": q_out, "k_out": out["k_out"]}

    (verdict, _), _ = _check(rope, lazy)
    assert verdict.status == "incorrect_numerical"
    assert "non-finite" in verdict.notes[0]


def test_an_in_place_implementation_is_a_policy_violation_and_inputs_are_restored(rope):
    def in_place(inputs):  # what Liger's RoPE does: rotate q and k in their own storage, return them
        out = rope.reference(inputs)
        inputs["q"].copy_(out["q_out"])
        inputs["k"].copy_(out["k_out"])
        return {"q_out": inputs["q"], "k_out": inputs["k"]}

    pristine = _inputs(rope)
    (verdict, _), inputs = _check(rope, in_place)
    assert verdict.status == "policy_violation"
    assert verdict.changed_inputs == ["q", "k"]
    assert verdict.aliased_outputs == ["q_out->q", "k_out->k"]
    assert verdict.notes == [f"{NO_MUTATION}: wrote its inputs q, k; returned outputs aliasing inputs (q_out->q, k_out->k)"]
    assert verdict.max_abs == 0.0  # the numbers are right; the contract is not
    assert torch.equal(inputs["q"], pristine["q"])  # restored for the next call


@pytest.mark.parametrize("impl, status", [
    (lambda inputs: (_ for _ in ()).throw(RuntimeError("boom")), "runtime_error"),
    (lambda inputs: {"q_out": inputs["q"].clone().double(), "k_out": inputs["k"].clone()}, "incorrect_dtype"),
    (lambda inputs: {"q_out": inputs["q"][:, :2].clone(), "k_out": inputs["k"].clone()}, "incorrect_shape"),
    (lambda inputs: {"q_out": inputs["q"].clone()}, "incorrect_shape"),
    (lambda inputs: {"q_out": inputs["q"] * 2, "k_out": inputs["k"] * 2}, "incorrect_numerical"),
])
def test_failures_get_a_status(rope, impl, status):
    (verdict, _), _ = _check(rope, impl)
    assert verdict.status == status
    assert verdict.notes


def test_exceptions_are_classified():
    assert classify_exception(torch.cuda.OutOfMemoryError("CUDA out of memory")) == "resource_exceeded"
    assert classify_exception(ValueError("x")) == "runtime_error"

    class CompilationError(Exception):
        pass

    assert classify_exception(CompilationError("bad")) == "compile_error"


def _task(impl, timed_pass="forward"):
    return Task(kernel="llama4-rope", workload="llama4-rope-tiny", axes=AXES, dtype="float32", impl=impl,
                implementation=f"x-{impl}", timed_pass=timed_pass)


def test_measure_times_a_policy_violation_with_inputs_restored_before_every_sample(rope):
    first = {}

    def in_place(inputs):
        key = "q"
        if key not in first:
            first[key] = inputs[key].clone()
        elif not torch.equal(inputs[key], first[key]):
            raise RuntimeError("called on inputs an earlier call modified")
        out = rope.reference(inputs)
        inputs["q"].copy_(out["q_out"])
        inputs["k"].copy_(out["k_out"])
        return {"q_out": inputs["q"], "k_out": inputs["k"]}

    family = dataclasses.replace(rope, implementations={**rope.implementations, "in-place": in_place})
    session = Session(TimingOptions(backend="cpu", warmup=2, target_ms=1, min_reps=5, max_reps=5, max_rounds=1, flush_l2=False))
    result = measure(_task("in-place"), family, session)
    assert result["status"] == "policy_violation"
    assert len(result["samples_ns"]) == 5
    assert result["correctness"]["inputs_unmodified"] is False


def test_measure_checks_backward_and_full_against_the_reference_backward(rope):
    session = Session(TimingOptions(backend="cpu", warmup=1, target_ms=1, min_reps=3, max_reps=3, max_rounds=1, flush_l2=False))
    for timed_pass in ("backward", "full"):
        result = measure(_task("kernelindex-triton", timed_pass), rope, session)
        assert result["status"] == "passed", result["notes"]
        assert result["correctness"]["max_abs"] <= 1e-5
    wrong = dataclasses.replace(rope, backward_implementations={
        **rope.backward_implementations, "wrong": lambda inputs, grads: {"q": grads["q_out"], "k": grads["k_out"]}},
        implementations={**rope.implementations, "wrong": rope.implementations["pytorch-reference"]})
    assert measure(_task("wrong", "backward"), wrong, session)["status"] == "incorrect_numerical"
    assert measure(_task("wrong", "full"), wrong, session)["status"] == "incorrect_numerical"


def test_poisoning_does_not_break_torch_compile(rope):
    """The first, unpoisoned call compiles; the poisoned call then runs the compiled code."""
    (verdict, _), _ = _check(rope, rope.implementations["torch-compile"])
    assert verdict.status == "passed", verdict.notes
