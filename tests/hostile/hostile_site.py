"""A valid data repository full of hostile text, for building a whole site and reading it back.

Every free-text field a stranger controls (titles, Markdown descriptions, labels, notes, names,
external ids, install commands) carries markup and script. The data is valid (text is text), so
the site builds; the pages must show that text, escaped, and run none of it. Three workloads and
an improving record give the kernel page its scaling and history charts, whose SVG and inline
spec carry the hostile names too. One run claims a latency below the physical floor.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

BASE = Path(__file__).parent / "base"

# Closing tags, an event handler, both quotes and an entity: every way out of text or an attribute.
XSS = "</title></script><script>alert('xss')</script><img src=x onerror=alert(1)>\"'&amp;"
MARKDOWN = (f"Hostile **Markdown**: {XSS}\n\n[click me](javascript:alert(1)) "
            "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) "
            "![img](javascript:alert(1)) <a href=\"javascript:alert(1)\">raw</a>\n")
FLOOR_RUN = "liger-rope-s4096-implausible"
SEQS = (1024, 2048, 4096)


def q(text: str) -> str:
    """A YAML double-quoted scalar (JSON's escapes are YAML's)."""
    return json.dumps(text)


def write_hostile_repo(root: Path) -> Path:
    data = root / "data"
    shutil.copytree(BASE, data)
    for path in data.rglob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        # Every title becomes hostile (the first `  title:` line is metadata's).
        for index, line in enumerate(lines):
            if line.startswith("  title: "):
                lines[index] = f"  title: {q(line[len('  title: '):] + ' ' + XSS)}"
                lines.insert(index + 1, f"  description: {q(MARKDOWN)}")
                break
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _edit(data / "kernels/llama4-rope.yaml", "  description: Llama-4-style rotary embedding applied to query and key tensors.\n", "")
    _edit(data / "kernels/llama4-rope.yaml", "  sources: [liger-kernel-bench]",
          f"  sources: [liger-kernel-bench]\n  aliases: [{q(XSS)}]\n  labels: {{note: {q(XSS)}}}")
    _edit(data / "projects/liger-kernel.yaml", "  name: Liger-Kernel", f"  name: {q('Liger-Kernel ' + XSS)}")
    _edit(data / "implementations/liger-llama4-rope.yaml", "  callable: {language: triton, symbol: liger_llama4_rope}",
          f"  callable: {{language: triton, symbol: {q(XSS)}, path: {q(XSS)}}}\n"
          f"  buildVariants:\n    - name: default\n      install: {{kind: pip, package: liger-kernel, version: 0.6.1, command: {q('pip install ' + XSS)}}}")
    _edit(data / "protocols/liger-bench-forward.yaml", "    family: liger_kernel_bench",
          f"    family: liger_kernel_bench\n    notes: {q(XSS)}")
    _edit(data / "protocols/liger-bench-forward.yaml", "    name: Liger-Kernel benchmark scripts",
          f"    name: {q('Liger-Kernel benchmark scripts ' + XSS)}")
    _edit(data / "workloads/llama4-rope-s2048.yaml", "    maxAbsoluteError: 0.01",
          f"    maxAbsoluteError: 0.01\n    description: {q(XSS)}")
    _edit(data / "environments/liger-bench-h100.yaml", "    architecture: sm_90",
          f"    architecture: sm_90\n  software:\n    driver: {q(XSS)}\n    framework: {{name: torch, version: {q(XSS)}}}")
    _edit(data / "sources/liger-kernel-bench.yaml", "  license: BSD-2-Clause", f"  license: {q(XSS)}\n  publisher: {q(XSS)}")

    workload = (data / "workloads/llama4-rope-s2048.yaml").read_text(encoding="utf-8")
    liger = (data / "runs/liger-rope-s2048.yaml").read_text(encoding="utf-8")
    transformers = (data / "runs/transformers-rope-s2048.yaml").read_text(encoding="utf-8")
    for seq in SEQS:
        if seq != 2048:
            (data / f"workloads/llama4-rope-s{seq}.yaml").write_text(
                workload.replace("s2048", f"s{seq}").replace("seq: 2048", f"seq: {seq}"), encoding="utf-8")
            scale = seq / 2048
            (data / f"runs/liger-rope-s{seq}.yaml").write_text(_scaled(liger, seq, scale), encoding="utf-8")
            (data / f"runs/transformers-rope-s{seq}.yaml").write_text(_scaled(transformers, seq, scale), encoding="utf-8")
    # An older, slower Liger run: the record history has two entries, so it gets a chart.
    older = (liger.replace("name: liger-rope-s2048", "name: liger-rope-s2048-older")
             .replace("liger/seq2048", "liger/seq2048/older").replace("2025-08-07T21:42:12Z", "2025-06-01T10:00:00Z")
             .replace("p20: 81000", "p20: 95000").replace("median: 81300", "median: 95300").replace("p80: 81700", "p80: 95700"))
    older = older.replace("  labels: {liger_version: 0.6.1}",
                          f"  labels: {{liger_version: {q(XSS)}}}\n  attestations:\n"
                          f"    - {{kind: note, author: {q(XSS)}, date: 2025-07-01, note: {q(XSS)}}}")
    older = older.replace("  status: passed", f"  status: passed\n  correctness: {{comparator: allclose, notes: {q(XSS)}}}")
    (data / "runs/liger-rope-s2048-older.yaml").write_text(older, encoding="utf-8")
    # 1 µs for a workload that moves ~170 MB: faster than an H100's memory allows.
    implausible = (liger.replace("name: liger-rope-s2048", f"name: {FLOOR_RUN}").replace("llama4-rope-s2048", "llama4-rope-s4096")
                   .replace("liger/seq2048", "liger/seq4096/implausible")
                   .replace("p20: 81000", "p20: 900").replace("median: 81300", "median: 1000").replace("p80: 81700", "p80: 1100"))
    (data / f"runs/{FLOOR_RUN}.yaml").write_text(implausible, encoding="utf-8")
    return data


def _scaled(run: str, seq: int, scale: float) -> str:
    run = run.replace("-s2048", f"-s{seq}").replace("seq2048", f"seq{seq}")
    return re.sub(r"\b(p20|median|p80): (\d+)", lambda m: f"{m[1]}: {int(int(m[2]) * scale)}", run)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} must occur once in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


AS_OF = "2025-09-01"
_built: dict[str, Path] = {}


def built_hostile_site(workdir: Path) -> Path:
    """The hostile repository built once per test process (the hostile and browser suites share it)."""
    if "site" not in _built:
        from datetime import date

        from site_builder.build import build_site

        data = write_hostile_repo(workdir)
        site = workdir / "site"
        build_site(data, site, as_of=date.fromisoformat(AS_OF))
        _built["site"] = site
    return _built["site"]
