#!/usr/bin/env bash
# Makes (or reuses) the GPU fixtures (tests/gpu/make_fixtures.py) and prints their directory on stdout.
#
#   tests/gpu/make_fixtures.sh [--force]
#
# Directory: ${QUIVER_CACHE:-$HOME/.cache/quiver}/gpu-fixtures, reused while its stamp holds the
# SHA-256 of the generators (make_fixtures.py, regen_params.py, the .params writer, the MXNet runner)
# and of the two source sets' stamps; otherwise regenerated with the MXNet venv (scripts/cached_dir.sh).
# The sources are scripts/make_fixtures.sh's and tests/conformance/make_fixtures.sh ci's fixtures,
# made first if missing (cached too). Logs go to stderr.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$HERE/../.."
source "$ROOT/scripts/cached_dir.sh"
CACHED_DIR_LOG="gpu fixtures"

force=0
case "${1:-}" in
  "") ;;
  --force) force=1 ;;
  *) echo "usage: $0 [--force]" >&2; exit 2 ;;
esac

fixtures="$(bash "$ROOT/scripts/make_fixtures.sh")"
conformance="$(bash "$ROOT/tests/conformance/make_fixtures.sh" ci)"

generate() {  # OUT_DIR
  env -u PYTHONPATH "$(bash "$ROOT/scripts/setup_mxnet_venv.sh")" "$HERE/make_fixtures.py" --out "$1" \
    --fixtures "$fixtures" --conformance "$conformance"
}

key="$(cat "$HERE/make_fixtures.py" "$HERE/regen_params.py" "$ROOT/tests/python/mxnet_files.py" \
           "$ROOT/tests/amp/make_fixtures.py" "$fixtures/.quiver-fixtures-stamp" "$conformance/.stamp" |
       sha256sum | cut -d' ' -f1)"
cached_dir "${QUIVER_CACHE:-$HOME/.cache/quiver}/gpu-fixtures" .stamp "$key" "$force" generate
