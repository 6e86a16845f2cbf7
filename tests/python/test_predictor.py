"""Predictor: outputs equal to real MXNet's and to the C API's, every input form, models from bytes."""
from __future__ import annotations

import io

import numpy as np
import pytest

import quiver
from capi_ctypes import run as run_capi
from conftest import case, prefix

ORACLE_CASES = [("resnet18_v1", "b1_224"), ("resnet18_v1", "b4_224"), ("resnet18_v1", "b2_160"),
                ("resnet50_v2", "b1_224"), ("tiny", "b2_16"), ("tiny_legacy_v08", "b2_16")]


@pytest.mark.parametrize("model,name", ORACLE_CASES)
def test_outputs_match_mxnet_and_the_c_api(manifest, model, name):
    x, expected, scale = case(manifest, model, name)
    with quiver.Predictor(prefix(model)) as predictor:
        got = predictor.predict(x)
    assert got.shape == expected.shape and got.dtype == np.float32
    assert np.abs(got - expected).max() <= 1e-4 * scale
    # The same library called through ctypes: the binding adds nothing and loses nothing.
    np.testing.assert_array_equal(got, run_capi(prefix(model), x)[0])


def test_any_batch_size_on_one_predictor(manifest):
    x, expected, scale = case(manifest, "resnet18_v1", "b4_224")
    with quiver.Predictor(prefix("resnet18_v1"), input_descs=[quiver.DataDesc("data", (1, 3, 224, 224))]) as p:
        for batch in (1, 3, 4, 2):
            assert np.abs(p.predict(x[:batch]) - expected[:batch]).max() <= 1e-4 * scale


def test_input_forms_give_the_same_result(manifest):
    x, _, _ = case(manifest, "tiny", "b2_16")
    with quiver.Predictor(prefix("tiny")) as p:
        assert p.input_names == ["data"]
        reference = p.predict(x)
        np.testing.assert_array_equal(p.predict({"data": x}), reference)
        np.testing.assert_array_equal(p.predict(x.astype(np.float64)), reference)  # converted to float32
        np.testing.assert_array_equal(p.predict(np.asfortranarray(x)), reference)  # made contiguous
        np.testing.assert_array_equal(p.predict(x.tolist()), reference)


def test_outputs_are_numpy_views_of_native_memory(manifest):
    x, _, _ = case(manifest, "tiny", "b2_16")
    with quiver.Predictor(prefix("tiny")) as p:
        y = p.predict(x)
        # The engine drops its own references to the invocation's arrays just after the outputs become
        # readable: count once they are gone.
        quiver.wait_all()
        before = quiver.memory_stats().arrays_alive
        assert y.base is not None and not y.flags.owndata  # no copy: the base owns the native array
        del y
        assert quiver.memory_stats().arrays_alive == before - 1


def test_from_bytes_and_from_file_objects(manifest):
    x, expected, scale = case(manifest, "tiny", "b2_16")
    with open(prefix("tiny") + "-symbol.json", "rb") as f:
        symbol = f.read()
    with open(prefix("tiny") + "-0000.params", "rb") as f:
        params = f.read()
    with quiver.Predictor.from_bytes(symbol, params) as p:
        np.testing.assert_array_equal(p.predict(x), quiver.Predictor(prefix("tiny")).predict(x))
    with quiver.Predictor.from_bytes(io.StringIO(symbol.decode()), io.BytesIO(params)) as p:
        assert np.abs(p.predict(x) - expected).max() <= 1e-4 * scale
    with quiver.Predictor.from_bytes(symbol.decode(), memoryview(params)) as p:
        assert np.abs(p.predict(x) - expected).max() <= 1e-4 * scale


def test_multiple_outputs_come_back_as_a_list(tmp_path):
    from mxnet_files import params_bytes, symbol_json
    nodes = [("null", "data", {}, []), ("Activation", "relu", {"act_type": "relu"}, [0]),
             ("Activation", "sig", {"act_type": "sigmoid"}, [0])]
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    with quiver.Predictor.from_bytes(symbol_json(nodes, [1, 2]), params_bytes({})) as p:
        relu, sig = p.predict(x)
        assert p.output_names == ["relu_output", "sig_output"]
    np.testing.assert_allclose(relu, np.maximum(x, 0), rtol=0, atol=0)
    np.testing.assert_allclose(sig, 1 / (1 + np.exp(-x)), rtol=1e-6, atol=1e-7)
