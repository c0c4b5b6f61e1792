import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

from kernels.neighborhood_attention import reference as R, triton_impl as T  # noqa: E402

from kernel_test_util import check_impl, check_ref64  # noqa: E402

pytestmark = pytest.mark.kernels
FAM = "fused-neighborhood-attention"


def liger_set(i, N, K, D):
    r = K // 2
    lo, hi = max(0, i - r * D), min(N, i + r * D + 1)
    return {j for j in range(lo, hi) if (j - i) % D == 0}


def natten_set(i, N, K, D):
    g, ip = i % D, i // D
    ng = -(-(N - g) // D)
    s = min(max(ip - K // 2, 0), max(ng - K, 0))
    return {g + D * (s + t) for t in range(K) if g + D * (s + t) < N}


@pytest.mark.parametrize("N,K,D", [(128, 7, 2), (13, 7, 1), (5, 7, 2), (70, 5, 3), (9, 3, 4), (1, 3, 1)])
def test_neighbour_sets_match_brute_force(N, K, D):
    for boundary, fn in (("truncate", liger_set), ("shift", natten_set)):
        m = R.neighbor_mask(N, K, D, boundary)
        for i in range(N):
            assert set(torch.nonzero(m[i]).flatten().tolist()) == fn(i, N, K, D), (boundary, i)
            assert m[i, i]  # a query always sees itself


def test_seed_pair_counts():
    assert R.pair_count(128, 7, 2, "truncate") == 872  # kernels.md 3.2
    assert R.pair_count(128, 7, 2, "shift") == 896     # NATTEN: exactly K per query


CASES = [
    # (batch, seq, hidden, heads, K, D, boundary, dtype)
    (2, 13, 32, 2, 7, 1, "truncate", torch.float32),
    (2, 13, 32, 2, 7, 2, "shift", torch.float32),     # N < K*D
    (1, 5, 32, 2, 7, 2, "shift", torch.float32),      # N < K
    (1, 5, 32, 2, 7, 2, "truncate", torch.float32),
    (2, 70, 48, 3, 5, 3, "truncate", torch.float32),  # N not a multiple of the block; head_dim 16
    (1, 70, 48, 2, 5, 3, "shift", torch.float32),     # head_dim 24 (padded)
    (1, 9, 32, 2, 3, 4, "shift", torch.bfloat16),
    (2, 21, 32, 2, 7, 1, "truncate", torch.bfloat16),
    (1, 21, 32, 2, 7, 1, "truncate", torch.float16),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(str(x) for x in c))
def test_forward(case):
    B, N, C, H, K, D, boundary, dtype = case
    axes = {"batch": B, "seq": N, "hidden": C, "heads": H, "kernel_size": K, "dilation": D,
            "shift": int(boundary == "shift")}
    inp = R.make_inputs(axes, dtype, "cpu", seed=5)
    params = R.params_from_axes(axes)
    assert params["boundary"] == boundary
    ref = R.reference(inp, **params)
    if dtype == torch.float32:
        check_ref64(ref, R.reference_float64(inp, **params), dtype, FAM)
    check_impl(T.forward, inp, params, ref, dtype, FAM)


def test_rejects_bad_params():
    inp = R.make_inputs({"batch": 1, "seq": 4, "hidden": 16, "heads": 2}, torch.float32, "cpu")
    with pytest.raises(ValueError):
        T.forward(inp, num_heads=2, kernel_size=4)


@pytest.mark.parametrize("case", [CASES[1], CASES[4], CASES[7]], ids=lambda c: "-".join(str(x) for x in c))
def test_forward_two_pass(case):
    B, N, C, H, K, D, boundary, dtype = case
    axes = {"batch": B, "seq": N, "hidden": C, "heads": H, "kernel_size": K, "dilation": D,
            "shift": int(boundary == "shift")}
    inp = R.make_inputs(axes, dtype, "cpu", seed=6)
    params = R.params_from_axes(axes)
    ref = R.reference(inp, **params)
    check_impl(lambda i, **p: T.forward(i, two_pass=True, block_m=32, **p), inp, params, ref, dtype, FAM)


BWD_CASES = [CASES[0], CASES[1], CASES[2], CASES[4], CASES[5], CASES[7]]


@pytest.mark.parametrize("case", BWD_CASES, ids=lambda c: "-".join(str(x) for x in c))
def test_backward(case):
    B, N, C, H, K, D, boundary, dtype = case
    axes = {"batch": B, "seq": N, "hidden": C, "heads": H, "kernel_size": K, "dilation": D,
            "shift": int(boundary == "shift")}
    inp = R.make_inputs(axes, dtype, "cpu", seed=8)
    params = R.params_from_axes(axes)
    g = R.make_grad_outputs(inp)
    ref = R.reference_backward(inp, g, **params)
    assert set(ref) == set(R.GRAD_NAMES)
    if dtype == torch.float32:
        check_ref64(ref, R.reference_backward_float64(inp, g, **params), dtype, FAM)
    check_impl(T.backward, inp, params, ref, dtype, FAM, extra=(g,))
