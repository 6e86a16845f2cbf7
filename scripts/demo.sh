#!/usr/bin/env bash
# The demo: builds Quiver, trains a small CNN on scikit-learn's digits with real MXNet and exports it
# (scripts/make_fixtures.sh), then classifies the held-back digits with Quiver as an asynchronous
# frame loop from a C program that dlopens libquiver.so, printing accuracy and throughput.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir="$(bash scripts/build.sh)"
fixtures="$(bash scripts/make_fixtures.sh)"
"$build_dir/examples/c/frame_classifier" "$build_dir/libquiver.so" "$fixtures/digits_cnn" 0 \
  "$fixtures/digits_cnn_synset.txt" "$fixtures/digits_cnn-in-360x1x8x8.f32" "$fixtures/digits_cnn-test-labels.i32" 4
