"""The `quiver` command's progress display: shown on a terminal only, and only after a second."""
from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path

import pytest

import quiver
from quiver._cli import progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_blocking_work_shows_elapsed_time_after_a_second(monkeypatch):
    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    with progress.waiting("quick"):
        pass
    assert screen.getvalue() == ""
    with progress.waiting("loading"):
        time.sleep(1.5)
    assert "loading: 00:01" in screen.getvalue()


def test_nothing_is_drawn_into_a_pipe(monkeypatch):
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    with progress.bar(1.0, "benchmarking") as shown:
        time.sleep(1.2)
        shown.update(1.0)
    assert pipe.getvalue() == ""


def test_the_console_script_is_installed():
    script = Path(sys.executable).parent / "quiver"
    if not script.exists():
        pytest.fail(f"no console script at {script}")
    done = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == f"quiver {quiver.__version__}"
