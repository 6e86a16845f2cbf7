"""`quiver segment`: Segmenter from a shell, with the class mask written as a palette PNG."""
from __future__ import annotations

import argparse
import json
import os
from typing import Any

from ..segmenter import Segmenter
from . import args as cli_args
from . import progress

HELP = "segment images: the class of every pixel, and each class's share of the image"


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "segment", help=HELP, description=HELP + ". Images are resized to the input size (from --shape, else "
        "480x480), as Segmenter does; masks are at the original image's size.")
    cli_args.add_model(parser, "the input's shape, batch first (sets the image size)")
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files (any format Pillow reads)")
    parser.add_argument("--synset", help="labels, one per line (default: synset.txt beside the model, if any)")
    parser.add_argument("--out", metavar="PATH",
                        help="write the class mask as a palette PNG (pixel value = class id): a file name for "
                        "one image, a directory (one PNG per image, named after it) for several")
    parser.add_argument("--top", type=int, default=5, help="classes listed per image, largest first (default 5)")
    parser.add_argument("--json", action="store_true", help="print JSON lines {image, classes} instead of text")
    parser.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    if ns.out and len(ns.images) > 1:
        os.makedirs(ns.out, exist_ok=True)
    with progress.waiting("loading model"):
        model = Segmenter(ns.prefix, ns.epoch, input_descs=cli_args.input_descs(ns.shape),
                          options=cli_args.options(ns.option), synset=ns.synset)
    with model:
        for path in progress.each(ns.images, "segmenting", len(ns.images)):
            result = model.segment(path)
            classes = result.classes()[:max(0, ns.top)]
            if ns.json:
                print(json.dumps({"image": path, "classes": [{"label": label, "share": share}
                                                             for label, share in classes]}))
            else:
                print(path)
                for label, share in classes:
                    print(f"  {100 * share:6.2f}%  {label}")
            if ns.out:
                name = os.path.splitext(os.path.basename(path))[0] + ".png"
                result.mask().save(os.path.join(ns.out, name) if len(ns.images) > 1 else ns.out)
    return 0
