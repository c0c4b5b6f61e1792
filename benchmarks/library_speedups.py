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
speedup. ``--stage SHARE`` measures each setting in one process instead: the data is loaded and
derived once, then for each setting (in turn, ``--repeats`` rounds) a new renderer and new page
tasks build and render 1/SHARE of the pages, in ten runs of consecutive tasks spread over the
build's order (pages that share views come close together in it, as in a build), and the CPU time
this process spends on them (not on compiling templates or listing tasks, done once per build),
times SHARE, estimates the setting's cost for the whole build.
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


def stage(data: Path, share: int, repeats: int, only: list[str] | None) -> None:
    import gc
    import statistics
    import time
    from datetime import date

    from site_builder.build import _methodology
    from site_builder.context import page_tasks
    from site_builder.derive.leaderboard import derive_leaderboard
    from site_builder.library_speedups import only as speedups_in_use
    from site_builder.render import Renderer, mirror_json
    from site_builder.repository import load_catalog

    as_of = date.fromisoformat(AS_OF)
    board = derive_leaderboard(load_catalog(data, as_of), as_of)
    chosen = [(label, parse(value)) for label, value in settings(only)]

    def render_share(names: frozenset[str]) -> tuple[float, int]:
        with speedups_in_use(names):
            # Compiling the templates and listing the tasks are done once in a build: not timed.
            renderer = Renderer(vega_bundle="vega.js")
            renderer.compile_templates()
            tasks = page_tasks(board, _methodology(renderer, as_of))
            block = len(tasks) // (10 * share)
            pages = 0
            gc.collect()
            started = time.process_time()
            for start in range(0, len(tasks), len(tasks) // 10):
                for task in tasks[start:start + block]:
                    for page in task():
                        renderer.page(page)
                        mirror_json(page)
                        pages += 1
        return time.process_time() - started, pages

    render_share(frozenset())  # the board's own caches, filled once
    cpu: dict[str, list[float]] = {label: [] for label, _ in chosen}
    for round_number in range(repeats):
        for label, names in chosen:
            seconds, pages = render_share(names)
            cpu[label].append(seconds)
            print(f"  round {round_number + 1} {label:<34} {seconds:7.2f} s cpu for {pages:,} pages "
                  f"(load {os.getloadavg()[0]:.1f})", flush=True)
    base = statistics.median(cpu["all"]) if "all" in cpu else None
    print(f"\n| setting | CPU s for 1/{share} of the pages (median of {repeats}) | estimated CPU s for all pages "
          "| estimated CPU s saved by it |")
    print("| --- | --- | --- | --- |")
    for label, seconds in cpu.items():
        median = statistics.median(seconds)
        saved = "" if base is None or label == "all" else f"{(median - base) * share:+.1f}"
        print(f"| {label} | {median:.2f} | {median * share:.1f} | {saved} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="a data folder (kernelindex synth)")
    parser.add_argument("--work", type=Path, help="where the caches and sites go (builds)")
    parser.add_argument("--only", help="labels to run, separated by '|' (default: all of them)")
    parser.add_argument("--keep", action="store_true", help="keep the sites and caches")
    parser.add_argument("--stage", type=int, metavar="SHARE", help="measure 1/SHARE of the pages in this process")
    parser.add_argument("--repeats", type=int, default=3, help="rounds of --stage")
    args = parser.parse_args()
    if args.stage:
        return stage(args.data, args.stage, args.repeats, args.only.split("|") if args.only else None)
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
