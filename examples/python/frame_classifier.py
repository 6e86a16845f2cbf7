"""Classifies a stream of frames the way a camera loop would, without ever blocking on a result.

Frames arrive one after another; each is submitted with predict_async; at most --max-inflight are in
flight; finished ones are collected in frame order by polling Future.done(), which never blocks. When
the window is full and the oldest frame is not done, the loop does other work (here: it sleeps a
moment, standing in for grabbing the next frame).

    python frame_classifier.py MODEL_PREFIX FRAMES.f32 LABELS.i32 --synset SYNSET.txt \\
        [--shape 1,8,8] [--max-inflight 4] [--min-accuracy A]

FRAMES.f32 holds raw float32 frames of --shape back to back; LABELS.i32 one int32 label per frame.
Prints the accuracy, the frame rate and how full the in-flight window was.
"""
from __future__ import annotations

import argparse
import collections
import sys
import time
from typing import List, Tuple

import numpy as np

import quiver


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model_prefix")
    parser.add_argument("frames")
    parser.add_argument("labels")
    parser.add_argument("--synset", required=True)
    parser.add_argument("--shape", default="1,8,8", help="C,H,W of one frame")
    parser.add_argument("--max-inflight", type=int, default=4)
    parser.add_argument("--min-accuracy", type=float, default=None, help="exit 1 below this accuracy")
    args = parser.parse_args()

    shape = tuple(int(d) for d in args.shape.split(","))
    frames = np.fromfile(args.frames, dtype=np.float32).reshape((-1, 1) + shape)
    labels = np.fromfile(args.labels, dtype=np.int32)
    with quiver.Classifier(args.model_prefix, synset=args.synset, max_inflight=args.max_inflight,
                           input_descs=[quiver.DataDesc("data", (1,) + shape)]) as classifier:
        in_flight: "collections.deque[Tuple[int, quiver.Future]]" = collections.deque()  # (frame index, Future), oldest first
        predicted: List[str] = []
        window_sum = polls = 0
        start = time.perf_counter()
        next_frame = 0
        while len(predicted) < len(frames):
            # Collect every finished frame at the head of the window, in order.
            while in_flight and in_flight[0][1].done():
                index, future = in_flight.popleft()
                predicted.append(classifier.top_k(future.result(), top_k=1)[0][0][0])
            if next_frame < len(frames) and len(in_flight) < args.max_inflight:
                in_flight.append((next_frame, classifier.predict_async(frames[next_frame])))
                next_frame += 1
            elif in_flight:
                window_sum += len(in_flight)
                polls += 1
                time.sleep(0.0002)  # the window is full: do other work instead of waiting
        elapsed = time.perf_counter() - start

    correct = sum(int(p) == int(label) for p, label in zip(predicted, labels))
    accuracy = correct / len(frames)
    print(f"frame_classifier: {correct}/{len(frames)} correct ({accuracy:.2%}), "
          f"{len(frames) / elapsed:.0f} frames/s, up to {args.max_inflight} in flight "
          f"(mean {window_sum / max(polls, 1):.1f} when full-window polling)")
    if args.min_accuracy is not None and accuracy < args.min_accuracy:
        print(f"frame_classifier: accuracy {accuracy:.4f} is below --min-accuracy {args.min_accuracy}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
