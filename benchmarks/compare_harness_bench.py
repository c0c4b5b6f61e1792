"""Do the harness's runs agree with benchmarks/kernels_bench.py? (issue 26)

Matches each harness measurement (event-timed, from ``kernelindex bench --results-json`` files; a
later file wins for the same task) with the kernels_bench row of the same family, workload, pass
and implementation, and prints median against median. Both time device work with the host hidden,
so they should agree within a few percent; rows beyond ``--tolerance`` are listed.

    python benchmarks/compare_harness_bench.py kernels_bench.csv results1.json [results2.json ...]
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics

FAMILY = {"llama4-rope": "rope", "fused-neighborhood-attention": "na", "multimodal-rotary-embedding-attention": "mrope"}
# kernels_bench's name for a harness variant of an implementation
VARIANT_ROWS = {("fused-neighborhood-attention", "kernelindex-triton", "strict"): "ours[fp32-gemm]"}
BENCH_KEYS = {"rope": ("batch", "seq", "hidden", "q_heads", "kv_heads"),
              "na": ("batch", "seq", "hidden", "heads", "kernel_size", "dilation"),
              "mrope": ("batch", "seq", "hidden", "heads", "kv_heads")}


def bench_rows(path: str) -> dict[tuple, float]:
    rows = {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            if row.get("median_ms"):
                rows[(row["family"], row["workload"], row["pass"], row["impl"])] = float(row["median_ms"]) * 1e3
    return rows


def harness_rows(paths: list[str]) -> dict[tuple, dict]:
    found = {}
    for path in paths:
        for item in json.load(open(path))["results"]:
            task, result = item["task"], item["result"]
            if task["cuda_graph"] or not result.get("samples_ns"):
                continue
            found[item["key"]] = {"task": task, "median_us": statistics.median(result["samples_ns"]) / 1e3,
                                  "host": result.get("host") or {}}
    return found


def bench_workload(family: str, axes: dict) -> str:
    return ",".join(f"{key}={axes[key]}" for key in BENCH_KEYS[family] if key in axes)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("bench_csv")
    parser.add_argument("results", nargs="+")
    parser.add_argument("--tolerance", type=float, default=0.05)
    args = parser.parse_args()
    bench = bench_rows(args.bench_csv)
    pairs = []
    for entry in harness_rows(args.results).values():
        task = entry["task"]
        family = FAMILY[task["kernel"]]
        impl = VARIANT_ROWS.get((task["kernel"], task["impl"], task.get("variant") or ""), task["impl"])
        if task.get("variant") and impl == task["impl"]:
            continue
        key = (family, bench_workload(family, task["axes"]), task["timed_pass"], impl)
        if key in bench:
            pairs.append((key, entry["median_us"], bench[key], entry["host"]))
    off = [p for p in pairs if abs(p[1] / p[2] - 1) > args.tolerance]
    ratios = [p[1] / p[2] for p in pairs]
    print(f"{len(pairs)} harness runs matched a kernels_bench row; harness/bench median ratio: "
          f"median {statistics.median(ratios):.3f}, min {min(ratios):.3f}, max {max(ratios):.3f}")
    print(f"{len(pairs) - len(off)} within {args.tolerance:.0%}, {len(off)} beyond:")
    for (family, workload, timed_pass, impl), ours, theirs, host in sorted(off, key=lambda p: -abs(p[1] / p[2] - 1)):
        flag = " host-bound" + (" (synchronizing)" if host.get("synchronizes") else "") if host.get("host_bound_samples") else ""
        print(f"  {family:<5} {workload:<50} {timed_pass:<8} {impl:<20} harness {ours:10.1f} us  bench {theirs:10.1f} us  "
              f"{ours / theirs:5.2f}x{flag}")


if __name__ == "__main__":
    main()
