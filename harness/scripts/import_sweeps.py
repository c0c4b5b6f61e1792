"""Copy the files a GPU sweep wrote (``h200_sweep.sh`` stages, unpacked) into data/.

    python harness/scripts/import_sweeps.py /tmp/dev/sweeps/full2/data /tmp/dev/sweeps/graph2/data [--data data]

Later folders win for the same path. Only the harness's own kinds are copied: runs under
runs/kernelindex-harness/, and environments, implementations, protocols and workloads the data
folder does not have yet (existing files are never overwritten: they may be hand-edited).
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sources", nargs="+", type=Path)
    parser.add_argument("--data", type=Path, default=Path("data"))
    args = parser.parse_args()
    copied = {"runs": 0, "new": 0}
    for source in args.sources:
        for path in sorted(source.rglob("*.yaml")):
            relative = path.relative_to(source)
            target = args.data / relative
            if relative.parts[:2] == ("runs", "kernelindex-harness"):
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
                copied["runs"] += 1
            elif relative.parts[0] in ("environments", "implementations", "protocols", "workloads") and not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
                copied["new"] += 1
                print(f"added {target}")
    print(f"{copied['runs']} run files copied, {copied['new']} new definition files")


if __name__ == "__main__":
    main()
