"""Bad and hostile data files: each gives exactly one `path:line:col: message` line, and nothing is built.

Every case starts from the valid repository in ``base/`` and breaks it in one place, by replacing
one piece of text in one file or by writing one whole file. The expected line is exact: the path,
the line and column a person must go to, and the message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

RUN = "runs/liger-rope-s2048.yaml"
SOURCE = "sources/liger-kernel-bench.yaml"
KERNEL = "kernels/llama4-rope.yaml"
WORKLOAD = "workloads/llama4-rope-s2048.yaml"
IMPLEMENTATION = "implementations/liger-llama4-rope.yaml"
HARDWARE = "hardware/nvidia-h100-sxm.yaml"
PROJECT = "projects/liger-kernel.yaml"


@dataclass(frozen=True)
class Case:
    id: str
    file: str
    expected: str  # the one problem line
    old: str | None = None  # replace this text in `file` ...
    new: str | None = None  # ... with this
    content: str | bytes | None = None  # or write this as the whole of `file`

    def apply(self, repo) -> None:
        if self.content is not None:
            repo.write(self.file, self.content)
        else:
            repo.replace(self.file, self.old, self.new)


def _base(relative: str) -> str:
    from .conftest import BASE

    return (BASE / relative).read_text(encoding="utf-8")


BASE_RUN = _base(RUN)
# The run without its sourceNative block: its identity is then its content alone.
RUN_WITHOUT_EXTERNAL_ID = re.sub(r"  sourceNative:\n(    .*\n)+", "", BASE_RUN)

MEDIAN = ("      median: 81300", "data/runs/liger-rope-s2048.yaml:17:7: spec.timing.latencyNs.median: ")
SLUG_RULE = "use lowercase a-z, 0-9, '.', '_' and '-', starting with a letter or digit"
NOT_HTTPS = "is not an https:// URL (no spaces, quotes or angle brackets)"

CASES = [
    # ---- YAML itself
    Case("malformed-flow", RUN, "data/runs/liger-rope-s2048.yaml:15:14: YAML: did not find expected ',' or ']'",
         "  timing:", "  timing: ["),
    Case("malformed-mapping", RUN, "data/runs/liger-rope-s2048.yaml:12:15: YAML: mapping values are not allowed in this context",
         "  status: passed", "  status: pass: ed"),
    Case("tab-indent", RUN, "data/runs/liger-rope-s2048.yaml:13:1: YAML: found a tab character that violates indentation",
         "  status: passed", "  status: passed\n\tnote: x"),
    Case("duplicate-key", RUN, 'data/runs/liger-rope-s2048.yaml:13:3: YAML: duplicate key "status"',
         "  status: passed", "  status: passed\n  status: revoked"),
    Case("two-documents", RUN, "data/runs/liger-rope-s2048.yaml:23:1: YAML: expected a single document in the stream but found another document",
         content=BASE_RUN + "---\nkind: Source\n"),
    Case("python-tag", RUN, "data/runs/liger-rope-s2048.yaml:12:11: YAML tag !!python/object:os.system is not allowed in data files; quote the value instead",
         "  status: passed", "  status: !!python/object:os.system passed"),
    Case("binary-tag", RUN, "data/runs/liger-rope-s2048.yaml:5:10: YAML tag !!binary is not allowed in data files; quote the value instead",
         "  title: Liger Llama 4 RoPE · seq 2048", "  title: !!binary PHNjcmlwdD4="),
    Case("alias-bomb", "runs/bomb.yaml", "data/runs/bomb.yaml:1:4: YAML anchors and aliases are not allowed in data files",
         content="a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
                 + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(8))),
    Case("merge-key", RUN, "data/runs/liger-rope-s2048.yaml:13:11: YAML anchors and aliases are not allowed in data files",
         "  timing:", "  timing: &t\n    <<: *t\n  other:"),
    Case("deep-nesting", RUN, "data/runs/liger-rope-s2048.yaml:6:48: YAML is nested deeper than 24 levels",
         "  labels: {liger_version: 0.6.1}", "  labels: {liger_version: " + "[" * 30 + "]" * 30 + "}"),
    # 300,000 levels: the C parser would crash the process (a segmentation fault) if it were let compose this.
    Case("crash-deep-nesting", "runs/deep.yaml", "data/runs/deep.yaml:1:49: YAML is nested deeper than 24 levels",
         content="- " * 300_000 + "x\n"),
    Case("crash-deep-flow", "runs/deep.yaml", "data/runs/deep.yaml:1:27: YAML is nested deeper than 24 levels",
         content="a: " + "[" * 300_000 + "]" * 300_000 + "\n"),
    Case("huge-integer", RUN, "data/runs/liger-rope-s2048.yaml:17:15: number has too many digits",
         MEDIAN[0], "      median: 1" + "0" * 5000),
    Case("not-a-mapping", "runs/list.yaml", "data/runs/list.yaml:1:1: a data file holds one mapping with apiVersion, kind, metadata and spec",
         content="- apiVersion: kernelindex.dev/v1alpha1\n"),
    Case("empty-file", "runs/empty.yaml", "data/runs/empty.yaml:1:1: a data file holds one mapping with apiVersion, kind, metadata and spec",
         content=""),
    # ---- bytes
    Case("too-large", "runs/big.yaml", "data/runs/big.yaml:1:1: file is 1,048,579 bytes; the limit is 1,048,576",
         content=b"# " + b"x" * (1 << 20) + b"\n"),
    Case("not-utf8", RUN, "data/runs/liger-rope-s2048.yaml:5:16: bytes are not UTF-8 (0xff)",
         content=BASE_RUN.encode("utf-8").replace(b"Liger Llama", b"Liger \xff Llama")),
    Case("latin1", RUN, "data/runs/liger-rope-s2048.yaml:5:29: bytes are not UTF-8 (0xb7)",
         content=BASE_RUN.encode("latin-1")),
    Case("bom", RUN, "data/runs/liger-rope-s2048.yaml:1:1: file starts with a UTF-8 byte order mark; save it without one",
         content=b"\xef\xbb\xbf" + BASE_RUN.encode("utf-8")),
    Case("nul-byte", RUN, "data/runs/liger-rope-s2048.yaml:5:15: NUL byte in a text file",
         "Liger Llama", "Liger\x00Llama"),
    # ---- envelope and schema
    Case("unknown-kind", RUN, "data/runs/liger-rope-s2048.yaml:2:1: unknown kind 'BenchmarkRuns'; expected one of BenchmarkProtocol, BenchmarkRun, ExecutionEnvironment, Hardware, ImplementationRevision, OperationSpec, SoftwareProject, Source, WorkloadCase, WorkloadSuite",
         "kind: BenchmarkRun", "kind: BenchmarkRuns"),
    Case("kind-in-wrong-folder", RUN, "data/runs/liger-rope-s2048.yaml:2:1: a Source belongs under sources/, not runs/",
         "kind: BenchmarkRun", "kind: Source"),
    Case("wrong-api-version", RUN, "data/runs/liger-rope-s2048.yaml:1:1: apiVersion: Input should be 'kernelindex.dev/v1alpha1'",
         "apiVersion: kernelindex.dev/v1alpha1", "apiVersion: kernelindex.dev/v2"),
    Case("unknown-key", RUN, "data/runs/liger-rope-s2048.yaml:13:3: unknown key 'spec.rating'",
         "  status: passed", "  status: passed\n  rating: 5"),
    Case("misspelt-key", RUN, "data/runs/liger-rope-s2048.yaml:12:3: unknown key 'spec.statuz'; did you mean 'status'?",
         "  status: passed", "  statuz: passed"),
    Case("unknown-metadata-key", RUN, "data/runs/liger-rope-s2048.yaml:5:3: unknown key 'metadata.tittle'",
         "  title: Liger", "  tittle: Liger"),
    Case("missing-field", RUN, "data/runs/liger-rope-s2048.yaml:7:1: missing required key 'spec.status'",
         "  status: passed\n", ""),
    Case("missing-spec", SOURCE, "data/sources/liger-kernel-bench.yaml:1:1: missing required key 'spec'",
         content=_base(SOURCE).split("spec:")[0]),
    Case("wrong-type-title", RUN, "data/runs/liger-rope-s2048.yaml:5:3: metadata.title: Input should be a valid string",
         "  title: Liger Llama 4 RoPE · seq 2048", "  title: [1, 2]"),
    Case("wrong-type-status", RUN, "data/runs/liger-rope-s2048.yaml:12:3: spec.status: Input should be 'passed', 'incorrect_shape', 'incorrect_dtype', 'incorrect_numerical', 'compile_error', 'runtime_error', 'timeout', 'resource_exceeded', 'invalid_reference', 'policy_violation', 'suspected_reward_hack', 'incomplete_evidence' or 'revoked'",
         "  status: passed", "  status: 1"),
    Case("wrong-type-axis", WORKLOAD, "data/workloads/llama4-rope-s2048.yaml:8:31: spec.axes.hidden: Input should be a valid integer, unable to parse string as an integer",
         "hidden: 8192", "hidden: lots"),
    Case("file-name-mismatch", "runs/other-name.yaml", "data/runs/other-name.yaml:4:3: file name must be liger-rope-s2048.yaml (metadata.name)",
         content=BASE_RUN),
    # ---- latencies
    Case("nan-latency", RUN, MEDIAN[1] + "duration must be a finite number", MEDIAN[0], "      median: .nan"),
    Case("inf-latency", RUN, MEDIAN[1] + "duration must be a finite number", MEDIAN[0], "      median: .inf"),
    Case("overflow-latency", RUN, MEDIAN[1] + "duration must be a finite number", MEDIAN[0], "      median: 1e400"),
    Case("negative-latency", RUN, MEDIAN[1] + "duration must be positive", MEDIAN[0], "      median: -81300"),
    Case("zero-latency", RUN, MEDIAN[1] + "duration must be positive", MEDIAN[0], "      median: 0"),
    Case("absurd-latency", RUN, MEDIAN[1] + "duration 120000000000 ns is over a minute: check the unit",
         MEDIAN[0], "      median: 120 s"),
    Case("unitless-string-latency", RUN, MEDIAN[1] + "'81.3' is not a duration: write integer ns or a number with ns, us, ms or s",
         MEDIAN[0], "      median: '81.3'"),
    Case("fractional-ns", RUN, MEDIAN[1] + "a bare duration is integer nanoseconds; write a unit for fractions, e.g. '81.3 us'",
         MEDIAN[0], "      median: 81300.5"),
    Case("boolean-latency", RUN, MEDIAN[1] + "expected a duration", MEDIAN[0], "      median: true"),
    Case("p20-above-median", RUN, "data/runs/liger-rope-s2048.yaml:16:7: spec.timing.latencyNs.p20: p20 (91000 ns) is above median (81300 ns)",
         "      p20: 81000", "      p20: 91000"),
    Case("primary-missing", RUN, "data/runs/liger-rope-s2048.yaml:13:3: spec.timing: primaryStatistic is mean but latencyNs.mean is missing",
         "    primaryStatistic: median", "    primaryStatistic: mean"),
    Case("negative-measurement", RUN, "data/runs/liger-rope-s2048.yaml:14:51: spec.measurements.0.value: a measurement cannot be negative",
         "  timing:", "  measurements:\n    - {metric: latency, statistic: p20, unit: ns, value: -1}\n  timing:"),
    Case("nan-source-metric", RUN, "data/runs/liger-rope-s2048.yaml:22:15: spec.sourceNative.metrics.ms_50: must be a finite number (no NaN or infinity)",
         "    externalId: llama4_rope/forward/liger/seq2048", "    externalId: llama4_rope/forward/liger/seq2048\n    metrics: {ms_50: .nan}"),
    # ---- dates
    Case("observed-in-the-future", RUN, "data/runs/liger-rope-s2048.yaml:22:3: spec.observedAt: 2999-08-07T21:42:12.000Z is in the future (more than a day after the wall clock)",
         "2025-08-07T21:42:12Z", "2999-08-07T21:42:12Z"),
    Case("observed-before-2000", RUN, "data/runs/liger-rope-s2048.yaml:22:3: spec.observedAt: 1970-01-01T00:00:00.000Z is before 2000-01-01: check the date",
         "2025-08-07T21:42:12Z", "1970-01-01T00:00:00Z"),
    Case("observed-without-timezone", RUN, "data/runs/liger-rope-s2048.yaml:22:3: spec.observedAt: date-time has no timezone: add Z or an offset such as +00:00",
         "2025-08-07T21:42:12Z", "2025-08-07T21:42:12"),
    Case("observed-date-only", RUN, "data/runs/liger-rope-s2048.yaml:22:3: spec.observedAt: a date alone is ambiguous: give a time and a timezone, e.g. 2025-08-07T21:42:12Z",
         "2025-08-07T21:42:12Z", "2025-08-07"),
    Case("observed-month-13", RUN, "data/runs/liger-rope-s2048.yaml:22:3: spec.observedAt: '2025-13-07T21:42:12Z' is not an ISO 8601 date-time",
         "2025-08-07T21:42:12Z", "'2025-13-07T21:42:12Z'"),
    # ---- slugs that would escape the output folder or fool a reader
    Case("slug-dotdot", RUN, f"data/runs/liger-rope-s2048.yaml:9:3: spec.workload: '../../etc' is not a slug: {SLUG_RULE}",
         "  workload: llama4-rope-s2048", "  workload: ../../etc"),
    Case("slug-inner-dotdot", RUN, "data/runs/liger-rope-s2048.yaml:9:3: spec.workload: 'a..b' is not a slug: '..' is not allowed",
         "  workload: llama4-rope-s2048", "  workload: a..b"),
    Case("slug-slash", RUN, f"data/runs/liger-rope-s2048.yaml:9:3: spec.workload: 'a/b' is not a slug: {SLUG_RULE}",
         "  workload: llama4-rope-s2048", "  workload: a/b"),
    Case("slug-uppercase", RUN, f"data/runs/liger-rope-s2048.yaml:9:3: spec.workload: 'Llama4-rope-s2048' is not a slug: {SLUG_RULE}",
         "  workload: llama4-rope-s2048", "  workload: Llama4-rope-s2048"),
    Case("slug-cyrillic-a", RUN, "data/runs/liger-rope-s2048.yaml:9:3: spec.workload: 'llаma4-rope-s2048' is not a slug: it contains 'а' (U+0430 CYRILLIC SMALL LETTER A); use ASCII only",
         "  workload: llama4-rope-s2048", "  workload: ll\u0430ma4-rope-s2048"),
    Case("slug-fullwidth-slash", RUN, "data/runs/liger-rope-s2048.yaml:9:3: spec.workload: 'a／b' is not a slug: it contains '／' (U+FF0F FULLWIDTH SOLIDUS); use ASCII only",
         "  workload: llama4-rope-s2048", "  workload: a\uff0fb"),
    Case("metadata-name-escapes", RUN, f"data/runs/liger-rope-s2048.yaml:4:3: metadata.name: '../../index' is not a slug: {SLUG_RULE}",
         "  name: liger-rope-s2048", "  name: ../../index"),
    Case("slug-too-long", RUN, "data/runs/liger-rope-s2048.yaml:9:3: spec.workload: slug is 5000 characters long; at most 100",
         "  workload: llama4-rope-s2048", "  workload: " + "a" * 5000),
    Case("label-key-html", RUN, "data/runs/liger-rope-s2048.yaml:6:12: metadata.labels.<b>: '<b>' is not a token: use lowercase a-z, 0-9 and '_', starting with a letter",
         "  labels: {liger_version: 0.6.1}", "  labels: {'<b>': x}"),
    Case("artifact-path-escapes", RUN, "data/runs/liger-rope-s2048.yaml:26:7: spec.evidence.artifacts.0.path: '../../etc/passwd' is not a relative path of letters, digits, '.', '_' and '-' (no '..', no leading '/')",
         "  observedAt: 2025-08-07T21:42:12Z", "  observedAt: 2025-08-07T21:42:12Z\n  evidence:\n    artifacts:\n    - kind: log\n      path: ../../etc/passwd"),
    Case("artifact-path-absolute", RUN, "data/runs/liger-rope-s2048.yaml:26:7: spec.evidence.artifacts.0.path: '/etc/passwd' is not a relative path of letters, digits, '.', '_' and '-' (no '..', no leading '/')",
         "  observedAt: 2025-08-07T21:42:12Z", "  observedAt: 2025-08-07T21:42:12Z\n  evidence:\n    artifacts:\n    - kind: log\n      path: /etc/passwd"),
    # ---- URLs: only https:// reaches a page
    Case("javascript-url", SOURCE, f"data/sources/liger-kernel-bench.yaml:8:3: spec.url: 'javascript:alert(1)' {NOT_HTTPS}",
         "  url: https://github.com/linkedin/Liger-Kernel", "  url: javascript:alert(1)"),
    Case("data-url", SOURCE, f"data/sources/liger-kernel-bench.yaml:8:3: spec.url: 'data:text/html,<script>alert(1)</script>' {NOT_HTTPS}",
         "  url: https://github.com/linkedin/Liger-Kernel", "  url: 'data:text/html,<script>alert(1)</script>'"),
    Case("http-url", PROJECT, f"data/projects/liger-kernel.yaml:9:3: spec.repository: 'http://github.com/linkedin/Liger-Kernel' {NOT_HTTPS}",
         "  repository: https://github.com/linkedin/Liger-Kernel", "  repository: http://github.com/linkedin/Liger-Kernel"),
    Case("url-breaks-attribute", PROJECT, f"""data/projects/liger-kernel.yaml:9:3: spec.repository: 'https://x.invalid/" onmouseover="alert(1)' {NOT_HTTPS}""",
         "  repository: https://github.com/linkedin/Liger-Kernel", """  repository: 'https://x.invalid/" onmouseover="alert(1)'"""),
    Case("javascript-artifact-url", RUN, f"data/runs/liger-rope-s2048.yaml:26:7: spec.evidence.artifacts.0.url: 'JavaScript:alert(1)' {NOT_HTTPS}",
         "  observedAt: 2025-08-07T21:42:12Z", "  observedAt: 2025-08-07T21:42:12Z\n  evidence:\n    artifacts:\n    - kind: log\n      url: JavaScript:alert(1)"),
    # ---- references across files
    Case("dangling-workload", RUN, "data/runs/liger-rope-s2048.yaml:9:3: spec.workload: no WorkloadCase or WorkloadSuite named 'llama4-rope-s4096'",
         "  workload: llama4-rope-s2048", "  workload: llama4-rope-s4096"),
    Case("dangling-implementation", RUN, "data/runs/liger-rope-s2048.yaml:8:3: spec.implementation: no ImplementationRevision named 'nope'",
         "  implementation: liger-llama4-rope", "  implementation: nope"),
    Case("dangling-source", RUN, "data/runs/liger-rope-s2048.yaml:20:5: spec.sourceNative.source: no Source named 'nope'",
         "    source: liger-kernel-bench", "    source: nope"),
    Case("dangling-supersedes", RUN, "data/runs/liger-rope-s2048.yaml:13:3: spec.supersedes: no BenchmarkRun named 'nope'",
         "  status: passed", "  status: passed\n  supersedes: nope"),
    Case("supersedes-itself", RUN, "data/runs/liger-rope-s2048.yaml:13:3: a run cannot supersede itself",
         "  status: passed", "  status: passed\n  supersedes: liger-rope-s2048"),
    Case("dangling-project", IMPLEMENTATION, "data/implementations/liger-llama4-rope.yaml:7:3: spec.project: no SoftwareProject named 'ligerr'",
         "  project: liger-kernel", "  project: ligerr"),
    Case("dangling-headline", KERNEL, "data/kernels/llama4-rope.yaml:7:3: metadata.headlineWorkload: no workload named 'nope'",
         "  headlineWorkload: llama4-rope-s2048", "  headlineWorkload: nope"),
    Case("dangling-cite", HARDWARE, "data/hardware/nvidia-h100-sxm.yaml:20:14: spec.peakTflops.bf16.cite.source: no Source named 'nope'",
         "      value: 989.4\n      cite: {source: nvidia-h100-datasheet}", "      value: 989.4\n      cite: {source: nope}"),
    Case("workload-binds-unknown-axis", WORKLOAD, "data/workloads/llama4-rope-s2048.yaml:8:3: axes not in the operation: extra",
         "hidden: 8192", "hidden: 8192, extra: 1"),
    # ---- duplicates
    Case("duplicate-run-external-id", "runs/a-copy.yaml", "data/runs/liger-rope-s2048.yaml:21:5: duplicate run: liger-kernel-bench 'llama4_rope/forward/liger/seq2048' is already in data/runs/a-copy.yaml",
         content=BASE_RUN.replace("name: liger-rope-s2048", "name: a-copy")),
    Case("duplicate-run-content", "runs/z-copy.yaml", "data/runs/z-copy.yaml:7:1: duplicate run: same content as data/runs/liger-rope-s2048.yaml",
         content=RUN_WITHOUT_EXTERNAL_ID.replace("name: liger-rope-s2048", "name: z-copy")),
    Case("duplicate-name", "runs/2025/liger-rope-s2048.yaml", "data/runs/liger-rope-s2048.yaml:4:3: BenchmarkRun name 'liger-rope-s2048' is already used by data/runs/2025/liger-rope-s2048.yaml",
         content=BASE_RUN.replace("liger/seq2048", "liger/seq2048-again")),
]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_one_precise_error(repo, case: Case):
    if case.id == "duplicate-run-content":
        repo.write(RUN, RUN_WITHOUT_EXTERNAL_ID)
    case.apply(repo)
    assert repo.problems() == [case.expected]


def test_the_base_repository_is_valid(repo):
    assert repo.problems() == []


def test_case_ids_are_unique():
    assert len({case.id for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_build_stops_with_the_same_line_and_writes_nothing(repo, case):
    if case.id == "duplicate-run-content":
        repo.write(RUN, RUN_WITHOUT_EXTERNAL_ID)
    case.apply(repo)
    result = repo.cli("build", "--quiet", "--data", "data", "--out", "site")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [case.expected, "build stopped: 1 problem in data; nothing was written"]
    assert result.stdout == ""
    # No site, no staging folder left behind; only the data and the parse cache.
    assert {p.name for p in repo.root.iterdir()} <= {"data", ".cache"}


def test_a_symbolic_link_is_refused(repo):
    # Git stores links; one in a pull request must not read a file from elsewhere on the machine.
    outside = repo.root / "outside.yaml"
    outside.write_text(_base(SOURCE).replace("liger-kernel-bench", "leaked"), encoding="utf-8")
    (repo.data / "sources" / "leaked.yaml").symlink_to(outside)
    assert repo.problems() == ["data/sources/leaked.yaml:1:1: a data file must be a regular file, not a symbolic link"]
