"""Bad inputs raise clear QuiverError subclasses and leave the predictor usable."""
from __future__ import annotations

import numpy as np
import pytest

import quiver
from conftest import FIXTURES, case, prefix


@pytest.fixture()
def tiny(manifest):
    with quiver.Predictor(prefix("tiny")) as p:
        yield p


def test_wrong_shape_names_the_node_and_keeps_the_predictor_usable(manifest, tiny):
    x, expected, scale = case(manifest, "tiny", "b2_16")
    with pytest.raises(quiver.ShapeError, match="expects 4-D") as error:
        tiny.predict(np.zeros((2, 3, 16), np.float32))
    assert error.value.status == quiver.capi.QV_ERR_SHAPE and isinstance(error.value, ValueError)
    with pytest.raises(quiver.ShapeError):
        tiny.predict_async(np.zeros((2, 4, 16, 16), np.float32))
    assert np.abs(tiny.predict(x) - expected).max() <= 1e-4 * scale


def test_wrong_input_forms(tiny):
    with pytest.raises(quiver.InvalidArgumentError, match=r"lack \['data'\].*the mapping has \['not_data'\]"):
        tiny.predict({"not_data": np.zeros((1, 3, 16, 16), np.float32)})
    with pytest.raises(ValueError):
        tiny.predict(np.array([["a", "b"]]))


def test_a_mapping_s_other_keys_are_ignored(manifest, tiny):
    x, expected, scale = case(manifest, "tiny", "b2_16")
    batch = {"id": np.array([7, 8]), "data": x, "path": np.array(["a.png", "b.png"], object)}
    np.testing.assert_array_equal(tiny.predict(batch), tiny.predict(x))
    assert np.array_equal(tiny.predict_named(batch)[tiny.output_names[0]], tiny.predict(x))
    assert np.array_equal(tiny.predict_async(batch).result(60), tiny.predict(x))


def test_closed_predictor_raises_closed_error(manifest):
    x, _, _ = case(manifest, "tiny", "b2_16")
    p = quiver.Predictor(prefix("tiny"))
    future = p.predict_async(x)
    p.close()
    p.close()  # idempotent
    assert future.result(60).shape == (2, 10)  # in flight when closed: still completes
    with pytest.raises(quiver.ClosedError, match="closed"):
        p.predict(x)
    assert p.closed


def test_missing_files_name_the_path(manifest, tmp_path):
    with pytest.raises(quiver.NotFoundError, match="nothing-symbol.json"):
        quiver.Predictor(str(tmp_path / "nothing"))
    with pytest.raises(quiver.NotFoundError, match="0007.params"):
        quiver.Predictor(prefix("tiny"), epoch=7)


def test_corrupt_params_and_symbol_raise_parse_errors(manifest):
    params = (FIXTURES / "tiny-0000.params").read_bytes()
    symbol = (FIXTURES / "tiny-symbol.json").read_text()
    with pytest.raises(quiver.ParseError, match="byte"):
        quiver.Predictor.from_bytes(symbol, params[: len(params) // 2])
    with pytest.raises(quiver.ParseError):
        quiver.Predictor.from_bytes(symbol[:100], params)
    with pytest.raises(quiver.ParseError):
        quiver.Predictor.from_bytes(symbol, b"\x00" * 64)


def test_bad_options_and_descs_are_refused(manifest):
    with pytest.raises(quiver.InvalidArgumentError, match="no_such_flag"):
        quiver.Predictor(prefix("tiny"), options={"no_such_flag": 1})
    with pytest.raises(quiver.NotFoundError, match="'images'"):
        quiver.Predictor(prefix("tiny"), input_descs=[quiver.DataDesc("images", (1, 3, 16, 16))])
    with pytest.raises(quiver.InvalidArgumentError, match="'images'"):
        quiver.Predictor(prefix("tiny"), input_descs=[quiver.DataDesc("images", ())])
    with pytest.raises(quiver.DeviceError):
        quiver.Predictor(prefix("tiny"), device="gpu(7)")


def test_busy_when_max_inflight_is_reached(manifest):
    x, _, _ = case(manifest, "resnet18_v1", "b4_224")
    with quiver.Predictor(prefix("resnet18_v1"), max_inflight=1,
                          input_descs=[quiver.DataDesc("data", x.shape)]) as p:
        first = p.predict_async(x)
        with pytest.raises(quiver.BusyError):
            p.predict_async(x)
        first.result()
        assert p.predict(x).shape == (4, 1000)


def test_missing_parameter_is_named(tmp_path):
    from mxnet_files import params_bytes, symbol_json
    nodes = [("null", "data", {}, []), ("null", "fc_weight", {}, []), ("null", "fc_bias", {}, []),
             ("FullyConnected", "fc", {"num_hidden": "2"}, [0, 1, 2])]
    with pytest.raises(quiver.QuiverError, match="fc_weight"):
        quiver.Predictor.from_bytes(symbol_json(nodes, [3]),
                                    params_bytes({"arg:fc_bias": np.zeros(2, np.float32)}),
                                    input_descs=[quiver.DataDesc("data", (1, 4), layout="NC")])
