"""A worker process: measures the tasks its parent sends, on the one GPU it can see.

Protocol (JSON lines): the parent writes ``{"op": "run", "task": {...}}`` or ``{"op": "stop"}``
on stdin; the worker answers ``{"op": "hello", "facts": {...}}`` once, then one
``{"op": "result", "key": ..., "result": {...}}`` per task. Anything libraries print goes to
stderr (the parent's per-GPU log): the worker's real stdout carries protocol lines only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def _protocol_stream():
    """Keep the real stdout for protocol lines; send fd 1 (C-level prints too) to stderr."""
    stream = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return stream


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.worker")
    parser.add_argument("--timing", required=True, help="TimingOptions as JSON")
    args = parser.parse_args(argv)
    out = _protocol_stream()

    from .plan import Task, TimingOptions
    from .sweep import LocalRunner

    runner = LocalRunner(TimingOptions(**json.loads(args.timing)))
    out.write(json.dumps({"op": "hello", "facts": runner.describe()}) + "\n")
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("op") == "stop":
            break
        if message.get("op") != "run":
            continue
        task = Task.from_json(message["task"])
        result = runner.run(task)
        out.write(json.dumps({"op": "result", "key": task.key, "result": result}) + "\n")
        if result.get("fatal"):
            return 3  # the CUDA context is gone: the parent starts a fresh worker
    return 0


if __name__ == "__main__":
    sys.exit(main())
