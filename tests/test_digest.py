"""Canonical JSON (RFC 8785) and digests, pinned to the public KernelIndex's vectors and the seeds."""

import pytest

from schemas.digest import canonical_json, format_number, spec_digest

A = "kernelindex.dev/v1alpha1"


def test_public_test_vector():
    spec = {"name": "Vector Project", "repository": "https://example.invalid/vector/project"}
    assert canonical_json({"apiVersion": A, "kind": "SoftwareProject", "spec": spec}) == (
        '{"apiVersion":"kernelindex.dev/v1alpha1","kind":"SoftwareProject","spec":'
        '{"name":"Vector Project","repository":"https://example.invalid/vector/project"}}'
    )
    assert spec_digest("SoftwareProject", spec) == "sha256:bea60af06f12216679b113d6624c5293d59bef2104ccc27cd33c992d124e039d"


def test_key_order_does_not_matter():
    assert spec_digest("Source", {"b": 1, "a": {"y": 2, "x": 3}}) == spec_digest("Source", {"a": {"x": 3, "y": 2}, "b": 1})


def test_seed_environment_and_protocol_digests():
    # Seed 002 publishes these manifests with their digests: our canonical form reproduces them.
    environment = {"hardware": {"vendor": "nvidia", "product": "NVIDIA H100", "formFactor": "80GB HBM3",
                                "architecture": "sm_90"}, "software": {}}
    assert spec_digest("ExecutionEnvironment", environment) == (
        "sha256:2750ae381d6de582f1eb6b9008e0987463d19ede8af127d97d76c5ae09121393")


@pytest.mark.parametrize("value, text", [
    (8000, "8000"), (8000.0, "8000"), (1e-6, "0.000001"), (1e-7, "1e-7"), (0.1, "0.1"),
    (-0.5, "-0.5"), (1e21, "1e+21"), (123456789012345680000.0, "123456789012345680000"),
    (0.3846847891807556, "0.3846847891807556"), (5e-324, "5e-324"), (0.0, "0"), (-0.0, "0"),
    (1.5e300, "1.5e+300"), (2**53 + 1, "9007199254740992"),
])
def test_numbers_print_like_ecmascript(value, text):
    assert format_number(value) == text


def test_strings_escape_minimally():
    assert canonical_json({"k": "é\n\"\\\u0001"}) == '{"k":"é\\n\\"\\\\\\u0001"}'


def test_keys_sort_by_utf16_code_units():
    # U+FF61 sorts after U+1F600 by code point but before it in UTF-16 (surrogates are 0xD8xx).
    assert canonical_json({"\uff61": 1, "\U0001f600": 2}) == '{"😀":2,"｡":1}'


def test_nan_has_no_canonical_form():
    with pytest.raises(ValueError):
        canonical_json({"x": float("nan")})


def test_seed_run_digest():
    # Seed 001's canonical manifest of a Liger-imported run; its page shows "sha256:896d98802c9bdc00ff4279e…".
    spec = {
        "status": "passed",
        "timing": {"latencyNs": {"median": 385536}, "primaryStatistic": "median"},
        "observedAt": "2025-08-07T21:42:12.000Z",
        "measurements": [
            {"unit": "ns", "value": 384685, "metric": "latency", "statistic": "p20"},
            {"unit": "ns", "value": 386240, "metric": "latency", "statistic": "p80"},
        ],
        "sourceNative": {
            "source": "liger-kernel-bench",
            "metrics": {"ms_20": 0.3846847891807556, "ms_50": 0.38553598523139954, "ms_80": 0.38624000549316406},
            "benchmark": "llama4_rope/forward",
            "externalId": "llama4_rope/forward/huggingface/nvidia-h100-80gb-hbm3/hidden8192-kv_heads8-q_heads32-seq4096-bf16/2025-08-07-21-42-12",
        },
        "protocolDigest": "sha256:a79eaf4df66c97c6adc1fb2d09df78682155d1ea86652ae0b70199875bde7747",
        "workloadDigest": "sha256:8974f9ae1a4284ed6358ddaa324eeb4c076d3c5916579ee84b38fc474a3281bf",
        "environmentDigest": "sha256:2750ae381d6de582f1eb6b9008e0987463d19ede8af127d97d76c5ae09121393",
        "implementationDigest": "sha256:cca024409163839a832c1d39bd301f536494b645171665d65fae5faf2717be48",
    }
    assert spec_digest("BenchmarkRun", spec).startswith("sha256:896d98802c9bdc00ff4279e")
    # A float that is a whole number canonicalises like the integer.
    spec["measurements"][0]["value"] = 384685.0
    assert spec_digest("BenchmarkRun", spec).startswith("sha256:896d98802c9bdc00ff4279e")
