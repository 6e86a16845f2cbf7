"""Load a model once and predict: numpy in, numpy out, any batch size."""
import sys

import numpy as np

import quiver

prefix = sys.argv[1]  # PREFIX-symbol.json and PREFIX-0000.params
with quiver.Predictor(prefix, input_descs=[quiver.DataDesc("data", (1, 3, 16, 16))]) as predictor:
    print(predictor)  # its inputs and outputs
    scores = predictor.predict(np.zeros((1, 3, 16, 16), np.float32))
    batch = predictor.predict(np.zeros((4, 3, 16, 16), np.float32))  # a new batch size: one more plan
    assert scores.shape[0] == 1 and batch.shape[0] == 4
