"""Exports an LSTM language model shaped as GluonNLP 0.10's standard_lstm_lm_200 (vocabulary 33278,
embedding 200, two LSTM layers of 200, a decoder back to the vocabulary; begin states Gluon's zeros)
with random weights, hybridized as Gluon exports it; batch-first (layout NTC, which Gluon exports as
SwapAxis around the fused RNN) so that the benchmarks' batch axis is axis 0. Input: token ids
(batch, seq) as float32; output: (batch, seq, 33278) scores. For bench/compare_mxnet.sh (issue: sequence models' speed).

    <mxnet venv python> bench/export_lstm_lm.py OUT_DIR     -> OUT_DIR/lstm_lm_200-*
"""
import os
import sys

import mxnet as mx
from mxnet.gluon import HybridBlock, nn, rnn

VOCAB, EMBED, HIDDEN, LAYERS = 33278, 200, 200, 2


class LanguageModel(HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.embedding = nn.Embedding(VOCAB, EMBED)
            self.encoder = rnn.LSTM(HIDDEN, num_layers=LAYERS, layout="NTC", input_size=EMBED)
            self.decoder = nn.Dense(VOCAB, flatten=False, in_units=HIDDEN)

    def hybrid_forward(self, F, tokens):
        return self.decoder(self.encoder(self.embedding(tokens)))


def export(out_dir: str) -> str:
    """Writes the model into out_dir; returns its prefix."""
    os.makedirs(out_dir, exist_ok=True)
    mx.random.seed(7)
    net = LanguageModel(prefix="lm_")
    net.initialize(mx.init.Uniform(0.1))
    net.hybridize()
    net(mx.nd.zeros((1, 35)))
    net.export(os.path.join(out_dir, "lstm_lm_200"))
    return os.path.join(out_dir, "lstm_lm_200")


def main() -> None:
    print(export(sys.argv[1]))


if __name__ == "__main__":
    main()
