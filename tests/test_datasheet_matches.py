"""Every bundled environment finds its GPU's datasheet (so its runs get floors), or says in its own
description that none is bundled yet: no GPU goes without floors silently."""

from __future__ import annotations

from pathlib import Path

from site_builder.canonical_yaml import load_plain
from site_builder.derive.floors import DatasheetMatch, match_datasheet

DATA = Path(__file__).resolve().parents[1] / "data"


def _documents(folder: str) -> list[tuple[str, dict]]:
    return [(path.name, load_plain(path.read_text(encoding="utf-8"))) for path in sorted((DATA / folder).glob("*.yaml"))]


def test_every_environment_matches_a_datasheet_or_says_why_not():
    matches = [DatasheetMatch(doc["metadata"]["name"], match["product"], match.get("formFactor"))
               for _, doc in _documents("hardware") for match in doc["spec"].get("matches") or []]
    silent, said = [], 0
    for name, doc in _documents("environments"):
        hardware = doc["spec"]["hardware"]
        if match_datasheet(hardware["product"], hardware.get("formFactor"), matches) is None:
            if "No datasheet" in (doc["metadata"].get("description") or ""):
                said += 1
            else:
                silent.append(name)
    assert not silent, silent
    assert said <= 1  # only the H100 NVL card awaits a cited datasheet


def test_the_a100_40gb_as_liger_names_it_gets_the_40gb_datasheet():
    matches = [DatasheetMatch(doc["metadata"]["name"], match["product"], match.get("formFactor"))
               for _, doc in _documents("hardware") for match in doc["spec"].get("matches") or []]
    assert match_datasheet("NVIDIA A100-SXM4-40GB", "SXM4-40GB", matches) == "a100-40gb-sxm"
