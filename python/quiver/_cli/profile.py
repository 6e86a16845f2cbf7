"""`quiver profile`: where one model's time goes, operator by operator (the runtime's profiler)."""
from __future__ import annotations

import argparse
import json
from typing import Any

from .. import profiler
from ..errors import InvalidArgumentError
from ..predictor import Predictor
from . import args as cli_args
from . import load_test, progress

HELP = "run a model and show the nodes and operator types that take its time; write a Chrome trace"


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "profile", help=HELP, description=HELP + ". One warm-up prediction, then --runs predictions of random "
        "inputs with the profiler on. On a GPU operators are timed by CUDA events (docs/profiling.rst).")
    cli_args.add_model(parser, "an input's shape, batch first (required for each input; repeatable)")
    parser.add_argument("--runs", type=int, default=10, help="predictions profiled (default 10)")
    parser.add_argument("--top", type=int, default=15, help="rows of each table (default 15)")
    parser.add_argument("--trace", metavar="FILE.json", help="write the Chrome trace (chrome://tracing, Perfetto)")
    parser.add_argument("--json", action="store_true", help="print the aggregate statistics as JSON")
    parser.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    if not ns.shape:
        raise InvalidArgumentError.from_message("profile needs --shape NAME:D1,D2,... for every input")
    if ns.runs < 1 or ns.top < 1:
        raise InvalidArgumentError.from_message("--runs and --top must be positive")
    descs = cli_args.input_descs(ns.shape)
    assert descs is not None
    with progress.waiting("loading and compiling"):
        predictor = Predictor(ns.prefix, ns.epoch, input_descs=descs, options=cli_args.options(ns.option))
    with predictor:
        inputs = load_test.inputs_for(predictor, descs)
        load_test.warm_up(predictor, inputs)
        with profiler.profile(ns.trace):
            for _ in range(ns.runs):
                predictor.predict(inputs)
    print(json.dumps(profiler.aggregate(), indent=2) if ns.json else profiler.table(ns.top))
    return 0
