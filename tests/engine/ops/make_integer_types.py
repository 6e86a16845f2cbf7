"""Writes tests/engine/ops/mxnet_integer_types.tsv: for each operator docs/operators.md lists, the types
MXNet 1.9.1's type inference gives its outputs when every input is int32. op_traits_test.cc holds each
operator's OpTraits::output_dtypes to it.

    env -u PYTHONPATH "$(bash scripts/setup_mxnet_venv.sh)" tests/engine/ops/make_integer_types.py

Columns: operator, number of inputs, the attributes it was built with (key=value, space-separated), the
output types (comma-separated); operators MXNet cannot type with int32 inputs have a row of their own
with no inputs and the type "untyped", so that the table names every registered operator.
"""
import os
import re
import sys

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

# Attributes an operator needs to be built (types do not depend on them, shapes are not inferred).
ATTRS = {
    "Activation": {"act_type": "relu"},
    "Cast": {"dtype": "int32"},
    "Concat": {"num_args": "2", "dim": "0"},
    "Convolution": {"kernel": "(1,)", "num_filter": "1"},
    "Deconvolution": {"kernel": "(1,)", "num_filter": "1"},
    "Embedding": {"input_dim": "4", "output_dim": "2"},
    "FullyConnected": {"num_hidden": "2"},
    "Pooling": {"kernel": "(1,)"},
    "Reshape": {"shape": "(-1,)"},
    "SliceChannel": {"num_outputs": "2"},
    "SwapAxis": {"dim1": "0", "dim2": "1"},
    "UpSampling": {"scale": "2", "sample_type": "nearest", "num_args": "1"},
    "_arange": {"start": "0", "stop": "4"},
    "_ones": {"shape": "(2,)"},
    "_zeros": {"shape": "(2,)"},
    "add_n": {"num_args": "2"},
    "argsort": {"dtype": "int32"},
    "broadcast_axis": {"axis": "(0,)", "size": "(2,)"},
    "broadcast_to": {"shape": "(2,)"},
    "clip": {"a_min": "0", "a_max": "1"},
    "expand_dims": {"axis": "0"},
    "repeat": {"repeats": "2"},
    "reverse": {"axis": "(0,)"},
    "slice": {"begin": "(0,)", "end": "(1,)"},
    "slice_axis": {"axis": "0", "begin": "0", "end": "1"},
    "stack": {"num_args": "2"},
    "tile": {"reps": "(2,)"},
    "topk": {"ret_typ": "both", "dtype": "int32"},
}
# Inputs of the operators that take any number (the others are found by trying 1, 2, 3 and 0).
VARIADIC_INPUTS = {"Concat": 2, "stack": 2, "add_n": 2}


def registered_operators():
    with open(os.path.join(ROOT, "docs", "operators.md")) as f:
        text = re.sub(r"\(also [^)]*\)", "", f.read())
    return re.findall(r"`([^`]+)`", text.split("-->", 1)[1])


def builder(op):
    for module in (mx.sym, mx.sym._internal, mx.sym.contrib):
        name = op[len("_contrib_"):] if module is mx.sym.contrib and op.startswith("_contrib_") else op
        if hasattr(module, name):
            return getattr(module, name)
    return None


def output_types(op):
    make = builder(op)
    if make is None:
        return None
    attrs = ATTRS.get(op, {})
    count = VARIADIC_INPUTS.get(op)
    for inputs in [count] if count is not None else [1, 2, 3, 0]:
        try:
            symbol = make(*[mx.sym.var("in%d" % i) for i in range(inputs)], **attrs)
            names = symbol.list_arguments() + symbol.list_auxiliary_states()
            _, out, _ = symbol.infer_type(**{n: "int32" for n in names})
        except Exception:  # noqa: BLE001 - an operator MXNet cannot type so is left out
            continue
        if out is None or any(t is None for t in out):
            continue
        if len(symbol.list_arguments()) != inputs:
            continue  # it made inputs of its own (weights, biases): try passing more
        return inputs, attrs, [np.dtype(t).name for t in out]
    return None


def main():
    rows = []
    left_out = []
    for op in registered_operators():
        typed = output_types(op)
        if typed is None:
            left_out.append(op)
            rows.append("\t".join([op, "0", "", "untyped"]))
            continue
        inputs, attrs, types = typed
        rows.append("\t".join([op, str(inputs), " ".join("%s=%s" % kv for kv in sorted(attrs.items())),
                               ",".join(types)]))
    out = os.path.join(HERE, "mxnet_integer_types.tsv")
    with open(out, "w") as f:
        f.write("# made by tests/engine/ops/make_integer_types.py with MXNet %s\n" % mx.__version__)
        f.write("\n".join(rows) + "\n")
    print("%d operators typed, %d left out: %s" % (len(rows) - len(left_out), len(left_out), " ".join(left_out)), file=sys.stderr)


if __name__ == "__main__":
    main()
