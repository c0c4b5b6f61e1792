"""``kernelindex bench``: measure the bundled kernels and their peers on a GPU; write run files.

    kernelindex bench                                # every kernel, workload, importable implementation
    kernelindex bench llama4-rope -i kernelindex-triton -i liger -p forward
    kernelindex bench -w multimodal-rotary-embedding-attention-sol-suite   # a suite: each case + the mean
    kernelindex bench --devices all                  # one worker process per GPU of this host
    kernelindex bench --dry-run                      # print the plan (no GPU needed)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click


def _split(values: tuple[str, ...]) -> list[str]:
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


@click.command(name="bench")
@click.argument("kernels", nargs=-1)
@click.option("-w", "--workload", "workloads", multiple=True, metavar="NAME",
              help="A WorkloadCase or WorkloadSuite name (repeatable; a suite measures each case and the mean). Default: every workload of the kernels.")
@click.option("-i", "--impl", "impls", multiple=True, metavar="NAME",
              help="kernelindex-triton, pytorch-reference, pytorch-sdpa, torch-compile, liger, transformers, or the data name it is recorded as. Default: every importable one.")
@click.option("-p", "--pass", "passes", multiple=True, metavar="PASS",
              help="forward, backward, full or all (repeatable). Default: forward and backward where the kernel has one.")
@click.option("--cuda-graph", type=click.Choice(["off", "on", "only"]), default="off", show_default=True,
              help="Also (on) or only (only) time CUDA-graph replay, recorded under the -cudagraph protocols.")
@click.option("--devices", default=None, metavar="all|0,1,...",
              help="Spread the sweep over these GPUs of this host, one worker process per GPU. Default: this process, GPU 0.")
@click.option("--data", "data_dir", type=click.Path(path_type=Path), default=Path("data"), show_default=True,
              help="The data folder whose workloads, implementations and environments are used.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Write the files here instead of into --data (same layout).")
@click.option("--dry-run", is_flag=True, help="Print the plan and exit (works without a GPU).")
@click.option("--log-dir", type=click.Path(path_type=Path), default=None, help="Per-GPU worker logs go here.")
@click.option("--results-json", type=click.Path(path_type=Path), default=None,
              help="Also write every raw result (and where it was measured) as JSON.")
@click.option("--time-limit", "time_limit", type=float, default=None, metavar="SECONDS",
              help="Start no new measurement after this many seconds; what was measured is written.")
@click.option("--task-timeout", "task_timeout", type=float, default=600.0, show_default=True, metavar="SECONDS",
              help="With --devices: a measurement running longer is killed, retried once elsewhere, then recorded as timeout.")
@click.option("--backend", type=click.Choice(["cuda", "cpu"]), default="cuda", hidden=True,
              help="cpu: time on the CPU through the Triton interpreter (tests only).")
@click.option("--target-ms", type=float, default=None, hidden=True, help="GPU time per measurement (tests).")
def command(kernels, workloads, impls, passes, cuda_graph, devices, data_dir, out_dir, dry_run, log_dir,
            results_json, time_limit, task_timeout, backend, target_ms) -> None:
    """Measure kernels on a GPU: correctness first, then CUDA-event timing; write run files."""
    from .datarepo import read_data
    from .plan import PASSES, TimingOptions
    from .progress import Progress, device_lines, plan_lines, summary_lines
    from .selection import SelectionError, family_infos, select

    if not data_dir.is_dir():
        raise click.ClickException(f"{data_dir}: no such data folder")
    pass_list = _split(passes)
    if "all" in pass_list:
        pass_list = list(PASSES)
    kernel_list = [k for k in _split(kernels) if k != "all"]
    timing = TimingOptions(backend=backend)
    if target_ms is not None:
        timing.target_ms = target_ms
        timing.min_reps = min(timing.min_reps, 5)
        timing.max_rounds = 1
        timing.warmup = 1
    if backend == "cpu":
        timing.flush_l2 = False

    index = read_data(data_dir)
    infos = family_infos()
    try:
        plan = select(index, infos, kernels=kernel_list, workloads=_split(workloads), impls=_split(impls),
                      passes=pass_list or None, cuda_graph=cuda_graph, timing=timing)
    except SelectionError as error:
        raise click.ClickException(str(error)) from None
    if backend == "cpu" and any(t.cuda_graph for t in plan.tasks):
        raise click.ClickException("CUDA graphs need a GPU: use --cuda-graph off with the CPU backend")

    if dry_run:
        for line in plan_lines(plan):
            click.echo(line)
        return

    device_list = _devices_or_refuse(backend, devices)
    if not plan.tasks:
        raise click.ClickException("nothing to measure: " + "; ".join(plan.skipped))
    for line in plan_lines(plan)[:1]:
        click.echo(line + (f" on GPUs {', '.join(map(str, device_list))}" if device_list else ""))
    for reason in plan.skipped:
        click.echo(f"  not measured: {reason}")

    from .sweep import assemble, run_plan, write

    progress = Progress(len(plan.tasks), click.echo)
    if log_dir:
        log_dir.mkdir(parents=True, exist_ok=True)
    result = run_plan(plan, devices=device_list, on_result=progress.result, on_incident=progress.incident, log_dir=log_dir,
                      time_limit_s=time_limit, task_timeout_s=task_timeout)
    assemble(plan, result, index)
    out = out_dir or data_dir
    report = write(plan, result, out, index)

    click.echo("")
    for line in summary_lines(plan, result.outcome.results, result.outcome.measured_on):
        click.echo(line)
    click.echo("")
    for line in device_lines(result.outcome.per_device, result.wall_s, result.outcome.incidents):
        click.echo(line)
    for device, name in sorted(result.device_environment.items()):
        click.echo(f"  {'gpu' + str(device) if device >= 0 else 'cpu'} -> environment {name}")
    click.echo(f"{len(report.runs)} run files ({len(report.written)} files written or changed, "
               f"{len(report.unchanged)} unchanged) under {out}")
    if results_json:
        results_json.parent.mkdir(parents=True, exist_ok=True)
        results_json.write_text(json.dumps({
            "wall_s": result.wall_s, "per_device": result.outcome.per_device, "incidents": result.outcome.incidents,
            "device_environment": result.device_environment, "facts": result.outcome.facts,
            "unmeasured": result.outcome.unmeasured,
            "results": [{"task": m.task.to_json(), "key": m.task.key, "device": m.device, "environment": m.environment,
                         "result": m.result} for m in result.measured]}, indent=1, default=str), encoding="utf-8")
    _validate(out if out_dir is None else None)


def _devices_or_refuse(backend: str, devices: str | None) -> list[int] | None:
    from .devices import DeviceError, parse_devices

    if backend == "cpu":
        if devices is not None:
            raise click.ClickException("--devices needs GPUs; the CPU backend runs in this process")
        return None
    try:
        import torch
    except ImportError:
        raise click.ClickException("torch is not installed: install the kernels extra (`make install-kernels`)") from None
    if not torch.cuda.is_available():
        raise click.ClickException(
            "no CUDA GPU is visible here, and `kernelindex bench` only measures on a GPU "
            "(timings from anything else would be meaningless). Use --dry-run to print the plan.")
    try:
        return parse_devices(devices, torch.cuda.device_count())
    except DeviceError as error:
        raise click.ClickException(str(error)) from None


def _validate(data_dir: Path | None) -> None:
    """Check the written files with the site builder where it is installed (not on the GPU image)."""
    if data_dir is None:
        click.echo("validation: run `kernelindex validate` on the data folder these files join")
        return
    try:
        from site_builder.problems import DataError
        from site_builder.repository import load_catalog
    except ImportError:
        click.echo("validation skipped (the site builder's dependencies are not installed here): run `kernelindex validate`")
        return
    try:
        load_catalog(data_dir)
    except DataError as error:
        for problem in error.problems[:50]:
            click.echo(str(problem), err=True)
        raise click.ClickException(f"{len(error.problems)} problem(s) in {data_dir} after writing")
    click.echo(f"validation: {data_dir} is valid")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(command())
