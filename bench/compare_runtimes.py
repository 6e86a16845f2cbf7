"""The driver of bench/compare_runtimes.sh and compare_sequence_runtimes.sh (see there): runs every engine on
every model of a models directory, round after round, as separate processes, and prints medians side by
side. A model's manifest entry may say how it is fed (input_name, shape, extra_inputs as quiver_bench's
--extra-input; default: one 3x224x224 input named data) and how many iterations make a run (iters,
about a second's worth; default 50)."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

from bench_process import run_json

HERE = os.path.dirname(os.path.abspath(__file__))
ENGINES = ["quiver", "quiver-python", "quiver-bf16", "quiver-int8", "quiver-auto", "mxnet", "onnxruntime",
           "onnxruntime-int8", "openvino-f32", "openvino-default", "openvino-int8"]
# Quiver's engines and the precision each asks for (quiver-bf16, -int8 and -auto: the C API with that
# precision; quiver-int8 and quiver-auto run MXNet's quantize_net version of the model, NAME-int8,
# bench/quantize_models.py, and the table shows what "auto" resolved to on this CPU).
QUIVER_PRECISIONS = {"quiver": "float32", "quiver-python": "float32", "quiver-bf16": "bfloat16", "quiver-int8": "int8",
                     "quiver-auto": "auto"}


def quiver_prefix(args, model, precision):
    """The files a Quiver engine runs: the calibrated (int8) version for int8 and auto."""
    return os.path.join(args.models_dir, model + ("-int8" if precision in ("int8", "auto") else ""))


def onnx_file(args, model, engine):
    """The ONNX model an ONNX engine runs: the peers' int8 engines run ONNX Runtime's QDQ quantization of
    it, NAME-int8.onnx (bench/quantize_onnx.py)."""
    return os.path.join(args.models_dir, model + ("-int8" if engine.endswith("-int8") else "") + ".onnx")


def runs_engine(args, model, engine):
    """An int8 engine needs the model's int8 version; every other engine runs every model."""
    if engine in ("quiver-int8", "quiver-auto"):
        return os.path.exists(quiver_prefix(args, model["name"], "int8") + "-symbol.json")
    return not engine.endswith("-int8") or os.path.exists(onnx_file(args, model["name"], engine))


def input_flags(model, with_name=True):
    """How the benchmark tools are told to feed `model` (quiver_bench finds the data input itself)."""
    flags = ["--shape", model.get("shape", "3,224,224")]
    if with_name:
        flags += ["--input-name", model.get("input_name", "data")]
    for extra in model.get("extra_inputs", []):
        flags += ["--extra-input", extra]
    return flags


def commands(engine, args, model, clients, threads, check):
    """The command line of one run, and its extra environment."""
    prefix = os.path.join(args.models_dir, model["name"])
    iters = model.get("iters", 50)
    common = ["--clients", str(clients), "--iters", str(iters), "--warmup", str(max(3, iters // 10))]
    if engine in ("quiver", "quiver-bf16", "quiver-int8", "quiver-auto"):
        precision = QUIVER_PRECISIONS[engine]
        return ([args.quiver_bench, "--prefix", quiver_prefix(args, model["name"], precision), "--option",
                 f"precision={precision}"] + common + input_flags(model, with_name=False),
                {"QUIVER_NUM_THREADS": str(threads)})
    if engine == "quiver-python":
        return ([args.quiver_python, os.path.join(HERE, "python_bench.py"), "--prefix", prefix] + common +
                input_flags(model), {"QUIVER_NUM_THREADS": str(threads)})
    if engine == "mxnet":
        return ([args.mxnet_python, os.path.join(HERE, "mxnet_bench.py"), "--prefix", prefix,
                 "--threads", str(threads)] + common + input_flags(model), {})
    command = [args.baselines_python, os.path.join(HERE, "baseline_bench.py"), "--engine", engine, "--model",
               onnx_file(args, model["name"], engine), "--threads", str(threads)] + common + input_flags(model)
    if check:
        command += ["--check", check]
    return command, {}


def quiver_error(args, model, case, precision):
    """Quiver's largest difference from MXNet's recorded (float32) output in `precision`, through the Python
    API (the model's first output; its extra inputs as the benchmarks give them)."""
    script = ("import sys, numpy as np, quiver\n"
              "from model_inputs import extra_arrays\n"
              "inputs = {sys.argv[5]: np.load(sys.argv[2]), **extra_arrays(sys.argv[6:])}\n"
              "want = np.load(sys.argv[3])\n"
              "descs = [quiver.DataDesc(n, a.shape, layout='') for n, a in inputs.items()]\n"
              "with quiver.Predictor(sys.argv[1], input_descs=descs, precision=sys.argv[4]) as p:\n"
              "    got = next(iter(p.predict_named(inputs).values()))\n"
              "    print(float(np.abs(got.reshape(want.shape) - want).max()))\n")
    out = subprocess.run([args.quiver_python, "-c", script, quiver_prefix(args, model["name"], precision),
                          os.path.join(args.models_dir, case["input"]),
                          os.path.join(args.models_dir, case["outputs"][0]), precision,
                          model.get("input_name", "data")] + model.get("extra_inputs", []),
                         check=True, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                             filter(None, [HERE, os.environ.get("PYTHONPATH")])))).stdout
    return float(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    for flag in ("--models-dir", "--quiver-bench", "--quiver-python", "--mxnet-python", "--baselines-python"):
        parser.add_argument(flag, required=True)
    parser.add_argument("models", nargs="*")
    args = parser.parse_args()
    rounds = int(os.environ.get("ROUNDS", "5"))
    threads = int(os.environ.get("THREADS", "2"))
    client_counts = [int(c) for c in os.environ.get("CLIENTS", "1 2").split()]
    engines = os.environ.get("ENGINES", " ".join(ENGINES)).split()
    manifest = json.load(open(os.path.join(args.models_dir, "manifest.json")))
    entries = {m["name"]: m for m in manifest["models"]}
    cases = {name: m["cases"][0] for name, m in entries.items()}
    models = args.models or list(cases)
    out_dir = os.environ.get("OUT_DIR") or tempfile.mkdtemp(prefix="compare_runtimes.")
    os.makedirs(out_dir, exist_ok=True)
    log = open(os.path.join(out_dir, "runs.jsonl"), "w")

    # Each ONNX engine reads the recorded input as raw float32 for its --check.
    errors = {}  # (engine, model) -> max |difference| from MXNet's recorded output
    precisions = {}  # (engine, model) -> the precision an engine reports it took
    checks = {}
    for model in models:
        case = cases[model]
        raw_in, raw_out = (os.path.join(out_dir, f"{model}-{kind}.f32") for kind in ("in", "out"))
        np.load(os.path.join(args.models_dir, case["input"])).astype(np.float32).tofile(raw_in)
        np.load(os.path.join(args.models_dir, case["outputs"][0])).astype(np.float32).tofile(raw_out)
        checks[model] = f"{raw_in},{raw_out}"
        for precision in sorted({QUIVER_PRECISIONS[e] for e in engines
                                 if e in QUIVER_PRECISIONS and runs_engine(args, entries[model], e)}):
            same = [e for e in engines if QUIVER_PRECISIONS.get(e) == precision]
            try:
                error = quiver_error(args, entries[model], case, precision)  # the C and the Python API: one result
            except subprocess.CalledProcessError as failed:
                # A precision this CPU does not run (bfloat16 on AVX2) is refused naming what it lacks.
                if f"precision '{precision}' needs" not in failed.stderr:
                    raise
                print(f"compare_runtimes: not run here: {', '.join(same)}: {failed.stderr.strip().splitlines()[-1]}",
                      file=sys.stderr)
                engines = [e for e in engines if e not in same]
                continue
            errors.update({(e, model): error for e in same})
            precisions.update({(e, model): precision for e in same})

    results = {}  # (engine, model, clients) -> runs
    for r in range(rounds):
        for model in models:
            for clients in client_counts:
                for engine in (e for e in engines if runs_engine(args, entries[model], e)):
                    check = checks[model] if r == 0 and clients == client_counts[0] else ""
                    command, env = commands(engine, args, entries[model], clients, threads, check)
                    result = run_json(command, log, env)
                    results.setdefault((engine, model, clients), []).append(result)
                    if "max_abs_diff_vs_mxnet" in result:
                        errors[(engine, model)] = result["max_abs_diff_vs_mxnet"]
                    if "precision" in result:
                        precisions[(engine, model)] = result["precision"]
        print(f"compare_runtimes: round {r + 1}/{rounds} done", file=sys.stderr)

    def median(engine, model, clients, key):
        runs = results.get((engine, model, clients))
        return statistics.median(x[key] for x in runs) if runs else None

    summary = {"threads": threads, "rounds": rounds, "out_dir": out_dir, "models": {}}
    one, two = client_counts[0], client_counts[-1]
    for model in models:
        print(f"\n{model} (batch 1, {threads} threads, medians of {rounds} rounds)")
        print(f"  {'engine':18s} {'p50 ms':>8s} {'vs quiver':>9s} {'vs OV dflt':>10s} {f'/s x{two}':>10s} "
              f"{'max|d| vs MXNet':>16s}  precision")
        base = median("quiver", model, one, "p50_ms")
        openvino = median("openvino-default", model, one, "p50_ms")
        rows = {}
        for engine in (e for e in engines if runs_engine(args, entries[model], e)):
            p50 = median(engine, model, one, "p50_ms")
            tput = median(engine, model, two, "throughput_per_s")
            error = errors.get((engine, model))
            rows[engine] = {"p50_ms": p50, f"throughput_{two}_clients": tput, "max_abs_diff_vs_mxnet": error,
                            "precision": precisions.get((engine, model))}
            ratio = f"{p50 / base:9.2f}" if base and p50 else f"{'':9s}"
            ratio_ov = f"{p50 / openvino:10.2f}" if openvino and p50 else f"{'':10s}"
            print(f"  {engine:18s} {p50:8.2f} {ratio} {ratio_ov} {tput or 0:10.1f} "
                  f"{'' if error is None else f'{error:16.2e}'}  {precisions.get((engine, model)) or ''}")
        summary["models"][model] = rows
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
