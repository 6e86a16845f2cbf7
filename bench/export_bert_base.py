"""Exports a BERT-base encoder (12 layers, 768 units, 12 heads, feed-forward 3072, positions up to 512)
with random weights, built op for op as GluonNLP 0.10's BERTModel hybridizes (the conformance suite's
SmallBert, tests/conformance/sequence_models.py, at BERT-base's sizes): inputs data0, the token
embeddings (batch, seq, 768), and data1, the valid lengths (batch,); outputs the sequence and the
pooled vector. For bench/compare_mxnet.sh (issue: sequence models' speed).

    <mxnet venv python> bench/export_bert_base.py OUT_DIR     -> OUT_DIR/bert_base_encoder-*
"""
import os
import sys

import mxnet as mx
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "conformance"))
import sequence_models  # noqa: E402


def export(out_dir: str) -> str:
    """Writes the model into out_dir; returns its prefix."""
    os.makedirs(out_dir, exist_ok=True)
    net = sequence_models.SmallBert(units=768, hidden=3072, heads=12, layers=12, max_length=512, prefix="bert_")
    sequence_models.initialize(net, np.random.RandomState(7))
    net.hybridize()
    net(mx.nd.random.normal(shape=(1, 128, 768)), mx.nd.array([128]))
    net.export(os.path.join(out_dir, "bert_base_encoder"))
    return os.path.join(out_dir, "bert_base_encoder")


def main() -> None:
    print(export(sys.argv[1]))


if __name__ == "__main__":
    main()
