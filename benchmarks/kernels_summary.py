"""Target ratios from kernels_bench rows (issue 4 targets). ``python3 benchmarks/kernels_summary.py
out/kernels_bench.json`` re-prints the summary from a saved run."""

from __future__ import annotations

import json
import math
import sys
from collections import defaultdict


def _med(rows, fam, wl, pas, impl):
    for r in rows:
        if r["family"] == fam and r["workload"] == wl and r["pass"] == pas and r["impl"] == impl:
            s = r.get("stats") or {}
            return s.get("median")
    return None


def _e2e(rows, fam, wl, pas, impl):
    for r in rows:
        if r["family"] == fam and r["workload"] == wl and r["pass"] == pas and r["impl"] == impl:
            return r.get("e2e_ms")
    return None


def _best_variant(rows, fam, wl, pas):
    best = None
    for r in rows:
        if r["family"] == fam and r["workload"] == wl and r["pass"] == pas and r["impl"].startswith("ours["):
            m = (r.get("stats") or {}).get("median")
            if m and r.get("ok") is not False and (best is None or m < best[1]):
                best = (r["impl"], m)
    return best


def _fmt(x, d=3):
    return "-" if x is None else f"{x:.{d}f}"


def summary_text(rows) -> str:
    out = []
    wls = defaultdict(list)
    for r in rows:
        if r["workload"] not in wls[r["family"]]:
            wls[r["family"]].append(r["workload"])
    # ---- rope
    if wls.get("rope"):
        out.append("== Llama 4 RoPE (bf16), times in us; targets: fwd >=1.5x Liger and <=1.15x copy "
                   "(>=40 MB), bwd <=1.25x copy")
        out.append(f"{'workload':<52} {'MB':>7} {'ours':>8} {'liger':>8} {'hf':>8} {'compile':>8} {'copy':>8} "
                   f"{'liger/ours':>10} {'ours/copy':>9} | {'bwd ours':>8} {'bwd liger':>9} {'bwd copy':>8} {'ours/copy':>9} | {'e2e ours':>8} {'e2e liger':>9} {'e2e hf':>7} | best variant fwd / bwd")
        for wl in wls["rope"]:
            nb = next((r.get("bytes") for r in rows if r["family"] == "rope" and r["workload"] == wl and r.get("bytes")), 0)
            g = lambda p, i: _med(rows, "rope", wl, p, i)  # noqa: E731
            o, l, h, c, cp = (g("forward", i) for i in ("kernelindex-triton", "liger", "transformers", "torch-compile", "d2d-copy"))
            bo, bl, bcp = (g("backward", i) for i in ("kernelindex-triton", "liger", "d2d-copy"))
            us = lambda x: None if x is None else x * 1e3  # noqa: E731
            bv = _best_variant(rows, "rope", wl, "forward")
            bbv = _best_variant(rows, "rope", wl, "backward")
            out.append(f"{wl:<52} {nb / 1e6:7.1f} {_fmt(us(o), 1):>8} {_fmt(us(l), 1):>8} {_fmt(us(h), 1):>8} "
                       f"{_fmt(us(c), 1):>8} {_fmt(us(cp), 1):>8} {_fmt(l / o if l and o else None, 2):>10} "
                       f"{_fmt(o / cp if o and cp else None, 2):>9} | {_fmt(us(bo), 1):>8} {_fmt(us(bl), 1):>9} "
                       f"{_fmt(us(bcp), 1):>8} {_fmt(bo / bcp if bo and bcp else None, 2):>9} | "
                       f"{_fmt(us(_e2e(rows, 'rope', wl, 'forward', 'kernelindex-triton')), 1):>8} "
                       f"{_fmt(us(_e2e(rows, 'rope', wl, 'forward', 'liger')), 1):>9} "
                       f"{_fmt(us(_e2e(rows, 'rope', wl, 'forward', 'transformers')), 1):>7} | "
                       f"{bv[0] + ' ' + _fmt(bv[1] * 1e3, 1) if bv else '-'} / {bbv[0] + ' ' + _fmt(bbv[1] * 1e3, 1) if bbv else '-'}")
    # ---- NA
    if wls.get("na"):
        out.append("\n== Neighborhood attention (fp32), us; targets: >=5x Liger at seq 128, >=10x at seq 4096")
        out.append(f"{'workload':<62} {'ours':>8} {'ours-fp32':>9} {'liger':>9} {'ref':>9} {'compile':>9} {'copy':>7} {'liger/ours':>10} {'ok':>5} {'err':>9} {'e2e ours':>8} {'e2e liger':>9} | best variant")
        for wl in wls["na"]:
            g = lambda i: _med(rows, "na", wl, "forward", i)  # noqa: E731
            o, o32, l, rf, c, cp = (g(i) for i in ("kernelindex-triton", "ours[fp32-gemm]", "liger", "pytorch-reference", "torch-compile", "d2d-copy"))
            okr = next((r for r in rows if r["family"] == "na" and r["workload"] == wl and r["impl"] == "kernelindex-triton"), {})
            us = lambda x: None if x is None else x * 1e3  # noqa: E731
            bv = _best_variant(rows, "na", wl, "forward")
            out.append(f"{wl:<62} {_fmt(us(o), 1):>8} {_fmt(us(o32), 1):>9} {_fmt(us(l), 1):>9} {_fmt(us(rf), 1):>9} "
                       f"{_fmt(us(c), 1):>9} {_fmt(us(cp), 1):>7} {_fmt(l / o if l and o else None, 1):>10} "
                       f"{str(okr.get('ok')):>5} {_fmt(okr.get('max_abs_err'), 6) if isinstance(okr.get('max_abs_err'), float) else '-':>9} "
                       f"{_fmt(us(_e2e(rows, 'na', wl, 'forward', 'kernelindex-triton')), 1):>8} "
                       f"{_fmt(us(_e2e(rows, 'na', wl, 'forward', 'liger')), 1):>9} | "
                       f"{bv[0] + ' ' + _fmt(bv[1] * 1e3, 1) if bv else '-'}")
    nab = [wl for wl in wls.get("na", []) if _med(rows, "na", wl, "backward", "kernelindex-triton")]
    if nab:
        out.append("\n== Neighborhood attention backward (fp32; every implementation recomputes the forward), us")
        out.append(f"{'workload':<62} {'ours':>8} {'liger':>9} {'ref':>9} {'liger/ours':>10}")
        for wl in nab:
            g = lambda i: _med(rows, "na", wl, "backward", i)  # noqa: E731
            o, l, rf = g("kernelindex-triton"), g("liger"), g("pytorch-reference")
            us = lambda x: None if x is None else x * 1e3  # noqa: E731
            out.append(f"{wl:<62} {_fmt(us(o), 1):>8} {_fmt(us(l), 1):>9} {_fmt(us(rf), 1):>9} "
                       f"{_fmt(l / o if l and o else None, 1):>10}")
    # ---- mrope
    if wls.get("mrope"):
        out.append("\n== M-RoPE attention (bf16), us; targets: suite mean >=1.3x vs eager/SDPA; (1024,1) <= 2x arithmetic floor")
        out.append(f"{'workload':<50} {'ours':>8} {'eager':>8} {'sdpa':>8} {'hf':>8} {'liger':>8} {'compile':>8} {'floor':>8} "
                   f"{'eager/ours':>10} {'sdpa/ours':>9} {'ours/floor':>10} {'ok':>5} {'err':>8} {'e2e ours':>8} {'e2e sdpa':>8} | best variant")
        re, rs = [], []
        for wl in wls["mrope"]:
            g = lambda i: _med(rows, "mrope", wl, "forward", i)  # noqa: E731
            o, e, s, h, l, c, f = (g(i) for i in ("kernelindex-triton", "pytorch-reference", "pytorch-sdpa", "transformers", "liger", "torch-compile", "arith-floor"))
            okr = next((r for r in rows if r["family"] == "mrope" and r["workload"] == wl and r["impl"] == "kernelindex-triton"), {})
            us = lambda x: None if x is None else x * 1e3  # noqa: E731
            if o and e:
                re.append(e / o)
            if o and s:
                rs.append(s / o)
            bv = _best_variant(rows, "mrope", wl, "forward")
            out.append(f"{wl:<50} {_fmt(us(o), 1):>8} {_fmt(us(e), 1):>8} {_fmt(us(s), 1):>8} {_fmt(us(h), 1):>8} "
                       f"{_fmt(us(l), 1):>8} {_fmt(us(c), 1):>8} {_fmt(us(f), 1):>8} {_fmt(e / o if e and o else None, 2):>10} "
                       f"{_fmt(s / o if s and o else None, 2):>9} {_fmt(o / f if o and f else None, 2):>10} {str(okr.get('ok')):>5} "
                       f"{_fmt(okr.get('max_abs_err'), 4) if isinstance(okr.get('max_abs_err'), float) else '-':>8} "
                       f"{_fmt(us(_e2e(rows, 'mrope', wl, 'forward', 'kernelindex-triton')), 1):>8} "
                       f"{_fmt(us(_e2e(rows, 'mrope', wl, 'forward', 'pytorch-sdpa')), 1):>8} | "
                       f"{bv[0] + ' ' + _fmt(bv[1] * 1e3, 1) if bv else '-'}")
        if re:
            gm = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))  # noqa: E731
            out.append(f"suite: mean speedup vs eager {sum(re) / len(re):.2f}x (geomean {gm(re):.2f}x, n={len(re)}); "
                       f"vs SDPA {sum(rs) / max(1, len(rs)):.2f}x (geomean {gm(rs) if rs else float('nan'):.2f}x, n={len(rs)})")
    cal = [r for r in rows if r["family"] == "calib"]
    for r in cal:
        out.append(f"calib {r['workload']}: median {r['stats']['median'] * 1e3:.1f} us "
                   + (f"{r['TFLOPs']:.1f} TFLOP/s" if r.get("TFLOPs") else f"{r.get('GBps', 0):.0f} GB/s"))
    errs = [r for r in rows if r.get("error")]
    bad = [r for r in rows if r.get("ok") is False]
    out.append(f"\nerrors: {len(errs)}; failed checks: {len(bad)}")
    for r in errs[:15] + bad[:15]:
        out.append(f"  {r['family']} {r['workload']} {r['pass']} {r['impl']}: {r.get('error') or ('max_abs_err=' + str(r.get('max_abs_err')))}"
                   + (f" (valid rows only: {r['max_abs_err_valid_rows']})" if r.get("max_abs_err_valid_rows") is not None else ""))
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    data = json.load(open(sys.argv[1]))
    print(summary_text(data["rows"]))
