"""Integer and other non-float32 inputs through Predictor: the symbol's declared dtype, DataDesc's
dtype (flag data_types), conversion of what the caller passes, and several named inputs."""
import numpy as np
import pytest

import quiver
from mxnet_files import params_bytes, symbol_json

# tokens -> Embedding (5 x 2, row r = (10r, 10r + 1)); length -> _div_scalar(2), computed as MXNet does
# for the input's type (an integer tensor's division truncates).
WEIGHT = np.array([[10 * r, 10 * r + 1] for r in range(5)], np.float32)


def model(tokens_attrs):
    nodes = [("null", "tokens", tokens_attrs, []), ("null", "emb_weight", {}, []),
             ("Embedding", "emb", {"input_dim": "5", "output_dim": "2"}, [0, 1]),
             ("null", "length", {}, []), ("_div_scalar", "half", {"scalar": "2"}, [3])]
    return symbol_json(nodes, [2, 4]), params_bytes({"arg:emb_weight": WEIGHT})


def test_a_declared_int32_input_converts_what_it_is_given_and_computes_in_integers():
    with quiver.Predictor.from_bytes(*model({"__dtype__": "4"})) as p:
        assert p.input_dtypes == {"tokens": np.dtype(np.int32), "length": np.dtype(np.float32)}
        ids = [[0, 4, 9], [-1, 2, -7]]
        embedded, half = p.predict({"tokens": ids, "length": np.array([7, -7], np.float32)})
        np.testing.assert_array_equal(embedded, WEIGHT[np.clip(ids, 0, 4)])
        np.testing.assert_array_equal(half, [3.5, -3.5])  # float32 divides exactly
        # int64 ids are converted to the int32 the model takes.
        again, _ = p.predict({"tokens": np.array(ids, np.int64), "length": [1, 2]})
        np.testing.assert_array_equal(again, embedded)


def test_data_desc_dtypes_set_what_inputs_take():
    descs = [quiver.DataDesc("tokens", (), "int64"), quiver.DataDesc("length", (), "int32")]
    with quiver.Predictor.from_bytes(*model({}), input_descs=descs) as p:
        assert p.input_dtypes == {"tokens": np.dtype(np.int64), "length": np.dtype(np.int32)}
        embedded, half = p.predict([np.array([[3]], np.int64), np.array([7, -7], np.int32)])
        np.testing.assert_array_equal(embedded, WEIGHT[[[3]]])
        np.testing.assert_array_equal(half, [3, -3])  # an int32 input divides as integers


def test_an_unknown_or_unsupported_input_dtype_fails_naming_it():
    with pytest.raises(quiver.NotFoundError, match="'words', which is not a data input"):
        quiver.Predictor.from_bytes(*model({}), input_descs=[quiver.DataDesc("words", (), "int32")])
    with pytest.raises(quiver.UnsupportedError, match="float16"):
        quiver.Predictor.from_bytes(*model({}), input_descs=[quiver.DataDesc("tokens", (), "float16")])


def test_predict_named_returns_every_output_by_name():
    with quiver.Predictor.from_bytes(*model({"__dtype__": "4"})) as p:
        named = p.predict_named({"tokens": [[1, 2]], "length": [5]})
        assert list(named) == p.output_names == ["emb_output", "half_output"]
        np.testing.assert_array_equal(named["emb_output"], WEIGHT[[[1, 2]]])
        np.testing.assert_array_equal(named["half_output"], [2.5])
