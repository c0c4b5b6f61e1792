"""Environment capture with the GPU mocked: facts -> spec, names, reuse and cohorts."""

import subprocess

from harness.datarepo import read_data
from harness.environment import _smi_facts, environment_file, environment_labels, environment_name, environment_spec, split_product
from harness.run_yaml import dump

H200 = {"name": "NVIDIA H200", "major": 9, "minor": 0, "memory_bytes": 150_754_820_096, "sm_count": 132,
        "l2_bytes": 62_914_560, "uuid": "GPU-aaaa", "cuda": "13.0", "torch": "2.11.0+cu130", "python": "3.12.3",
        "triton": "3.6.0", "os": "Ubuntu 24.04.3 LTS", "kernel_release": "6.18.44-fc", "driver": "580.159.04",
        "physical_index": 0, "max_sm_clock_mhz": 1980, "max_memory_clock_mhz": 3201, "power_limit_w": 700}


def test_spec_holds_identity_and_labels_hold_the_rest():
    spec = environment_spec(H200)
    assert spec == {
        "hardware": {"vendor": "nvidia", "product": "NVIDIA H200", "architecture": "sm_90", "memoryBytes": 150_754_820_096, "count": 1},
        "software": {"operatingSystem": "Ubuntu 24.04.3 LTS", "driver": "580.159.04", "cudaToolkit": "13.0",
                     "framework": {"name": "pytorch", "version": "2.11.0+cu130"},
                     "libraries": {"python": "3.12.3", "triton": "3.6.0"}},
    }
    labels = environment_labels(H200)
    assert labels["max_sm_clock_mhz"] == "1980" and labels["kernel_release"] == "6.18.44-fc" and "uuid" not in labels


def test_product_names_split_like_the_reported_environments():
    assert split_product("NVIDIA H100 80GB HBM3") == ("NVIDIA H100", "80GB HBM3")
    assert split_product("NVIDIA H100 PCIe") == ("NVIDIA H100", "PCIe")
    assert split_product("NVIDIA GeForce RTX 3090") == ("NVIDIA GeForce RTX 3090", None)
    assert split_product("NVIDIA A100-SXM4-80GB") == ("NVIDIA A100", "SXM4-80GB")
    assert split_product("NVIDIA H200") == ("NVIDIA H200", None)


def test_two_identical_gpus_share_one_environment_and_a_different_one_does_not():
    second = dict(H200, uuid="GPU-bbbb", physical_index=1, max_sm_clock_mhz=1755)  # labels differ, identity does not
    assert environment_name(environment_spec(H200)) == environment_name(environment_spec(second))
    other_driver = dict(H200, driver="575.51.03")
    smaller = dict(H200, memory_bytes=100_000_000_000)
    names = {environment_name(environment_spec(f)) for f in (H200, other_driver, smaller)}
    assert len(names) == 3
    assert environment_name(environment_spec(H200)).startswith("kernelindex-nvidia-h200-")


def test_an_existing_environment_with_the_same_spec_is_reused(tiny_data):
    spec = environment_spec(H200)
    (tiny_data / "environments").mkdir()
    (tiny_data / "environments" / "h200-lab.yaml").write_text(dump({
        "apiVersion": "kernelindex.dev/v1alpha1", "kind": "ExecutionEnvironment", "metadata": {"name": "h200-lab"}, "spec": spec}))
    assert environment_name(spec, read_data(tiny_data)) == "h200-lab"
    assert environment_name(environment_spec(dict(H200, torch="2.12.0")), read_data(tiny_data)) != "h200-lab"


def test_environment_file_validates(tiny_data):
    from schemas.kinds import ExecutionEnvironment

    body = environment_file("kernelindex-nvidia-h200-0000", environment_spec(H200), environment_labels(H200))
    ExecutionEnvironment.model_validate(body)
    assert body["metadata"]["title"] == "NVIDIA H200 · driver 580.159.04 · CUDA 13.0 · torch 2.11.0+cu130"


def test_nvidia_smi_fallback_picks_the_row_of_this_gpu():
    def fake_run(argv, **kwargs):
        assert argv[0] == "nvidia-smi"
        out = "GPU-aaaa, 0, 580.159.04, 1980, 3201, 700.00\nGPU-bbbb, 1, 580.159.04, 1980, 3201, 700.00\n"
        return subprocess.CompletedProcess(argv, 0, stdout=out)

    facts = _smi_facts("GPU-bbbb", run=fake_run)
    assert facts == {"driver": "580.159.04", "physical_index": 1, "max_sm_clock_mhz": 1980, "max_memory_clock_mhz": 3201,
                     "power_limit_w": 700}
