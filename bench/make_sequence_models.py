"""Exports the sequence models of bench/compare_sequence_runtimes.sh with real MXNet 1.9.1 into OUT_DIR: a
BERT-base encoder at sequence 128 (bench/export_bert_base.py) and an LSTM language model over 35 tokens
(bench/export_lstm_lm.py), each with MXNet's output for one recorded batch-1 input, and a manifest in
bench/make_models.py's format whose entries also say how the benchmark tools feed the model (its data
input's name and shape, fixed inputs such as the valid length, iterations for about a second a run).

    <mxnet venv python> bench/make_sequence_models.py OUT_DIR
"""
import json
import os
import sys

import mxnet as mx
import numpy as np

import export_bert_base
import export_lstm_lm

SEQUENCE = 128
TOKENS = 35


def record(prefix: str, inputs: dict) -> dict:
    """Runs MXNet on `inputs` (name -> array, the data input first), saves that input and the first output
    beside the model, and returns the manifest's case."""
    name = os.path.basename(prefix)
    net = mx.gluon.SymbolBlock.imports(f"{prefix}-symbol.json", list(inputs), f"{prefix}-0000.params")
    out = net(*[mx.nd.array(a) for a in inputs.values()])
    first = (out[0] if isinstance(out, (list, tuple)) else out).asnumpy()
    np.save(f"{prefix}-input.npy", next(iter(inputs.values())))
    np.save(f"{prefix}-output0.npy", first)
    return {"input": f"{name}-input.npy", "outputs": [f"{name}-output0.npy"]}


def main() -> None:
    out_dir = sys.argv[1]
    rng = np.random.RandomState(11)
    bert = export_bert_base.export(out_dir)
    embeddings = rng.standard_normal((1, SEQUENCE, 768)).astype(np.float32)
    lstm = export_lstm_lm.export(out_dir)
    tokens = rng.randint(0, export_lstm_lm.VOCAB, size=(1, TOKENS)).astype(np.float32)
    models = [
        {"name": "bert_base_encoder", "input_name": "data0", "shape": f"{SEQUENCE},768",
         "extra_inputs": [f"data1:1={SEQUENCE}"], "onnx_shapes": [f"1,{SEQUENCE},768", "1"], "iters": 10,
         "cases": [record(bert, {"data0": embeddings, "data1": np.array([SEQUENCE], np.float32)})]},
        {"name": "lstm_lm_200", "input_name": "data", "shape": str(TOKENS), "extra_inputs": [],
         "onnx_shapes": [f"1,{TOKENS}"], "iters": 150, "cases": [record(lstm, {"data": tokens})]},
    ]
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump({"models": models}, f, indent=1)
    print(json.dumps([m["name"] for m in models]), file=sys.stderr)


if __name__ == "__main__":
    main()
