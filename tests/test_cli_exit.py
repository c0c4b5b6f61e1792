"""The console script's quick exit after a build: output flushed, exit status kept."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

BASE = Path(__file__).parent / "hostile" / "base"


def kernelindex(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "KERNELINDEX_CACHE_DIR": str(cwd / "cache")}
    return subprocess.run([sys.executable, "-m", "site_builder.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_a_build_exits_at_once_with_its_summary_printed(tmp_path: Path) -> None:
    shutil.copytree(BASE, tmp_path / "data")
    done = kernelindex("build", "--quiet", "--data", "data", "--out", "site", "--as-of", "2025-09-01", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Site of ") and done.stdout.endswith("(--as-of).\n")
    assert (tmp_path / "site" / "index.html").is_file()


def test_a_failed_build_keeps_its_exit_status_and_message(tmp_path: Path) -> None:
    done = kernelindex("build", "--quiet", "--data", "missing", "--out", "site", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("error: ")
    usage = kernelindex("build", "--no-such-option", cwd=tmp_path)
    assert usage.returncode == 2 and "No such option" in usage.stderr


def test_a_build_told_to_stop_leaves_the_site_as_it_was(tmp_path: Path) -> None:
    """SIGTERM (``kill``, a cancelled CI job) mid-render: the build unwinds as a failed one does,
    its staging folder removed and no site written."""
    import signal

    env = {**os.environ, "KERNELINDEX_CACHE_DIR": str(tmp_path / "cache")}
    made = subprocess.run([sys.executable, "-m", "site_builder.cli", "synth", "--runs", "2000", "--out", "data"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    build = subprocess.Popen([sys.executable, "-m", "site_builder.cli", "build", "--data", "data", "--out", "site",
                              "--as-of", "2026-06-30"], cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True)
    assert build.stderr is not None
    for line in build.stderr:  # rendering has begun: the staging folder holds pages
        if line.rstrip().endswith(" pages"):
            break
    build.send_signal(signal.SIGTERM)
    build.stderr.read()
    assert build.wait(timeout=120) == 128 + signal.SIGTERM
    assert sorted(path.name for path in tmp_path.iterdir()) == ["cache", "data"]


def test_the_build_command_gives_the_sigterm_handler_back(tmp_path: Path, monkeypatch) -> None:
    """Run in a caller's own process, the command leaves SIGTERM as it found it: its processes
    forked later (InFork) must still die by the signal."""
    import signal

    from click.testing import CliRunner

    from site_builder.build import command

    shutil.copytree(BASE, tmp_path / "data")
    monkeypatch.setenv("KERNELINDEX_CACHE_DIR", str(tmp_path / "cache"))
    before = signal.getsignal(signal.SIGTERM)
    done = CliRunner().invoke(command, ["--quiet", "--data", str(tmp_path / "data"), "--out", str(tmp_path / "site"),
                                        "--as-of", "2025-09-01"])
    assert done.exit_code == 0, done.output
    assert signal.getsignal(signal.SIGTERM) is before
