"""Markdown tables (median [p20-p80], microseconds) from a kernels_bench JSON or CSV, for
benchmarks/RESULTS.md. ``python3 benchmarks/kernels_report.py benchmarks/kernels_h200_results.csv``"""

from __future__ import annotations

import csv
import json
import sys


def load(path):
    if path.endswith(".json"):
        rows = json.load(open(path))["rows"]
        for r in rows:
            s = r.get("stats") or {}
            for k in ("median", "p20", "p80"):
                r[f"{k}_ms"] = s.get(k)
        return rows
    out = []
    for r in csv.DictReader(open(path)):
        for k in ("median_ms", "p20_ms", "p80_ms", "e2e_ms", "bytes"):
            r[k] = float(r[k]) if r.get(k) not in (None, "") else None
        out.append(r)
    return out


def cell(rows, fam, wl, pas, impl, spread=True):
    for r in rows:
        if r["family"] == fam and r["workload"] == wl and r["pass"] == pas and r["impl"] == impl and r.get("median_ms"):
            m = r["median_ms"] * 1e3
            if spread and r.get("p20_ms"):
                return f"{m:.1f} [{r['p20_ms'] * 1e3:.1f}-{r['p80_ms'] * 1e3:.1f}]", m
            return f"{m:.1f}", m
    return "-", None


def e2e(rows, fam, wl, pas, impl):
    for r in rows:
        if r["family"] == fam and r["workload"] == wl and r["pass"] == pas and r["impl"] == impl and r.get("e2e_ms"):
            return f"{r['e2e_ms'] * 1e3:.0f}"
    return "-"


def workloads(rows, fam):
    seen = []
    for r in rows:
        if r["family"] == fam and r["workload"] not in seen:
            seen.append(r["workload"])
    return seen


def short(wl):
    return wl.replace("hidden=", "C=").replace("kernel_size=", "K=").replace("dilation=", "D=").replace(
        "q_heads=32,kv_heads=8", "").replace(",heads=28,kv_heads=4", "").replace("C=3584", "").strip(",").replace(",,", ",")


def main(path):
    rows = load(path)
    out = []
    out.append("| workload (bf16) | MB | ours fwd | Liger fwd | HF fwd | compile fwd | copy | Liger/ours | ours/copy | ours bwd | Liger bwd | bwd copy | ours/copy bwd | e2e ours / Liger / HF |")
    out.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for wl in workloads(rows, "rope"):
        mb = next((r["bytes"] for r in rows if r["family"] == "rope" and r["workload"] == wl and r.get("bytes")), 0)
        o, om = cell(rows, "rope", wl, "forward", "kernelindex-triton")
        lg, lm = cell(rows, "rope", wl, "forward", "liger")
        hf, _ = cell(rows, "rope", wl, "forward", "transformers", False)
        tc, _ = cell(rows, "rope", wl, "forward", "torch-compile", False)
        cp, cm = cell(rows, "rope", wl, "forward", "d2d-copy", False)
        bo, bom = cell(rows, "rope", wl, "backward", "kernelindex-triton")
        bl, _ = cell(rows, "rope", wl, "backward", "liger", False)
        bc, bcm = cell(rows, "rope", wl, "backward", "d2d-copy", False)
        out.append(f"| {short(wl)} | {float(mb) / 1e6:.1f} | {o} | {lg} | {hf} | {tc} | {cp} | {lm / om:.2f} | {om / cm:.2f} | "
                   f"{bo} | {bl} | {bc} | {bom / bcm:.2f} | {e2e(rows, 'rope', wl, 'forward', 'kernelindex-triton')} / "
                   f"{e2e(rows, 'rope', wl, 'forward', 'liger')} / {e2e(rows, 'rope', wl, 'forward', 'transformers')} |")
    out.append("")
    out.append("| workload (fp32) | ours | ours, fp32 GEMMs | Liger module | eager ref | compile | copy | Liger/ours | e2e ours / Liger |")
    out.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    for wl in workloads(rows, "na"):
        o, om = cell(rows, "na", wl, "forward", "kernelindex-triton")
        o32, _ = cell(rows, "na", wl, "forward", "ours[fp32-gemm]", False)
        lg, lm = cell(rows, "na", wl, "forward", "liger")
        rf, _ = cell(rows, "na", wl, "forward", "pytorch-reference", False)
        tc, _ = cell(rows, "na", wl, "forward", "torch-compile", False)
        cp, _ = cell(rows, "na", wl, "forward", "d2d-copy", False)
        ratio = f"{lm / om:.1f}" if lm and om else "-"
        out.append(f"| {short(wl)} | {o} | {o32} | {lg} | {rf} | {tc} | {cp} | {ratio} | "
                   f"{e2e(rows, 'na', wl, 'forward', 'kernelindex-triton')} / {e2e(rows, 'na', wl, 'forward', 'liger')} |")
    out.append("")
    out.append("| (seq, batch) | ours | eager ref | SDPA ref | HF (SDPA) | Liger M-RoPE + SDPA | compile | floor | eager/ours | SDPA/ours | ours/floor | e2e ours / SDPA |")
    out.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for wl in workloads(rows, "mrope"):
        o, om = cell(rows, "mrope", wl, "forward", "kernelindex-triton")
        ea, em = cell(rows, "mrope", wl, "forward", "pytorch-reference", False)
        sd, sm = cell(rows, "mrope", wl, "forward", "pytorch-sdpa", False)
        hf, _ = cell(rows, "mrope", wl, "forward", "transformers", False)
        lg, _ = cell(rows, "mrope", wl, "forward", "liger", False)
        tc, _ = cell(rows, "mrope", wl, "forward", "torch-compile", False)
        fl, fm = cell(rows, "mrope", wl, "forward", "arith-floor", False)
        kv = dict(x.split("=") for x in wl.split(","))
        out.append(f"| ({kv['seq']}, {kv['batch']}) | {o} | {ea} | {sd} | {hf} | {lg} | {tc} | {fl} | {em / om:.2f} | "
                   f"{sm / om:.2f} | {om / fm:.2f} | {e2e(rows, 'mrope', wl, 'forward', 'kernelindex-triton')} / "
                   f"{e2e(rows, 'mrope', wl, 'forward', 'pytorch-sdpa')} |")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
