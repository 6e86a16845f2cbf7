#!/usr/bin/env bash
# Makes (or reuses) the bfloat16 AMP fixtures (tests/amp/make_fixtures.py) and prints their directory.
#
#   tests/amp/make_fixtures.sh [--conformance[=ci|full]] [--force]
#
# Directory: ${QUIVER_CACHE:-$HOME/.cache/quiver}/amp-bf16, reused while its stamp holds the SHA-256 of
# make_fixtures.py together with the digits model it converts (from scripts/make_fixtures.sh, made
# first if missing); otherwise regenerated with scripts/setup_mxnet_venv.sh's python into a temporary
# sibling that replaces it only once complete (scripts/cached_dir.sh). --conformance records MXNet's own
# bfloat16 error on a conformance set's models instead (make_conformance_fixtures.py; default set ci;
# in amp-bf16-conformance-SET, keyed on the scripts and the set's manifest and stamp). Logs: stderr.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../../scripts/cached_dir.sh"
CACHED_DIR_LOG="amp fixtures"

force=0
conformance=""
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    --conformance) conformance=ci ;;
    --conformance=ci|--conformance=full) conformance="${arg#--conformance=}" ;;
    -h|--help) sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "amp fixtures: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

python="env -u PYTHONPATH $(bash "$HERE/../../scripts/setup_mxnet_venv.sh")"
if [ -n "$conformance" ]; then
  source_dir="$(bash "$HERE/../conformance/make_fixtures.sh" "$conformance")"
  # The set's own stamp changes whenever its models are regenerated.
  key="$(cat "$HERE/make_conformance_fixtures.py" "$HERE/make_fixtures.py" "$source_dir/manifest.json" \
    "$source_dir/.stamp" | sha256sum | cut -d' ' -f1)"
  generate() { $python "$HERE/make_conformance_fixtures.py" --out "$1" --conformance "$source_dir"; }
  cached_dir "${QUIVER_CACHE:-$HOME/.cache/quiver}/amp-bf16-conformance-$conformance" .stamp "$key" "$force" \
    generate
else
  digits="$(bash "$HERE/../../scripts/make_fixtures.sh")"
  key="$(cat "$HERE/make_fixtures.py" "$digits/digits_cnn-symbol.json" "$digits/digits_cnn-0000.params" \
    "$digits/manifest.json" | sha256sum | cut -d' ' -f1)"
  generate() { $python "$HERE/make_fixtures.py" --out "$1" --digits "$digits"; }
  cached_dir "${QUIVER_CACHE:-$HOME/.cache/quiver}/amp-bf16" .stamp "$key" "$force" generate
fi
