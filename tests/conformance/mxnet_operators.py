"""Run by MXNet 1.9.1's python (scripts/setup_mxnet_venv.sh) for tests/conformance/test_operators.py:
builds each one-operator symbol that test names (a JSON list of {name, op, attrs, shapes} on stdin),
runs it on seeded random inputs, and writes into OUT_DIR, per case, the symbol MXNet saved
(NAME-symbol.json), an empty NAME-0000.params, the inputs (NAME-input0.npy, ...) and MXNet's output
(NAME-output.npy)."""
import json
import sys

import mxnet as mx
import numpy as np


def main(out_dir: str) -> None:
    for seed, case in enumerate(json.load(sys.stdin)):
        rng = np.random.default_rng(seed)
        names = [f"in{i}" for i in range(len(case["shapes"]))]
        inputs = [rng.uniform(-3, 3, shape).astype(np.float32) for shape in case["shapes"]]
        symbol = getattr(mx.sym, case["op"])(*[mx.sym.var(n) for n in names], name="op0", **case["attrs"])
        prefix = f"{out_dir}/{case['name']}"
        symbol.save(f"{prefix}-symbol.json")
        mx.nd.save(f"{prefix}-0000.params", {})
        args = {n: mx.nd.array(x) for n, x in zip(names, inputs)}
        output = symbol.bind(mx.cpu(), args).forward()[0].asnumpy()
        for i, x in enumerate(inputs):
            np.save(f"{prefix}-input{i}.npy", x)
        np.save(f"{prefix}-output.npy", output)


if __name__ == "__main__":
    main(sys.argv[1])
