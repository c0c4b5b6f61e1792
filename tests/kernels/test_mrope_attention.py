import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

from kernels.mrope_attention import reference as R, triton_impl as T  # noqa: E402

from kernel_test_util import check_impl, check_ref64  # noqa: E402

pytestmark = pytest.mark.kernels
FAM = "multimodal-rotary-embedding-attention"

SHAPES = [
    {"batch": 3, "seq": 37, "hidden": 64, "heads": 4, "kv_heads": 2},   # left + right padding, odd N
    {"batch": 2, "seq": 16, "hidden": 128, "heads": 4, "kv_heads": 1},  # head_dim 32, GQA 4:1
]


def test_mrope_section_and_inputs():
    assert R.mrope_section_for(128) == (16, 24, 24)
    inp = R.make_inputs(SHAPES[0], torch.bfloat16, "cpu")
    m = inp["mask"]
    fmin = torch.finfo(torch.bfloat16).min
    assert m.shape == (3, 1, 37, 37) and m.dtype == torch.bfloat16
    assert set(torch.unique(m.float()).tolist()) == {0.0, fmin}
    full = (m == fmin).all(-1)[:, 0]
    assert full[1].any() and not full[0].any()  # batch row 1 is left-padded: fully masked rows
    assert inp["cos"].shape == (3, 3, 37, 16)
    # cos built HF-style: the two halves equal
    assert torch.equal(inp["cos"][..., :8], inp["cos"][..., 8:])
    # the image block gives different t/h/w streams somewhere
    assert not torch.equal(inp["cos"][0], inp["cos"][2])


def test_merge_matches_channel_map():
    cos = torch.arange(3 * 1 * 2 * 128, dtype=torch.float32).view(3, 1, 2, 128)
    cm, _ = R.merge_mrope(cos, cos, (16, 24, 24))
    for c in range(128):
        s = 0 if c % 64 < 16 else (1 if c % 64 < 40 else 2)
        assert torch.equal(cm[..., c], cos[s, ..., c])


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32], ids=str)
@pytest.mark.parametrize("axes", SHAPES, ids=lambda a: "x".join(str(v) for v in a.values()))
def test_forward(axes, dtype):
    inp = R.make_inputs(axes, dtype, "cpu", seed=7)
    params = R.params_from_axes(axes)
    ref = R.reference(inp, **params)
    check_ref64(ref, R.reference_float64(inp, **params), dtype, FAM)
    sd = R.sdpa(inp, **params)
    assert torch.allclose(sd["out"].float(), ref["out"].float(), atol=2e-2, rtol=2e-2)
    check_impl(T.forward, inp, params, ref, dtype, FAM)
    check_impl(lambda i, **p: T.forward(i, use_range=False, **p), inp, params, ref, dtype, FAM)
    check_impl(lambda i, **p: T.forward(i, use_range=True, **p), inp, params, ref, dtype, FAM)


def test_fully_masked_row_is_uniform_average():
    axes = SHAPES[0]
    inp = R.make_inputs(axes, torch.float32, "cpu", seed=2)
    params = R.params_from_axes(axes)
    B, N, C = inp["x"].shape
    H, Hkv = params["num_heads"], params["num_kv_heads"]
    d = C // H
    v = torch.nn.functional.linear(inp["x"], inp["wv"], inp["bv"]).view(B, N, Hkv, d)
    vmean = v.mean(1)  # [B, Hkv, d]
    o = vmean.repeat_interleave(H // Hkv, dim=1).reshape(B, H * d)
    expect = torch.nn.functional.linear(o, inp["wo"])  # [B, C]
    ref = R.reference(inp, **params)["out"]
    ours = T.forward(inp, use_range=True, **params)["out"]
    assert torch.allclose(ref[1, 0], expect[1], atol=1e-5)  # batch 1, query 0: fully masked
    assert torch.allclose(ours[1, 0], expect[1], atol=1e-5)


def test_arbitrary_mask_with_blocked_tiles():
    axes = {"batch": 2, "seq": 40, "hidden": 64, "heads": 2, "kv_heads": 1}
    inp = R.make_inputs(axes, torch.float32, "cpu", seed=4)
    params = R.params_from_axes(axes)
    g = torch.Generator().manual_seed(0)
    blocked = torch.rand(2, 1, 40, 40, generator=g) < 0.5
    blocked[..., 16:32] = True          # a whole column band of tiles blocked
    blocked[0, 0, 5] = True             # one fully masked row
    blocked[1, 0, 20:24, :] = False     # rows with every key open
    mask = torch.zeros(2, 1, 40, 40).masked_fill(blocked, torch.finfo(torch.float32).min)
    mask[1, 0, 30, 3] = -2.5            # a finite additive bias
    inp["mask"] = mask
    ref = R.reference(inp, **params)
    check_impl(lambda i, **p: T.forward(i, use_range=True, **p), inp, params, ref, torch.float32, FAM)
    check_impl(lambda i, **p: T.forward(i, use_range=False, **p), inp, params, ref, torch.float32, FAM)


class _NanEmpty:
    """``torch`` as triton_impl sees it, except that ``empty`` float buffers start as NaN: a padded
    mask copy's unwritten columns must never reach an output."""

    def __getattr__(self, name):
        return getattr(torch, name)

    @staticmethod
    def empty(*args, **kwargs):
        out = torch.empty(*args, **kwargs)
        return out.fill_(float("nan")) if out.is_floating_point() else out


@pytest.mark.parametrize("seq", [24, 37], ids=["aligned-rows-misfit-tiles", "odd"])
def test_padded_mask_copy_is_exact_whatever_the_padding_holds(seq, monkeypatch):
    """N % 16 != 0: the mask is copied into rows padded to whole key tiles and the attention loads
    its tiles without a column check; the padding (NaN here) never counts, with or without the scan."""
    axes = {"batch": 2, "seq": seq, "hidden": 64, "heads": 4, "kv_heads": 2}
    inp = R.make_inputs(axes, torch.bfloat16, "cpu", seed=11)
    params = R.params_from_axes(axes)
    ref = R.reference(inp, **params)
    seen = []
    launch = T._launchers()[2].launch

    def spy(grid, args, constexprs, **kw):
        seen.append(constexprs.get("MASK_PADDED"))
        return launch(grid, args, constexprs, **kw)

    monkeypatch.setattr(T._launchers()[2], "launch", spy)
    monkeypatch.setattr(T, "torch", _NanEmpty())
    check_impl(T.forward, inp, params, ref, torch.bfloat16, FAM)
    check_impl(lambda i, **p: T.forward(i, use_range=True, **p), inp, params, ref, torch.bfloat16, FAM)
    assert seen and all(seen)  # the padded path was taken
