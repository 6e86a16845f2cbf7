#!/usr/bin/env bash
# Makes (or reuses) the int8 quantized-model fixtures (tests/int8/make_fixtures.py); prints their directory.
#
#   tests/int8/make_fixtures.sh [--ssd] [--force]
#
# Directory: ${QUIVER_CACHE:-$HOME/.cache/quiver}/int8-mxnet, reused while its stamp holds the SHA-256
# of make_fixtures.py, tests/amp/make_fixtures.py (whose random zoo models it imports), the digits
# model it quantizes (from scripts/make_fixtures.sh, made first if missing) and the stamp of the
# conformance ci set whose segmentation and pose models it quantizes too; otherwise regenerated
# with scripts/setup_mxnet_venv.sh's python into a temporary sibling that replaces it only once
# complete (scripts/cached_dir.sh). --ssd makes the SSD fixtures instead (make_ssd_fixtures.py, in
# int8-mxnet-ssd, from the conformance suite's ci SSD, which needs the GluonCV venv). Logs: stderr.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../../scripts/cached_dir.sh"
CACHED_DIR_LOG="int8 fixtures"

force=0
ssd=0
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    --ssd) ssd=1 ;;
    -h|--help) sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "int8 fixtures: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

python="env -u PYTHONPATH $(bash "$HERE/../../scripts/setup_mxnet_venv.sh")"
if [ "$ssd" = 1 ]; then
  source_dir="$(bash "$HERE/../conformance/make_fixtures.sh" ci)"
  model="$source_dir/ssd_512_mobilenet1.0_voc"
  key="$(cat "$HERE/make_ssd_fixtures.py" "$HERE/make_fixtures.py" "$HERE/../amp/make_fixtures.py" \
    "$model-symbol.json" "$model-0000.params" | sha256sum | cut -d' ' -f1)"
  generate() { $python "$HERE/make_ssd_fixtures.py" --out "$1" --conformance "$source_dir"; }
  cached_dir "${QUIVER_CACHE:-$HOME/.cache/quiver}/int8-mxnet-ssd" .stamp "$key" "$force" generate
else
  digits="$(bash "$HERE/../../scripts/make_fixtures.sh")"
  conformance="$(bash "$HERE/../conformance/make_fixtures.sh" ci)"
  key="$(cat "$HERE/make_fixtures.py" "$HERE/../amp/make_fixtures.py" "$digits/digits_cnn-symbol.json" \
    "$digits/digits_cnn-0000.params" "$digits/manifest.json" "$conformance/.stamp" | sha256sum | cut -d' ' -f1)"
  generate() { $python "$HERE/make_fixtures.py" --out "$1" --digits "$digits" --conformance "$conformance"; }
  cached_dir "${QUIVER_CACHE:-$HOME/.cache/quiver}/int8-mxnet" .stamp "$key" "$force" generate
fi
