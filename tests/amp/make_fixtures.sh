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
# in amp-bf16-conformance-SET, keyed on the scripts and the set's manifest and stamp). Where MXNet cannot
# run bfloat16 (a CPU without AVX-512, or DNNL_MAX_CPU_ISA=AVX2) the directory holds only ABSENT and a
# manifest saying why (bf16_cpu.py), reused only on a CPU that looks the same. Logs: stderr.
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
    -h|--help) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "amp fixtures: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

python="env -u PYTHONPATH $(bash "$HERE/../../scripts/setup_mxnet_venv.sh")"
# DIR SCRIPT ARGS...: runs SCRIPT ARGS... --out DIR where MXNet runs bfloat16; elsewhere bf16_cpu.py
# writes DIR/ABSENT (why) and a manifest saying so instead.
generate_where_mxnet_runs_bf16() {
  local dir="$1"
  shift
  $python "$HERE/bf16_cpu.py" --out "$dir"
  [ -f "$dir/ABSENT" ] || $python "$@" --out "$dir"
}
if [ -n "$conformance" ]; then
  source_dir="$(bash "$HERE/../conformance/make_fixtures.sh" "$conformance")"
  # The set's own stamp changes whenever its models are regenerated.
  key="$(cat "$HERE/make_conformance_fixtures.py" "$HERE/make_fixtures.py" "$HERE/bf16_cpu.py" \
    "$source_dir/manifest.json" "$source_dir/.stamp" | sha256sum | cut -d' ' -f1)"
  generate() { generate_where_mxnet_runs_bf16 "$1" "$HERE/make_conformance_fixtures.py" --conformance "$source_dir"; }
  cached_dir "${QUIVER_CACHE:-$HOME/.cache/quiver}/amp-bf16-conformance-$conformance" .stamp "$key" "$force" \
    generate
else
  digits="$(bash "$HERE/../../scripts/make_fixtures.sh")"
  key="$(cat "$HERE/make_fixtures.py" "$HERE/bf16_cpu.py" "$digits/digits_cnn-symbol.json" \
    "$digits/digits_cnn-0000.params" "$digits/manifest.json" | sha256sum | cut -d' ' -f1)"
  generate() { generate_where_mxnet_runs_bf16 "$1" "$HERE/make_fixtures.py" --digits "$digits"; }
  cached_dir "${QUIVER_CACHE:-$HOME/.cache/quiver}/amp-bf16" .stamp "$key" "$force" generate
fi
