"""What each library-internal speedup (site_builder/library_speedups.py) saves on a cold build.

    .venv/bin/kernelindex synth --runs 100000 --out /tmp/lib/data --builtin-hardware
    .venv/bin/python benchmarks/library_speedups.py --data /tmp/lib/data --work /tmp/lib

Each setting is a cold `kernelindex build` (an empty cache folder of its own, a new site folder)
of the same data, its own process, timed from outside as benchmarks/build.py times its steps
(wall, CPU of the build and its workers, peak RSS, and the load average before it). The
settings: every speedup (``1``), none (``0``), and every speedup but one, for each one: what a
speedup saves is the "all but it" time less the "all" time. The site built with none is compared
file by file with the site built with all. Nothing is deleted until every setting is measured (see
benchmarks/build.py on deleting files between steps); ``--keep`` keeps the sites.

It prints a Markdown table; benchmarks/RESULTS.md quotes it by hand.

A cold build of 100,000 runs takes minutes on a shared machine, too long to build once per
speedup, and on a loaded machine one build's CPU time varies by more than a second.
``--per-page SAMPLE`` estimates each speedup's saving in one process instead, from timings that
the machine's load hardly moves: the data is loaded and derived once, and the pages of SAMPLE
page tasks spread over the build's order are made once. Then, for each setting, a new renderer
renders every sampled page ``--repeats`` times and keeps each page's fastest time; their sum,
times (tasks in the build / tasks sampled), estimates the setting's rendering time for the whole
build (a page's rows, which a build renders once for every page showing them, are rendered once
here too, before the timing, so row-level savings are left out: the estimates are low).
``unchecked_views`` saves when views are made, not rendered: its calls are counted while the
sampled pages are made, and each view class's ``model_construct`` is timed against ``unchecked``
(fastest of many), the difference times the calls times the same scale.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build import AS_OF, KERNELINDEX, measure, same_files  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from site_builder.library_speedups import ALL, ENV_VAR, NAMES  # noqa: E402
from site_builder.library_speedups import parse_setting as parse  # noqa: E402


def settings(only: list[str] | None) -> list[tuple[str, str]]:
    """(label, value of the environment variable) for each build."""
    found = [("all", "1"), ("none", "0")]
    found += [(f"all but {name}", ",".join(sorted(ALL - {name}))) for name in reversed(NAMES)]
    return [setting for setting in found if only is None or setting[0] in only]


def per_page(data: Path, sample: int, repeats: int, only: list[str] | None) -> None:
    import timeit
    from collections import Counter
    from datetime import date
    from time import perf_counter

    from site_builder import library_speedups
    from site_builder.build import _methodology
    from site_builder.context import page_tasks
    from site_builder.derive.leaderboard import derive_leaderboard
    from site_builder.render import Renderer
    from site_builder.repository import load_catalog

    as_of = date.fromisoformat(AS_OF)
    board = derive_leaderboard(load_catalog(data, as_of), as_of)
    calls: Counter[type] = Counter()
    fields_of: dict[type, dict] = {}
    new, write = library_speedups._new, library_speedups._set

    def counting_new(cls):
        calls[cls] += 1
        return new(cls)

    def recording_set(view, name, value):
        if name == "__dict__":
            fields_of.setdefault(type(view), dict(value))
        write(view, name, value)

    with library_speedups.only(ALL):
        tasks = page_tasks(board, _methodology(Renderer(vega_bundle="vega.js"), as_of))
        step = max(1, len(tasks) // sample)
        chosen_tasks = tasks[::step]
        library_speedups._new, library_speedups._set = counting_new, recording_set
        try:
            pages = [page for task in chosen_tasks for page in task()]
        finally:
            library_speedups._new, library_speedups._set = new, write
    scale = len(tasks) / len(chosen_tasks)
    print(f"{len(pages):,} pages of {len(chosen_tasks):,} of the build's {len(tasks):,} tasks (scale {scale:.1f})",
          flush=True)

    results = {}
    for label, value in settings(only):
        if label == "all but unchecked_views":
            continue
        with library_speedups.only(parse(value)):
            renderer = Renderer(vega_bundle="vega.js")
            renderer.compile_templates()
            for page in pages:  # shared fragments and rows, made once per build
                renderer.page(page)
            total = 0.0
            for page in pages:
                best = float("inf")
                for _ in range(repeats):
                    started = perf_counter()
                    renderer.page(page)
                    best = min(best, perf_counter() - started)
                total += best
        results[label] = total * scale
        print(f"  {label:<34} {total:7.3f} s for the sample, {total * scale:6.1f} s estimated for the build "
              f"(load {os.getloadavg()[0]:.1f})", flush=True)
    saved_unchecked = 0.0
    for cls, count in calls.items():
        fields = fields_of[cls]
        fast = min(timeit.repeat(lambda: library_speedups.unchecked(cls, **fields), number=200, repeat=7)) / 200
        slow = min(timeit.repeat(lambda: cls.model_construct(**fields), number=200, repeat=7)) / 200
        saved_unchecked += (slow - fast) * count * scale
    print(f"  unchecked_views: {sum(calls.values()) * scale:,.0f} views made unchecked in the build (estimated), "
          f"saving {saved_unchecked:.1f} s", flush=True)
    base = results.get("all")
    print("\n| speedup | estimated seconds it saves at this scale |")
    print("| --- | --- |")
    for label, seconds in results.items():
        if base is not None and label != "all":
            print(f"| {label.removeprefix('all but ')} | {seconds - base:+.1f} |")
    print(f"| unchecked_views | {saved_unchecked:+.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="a data folder (kernelindex synth)")
    parser.add_argument("--work", type=Path, help="where the caches and sites go (builds)")
    parser.add_argument("--only", help="labels to run, separated by '|' (default: all of them)")
    parser.add_argument("--keep", action="store_true", help="keep the sites and caches")
    parser.add_argument("--per-page", type=int, metavar="SAMPLE", help="estimate from SAMPLE page tasks, in this process")
    parser.add_argument("--repeats", type=int, default=5, help="renders of each sampled page (--per-page)")
    args = parser.parse_args()
    if args.per_page:
        return per_page(args.data, args.per_page, args.repeats, args.only.split("|") if args.only else None)
    rows = []
    sites = {}
    for number, (label, value) in enumerate(settings(args.only.split("|") if args.only else None)):
        folder = args.work / f"setting-{number}"
        if folder.exists():
            raise SystemExit(f"{folder} exists: give an empty --work")
        env = {**os.environ, "KERNELINDEX_CACHE_DIR": str(folder / "cache"), "PYTHONHASHSEED": "0", ENV_VAR: value}
        command = KERNELINDEX + ["build", "--data", str(args.data), "--out", str(folder / "site"), "--as-of", AS_OF,
                                 "--quiet"]
        step = measure(label, command, env)
        if not step.ok:
            raise SystemExit(f"{label}: {step.note}")
        rows.append(step)
        sites[label] = folder / "site"
        if label == "none" and "all" in sites:
            identical, compared = same_files(sites["all"], sites["none"])
            print(f"site with none {'is' if identical else 'is NOT'} byte-identical to the site with all "
                  f"({compared:,} files compared)", flush=True)
    base = next((row for row in rows if row.name == "all"), None)
    print("\n| setting | wall s | CPU s | peak RSS MiB | load before | CPU s saved by it |")
    print("| --- | --- | --- | --- | --- | --- |")
    for row in rows:
        saved = "" if base is None or row is base else f"{row.cpu_s - base.cpu_s:+.1f}"
        print(f"| {row.name} | {row.wall_s:.1f} | {row.cpu_s:.1f} | {row.peak_rss_mib:,.0f} | {row.load_before:.1f} "
              f"| {saved} |")
    if not args.keep:
        for folder in sorted(args.work.glob("setting-*")):
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
