#!/usr/bin/env bash
# Makes (or reuses) the MXNet-generated test fixtures and prints their directory on stdout.
#
#   FIXTURES="$(scripts/make_fixtures.sh)"
#
# Directory: ${QUIVER_FIXTURES_DIR:-${QUIVER_CACHE:-$HOME/.cache/quiver}/fixtures}.
# The directory is reused when its stamp (.quiver-fixtures-stamp) holds the SHA-256 of
# scripts/make_fixtures.py; otherwise the fixtures are regenerated into a temporary sibling
# directory that replaces the old one only once complete, so an interrupted run never leaves a
# half-written directory behind. --force regenerates regardless. Logs go to stderr.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GENERATOR="$HERE/make_fixtures.py"
FIXTURES="${QUIVER_FIXTURES_DIR:-${QUIVER_CACHE:-$HOME/.cache/quiver}/fixtures}"
STAMP_NAME=".quiver-fixtures-stamp"

log() { echo "make_fixtures: $*" >&2; }

force=0
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    -h|--help) sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) log "unknown argument: $arg"; exit 2 ;;
  esac
done

want="$(sha256sum "$GENERATOR" | cut -d' ' -f1)"

is_fresh() {
  [ "$force" -eq 0 ] && [ -f "$FIXTURES/manifest.json" ] && [ -f "$FIXTURES/$STAMP_NAME" ] &&
    [ "$(cat "$FIXTURES/$STAMP_NAME")" = "$want" ]
}

if is_fresh; then
  log "fixtures up to date in $FIXTURES"
  echo "$FIXTURES"
  exit 0
fi

parent="$(dirname "$FIXTURES")"
mkdir -p "$parent"
# Serialise concurrent runs: the second one waits, then finds the fixtures fresh.
if command -v flock >/dev/null 2>&1; then
  exec 8>"$FIXTURES.lock"
  flock 8
  if is_fresh; then
    log "fixtures up to date in $FIXTURES"
    echo "$FIXTURES"
    exit 0
  fi
  # Holding the lock, any temporary sibling is left over from a run that was killed.
  rm -rf "$FIXTURES".tmp.* "$FIXTURES".old.*
fi

PY="$("$HERE/setup_mxnet_venv.sh")"

tmp="$(mktemp -d "$FIXTURES.tmp.XXXXXX")"
old=""
cleanup() {
  rm -rf "$tmp"
  [ -n "$old" ] && rm -rf "$old"
  return 0
}
trap cleanup EXIT

log "generating fixtures (generator sha256 $want) ..."
start=$(date +%s)
env -u PYTHONPATH "$PY" "$GENERATOR" --out "$tmp" >&2
echo "$want" >"$tmp/$STAMP_NAME"
chmod 755 "$tmp"

# Swap in the new directory: move the old one aside first (rename is atomic), then remove it.
if [ -e "$FIXTURES" ]; then
  old="$(mktemp -u "$FIXTURES.old.XXXXXX")"
  mv "$FIXTURES" "$old"
fi
mv "$tmp" "$FIXTURES"
log "fixtures ready in $FIXTURES ($(( $(date +%s) - start )) s, $(du -sh "$FIXTURES" | cut -f1))"
echo "$FIXTURES"
