import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

from kernels.llama4_rope import reference as R, triton_impl as T  # noqa: E402

from kernel_test_util import check_impl, check_ref64  # noqa: E402

pytestmark = pytest.mark.kernels
FAM = "llama4-rope"
SHAPES = [
    {"batch": 2, "seq": 5, "q_heads": 4, "kv_heads": 2, "head_dim": 12},   # non-power-of-two head_dim
    {"batch": 1, "seq": 3, "q_heads": 3, "kv_heads": 1, "head_dim": 8},    # odd head counts
    {"batch": 3, "seq": 7, "q_heads": 32, "kv_heads": 8, "head_dim": 6},   # many tokens per program
    {"batch": 1, "seq": 9, "q_heads": 2, "kv_heads": 2, "head_dim": 64},
]
DTYPES = [torch.bfloat16, torch.float16, torch.float32]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("axes", SHAPES, ids=lambda a: "x".join(str(v) for v in a.values()))
def test_forward_backward(axes, dtype):
    inp = R.make_inputs(axes, dtype, "cpu", seed=3)
    ref = R.reference(inp)
    check_ref64(ref, R.reference_float64(inp), dtype, FAM)
    check_impl(T.forward, inp, {}, ref, dtype, FAM)
    g = R.make_grad_outputs(inp)
    refb = R.reference_backward(inp, g)
    check_ref64(refb, R.reference_backward_float64(inp, g), dtype, FAM)
    check_impl(T.backward, inp, {}, refb, dtype, FAM, extra=(g,))


def test_backward_is_autograd_of_forward():
    axes = SHAPES[0]
    inp = R.make_inputs(axes, torch.float64, "cpu", seed=1)
    q = inp["q"].clone().requires_grad_(True)
    k = inp["k"].clone().requires_grad_(True)
    out = R.reference_float64({"q": q, "k": k, "freqs_cis": inp["freqs_cis"]})
    g = R.make_grad_outputs(inp)
    dq, dk = torch.autograd.grad((out["q_out"], out["k_out"]), (q, k), (g["q_out"], g["k_out"]))
    refb = R.reference_backward_float64(inp, g)
    assert torch.allclose(dq, refb["q"], atol=1e-6) and torch.allclose(dk, refb["k"], atol=1e-6)


def test_per_batch_positions_and_broadcast_freqs():
    axes = {"batch": 2, "seq": 6, "q_heads": 2, "kv_heads": 1, "head_dim": 8}
    inp = R.make_inputs(axes, torch.float32, "cpu", seed=0)
    f = inp["freqs_cis"]
    assert not torch.equal(f[0], f[1])  # batch rows really have different positions
    out = T.forward(inp)
    ref = R.reference(inp)
    assert torch.allclose(out["q_out"], ref["q_out"], atol=1e-5)
    # a [1, S, D/2] table broadcasts over the batch
    inp1 = dict(inp, freqs_cis=f[:1])
    out1 = T.forward(inp1)
    ref1 = R.reference(inp1)
    assert torch.allclose(out1["k_out"], ref1["k_out"], atol=1e-5)


def test_strided_inputs_are_not_copied_and_are_honoured():
    # q/k as views into a fused [B, S, Hq+Hkv, D] buffer (non-contiguous head stride pattern)
    inp = R.make_inputs({"batch": 2, "seq": 4, "q_heads": 3, "kv_heads": 1, "head_dim": 8}, torch.float32, "cpu")
    fused = torch.cat([inp["q"], inp["k"]], dim=2)
    views = {"q": fused[:, :, :3], "k": fused[:, :, 3:], "freqs_cis": inp["freqs_cis"]}
    out = T.forward(views)
    ref = R.reference(inp)
    assert torch.allclose(out["q_out"], ref["q_out"], atol=1e-6)
    assert torch.allclose(out["k_out"], ref["k_out"], atol=1e-6)
