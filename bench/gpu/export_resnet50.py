#!/usr/bin/env python3
"""torchvision's ResNet-50 as an MXNet 1.x model (PREFIX-symbol.json + PREFIX-0000.params) for Quiver.

    python3 bench/gpu/export_resnet50.py --out DIR [--seed 0]        # needs torch + torchvision

On the GPU machine (scripts/gpu_check.sh, stage g): builds torchvision.models.resnet50(weights=None)
after torch.manual_seed(SEED), replaces every BatchNorm's weight, bias and running statistics by
seeded random values (torchvision initialises them to 1, 0, 0 and 1, which would hide a swapped
mapping), and writes
  DIR/resnet50_tv-symbol.json, DIR/resnet50_tv-0000.params   the same network for Quiver
  DIR/input-1x3x224x224.npy, DIR/torch_cpu-out0.npy         a seeded input and torch's float32 CPU output
  DIR/export.json                                           seed, torch version, output scale
so Quiver runs exactly PyTorch's weights. The mapping itself (mxnet_model) needs numpy only:
bench/gpu/check_export.py holds it to MXNet 1.9.1 and to a numpy forward pass on the machine without
a GPU. torchvision's ResNet-50 is "v1.5": the stride of a downsampling bottleneck is on its 3x3
convolution; BatchNorm eps is 1e-5; max pooling 3x3 stride 2 pad 1 (floor), global average pooling.
"""
import argparse
import collections
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "python"))
from mxnet_files import params_bytes, symbol_json  # noqa: E402  (numpy only)

BLOCKS = (3, 4, 6, 3)
PLANES = (64, 128, 256, 512)
EXPANSION = 4
BN_EPS = 1e-5
PREFIX = "resnet50_tv"


def state_shapes(num_classes=1000):
    """torchvision resnet50's state_dict names and shapes (without num_batches_tracked)."""
    shapes = collections.OrderedDict()

    def bn(name, c):
        for p in ("weight", "bias", "running_mean", "running_var"):
            shapes["%s.%s" % (name, p)] = (c,)

    shapes["conv1.weight"] = (64, 3, 7, 7)
    bn("bn1", 64)
    inplanes = 64
    for layer, (blocks, planes) in enumerate(zip(BLOCKS, PLANES), start=1):
        for b in range(blocks):
            p = "layer%d.%d" % (layer, b)
            shapes[p + ".conv1.weight"] = (planes, inplanes, 1, 1)
            bn(p + ".bn1", planes)
            shapes[p + ".conv2.weight"] = (planes, planes, 3, 3)
            bn(p + ".bn2", planes)
            shapes[p + ".conv3.weight"] = (planes * EXPANSION, planes, 1, 1)
            bn(p + ".bn3", planes * EXPANSION)
            if b == 0:
                shapes[p + ".downsample.0.weight"] = (planes * EXPANSION, inplanes, 1, 1)
                bn(p + ".downsample.1", planes * EXPANSION)
            inplanes = planes * EXPANSION
    shapes["fc.weight"] = (num_classes, 2048)
    shapes["fc.bias"] = (num_classes,)
    return shapes


class _Graph:
    """Builds the node list of mxnet_files.symbol_json and the .params arrays from torch names."""

    def __init__(self, state):
        self.state, self.nodes, self.params = state, [], collections.OrderedDict()

    def node(self, op, name, attrs, inputs):
        self.nodes.append((op, name, attrs, inputs))
        return len(self.nodes) - 1

    def param(self, torch_name, kind="arg"):
        name = torch_name.replace(".", "_")
        self.params["%s:%s" % (kind, name)] = np.ascontiguousarray(self.state[torch_name], dtype=np.float32)
        return self.node("null", name, {}, [])

    def conv(self, x, torch_name, kernel, stride, pad):
        w = self.state[torch_name + ".weight"]
        attrs = {"kernel": "(%d, %d)" % (kernel, kernel), "stride": "(%d, %d)" % (stride, stride),
                 "pad": "(%d, %d)" % (pad, pad), "num_filter": str(w.shape[0]), "no_bias": "True"}
        return self.node("Convolution", torch_name.replace(".", "_"), attrs, [x, self.param(torch_name + ".weight")])

    def bn(self, x, torch_name):
        ins = [x, self.param(torch_name + ".weight"), self.param(torch_name + ".bias"),
               self.param(torch_name + ".running_mean", "aux"), self.param(torch_name + ".running_var", "aux")]
        attrs = {"eps": repr(BN_EPS), "fix_gamma": "False", "momentum": "0.9", "use_global_stats": "False"}
        return self.node("BatchNorm", torch_name.replace(".", "_"), attrs, ins)

    def relu(self, x, name):
        return self.node("Activation", name, {"act_type": "relu"}, [x])


def mxnet_model(state):
    """(symbol JSON text, .params dict) of torchvision's ResNet-50 from its state_dict as numpy arrays."""
    g = _Graph(state)
    x = g.node("null", "data", {}, [])
    x = g.relu(g.bn(g.conv(x, "conv1", 7, 2, 3), "bn1"), "relu1")
    x = g.node("Pooling", "maxpool", {"kernel": "(3, 3)", "stride": "(2, 2)", "pad": "(1, 1)", "pool_type": "max",
                                      "pooling_convention": "valid"}, [x])
    for layer, blocks in enumerate(BLOCKS, start=1):
        for b in range(blocks):
            p = "layer%d.%d" % (layer, b)
            stride = 2 if (b == 0 and layer > 1) else 1
            y = g.relu(g.bn(g.conv(x, p + ".conv1", 1, 1, 0), p + ".bn1"), p.replace(".", "_") + "_relu1")
            y = g.relu(g.bn(g.conv(y, p + ".conv2", 3, stride, 1), p + ".bn2"), p.replace(".", "_") + "_relu2")
            y = g.bn(g.conv(y, p + ".conv3", 1, 1, 0), p + ".bn3")
            shortcut = x
            if b == 0:
                shortcut = g.bn(g.conv(x, p + ".downsample.0", 1, stride, 0), p + ".downsample.1")
            x = g.relu(g.node("elemwise_add", p.replace(".", "_") + "_add", {}, [y, shortcut]),
                       p.replace(".", "_") + "_relu3")
    x = g.node("Pooling", "avgpool", {"kernel": "(1, 1)", "global_pool": "True", "pool_type": "avg"}, [x])
    x = g.node("Flatten", "flatten", {}, [x])
    x = g.node("FullyConnected", "fc", {"num_hidden": str(state["fc.weight"].shape[0])},
               [x, g.param("fc.weight"), g.param("fc.bias")])
    return symbol_json(g.nodes, [x]), g.params


def write_model(out_dir, state):
    """Writes PREFIX-symbol.json and PREFIX-0000.params into out_dir; returns the prefix path."""
    sym, params = mxnet_model(state)
    prefix = os.path.join(out_dir, PREFIX)
    with open(prefix + "-symbol.json", "w") as f:
        f.write(sym)
    with open(prefix + "-0000.params", "wb") as f:
        f.write(params_bytes(params))
    return prefix


def torch_model(seed):
    """torchvision's ResNet-50 (eval mode, CPU), seeded, with random BatchNorm parameters and statistics."""
    import torch
    import torchvision

    torch.manual_seed(seed)
    model = torchvision.models.resnet50(weights=None)
    gen = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                c = m.num_features
                m.weight.copy_(0.5 + torch.rand(c, generator=gen))
                m.bias.copy_(0.1 * torch.randn(c, generator=gen))
                m.running_mean.copy_(0.1 * torch.randn(c, generator=gen))
                m.running_var.copy_(0.5 + torch.rand(c, generator=gen))
    return model.eval()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import torch

    os.makedirs(args.out, exist_ok=True)
    model = torch_model(args.seed)
    state = {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()
             if not k.endswith("num_batches_tracked")}
    missing = set(state_shapes()) ^ set(state)
    if missing or any(tuple(state[k].shape) != s for k, s in state_shapes().items()):
        sys.exit("export_resnet50: torchvision's state_dict differs from the expected layout: %s" % sorted(missing)[:5])
    write_model(args.out, state)
    x = np.random.RandomState(args.seed).standard_normal((1, 3, 224, 224)).astype(np.float32)
    np.save(os.path.join(args.out, "input-1x3x224x224.npy"), x)
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    with torch.no_grad():
        out = model(torch.from_numpy(x)).numpy()
    np.save(os.path.join(args.out, "torch_cpu-out0.npy"), out)
    info = {"seed": args.seed, "torch": torch.__version__, "prefix": PREFIX, "output_scale": float(np.abs(out).max())}
    with open(os.path.join(args.out, "export.json"), "w") as f:
        json.dump(info, f)
    print(json.dumps(info))


if __name__ == "__main__":
    main()
