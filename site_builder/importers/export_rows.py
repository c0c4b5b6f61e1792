"""Reading and writing the public KernelIndex's catalog export: JSON Lines, one
``{"table": ..., "row": ...}`` per line, optionally Zstandard-compressed (``.jsonl.zst``).

Reading is tolerant of what a newer or older export may hold: a table this code does not know is
counted and skipped, and unknown fields inside a row are ignored by whoever reads the row. A line
that is not a ``{table, row}`` object is an error naming the file and line, since nothing after
it can be trusted to be aligned.
"""

from __future__ import annotations

import io
import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from .output import ImporterError

# The tables this code reads (the serving catalog's tables are known, and deliberately skipped).
KNOWN_TABLES = (
    "sources", "projects", "operations", "operation_aliases", "workloads", "implementations",
    "benchmark_runs", "measurements", "record_events", "artifacts",
)
SERVING_TABLES = (
    "model_revisions", "serving_stack_revisions", "serving_configurations", "serving_workloads",
    "serving_runs", "serving_measurements",
)


def _open_lines(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as raw:
        if path.name.endswith(".zst"):
            import zstandard

            reader: BinaryIO = zstandard.ZstdDecompressor().stream_reader(raw)  # type: ignore[assignment]
            yield from io.BufferedReader(reader)  # type: ignore[arg-type]
        else:
            yield from raw


def read_rows(path: Path) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(line number, table, row) of every non-empty line."""
    try:
        for number, line in enumerate(_open_lines(path), start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError as error:
                raise ImporterError(f"{path}:{number}: not JSON: {error}") from None
            if not isinstance(item, dict) or not isinstance(item.get("table"), str) or not isinstance(item.get("row"), dict):
                raise ImporterError(f"{path}:{number}: expected an object with a table name and a row")
            yield number, item["table"], item["row"]
    except OSError as error:
        raise ImporterError(f"{path}: {error}") from None
    except ImporterError:
        raise
    except Exception as error:  # zstandard raises its own ZstdError for a damaged stream
        raise ImporterError(f"{path}: cannot decompress: {error}") from None


@dataclass
class Export:
    """The tables of one export, rows kept as read; ``skipped`` counts rows of unknown tables."""

    path: Path
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    skipped: Counter = field(default_factory=Counter)

    def rows(self, table: str) -> list[dict[str, Any]]:
        return self.tables.get(table, [])

    def by_id(self, table: str) -> dict[str, dict[str, Any]]:
        return {row["id"]: row for row in self.rows(table) if isinstance(row.get("id"), str)}


def read_export(path: Path) -> Export:
    export = Export(path)
    for _line, table, row in read_rows(path):
        if table in KNOWN_TABLES:
            export.tables[table].append(row)
        else:
            export.skipped[table] += 1
    return export


def write_rows(path: Path | None, rows: Iterable[tuple[str, dict[str, Any]]], out: BinaryIO | None = None) -> int:
    """Write ``(table, row)`` pairs as JSON Lines (compressed when ``path`` ends in .zst); returns the count.

    Keys keep their order (an operation's axes are listed as declared), and the output carries no
    timestamps of its own, so one catalogue always gives the same bytes."""
    lines = [json.dumps({"table": table, "row": row}, ensure_ascii=False, separators=(",", ":")) + "\n"
             for table, row in rows]
    payload = "".join(lines).encode("utf-8")
    if path is not None and path.name.endswith(".zst"):
        import zstandard

        payload = zstandard.ZstdCompressor(level=10).compress(payload)
    if path is None:
        assert out is not None
        out.write(payload)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_bytes(payload)
        temporary.replace(path)
    return len(lines)
