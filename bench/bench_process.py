"""One benchmark run as its own process, for the comparison drivers (compare_batching.py,
compare_runtimes.py)."""
import json
import os
import subprocess
from typing import Dict, Optional, TextIO


def run_json(command: list, log: TextIO, extra_env: Optional[Dict[str, str]] = None) -> dict:
    """Runs `command` (its environment plus `extra_env`; its stderr passes through), appends the last
    line it prints, one JSON object, to `log`, and returns that object."""
    env = dict(os.environ, **(extra_env or {}))
    out = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True, env=env).stdout
    line = out.strip().splitlines()[-1]
    log.write(line + "\n")
    log.flush()
    return json.loads(line)
