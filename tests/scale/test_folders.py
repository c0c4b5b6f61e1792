"""load.Folders answers what resolving each file would: the folder under data/ it really sits in."""

from __future__ import annotations

from pathlib import Path

from site_builder.load import Folders


def _resolved_top(path: Path, data_dir: Path) -> str | None:
    """The check as it is written for one file: resolve the file and the data folder."""
    try:
        return path.resolve().relative_to(data_dir.resolve()).parts[0]
    except ValueError:
        return None


def test_folders_agree_with_resolving_each_file(tmp_path: Path, monkeypatch) -> None:
    data = tmp_path / "repo" / "data"
    outside = tmp_path / "elsewhere" / "runs"
    for folder in (data / "runs" / "a", data / "sources", outside):
        folder.mkdir(parents=True)
    (data / "linked-runs").symlink_to(data / "runs" / "a")  # a link inside the data folder
    (data / "sources" / "out").symlink_to(outside)  # and one that leads out of it
    (tmp_path / "data-link").symlink_to(data)  # the data folder named through a link
    files = [data / "runs" / "a" / "r.yaml", data / "sources" / "s.yaml", data / "top.yaml",
             data / "linked-runs" / "r.yaml", data / "sources" / "out" / "o.yaml"]
    for file in files:
        if not file.exists():
            file.write_text("kind: Source\n")
    monkeypatch.chdir(tmp_path / "repo")
    relative = [Path("data") / file.relative_to(data) for file in files]
    through_link = [tmp_path / "data-link" / file.relative_to(data) for file in files]
    for data_dir, paths in ((data, files), (tmp_path / "data-link", through_link), (Path("data"), relative)):
        folders = Folders(data_dir)
        found = [folders.top(path) for path in paths + paths]  # twice: the second time from what it kept
        expected = [_resolved_top(path, data_dir) for path in paths + paths]
        assert found == expected
        assert expected[:5] == ["runs", "sources", "top.yaml", "runs", None]
