"""Measure KernelBench problems' PyTorch references (eager and torch.compile) on a GPU.

Runs where the harness runs (torch only; no pydantic or YAML): each problem file is imported as
KernelBench itself does (``Model``, ``get_inputs``, ``get_init_inputs``), its model is built with
a fixed seed and called as KernelBench's baseline script calls it (no ``eval()``, torch's default
precision switches), then

* **checked**: every output against the same model run in float64 on the GPU (parameters, buffers
  and floating inputs cast; TF32 off), with KernelBench's own tolerance, atol = rtol = 1e-2. A model
  that cannot run in float64 is checked against its own eager float32 output with TF32 off, and the
  run says so;
* **timed** with the harness's protocol (``harness.measure.sample``): L2 flushed before every
  sample, a GPU spin that hides the host's launch time, CUDA events, median of at least 20 samples.

torch.compile (inductor, default mode) is compiled once per problem before its check; compilation
is outside the timed region. ``--warm N`` first compiles every problem in N parallel processes
(no timing), so the sequential timing pass reads Inductor's and Triton's on-disk caches: compiling
level-3 networks takes far longer than timing them.

One JSON line per (problem, configuration) is appended to ``--out`` as soon as it is measured, so a
call cut short keeps what it finished; ``--skip`` names files of lines already measured.
``harness/scripts/import_kernelbench_runs.py`` turns the lines into run files.

    python3 -m harness.kernelbench_runner --problems DIR --out results.jsonl [--levels 1,2,3]
        [--configs eager,compile] [--deadline-s 540] [--warm 8] [--skip earlier.jsonl]
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import re
import sys
import time
from pathlib import Path

CONFIGS = ("eager", "compile")
TOLERANCE = 1e-2  # KernelBench's atol and rtol for a candidate against the reference model
SEED = 42  # KernelBench's eval seeds model construction and inputs the same way for every problem
CUDNN_MODULES = ("Conv", "ConvTranspose", "RNN", "LSTM", "GRU")
CUDNN_CALLS = re.compile(r"\b(?:F|functional|torch)\.(?:conv\w*|lstm|gru|rnn\w*)\(")


def problem_files(root: Path, levels: list[int]) -> list[Path]:
    """``level<N>/<number>_<Name>.py``, by level then problem number."""
    found = []
    for level in levels:
        for path in (root / f"level{level}").glob("*.py"):
            number = path.name.split("_", 1)[0]
            if number.isdigit():
                found.append((level, int(number), path))
    return [path for _, _, path in sorted(found)]


def problem_key(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def load_module(path: Path):
    spec = importlib.util.spec_from_file_location(f"kernelbench_{path.parent.name}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(module, device: str):
    """The model and its inputs, seeded as KernelBench seeds them."""
    import torch

    # Created on the device: the enlarged problems' inputs hold up to billions of elements, which
    # take seconds to draw on the host (the values differ from a host draw; the problem does not).
    with torch.device(device):
        torch.manual_seed(SEED)
        init = module.get_init_inputs()
        model = module.Model(*init).to(device)
        torch.manual_seed(SEED)
        inputs = [x.to(device) if isinstance(x, torch.Tensor) else x for x in module.get_inputs()]
    return model, inputs


def flat_outputs(value) -> list:
    """Every tensor of a forward's result, in order (tensors, tuples, lists, dicts)."""
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in flat_outputs(item)]
    if isinstance(value, dict):
        return [t for key in sorted(value) for t in flat_outputs(value[key])]
    return []


class strict_fp32:
    """TF32 off for matrix products and cuDNN while the reference runs."""

    def __enter__(self):
        import torch

        self.saved = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False

    def __exit__(self, *exc):
        import torch

        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = self.saved


def reference_outputs(model, inputs) -> tuple[list, str]:
    """(outputs, how they were computed): float64 where the model runs in it, else strict float32."""
    import torch

    def as_double(x):
        return x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x

    with torch.no_grad(), strict_fp32():
        try:
            twin = copy.deepcopy(model).double()
            torch.manual_seed(SEED)
            outputs = [t.double() for t in flat_outputs(twin(*[as_double(x) for x in inputs]))]
            del twin
            return outputs, "float64"
        except Exception:  # noqa: BLE001 - an op without a float64 kernel: fall back, and say so
            torch.manual_seed(SEED)
            outputs = [t.double() if t.is_floating_point() else t for t in flat_outputs(model(*inputs))]
            return outputs, "float32, TF32 off"


def compare(outputs: list, references: list) -> dict:
    """KernelBench's check (``torch.allclose`` at 1e-2) with the worst errors recorded."""
    import torch

    if len(outputs) != len(references):
        return {"status": "incorrect_shape", "note": f"{len(outputs)} outputs, expected {len(references)}"}
    worst_abs = worst_rel = 0.0
    for index, (out, ref) in enumerate(zip(outputs, references)):
        if tuple(out.shape) != tuple(ref.shape):
            return {"status": "incorrect_shape", "note": f"output {index}: shape {list(out.shape)}, expected {list(ref.shape)}"}
        if not out.is_floating_point():
            if not torch.equal(out.to(ref.dtype), ref):
                return {"status": "incorrect_numerical", "note": f"output {index}: integer values differ"}
            continue
        got, want = out.double(), ref.double()
        if not torch.isfinite(got).all() and not torch.equal(torch.isfinite(got), torch.isfinite(want)):
            return {"status": "incorrect_numerical", "note": f"output {index}: non-finite values"}
        difference = (got - want).abs().nan_to_num(0.0)
        worst_abs = max(worst_abs, float(difference.max()) if difference.numel() else 0.0)
        scaled = difference / want.abs().clamp_min(1e-12)
        worst_rel = max(worst_rel, float(scaled.nan_to_num(0.0).max()) if scaled.numel() else 0.0)
        if not torch.allclose(got, want, atol=TOLERANCE, rtol=TOLERANCE, equal_nan=True):
            return {"status": "incorrect_numerical", "max_abs": worst_abs, "max_rel": worst_rel,
                    "note": f"output {index} outside atol = rtol = {TOLERANCE:g}"}
    return {"status": "passed", "max_abs": worst_abs, "max_rel": worst_rel}


def reduced_precision(model, source: str) -> list[str]:
    """TF32 where torch's defaults allow it: cuDNN convolutions and RNNs (``cudnn.allow_tf32`` is on
    by default; matrix products' switch is off by default and stays off)."""
    import torch

    if not torch.backends.cudnn.allow_tf32:
        return []
    uses_cudnn = any(type(m).__name__.startswith(CUDNN_MODULES) for m in model.modules()) or CUDNN_CALLS.search(source)
    return ["tf32"] if uses_cudnn else []


def measure_problem(path: Path, configs: list[str], session, emit) -> None:
    """Check and time each configuration of one problem; every outcome is emitted."""
    import torch

    from .measure import sample

    key = problem_key(path)
    source = path.read_text()
    started = time.perf_counter()
    try:
        module = load_module(path)
        model, inputs = build(module, session.device)
        references, reference_kind = reference_outputs(model, inputs)
    except Exception as error:  # noqa: BLE001
        for config in configs:
            emit({"problem": key, "config": config, "status": "invalid_reference",
                  "note": f"model or inputs failed: {type(error).__name__}: {error}"[:400]})
        return
    modes = reduced_precision(model, source)
    for config in configs:
        record = {"problem": key, "config": config, "reference": reference_kind, "precision": modes}
        begun = time.perf_counter()
        try:
            if config == "compile":
                torch._dynamo.reset()
                call_model = torch.compile(model)
            else:
                call_model = model
            with torch.no_grad():
                torch.manual_seed(SEED)
                record.update(compare([t.detach() for t in flat_outputs(call_model(*inputs))], references))
                if record["status"] == "passed":
                    clocks_before = session.clocks()
                    samples, host = sample(lambda: call_model(*inputs), session.options, session.timer, None)
                    record.update(samples_ns=[int(round(s * 1e6)) for s in samples], host=host,
                                  clocks={"before": clocks_before, "after": session.clocks()})
        except torch.cuda.OutOfMemoryError as error:
            record.update(status="resource_exceeded", note=f"OutOfMemoryError: {str(error).splitlines()[0]}"[:300])
        except Exception as error:  # noqa: BLE001
            first = " ".join(line.strip() for line in str(error).splitlines()[:2] if line.strip())
            record.update(status="runtime_error" if config == "eager" else "compile_error",
                          note=f"{type(error).__name__}: {first}"[:300])
        record["observed_at"] = now()
        record["wall_s"] = round(time.perf_counter() - begun, 3)
        emit(record)
        torch.cuda.empty_cache()
    del model, inputs, references
    torch.cuda.empty_cache()
    print(f"{key}: {time.perf_counter() - started:.1f} s", flush=True)


def now() -> str:
    from datetime import datetime, timezone

    moment = datetime.now(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def warm_one(path_text: str) -> str:
    """Compile one problem and call it once (fills the on-disk caches); no timing."""
    import torch

    path = Path(path_text)
    try:
        model, inputs = build(load_module(path), "cuda")
        with torch.no_grad():
            torch.compile(model)(*inputs)
        torch.cuda.synchronize()
        return f"warm {problem_key(path)}"
    except Exception as error:  # noqa: BLE001 - the timing pass records the failure
        return f"warm {problem_key(path)} failed: {type(error).__name__}"
    finally:
        torch._dynamo.reset()
        torch.cuda.empty_cache()


def warm(paths: list[Path], processes: int, until: float) -> None:
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    with context.Pool(processes, maxtasksperchild=8) as pool:
        pending = pool.imap_unordered(warm_one, [str(p) for p in paths])
        for _ in paths:
            left = until - time.monotonic()
            if left <= 0:
                print("warm-up: out of time, the rest compiles while timed", flush=True)
                pool.terminate()
                return
            try:
                print(pending.next(timeout=left), flush=True)
            except multiprocessing.TimeoutError:
                pool.terminate()
                return


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", type=Path, required=True, help="a problem set's folder (level1/, level2/, ...)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--levels", default="1,2,3")
    parser.add_argument("--configs", default="eager,compile")
    parser.add_argument("--only", default="", help="comma list of level<N>/<file> to measure")
    parser.add_argument("--skip", type=Path, nargs="*", default=[], help="JSON-lines files of measurements to skip")
    parser.add_argument("--deadline-s", type=float, default=540.0, help="start nothing new after this many seconds")
    parser.add_argument("--warm", type=int, default=0, help="compile every problem first in this many processes")
    parser.add_argument("--warm-share", type=float, default=0.45, help="share of the deadline the warm-up may use")
    parser.add_argument("--facts", type=Path, default=None, help="write the environment's facts (JSON) here")
    args = parser.parse_args(argv)
    started = time.monotonic()
    configs = [c for c in args.configs.split(",") if c]
    unknown = sorted(set(configs) - set(CONFIGS))
    if unknown:
        parser.error(f"unknown configuration {', '.join(unknown)}: choose from {', '.join(CONFIGS)}")
    paths = problem_files(args.problems, [int(level) for level in args.levels.split(",")])
    if args.only:
        wanted = set(args.only.split(","))
        paths = [p for p in paths if problem_key(p) in wanted]
    done = set()
    for earlier in args.skip:
        if earlier.exists():
            for line in earlier.read_text().splitlines():
                if line.strip():
                    row = json.loads(line)
                    done.add((row["problem"], row["config"]))
    todo = [(p, [c for c in configs if (problem_key(p), c) not in done]) for p in paths]
    todo = [(p, cs) for p, cs in todo if cs]
    print(f"{len(todo)} problems to measure ({len(done)} measurements skipped)", flush=True)
    if args.warm and "compile" in configs:
        warm([p for p, cs in todo if "compile" in cs], args.warm, started + args.warm_share * args.deadline_s)

    from .environment import clock_reader, gather_facts
    from .measure import Session
    from .plan import TimingOptions

    facts = gather_facts(0)
    if args.facts:
        args.facts.write_text(json.dumps(facts, sort_keys=True, indent=1))
    session = Session(TimingOptions(), "cuda", clock_reader(facts.get("uuid")))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("a") as sink:
        def emit(record: dict) -> None:
            sink.write(json.dumps(record, sort_keys=True) + "\n")
            sink.flush()

        for path, cs in todo:
            if time.monotonic() - started > args.deadline_s:
                print(f"deadline: {problem_key(path)} and later left for another call", flush=True)
                break
            measure_problem(path, cs, session, emit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
