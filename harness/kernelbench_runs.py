"""Run files from ``harness.kernelbench_runner``'s measurements (JSON lines), on a developer machine.

Each measurement becomes a BenchmarkRun of the problem's own kernel, workload and implementation
(KernelBench's eager or ``torch.compile`` default, the ones ``kernelindex import kernelbench`` wrote
for the problem set's published timings), under the harness's forward protocol and the environment
the runner captured. The run carries the problem set in its ``kernelbench_problem_set`` label, so a
problem page shows it beside KernelBench's own figures for that set (on other GPUs, with another
protocol: the page says which).

    python -m harness.kernelbench_runs --problem-set 1f8d20f --facts facts.json results.jsonl... [--data data]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .datarepo import DataIndex, read_data
from .environment import environment_file, environment_labels, environment_name, environment_spec
from .plan import HARNESS_SOURCE, PROTOCOL_BASE, TimingOptions
from .run_yaml import dump, load_text, write_if_changed
from .runfiles import API_VERSION, _clock_metrics, _host_metrics, _timing, protocol_file, run_path

CONFIG_LABEL = {"eager": "eager", "compile": "default"}  # the implementation's kernelbench_config label
CONFIG_SLUG = {"eager": "eager", "compile": "compile-default"}
HEADER = ("Measured by `python -m harness.kernelbench_runner` on a GPU, written by `python -m harness.kernelbench_runs`.\n"
          "Re-running the same measurement rewrites this file.")
# How the reference was computed (the runner's ``reference``), in the correctness notes.
REFERENCES = {"float64": "in float64 on the GPU (parameters, buffers and floating inputs cast, TF32 off)",
              "float32, TF32 off": "in float32 with TF32 off (it has no float64 kernel)"}
RULE = "Against the same model run {reference}, with KernelBench's tolerance: torch.allclose(out, ref, atol=0.01, rtol=0.01)"


class Unresolved(Exception):
    """A measurement whose problem the data does not know (no published timing of it to attach to)."""


def problem_targets(index: DataIndex, data: Path, problem_set: str) -> dict[str, dict[str, str]]:
    """``level<N>/<file>`` -> {kernel, workload, eager, compile}: the names KernelBench's own runs of
    this problem set use (read from the protocol-labelled runs' workloads and implementations)."""
    targets: dict[str, dict[str, str]] = {}
    wanted_protocol = f"kernelbench-timing-{problem_set}"
    for path in sorted((data / "runs" / "kernelbench").rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        if f"protocol: {wanted_protocol}\n" not in text:
            continue  # most of KernelBench's runs are of other sets: skip parsing them
        body = load_text(text)
        spec = body.get("spec") or {}
        if spec.get("protocol") != wanted_protocol:
            continue
        external = (spec.get("sourceNative") or {}).get("externalId", "")
        problem = external.rsplit("#", 1)[-1]
        implementation = index.get("ImplementationRevision", spec["implementation"])
        workload = index.workload(spec["workload"])
        if implementation is None or workload is None:
            continue
        config = (implementation.metadata.get("labels") or {}).get("kernelbench_config")
        entry = targets.setdefault(problem, {"kernel": workload.spec["operation"], "workload": spec["workload"]})
        for ours, label in CONFIG_LABEL.items():
            if config == label:
                entry[ours] = spec["implementation"]
    return targets


def run_body(record: dict, target: dict, environment: str, problem_set: str, gpu: str) -> dict[str, Any]:
    """The BenchmarkRun of one measurement (pure)."""
    config = record["config"]
    if config not in target:
        raise Unresolved(f"{record['problem']}: no {config} implementation in the data")
    level = record["problem"].split("/", 1)[0].removeprefix("level")
    number = record["problem"].split("/", 1)[1].split("_", 1)[0]
    name = f"kernelindex-kb-{problem_set}-l{level}-{number}-{CONFIG_SLUG[config]}-{environment.removeprefix('kernelindex-')}"
    spec: dict[str, Any] = {
        "implementation": target[config],
        "workload": target["workload"],
        "protocol": PROTOCOL_BASE,
        "environment": environment,
        "status": record["status"],
    }
    samples = record.get("samples_ns")
    metrics: dict[str, float] = {}
    if samples:
        spec["timing"], _ = _timing(samples)
    metrics.update(_clock_metrics(record.get("clocks") or {}))
    metrics.update(_host_metrics(record.get("host")))
    spec["sourceNative"] = {
        "source": HARNESS_SOURCE,
        "benchmark": f"kernelbench/{problem_set}/{record['problem']}",
        "externalId": f"kernelbench/{problem_set}/{record['problem']}/{config}/{PROTOCOL_BASE}/{environment}",
        "metrics": dict(sorted(metrics.items())),
    }
    correctness: dict[str, Any] = {"comparator": "allclose"}
    if record.get("max_abs") is not None:
        correctness["maximumAbsoluteError"] = float(record["max_abs"])
    if record.get("max_rel") is not None:
        correctness["maximumRelativeError"] = float(record["max_rel"])
    notes = [RULE.format(reference=REFERENCES[record.get("reference", "float64")])]
    if record.get("note"):
        notes.append(record["note"])
    correctness["notes"] = " ".join(note if note.endswith(".") else note + "." for note in notes)
    spec["correctness"] = correctness
    if samples:
        spec["evidence"] = {"rawSamplesNs": list(samples)}
    modes = sorted(record.get("precision") or [])
    precision: dict[str, Any] = {"reducedModes": modes}
    if modes:
        precision["notes"] = ("cuDNN convolutions and recurrent layers may use TF32, which torch allows by "
                              "default (torch.backends.cudnn.allow_tf32), as KernelBench's baseline timings run them.")
    spec["precision"] = precision
    spec["observedAt"] = record["observed_at"]
    mode = "torch.compile · inductor default" if config == "compile" else "PyTorch eager"
    metadata = {"name": name,
                "title": f"KernelBench {record['problem']} · {mode} · {gpu}",
                "labels": {"kernelbench_problem_set": problem_set, "kernelbench_file": record["problem"]}}
    return {"apiVersion": API_VERSION, "kind": "BenchmarkRun", "metadata": metadata, "spec": spec}


def latest_records(paths: list[Path]) -> list[dict]:
    """Every measurement once: a later line (or file) wins for the same problem and configuration."""
    found: dict[tuple[str, str], dict] = {}
    for path in paths:
        for line in path.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                found[(record["problem"], record["config"])] = record
    return [found[key] for key in sorted(found)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--problem-set", required=True)
    parser.add_argument("--facts", type=Path, required=True, help="the runner's --facts file")
    parser.add_argument("--data", type=Path, default=Path("data"))
    args = parser.parse_args(argv)
    index = read_data(args.data)
    facts = json.loads(args.facts.read_text())
    spec = environment_spec(facts)
    environment = environment_name(spec, index)
    written: list[tuple[Path, str]] = []
    if not index.has("ExecutionEnvironment", environment):
        path = args.data / "environments" / f"{environment}.yaml"
        written.append((path, dump(environment_file(environment, spec, environment_labels(facts)), path)))
    if not index.has("BenchmarkProtocol", PROTOCOL_BASE):
        path = args.data / "protocols" / f"{PROTOCOL_BASE}.yaml"
        written.append((path, dump(protocol_file("forward", False, TimingOptions()), path)))
    targets = problem_targets(index, args.data, args.problem_set)
    skipped = []
    for record in latest_records(args.results):
        target = targets.get(record["problem"])
        try:
            if target is None:
                raise Unresolved(f"{record['problem']}: no published timing of problem set {args.problem_set}")
            body = run_body(record, target, environment, args.problem_set, spec["hardware"]["product"])
        except Unresolved as reason:
            skipped.append(str(reason))
            continue
        path = run_path(args.data, target["kernel"], body["metadata"]["name"])
        written.append((path, dump(body, path, HEADER)))
    changed = sum(write_if_changed(path, text) for path, text in written)
    print(f"{len(written)} files ({changed} written or changed) for environment {environment}; {len(skipped)} skipped")
    for reason in skipped:
        print(f"  skipped {reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
