"""The user guide's examples (docs/guide/*.py) run as written, on a small model."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import prefix

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide"


@pytest.mark.parametrize("example", sorted(p.name for p in GUIDE.glob("*.py")))
def test_guide_example_runs(manifest, example):
    done = subprocess.run([sys.executable, str(GUIDE / example), prefix("tiny")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_example_is_in_the_guide():
    guide = (GUIDE.parent / "guide.rst").read_text()
    assert sorted(p.name for p in GUIDE.glob("*.py")) == sorted(
        line.split("guide/")[1] for line in guide.splitlines() if line.startswith(".. literalinclude:: guide/"))
