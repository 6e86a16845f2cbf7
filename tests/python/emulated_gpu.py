"""Runs Python code, or the `quiver` command, in a child interpreter with the emulated GPU
(QUIVER_EMULATED_GPU=1: gpu(0) in host memory behind a device of its own, engine/backends/emulated_gpu).
The variable is read when the library loads, so it needs a process of its own."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from cli_runner import Result

HERE = Path(__file__).resolve().parent


def run_emulated(code: str = "", *command: str) -> Result:
    """Python `code` (or `python -m quiver COMMAND...`) in a child process with the emulated GPU."""
    args = [sys.executable, "-m", "quiver", *command] if command else [sys.executable, "-c", textwrap.dedent(code)]
    env = {**os.environ, "QUIVER_EMULATED_GPU": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(args, capture_output=True, text=True, timeout=300, env=env, cwd=HERE)
    print(done.stdout, done.stderr)
    return Result(done.returncode, done.stdout, done.stderr)
