"""Altair is imported when the first chart spec is built, not when the build starts: a rebuild
whose changed pages have no chart never pays for it (issue 8)."""

from __future__ import annotations

import json
import subprocess
import sys

from site_builder import vega

PROGRAM = """
import json, sys
import site_builder.build, site_builder.cli
before = "altair" in sys.modules
from site_builder import charts
frame = charts._scaling_frame("seq", "µs", False)
print(json.dumps({"before": before, "after": "altair" in sys.modules, "schema": frame["$schema"]}))
"""


def test_altair_is_imported_by_the_first_chart_not_by_the_build():
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=120, check=True)
    found = json.loads(done.stdout)
    assert found["before"] is False and found["after"] is True
    # The chart process bundles the Vega-Lite release the specs are written for.
    assert f"/v{vega.vega_lite_version()}." in found["schema"]
