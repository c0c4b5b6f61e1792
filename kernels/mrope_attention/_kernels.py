"""Triton kernels for M-RoPE attention (imported lazily)."""

import triton
import triton.language as tl

from .._triton_compat import apply as _compat

_compat()


@triton.jit
def _mrope_qk_inplace_kernel(qkv_ptr, cos_ptr, sin_ptr, T, N, NHT, s_tok,
                             sc0, scb, scn, HD,
                             SEC0: tl.constexpr, SEC1: tl.constexpr, HALF: tl.constexpr,
                             BT: tl.constexpr, BH: tl.constexpr):
    """Rotate the first NHT heads (the H query heads then the Hkv key heads) of every token row of
    the fused projection buffer, in place (our own intermediate). Half-split pairs (c, c+HALF);
    channel c takes stream 0 if c mod HALF < SEC0, 1 if < SEC1, else 2. fp32 math, one rounding."""
    t = tl.program_id(0) * BT + tl.arange(0, BT)
    tm = t < T
    t64 = t.to(tl.int64)
    b = t64 // N
    n = t64 - b * N
    h = tl.program_id(1) * BH + tl.arange(0, BH)
    hm = h < NHT
    c = tl.arange(0, HALF)
    stream = tl.where(c < SEC0, 0, tl.where(c < SEC1, 1, 2)).to(tl.int64)
    cbase = (b * scb + n * scn)[:, None] + (stream * sc0 + c)[None, :]
    m2 = tm[:, None]
    cos_lo = tl.load(cos_ptr + cbase, mask=m2, other=0.0).to(tl.float32)[:, None, :]
    cos_hi = tl.load(cos_ptr + cbase + HALF, mask=m2, other=0.0).to(tl.float32)[:, None, :]
    sin_lo = tl.load(sin_ptr + cbase, mask=m2, other=0.0).to(tl.float32)[:, None, :]
    sin_hi = tl.load(sin_ptr + cbase + HALF, mask=m2, other=0.0).to(tl.float32)[:, None, :]
    off = (t64 * s_tok)[:, None, None] + (h * HD)[None, :, None] + c[None, None, :]
    m3 = tm[:, None, None] & hm[None, :, None]
    x_lo = tl.load(qkv_ptr + off, mask=m3, other=0.0).to(tl.float32)
    x_hi = tl.load(qkv_ptr + off + HALF, mask=m3, other=0.0).to(tl.float32)
    y_lo = x_lo * cos_lo - x_hi * sin_lo
    y_hi = x_hi * cos_hi + x_lo * sin_hi
    tl.store(qkv_ptr + off, y_lo.to(qkv_ptr.dtype.element_ty), mask=m3)
    tl.store(qkv_ptr + off + HALF, y_hi.to(qkv_ptr.dtype.element_ty), mask=m3)


@triton.jit
def _mask_range_kernel(mask_ptr, lohi_ptr, N, smb, smi, smj, NMB, NNB, thr,
                       BM: tl.constexpr, BN: tl.constexpr, R: tl.constexpr):
    """For one (batch, query block): the first and last KV tile (of BN keys) holding any key above
    ``thr`` (= not blocked). If some query row of the block has no such key at all, the block must
    visit every tile (its softmax is uniform over all N keys), so the range becomes [0, NNB-1]."""
    mb = tl.program_id(0)
    b = tl.program_id(1)
    i = mb * BM + tl.arange(0, BM)
    im = i < N
    row_max = tl.full((BM,), float("-inf"), tl.float32)
    lo = NNB
    hi = -1
    base = mask_ptr + b.to(tl.int64) * smb + i.to(tl.int64)[:, None] * smi
    for nb0 in range(0, NNB, R):
        j = nb0 * BN + tl.arange(0, R * BN)
        jm = j < N
        m2 = im[:, None] & jm[None, :]
        raw = tl.load(base + j[None, :] * smj, mask=m2, other=0.0)
        x = tl.where(m2, raw.to(tl.float32), float("-inf"))
        row_max = tl.maximum(row_max, tl.max(x, axis=1))
        tmax = tl.max(tl.max(tl.reshape(x, (BM, R, BN)), axis=2), axis=0)  # [R]
        idx = nb0 + tl.arange(0, R)
        hit = tmax > thr
        lo = tl.minimum(lo, tl.min(tl.where(hit, idx, NNB), axis=0))
        hi = tl.maximum(hi, tl.max(tl.where(hit, idx, -1), axis=0))
    worst = tl.min(tl.where(im, row_max, float("inf")), axis=0)
    full = (worst <= thr) | (hi < lo)
    lo = tl.where(full, 0, lo)
    hi = tl.where(full, NNB - 1, hi)
    tl.store(lohi_ptr + (b * NMB + mb) * 2, lo)
    tl.store(lohi_ptr + (b * NMB + mb) * 2 + 1, hi)


@triton.jit
def _attn_fwd_kernel(qkv_ptr, mask_ptr, lohi_ptr, o_ptr, N, s_tok, s_otok, k_col0, v_col0,
                     smb, smi, smj, sm_scale, NMB, NNB,
                     GROUP: tl.constexpr, HD: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                     HAS_MASK: tl.constexpr, USE_RANGE: tl.constexpr, MASK_PADDED: tl.constexpr = False):
    """Flash attention over the fused (already rotated) projection buffer with an arbitrary
    additive mask and GQA. Programs are ordered head-fastest so the heads sharing a KV group and
    a mask tile run together (L2 reuse). The running max includes masked scores (finfo.min, not
    -inf), so a fully masked row gives the uniform average like the reference.

    MASK_PADDED: the mask is a padded copy (triton_impl.forward), its rows padded past the last key tile and its row
    stride a multiple of 64, so its tiles load without a column check (whose non-uniform bounds
    would turn each vector load into scalar loads); the padding's values never count, since
    scores past N are set to -inf below."""
    h = tl.program_id(0)
    mb = tl.program_id(1)
    b = tl.program_id(2)
    g = h // GROUP
    i = mb * BM + tl.arange(0, BM)
    im = i < N
    d = tl.arange(0, HD)
    row0 = b.to(tl.int64) * N
    q = tl.load(qkv_ptr + (row0 + i)[:, None] * s_tok + (h * HD + d)[None, :], mask=im[:, None], other=0.0)
    if USE_RANGE:
        lo = tl.load(lohi_ptr + (b * NMB + mb) * 2)
        hi = tl.load(lohi_ptr + (b * NMB + mb) * 2 + 1)
    else:
        lo = 0
        hi = NNB - 1
    LOG2E: tl.constexpr = 1.4426950408889634
    m_i = tl.full((BM,), float("-inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, HD), tl.float32)
    kbase = qkv_ptr + k_col0 + g * HD + d[None, :]
    vbase = qkv_ptr + v_col0 + g * HD + d[None, :]
    mbase = mask_ptr + b.to(tl.int64) * smb + i.to(tl.int64)[:, None] * smi
    for start in range(lo * BN, (hi + 1) * BN, BN):
        j = start + tl.arange(0, BN)
        jm = j < N
        rows = (row0 + j)[:, None] * s_tok
        k = tl.load(kbase + rows, mask=jm[:, None], other=0.0)
        z = tl.dot(q, tl.trans(k)) * sm_scale
        if HAS_MASK:
            if MASK_PADDED:
                z += tl.load(mbase + j[None, :], mask=im[:, None], other=0.0).to(tl.float32)
            else:
                z += tl.load(mbase + j[None, :] * smj, mask=im[:, None] & jm[None, :], other=0.0).to(tl.float32)
        z = tl.where(jm[None, :], z, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(z, axis=1))
        alpha = tl.math.exp2((m_i - m_new) * LOG2E)
        p = tl.math.exp2((z - m_new[:, None]) * LOG2E)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(vbase + rows, mask=jm[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    l_i = tl.where(l_i == 0.0, 1.0, l_i)
    out = acc / l_i[:, None]
    tl.store(o_ptr + (row0 + i)[:, None] * s_otok + (h * HD + d)[None, :], out.to(o_ptr.dtype.element_ty),
             mask=im[:, None])
