"""The inputs every benchmark tool of bench/ describes the same way as quiver_bench: one data input (its name
and its shape without the batch axis: random values) and any number of fixed inputs given whole
(NAME:D0,D1,...=V0,V1,..., the values repeated to fill the shape, e.g. a valid length "data1:1=128").
numpy is imported only where arrays are made: mxnet_bench.py parses its arguments before it sets the
thread counts that numpy and MXNet read when imported."""
import argparse
from typing import Dict, List, Tuple

ExtraInput = Tuple[str, Tuple[int, ...], List[float]]


def add_input_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--shape", default="3,224,224", help="the data input's shape without the batch axis")
    parser.add_argument("--input-name", default="data", help="the data input's name")
    parser.add_argument("--extra-input", action="append", default=[], metavar="NAME:D0,D1,...=V0,V1,...",
                        help="another input: its whole shape and values repeated to fill it (repeatable)")


def sample_shape(args: argparse.Namespace) -> Tuple[int, ...]:
    try:
        return tuple(int(d) for d in args.shape.split(","))
    except ValueError:
        raise SystemExit(f"--shape wants comma-separated integers, got {args.shape!r}")


def extra_inputs(texts: List[str]) -> List[ExtraInput]:
    """Parses --extra-input texts."""
    extras = []
    for text in texts:
        try:
            name, rest = text.split(":", 1)
            dims, values = rest.split("=", 1)
            extras.append((name, tuple(int(d) for d in dims.split(",")), [float(v) for v in values.split(",")]))
        except ValueError:
            raise SystemExit(f"--extra-input wants NAME:D0,D1,...=V0,V1,..., got {text!r}")
    return extras


def extra_arrays(texts: List[str]) -> Dict[str, "np.ndarray"]:
    """The arrays of --extra-input texts by name, float32, in the order given."""
    import numpy as np

    return {name: np.resize(np.array(values, dtype=np.float32), shape) for name, shape, values in extra_inputs(texts)}
