"""`quiver classify`: ImageClassifier from a shell, best classes per image."""
from __future__ import annotations

import argparse
import json
from typing import Any

from ..image_classifier import ImageClassifier
from . import args as cli_args
from . import progress

HELP = "classify images: the top-k labels and probabilities of each"


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "classify", help=HELP, description=HELP + ". Images are resized and center-cropped to the input "
        "size (from --shape, else 224x224) and normalised with ImageNet's statistics, as ImageClassifier does.")
    cli_args.add_model(parser, "the input's shape, batch first (sets the image size)")
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files (any format Pillow reads)")
    parser.add_argument("--synset", help="labels, one per line (default: synset.txt beside the model)")
    parser.add_argument("--top-k", type=int, default=5, help="classes shown per image (default 5)")
    parser.add_argument("--json", action="store_true", help="print JSON lines {image, classes} instead of text")
    parser.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    with progress.waiting("loading model"):
        model = ImageClassifier(ns.prefix, ns.epoch, input_descs=cli_args.input_descs(ns.shape),
                                options=cli_args.options(ns.option), synset=ns.synset)
    with model:
        for image in progress.each(ns.images, "classifying", len(ns.images)):
            best = model.classify(image, top_k=ns.top_k)[0]
            if ns.json:
                print(json.dumps({"image": image, "classes": [{"label": l, "probability": p} for l, p in best]}))
            else:
                print(image)
                for label, probability in best:
                    print(f"  {probability:.4f}  {label}")
    return 0
