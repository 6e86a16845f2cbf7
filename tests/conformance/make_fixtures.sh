#!/usr/bin/env bash
# Makes (or reuses) the conformance fixtures of one set and prints their directory on stdout.
#
#   tests/conformance/make_fixtures.sh ci|full [--force]
#
# Directory: ${QUIVER_CACHE:-$HOME/.cache/quiver}/conformance-SET, reused while its stamp holds the
# SHA-256 of make_fixtures.py and sequence_models.py; otherwise regenerated (with scripts/setup_gluoncv_venv.sh's python) into
# a temporary sibling that replaces it only once complete (scripts/cached_dir.sh). Logs go to stderr.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../../scripts/cached_dir.sh"
CACHED_DIR_LOG="conformance fixtures"

set_name="${1:-}"
case "$set_name" in ci|full) ;; *) echo "usage: $0 ci|full [--force]" >&2; exit 2 ;; esac
force=0
[ "${2:-}" = "--force" ] && force=1

generate() {  # OUT_DIR
  env -u PYTHONPATH "$(bash "$HERE/../../scripts/setup_gluoncv_venv.sh")" "$HERE/make_fixtures.py" \
    --set "$set_name" --out "$1"
}

cached_dir "${QUIVER_CACHE:-$HOME/.cache/quiver}/conformance-$set_name" .stamp \
  "$(cat "$HERE/make_fixtures.py" "$HERE/sequence_models.py" | sha256sum | cut -d' ' -f1)" "$force" generate
