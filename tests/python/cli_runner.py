"""Runs the `quiver` command in a child process, as a user's shell would."""
from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, List, NamedTuple


class Result(NamedTuple):
    status: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)

    def json_lines(self) -> List[Any]:
        return [json.loads(line) for line in self.stdout.splitlines()]


def quiver(*args: str, timeout: float = 300) -> Result:
    done = subprocess.run([sys.executable, "-m", "quiver", *args], capture_output=True, text=True, timeout=timeout)
    print(done.stdout, done.stderr)
    return Result(done.returncode, done.stdout, done.stderr)


def one_line_error(result: Result, command: str, *naming: str) -> None:
    """A usage or runtime error: exit status 2, one line on stderr that names what was wrong."""
    assert result.status == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"quiver {command}: error: "), result.stderr
    for text in naming:
        assert text in lines[0], (text, lines[0])
