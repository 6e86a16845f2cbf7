#!/usr/bin/env python3
"""Latency and throughput of real MXNet 1.9.1 on an exported model, for comparison with Quiver.

Run with the MXNet venv's interpreter (scripts/setup_mxnet_venv.sh prints its path):

    python bench/mxnet_bench.py --prefix DIR/resnet50_v2 --batch 1 --clients 1 --iters 50

Prints ONE JSON line on stdout (logs go to stderr):
    {"engine": "mxnet", "model": ..., "batch": .., "clients": .., "p50_ms": .., "p90_ms": ..,
     "p99_ms": .., "throughput_per_s": .., "path": "...", ...}
Latencies are per call, over all calls of all clients: copy the host input into the model's input
array, run the forward pass, copy the output back to a numpy array (what a user waits for).
Throughput is images per second over all clients during the timed phase (all clients start
together after their warm-up).

Paths (--path), best first; "auto" takes the first that works on this build:
  gluon-mkldnn   SymbolBlock.hybridize(backend='MKLDNN', static_alloc=True, static_shape=True):
                 MXNet's oneDNN graph fusion (conv+BN+ReLU+sum) on a static-memory CachedOp
  gluon-static   SymbolBlock.hybridize(static_alloc=True, static_shape=True), no fusion
  executor       mx.sym.load + bind + forward(is_train=False) (the Module / C predict API path;
                 the pip build applies MKLDNN fusion here too unless MXNET_SUBGRAPH_BACKEND=NONE)
Every client thread gets its own copy of the model: a static-alloc CachedOp or an executor owns
its memory and is not safe to call from two threads at once.
"""
import argparse
import json
import os
import sys
import threading
import time

from model_inputs import add_input_arguments, extra_arrays, extra_inputs, sample_shape


def usable_cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def parse_args():
    p = argparse.ArgumentParser(description="Benchmark an MXNet model prefix with real MXNet.")
    p.add_argument("--prefix", required=True, help="model prefix: PREFIX-symbol.json, PREFIX-EPOCH.params")
    p.add_argument("--epoch", type=int, default=0)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--clients", type=int, default=1, help="client threads calling concurrently")
    p.add_argument("--iters", type=int, default=50, help="timed calls per client")
    p.add_argument("--warmup", type=int, default=5, help="untimed calls per client first")
    add_input_arguments(p)
    p.add_argument("--threads", type=int, default=usable_cores(),
                   help="compute threads in total (default: usable cores)")
    p.add_argument("--engine-threads", type=int, default=0,
                   help="MXNet CPU engine workers (MXNET_CPU_WORKER_NTHREADS); default "
                        "min(clients, threads); each worker's ops get threads / engine-threads "
                        "OpenMP threads")
    p.add_argument("--path", default="auto",
                   choices=["auto", "gluon-mkldnn", "gluon-static", "executor"])
    p.add_argument("--check", action="store_true",
                   help="also compare the chosen path's output with MXNet's plain operators")
    args = p.parse_args()
    for name in ("batch", "clients", "iters", "threads"):
        if getattr(args, name) < 1:
            p.error("--%s must be at least 1" % name)
    if args.warmup < 0:
        p.error("--warmup must be at least 0")
    args.sample_shape = sample_shape(args)
    extra_inputs(args.extra_input)  # its errors come before MXNet is imported
    if args.engine_threads <= 0:
        args.engine_threads = min(args.clients, args.threads)
    args.omp_threads = max(1, args.threads // args.engine_threads)
    return args


ARGS = parse_args()
# MXNet reads these when it is imported and its engine starts: set them first.
os.environ["OMP_NUM_THREADS"] = str(ARGS.omp_threads)
os.environ["MXNET_CPU_WORKER_NTHREADS"] = str(ARGS.engine_threads)
os.environ.setdefault("MXNET_ENGINE_TYPE", "ThreadedEnginePerDevice")

import warnings  # noqa: E402

import numpy as np  # noqa: E402
import mxnet as mx  # noqa: E402

warnings.filterwarnings("ignore", module="mxnet")
CTX = mx.cpu()


def log(msg):
    print("mxnet_bench: " + msg, file=sys.stderr, flush=True)


def file_names(args):
    return args.prefix + "-symbol.json", "%s-%04d.params" % (args.prefix, args.epoch)


def split_params(params_file):
    args, aux = {}, {}
    for key, value in mx.nd.load(params_file).items():
        kind, _, name = key.partition(":")
        (aux if kind == "aux" else args)[name] = value
    return args, aux


class GluonModel:
    """One SymbolBlock with its own CachedOp; fused says whether MXNet's oneDNN fusion is on."""

    def __init__(self, args, fused):
        symbol_file, params_file = file_names(args)
        extras = extra_arrays(args.extra_input)
        self.net = mx.gluon.SymbolBlock.imports(symbol_file, [args.input_name] + list(extras), params_file,
                                                ctx=CTX)
        self.extras = [mx.nd.array(a, ctx=CTX) for a in extras.values()]
        kwargs = {"static_alloc": True, "static_shape": True}
        if fused:
            kwargs["backend"] = "MKLDNN"
        self.net.hybridize(**kwargs)
        self.x = mx.nd.zeros((args.batch,) + args.sample_shape, ctx=CTX)

    def __call__(self, batch):
        self.x[:] = batch
        out = self.net(self.x, *self.extras)  # a list for multi-output models (GluonCV's detectors)
        return [o.asnumpy() for o in out] if isinstance(out, list) else out.asnumpy()


class ExecutorModel:
    """One bound executor (the path of Module and of MXNet's C predict API)."""

    def __init__(self, args):
        symbol_file, params_file = file_names(args)
        sym = mx.sym.load(symbol_file)
        arg_params, aux_params = split_params(params_file)
        bound = {n: arg_params[n].copy() for n in sym.list_arguments() if n != args.input_name}
        self.x = mx.nd.zeros((args.batch,) + args.sample_shape, ctx=CTX)
        bound[args.input_name] = self.x
        bound.update({n: mx.nd.array(a, ctx=CTX) for n, a in extra_arrays(args.extra_input).items()})
        aux = {n: aux_params[n].copy() for n in sym.list_auxiliary_states()}
        self.exe = sym.bind(CTX, args=bound, aux_states=aux, grad_req="null")

    def __call__(self, batch):
        self.x[:] = batch
        self.exe.forward(is_train=False)
        return self.exe.outputs[0].asnumpy()


def build(args, path):
    if path == "gluon-mkldnn":
        return GluonModel(args, fused=True)
    if path == "gluon-static":
        return GluonModel(args, fused=False)
    return ExecutorModel(args)


def choose_path(args, batch):
    candidates = ["gluon-mkldnn", "gluon-static", "executor"] if args.path == "auto" else [args.path]
    for path in candidates:
        try:
            model = build(args, path)
            model(batch)
            return path, model
        except Exception as e:  # a path this build lacks: try the next one
            if args.path != "auto":
                raise
            log("path %s unavailable (%s: %s)" % (path, type(e).__name__, e))
    raise RuntimeError("no MXNet inference path works for %s" % args.prefix)


def plain_reference(args, batch):
    """Output of MXNet's plain operators (a CachedOp without a fusion backend), for --check."""
    return GluonModel(args, fused=False)(batch)


def cpu_ticks():
    """(busy, total) clock ticks of the whole machine from /proc/stat, or None off Linux."""
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


def main(args):
    rng = np.random.RandomState(0)
    batch = rng.standard_normal((args.batch,) + args.sample_shape).astype(np.float32)

    t0 = time.perf_counter()
    path, first = choose_path(args, batch)
    models = [first] + [build(args, path) for _ in range(args.clients - 1)]
    load_s = time.perf_counter() - t0
    log("path %s, %d client(s), %d engine worker(s) x %d OpenMP thread(s), models ready in %.1f s"
        % (path, args.clients, args.engine_threads, args.omp_threads, load_s))

    check = None
    if args.check:
        got = first(batch)
        want = plain_reference(args, batch)
        check = float(np.max(np.abs(got - want)))
        log("--check: max |%s - plain operators| = %.3g (output max |y| %.3g)"
            % (path, check, float(np.max(np.abs(want)))))

    latencies = [[] for _ in range(args.clients)]
    errors = []
    start_barrier = threading.Barrier(args.clients + 1)
    done_times = [0.0] * args.clients

    def client(i):
        model = models[i]
        try:
            for _ in range(args.warmup):
                model(batch)
        except Exception as e:
            errors.append(e)
        start_barrier.wait()
        if errors:
            return
        try:
            for _ in range(args.iters):
                t = time.perf_counter()
                model(batch)
                latencies[i].append(time.perf_counter() - t)
        except Exception as e:
            errors.append(e)
        done_times[i] = time.perf_counter()

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(args.clients)]
    for t in threads:
        t.start()
    start_barrier.wait()
    start = time.perf_counter()
    ticks0, times0 = cpu_ticks(), os.times()
    for t in threads:
        t.join()
    ticks1, times1 = cpu_ticks(), os.times()
    if errors:
        raise errors[0]
    wall = max(done_times) - start

    all_ms = np.array([x for per in latencies for x in per]) * 1000.0
    result = {
        "engine": "mxnet",
        "model": os.path.basename(args.prefix),
        "batch": args.batch,
        "clients": args.clients,
        "iters": args.iters,
        "shape": list(args.sample_shape),
        "p50_ms": round(float(np.percentile(all_ms, 50)), 3),
        "p90_ms": round(float(np.percentile(all_ms, 90)), 3),
        "p99_ms": round(float(np.percentile(all_ms, 99)), 3),
        "mean_ms": round(float(all_ms.mean()), 3),
        "throughput_per_s": round(args.batch * args.clients * args.iters / wall, 3),
        "path": "%s, one model copy per client, %d engine worker(s) x %d OpenMP thread(s)"
                % (path, args.engine_threads, args.omp_threads),
        "threads": args.threads,
        "mxnet_version": mx.__version__,
    }
    if ticks0 and ticks1 and ticks1[1] > ticks0[1]:
        # Share of the machine's CPU time that other processes used while we measured: the numbers
        # are only meaningful when this is near 0.
        ours = (times1.user + times1.system - times0.user - times0.system) * os.sysconf("SC_CLK_TCK")
        others = max(0.0, (ticks1[0] - ticks0[0]) - ours) / (ticks1[1] - ticks0[1])
        result["other_load"] = round(others, 3)
        if others > 0.1:
            log("warning: other processes used %.0f%% of the CPU during the measurement"
                % (100 * others))
    if check is not None:
        result["check_max_abs_diff"] = check
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main(ARGS)
