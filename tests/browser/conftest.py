"""The built site in a real browser: Debian's Chromium, driven by Playwright (no browser download).

The bundled data is built once per session into a temporary folder and shared by the link checker
(pure Python) and the browser tests. Pages are served by ``http.server`` on 127.0.0.1 at a random
port and also opened from ``file://``. Every request a page makes is routed through a guard: any
URL that is not that server or a file is aborted and fails the test (no CDN, nothing leaves the
machine).

When Chromium or Playwright is missing, the tests marked ``browser`` are skipped, with a pytest
warning and a red line in the summary, never silently (``.ci/run`` installs Chromium).
"""

from __future__ import annotations

import functools
import os
import shutil
import threading
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.scratch import scratch_folder

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data"
AS_OF = date(2026, 12, 2)  # after the newest observation in data/
ARTIFACTS = REPO / "test-artifacts"
AXE = REPO / ".cache" / "npm" / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM = os.environ.get("KERNELINDEX_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
# What this machine's closed network needs (see the environment notes): no background traffic, no
# QUIC, no first-run work, no component updates; --no-sandbox because CI runs as root.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic",
                 "--no-first-run", "--disable-component-update", "--disable-sync"]


def _unavailable() -> str | None:
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return f"Chromium not found at {CHROMIUM} (install Debian's chromium: .ci/run does it as root)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed (make install-browser)"
    return None


UNAVAILABLE = _unavailable()
_skipped: list[str] = []


def pytest_runtest_setup(item):
    if UNAVAILABLE is not None and item.get_closest_marker("browser") is not None:
        if not _skipped:
            warnings.warn(pytest.PytestWarning(f"browser tests skipped: {UNAVAILABLE}"), stacklevel=1)
        _skipped.append(item.nodeid)
        pytest.skip(f"BROWSER TESTS SKIPPED: {UNAVAILABLE}")


def pytest_terminal_summary(terminalreporter):
    if _skipped:
        terminalreporter.write_sep("!", f"{len(_skipped)} BROWSER TESTS SKIPPED: {UNAVAILABLE}", red=True, bold=True)


# ------------------------------------------------------------------------------------------------
# Sites


@pytest.fixture(scope="package")
def bundled_site(tmp_path_factory) -> Iterator[Path]:
    """The bundled data, built once. KERNELINDEX_TEST_SITE=<folder> checks a site built already
    (``make build``, then iterate on these tests without waiting for a build each time)."""
    from site_builder.build import build_site

    prebuilt = os.environ.get("KERNELINDEX_TEST_SITE")
    if prebuilt:
        yield Path(prebuilt).resolve()
        return
    from tests.bundled import bundled_data

    if not any((DATA / "runs").rglob("*.yaml")):
        pytest.skip("data/runs/ is empty: nothing to build")
    with scratch_folder(tmp_path_factory, "bundled") as folder:
        # All of data/ but a sample of Liger's weekly history (tests/bundled.py says why that proves enough).
        build_site(bundled_data(), folder / "site", as_of=AS_OF)
        yield folder / "site"


@pytest.fixture(scope="package")
def hostile_site(tmp_path_factory) -> Iterator[Path]:
    from tests.hostile.hostile_site import built_hostile_site

    with scratch_folder(tmp_path_factory, "hostile") as folder:
        yield built_hostile_site(folder)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


def serve(folder: Path) -> Iterator[str]:
    """``folder`` over HTTP on 127.0.0.1 at a free port; yields the base URL (ending in '/')."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="package")
def bundled_url(bundled_site) -> Iterator[str]:
    yield from serve(bundled_site)


@pytest.fixture(scope="package")
def hostile_url(hostile_site) -> Iterator[str]:
    yield from serve(hostile_site)


# ------------------------------------------------------------------------------------------------
# The browser


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # Playwright gives every context a fresh, empty profile (the --user-data-dir of the notes).
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


@dataclass
class Visit:
    """What happened while a page was open: everything a test asserts is empty at the end."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    outside_requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        return ([f"console error: {m}" for m in self.console_errors] + [f"page error: {m}" for m in self.page_errors]
                + [f"request failed: {u}" for u in self.failed_requests]
                + [f"request left the machine: {u}" for u in self.outside_requests]
                + [f"dialog opened: {m}" for m in self.dialogs])


def is_local(url: str, base: str | None) -> bool:
    return url.startswith("file://") or url.startswith(("data:", "blob:", "about:")) or bool(base and url.startswith(base))


class Browsing:
    """One browser context whose every request goes through the guard."""

    def __init__(self, browser, base: str | None, javascript: bool = True):
        self.base = base
        self.context = browser.new_context(java_script_enabled=javascript, viewport={"width": 1280, "height": 900})
        self.visit = Visit()
        self._page = None
        self.context.route("**/*", self._guard)

    def _guard(self, route) -> None:
        url = route.request.url
        if is_local(url, self.base):
            route.continue_()
        else:
            self.visit.outside_requests.append(url)
            route.abort()

    def open(self, url: str, wait_until: str = "load"):
        """Navigate this session's one tab to ``url`` (a new tab per page costs more than the page)."""
        if self._page is None:
            self._page = self.new_page()
        response = self._page.goto(url, wait_until=wait_until)
        return self._page, response

    def new_page(self):
        page = self.context.new_page()
        visit = self.visit
        page.on("console", lambda message: visit.console_errors.append(f"{page.url}: {message.text}")
                if message.type == "error" else None)
        page.on("pageerror", lambda error: visit.page_errors.append(f"{page.url}: {error}"))
        page.on("requestfailed", lambda request: visit.failed_requests.append(f"{page.url}: {request.url} {request.failure}")
                if is_local(request.url, self.base) and request.failure != "net::ERR_ABORTED" else None)
        # Requests that bypass routing (file://) are still seen here.
        page.on("request", lambda request: None if is_local(request.url, self.base)
                else visit.outside_requests.append(f"{page.url}: {request.url}"))

        def dialog(d):
            visit.dialogs.append(f"{page.url}: {d.type} {d.message}")
            d.dismiss()

        page.on("dialog", dialog)
        return page

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def browsing(browser):
    """``browsing(base)`` opens a guarded context; each is closed, and its problems must be none."""
    opened: list[Browsing] = []

    def make(base: str | None, javascript: bool = True) -> Browsing:
        session = Browsing(browser, base, javascript)
        opened.append(session)
        return session

    yield make
    problems = [problem for session in opened for problem in session.visit.problems()]
    for session in opened:
        session.close()
    assert not problems, "\n".join(problems[:30])
