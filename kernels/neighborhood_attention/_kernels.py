"""Triton kernel for banded neighborhood attention (imported lazily)."""

import triton
import triton.language as tl

from .._triton_compat import apply as _compat

_compat()


@triton.jit
def _na_fwd_kernel(qkv_ptr, o_ptr, N, H, HD, s_tok, s_otok, k_off, v_off, scale,
                   KS: tl.constexpr, DIL: tl.constexpr, SHIFT: tl.constexpr,
                   BM: tl.constexpr, DP: tl.constexpr, TWO_PASS: tl.constexpr = False):
    """One program: BM queries of one (batch, head). Q/K/V are read straight out of the fused
    projection buffer [B*N, 3C] (row stride s_tok, K at column k_off, V at v_off); O is written
    into [B*N, C]. Exact fp32 math on CUDA cores (dot = multiply + row sum): K is tiny."""
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = pid_bh // H
    h = pid_bh - b * H
    i = pid_m * BM + tl.arange(0, BM)
    im = i < N
    d = tl.arange(0, DP)
    dm = d < HD
    row0 = b.to(tl.int64) * N
    col = h * HD + d
    q = tl.load(qkv_ptr + (row0 + i)[:, None] * s_tok + col[None, :], mask=im[:, None] & dm[None, :],
                other=0.0).to(tl.float32)
    R: tl.constexpr = KS // 2
    if SHIFT:
        g = i % DIL
        ip = i // DIL
        ng = (N - g + DIL - 1) // DIL
        start = tl.minimum(tl.maximum(ip - R, 0), tl.maximum(ng - KS, 0))
    if TWO_PASS:
        # pass 1: row max over the window (the K loads are independent: all in flight at once);
        # pass 2: exp, sum and P V (K rows re-read from L1/L2).
        m = tl.full((BM,), float("-inf"), tl.float32)
        for t in tl.static_range(KS):
            if SHIFT:
                j = g + DIL * (start + t)
            else:
                j = i + DIL * (t - R)
            valid = im & (j >= 0) & (j < N)
            kt = tl.load(qkv_ptr + (row0 + j)[:, None] * s_tok + k_off + col[None, :],
                         mask=valid[:, None] & dm[None, :], other=0.0).to(tl.float32)
            m = tl.maximum(m, tl.where(valid, tl.sum(q * kt, axis=1) * scale, float("-inf")))
        l = tl.zeros((BM,), tl.float32)
        acc = tl.zeros((BM, DP), tl.float32)
        for t in tl.static_range(KS):
            if SHIFT:
                j = g + DIL * (start + t)
            else:
                j = i + DIL * (t - R)
            valid = im & (j >= 0) & (j < N)
            kv_m = valid[:, None] & dm[None, :]
            rows = (row0 + j)[:, None] * s_tok
            kt = tl.load(qkv_ptr + rows + k_off + col[None, :], mask=kv_m, other=0.0).to(tl.float32)
            vt = tl.load(qkv_ptr + rows + v_off + col[None, :], mask=kv_m, other=0.0).to(tl.float32)
            p = tl.where(valid, tl.exp(tl.sum(q * kt, axis=1) * scale - m), 0.0)
            l += p
            acc += p[:, None] * vt
    else:
        m = tl.full((BM,), float("-inf"), tl.float32)
        l = tl.zeros((BM,), tl.float32)
        acc = tl.zeros((BM, DP), tl.float32)
        for t in tl.static_range(KS):
            if SHIFT:
                j = g + DIL * (start + t)
            else:
                j = i + DIL * (t - R)
            valid = im & (j >= 0) & (j < N)
            kv_m = valid[:, None] & dm[None, :]
            rows = (row0 + j)[:, None] * s_tok
            kt = tl.load(qkv_ptr + rows + k_off + col[None, :], mask=kv_m, other=0.0).to(tl.float32)
            s = tl.sum(q * kt, axis=1) * scale
            s = tl.where(valid, s, float("-inf"))
            m_new = tl.maximum(m, s)
            m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
            alpha = tl.exp(m - m_safe)
            p = tl.exp(s - m_safe)
            vt = tl.load(qkv_ptr + rows + v_off + col[None, :], mask=kv_m, other=0.0).to(tl.float32)
            acc = acc * alpha[:, None] + p[:, None] * vt
            l = l * alpha + p
            m = m_new
    l = tl.where(l == 0.0, 1.0, l)  # only out-of-range rows (masked on store)
    out = acc / l[:, None]
    tl.store(o_ptr + (row0 + i)[:, None] * s_otok + col[None, :], out.to(o_ptr.dtype.element_ty),
             mask=im[:, None] & dm[None, :])


@triton.jit
def _na_bwd_kernel(qkv_ptr, o_ptr, do_ptr, dqkv_ptr, N, H, HD, s_tok, s_otok, s_dotok, s_dtok, k_off, v_off, scale,
                   KS: tl.constexpr, DIL: tl.constexpr, SHIFT: tl.constexpr,
                   BM: tl.constexpr, DP: tl.constexpr):
    """Banded attention backward for BM queries of one (batch, head), fp32.

    Recomputes the window softmax (two passes), then for each window offset t:
    dP = dO . V_j, dS = P (dP - rowsum(dO * O)), dQ_i += scale dS K_j (owned, plain store at the end),
    dK_j += scale dS Q_i and dV_j += P dO_i (atomic adds: key j is shared by several query blocks).
    ``dqkv`` is fp32 [B*N, 3C], zero-initialised, same column layout as ``qkv``."""
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = pid_bh // H
    h = pid_bh - b * H
    i = pid_m * BM + tl.arange(0, BM)
    im = i < N
    d = tl.arange(0, DP)
    dm = d < HD
    row0 = b.to(tl.int64) * N
    col = h * HD + d
    qm = im[:, None] & dm[None, :]
    q = tl.load(qkv_ptr + (row0 + i)[:, None] * s_tok + col[None, :], mask=qm, other=0.0).to(tl.float32)
    o = tl.load(o_ptr + (row0 + i)[:, None] * s_otok + col[None, :], mask=qm, other=0.0).to(tl.float32)
    do = tl.load(do_ptr + (row0 + i)[:, None] * s_dotok + col[None, :], mask=qm, other=0.0).to(tl.float32)
    delta = tl.sum(do * o, axis=1)
    R: tl.constexpr = KS // 2
    if SHIFT:
        g = i % DIL
        ip = i // DIL
        ng = (N - g + DIL - 1) // DIL
        start = tl.minimum(tl.maximum(ip - R, 0), tl.maximum(ng - KS, 0))
    m = tl.full((BM,), float("-inf"), tl.float32)
    for t in tl.static_range(KS):
        if SHIFT:
            j = g + DIL * (start + t)
        else:
            j = i + DIL * (t - R)
        valid = im & (j >= 0) & (j < N)
        kt = tl.load(qkv_ptr + (row0 + j)[:, None] * s_tok + k_off + col[None, :],
                     mask=valid[:, None] & dm[None, :], other=0.0).to(tl.float32)
        m = tl.maximum(m, tl.where(valid, tl.sum(q * kt, axis=1) * scale, float("-inf")))
    m = tl.where(m == float("-inf"), 0.0, m)
    l = tl.zeros((BM,), tl.float32)
    for t in tl.static_range(KS):
        if SHIFT:
            j = g + DIL * (start + t)
        else:
            j = i + DIL * (t - R)
        valid = im & (j >= 0) & (j < N)
        kt = tl.load(qkv_ptr + (row0 + j)[:, None] * s_tok + k_off + col[None, :],
                     mask=valid[:, None] & dm[None, :], other=0.0).to(tl.float32)
        l += tl.where(valid, tl.exp(tl.sum(q * kt, axis=1) * scale - m), 0.0)
    l = tl.where(l == 0.0, 1.0, l)
    dq = tl.zeros((BM, DP), tl.float32)
    for t in tl.static_range(KS):
        if SHIFT:
            j = g + DIL * (start + t)
        else:
            j = i + DIL * (t - R)
        valid = im & (j >= 0) & (j < N)
        kv_m = valid[:, None] & dm[None, :]
        rows = (row0 + j)[:, None] * s_tok
        kt = tl.load(qkv_ptr + rows + k_off + col[None, :], mask=kv_m, other=0.0).to(tl.float32)
        vt = tl.load(qkv_ptr + rows + v_off + col[None, :], mask=kv_m, other=0.0).to(tl.float32)
        p = tl.where(valid, tl.exp(tl.sum(q * kt, axis=1) * scale - m) / l, 0.0)
        dp = tl.sum(do * vt, axis=1)
        ds = p * (dp - delta)
        dq += (ds * scale)[:, None] * kt
        drows = (row0 + j)[:, None] * s_dtok
        tl.atomic_add(dqkv_ptr + drows + k_off + col[None, :], (ds * scale)[:, None] * q, mask=kv_m)
        tl.atomic_add(dqkv_ptr + drows + v_off + col[None, :], p[:, None] * do, mask=kv_m)
    tl.store(dqkv_ptr + (row0 + i)[:, None] * s_dtok + col[None, :], dq, mask=qm)
