"""Triton kernels for Llama 4 RoPE (imported lazily by triton_impl)."""

import triton
import triton.language as tl

from .._triton_compat import apply as _compat

_compat()


@triton.jit
def _rot_tile(x_ptr, o_ptr, f_ptr, t0, h0, T, S, H, D,
              sxb, sxs, sxh, sob, sos, soh, sfb, sfs,
              BT: tl.constexpr, BH: tl.constexpr, DH: tl.constexpr, CONJ: tl.constexpr):
    t = t0 + tl.arange(0, BT)
    tm = t < T
    t64 = t.to(tl.int64)
    b = t64 // S
    s = t64 - b * S
    h = h0 + tl.arange(0, BH)
    hm = h < H
    c = tl.arange(0, 2 * DH)
    cm = c < D
    xoff = (b * sxb + s * sxs)[:, None, None] + (h.to(tl.int64) * sxh)[None, :, None] + c[None, None, :]
    m3 = tm[:, None, None] & hm[None, :, None] & cm[None, None, :]
    x = tl.load(x_ptr + xoff, mask=m3, other=0.0).to(tl.float32)
    foff = (b * sfb + s * sfs)[:, None] + c[None, :]
    f = tl.load(f_ptr + foff, mask=tm[:, None] & cm[None, :], other=0.0)
    fr, fi = tl.split(tl.reshape(f, (BT, DH, 2)))
    if CONJ:
        fi = -fi
    xr, xi = tl.split(tl.reshape(x, (BT, BH, DH, 2)))
    frb = fr[:, None, :]
    fib = fi[:, None, :]
    yr = xr * frb - xi * fib
    yi = xr * fib + xi * frb
    y = tl.reshape(tl.join(yr, yi), (BT, BH, 2 * DH))
    ooff = (b * sob + s * sos)[:, None, None] + (h.to(tl.int64) * soh)[None, :, None] + c[None, None, :]
    tl.store(o_ptr + ooff, y.to(o_ptr.dtype.element_ty), mask=m3)

@triton.jit
def _llama4_rope_kernel(q_ptr, k_ptr, qo_ptr, ko_ptr, f_ptr, T, S, HQ, HK, D,
                        sqb, sqs, sqh, skb, sks, skh,
                        sqob, sqos, sqoh, skob, skos, skoh, sfb, sfs,
                        NQB, BT: tl.constexpr, BHQ: tl.constexpr, BHK: tl.constexpr,
                        DH: tl.constexpr, CONJ: tl.constexpr):
    pid_t = tl.program_id(0)
    pid_h = tl.program_id(1)
    t0 = pid_t * BT
    if pid_h < NQB:
        _rot_tile(q_ptr, qo_ptr, f_ptr, t0, pid_h * BHQ, T, S, HQ, D, sqb, sqs, sqh,
                  sqob, sqos, sqoh, sfb, sfs, BT, BHQ, DH, CONJ)
    else:
        _rot_tile(k_ptr, ko_ptr, f_ptr, t0, (pid_h - NQB) * BHK, T, S, HK, D, skb, sks, skh,
                  skob, skos, skoh, sfb, sfs, BT, BHK, DH, CONJ)
