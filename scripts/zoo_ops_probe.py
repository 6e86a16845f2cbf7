#!/usr/bin/env python3
"""Checks Quiver against real MXNet 1.9.1 on single operators and on Gluon model-zoo exports.

A developer's probe, not part of CI (the Catch2 suite holds every operator to its own reference):
    $(bash scripts/setup_mxnet_venv.sh) scripts/zoo_ops_probe.py [--lib build/libquiver.so] [--zoo] [--ops]
Each case prints the worst |quiver - mxnet| relative to max(1, max|mxnet|) for single operators and to
the model's own output scale for zoo models (random weights can give tiny logits); above 1e-4 fails.
"""
import argparse
import ctypes
import json
import os
import sys
import tempfile

os.environ.setdefault("MXNET_SUBGRAPH_VERBOSE", "0")
import mxnet as mx  # noqa: E402
import numpy as np  # noqa: E402

QV_OK, QV_CPU, QV_FLOAT32 = 0, 1, 0


class Quiver:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.QvGetLastError.restype = ctypes.c_char_p

    def check(self, status, call):
        if status != QV_OK:
            raise RuntimeError("%s failed (%d): %s" % (call, status, self.lib.QvGetLastError().decode()))

    def array(self, value):
        value = np.ascontiguousarray(value, dtype=np.float32)
        shape = (ctypes.c_int64 * max(1, value.ndim))(*value.shape)
        h = ctypes.c_void_p()
        self.check(self.lib.QvNDArrayCreate(shape, value.ndim, QV_CPU, 0, QV_FLOAT32, ctypes.byref(h)), "create")
        self.check(self.lib.QvNDArraySyncCopyFromCPU(h, value.ctypes.data_as(ctypes.c_void_p),
                                                     ctypes.c_size_t(value.nbytes)), "copy in")
        return h

    def run(self, symbol_json, params, inputs):
        """Outputs of the symbol for `inputs` (in the op's input order), params bound by name."""
        sym = ctypes.c_void_p()
        self.check(self.lib.QvSymbolCreateFromJSON(symbol_json.encode(), ctypes.byref(sym)), "symbol")
        names = list(params)
        handles = [self.array(params[n]) for n in names]
        c_names = (ctypes.c_char_p * max(1, len(names)))(*[n.encode() for n in names])
        c_params = (ctypes.c_void_p * max(1, len(names)))(*handles)
        op = ctypes.c_void_p()
        try:
            self.check(self.lib.QvCreateCachedOpEx(sym, len(names), c_names, c_params, 0, None, None,
                                                   ctypes.byref(op), 1), "create cached op")
        finally:
            for h in handles:
                self.lib.QvNDArrayFree(h)
            self.lib.QvSymbolFree(sym)
        ins = [self.array(x) for x in inputs]
        c_ins = (ctypes.c_void_p * max(1, len(ins)))(*ins)
        n_out = ctypes.c_uint32()
        outs = ctypes.POINTER(ctypes.c_void_p)()
        try:
            self.check(self.lib.QvInvokeAsync(op, len(ins), c_ins, ctypes.byref(n_out), ctypes.byref(outs)), "invoke")
            results = []
            for i in range(n_out.value):
                h = ctypes.c_void_p(outs[i])
                ndim = ctypes.c_uint32()
                shape = ctypes.POINTER(ctypes.c_int64)()
                self.check(self.lib.QvNDArrayGetShape(h, ctypes.byref(ndim), ctypes.byref(shape)), "shape")
                y = np.empty([shape[d] for d in range(ndim.value)], dtype=np.float32)
                self.check(self.lib.QvNDArraySyncCopyToCPU(h, y.ctypes.data_as(ctypes.c_void_p),
                                                           ctypes.c_size_t(y.nbytes)), "copy out")
                self.lib.QvNDArrayFree(h)
                results.append(y)
            return results
        finally:
            for h in ins:
                self.lib.QvNDArrayFree(h)
            self.lib.QvFreeCachedOp(op)


def mxnet_outputs(sym, params, data):
    args = dict(params)
    args.update({k: mx.nd.array(v) for k, v in data.items()})
    args = {k: (v if isinstance(v, mx.nd.NDArray) else mx.nd.array(v)) for k, v in args.items()}
    aux_names = set(sym.list_auxiliary_states())
    ex = sym.bind(mx.cpu(), args={k: v for k, v in args.items() if k not in aux_names},
                  aux_states={k: v for k, v in args.items() if k in aux_names}, grad_req="null")
    return [o.asnumpy() for o in ex.forward(is_train=False)]


def compare(name, got, want, tol=1e-4, floor=1.0):
    """Worst |got - want| over max(floor, max |want|)."""
    ok = len(got) == len(want)
    worst, scale = 0.0, 0.0
    for g, w in zip(got, want):
        if g.shape != w.shape:
            print("FAIL %-50s shape %s vs mxnet %s" % (name, g.shape, w.shape))
            return False
        scale = max(scale, float(np.abs(w).max()))
        worst = max(worst, float(np.abs(g - w).max() / max(floor, float(np.abs(w).max()))) if w.size else 0.0)
    ok = ok and worst <= tol
    print("%s %-50s worst rel %.2e (max |mxnet| %.3g)" % ("ok  " if ok else "FAIL", name, worst, scale))
    return ok


def op_cases():
    d = mx.sym.var("data")
    r = np.random.RandomState(0)
    x4 = r.uniform(-3, 3, (2, 5, 7, 9)).astype(np.float32)
    x3 = r.uniform(-3, 3, (2, 6, 4)).astype(np.float32)
    yield "clip", mx.sym.clip(d, a_min=-0.5, a_max=1.5), {}, {"data": x4}
    yield "relu6", mx.sym.clip(d, a_min=0, a_max=6), {}, {"data": x4 * 3}
    for act in ["leaky", "elu", "selu", "gelu", "rrelu"]:
        # rrelu's second output (a training mask) is left out.
        yield "LeakyReLU " + act, mx.sym.LeakyReLU(d, act_type=act, slope=0.3)[0], {}, {"data": x4}
    yield "LeakyReLU prelu", mx.sym.LeakyReLU(d, act_type="prelu", name="p"), \
        {"p_gamma": r.uniform(0, 1, (5,)).astype(np.float32)}, {"data": x4}
    yield "LeakyReLU prelu shared", mx.sym.LeakyReLU(d, act_type="prelu", name="p"), \
        {"p_gamma": np.array([0.2], np.float32)}, {"data": x4}
    for op in ["sigmoid", "tanh", "softrelu", "softsign"]:
        yield "Activation " + op, mx.sym.Activation(d, act_type=op), {}, {"data": x4}
    yield "x + 2", d + 2, {}, {"data": x4}
    yield "x - 2", d - 2, {}, {"data": x4}
    yield "2 - x", 2 - d, {}, {"data": x4}
    yield "x * 3", d * 3, {}, {"data": x4}
    yield "x / 3", d / 3, {}, {"data": x4}
    yield "3 / x", 3 / d, {}, {"data": x4 + 10}
    e = mx.sym.var("e")
    y4 = r.uniform(1, 2, (2, 5, 7, 9)).astype(np.float32)
    for fn in ["elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div"]:
        yield fn, getattr(mx.sym, fn)(d, e), {}, {"data": x4, "e": y4}
    yb = r.uniform(1, 2, (5, 1, 9)).astype(np.float32)
    for fn in ["broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div"]:
        yield fn, getattr(mx.sym, fn)(d, e), {}, {"data": x4, "e": yb}
        yield fn + " lhs broadcasts", getattr(mx.sym, fn)(e, d), {}, {"data": x4, "e": yb}
    for shape, rev in [((0, -1), False), ((-1, 0), False), ((-2,), False), ((0, 0, -1), False), ((-3, -2), False),
                       ((0, -3, 0), False), ((-4, 1, 2, -2), False), ((-4, -1, 2, -2), False), ((0, -4, 5, -1, -2), False),
                       ((2, -1, 0), True), ((-1, 7, 9), True), ((0, 0, -3), True), ((-4, 1, -1, -2), False),
                       ((10, 63), False), ((-1,), False), ((2, -4, -1, 5, 0, 0), False)]:
        yield "Reshape %s reverse=%s" % (shape, rev), mx.sym.Reshape(d, shape=shape, reverse=rev), {}, {"data": x4}
    for axes in [(), (0, 2, 3, 1), (3, 2, 1, 0), (0, -1, 1, -2), (0, 1, 1, 2)]:
        yield "transpose %s" % (axes,), mx.sym.transpose(d, axes=axes), {}, {"data": x4}
    for axis in [0, 2, -1, 4, -5]:
        yield "expand_dims %d" % axis, mx.sym.expand_dims(d, axis=axis), {}, {"data": x4}
    for b, en, st in [((0, 1), (2, 4), ()), ((None, 1, 2), (None, 5, 6), (1, 2, 3)), ((1, -1), (None, 0), (None, -1)),
                      ((-1,), (None,), (-1,)), ((None, None, -2), (None, None, 0), (1, 1, -2)), ((0,), (10,), ())]:
        yield "slice %s %s %s" % (b, en, st), mx.sym.slice(d, begin=b, end=en, step=st), {}, {"data": x4}
    for axis, b, en in [(1, 1, 3), (-1, -4, None), (0, 0, 1), (2, -3, -1)]:
        yield "slice_axis %d %d %s" % (axis, b, en), mx.sym.slice_axis(d, axis=axis, begin=b, end=en), {}, {"data": x4}
    for axis in [-1, 0, 1, 2]:
        yield "softmax axis %d" % axis, mx.sym.softmax(d, axis=axis), {}, {"data": x3}
    for dim in [0, 1, 2, -1]:
        yield "Concat dim %d" % dim, mx.sym.Concat(d, d * 2, dim=dim), {}, {"data": x3}
    for conv in ["valid", "full"]:
        for pool_type in ["max", "avg", "sum"]:
            for include in [True, False]:
                for k, s, p in [((3, 3), (2, 2), (1, 1)), ((2, 2), (2, 2), (0, 0)), ((3, 2), (2, 3), (1, 0))]:
                    yield "Pooling %s %s include=%s k%s s%s p%s" % (pool_type, conv, include, k, s, p), \
                        mx.sym.Pooling(d, kernel=k, stride=s, pad=p, pool_type=pool_type, pooling_convention=conv,
                                       count_include_pad=include), {}, {"data": x4}
    yield "Pooling global sum", mx.sym.Pooling(d, kernel=(1, 1), global_pool=True, pool_type="sum"), {}, {"data": x4}
    w = r.uniform(-0.3, 0.3, (10, 1, 3, 3)).astype(np.float32)
    yield "depthwise conv + relu6", mx.sym.clip(mx.sym.Convolution(d, kernel=(3, 3), num_filter=10, num_group=5, pad=(1, 1),
                                                                  no_bias=True, name="c"), a_min=0, a_max=6), \
        {"c_weight": w * 10}, {"data": x4}
    yield "conv + leaky", mx.sym.LeakyReLU(mx.sym.Convolution(d, kernel=(3, 3), num_filter=10, num_group=5, pad=(1, 1),
                                                              no_bias=True, name="c"), slope=0.1), \
        {"c_weight": w}, {"data": x4}
    # Deconvolution on MXNet's default CPU path (oneDNN). No target_shape case: that path refuses one that
    # crops (it builds its primitive from pad and adj alone), where MXNet's own kernel (MXNET_MKLDNN_ENABLED=0,
    # which ignores dilate instead) and its GPU path run it; Quiver does as they do (tests/engine/ops).
    for k, s, pad, adj, g, bias in [((4, 4), (2, 2), (1, 1), (0, 0), 1, False), ((3, 3), (2, 2), (0, 0), (1, 1), 1, True),
                                    ((3, 3), (2, 2), (1, 1), (1, 0), 5, True), ((2, 3), (3, 1), (0, 1), (2, 0), 1, False)]:
        filters = 10 if g > 1 else 4
        yield "Deconvolution k%s s%s p%s adj%s g%d bias=%s" % (k, s, pad, adj, g, bias), \
            mx.sym.Deconvolution(d, kernel=k, stride=s, pad=pad, adj=adj, num_filter=filters, num_group=g,
                                 no_bias=not bias, name="dc"), \
            dict({"dc_weight": r.uniform(-1, 1, (5, filters // g) + k).astype(np.float32)},
                 **({"dc_bias": r.uniform(-1, 1, (filters,)).astype(np.float32)} if bias else {})), {"data": x4}
    yield "Deconvolution dilate (2, 1)", mx.sym.Deconvolution(d, kernel=(3, 3), stride=(2, 2), dilate=(2, 1), pad=(1, 1),
                                                              num_filter=3, name="dc"), \
        {"dc_weight": r.uniform(-1, 1, (5, 3, 3, 3)).astype(np.float32)}, {"data": x4}
    yield "Deconvolution 1-D adj groups", mx.sym.Deconvolution(d, kernel=(3,), stride=(2,), pad=(1,), adj=(1,), num_filter=4,
                                                               num_group=2, no_bias=False, name="dc"), \
        {"dc_weight": r.uniform(-1, 1, (6, 2, 3)).astype(np.float32),
         "dc_bias": r.uniform(-1, 1, (4,)).astype(np.float32)}, {"data": x3}
    for scale in (1, 3):
        yield "UpSampling nearest scale %d" % scale, \
            mx.sym.UpSampling(d, scale=scale, sample_type="nearest", num_args=1), {}, {"data": x4}
    x8 = r.uniform(-3, 3, (2, 5, 8, 6)).astype(np.float32)
    pooled = mx.sym.Pooling(d, kernel=(2, 2), stride=(2, 2), pool_type="avg")
    for mode in ("concat", "sum"):
        yield "UpSampling nearest 2 inputs " + mode, \
            mx.sym.UpSampling(d, pooled, scale=2, sample_type="nearest", num_args=2, multi_input_mode=mode), {}, \
            {"data": x8}
    for scale in (2, 3):
        kk = 2 * scale - scale % 2
        yield "UpSampling bilinear scale %d" % scale, \
            mx.sym.UpSampling(d, mx.sym.var("up_weight"), scale=scale, sample_type="bilinear", num_filter=5, num_args=2), \
            {"up_weight": r.uniform(-1, 1, (5, 1, kk, kk)).astype(np.float32)}, {"data": x4}
    for mode, pad in [("constant", (0, 0, 0, 0, 1, 2, 3, 0)), ("edge", (0, 0, 0, 0, 2, 2, 1, 3)),
                      ("reflect", (0, 0, 0, 0, 6, 1, 8, 4)), ("reflect", (0, 0, 0, 0, 7, 0, 0, 0)),
                      ("constant", (0, 1, 0, 0, 1, 1, 1, 1))]:
        yield "Pad %s %s" % (mode, pad), mx.sym.Pad(d, mode=mode, pad_width=pad, constant_value=0.5), {}, {"data": x4}
    x5 = r.uniform(-3, 3, (1, 2, 3, 4, 5)).astype(np.float32)
    yield "Pad reflect 5-D", mx.sym.Pad(d, mode="reflect", pad_width=(0, 0, 0, 0, 1, 2, 3, 0, 2, 4)), {}, {"data": x5}


def run_ops(q):
    failed = 0
    for name, sym, params, data in op_cases():
        try:
            want = mxnet_outputs(sym, {k: mx.nd.array(v) for k, v in params.items()}, data)
        except Exception as e:  # MXNet itself rejects the case: Quiver must too
            want = e
        inputs = [data[n] for n in sym.list_arguments() if n in data]
        try:
            got = q.run(sym.tojson(), params, inputs)
        except RuntimeError as e:
            if isinstance(want, Exception):
                print("ok   %-50s both refuse: %s" % (name, str(e)[:90]))
            else:
                print("FAIL %-50s %s" % (name, e))
                failed += 1
            continue
        if isinstance(want, Exception):
            print("FAIL %-50s MXNet refuses (%s) but Quiver ran" % (name, str(want).splitlines()[0][:80]))
            failed += 1
            continue
        failed += not compare(name, got, want)
    return failed


ZOO = ["alexnet", "vgg11", "vgg11_bn", "resnet18_v1", "resnet34_v2", "densenet121", "squeezenet1.0",
       "squeezenet1.1", "inceptionv3", "mobilenet1.0", "mobilenet0.5", "mobilenetv2_1.0", "mobilenetv2_0.25"]


def run_zoo(q, names):
    from mxnet.gluon.model_zoo import vision
    failed = 0
    tmp = tempfile.mkdtemp()
    for name in names:
        mx.random.seed(1)
        net = vision.get_model(name)
        net.initialize(mx.init.Xavier(magnitude=2))
        net.hybridize()
        size = 299 if name.startswith("inception") else 224
        x = np.random.RandomState(2).uniform(-1, 1, (2, 3, size, size)).astype(np.float32)
        want = [net(mx.nd.array(x)).asnumpy()]
        prefix = os.path.join(tmp, name)
        net.export(prefix)
        params = {k.split(":", 1)[1]: v.asnumpy() for k, v in mx.nd.load(prefix + "-0000.params").items()}
        try:
            got = q.run(open(prefix + "-symbol.json").read(), params, [x])
        except RuntimeError as e:
            print("FAIL %-50s %s" % (name, e))
            failed += 1
            continue
        # Random-weight models can end with tiny logits: compare relative to their own scale.
        failed += not compare(name, got, want, floor=1e-30)
    return failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=os.path.join(os.path.dirname(__file__), "..", "build", "libquiver.so"))
    ap.add_argument("--ops", action="store_true")
    ap.add_argument("--zoo", nargs="*")
    a = ap.parse_args()
    q = Quiver(a.lib)
    failed = 0
    if a.ops or a.zoo is None:
        failed += run_ops(q)
    if a.zoo is not None:
        failed += run_zoo(q, a.zoo or ZOO)
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
