"""Selection: kernel, workloads (by name, all of a kernel, a suite), implementations, passes -> plan."""

import pytest

from harness.datarepo import read_data
from harness.plan import protocol_name
from harness.selection import FamilyInfo, SelectionError, select
from harness.run_yaml import dump

FAMILIES = {
    "llama4-rope": FamilyInfo("llama4-rope", forward=("kernelindex-triton", "pytorch-reference", "torch-compile", "liger", "transformers"),
                              backward=("kernelindex-triton", "pytorch-reference", "torch-compile", "liger"),
                              passes=("forward", "backward", "full"), dtypes=("bfloat16", "float16", "float32"),
                              versions={"liger": "0.8.5"}),
    "fused-neighborhood-attention": FamilyInfo("fused-neighborhood-attention", forward=("kernelindex-triton", "pytorch-reference"),
                                               dtypes=("float32",)),
    "multimodal-rotary-embedding-attention": FamilyInfo("multimodal-rotary-embedding-attention",
                                                        forward=("kernelindex-triton", "pytorch-reference", "pytorch-sdpa"),
                                                        dtypes=("bfloat16",)),
}


def test_default_plan_covers_every_kernel_workload_and_implementation(tiny_data):
    plan = select(read_data(tiny_data), FAMILIES)
    kernels = {t.kernel for t in plan.tasks}
    assert kernels == set(FAMILIES)
    rope = [t for t in plan.tasks if t.kernel == "llama4-rope"]
    # forward for 5 implementations, backward for the 4 that have one; "full" only when asked
    assert len(rope) == 5 + 4
    assert {t.timed_pass for t in rope} == {"forward", "backward"}
    assert not [t for t in rope if t.impl == "transformers" and t.timed_pass == "backward"]
    # ours first, the reference last
    assert [t.impl for t in rope if t.timed_pass == "forward"][0] == "kernelindex-triton"
    assert [t.impl for t in rope if t.timed_pass == "forward"][-1] == "pytorch-reference"


def test_suite_expands_to_cases_and_a_suite_entry(tiny_data):
    plan = select(read_data(tiny_data), FAMILIES, workloads=["mrope-tiny-suite"], impls=["kernelindex-triton"])
    assert [t.workload for t in plan.tasks] == ["mrope-tiny-suite-seqlen8-batchsize1", "mrope-tiny-suite-seqlen12-batchsize2"]
    assert plan.tasks[0].axes["seq"] == 8 and plan.tasks[0].axes["batch"] == 1 and plan.tasks[0].axes["hidden"] == 64
    assert plan.tasks[0].dtype == "bfloat16"
    assert [s.suite for s in plan.suites] == ["mrope-tiny-suite"]
    assert plan.suites[0].cases == tuple(t.workload for t in plan.tasks)
    case = plan.new_workloads["mrope-tiny-suite-seqlen8-batchsize1"]
    assert case["kind"] == "WorkloadCase" and case["spec"]["axes"] == {"seq_len": 8, "batch_size": 1}
    assert case["spec"]["correctness"]["comparator"] == "allclose"


def test_suite_reuses_an_existing_case_file(tiny_data):
    path = tiny_data / "workloads" / "multimodal-rotary-embedding-attention" / "someones-case.yaml"
    path.write_text(dump({"apiVersion": "kernelindex.dev/v1alpha1", "kind": "WorkloadCase", "metadata": {"name": "someones-case"},
                          "spec": {"operation": "multimodal-rotary-embedding-attention", "axes": {"seq_len": 8, "batch_size": 1},
                                   "dtype": "bf16", "correctness": {"comparator": "allclose"}}}))
    plan = select(read_data(tiny_data), FAMILIES, workloads=["mrope-tiny-suite"], impls=["kernelindex-triton"])
    assert plan.suites[0].cases[0] == "someones-case"
    assert "someones-case" not in plan.new_workloads


def test_workload_by_name_and_implementation_by_data_name(tiny_data):
    (tiny_data / "implementations").mkdir()
    (tiny_data / "implementations" / "liger-llama4-rope.yaml").write_text(dump({
        "apiVersion": "kernelindex.dev/v1alpha1", "kind": "ImplementationRevision", "metadata": {"name": "liger-llama4-rope"},
        "spec": {"project": "liger-kernel", "operation": "llama4-rope", "callable": {"language": "triton"}}}))
    plan = select(read_data(tiny_data), FAMILIES, workloads=["llama4-rope-tiny"], impls=["liger-llama4-rope"], passes=["forward"])
    assert [(t.impl, t.implementation, t.protocol) for t in plan.tasks] == [("liger", "liger-llama4-rope", "kernelindex-harness-v1")]
    assert "liger-llama4-rope" not in plan.new_implementations  # reused, never rewritten


def test_missing_implementations_are_planned_as_new_files(tiny_data):
    plan = select(read_data(tiny_data), FAMILIES, kernels=["llama4-rope"], impls=["kernelindex-triton", "liger"], passes=["forward"])
    ours = plan.new_implementations["kernelindex-triton-llama4-rope"]
    assert ours["spec"]["project"] == "kernelindex" and ours["spec"]["licensing"]["declared"] == "Apache-2.0"
    assert ours["spec"]["callable"] == {"language": "triton", "path": "kernels/llama4_rope/triton_impl.py", "symbol": "forward",
                                        "interface": "kernelindex_family"}
    peer = plan.new_implementations["kernelindex-liger-llama4-rope"]
    assert peer["spec"]["project"] == "liger-kernel" and peer["spec"]["projectRevision"] == {"version": "0.8.5"}


def test_passes_and_cuda_graph_protocols(tiny_data):
    plan = select(read_data(tiny_data), FAMILIES, kernels=["llama4-rope"], impls=["kernelindex-triton", "transformers"],
                  passes=["forward", "backward", "full"], cuda_graph="on")
    protocols = {(t.impl, t.protocol) for t in plan.tasks}
    assert ("kernelindex-triton", "kernelindex-harness-v1-cudagraph-full") in protocols
    assert ("transformers", "kernelindex-harness-v1-backward") not in protocols  # no backward to time
    assert len(plan.tasks) == 2 * (3 + 1)
    assert protocol_name("forward", False) == "kernelindex-harness-v1"
    assert protocol_name("backward", True) == "kernelindex-harness-v1-cudagraph-backward"


def test_passes_a_kernel_lacks_are_reported(tiny_data):
    plan = select(read_data(tiny_data), FAMILIES, kernels=["fused-neighborhood-attention"], passes=["forward", "backward"])
    assert {t.timed_pass for t in plan.tasks} == {"forward"}
    assert any("no backward pass" in reason for reason in plan.skipped)


@pytest.mark.parametrize("kwargs, message", [
    ({"kernels": ["nope"]}, "unknown kernel"),
    ({"workloads": ["nope"]}, "no workload named"),
    ({"kernels": ["llama4-rope"], "workloads": ["fused-neighborhood-attention-tiny"]}, "is for kernel"),
    ({"passes": ["sideways"]}, "unknown pass"),
])
def test_bad_requests_are_one_line_errors(tiny_data, kwargs, message):
    with pytest.raises(SelectionError, match=message):
        select(read_data(tiny_data), FAMILIES, **kwargs)


def test_unavailable_implementation_is_skipped_with_a_reason(tiny_data):
    plan = select(read_data(tiny_data), FAMILIES, kernels=["fused-neighborhood-attention"], impls=["liger", "kernelindex-triton"])
    assert {t.impl for t in plan.tasks} == {"kernelindex-triton"}
    assert any("'liger' is not available" in reason for reason in plan.skipped)


def test_dtype_the_kernel_lacks_is_skipped(tiny_data):
    families = dict(FAMILIES, **{"llama4-rope": FamilyInfo("llama4-rope", forward=("pytorch-reference",), dtypes=("bfloat16",))})
    plan = select(read_data(tiny_data), families, kernels=["llama4-rope"])
    assert plan.tasks == [] and any("dtype fp32" in reason for reason in plan.skipped)
