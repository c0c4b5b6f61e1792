"""Side-by-side GPU benchmark of the bundled kernels (issue 4).

Runs, in one process, for each family and published workload: ours (``kernelindex-triton``),
Liger-Kernel, Hugging Face Transformers (where it exists), ``torch.compile`` of the reference, the
eager reference (and SDPA for the M-RoPE attention), and a device-to-device copy of the same bytes.

Copy floor: a flat ``uint8`` buffer of ``bytes_moved/2`` bytes copied with
``torch.empty_like(src).copy_(src)`` semantics (destination pre-allocated; ``dst.copy_(src)``), so
the copy reads ``bytes_moved/2`` and writes ``bytes_moved/2``: the same total traffic as reading the
family's inputs once and writing its outputs once.

Timing: harness.timing (CUDA events, L2 flushed by zeroing a 256 MiB buffer before every sample,
warm-up first); median with p20/p80. Implementations that write their inputs (Liger RoPE) get
fresh clones before every sample, outside the timed region.

Usage (on the GPU machine):
    python3 benchmarks/kernels_bench.py --out $OUT [--families rope,na,mrope] [--quick] [--budget-s 500]
Writes kernels_bench.json / .csv / .txt under --out and prints the table.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import platform
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from harness.timing import host_timing, make_timer, summarize, time_fn  # noqa: E402

ROWS: list[dict] = []
T0 = time.time()
ARGS = None
TIMER = None
DEV = "cuda"


def sync():
    if DEV == "cuda":
        torch.cuda.synchronize()


def smoke_workloads(fam):
    """--smoke: tiny shapes on the CPU (Triton interpreter) to exercise this script's logic."""
    if fam == "rope":
        return [{"batch": 1, "seq": 8, "hidden": 64, "q_heads": 4, "kv_heads": 2}]
    if fam == "na":
        return [{"batch": 1, "seq": 128, "hidden": 32, "heads": 2, "kernel_size": 7, "dilation": 2}]
    return [{"batch": 2, "seq": 128, "hidden": 64, "heads": 4, "kv_heads": 2}]


def log(*a):
    print(f"[{time.time() - T0:6.1f}s]", *a, flush=True)


def over_budget(frac=1.0):
    return (time.time() - T0) > ARGS.budget_s * frac


def env_info():
    info = {"python": platform.python_version(), "torch": torch.__version__}
    try:
        import triton

        info["triton"] = triton.__version__
    except Exception:
        pass
    for mod in ("transformers", "liger_kernel"):
        try:
            m = __import__(mod)
            info[mod] = getattr(m, "__version__", "?")
        except Exception as e:  # noqa: BLE001
            info[mod] = f"missing ({type(e).__name__})"
    try:
        from importlib.metadata import version

        info["liger_kernel"] = version("liger-kernel")
    except Exception:
        pass
    try:
        info["nvidia-smi"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as e:  # noqa: BLE001
        info["nvidia-smi"] = repr(e)
    p = torch.cuda.get_device_properties(0)
    info["device"] = p.name
    info["sms"] = p.multi_processor_count
    info["l2_bytes"] = getattr(p, "L2_cache_size", None)
    return info


def measure(fn, setup=None, reps=None):
    samples = time_fn(fn, reps=reps, warmup=3, timer=TIMER, setup=setup, hide_host_us=ARGS.hide_host_us,
                      target_ms=ARGS.target_ms, min_reps=ARGS.min_reps, max_reps=ARGS.max_reps)
    return summarize(samples)


def record(**kw):
    ROWS.append(kw)
    s = kw.get("stats") or {}
    log(f"{kw['family']:<8} {kw['workload']:<34} {kw['pass']:<8} {kw['impl']:<34} "
        f"{s.get('median', float('nan')) * 1e3:10.2f} us  ok={kw.get('ok')} err={kw.get('max_abs_err')}"
        + (f"  e2e={kw['e2e_ms'] * 1e3:.1f}us host={kw['host_ms'] * 1e3:.1f}us" if kw.get("e2e_ms") else "")
        + (f"  {kw.get('error')}" if kw.get("error") else ""))


def copy_floor(fam, wl, pas, nbytes):
    if ARGS.impls:  # a run of chosen implementations only
        return
    half = max(1, nbytes // 2)
    src = torch.empty(half, dtype=torch.uint8, device=DEV)
    dst = torch.empty_like(src)
    st = measure(lambda: dst.copy_(src))
    record(family=fam, workload=wl, **{"pass": pas}, impl="d2d-copy", stats=st, bytes=nbytes,
           note=f"uint8 buffer of {half} bytes copied (read {half} + write {half})")
    del src, dst
    return st


def check(out, ref, dtype, slug):
    from kernels import tolerances as TOL

    ok, mae, mre = True, 0.0, 0.0
    for name, r in ref.items():
        o, a, b = TOL.check_close(out[name], r, dtype, slug)
        ok = ok and o
        mae = max(mae, a) if not math.isnan(a) else float("nan")
        mre = max(mre, b) if not math.isnan(b) else float("nan")
    return ok, mae, mre


def run_impl(fam, slug, wl, pas, name, fn, inputs, params, ref, dtype, clone_inputs=False, nbytes=None,
             flops=None, extra=(), valid_rows=None):
    if ARGS.impls and name not in ARGS.impls.split(","):
        return
    try:
        if clone_inputs:
            pristine = {k: v.clone() for k, v in inputs.items()}
            box = {}

            def setup():
                box["inp"] = {k: v.clone() for k, v in pristine.items()}

            def call():
                return fn(box["inp"], *extra, **params)
            if extra:  # backward of an in-place peer: clone the upstream gradients instead
                gpr = {k: v.clone() for k, v in extra[0].items()}

                def setup():  # noqa: F811
                    box["g"] = {k: v.clone() for k, v in gpr.items()}

                def call():  # noqa: F811
                    return fn(inputs, box["g"], **params)
        else:
            setup = None

            def call():
                return fn(inputs, *extra, **params)
        if setup:
            setup()
        out = call()
        if setup:
            setup()
        out = call()  # the second call takes the cached fast-launch path of ours: check that one
        sync()
        ok, mae, mre = check(out, ref, dtype, slug) if ref is not None else (None, None, None)
        extra_info = {}
        if valid_rows is not None and ref is not None:
            # error restricted to query rows with at least one unblocked key
            ov, rv = out["out"][valid_rows], ref["out"][valid_rows]
            extra_info["max_abs_err_valid_rows"] = float((ov.float() - rv.float()).abs().max())
        del out
        st = measure(call, setup=setup)
        if not name.startswith("ours["):
            if setup is not None:
                setup()  # in-place peers keep rotating the same clone here: fine for timing
            extra_info.update(host_timing(call, n=10 if st["median"] > 1 else 30, backend="cpu" if DEV == "cpu" else "cuda"))
        row = dict(family=fam, workload=wl, **{"pass": pas}, impl=name, stats=st, ok=ok, max_abs_err=mae,
                   max_rel_err=mre, bytes=nbytes, flops=flops, **extra_info)
        if nbytes:
            row["GBps"] = nbytes / (st["median"] * 1e-3) / 1e9
        if flops:
            row["TFLOPs"] = flops / (st["median"] * 1e-3) / 1e12
        record(**row)
        return st
    except Exception as e:  # noqa: BLE001
        record(family=fam, workload=wl, **{"pass": pas}, impl=name, stats={}, error=f"{type(e).__name__}: {e}"[:300])
        if ARGS.verbose:
            traceback.print_exc()
        return None


def host_only(fam, wl, pas, name, call):
    """Host-inclusive timing of ours with Triton's normal launch path (fast launch off)."""
    if ARGS.impls:
        return
    from kernels import _launch

    try:
        _launch.set_enabled(False)
        h = host_timing(call, n=30, backend="cpu" if DEV == "cpu" else "cuda")
    finally:
        _launch.set_enabled(True)
    record(family=fam, workload=wl, **{"pass": pas}, impl=name, stats={}, **h,
           note="host timing only: Triton's own launch path (KERNELINDEX fast launch disabled)")


def wl_name(axes):
    return ",".join(f"{k}={v}" for k, v in axes.items())


# ----------------------------------------------------------------------------------------------------
def bench_rope(F):
    from kernels.llama4_rope import reference as R, triton_impl as T

    slug = F.slug
    dtype = torch.bfloat16
    wls = F.workloads if not ARGS.quick else F.workloads[:2] + F.workloads[-2:]
    wls = smoke_workloads("rope") if ARGS.smoke else wls
    variants = [(be, nw) for be in (4096, 8192, 16384) for nw in (4, 8)]
    tune = ({"seq": 2048, "hidden": 8192}, {"seq": 16384, "hidden": 8192}, {"seq": 2048, "hidden": 512})
    for axes in wls:
        if over_budget(0.3):
            log("budget: skipping rope", axes)
            continue
        wl = wl_name(axes)
        inputs = F.make_inputs(axes, dtype, DEV, 0)
        nb = F.bytes_moved(axes, dtype)
        fl = F.flops(axes)
        ref = R.reference(inputs)
        copy_floor("rope", wl, "forward", nb)
        for name, fn in F.implementations.items():
            if name == "torch-compile" and (ARGS.no_compile or ARGS.smoke):
                continue
            run_impl("rope", slug, wl, "forward", name, fn, inputs, {}, ref, dtype,
                     clone_inputs=name in F.mutates_inputs, nbytes=nb, flops=fl)
        host_only("rope", wl, "forward", "ours[triton-launch]", lambda: T.forward(inputs))
        tuned = any(all(axes.get(k) == v for k, v in t.items()) for t in tune)
        if ARGS.variants and tuned and not over_budget(0.2):
            for be, nw in variants:
                run_impl("rope", slug, wl, "forward", f"ours[be={be},nw={nw}]",
                         lambda i, be=be, nw=nw: T.forward(i, block_elems=be, num_warps=nw), inputs, {}, ref,
                         dtype, nbytes=nb, flops=fl)
        g = F.make_grad_outputs(inputs, axes, dtype, 1)
        refb = R.reference_backward(inputs, g)
        copy_floor("rope", wl, "backward", nb)
        for name, fn in F.backward_implementations.items():
            if name == "torch-compile" and (ARGS.no_compile or ARGS.smoke):
                continue
            run_impl("rope", slug, wl, "backward", name, fn, inputs, {}, refb, dtype,
                     clone_inputs=name in F.mutates_inputs, nbytes=nb, flops=fl, extra=(g,))
        if ARGS.variants and tuned and not over_budget(0.2):
            for be, nw in variants[2:]:
                run_impl("rope", slug, wl, "backward", f"ours[be={be},nw={nw}]",
                         lambda i, gg, be=be, nw=nw: T.backward(i, gg, block_elems=be, num_warps=nw), inputs, {},
                         refb, dtype, nbytes=nb, flops=fl, extra=(g,))
        # full = forward + backward of ours
        run_impl("rope", slug, wl, "full", "kernelindex-triton",
                 lambda i, gg: {**T.forward(i), **T.backward(i, gg)}, inputs, {}, {**ref, **refb}, dtype,
                 nbytes=2 * nb, flops=2 * fl, extra=(g,))
        del inputs, ref, refb, g
        if DEV == "cuda":
            torch.cuda.empty_cache()


def na_breakdown(wl, inputs, params):
    """Time the three launches of ours separately (TF32 GEMMs as in the default path)."""
    if ARGS.impls:
        return
    from kernels.neighborhood_attention import triton_impl as T

    x = inputs["x"]
    B, N, C = x.shape
    H = params["num_heads"]
    wt, bias = T.fused_qkv_weights(inputs)
    x2 = x.reshape(B * N, C)
    with T._TF32(True):
        qkv = torch.addmm(bias, x2, wt)
        o = T.banded_attention(qkv, B, N, H, C // H, C, params["kernel_size"], params["dilation"],
                               params["boundary"], (C // H) ** -0.5)
        parts = {
            "part:qkv-addmm-tf32": lambda: torch.addmm(bias, x2, wt),
            "part:banded-attention": lambda: T.banded_attention(qkv, B, N, H, C // H, C, params["kernel_size"],
                                                                params["dilation"], params["boundary"],
                                                                (C // H) ** -0.5),
            "part:out-addmm-tf32": lambda: torch.addmm(inputs["bo"], o, inputs["wo"].t()),
        }
        for name, fn in parts.items():
            record(family="na", workload=wl, **{"pass": "forward"}, impl=name, stats=measure(fn))


def bench_na(F):
    from kernels.neighborhood_attention import reference as R, triton_impl as T

    slug = F.slug
    dtype = torch.float32
    wls = F.workloads
    if ARGS.quick:
        wls = [w for w in wls if w["seq"] in (128, 4096)]
    wls = smoke_workloads("na") if ARGS.smoke else wls
    if ARGS.na_seqs:
        keep = {int(x) for x in ARGS.na_seqs.split(",")}
        wls = [w for w in wls if w["seq"] in keep]
    if ARGS.na_configs:
        from kernels.neighborhood_attention import LIGER_CONFIGS

        cfgs = [LIGER_CONFIGS[int(x)] for x in ARGS.na_configs.split(",")]
        wls = [w for w in wls if (w["batch"], w["hidden"], w["heads"], w["kernel_size"], w["dilation"]) in cfgs]
    for axes in wls:
        if over_budget(0.62):
            log("budget: skipping na", axes)
            continue
        wl = wl_name(axes)
        inputs = F.make_inputs(axes, dtype, DEV, 0)
        params = F.params_from_axes(axes)
        nb = F.bytes_moved(axes, dtype)
        fl = F.flops(axes)
        ref = R.reference(inputs, **params)
        copy_floor("na", wl, "forward", nb)
        for name, fn in F.implementations.items():
            if name == "torch-compile" and (ARGS.no_compile or ARGS.smoke or axes["seq"] not in (128, 1024, 4096)
                                            or axes["hidden"] != 512 or axes["dilation"] != 1):
                continue
            run_impl("na", slug, wl, "forward", name, fn, inputs, params, ref, dtype, nbytes=nb, flops=fl)
        host_only("na", wl, "forward", "ours[triton-launch]", lambda: T.forward(inputs, **params))
        run_impl("na", slug, wl, "forward", "ours[fp32-gemm]", lambda i, **p: T.forward(i, tf32=False, **p),
                 inputs, params, ref, dtype, nbytes=nb, flops=fl)
        if ARGS.variants and not over_budget(0.5) and (ARGS.smoke or axes["seq"] in (128, 4096)):
            for bm, nw, tp in ((16, 2, False), (32, 4, False), (8, 1, False), (16, 4, True), (32, 4, True),
                               (16, 2, True)):
                run_impl("na", slug, wl, "forward", f"ours[bm={bm},nw={nw},two_pass={int(tp)}]",
                         lambda i, bm=bm, nw=nw, tp=tp, **p: T.forward(i, block_m=bm, num_warps=nw, two_pass=tp, **p),
                         inputs, params, ref, dtype, nbytes=nb, flops=fl)
            na_breakdown(wl, inputs, params)
        if "backward" in F.passes and axes["seq"] in (128, 1024, 4096) and not over_budget(0.55):
            g = F.make_grad_outputs(inputs, axes, dtype, 1)
            refb = R.reference_backward(inputs, g, **params)
            for name, fn in F.backward_implementations.items():
                run_impl("na", slug, wl, "backward", name, fn, inputs, params, refb, dtype, nbytes=nb, extra=(g,))
            del refb, g
        # NATTEN boundary (ours only, vs the reference with the same rule)
        if axes["seq"] in (128, 4096):
            p2 = dict(params, boundary="shift")
            ref2 = R.reference(inputs, **p2)
            run_impl("na", slug, wl + ",shift=1", "forward", "kernelindex-triton", T.forward, inputs, p2, ref2,
                     dtype, nbytes=nb, flops=fl)
        del inputs, ref
        if DEV == "cuda":
            torch.cuda.empty_cache()


def mrope_breakdown(wl, inputs, params):
    """Time ours' GEMMs and the attention stages separately (same launches as the default path)."""
    if ARGS.impls:
        return
    from kernels.mrope_attention import triton_impl as T

    x = inputs["x"]
    B, N, C = x.shape
    wt, bias = T.fused_qkv_weights(inputs)
    x2 = x.reshape(B * N, C)
    qkv = torch.addmm(bias, x2, wt)
    o = torch.empty((B * N, C), dtype=x.dtype, device=x.device)
    parts = {
        "part:qkv-addmm": lambda: torch.addmm(bias, x2, wt),
        "part:o_proj-mm": lambda: torch.mm(o, inputs["wo"].t()),
    }
    for name, fn in parts.items():
        if fn is not None:
            record(family="mrope", workload=wl, **{"pass": "forward"}, impl=name, stats=measure(fn))
    del qkv


def bench_mrope(F, mm_tflops):
    from kernels.mrope_attention import reference as R, triton_impl as T

    slug = F.slug
    dtype = torch.bfloat16
    wls = F.workloads
    if ARGS.quick:
        wls = [w for w in wls if (w["seq"], w["batch"]) in ((128, 1), (1024, 1), (4096, 1), (256, 64))]
    wls = smoke_workloads("mrope") if ARGS.smoke else wls
    variants = [(128, 128, 8, 2), (64, 64, 4, 3), (128, 64, 8, 4), (64, 32, 4, 3)]
    for axes in wls:
        if over_budget(0.97):
            log("budget: skipping mrope", axes)
            continue
        wl = wl_name(axes)
        inputs = F.make_inputs(axes, dtype, DEV, 0)
        params = F.params_from_axes(axes)
        nb = F.bytes_moved(axes, dtype)
        fl = F.flops(axes)
        ref = R.reference(inputs, **params)
        valid = (inputs["mask"][:, 0] > -1e30).any(-1)  # [B, N] rows with an unblocked key
        for name, fn in F.implementations.items():
            if name == "torch-compile" and (ARGS.no_compile or ARGS.smoke or over_budget(0.9)):
                continue
            run_impl("mrope", slug, wl, "forward", name, fn, inputs, params, ref, dtype, nbytes=nb, flops=fl,
                     valid_rows=valid)
        host_only("mrope", wl, "forward", "ours[triton-launch]", lambda: T.forward(inputs, **params))
        run_impl("mrope", slug, wl, "forward", "ours[no-range]", lambda i, **p: T.forward(i, use_range=False, **p),
                 inputs, params, ref, dtype, nbytes=nb, flops=fl)
        if ARGS.variants and not over_budget(0.85) and (ARGS.smoke or (axes["seq"], axes["batch"]) in (
                (128, 1), (256, 64), (1024, 1), (4096, 1))):
            for bm, bn, nw, ns in variants:
                run_impl("mrope", slug, wl, "forward", f"ours[bm={bm},bn={bn},nw={nw},ns={ns}]",
                         lambda i, bm=bm, bn=bn, nw=nw, ns=ns, **p: T.forward(i, block_m=bm, block_n=bn, num_warps=nw,
                                                                              num_stages=ns, **p),
                         inputs, params, ref, dtype, nbytes=nb, flops=fl)
            mrope_breakdown(wl, inputs, params)
        ROWS.append(dict(family="mrope", workload=wl, **{"pass": "forward"}, impl="arith-floor",
                         stats={"median": fl / (mm_tflops * 1e12) * 1e3}, flops=fl,
                         note=f"dense FLOPs / measured bf16 matmul rate {mm_tflops:.1f} TFLOP/s"))
        del inputs, ref
        if DEV == "cuda":
            torch.cuda.empty_cache()


def matmul_rate():
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    st = measure(lambda: a @ b, reps=20)
    tf = 2 * 8192 ** 3 / (st["median"] * 1e-3) / 1e12
    ROWS.append(dict(family="calib", workload="8192^3 bf16 matmul", **{"pass": "forward"}, impl="torch.mm",
                     stats=st, TFLOPs=tf))
    src = torch.empty(2 ** 32, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    st2 = measure(lambda: dst.copy_(src), reps=10)
    bw = 2 * 2 ** 32 / (st2["median"] * 1e-3) / 1e9
    ROWS.append(dict(family="calib", workload="4 GiB d2d copy", **{"pass": "forward"}, impl="copy_", stats=st2,
                     GBps=bw))
    log(f"bf16 matmul 8192^3: {tf:.1f} TFLOP/s; d2d copy 4 GiB: {bw:.0f} GB/s (read+write)")
    del a, b, src, dst
    torch.cuda.empty_cache()
    return tf


def table():
    lines = []
    hdr = f"{'family':<6} {'workload':<58} {'pass':<8} {'impl':<34} {'median_us':>10} {'p20':>9} {'p80':>9} {'n':>4} {'ok':>5} {'max_abs':>9}"
    lines.append(hdr)
    for r in ROWS:
        s = r.get("stats") or {}
        f = lambda k: f"{s[k] * 1e3:9.1f}" if k in s else f"{'':>9}"  # noqa: E731
        lines.append(f"{r['family']:<6} {r['workload'][:58]:<58} {r['pass']:<8} {r['impl'][:34]:<34} "
                     f"{(s.get('median', float('nan')) * 1e3):10.1f} {f('p20')} {f('p80')} {s.get('count', ''):>4} "
                     f"{str(r.get('ok', '')):>5} {r.get('max_abs_err') if r.get('max_abs_err') is not None else '':>9}"
                     + (f" ERR {r['error']}" if r.get("error") else ""))
    return "\n".join(lines)


def main():
    global ARGS, TIMER
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="bench-out")
    ap.add_argument("--families", default="rope,na,mrope")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--variants", action="store_true")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--impls", default="", help="only these implementations (comma list, e.g. torch-compile)")
    ap.add_argument("--budget-s", type=float, default=480)
    ap.add_argument("--target-ms", type=float, default=60)
    ap.add_argument("--min-reps", type=int, default=10)
    ap.add_argument("--max-reps", type=int, default=100)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--hide-host-us", type=float, default=1000.0,
                    help="GPU spin before each timed call so host overhead is not timed (0: off)")
    ap.add_argument("--smoke", action="store_true", help="tiny shapes on the CPU (Triton interpreter)")
    ap.add_argument("--na-seqs", default="", help="only these NA sequence lengths (comma list)")
    ap.add_argument("--na-configs", default="", help="only these of Liger's 4 NA configs (indices 0-3)")
    ap.add_argument("--no-calib", action="store_true", help="skip the matmul/copy calibration")
    ARGS = ap.parse_args()
    global DEV
    if ARGS.smoke:
        os.environ["TRITON_INTERPRET"] = "1"
        DEV = "cpu"
    os.makedirs(ARGS.out, exist_ok=True)
    import torch._dynamo

    torch._dynamo.config.cache_size_limit = 64
    TIMER = make_timer("cpu" if ARGS.smoke else "cuda")
    info = env_info() if not ARGS.smoke else {"smoke": True}
    info["command"] = " ".join(sys.argv)
    log(json.dumps(info))
    import kernels

    fams = kernels.FAMILIES
    for f in fams.values():
        log(f.slug, "implementations:", list(f.implementations))
    mm = matmul_rate() if not (ARGS.smoke or ARGS.no_calib) else 1.0
    todo = ARGS.families.split(",")
    try:
        if "rope" in todo:
            bench_rope(fams["llama4-rope"])
        if "na" in todo:
            bench_na(fams["fused-neighborhood-attention"])
        if "mrope" in todo:
            bench_mrope(fams["multimodal-rotary-embedding-attention"], mm)
    finally:
        with open(os.path.join(ARGS.out, "kernels_bench.json"), "w") as fh:
            json.dump({"env": info, "rows": ROWS}, fh, indent=1, default=str)
        keys = ["family", "workload", "pass", "impl", "median_ms", "p20_ms", "p80_ms", "mean_ms", "min_ms", "count",
                "ok", "max_abs_err", "max_rel_err", "max_abs_err_valid_rows", "e2e_ms", "host_ms", "bytes", "flops", "GBps", "TFLOPs", "error", "note"]
        with open(os.path.join(ARGS.out, "kernels_bench.csv"), "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=keys)
            w.writeheader()
            for r in ROWS:
                s = r.get("stats") or {}
                w.writerow({**{k: r.get(k) for k in keys if k in r},
                            **{f"{k}_ms": s.get(k) for k in ("median", "p20", "p80", "mean", "min")},
                            "count": s.get("count")})
        t = table()
        with open(os.path.join(ARGS.out, "kernels_bench.txt"), "w") as fh:
            fh.write(json.dumps(info) + "\n" + t + "\n")
        from kernels_summary import summary_text

        st = summary_text(ROWS)
        with open(os.path.join(ARGS.out, "kernels_summary.txt"), "w") as fh:
            fh.write(st)
        print(st, flush=True)


if __name__ == "__main__":
    main()
