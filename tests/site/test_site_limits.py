"""The check pages.yml runs before uploading (issue 24): a site over a host's limits fails with a
message naming the figure and the limit; one within them passes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from site_builder.site_limits import DOCUMENT_LIMIT, HOSTS, command, measure_site, problems


def write(root: Path, path: str, size: int) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"x" * size)


def test_measure_counts_every_file_and_finds_the_largest(tmp_path: Path):
    write(tmp_path, "index.html", 100)
    write(tmp_path, "runs/a.html", 300)
    write(tmp_path, "static/vega.js", 900)
    write(tmp_path, "api/v1/runs/a.json", 200)
    size = measure_site(tmp_path)
    assert (size.bytes, size.files) == (1500, 4)
    assert size.largest == (900, "static/vega.js")
    assert size.largest_document == (300, "runs/a.html")  # scripts are not documents


def test_each_limit_over_is_named_with_its_figures(tmp_path: Path):
    write(tmp_path, "a.html", 10)
    size = measure_site(tmp_path)
    assert problems(size, HOSTS["github-pages"]) == []
    tight = replace(HOSTS["gitlab-pages"], max_bytes=9, max_files=0, max_file_bytes=5)
    found = problems(size, tight)
    assert found == ["the site is 10 bytes; GitLab Pages publishes at most 9",
                     "the site has 1 files; GitLab Pages takes at most 0",
                     "a.html is 10 bytes; GitLab Pages takes files of at most 5"]


def test_a_document_over_two_megabytes_fails_on_every_host(tmp_path: Path):
    write(tmp_path, "api/v1/challenges.json", DOCUMENT_LIMIT + 1)
    size = measure_site(tmp_path)
    for limits in HOSTS.values():
        assert any(p.startswith("api/v1/challenges.json is 2,000,001 bytes") for p in problems(size, limits))


def test_the_command_exits_1_with_a_clear_message_when_over(tmp_path: Path):
    write(tmp_path, "ok.html", 10)
    result = CliRunner().invoke(command, [str(tmp_path), "--host", "github-pages"])
    assert result.exit_code == 0 and "fits GitHub Pages" in result.output
    for number in range(3):
        write(tmp_path, f"f{number}.html", 1)
    result = CliRunner().invoke(command, [str(tmp_path), "--host", "cloudflare-pages"])
    assert result.exit_code == 0
    write(tmp_path, "big.json", DOCUMENT_LIMIT + 5)
    result = CliRunner().invoke(command, [str(tmp_path), "--host", "github-pages"])
    assert result.exit_code == 1
    assert "does not fit GitHub Pages: big.json is 2,000,005 bytes; no page or JSON document may be over 2,000,000" in result.output
