"""The package's surface: its version is the native library's, reprs say what things are, and only
the documented names (and the documented submodules) are public."""
from __future__ import annotations

import importlib.metadata
import types

import numpy as np

import quiver
from conftest import prefix


def test_version_is_the_native_librarys_and_the_wheels():
    assert quiver.__version__ == ".".join(map(str, quiver.version()))
    assert quiver.version()[0] == quiver.capi.QV_API_VERSION
    assert importlib.metadata.version("quiver") == quiver.__version__


def test_no_helpers_leak_into_the_namespace():
    public = {name for name in dir(quiver) if not name.startswith("_")}
    modules = {name for name in public if isinstance(getattr(quiver, name), types.ModuleType)}
    assert public - modules == set(quiver.__all__) - {"__version__"}
    assert all(name in dir(quiver) for name in quiver.__all__)


def test_reprs_say_what_things_are(manifest):
    desc = quiver.DataDesc("data", (1, 3, 16, 16))
    assert repr(desc) == "DataDesc(name='data', shape=(1, 3, 16, 16), dtype='float32', layout='NCHW')"
    with quiver.Predictor(prefix("tiny"), input_descs=[desc]) as p:
        assert repr(p) == "<Predictor inputs=['data'] outputs=['fc1_output'] open>"
        future = p.predict_async(np.zeros((1, 3, 16, 16), np.float32))
        future.result(60)
        assert repr(future) == "<quiver.Future done>"
        failed = p.predict_async(np.zeros((1, 3, 16, 16), np.float32), timeout=1e-6)
        assert failed.exception(60) is not None
        assert repr(failed) == "<quiver.Future failed: DeadlineExceededError>"
    assert repr(p).endswith(" closed>")
    assert repr(quiver.memory_stats()).startswith("MemoryStats(bytes_in_use=")
