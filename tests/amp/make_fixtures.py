"""Makes MXNet 1.9.1 bfloat16 AMP versions of small models and records MXNet's outputs for them.

    python tests/amp/make_fixtures.py --out DIR --digits DIR_WITH_digits_cnn

Run with scripts/setup_mxnet_venv.sh's python (tests/amp/make_fixtures.sh does, and caches DIR).

Models, each converted by mxnet.contrib.amp with target_dtype='bfloat16' and saved with
remove_amp_cast=False (MXNet's default save drops the casts of inputs, and MXNet itself then cannot run
a model with bfloat16 parameters on float32 data):
  resnet18_v1     Gluon model zoo, random calibrated weights, 64x64 inputs; convert_model with
                  cast_optional_params=True: weights stored as bfloat16 (type flag 12)
  mobilenet0.25   Gluon model zoo, the same, convert_model with cast_optional_params=False: float32
                  weights, each read through an amp_cast to bfloat16 in the graph
  digits_cnn      the project's demo CNN (scripts/make_fixtures.py trains it), convert_hybrid_block
                  with cast_optional_params=True: Flatten stays float32, so a cast to bfloat16 of a
                  computed value sits before the Dense layer

Per model and input (batch 4) the directory holds, as little-endian float32:
  NAME-in.f32         the input
  NAME-amp.f32        MXNet's output of the AMP model (Module API: the graph executor, oneDNN fusion on)
  NAME-amp_gluon.f32  the same files through gluon.SymbolBlock (no graph fusion: rounds elsewhere)
  NAME-f32.f32        MXNet's output of the original float32 model
  NAME-emulated.f32   MXNet float32 on the AMP graph with every amp_cast to bfloat16 followed by a
                      cast back to float32: the values rounded where the casts are, everything else
                      computed in float32. This is what Quiver computes (it stores float32).
and manifest.json with shapes, the sources, the differences between these outputs (MXNet only), and
"flip_allowance": how far one rounding of a computed value landing on the other bfloat16 neighbour
can move an output (see flip_allowance()).
"""
import argparse
import hashlib
import json
import os
import time

import numpy as np
import mxnet as mx
from mxnet import gluon
from mxnet.contrib import amp

CTX = mx.cpu()
BATCH = 4


def log(msg):
    print("amp fixtures: " + msg, flush=True)


def write_f32(path, array):
    np.ascontiguousarray(array, dtype="<f4").tofile(path)


def write_manifest(out_dir, script, content):
    """Writes OUT_DIR/manifest.json: which generator SCRIPT (a path) made the directory, the SHA-256 of
    its file and MXNet's version, then CONTENT (a dict)."""
    with open(script, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    repository = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    manifest = {"generator": os.path.relpath(os.path.abspath(script), repository), "generator_sha256": sha,
                "mxnet_version": mx.__version__, **content}
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)


def batchnorms(block):
    found = []
    for child in block._children.values():
        if isinstance(child, gluon.nn.BatchNorm):
            found.append(child)
        found.extend(batchnorms(child))
    return found


def random_zoo_model(name, seed, size):
    """The Gluon model zoo's NAME (100 classes) with random_weights for SIZE x SIZE images."""
    return random_weights(gluon.model_zoo.vision.get_model(name, pretrained=False, classes=100), seed, (3, size, size))


def random_weights(net, seed, shape):
    """NET initialized and hybridized for inputs of SHAPE (without the batch axis): He-normal weights;
    each BatchNorm's statistics set from its real input on a calibration batch (so activations stay
    near unit scale through the network), with some noise so they fold non-trivially."""
    rng = np.random.RandomState(seed)
    net.initialize(mx.init.Zero(), ctx=CTX)
    # Shapes without a run: after one, a 3-D convolution's weight is in a oneDNN layout that
    # MXNet 1.9.1's set_data refuses ("to.IsDefaultData()").
    net.infer_shape(mx.nd.zeros((1,) + shape, ctx=CTX))
    for pname, param in sorted(net.collect_params().items()):
        pshape = param.shape
        if pname.endswith("weight"):
            fan_in = int(np.prod(pshape[1:]))
            value = rng.standard_normal(pshape) * np.sqrt((2.0 if len(pshape) >= 4 else 1.0) / fan_in)
        elif pname.endswith("bias"):
            value = rng.normal(0.0, 0.1, pshape)
        elif pname.endswith("gamma"):
            value = rng.uniform(0.5, 1.5, pshape)
        elif pname.endswith("beta"):
            value = rng.normal(0.0, 0.2, pshape)
        elif pname.endswith("running_mean"):
            value = np.zeros(pshape)
        else:
            value = np.ones(pshape)
        param.set_data(mx.nd.array(value.astype(np.float32), ctx=CTX))

    def calibrate(block, inputs):
        x = inputs[0].reshape((0, 0, -1)).asnumpy().astype(np.float64)  # (N, C, everything else)
        mean, var = x.mean(axis=(0, 2)), x.var(axis=(0, 2))
        var = np.maximum(var, 0.01 * var.mean() + 1e-6)
        block.running_mean.set_data(mx.nd.array(mean + 0.2 * np.sqrt(var) * rng.standard_normal(mean.shape)))
        block.running_var.set_data(mx.nd.array(var * rng.uniform(0.5, 1.5, var.shape)))

    hooks = [bn.register_forward_pre_hook(calibrate) for bn in batchnorms(net)]
    net(mx.nd.array(rng.standard_normal((4,) + shape).astype(np.float32))).wait_to_read()
    for h in hooks:
        h.detach()
    net.hybridize()
    net(mx.nd.zeros((1,) + shape, ctx=CTX))
    return net


# Running models and picking outputs, shared with tests/int8's and make_conformance_fixtures.py's generators.

def run_module_outputs(sym, args, auxs, x):
    """Every output of SYM on X through the Module API (the graph executor, oneDNN fusion on), as float32."""
    mod = mx.mod.Module(sym, data_names=["data"], label_names=None, context=CTX)
    mod.bind(data_shapes=[("data", x.shape)], for_training=False)
    mod.set_params(args, auxs, allow_missing=False, allow_extra=True)
    mod.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=False)
    return [o.asnumpy().astype(np.float32) for o in mod.get_outputs()]


def run_module(sym, args, auxs, x):
    return run_module_outputs(sym, args, auxs, x)[0]


def run_gluon_outputs(prefix, x):
    """Every output of PREFIX's files on X through gluon.SymbolBlock (no graph fusion), as float32."""
    block = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params", ctx=CTX)
    out = block(mx.nd.array(x))
    return [o.asnumpy().astype(np.float32) for o in (out if isinstance(out, (list, tuple)) else [out])]


def run_gluon(prefix, x):
    return run_gluon_outputs(prefix, x)[0]


def with_per_anchor(sym):
    """A detector's SYM with two more outputs per anchor: the input of its last softmax (the class
    logits) and the output of its box_decode (the decoded boxes)."""
    nodes = json.loads(sym.tojson())["nodes"]
    softmax = [n for n in nodes if n["op"] == "softmax"][-1]
    decode = next(n for n in nodes if n["op"] == "_contrib_box_decode")
    internals = sym.get_internals()
    logits = internals[nodes[softmax["inputs"][0][0]]["name"] + "_output"]
    return mx.sym.Group(list(sym) + [logits, internals[decode["name"] + "_output"]])


def emulated_symbol(amp_json):
    """The AMP graph with amp_cast(float32) after every amp_cast(bfloat16), and no bfloat16 variables."""
    graph = json.loads(amp_json)
    nodes, new_id = [], {}
    for old, node in enumerate(graph["nodes"]):
        node = dict(node)
        node["inputs"] = [[new_id[i], k, v] for i, k, v in node["inputs"]]
        attrs = dict(node.get("attrs", {}))
        if node["op"] == "null" and attrs.get("__dtype__") == "12":
            attrs["__dtype__"] = "0"
            node["attrs"] = attrs
        nodes.append(node)
        new_id[old] = len(nodes) - 1
        if node["op"] == "amp_cast" and attrs.get("dtype") == "bfloat16":
            nodes.append({"op": "amp_cast", "name": node["name"] + "_back_to_float32",
                          "attrs": {"dtype": "float32"}, "inputs": [[len(nodes) - 1, 0, 0]]})
            new_id[old] = len(nodes) - 1
    graph["nodes"] = nodes
    graph["arg_nodes"] = [i for i, n in enumerate(nodes) if n["op"] == "null"]
    graph["heads"] = [[new_id[i], k, v] for i, k, v in graph["heads"]]
    graph.pop("node_row_ptr", None)
    return mx.sym.load_json(json.dumps(graph))


def widened(params):
    return {k: (mx.nd.amp_cast(v, dtype="float32") if v.dtype != np.float32 else v) for k, v in params.items()}


def bf16_ulp(values):
    """The spacing of bfloat16 values (8 significant bits) at each |value| (0 where value is 0)."""
    a = np.abs(values.astype(np.float64))
    exponent = np.floor(np.log2(np.where(a > 0, a, 1.0)))
    return np.where(a > 0, np.exp2(exponent - 7), 0.0)


def flip_allowance(amp_json, args, auxs, x):
    """How far one element of a cast of a computed value landing on its other bfloat16 neighbour can
    move an output: two float32 computations (MXNet's, Quiver's) can straddle a rounding midpoint.
    Such casts sit before a FullyConnected in these models (Flatten stays float32), so one such flip
    moves output j by ulp(f_i) |W_ji|; returns the largest such move, or 0 without such casts."""
    graph = json.loads(amp_json)
    nodes = graph["nodes"]
    params, aux_params = widened(args), widened(auxs)
    allowance = 0.0
    for cast_id, cast in enumerate(nodes):
        if cast["op"] != "amp_cast" or cast["attrs"]["dtype"] != "bfloat16" or nodes[cast["inputs"][0][0]]["op"] == "null":
            continue
        users = [n for n in nodes if any(i[0] == cast_id for i in n["inputs"])]
        if any(u["op"] != "FullyConnected" or u["inputs"][0][0] != cast_id for u in users):
            raise RuntimeError("%s: a cast of a computed value feeds %s; flip_allowance() handles only "
                               "FullyConnected data" % (cast["name"], [u["op"] for u in users]))
        source = nodes[cast["inputs"][0][0]]["name"] + "_output"
        internal = emulated_symbol(amp_json).get_internals()[source]
        features = run_module(internal, params, aux_params, x).reshape(x.shape[0], -1)
        for user in users:
            w_node = nodes[user["inputs"][1][0]]
            while w_node["op"] == "amp_cast":
                w_node = nodes[w_node["inputs"][0][0]]
            w = mx.nd.amp_cast(mx.nd.amp_cast(params[w_node["name"]], dtype=amp.amp.bfloat16), dtype="float32")
            column_max = np.max(np.abs(w.asnumpy()), axis=0)
            allowance = max(allowance, float(np.max(bf16_ulp(features) * column_max)))
    return allowance


def stats(a, b):
    return float(np.max(np.abs(a.astype(np.float64) - b)))


def make_model(out_dir, name, sym, args, auxs, x, how, cast_optional_params):
    """Converts, saves with the casts kept, runs MXNet four ways, writes the files; returns the manifest entry."""
    t0 = time.time()
    if how == "convert_model":
        s16, a16, x16 = amp.convert_model(sym, dict(args), dict(auxs), target_dtype="bfloat16",
                                          cast_optional_params=cast_optional_params)
    else:  # convert_hybrid_block on the float32 model imported as a Gluon block
        prefix32 = os.path.join(out_dir, "_tmp_" + name)
        mx.model.save_checkpoint(prefix32, 0, sym, args, auxs)
        block = gluon.SymbolBlock.imports(prefix32 + "-symbol.json", ["data"], prefix32 + "-0000.params", ctx=CTX)
        block.hybridize()
        block(mx.nd.array(x[:1]))
        converted = amp.convert_hybrid_block(block, target_dtype="bfloat16", ctx=CTX,
                                             cast_optional_params=cast_optional_params)
        converted.hybridize()
        converted(mx.nd.array(x[:1]))
        converted.export(prefix32 + "_amp", remove_amp_cast=False)
        s16, a16, x16 = mx.model.load_checkpoint(prefix32 + "_amp", 0)
        for suffix in ("-symbol.json", "-0000.params", "_amp-symbol.json", "_amp-0000.params"):
            os.remove(prefix32 + suffix)
    prefix = os.path.join(out_dir, name)
    mx.model.save_checkpoint(prefix, 0, s16, a16, x16, remove_amp_cast=False)

    graph = json.loads(s16.tojson(remove_amp_cast=False))
    casts = [n["attrs"]["dtype"] for n in graph["nodes"] if n["op"] == "amp_cast"]
    bf16_params = sorted(k for k, v in list(a16.items()) + list(x16.items()) if v.dtype != np.float32)

    out_amp = run_module(s16, a16, x16, x)
    out_gluon = run_gluon(prefix, x)
    out_f32 = run_module(sym, args, auxs, x)
    out_emul = run_module(emulated_symbol(s16.tojson(remove_amp_cast=False)), widened(a16), widened(x16), x)
    files = {"input": name + "-in.f32", "amp": name + "-amp.f32", "amp_gluon": name + "-amp_gluon.f32",
             "float32": name + "-f32.f32", "emulated": name + "-emulated.f32"}
    for key, value in (("input", x), ("amp", out_amp), ("amp_gluon", out_gluon), ("float32", out_f32),
                       ("emulated", out_emul)):
        write_f32(os.path.join(out_dir, files[key]), value)
    scale = float(np.max(np.abs(out_f32)))
    allowance = flip_allowance(s16.tojson(remove_amp_cast=False), a16, x16, x)
    entry = {
        "prefix": name, "epoch": 0, "input_name": "data", "how": how,
        "cast_optional_params": cast_optional_params,
        "input_shape": list(x.shape), "output_shape": list(out_amp.shape), "files": files,
        "amp_casts": {"bfloat16": casts.count("bfloat16"), "float32": casts.count("float32")},
        "bfloat16_params": len(bf16_params),
        "output_scale": scale,
        "flip_allowance": allowance,
        # All measured on MXNet alone: absolute max differences.
        "amp_vs_float32": stats(out_amp, out_f32),
        "amp_gluon_vs_float32": stats(out_gluon, out_f32),
        "amp_vs_amp_gluon": stats(out_amp, out_gluon),
        "emulated_vs_float32": stats(out_emul, out_f32),
        "emulated_vs_amp": stats(out_emul, out_amp),
        "emulated_vs_amp_gluon": stats(out_emul, out_gluon),
    }
    log("%s: %s, casts %s, %d bfloat16 parameters, scale %.3g, |amp-f32| %.3g, |emulated-f32| %.3g, "
        "|amp-gluon| %.3g (%.1f s)" % (name, how, entry["amp_casts"], len(bf16_params), scale,
                                       entry["amp_vs_float32"], entry["emulated_vs_float32"],
                                       entry["amp_vs_amp_gluon"], time.time() - t0))
    return entry


def zoo(out_dir, name, seed, size, cast_optional_params):
    net = random_zoo_model(name, seed, size)
    tmp = os.path.join(out_dir, "_tmp_zoo_" + name)
    net.export(tmp)
    sym, args, auxs = mx.model.load_checkpoint(tmp, 0)
    os.remove(tmp + "-symbol.json")
    os.remove(tmp + "-0000.params")
    x = np.random.RandomState(seed + 1).standard_normal((BATCH, 3, size, size)).astype(np.float32)
    return make_model(out_dir, name, sym, args, auxs, x, "convert_model", cast_optional_params)


def digits(out_dir, digits_dir):
    sym, args, auxs = mx.model.load_checkpoint(os.path.join(digits_dir, "digits_cnn"), 0)
    with open(os.path.join(digits_dir, "manifest.json")) as f:
        case = json.load(f)["models"]["digits_cnn"]["cases"][0]
    images = np.fromfile(os.path.join(digits_dir, case["input_file"]), dtype="<f4").reshape(case["input_shape"])
    x = images[:BATCH * 4]  # 16 held-back test digits
    return make_model(out_dir, "digits_cnn", sym, args, auxs, x, "convert_hybrid_block", True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--digits", required=True, help="scripts/make_fixtures.sh's directory (digits_cnn)")
    args = parser.parse_args()
    t0 = time.time()
    os.makedirs(args.out, exist_ok=True)
    mx.random.seed(0)
    models = [zoo(args.out, "resnet18_v1", 1818, 64, True),
              zoo(args.out, "mobilenet0.25", 2525, 64, False),
              digits(args.out, args.digits)]
    write_manifest(args.out, __file__, {"models": models})
    log("done in %.1f s" % (time.time() - t0))


if __name__ == "__main__":
    main()
