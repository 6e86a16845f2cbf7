"""`quiver check`: load a model and run one random batch, to test a model file before deploying it."""
from __future__ import annotations

import argparse
import time
from typing import Any, List, Tuple

import numpy as np

from ..errors import InvalidArgumentError
from ..predictor import Predictor
from . import args as cli_args
from . import progress
from .load_test import random_inputs

HELP = "load a model and run one random batch through it"


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "check", help=HELP, description=HELP + "; prints the outputs' shapes and says whether any value "
        "is NaN or infinite (exit status 1). Errors (a missing file, an unsupported operator, a shape the "
        "model refuses) print one line and exit with status 2.")
    cli_args.add_model(parser, "an input's shape, batch first (repeatable; default 1,3,224,224 for a lone input)")
    parser.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    with progress.waiting("loading model"):
        predictor = Predictor(ns.prefix, ns.epoch, input_descs=cli_args.input_descs(ns.shape),
                              options=cli_args.options(ns.option))
    with predictor:
        shapes = dict(ns.shape)
        names = predictor.input_names
        if not shapes and len(names) == 1:
            shapes = {names[0]: (1, 3, 224, 224)}
        missing = [n for n in names if n not in shapes]
        if missing:
            raise InvalidArgumentError.from_message(f"give --shape for the input(s) {missing}")
        start = time.perf_counter()
        with progress.waiting("running"):
            outputs = predictor.predict(random_inputs({n: shapes[n] for n in names}))
        seconds = time.perf_counter() - start
        results: List[Tuple[str, np.ndarray]] = list(zip(predictor.output_names,
                                                         outputs if isinstance(outputs, list) else [outputs]))
    bad = [name for name, array in results if not np.isfinite(array).all()]
    print(f"{ns.prefix}: loaded and ran {', '.join(f'{n}:{tuple(s)}' for n, s in shapes.items())} "
          f"in {seconds * 1e3:.1f} ms")
    for name, array in results:
        print(f"  {name}  {array.dtype}  {tuple(array.shape)}  {'NOT FINITE' if name in bad else 'finite'}")
    print("FAILED: outputs with NaN or infinite values" if bad else "OK")
    return 1 if bad else 0
