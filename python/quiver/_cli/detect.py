"""`quiver detect`: ObjectDetector from a shell, with the boxes (and a Mask R-CNN's masks) optionally drawn
on the images."""
from __future__ import annotations

import argparse
import json
import os
from typing import Any, Sequence

import numpy as np
from PIL import Image, ImageDraw

from ..image import load_image
from ..object_detector import ObjectDetector
from . import args as cli_args
from . import progress

HELP = "detect objects in images: label, score and box (pixels) of each"


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "detect", help=HELP, description=HELP + ". Images are resized to the input size (from --shape, else "
        "512x512), as ObjectDetector does; boxes are in the original image's pixels.")
    cli_args.add_model(parser, "the input's shape, batch first (sets the image size)")
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files (any format Pillow reads)")
    parser.add_argument("--synset", help="labels, one per line (default: synset.txt beside the model, if any)")
    parser.add_argument("--threshold", type=float, default=0.5, help="lowest score shown (default 0.5)")
    parser.add_argument("--draw", metavar="OUT_DIR",
                        help="write each image with its boxes (and masks, for models with a mask output) drawn into OUT_DIR")
    parser.add_argument("--json", action="store_true", help="print JSON lines {image, detections} instead of text")
    parser.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    if ns.draw:
        os.makedirs(ns.draw, exist_ok=True)
    with progress.waiting("loading model"):
        model = ObjectDetector(ns.prefix, ns.epoch, input_descs=cli_args.input_descs(ns.shape),
                               options=cli_args.options(ns.option), synset=ns.synset)
    with model:
        masks = ns.draw is not None and len(model.output_names) == 4  # Mask R-CNN's fourth output
        for path in progress.each(ns.images, "detecting", len(ns.images)):
            image = load_image(path)
            found = (model.detect_instances(image, threshold=ns.threshold) if masks
                     else model.detect(image, threshold=ns.threshold))
            if ns.json:
                print(json.dumps({"image": path, "detections": [
                    {"label": d[0], "score": d[1], "box": list(d[2])} for d in found]}))
            else:
                print(path)
                for label, score, (x1, y1, x2, y2), *_ in found:
                    print(f"  {score:.4f}  {label}  ({x1:.0f}, {y1:.0f}, {x2:.0f}, {y2:.0f})")
            if ns.draw:
                _draw(image, found).save(os.path.join(ns.draw, os.path.basename(path)))
    return 0


def _draw(image: Image.Image, found: Sequence[Any]) -> Image.Image:
    """Boxes in red with their label and score; a detection's mask, where there is one, tinted red at half
    strength."""
    pixels = np.asarray(image.convert("RGB")).copy()
    for mask in (d[3] for d in found if len(d) == 4):
        pixels[mask] = pixels[mask] // 2 + np.array([127, 0, 0], np.uint8)
    drawn = Image.fromarray(pixels)
    pen = ImageDraw.Draw(drawn)
    for label, score, box, *_ in found:
        pen.rectangle(box, outline=(255, 0, 0), width=max(1, min(drawn.size) // 150))
        pen.text((box[0] + 2, box[1] + 1), f"{label} {score:.2f}", fill=(255, 0, 0))
    return drawn
