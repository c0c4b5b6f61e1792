import pytest

torch = pytest.importorskip("torch")

from harness.timing import make_timer, summarize, time_fn  # noqa: E402
from kernels import tolerances as TOL  # noqa: E402
from kernels.checks import changed_inputs, poisoned_allocations, run_checked, snapshot  # noqa: E402

pytestmark = pytest.mark.kernels


def fake_liger_inplace_rope(inputs):
    """Behaves like Liger's RoPE: rotates q/k in place and returns the same tensors."""
    q, k = inputs["q"], inputs["k"]
    q.mul_(-1.0)
    k.mul_(-1.0)
    return {"q_out": q, "k_out": k}


def test_inplace_peer_is_detected():
    inputs = {"q": torch.randn(2, 3, 4, 8), "k": torch.randn(2, 3, 2, 8), "freqs_cis": torch.ones(2, 3, 4, dtype=torch.complex64)}
    out, changed = run_checked(fake_liger_inplace_rope, inputs)
    assert sorted(changed) == ["k", "q"]
    assert out["q_out"].data_ptr() == inputs["q"].data_ptr()


def test_out_of_place_passes_and_nan_snapshot():
    inputs = {"x": torch.tensor([1.0, float("nan")])}
    snap = snapshot(inputs)
    assert changed_inputs(snap, inputs) == []


def test_poisoned_allocations():
    with poisoned_allocations():
        a = torch.empty(4)
        b = torch.empty_like(a)
        c = torch.empty(3, dtype=torch.int32)
    assert torch.isnan(a).all() and torch.isnan(b).all() and (c == -1).all()
    assert not torch.isnan(torch.empty(4).fill_(0)).any()


def test_check_close_rule():
    r = torch.tensor([1.0, 2.0])
    ok, mae, mre = TOL.check_close(r + 1e-6, r, torch.float32, "llama4-rope")
    assert ok and mae == pytest.approx(1e-6, rel=1e-1)
    ok, *_ = TOL.check_close(r + 1e-3, r, torch.float32, "llama4-rope")
    assert not ok
    ok, mae, _ = TOL.check_close(torch.tensor([1.0, float("nan")]), r, torch.float32, "llama4-rope")
    assert not ok
    rows = TOL.tolerance_rows()
    assert {r["family"] for r in rows} == {"llama4-rope", "fused-neighborhood-attention",
                                            "multimodal-rotary-embedding-attention"}


def test_timing_cpu_backend_and_summary():
    s = summarize([5, 1, 4, 2, 3])
    assert s["median"] == 3 and s["min"] == 1 and s["count"] == 5 and s["mean"] == 3
    assert s["p20"] == pytest.approx(1.8) and s["p80"] == pytest.approx(4.2)
    calls = []
    samples = time_fn(lambda: calls.append(1), reps=7, warmup=2, backend="cpu")
    assert len(samples) == 7 and len(calls) == 9 and all(x >= 0 for x in samples)
    samples = time_fn(lambda: None, backend="cpu", min_reps=4, max_reps=6)
    assert 4 <= len(samples) <= 6
    assert make_timer("cpu").sample(lambda: None, 3) and summarize([])["count"] == 0


def test_families_registry():
    import kernels

    fams = kernels.FAMILIES
    assert set(fams) == {"llama4-rope", "fused-neighborhood-attention", "multimodal-rotary-embedding-attention"}
    for f in fams.values():
        assert "kernelindex-triton" in f.implementations and "pytorch-reference" in f.implementations
        assert set(f.passes) <= {"forward", "backward", "full"}
        assert f.bytes_moved(f.default_axes, torch.bfloat16) > 0
        assert f.flops(f.default_axes) > 0
        for dt in f.dtypes:
            TOL.get_tolerance(f.slug, dt)
    rope = fams["llama4-rope"]
    assert rope.bytes_moved({"batch": 1, "seq": 2048, "hidden": 8192}, torch.bfloat16) == 85_983_232
    assert rope.flops({"batch": 1, "seq": 2048, "hidden": 8192}) == 62_914_560
    assert "liger" in rope.mutates_inputs and "kernelindex-triton" in rope.backward_implementations
    mr = fams["multimodal-rotary-embedding-attention"]
    assert mr.flops({"batch": 1, "seq": 1024}) == 60_129_542_144 + 15_032_385_536


def test_host_timing_cpu_and_spin_ignored_on_cpu():
    from harness.timing import host_timing

    r = host_timing(lambda: None, n=5, backend="cpu")
    assert r["n"] == 5 and r["e2e_ms"] >= r["host_ms"] >= 0
    assert len(time_fn(lambda: None, reps=3, warmup=1, backend="cpu", hide_host_us=100)) == 3


def test_backward_entries_are_wired():
    import kernels

    for slug in ("llama4-rope", "fused-neighborhood-attention"):
        f = kernels.FAMILIES[slug]
        assert "backward" in f.passes and f.grad_names and f.make_grad_outputs and f.reference_backward_float64
        assert {"kernelindex-triton", "pytorch-reference"} <= set(f.backward_implementations)
