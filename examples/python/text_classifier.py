"""Classifies token-id sequences with a sequence model (Embedding + RNN, BERT-style encoders, ...).

    python text_classifier.py MODEL_PREFIX IDS.txt [--input data] [--top-k 3]

IDS.txt holds one sequence a line, its token ids separated by spaces (tokenizing is the
application's: any tokenizer whose vocabulary the model was trained on). The model's input takes
int32 ids here (DataDesc's dtype; Quiver converts them for the model) with the batch first, as
Gluon's NTC layout has it. Sequences of one length share a batch; each length compiles its own plan
once. Prints, per line, the top classes and their scores.
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from typing import Dict, List

import numpy as np

import quiver


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model_prefix")
    parser.add_argument("ids_file")
    parser.add_argument("--input", default="data", help="the model's token-id input")
    parser.add_argument("--top-k", type=int, default=3)
    args = parser.parse_args()

    with open(args.ids_file) as f:
        lines = [[int(t) for t in line.split()] for line in f if line.strip()]
    by_length: Dict[int, List[int]] = defaultdict(list)
    for i, ids in enumerate(lines):
        by_length[len(ids)].append(i)

    scores: List[np.ndarray] = [np.empty(0)] * len(lines)
    with quiver.Predictor(args.model_prefix, input_descs=[quiver.DataDesc(args.input, (), "int32")]) as p:
        for rows in by_length.values():
            batch = np.array([lines[i] for i in rows], dtype=np.int32)
            for i, row in zip(rows, p.predict(batch)):
                scores[i] = row
    for i, row in enumerate(scores):
        top = np.argsort(-row)[: args.top_k]
        print(f"line {i}: " + ", ".join(f"class {c} {row[c]:.9g}" for c in top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
