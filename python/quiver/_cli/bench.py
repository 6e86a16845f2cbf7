"""`quiver bench`: latency percentiles, throughput and memory of a model under N concurrent clients."""
from __future__ import annotations

import argparse
import json
import os
from typing import Any

from .. import capi
from ..errors import InvalidArgumentError
from ..predictor import Predictor
from . import args as cli_args
from . import bench_plot, bench_report, load_test, progress

HELP = "measure latency (p50/p90/p99), throughput and memory held under concurrent clients"


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "bench", help=HELP, description=HELP + ". One warm-up prediction, then every client predicts back "
        "to back on one shared Predictor for --duration seconds, with random inputs.")
    cli_args.add_model(parser, "an input's shape, batch first (required for each input; repeatable)")
    parser.add_argument("--clients", type=_positive, default=1, help="threads predicting at once (default 1)")
    parser.add_argument("--batch-size", type=_positive, help="replaces the batch (first) size of every --shape")
    parser.add_argument("--precision", help="what the model computes in: float32 (the default), bfloat16 or auto "
                        "(the cached-op flag 'precision'; the report says what auto picked)")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds of measurement (default 5)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument("--stats", action="store_true",
                        help="add the runtime's own statistics of the model (Predictor.stats(): requests by "
                        "outcome, queue wait and run percentiles, batches, plans)")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="draw the latency histogram and the throughput over time (needs matplotlib)")
    parser.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    if not ns.shape:
        raise InvalidArgumentError.from_message("bench needs --shape NAME:D1,D2,... for every input")
    if not ns.duration > 0:
        raise InvalidArgumentError.from_message(f"--duration must be positive, not {ns.duration}")
    if ns.plot and not os.path.isdir(os.path.dirname(os.path.abspath(ns.plot))):
        raise FileNotFoundError(2, "no such directory for --plot", os.path.dirname(os.path.abspath(ns.plot)))
    descs = cli_args.input_descs(ns.shape, ns.batch_size)
    assert descs is not None
    options = cli_args.options(ns.option)
    if ns.precision is not None:
        options["precision"] = ns.precision
    with progress.waiting("loading and compiling"):
        predictor = Predictor(ns.prefix, ns.epoch, input_descs=descs, options=options)
    with predictor:
        inputs = load_test.inputs_for(predictor, descs)
        first_s = load_test.warm_up(predictor, inputs)
        measurement = load_test.run_clients(predictor, inputs, ns.clients, ns.duration)
        held, alive = capi.QvGetMemoryStats()
        precision = predictor.precision
        stats = predictor.stats() if ns.stats else None
    batch = descs[0].shape[0]
    report = {"model": ns.prefix, "inputs": {d.name: list(d.shape) for d in descs}, "clients": ns.clients,
              "batch_size": batch, "options": options, "precision": precision,
              **bench_report.summary(measurement, first_s, batch, int(held), int(alive))}
    if stats is not None:
        report["stats"] = stats
    if ns.plot:
        bench_plot.draw(ns.plot, measurement, report, batch)
    print(json.dumps(report, indent=2) if ns.json else bench_report.text(report))
    return 0


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    return value
