#!/usr/bin/env python3
"""Builds Quiver's test fixtures with real MXNet 1.9.1 as the oracle.

Run it with the MXNet venv's interpreter (scripts/setup_mxnet_venv.sh prints it), or through
scripts/make_fixtures.sh, which caches the result:

    python scripts/make_fixtures.py --out DIR

DIR receives, all deterministic (fixed seeds):
  resnet18_v1, resnet50_v2   Gluon model-zoo graphs with random weights and calibrated BatchNorm
                             statistics, exported as PREFIX-symbol.json / PREFIX-0000.params
  tiny, tiny_legacy,         a small conv/BN/residual/FC graph in today's symbol-JSON layout and in
  tiny_legacy_v08            two rewrites in MXNet's older layout
  digits_cnn                 a small CNN trained on scikit-learn's bundled digits (the demo model)
  *.f32 / *.i32              raw little-endian float32 / int32 tensors (inputs, outputs, labels)
  manifest.json              what is where; see README-like notes in its "notes" field

Every reference output is computed by loading the EXPORTED files back (mx.sym.load + bind), so the
oracle is exactly what Quiver loads.
"""
import argparse
import hashlib
import json
import os
import platform
import re
import sys
import time

# Reference outputs come from MXNet's plain operators: the pip build otherwise rewrites executor
# graphs with its oneDNN fusion pass (conv+BN+ReLU), which is an optimisation, not the reference.
os.environ["MXNET_SUBGRAPH_BACKEND"] = "NONE"

import numpy as np
import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn

SCHEMA_VERSION = 1
CTX = mx.cpu()

# Keys that MXNet before 0.9 stored without the double underscores (see the legacy notes below).
LEGACY_PLAIN_HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage")


def log(msg):
    print("make_fixtures: " + msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Raw tensors and running exported files


def write_raw(out_dir, filename, array, dtype):
    """Writes array as raw little-endian values of dtype ('<f4' or '<i4'), C order, no header."""
    data = np.ascontiguousarray(array, dtype=np.dtype(dtype))
    data.tofile(os.path.join(out_dir, filename))
    return filename


def load_params(params_file):
    """Splits an MXNet .params file into (args, aux) dicts keyed by variable name."""
    args, aux = {}, {}
    for key, value in mx.nd.load(params_file).items():
        kind, _, name = key.partition(":")
        if kind == "arg":
            args[name] = value
        elif kind == "aux":
            aux[name] = value
        else:
            raise ValueError("%s: unexpected key %r (want arg:NAME or aux:NAME)" % (params_file, key))
    return args, aux


def run_files(symbol_file, params_file, input_name, x, dtype=np.float32):
    """Runs the files as MXNet would for inference: mx.sym.load, bind, forward(is_train=False).

    dtype=np.float64 casts parameters and input to double precision; MXNet then uses its plain
    (non-oneDNN) CPU kernels, which gives a near-exact reference for judging float32 error.
    """
    sym = mx.sym.load(symbol_file)
    args, aux = load_params(params_file)
    arg_names, aux_names = sym.list_arguments(), sym.list_auxiliary_states()
    missing = [n for n in arg_names if n != input_name and n not in args]
    missing += [n for n in aux_names if n not in aux]
    if missing:
        raise ValueError("%s: parameters missing from %s: %s" % (symbol_file, params_file, missing))
    bound_args = {n: args[n].astype(dtype) for n in arg_names if n != input_name}
    bound_args[input_name] = mx.nd.array(x, ctx=CTX, dtype=dtype)
    bound_aux = {n: aux[n].astype(dtype) for n in aux_names}
    exe = sym.bind(CTX, args=bound_args, aux_states=bound_aux, grad_req="null")
    exe.forward(is_train=False)
    return exe.outputs[0].asnumpy()


def make_case(out_dir, model, label, symbol_file, params_file, input_name, x):
    """Computes MXNet's output for x from the exported files and writes input, output, f64 output."""
    shape_tag = "x".join(str(d) for d in x.shape)
    y = run_files(symbol_file, params_file, input_name, x)
    y64 = run_files(symbol_file, params_file, input_name, x, dtype=np.float64)
    scale = float(np.max(np.abs(y)))
    f64_diff = float(np.max(np.abs(y.astype(np.float64) - y64)))
    case = {
        "name": label,
        "input_file": write_raw(out_dir, "%s-in-%s.f32" % (model, shape_tag), x, "<f4"),
        "input_shape": list(x.shape),
        "output_file": write_raw(out_dir, "%s-out-%s.f32" % (model, shape_tag), y, "<f4"),
        "output_shape": list(y.shape),
        "output_f64_file": write_raw(out_dir, "%s-out64-%s.f32" % (model, shape_tag), y64, "<f4"),
        "output_scale": scale,
        "output_std": float(np.std(y)),
        "f32_vs_f64_max_abs_diff": f64_diff,
    }
    log("  %s %-8s in %s -> out %s  scale %.4g  std %.4g  |f32-f64| %.3g (%.2g x scale)" % (
        model, label, list(x.shape), list(y.shape), scale, case["output_std"], f64_diff,
        f64_diff / scale))
    return case, y


# ---------------------------------------------------------------------------------------------
# Model-zoo ResNets with random weights


def batchnorm_blocks(block):
    found = []
    for child in block._children.values():
        if isinstance(child, nn.BatchNorm):
            found.append(child)
        found.extend(batchnorm_blocks(child))
    return found


def randomize_zoo_model(net, rng, calib_x):
    """Fills every parameter from rng, then calibrates the BatchNorm statistics.

    Weights: He-normal convolutions (std sqrt(2 / fan_in)), dense weights std sqrt(1 / fan_in),
    biases N(0, 0.1), BN gamma U(0.5, 1.5), BN beta N(0, 0.2).
    Plain random running statistics let activations grow or shrink by orders of magnitude over 50
    layers (logit std ~1e3 for resnet50_v2) and make every input give nearly the same output. So one
    forward pass over a calibration batch visits the BatchNorms in execution order and sets, per
    channel of the BN's actual input (mean m, variance v): running_mean = m + 0.2 sqrt(v) N(0, 1) and
    running_var = v U(0.5, 1.5) (v floored at 1% of the layer's mean variance). The statistics stay
    non-trivial, so folding them is really exercised, while activations stay near unit scale.
    """
    for name, param in sorted(net.collect_params().items()):
        shape = param.shape
        if name.endswith("weight"):
            fan_in = int(np.prod(shape[1:]))
            std = np.sqrt((2.0 if len(shape) == 4 else 1.0) / fan_in)
            value = rng.standard_normal(shape) * std
        elif name.endswith("bias"):
            value = rng.normal(0.0, 0.1, shape)
        elif name.endswith("gamma"):
            value = rng.uniform(0.5, 1.5, shape)
        elif name.endswith("beta"):
            value = rng.normal(0.0, 0.2, shape)
        elif name.endswith("running_mean"):
            value = np.zeros(shape)
        elif name.endswith("running_var"):
            value = np.ones(shape)
        else:
            raise ValueError("unexpected parameter %s" % name)
        param.set_data(mx.nd.array(value.astype(np.float32), ctx=CTX))

    def calibrate(block, inputs):
        x = inputs[0].asnumpy().astype(np.float64)
        mean = x.mean(axis=(0, 2, 3))
        var = x.var(axis=(0, 2, 3))
        var = np.maximum(var, 0.01 * var.mean() + 1e-6)
        running_mean = mean + 0.2 * np.sqrt(var) * rng.standard_normal(mean.shape)
        running_var = var * rng.uniform(0.5, 1.5, var.shape)
        block.running_mean.set_data(mx.nd.array(running_mean.astype(np.float32), ctx=CTX))
        block.running_var.set_data(mx.nd.array(running_var.astype(np.float32), ctx=CTX))

    hooks = [bn.register_forward_pre_hook(calibrate) for bn in batchnorm_blocks(net)]
    net(mx.nd.array(calib_x, ctx=CTX)).wait_to_read()
    for hook in hooks:
        hook.detach()


def randomize_fixed_gammas(symbol_file, params_file, rng):
    """Stores gamma != 1 for every BatchNorm with fix_gamma=True (MXNet wrote 1s there).

    MXNet ignores gamma when fix_gamma is true (it computes with 1), so the reference outputs do not
    change; a runtime that folds the stored gamma anyway fails on these files. Returns the node names.
    """
    with open(symbol_file) as f:
        nodes = json.load(f)["nodes"]
    params = mx.nd.load(params_file)
    changed = []
    for node in nodes:
        if node["op"] == "BatchNorm" and node.get("attrs", {}).get("fix_gamma") == "True":
            key = "arg:" + nodes[node["inputs"][1][0]]["name"]
            params[key] = mx.nd.array(rng.uniform(0.5, 1.5, params[key].shape).astype(np.float32))
            changed.append(node["name"])
    if changed:
        mx.nd.save(params_file, params)
    return changed


def make_zoo_model(out_dir, name, seed, extra_shapes):
    t0 = time.time()
    rng = np.random.RandomState(seed)
    net = gluon.model_zoo.vision.get_model(name, pretrained=False, classes=1000)
    net.initialize(mx.init.Zero(), ctx=CTX)
    net(mx.nd.zeros((1, 3, 224, 224), ctx=CTX))  # resolves deferred parameter shapes
    randomize_zoo_model(net, rng, rng.standard_normal((2, 3, 224, 224)).astype(np.float32))

    net.hybridize()
    inputs_rng = np.random.RandomState(seed + 1000)
    shapes = [(1, 3, 224, 224), (4, 3, 224, 224)] + list(extra_shapes)
    inputs = [inputs_rng.standard_normal(s).astype(np.float32) for s in shapes]
    in_memory = [net(mx.nd.array(x, ctx=CTX)).asnumpy() for x in inputs]
    prefix = os.path.join(out_dir, name)
    net.export(prefix, epoch=0)
    symbol_file, params_file = prefix + "-symbol.json", prefix + "-0000.params"
    fixed = randomize_fixed_gammas(symbol_file, params_file, rng)

    cases = []
    for x, expected in zip(inputs, in_memory):
        case, y = make_case(out_dir, name, "b%d_%d" % (x.shape[0], x.shape[2]),
                            symbol_file, params_file, "data", x)
        if not np.allclose(y, expected, rtol=0, atol=1e-4 * case["output_scale"]):
            raise RuntimeError("%s: exported files disagree with the in-memory network" % name)
        if not 0.1 <= case["output_std"] <= 100:
            raise RuntimeError("%s: logit std %.3g outside 0.1..100" % (name, case["output_std"]))
        cases.append(case)
    log("%s done in %.1f s" % (name, time.time() - t0))
    return {
        "prefix": name, "epoch": 0, "input_name": "data",
        "symbol_file": name + "-symbol.json", "params_file": name + "-0000.params",
        "layout": "modern", "source": "mx.gluon.model_zoo.vision.get_model('%s', "
        "pretrained=False, classes=1000), random weights, seed %d" % (name, seed),
        "fix_gamma_nodes_with_gamma_not_one": fixed,
        "cases": cases,
    }


# ---------------------------------------------------------------------------------------------
# The tiny graph and its legacy-layout copies


def tiny_symbol():
    """conv-BN-relu-maxpool, conv-BN + residual add, relu, global avg pool, flatten, FC.

    Built with the symbol API, so names follow MXNet's classic scheme (bn1_moving_mean for the aux
    state of node bn1), which the pre-0.9 layout relies on. Some hidden attributes are set on purpose
    (lr_mult, wd_mult, ctx_group) so that the legacy copies have something to put under "attr".
    """
    data = mx.sym.var("data")
    w1 = mx.sym.var("conv1_weight", lr_mult=1.0, wd_mult=1.0)
    with mx.AttrScope(ctx_group="stage1"):
        c1 = mx.sym.Convolution(data, weight=w1, num_filter=8, kernel=(3, 3), pad=(1, 1),
                                name="conv1")
        b1 = mx.sym.BatchNorm(c1, fix_gamma=False, eps=1e-3, name="bn1")
        r1 = mx.sym.Activation(b1, act_type="relu", name="relu1")
        p1 = mx.sym.Pooling(r1, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    c2 = mx.sym.Convolution(p1, num_filter=8, kernel=(3, 3), pad=(1, 1), no_bias=True,
                            name="conv2")
    b2 = mx.sym.BatchNorm(c2, fix_gamma=False, name="bn2")
    s = mx.sym.elemwise_add(b2, p1, name="add1")
    r2 = mx.sym.Activation(s, act_type="relu", name="relu2")
    p2 = mx.sym.Pooling(r2, kernel=(1, 1), global_pool=True, pool_type="avg", name="pool2")
    f = mx.sym.Flatten(p2, name="flatten1")
    return mx.sym.FullyConnected(f, num_hidden=10, name="fc1")


def tiny_params(sym, input_shape, rng):
    arg_shapes, _, aux_shapes = sym.infer_shape(data=input_shape)
    params = {}
    for name, shape in zip(sym.list_arguments(), arg_shapes):
        if name == "data":
            continue
        if name.endswith("weight"):
            value = rng.standard_normal(shape) * np.sqrt(2.0 / np.prod(shape[1:]))
        elif name.endswith("gamma"):
            value = rng.uniform(0.5, 1.5, shape)
        else:  # biases and beta
            value = rng.normal(0.0, 0.2, shape)
        params["arg:" + name] = value
    for name, shape in zip(sym.list_auxiliary_states(), aux_shapes):
        if name.endswith("moving_mean"):
            value = rng.normal(0.0, 0.3, shape)
        else:
            value = rng.uniform(0.5, 1.5, shape)
        params["aux:" + name] = value
    return {k: mx.nd.array(v.astype(np.float32), ctx=CTX) for k, v in params.items()}


def to_legacy_layout(graph, drop_aux_inputs):
    """Rewrites today's symbol JSON into MXNet's older layout.

    - op parameters under "param", hidden attributes under "attr" (instead of one "attrs"); the
      hidden keys MXNet < 0.9 wrote without underscores (lr_mult, ctx_group, ...) lose them, and
      MXNet's loader puts them back (UpgradeJSON_FixParsing);
    - node inputs and heads as 2-element [node, output] lists; "backward_source_id": -1 per node;
    - no "node_row_ptr" and no top-level "attrs" (so no mxnet_version: loaders treat it as 0.8.0).
    With drop_aux_inputs (the real pre-0.9 layout), BatchNorm lists only data, gamma and beta: its
    moving_mean / moving_var variable nodes are removed, and MXNet re-creates them as
    NODENAME_moving_mean / NODENAME_moving_var (UpgradeJSON_000800_000900).
    """
    nodes = graph["nodes"]
    dropped = set()
    if drop_aux_inputs:
        for node in nodes:
            if node["op"] == "BatchNorm":
                dropped.update(entry[0] for entry in node["inputs"][3:])
    new_index, kept = {}, []
    for i, node in enumerate(nodes):
        if i not in dropped:
            new_index[i] = len(kept)
            kept.append(node)

    legacy_nodes = []
    for node in kept:
        param, attr = {}, {}
        for key, value in node.get("attrs", {}).items():
            if key.startswith("__") and key.endswith("__"):
                plain = key[2:-2]
                attr[plain if plain in LEGACY_PLAIN_HIDDEN_KEYS else key] = value
            else:
                param[key] = value
        inputs = [[new_index[e[0]], e[1]] for e in node["inputs"]
                  if not (drop_aux_inputs and e[0] in dropped)]
        legacy = {"op": node["op"], "param": param, "name": node["name"], "inputs": inputs,
                  "backward_source_id": -1}
        if attr:
            legacy["attr"] = attr
        legacy_nodes.append(legacy)
    return {
        "nodes": legacy_nodes,
        "arg_nodes": [new_index[i] for i in graph["arg_nodes"] if i not in dropped],
        "heads": [[new_index[h[0]], h[1]] for h in graph["heads"]],
    }


def make_tiny_models(out_dir, seed):
    t0 = time.time()
    rng = np.random.RandomState(seed)
    sym = tiny_symbol()
    params = tiny_params(sym, (2, 3, 16, 16), rng)
    x = rng.standard_normal((2, 3, 16, 16)).astype(np.float32)
    modern = json.loads(sym.tojson())
    layouts = {
        "tiny": ("modern", modern,
                 "today's layout: 'attrs', 3-element inputs, node_row_ptr, mxnet_version"),
        "tiny_legacy": ("legacy", to_legacy_layout(modern, drop_aux_inputs=False),
                        "older layout: 'param' + 'attr', 2-element inputs and heads, "
                        "backward_source_id, no node_row_ptr, no mxnet_version"),
        "tiny_legacy_v08": ("legacy-v0.8", to_legacy_layout(modern, drop_aux_inputs=True),
                            "as tiny_legacy, and BatchNorm lists only data/gamma/beta as inputs "
                            "(aux-state nodes absent, named NODE_moving_mean/var by convention)"),
    }
    models, reference = {}, None
    for name, (layout, graph, note) in layouts.items():
        symbol_file = os.path.join(out_dir, name + "-symbol.json")
        params_file = os.path.join(out_dir, name + "-0000.params")
        with open(symbol_file, "w") as f:
            f.write(compact_json(graph) + "\n")
        mx.nd.save(params_file, params)
        loaded = mx.sym.load(symbol_file)
        if (loaded.list_arguments() != sym.list_arguments()
                or loaded.list_auxiliary_states() != sym.list_auxiliary_states()):
            raise RuntimeError("%s: mx.sym.load gives different variables: %s %s" % (
                name, loaded.list_arguments(), loaded.list_auxiliary_states()))
        case, y = make_case(out_dir, name, "b2_16", symbol_file, params_file, "data", x)
        if reference is None:
            reference = y
        elif not np.array_equal(y, reference):
            raise RuntimeError("%s: legacy layout gives different outputs (max diff %g)" % (
                name, np.max(np.abs(y - reference))))
        models[name] = {
            "prefix": name, "epoch": 0, "input_name": "data",
            "symbol_file": name + "-symbol.json", "params_file": name + "-0000.params",
            "layout": layout, "layout_note": note, "cases": [case],
        }
    log("tiny models done in %.1f s" % (time.time() - t0))
    return models


# ---------------------------------------------------------------------------------------------
# The demo model: a small CNN trained on scikit-learn's bundled digits

DIGITS_DIVIDE_BY, DIGITS_MEAN, DIGITS_STD = 16.0, 0.5, 0.5


def normalise_digits(images):
    return ((images / DIGITS_DIVIDE_BY - DIGITS_MEAN) / DIGITS_STD).astype(np.float32)


def make_digits_model(out_dir, seed, min_accuracy=0.9):
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    t0 = time.time()
    digits = load_digits()
    x = normalise_digits(digits.images)[:, None, :, :]  # (N, 1, 8, 8)
    y = digits.target.astype(np.int32)
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=0.2, random_state=seed, stratify=y)

    mx.random.seed(seed)
    rng = np.random.RandomState(seed)
    net = nn.HybridSequential(prefix="digits_")
    with net.name_scope():
        net.add(nn.Conv2D(16, kernel_size=3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                nn.MaxPool2D(pool_size=2),                                   # 16 x 4 x 4
                nn.Conv2D(32, kernel_size=3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                nn.MaxPool2D(pool_size=2),                                   # 32 x 2 x 2
                nn.Flatten(), nn.Dense(10))
    net.initialize(mx.init.Xavier(magnitude=2.0), ctx=CTX)
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

    def accuracy_of(model_fn, images, labels):
        logits = model_fn(images)
        return float(np.mean(np.argmax(logits, axis=1) == labels)), logits

    batch, epochs, accuracy = 32, 0, 0.0
    while epochs < 30 and (epochs < 8 or accuracy <= min_accuracy):
        order = rng.permutation(len(x_train))
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            data = mx.nd.array(x_train[idx], ctx=CTX)
            label = mx.nd.array(y_train[idx], ctx=CTX)
            with autograd.record():
                loss = loss_fn(net(data), label)
            loss.backward()
            trainer.step(len(idx))
        epochs += 1
        accuracy, _ = accuracy_of(lambda a: net(mx.nd.array(a, ctx=CTX)).asnumpy(), x_test, y_test)
        log("  digits epoch %d: test accuracy %.4f" % (epochs, accuracy))

    prefix = os.path.join(out_dir, "digits_cnn")
    net.export(prefix, epoch=0)
    symbol_file, params_file = prefix + "-symbol.json", prefix + "-0000.params"
    case, logits = make_case(out_dir, "digits_cnn", "test_set", symbol_file, params_file, "data",
                             x_test)
    accuracy = float(np.mean(np.argmax(logits, axis=1) == y_test))
    if accuracy <= min_accuracy:
        raise RuntimeError("digits_cnn: test accuracy %.4f is not above %.2f" % (accuracy,
                                                                               min_accuracy))
    with open(os.path.join(out_dir, "digits_cnn_synset.txt"), "w") as f:
        f.write("".join("%d\n" % d for d in range(10)))
    case["labels_file"] = write_raw(out_dir, "digits_cnn-test-labels.i32", y_test, "<i4")
    case["labels_shape"] = [len(y_test)]
    log("digits_cnn: %d epochs, MXNet test accuracy %.4f on %d images, %.1f s" % (
        epochs, accuracy, len(y_test), time.time() - t0))
    return {
        "prefix": "digits_cnn", "epoch": 0, "input_name": "data",
        "symbol_file": "digits_cnn-symbol.json", "params_file": "digits_cnn-0000.params",
        "synset_file": "digits_cnn_synset.txt", "layout": "modern",
        "source": "Gluon CNN trained %d epochs on sklearn.datasets.load_digits(), seed %d"
                  % (epochs, seed),
        "preprocess": {
            "formula": "x = (pixel / divide_by - mean) / std, pixel = load_digits().images "
                       "(0..16), laid out (N, 1, 8, 8)",
            "divide_by": DIGITS_DIVIDE_BY, "mean": DIGITS_MEAN, "std": DIGITS_STD,
        },
        "split": {"test_size": 0.2, "random_state": seed, "stratify": True,
                  "train_count": int(len(y_train)), "test_count": int(len(y_test))},
        "train_epochs": epochs,
        "mxnet_test_accuracy": accuracy,
        "cases": [case],
    }


# ---------------------------------------------------------------------------------------------


def compact_json(obj):
    """Indented JSON with lists of numbers (shapes) kept on one line."""
    text = json.dumps(obj, indent=2)
    return re.sub(r"\[\s+([-+0-9.eE,\s]+?)\s+\]",
                  lambda m: "[" + " ".join(m.group(1).split()) + "]", text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="directory to fill (created if missing)")
    parser.add_argument("--skip-resnet50", action="store_true",
                        help="leave out resnet50_v2 (quick local runs only)")
    args = parser.parse_args()

    t0 = time.time()
    os.makedirs(args.out, exist_ok=True)
    np.random.seed(0)
    mx.random.seed(0)

    models = {}
    models["resnet18_v1"] = make_zoo_model(args.out, "resnet18_v1", 1801, [(2, 3, 160, 160)])
    if not args.skip_resnet50:
        models["resnet50_v2"] = make_zoo_model(args.out, "resnet50_v2", 5002, [])
    models.update(make_tiny_models(args.out, 77))
    models["digits_cnn"] = make_digits_model(args.out, 42)

    with open(os.path.abspath(__file__), "rb") as f:
        generator_sha = hashlib.sha256(f.read()).hexdigest()
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "mxnet_version": mx.__version__,
        "numpy_version": np.__version__,
        "python_version": platform.python_version(),
        "generator": "scripts/make_fixtures.py",
        "generator_sha256": generator_sha,
        "tensor_format": "raw little-endian, C order, no header: .f32 = float32, .i32 = int32",
        "tolerance": "compare with max|quiver - output| <= 1e-4 * output_scale (per case)",
        "notes": [
            "Paths are relative to this directory; PREFIX-symbol.json + PREFIX-0000.params.",
            "output_file is MXNet's float32 result from the exported files (mx.sym.load + bind, "
            "forward(is_train=False), MXNET_SUBGRAPH_BACKEND=NONE: plain operators, no fusion); output_f64_file is the same files run in float64 by MXNet "
            "(stored as float32), with f32_vs_f64_max_abs_diff the gap between the two.",
            "output_scale = max |output|; output_std = std of all output values.",
            "fix_gamma_nodes_with_gamma_not_one: BatchNorm nodes with fix_gamma=True whose stored "
            "gamma is deliberately not 1; MXNet computes them with gamma = 1, and so must Quiver.",
        ],
        "models": models,
    }
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        f.write(compact_json(manifest) + "\n")
    log("all fixtures written to %s in %.1f s" % (args.out, time.time() - t0))


if __name__ == "__main__":
    main()
