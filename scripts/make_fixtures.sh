#!/usr/bin/env bash
# Makes (or reuses) the MXNet-generated test fixtures and prints their directory on stdout.
#
#   FIXTURES="$(scripts/make_fixtures.sh [--force])"
#
# Directory: ${QUIVER_FIXTURES_DIR:-${QUIVER_CACHE:-$HOME/.cache/quiver}/fixtures}, reused while its
# stamp (.quiver-fixtures-stamp) holds the SHA-256 of scripts/make_fixtures.py; otherwise regenerated
# with scripts/setup_mxnet_venv.sh's python into a temporary sibling that replaces it only once
# complete (scripts/cached_dir.sh). --force regenerates regardless. Logs go to stderr.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cached_dir.sh"
CACHED_DIR_LOG=make_fixtures

force=0
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    -h|--help) sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "make_fixtures: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

generate() {  # OUT_DIR
  env -u PYTHONPATH "$(bash "$HERE/setup_mxnet_venv.sh")" "$HERE/make_fixtures.py" --out "$1"
}

cached_dir "${QUIVER_FIXTURES_DIR:-${QUIVER_CACHE:-$HOME/.cache/quiver}/fixtures}" .quiver-fixtures-stamp \
  "$(sha256sum "$HERE/make_fixtures.py" | cut -d' ' -f1)" "$force" generate
