"""Deadlines and cancellation: the runtime drops work that would come too late."""
import sys

import numpy as np

import quiver

with quiver.Predictor(sys.argv[1]) as predictor:
    x = np.zeros((1, 3, 16, 16), np.float32)
    try:
        predictor.predict(x, timeout=1e-6)  # one microsecond: cannot be met
    except quiver.DeadlineExceededError as error:  # also a TimeoutError
        print("dropped:", error)
    future = predictor.predict_async(x)
    if future.cancel():  # stops it at its next operator, unless it has finished already
        print("cancelled")
    print(predictor.predict(x, timeout=10.0).shape)  # a deadline that is met changes nothing
