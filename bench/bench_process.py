"""One benchmark run as its own process, for the comparison drivers (compare_batching.py,
compare_runtimes.py)."""
import json
import os
import subprocess
import sys
from typing import Dict, Optional, TextIO

# A run that has not finished by then has hung (OpenVINO's two-stream mode once stopped, idle, for good
# in the middle of a sequence-model round): it is killed and run once more.
TIMEOUT_S = 600


def run_json(command: list, log: TextIO, extra_env: Optional[Dict[str, str]] = None) -> dict:
    """Runs `command` (its environment plus `extra_env`; its stderr passes through), appends the last
    line it prints, one JSON object, to `log`, and returns that object."""
    env = dict(os.environ, **(extra_env or {}))
    for attempt in (1, 2):
        try:
            out = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True, env=env,
                                 timeout=TIMEOUT_S).stdout
            break
        except subprocess.TimeoutExpired:
            print(f"bench_process: no result after {TIMEOUT_S} s (attempt {attempt} of 2): {' '.join(command)}",
                  file=sys.stderr)
            if attempt == 2:
                raise
    line = out.strip().splitlines()[-1]
    log.write(line + "\n")
    log.flush()
    return json.loads(line)
