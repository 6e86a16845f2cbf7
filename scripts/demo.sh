#!/usr/bin/env bash
# The demo: builds Quiver, trains a small CNN on scikit-learn's digits with real MXNet and exports it
# (scripts/make_fixtures.sh), then classifies the held-back digits with Quiver as an asynchronous
# frame loop from a C program that dlopens libquiver.so, printing accuracy and throughput.
#
# One line per stage on the terminal; every compiler and installer line goes to the log
# (build/demo.log, or $QUIVER_DEMO_LOG), whose last lines are shown if a stage fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

log="${QUIVER_DEMO_LOG:-$PWD/build/demo.log}"
mkdir -p "$(dirname "$log")"
: >"$log"
cat >&2 <<EOT
demo: on a fresh 2-core machine the first run takes about an hour: oneDNN is built from source (about
      25 minutes), then Quiver, then MXNet 1.9.1 is installed from PyPI to train the digits model. Later
      runs reuse build/ and ~/.cache/quiver and take a few minutes. Full log: $log
EOT

# stage TITLE COMMAND...: runs COMMAND with its stderr in the log and passes its stdout on.
stage() {
  local title="$1" start=$SECONDS out
  shift
  echo "demo: $title ..." >&2
  if ! out="$("$@" 2>>"$log")"; then
    echo "demo: $title failed; the last lines of $log:" >&2
    tail -n 30 "$log" >&2
    return 1
  fi
  echo "demo: $title: done in $((SECONDS - start)) s" >&2
  printf '%s' "$out"
}

build_dir="$(stage "[1/3] building oneDNN (once) and Quiver" bash scripts/build.sh)"
fixtures="$(stage "[2/3] training the digits CNN with MXNet 1.9.1 (once)" bash scripts/make_fixtures.sh)"
echo "demo: [3/3] classifying the held-back digits from a C program that dlopens libquiver.so" >&2
"$build_dir/examples/c/frame_classifier" "$build_dir/libquiver.so" "$fixtures/digits_cnn" 0 \
  "$fixtures/digits_cnn_synset.txt" "$fixtures/digits_cnn-in-360x1x8x8.f32" "$fixtures/digits_cnn-test-labels.i32" 4
