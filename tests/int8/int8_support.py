"""What the tests in tests/int8 share: finding their fixture directories, and telling a CPU without int8
dot products (a test that cannot run here: skipped, saying so) from a model Quiver refuses (a failure)."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import NoReturn

import pytest

import quiver


def skip_or_fail(message: str) -> None:
    """Skips, or fails where the fixtures are required (QUIVER_REQUIRE_FIXTURES=1, as scripts/test.sh sets)."""
    if os.environ.get("QUIVER_REQUIRE_FIXTURES") == "1":
        pytest.fail(message)
    pytest.skip(message)


def load_manifest(env: str, maker: str) -> dict:
    """The manifest.json of the fixture directory that environment variable `env` names; `maker` is
    the command that prints that directory."""
    directory = os.environ.get(env)
    path = Path(directory or "") / "manifest.json"
    if not directory or not path.exists():
        skip_or_fail(f"no fixtures at {env}={directory!r}: set {env} ({maker} prints it)")
    return json.loads(path.read_text())


def not_run_without_int8_cpu(error: quiver.UnsupportedError) -> NoReturn:
    """Skips when `error` is the refusal of a CPU without int8 dot products; re-raises anything else."""
    if "dot-product instructions" not in str(error):
        raise error
    pytest.skip(f"not run: {error}")
