import torch

from kernels import tolerances as TOL
from kernels.checks import run_checked


def check_impl(fn, inputs, params, ref, dtype, family, extra=()):
    out, changed = run_checked(fn, inputs, params, *extra)
    assert changed == [], f"inputs modified: {changed}"
    for name, r in ref.items():
        o = out[name]
        assert not torch.isnan(o).any(), f"{name}: output not fully written (NaN poison left)"
        ok, mae, mre = TOL.check_close(o, r, dtype, family)
        assert ok, f"{name}: max abs err {mae}, max rel err {mre}"
    return out


def check_ref64(ref, ref64, dtype, family):
    for name, r in ref.items():
        ok, mae, mre = TOL.check_close(r, ref64[name].to(r.dtype), dtype, family, TOL.REFERENCE_VS_FLOAT64)
        assert ok, f"reference vs float64 {name}: {mae} {mre}"
