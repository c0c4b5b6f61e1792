"""A stand-in for ``python -m harness.worker`` speaking the same JSON-lines protocol, with no torch.

It "measures" instantly. ``FAKE_CRASH`` (a comma-separated list of ``<workload>@<gpu>``) makes it
die (exit code 9) when handed that workload on that GPU; the GPU is its CUDA_VISIBLE_DEVICES.
Library-style noise is printed to stdout to check the protocol survives it.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from harness.plan import Task  # noqa: E402
from tests.harness.synthetic import FACTS, fake_result  # noqa: E402


def main() -> int:
    gpu = os.environ.get("CUDA_VISIBLE_DEVICES", "?")
    crashes = {item for item in os.environ.get("FAKE_CRASH", "").split(",") if item}
    print("some library banner on stdout", flush=True)
    sys.stdout.write(json.dumps({"op": "hello", "facts": dict(FACTS, physical_index=int(gpu))}) + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        message = json.loads(line)
        if message["op"] == "stop":
            return 0
        task = Task.from_json(message["task"])
        if f"{task.workload}@{gpu}" in crashes:
            os._exit(9)
        time.sleep(float(os.environ.get("FAKE_DELAY", "0")))
        sys.stdout.write(json.dumps({"op": "result", "key": task.key, "result": fake_result(task)}) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
