"""explore.js shows a number as core/numbers.py's for_reading does (SPEC §10): its forReading,
run in node on the literal's text, gives the same characters for every literal here."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from evidencepress.core.numbers import for_reading

EXPLORE_JS = Path(__file__).resolve().parents[1] / "templates/static/explore.js"
LITERALS = ["0", "-0", "-0.0", "7", "512", "999", "1000", "2048", "22.50", "-22.50", "1200.50", "-1200.50",
            "131072", "1000000", "12345678.901", "-98765.4321", "0.0001", "1e-05", "-1.5E+10", "1.0e2",
            "2986.0", "+1234", "100000000000000000000", "3.14159265358979323846"]
RUN = """
const vm = require("vm");
const window = {};
const context = {window: window, document: {getElementById: () => null}, location: {search: ""}};
vm.createContext(context);
vm.runInContext(require("fs").readFileSync(process.argv[1], "utf8"), context);
const literals = JSON.parse(process.argv[2]);
process.stdout.write(JSON.stringify(literals.map(window.evidencepressNumbers.forReading)));
"""


def test_explore_js_shows_numbers_as_for_reading_does() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node on this machine")
    shown = subprocess.run([node, "-e", RUN, str(EXPLORE_JS), json.dumps(LITERALS)],
                           capture_output=True, text=True, check=True).stdout
    assert json.loads(shown) == [for_reading(literal) for literal in LITERALS]
