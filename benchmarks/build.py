"""Build speed and site weight at scale (issues 8 and 24): validate and build at 1k, 10k and 100k
synthetic runs, and measure what the build wrote.

    .venv/bin/python benchmarks/build.py                       # 1k, 10k, 100k (about 15-30 minutes)
    .venv/bin/python benchmarks/build.py --sizes 1000,10000    # quicker
    .venv/bin/python benchmarks/build.py --no-record           # print only; leave results/ alone

For each size, `kernelindex synth` writes a data repository into a temporary folder, then every
step runs as its own `kernelindex` process (the way a maintainer or CI runs it), timed from
outside: wall time, CPU time (user + system, worker processes included) and peak RSS (the largest
process, from wait4). The steps:

- validate cold (empty parse cache), validate warm (cache filled by the cold run), validate
  --no-cache (every file parsed, across the process pool);
- build cold (empty cache, no site), no-op rebuild (nothing changed), rebuild after one run file
  changed (its median moved by 1 ns), then a build from scratch (--no-cache) of the changed data
  into another folder, compared file by file with the rebuilt site: the incremental build must be
  byte-identical to it - when `kernelindex build` is available and succeeds.

After the cold build (outside every timed step) the site is measured the way `kernelindex
site-size` and pages.yml measure it: bytes, files, the largest page or JSON document, and bytes
and files per kind of output (run pages, run mirrors, group pages, ...), against the static hosts'
limits (site_builder/site_limits.py).

Results go to benchmarks/results/build.json and the "Build speed at scale (issue 8)" section of
benchmarks/RESULTS.md. The machine's load average is recorded beside each step: on a shared
machine, wall time exceeds CPU time / cores, and the CPU column is the steadier figure.

The benchmark keeps its own writing and deleting out of the steps it times. Before each step it
flushes dirty pages (``os.sync``), so a step does not pay for writing back the gigabytes the step
before it left in memory. It deletes nothing until every size is measured: a cold build creates
330,000 files, and on ext4 without a journal, creating a file within a minute or more of mass
deletions scans past every recently deleted inode (the kernel's ``recently_deleted`` check). That
tripled the system time of a cold build here. The work folder's file system, its mount options and
whether it has a journal are recorded with the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS_JSON = ROOT / "benchmarks" / "results" / "build.json"
RESULTS_MD = ROOT / "benchmarks" / "RESULTS.md"
SECTION = "## Build speed at scale (issue 8)"
KERNELINDEX = [sys.executable, "-m", "site_builder.cli"]
AS_OF = "2026-06-30"  # after the last synthetic run (synth spreads runs from 2023-06 over three years)
TARGETS = {"build_cold": 120.0, "build_noop": 5.0, "build_one_change": 10.0, "peak_rss_mib": 2048.0}
# Issue 24, at 100,000 runs: GitLab Pages' limits (GitHub Pages' 1 GB among them) and our bound on a document.
SITE_TARGETS = {"bytes": 1_000_000_000, "files": 200_000, "largest_document": 2_000_000}


@dataclass
class Step:
    name: str
    ok: bool
    wall_s: float
    cpu_s: float
    peak_rss_mib: float
    load_before: float
    note: str = ""
    summary: str = ""  # the command's last line of output (the build says what it rendered and reused)


STEP_TIMEOUT = 1800.0


def measure(name: str, command: list[str], env: dict[str, str], timeout: float = STEP_TIMEOUT) -> Step:
    """Run ``command``; wall clock around it, CPU and peak RSS from wait4 (children included)."""
    import signal
    import threading

    os.sync()  # what earlier steps wrote goes to disk now, not during this step
    load = os.getloadavg()[0]
    started = time.perf_counter()
    # Its own process group, so a step that runs too long is stopped with its workers.
    process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    timer = threading.Timer(timeout, lambda: os.killpg(process.pid, signal.SIGKILL))
    timer.start()
    # communicate() would reap the child before wait4 could report its usage: drain by hand.
    stdout, stderr = _drain(process)
    _, status, usage = os.wait4(process.pid, 0)
    timer.cancel()
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    ok = process.returncode == 0
    tail = (stderr or stdout).decode("utf-8", "replace").strip().splitlines()[-3:]
    note = "" if ok else f"exit {process.returncode}: " + " | ".join(tail)[-300:]
    if process.returncode == -signal.SIGKILL and wall >= timeout:
        note = f"stopped after {timeout:.0f} s"
    summary = next(iter(stdout.decode("utf-8", "replace").strip().splitlines()[-1:]), "")
    step = Step(name, ok, round(wall, 2), round(usage.ru_utime + usage.ru_stime, 2),
                round(usage.ru_maxrss / 1024, 1), round(load, 2), note, summary)
    print(f"  {name:<22} {'ok' if ok else 'FAILED':<6} {step.wall_s:8.2f} s wall {step.cpu_s:8.2f} s cpu "
          f"{step.peak_rss_mib:8.1f} MiB  (load {load:.1f})" + (f"  {note}" if note else ""), flush=True)
    return step


def _drain(process: subprocess.Popen) -> tuple[bytes, bytes]:
    import selectors

    chunks: dict[int, list[bytes]] = {process.stdout.fileno(): [], process.stderr.fileno(): []}  # type: ignore[union-attr]
    selector = selectors.DefaultSelector()
    for stream in (process.stdout, process.stderr):
        selector.register(stream, selectors.EVENT_READ)  # type: ignore[arg-type]
    open_streams = 2
    while open_streams:
        for key, _ in selector.select():
            data = os.read(key.fd, 1 << 16)
            if not data:
                selector.unregister(key.fileobj)
                open_streams -= 1
            else:
                chunks[key.fd].append(data)
    out, err = (b"".join(chunks[stream.fileno()]) for stream in (process.stdout, process.stderr))  # type: ignore[union-attr]
    return out, err


def build_available() -> bool:
    probe = subprocess.run(KERNELINDEX + ["build", "--help"], cwd=ROOT, capture_output=True, text=True)
    return probe.returncode == 0 and "--data" in probe.stdout


def touch_one_run(data: Path) -> Path:
    """Move one run's median by 1 ns: a real content change that keeps the file valid. The run is
    the first with a median from a fixed place in the listing (not every run has one: a failed
    run, or one that reports other measurements)."""
    runs = sorted((data / "runs").rglob("*.yaml"))
    start = len(list((data / "runs").iterdir())) // 2
    for run in runs[start:] + runs[:start]:
        text = run.read_text(encoding="utf-8")
        match = re.search(r"median: (\d+)", text)
        if match:
            run.write_text(text[:match.start(1)] + str(int(match.group(1)) + 1) + text[match.end(1):], encoding="utf-8")
            return run
    raise AssertionError(f"no run under {data / 'runs'} has a median")


def same_files(first: Path, second: Path) -> tuple[bool, int]:
    """(whether two folders hold the same files with the same bytes, how many files were compared)."""
    def listing(root: Path) -> list[str]:
        return sorted(str(path.relative_to(root)) for path in root.rglob("*") if path.is_file())

    names = listing(first)
    if names != listing(second):
        return False, len(names)
    return all((first / name).read_bytes() == (second / name).read_bytes() for name in names), len(names)


def bench_size(runs: int, work: Path, seed: int, with_build: bool, timeout: float = STEP_TIMEOUT,
               previous: dict | None = None) -> dict:
    print(f"{runs:,} runs", flush=True)
    folder = work / f"runs-{runs}"
    data, cache, site = folder / "data", folder / "cache", folder / "site"
    env = {**os.environ, "KERNELINDEX_CACHE_DIR": str(cache), "PYTHONHASHSEED": "0"}
    steps = [measure("synth", KERNELINDEX + ["synth", "--runs", str(runs), "--out", str(data), "--seed", str(seed)], env, timeout)]
    files = sum(1 for _ in data.rglob("*.yaml"))
    steps.append(measure("validate_cold", KERNELINDEX + ["validate", str(data)], env, timeout))
    steps.append(measure("validate_warm", KERNELINDEX + ["validate", str(data)], env, timeout))
    steps.append(measure("validate_no_cache", KERNELINDEX + ["validate", "--no-cache", str(data)], env, timeout))
    weight = None
    if with_build:
        # A cache folder of its own rather than the validate steps' one deleted: see the module docstring.
        env = {**env, "KERNELINDEX_CACHE_DIR": str(folder / "build-cache")}
        build = KERNELINDEX + ["build", "--data", str(data), "--out", str(site), "--as-of", AS_OF, "--quiet"]
        steps.append(measure("build_cold", build, env, timeout))
        if steps[-1].ok:
            weight = site_weight(site)
            print(f"  site: {weight['bytes'] / 1e6:,.1f} MB in {weight['files']:,} files; largest document "
                  f"{weight['largest_document'][1]} ({weight['largest_document'][0] / 1e6:.2f} MB)", flush=True)
            steps.append(measure("build_noop", build, env, timeout))
            touch_one_run(data)
            steps.append(measure("build_one_change", build, env, timeout))
            clean_site = folder / "site-from-scratch"
            steps.append(measure("build_no_cache", KERNELINDEX + ["build", "--data", str(data), "--out", str(clean_site),
                                                                 "--as-of", AS_OF, "--quiet", "--no-cache"], env, timeout))
            if steps[-2].ok and steps[-1].ok:
                identical, compared = same_files(site, clean_site)
                print(f"  incremental site {'is' if identical else 'is NOT'} byte-identical to the build from scratch "
                      f"({compared:,} files compared)", flush=True)
                steps[-1].note = f"{'identical' if identical else 'DIFFERS'}: {compared:,} files compared with the rebuilt site"
    measured = {step.name: asdict(step) for step in steps}
    if weight is not None:
        extra = {"site": weight}
    elif not with_build and previous and "site" in previous:  # kept with the earlier build steps
        extra = {"site": previous["site"]}
    else:
        extra = {}
    if not with_build and previous:
        # Build steps measured by an earlier run stay in the record, marked with their date.
        measured.update({name: {**step, "measured": previous["date"]}
                         for name, step in previous["steps"].items() if name.startswith("build_")})
    return {"runs": runs, "files": files, "steps": measured, **extra}


def output_kind(path: str) -> str:
    """What a site path is, for the weight table: run pages, run mirrors, group pages, ... (the first
    folder, under api/v1/ the one after it; a kernel's workload pages apart from kernel pages)."""
    parts = path.split("/")
    api = parts[:2] == ["api", "v1"]
    rest = parts[2:] if api else parts
    if len(rest) == 1:
        kind = "other files at the top"
    elif rest[0] == "kernels" and len(rest) > 2:
        kind = "kernels (workload pages)"
    else:
        kind = rest[0]
    return f"{kind} (JSON)" if api else kind


def site_weight(site: Path) -> dict:
    """Bytes, files, largest document and the split by kind of output, of a built site."""
    from site_builder.site_limits import measure_site  # the check pages.yml runs, so both count alike

    size = measure_site(site)
    kinds: dict[str, list[int]] = {}
    for folder, _, names in os.walk(site):
        for name in names:
            path = os.path.join(folder, name)
            kind = output_kind(os.path.relpath(path, site).replace(os.sep, "/"))
            entry = kinds.setdefault(kind, [0, 0])
            entry[0] += 1
            entry[1] += os.lstat(path).st_size
    return {"bytes": size.bytes, "files": size.files, "largest_document": list(size.largest_document),
            "kinds": dict(sorted(kinds.items(), key=lambda item: -item[1][1]))}


def machine() -> dict:
    cpu = ""
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    memory = ""
    try:
        kib = next(int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemTotal"))
        memory = f"{kib / 2**20:.0f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    return {"nproc": os.cpu_count(), "cpu": cpu, "memory": memory, "python": platform.python_version(),
            "platform": platform.platform()}


def file_system(folder: Path, mounts_file: str = "/proc/self/mounts", journals: str = "/proc/fs/jbd2") -> dict:
    """The file system holding ``folder``: type, mount options and whether it has a journal
    (Linux; empty elsewhere). File creation costs depend on them more than on anything we write."""
    try:
        with open(mounts_file, encoding="utf-8") as listing:
            mounts = [line.split() for line in listing]
    except OSError:
        return {}
    resolved = str(folder.resolve())
    inside = [m for m in mounts if len(m) >= 4 and (resolved == m[1] or resolved.startswith(m[1].rstrip("/") + "/"))]
    if not inside:
        return {}
    device, mount_point, kind, options = max(inside, key=lambda m: len(m[1]))[:4]
    found = {"type": kind, "mount_point": mount_point, "options": options}
    if kind == "ext4":  # a journalled ext4 runs a jbd2 thread, listed under /proc/fs/jbd2 as <device>-8
        name = os.path.basename(os.path.realpath(device))
        found["journal"] = any(entry.startswith(f"{name}-") for entry in _listdir(journals))
    return found


def _listdir(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


# ---------------------------------------------------------------------------------------------
# Reporting


def _cell(result: dict, name: str, field: str = "wall_s") -> str:
    step = result["steps"].get(name)
    if step is None:
        return "not yet measured"
    if not step["ok"]:
        if step["note"].startswith("stopped"):
            return f"> {step['wall_s']:.0f} (stopped; {step['peak_rss_mib']:,.0f} MiB)"
        return f"failed after {step['wall_s']:.0f} s ({step['peak_rss_mib']:,.0f} MiB)"
    return f"{step[field]:.1f}"


def table(results: list[dict]) -> str:
    names = ["validate_cold", "validate_warm", "validate_no_cache", "build_cold", "build_noop", "build_one_change",
             "build_no_cache"]
    header = ("| runs | files | synth s | validate cold s | validate warm s | validate no-cache s | build cold s "
              "| no-op rebuild s | one changed run s | from scratch (--no-cache) s | peak RSS MiB | site MB | site files |")
    lines = [header, "|" + " --- |" * 13]
    for result in results:
        rss = max((s["peak_rss_mib"] for n, s in result["steps"].items() if n != "synth"), default=0)
        when = f" (measured {result['measured']})" if result.get("measured") else ""
        cells = [f"{result['runs']:,}{when}", f"{result['files']:,}", _cell(result, "synth")]
        cells += [f"{_cell(result, n)} ({_cell(result, n, 'cpu_s')} cpu)" if n in result["steps"] and result["steps"][n]["ok"]
                  else _cell(result, n) for n in names]
        cells.append(f"{rss:,.0f}")
        weight = result.get("site")
        cells += [f"{weight['bytes'] / 1e6:,.1f}", f"{weight['files']:,}"] if weight else ["not yet measured"] * 2
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def build_summaries(results: list[dict]) -> str:
    """What each build step said it did (pages rendered, files reused), and the byte-for-byte check."""
    shown = {"build_cold": "cold", "build_noop": "no-op", "build_one_change": "one changed run",
             "build_no_cache": "from scratch"}
    lines = []
    for result in results:
        for name, label in shown.items():
            step = result["steps"].get(name)
            if step and step.get("summary"):
                check = f" — {step['note']}" if name == "build_no_cache" and step.get("note") else ""
                lines.append(f"- {result['runs']:,} runs, {label}: {step['summary']}{check}")
    return "\n".join(lines)


def weight_table(results: list[dict]) -> str:
    """Per size: the site's bytes and files, its largest document, and the five heaviest kinds of output."""
    lines = ["| runs | site MB | files | largest document | heaviest outputs: files, MB (KB each) |", "| --- | --- | --- | --- | --- |"]
    for result in results:
        weight = result.get("site")
        if not weight:
            continue
        size, path = weight["largest_document"]
        heaviest = "; ".join(f"{kind} {files:,}, {total / 1e6:,.1f} ({total / files / 1e3:.1f})"
                             for kind, (files, total) in list(weight["kinds"].items())[:5])
        lines.append(f"| {result['runs']:,} | {weight['bytes'] / 1e6:,.1f} | {weight['files']:,} | {path} "
                     f"({size / 1e6:.2f} MB) | {heaviest} |")
    return "\n".join(lines)


def cost_curve(results: list[dict]) -> str:
    lines = ["| runs | validate cold s per 1k runs | validate warm s per 1k runs | build cold s per 1k runs |",
             "| --- | --- | --- | --- |"]
    for result in results:
        per = []
        for name in ("validate_cold", "validate_warm", "build_cold"):
            step = result["steps"].get(name)
            per.append(f"{step['wall_s'] / result['runs'] * 1000:.3f} wall, {step['cpu_s'] / result['runs'] * 1000:.3f} cpu"
                       if step and step["ok"] else "not yet measured")
        lines.append(f"| {result['runs']:,} | " + " | ".join(per) + " |")
    return "\n".join(lines)


def markdown(report: dict) -> str:
    m = report["machine"]
    results = report["results"]
    biggest = results[-1] if results else None
    verdict = []
    if biggest:
        for name, limit in TARGETS.items():
            if name == "peak_rss_mib":
                rss = max((s["peak_rss_mib"] for n, s in biggest["steps"].items() if n != "synth"), default=None)
                verdict.append(f"peak RSS {rss:,.0f} MiB (target ≤ {limit:,.0f})" if rss is not None else "")
                continue
            step = biggest["steps"].get(name)
            shown = {"build_cold": "cold build", "build_noop": "no-op rebuild", "build_one_change": "one changed run"}[name]
            verdict.append(f"{shown}: " + (f"{step['wall_s']:.1f} s (target ≤ {limit:.0f} s)" if step and step["ok"]
                                          else "not yet measured" if not step else "failed"))
    weight = biggest.get("site") if biggest else None
    if weight:
        verdict.append(f"site {weight['bytes'] / 1e6:,.1f} MB (target ≤ {SITE_TARGETS['bytes'] / 1e6:,.0f}), "
                       f"{weight['files']:,} files (target ≤ {SITE_TARGETS['files']:,}), largest document "
                       f"{weight['largest_document'][0] / 1e6:.2f} MB (target ≤ {SITE_TARGETS['largest_document'] / 1e6:.0f})")
    loads = [s["load_before"] for r in results for s in r["steps"].values()]
    return "\n".join([
        SECTION,
        "",
        f"Measured {report['date']} with `{report['command']}` on {m['nproc']} cores ({m['cpu']}), "
        f"{m['memory']} memory, Python {m['python']}. Each step is its own `kernelindex` process; CPU time "
        f"includes its worker processes; peak RSS is the largest process. This machine is shared with other "
        f"developers' builds and tests (load average before the steps: {min(loads):.1f}–{max(loads):.1f} on "
        f"{m['nproc']} cores), so wall times are pessimistic: CPU time divided by the cores is what an idle "
        f"machine would take, at best." + _file_system_sentence(m.get("file_system") or {}),
        "",
        table(results),
        "",
        "What each build did (its summary line), and whether the rebuilt site equals the one built from scratch:",
        "",
        build_summaries(results),
        "",
        "Site weight (issue 24): what the cold build wrote, and its heaviest kinds of output:",
        "",
        weight_table(results),
        "",
        "Cost per 1,000 runs (the curve; flat or falling means no worse than linear):",
        "",
        cost_curve(results),
        "",
        f"At {biggest['runs']:,} runs: " + "; ".join(v for v in verdict if v) + "." if biggest else "",
        "",
        report.get("notes", ""),
        "",
    ])


def _file_system_sentence(found: dict) -> str:
    if not found:
        return ""
    journal = {True: ", with a journal", False: ", without a journal"}.get(found.get("journal"), "")
    return (f" The work folder is on {found['type']}{journal} (mounted {found['options']}); the benchmark syncs "
            f"before each step and deletes nothing until the end (see the script's docstring).")


def write_results(report: dict) -> None:
    RESULTS_JSON.parent.mkdir(parents=True, exist_ok=True)
    RESULTS_JSON.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    text = RESULTS_MD.read_text(encoding="utf-8") if RESULTS_MD.exists() else "# Measured results\n"
    section = markdown(report).rstrip() + "\n"
    start = text.find(SECTION)
    if start < 0:
        text = text.rstrip() + "\n\n" + section
    else:
        following = text.find("\n## ", start + len(SECTION))
        text = text[:start] + section + (text[following:] if following >= 0 else "")
    RESULTS_MD.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated run counts")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, help="where the synthetic repositories go (default: a temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the synthetic repositories and sites")
    parser.add_argument("--no-build", action="store_true", help="measure validate only")
    parser.add_argument("--no-record", action="store_true", help="print, but leave benchmarks/results and RESULTS.md alone")
    parser.add_argument("--notes", default="", help="a paragraph for RESULTS.md under the tables")
    parser.add_argument("--step-timeout", type=float, default=STEP_TIMEOUT, help="seconds before a step is stopped")
    parser.add_argument("--build-max", type=int, default=None,
                        help="build only at sizes up to this many runs (larger sizes keep their last recorded build)")
    parser.add_argument("--render-only", action="store_true",
                        help="rewrite the RESULTS.md section from results/build.json (with --notes) without measuring")
    args = parser.parse_args(argv)
    if args.render_only:
        report = json.loads(RESULTS_JSON.read_text(encoding="utf-8"))
        report["notes"] = args.notes or report.get("notes", "")
        write_results(report)
        print(markdown(report))
        return 0

    sizes = [int(size) for size in args.sizes.split(",")]
    with_build = not args.no_build and build_available()
    if not with_build:
        print("kernelindex build is not available: measuring validate only", flush=True)
    previous = {}
    if RESULTS_JSON.exists():
        earlier = json.loads(RESULTS_JSON.read_text())
        previous = {result["runs"]: {**result, "date": earlier["date"]} for result in earlier["results"]}
    work = args.workdir or Path(tempfile.mkdtemp(prefix="kernelindex-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    command = "python benchmarks/build.py" + ("" if args.sizes == "1000,10000,100000" else f" --sizes {args.sizes}")
    report = {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "command": command,
        "machine": {**machine(), "file_system": file_system(work)},
        "as_of": AS_OF,
        "targets_at_100k": TARGETS,
        "results": [],
        "notes": args.notes,
    }
    try:
        for runs in sizes:
            build_here = with_build and (args.build_max is None or runs <= args.build_max)
            report["results"].append(bench_size(runs, work, args.seed, build_here, args.step_timeout,
                                                previous.get(runs)))
    finally:  # deleted only now: see the module docstring
        if not args.keep:
            for runs in sizes:
                shutil.rmtree(work / f"runs-{runs}", ignore_errors=True)
            if args.workdir is None:
                shutil.rmtree(work, ignore_errors=True)
    # Sizes not measured this time keep their last record (with its date), so one size can be redone.
    measured_sizes = {result["runs"] for result in report["results"]}
    for runs, result in sorted(previous.items()):
        if runs not in measured_sizes:
            measured = result.pop("date", None)
            report["results"].append({**result, **({"measured": measured} if measured != report["date"] else {})})
    report["results"].sort(key=lambda result: result["runs"])
    print()
    print(table(report["results"]))
    print()
    print(weight_table(report["results"]))
    print()
    print(cost_curve(report["results"]))
    if not args.no_record:
        write_results(report)
        print(f"\nwrote {RESULTS_JSON.relative_to(ROOT)} and the issue 8 section of {RESULTS_MD.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
