# Sourced by the venv scripts (scripts/setup_python_venv.sh, setup_gluoncv_venv.sh, setup_cuda_toolkit.sh,
# bench/setup_baselines_venv.sh); sourcing it also clears the caller's Python and pip settings that would
# leak into an install.
#
#   cached_venv DIR STAMP CREATE...
#
# Returns at once while DIR/.quiver-stamp holds STAMP (and, for a venv, DIR/bin/python still starts).
# Otherwise, holding DIR.lock (concurrent callers queue, and the later ones find DIR fresh), it removes
# DIR, runs `CREATE...` to make it anew and writes the stamp last, so that a DIR an interrupted run
# left without one is made again next time. Logs go to stderr, prefixed with $CACHED_VENV_LOG.
#
#   new_venv VENV PYTHON REQUIREMENT...
#
# The usual CREATE: a venv made with PYTHON, the pinned REQUIREMENTs installed into it from PyPI.

unset PYTHONPATH PYTHONHOME PIP_REQUIRE_VIRTUALENV
export PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1

_cached_venv_log() { echo "${CACHED_VENV_LOG:-cached_venv}: $*" >&2; }

_cached_venv_fresh() {  # DIR STAMP
  [ "$(cat "$1/.quiver-stamp" 2>/dev/null)" = "$2" ] &&
    { [ ! -f "$1/pyvenv.cfg" ] || "$1/bin/python" -c 'import sys' 2>/dev/null; }
}

cached_venv() {
  local dir="$1" stamp="$2"
  shift 2
  if ! _cached_venv_fresh "$dir" "$stamp"; then
    mkdir -p "$(dirname "$dir")"
    exec 9>"$dir.lock"
    flock 9
    if ! _cached_venv_fresh "$dir" "$stamp"; then
      _cached_venv_log "creating $dir"
      rm -rf "$dir"
      "$@"
      echo "$stamp" >"$dir/.quiver-stamp"
    fi
    exec 9>&-
  fi
  _cached_venv_log "ready: $dir"
}

new_venv() {  # VENV PYTHON REQUIREMENT...
  local venv="$1" python="$2"
  shift 2
  _cached_venv_log "$("$python" --version 2>&1): ${*}"
  "$python" -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --progress-bar off -q "$@" >&2
}
