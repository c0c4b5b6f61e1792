"""Floors: headroom-v1 exactly as the public KernelIndex publishes it, and the truthful floor."""

import pytest

from site_builder.derive.floors import (
    DatasheetMatch, Floor, arithmetic_floor_ns, floor_of_bytes, headroom_v1_inputs, match_datasheet, times_above,
    workload_bytes,
)


def workload_floor(*, hardware, bandwidth_gbps, inputs, outputs, headroom_inputs, flops=None, flops_dtype=None,
                   peak_tflops=None) -> Floor:
    """Both floors of a single-case workload, as the derive pass makes them (``_floors``)."""
    return floor_of_bytes(hardware=hardware, bandwidth_gbps=bandwidth_gbps,
                          byte_counts=workload_bytes(inputs, outputs, headroom_inputs),
                          flops=flops, flops_dtype=flops_dtype, peak_tflops=peak_tflops)

# Llama 4 RoPE, seq 2048, hidden 8192, q_heads 32, kv_heads 8, bf16 (head_dim 256).
ROPE_INPUTS = {
    "q": {"shape": [1, 2048, 32, 256], "dtype": "bf16"},
    "k": {"shape": [1, 2048, 8, 256], "dtype": "bf16"},
    "freqs_cis": {"shape": [1, 2048, 128], "dtype": "complex64"},
}
ROPE_OUTPUTS = {"q_out": {"shape": [1, 2048, 32, 256], "dtype": "bf16"}, "k_out": {"shape": [1, 2048, 8, 256], "dtype": "bf16"}}

# Neighborhood attention, batch 2, seq 128, hidden 512, fp32: hidden states, four weights, four biases.
NA_INPUTS = {"hidden_states": {"shape": [2, 128, 512], "dtype": "fp32"}}
NA_INPUTS.update({f"{p}_weight": {"shape": [512, 512], "dtype": "fp32"} for p in ("q", "k", "v", "out")})
NA_INPUTS.update({f"{p}_bias": {"shape": [512], "dtype": "fp32"} for p in ("q", "k", "v", "out")})


def test_headroom_v1_seed_000_llama4_rope_on_h100_sxm():
    floor = workload_floor(hardware="h100-sxm", bandwidth_gbps=3350, inputs=ROPE_INPUTS, outputs=ROPE_OUTPUTS,
                           headroom_inputs=["k", "q"])
    assert floor.headroom_v1_ns == 12520  # 41,943,040 B / 3,350 GB/s: "12.5 µs"
    assert floor.headroom_v1_bytes == 41_943_040
    assert headroom_v1_inputs(ROPE_INPUTS, ["k", "q"]) == ["q", "k"]  # in the kernel's order, freqs_cis left out
    assert floor.headroom_v1_unrounded_ns == 41_943_040 / 3350  # "N× above it" divides by this, not by 12520
    assert f"{times_above(81280, floor.headroom_v1_unrounded_ns):.2f}" == "6.49"
    # Truthful: q, k and freqs_cis in, q_out and k_out out.
    assert floor.bytes == 41_943_040 * 2 + 2_097_152
    assert floor.truthful_ns == pytest.approx(85_983_232 / 3350) and floor.bound == "memory"


def test_headroom_v1_seed_004_neighborhood_attention_on_rtx_3090():
    floor = workload_floor(hardware="rtx-3090", bandwidth_gbps=936, inputs=NA_INPUTS,
                           outputs={"y": {"shape": [2, 128, 512], "dtype": "fp32"}}, headroom_inputs=None)
    assert floor.headroom_v1_ns == 5050  # 4,726,784 B / 936 GB/s: "5.05 µs"
    assert f"{times_above(155152, floor.headroom_v1_unrounded_ns):.2f}" == "30.72"


def test_arithmetic_floor_wins_when_compute_bound():
    # A bf16 4096³ GEMM on a B200: 2·4096³ FLOPs over 2,250 TFLOP/s beats 3·32 MiB over 8,000 GB/s.
    a = {"shape": [4096, 4096], "dtype": "bf16"}
    floor = workload_floor(hardware="b200", bandwidth_gbps=8000, inputs={"a": a, "b": a}, outputs={"c": a},
                           headroom_inputs=None, flops=2 * 4096**3, flops_dtype="bf16",
                           peak_tflops={"bf16": 2250, "fp8": 4500})
    assert floor.arithmetic_ns == pytest.approx(arithmetic_floor_ns(2 * 4096**3, 2250))
    assert floor.bound == "arithmetic" and floor.truthful_ns == floor.arithmetic_ns
    assert floor.memory_ns == pytest.approx(3 * 4096 * 4096 * 2 / 8000)


def test_no_arithmetic_floor_without_a_peak_for_the_declared_class():
    floor = workload_floor(hardware="t4", bandwidth_gbps=320, inputs=ROPE_INPUTS, outputs=ROPE_OUTPUTS,
                           headroom_inputs=None, flops=10**9, flops_dtype="tf32", peak_tflops={"fp32": 8.1})
    assert floor.arithmetic_ns is None and floor.bound == "memory"


def test_datasheet_matching_keeps_pcie_apart_from_sxm():
    matches = [DatasheetMatch("h100-sxm", "NVIDIA H100", "80GB HBM3"), DatasheetMatch("h100-pcie", "NVIDIA H100", "PCIe"),
               DatasheetMatch("rtx-3090", "NVIDIA GeForce RTX 3090", None)]
    assert match_datasheet("NVIDIA H100", "80GB HBM3", matches) == "h100-sxm"
    assert match_datasheet("nvidia h100", "pcie", matches) == "h100-pcie"
    assert match_datasheet("NVIDIA H100", None, matches) is None  # never guess between SXM and PCIe
    assert match_datasheet("NVIDIA GeForce RTX 3090", "anything", matches) == "rtx-3090"
    assert match_datasheet("NVIDIA B200", None, matches) is None


# --------------------------------------------------------------------------------------------
# Floors per pass, suites, excluded inputs and the reasons for no floor (issue 22)

from site_builder.derive.floors import floor_for_pass, no_floor_reason, suite_floor, workload_bytes  # noqa: E402

# Fused linear cross entropy, BT 4096, H 4096, V 128256, bf16, on an A100 (1,935 GB/s, 312 TFLOP/s bf16).
FLCE_INPUTS = {"input": {"shape": [4096, 4096], "dtype": "bf16"}, "weight": {"shape": [128256, 4096], "dtype": "bf16"},
               "target": {"shape": [4096], "dtype": "int64"}}
FLCE_FLOPS = 2 * 4096 * 4096 * 128256


def flce_floor():
    return workload_floor(hardware="a100", bandwidth_gbps=1935, inputs=FLCE_INPUTS, outputs={"loss": {"shape": [], "dtype": "bf16"}},
                          headroom_inputs=None, flops=FLCE_FLOPS, flops_dtype="bf16", peak_tflops={"bf16": 312})


def test_a_backward_pass_keeps_the_memory_floor_only():
    floor = flce_floor()
    assert floor.bound == "arithmetic" and floor.truthful_ns == pytest.approx(FLCE_FLOPS / 312e3)
    backward = floor_for_pass(floor, "backward")
    assert backward.arithmetic_ns is None and backward.flops is None
    assert backward.truthful_ns == floor.memory_ns > 0 and backward.bound == "memory"
    assert floor_for_pass(floor, "forward") is floor and floor_for_pass(floor, "full") is floor


def test_excluded_inputs_leave_the_truthful_floor_but_not_headroom_v1():
    inputs = {"indices": {"shape": [8, 2048], "dtype": "int64"}, "weight": {"shape": [131072, 4096], "dtype": "fp32"}}
    outputs = {"y": {"shape": [8, 2048, 4096], "dtype": "fp32"}}
    v1, counted = workload_bytes(inputs, outputs, None, ["weight"])
    assert counted == 8 * 2048 * 8 + 8 * 2048 * 4096 * 4
    assert v1 == 8 * 2048 * 8 + 131072 * 4096 * 4


def test_a_suite_floor_is_its_smallest_case_floor_for_a_mean_and_the_total_for_a_sum():
    small = workload_floor(hardware="h100", bandwidth_gbps=3350, inputs=ROPE_INPUTS, outputs=ROPE_OUTPUTS, headroom_inputs=["q", "k"])
    large = flce_floor()
    mean = suite_floor([small, large], "mean")
    # Any average of the cases (arithmetic, geometric, harmonic) is at least the smallest case's floor.
    assert mean.memory_ns == min(small.memory_ns, large.memory_ns)
    assert mean.arithmetic_ns is None  # one case declares no FLOPs: no arithmetic floor for the suite
    geometric = (small.truthful_ns * large.truthful_ns) ** 0.5
    assert 0 < mean.truthful_ns <= min(geometric, 2 / (1 / small.truthful_ns + 1 / large.truthful_ns))
    total = suite_floor([small, large], "sum")
    assert total.memory_ns == pytest.approx(small.memory_ns + large.memory_ns)
    assert suite_floor([small, large], "p99") is None and suite_floor([], "mean") is None


def test_no_floor_reasons():
    common = dict(suite=False, declared=True, datasheet=True, gpu="NVIDIA H100")
    assert no_floor_reason(metric="latency:median:ns", **common) is None
    assert "memory, not a time" in no_floor_reason(metric="memory:median:MiB", **common)
    assert "no primary value" in no_floor_reason(metric=None, **common)
    assert "awaits a declaration" in no_floor_reason(metric="latency:median:ns", **{**common, "declared": False})
    assert "no datasheet matches NVIDIA H100" in no_floor_reason(metric="latency:median:ns", **{**common, "datasheet": False})
    assert "no bytes" in no_floor_reason(metric="latency:median:ns", byte_count=0, **common)
