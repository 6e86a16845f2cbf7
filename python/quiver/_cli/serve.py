"""`quiver serve`: a model behind the Open Inference Protocol (REST and gRPC) on KServe's model server."""
from __future__ import annotations

import argparse
from typing import Any, List

from ..errors import InvalidArgumentError, UnsupportedError
from . import args as cli_args

HELP = "serve a model over the Open Inference Protocol (v2 REST and gRPC; needs quiver[serving])"


def add_parser(commands: Any) -> None:
    from ..serving.security import DEFAULT_MAX_REQUEST_BYTES
    from ..serving.server import DEFAULT_GRPC_PORT, DEFAULT_HTTP_PORT
    from ..serving.settings import DEFAULT_BATCH_TIMEOUT_US, DEFAULT_MAX_BATCH_SIZE, KINDS

    parser = commands.add_parser(
        "serve", help=HELP, description=HELP + ". Concurrent requests are batched by Quiver (--max-batch-size); "
        "a request's `timeout` parameter (microseconds) is its deadline. Metrics at http://HOST:PORT/metrics. "
        "Give PREFIX, or --settings FILE for one or more models described in JSON (docs/serving.rst).")
    cli_args.add_model(parser, "an input's shape, batch first (repeatable): compiled at start, and the "
                       "metadata's shape", prefix_optional=True)
    parser.add_argument("--settings", metavar="FILE.json", help="models described in a settings file instead of PREFIX")
    parser.add_argument("--name", help="the model's name in URLs (default: the prefix's last part)")
    parser.add_argument("--kind", choices=KINDS, default="predictor",
                        help="predictor: tensors in and out (default); classifier: with labels from synset.txt; "
                             "image_classifier, object_detector: encoded images in (BYTES input 'image')")
    parser.add_argument("--device", default="cpu", help="cpu (default) or gpu(N)")
    parser.add_argument("--precision", help="float32, bfloat16, int8 or auto (default: the model's float32)")
    parser.add_argument("--max-batch-size", type=int, default=DEFAULT_MAX_BATCH_SIZE,
                        help=f"rows Quiver merges concurrent requests into (default {DEFAULT_MAX_BATCH_SIZE}; 1: no batching)")
    parser.add_argument("--batch-timeout-us", type=int, default=DEFAULT_BATCH_TIMEOUT_US,
                        help=f"how long a request waits for others to share its run (default {DEFAULT_BATCH_TIMEOUT_US})")
    parser.add_argument("--port", type=int, default=DEFAULT_HTTP_PORT, help=f"the REST port (default {DEFAULT_HTTP_PORT})")
    parser.add_argument("--grpc-port", type=int, default=DEFAULT_GRPC_PORT,
                        help=f"the gRPC port (default {DEFAULT_GRPC_PORT})")
    parser.add_argument("--host", default="127.0.0.1",
                        help="the address both servers listen on (default 127.0.0.1; 0.0.0.0 in a container)")
    parser.add_argument("--auth-token-file", metavar="FILE",
                        help="a file whose first line is a shared secret: every route but health then needs "
                             "'Authorization: Bearer SECRET' (gRPC: 'authorization' metadata)")
    parser.add_argument("--tls-cert", metavar="PEM", help="serve REST over HTTPS and gRPC over TLS with this "
                        "certificate (and --tls-key)")
    parser.add_argument("--tls-key", metavar="PEM", help="the private key of --tls-cert")
    parser.add_argument("--max-request-bytes", type=int, default=DEFAULT_MAX_REQUEST_BYTES,
                        help=f"the largest request body or gRPC message taken (default {DEFAULT_MAX_REQUEST_BYTES}; "
                             "larger ones are answered 413)")
    parser.add_argument("--model-control", action="store_true",
                        help="answer KServe's repository routes (load, unload a model); off by default")
    parser.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    try:
        from ..serving import ModelSettings, Security, load_settings, serve
        from ..serving.security import read_token
        import kserve  # noqa: F401  (only to say plainly when the extra is missing)
    except ImportError as error:
        raise UnsupportedError.from_message(
            f"quiver serve needs the serving extra: pip install 'quiver[serving]' ({error})") from None
    if (ns.prefix is None) == (ns.settings is None):
        raise InvalidArgumentError.from_message("give a model PREFIX or --settings FILE (one of them)")
    models: List[Any]
    if ns.settings and (ns.name or ns.shape or ns.option or ns.precision or ns.epoch or ns.kind != "predictor"):
        raise InvalidArgumentError.from_message("with --settings the models' flags come from the file: "
                                                "drop --name, --shape, --option, --precision, --epoch, --kind")
    if ns.settings:
        models = load_settings(ns.settings)
    else:
        models = [ModelSettings(prefix=ns.prefix, name=ns.name or "", epoch=ns.epoch, kind=ns.kind, device=ns.device,
                                precision=ns.precision, shapes={n: list(d) for n, d in ns.shape},
                                max_batch_size=ns.max_batch_size, batch_timeout_us=ns.batch_timeout_us,
                                options=dict(ns.option))]
    security = Security(host=ns.host, token=read_token(ns.auth_token_file) if ns.auth_token_file else None,
                        tls_cert=ns.tls_cert, tls_key=ns.tls_key, max_request_bytes=ns.max_request_bytes,
                        model_control=ns.model_control)
    serve(models, http_port=ns.port, grpc_port=ns.grpc_port, security=security)
    return 0
