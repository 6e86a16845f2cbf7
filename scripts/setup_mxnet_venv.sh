#!/usr/bin/env bash
# Creates (once) the Python virtual environment that holds real MXNet 1.9.1, the test oracle.
#
#   scripts/setup_mxnet_venv.sh            -> prints the venv's python path on stdout (last line)
#
# Location: ${QUIVER_CACHE:-$HOME/.cache/quiver}/mxnet-venv. A stamp file inside the venv records the
# pinned requirements; when it matches, the script only checks that the interpreter still starts and
# returns at once. Otherwise it tries candidate interpreters in order (QUIVER_MXNET_PYTHON if set,
# python3 on PATH, then pyenv's 3.11/3.10/3.9/3.8) until one installs the requirements and passes a
# smoke test (import mxnet, run a convolution, load scikit-learn's bundled digits).
# Logs go to stderr so that callers can capture the python path from stdout.
# Non-interactive: safe under CI=true with no stdin.
set -euo pipefail

# Bump STAMP_VERSION when the smoke test or the layout changes, to force a rebuild.
STAMP_VERSION=1
REQUIREMENTS=(
  "mxnet==1.9.1"
  "numpy==1.23.5"         # mxnet 1.9.1 uses np.bool, removed in numpy 1.24
  "scikit-learn==1.3.2"   # last line with wheels for 3.8..3.12 that accepts numpy 1.23
)

CACHE_DIR="${QUIVER_CACHE:-$HOME/.cache/quiver}"
VENV="$CACHE_DIR/mxnet-venv"
STAMP="$VENV/.quiver-stamp"
WANT_STAMP="quiver-mxnet-venv v$STAMP_VERSION: ${REQUIREMENTS[*]}"

log() { echo "setup_mxnet_venv: $*" >&2; }

unset PYTHONPATH PYTHONHOME PIP_REQUIRE_VIRTUALENV
export PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1

fast_path() {
  [ -f "$STAMP" ] && [ -x "$VENV/bin/python" ] || return 1
  [ "$(head -n 1 "$STAMP")" = "$WANT_STAMP" ] || return 1
  "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1 || return 1
  log "venv up to date at $VENV (interpreter: $(sed -n 2p "$STAMP"))"
  echo "$VENV/bin/python"
  exit 0
}

fast_path || true

mkdir -p "$CACHE_DIR"
# Serialise concurrent runs (for example two test jobs starting at once).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$CACHE_DIR/mxnet-venv.lock"
  flock 9
  fast_path || true   # another run may have finished the venv while we waited
fi

# Candidate interpreters, most preferred first. numpy 1.23.5 ships wheels for CPython 3.8..3.11 only.
candidates=()
[ -n "${QUIVER_MXNET_PYTHON:-}" ] && candidates+=("$QUIVER_MXNET_PYTHON")
candidates+=(python3)
PYENV_ROOT="${PYENV_ROOT:-$HOME/.pyenv}"
for minor in 3.11 3.10 3.9 3.8; do
  if [ -d "$PYENV_ROOT/versions" ]; then
    newest="$(ls -d "$PYENV_ROOT/versions/$minor".* 2>/dev/null | sort -V | tail -n 1 || true)"
    [ -n "$newest" ] && [ -x "$newest/bin/python" ] && candidates+=("$newest/bin/python")
  fi
  candidates+=("python$minor")
done

# The smoke test: what the fixture and benchmark scripts rely on.
read -r -d '' SMOKE <<'PY' || true
import mxnet as mx, numpy as np
from sklearn.datasets import load_digits
assert mx.__version__ == "1.9.1", mx.__version__
x = mx.nd.array(np.ones((1, 1, 4, 4), dtype=np.float32))
w = mx.nd.array(np.ones((2, 1, 3, 3), dtype=np.float32))
y = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=2, no_bias=True).asnumpy()
assert y.shape == (1, 2, 2, 2) and float(y[0, 0, 0, 0]) == 9.0
assert load_digits().images.shape == (1797, 8, 8)
PY

seen=" "
for cand in "${candidates[@]}"; do
  command -v "$cand" >/dev/null 2>&1 || continue
  # Resolve shims (pyenv) to the real interpreter and skip duplicates and unsupported versions.
  info="$("$cand" -c 'import sys; print(sys.executable); print("%d.%d" % sys.version_info[:2]); print(sys.version.split()[0])' 2>/dev/null)" || continue
  real="$(sed -n 1p <<<"$info")"; minor="$(sed -n 2p <<<"$info")"; full="$(sed -n 3p <<<"$info")"
  case "$seen" in *" $real "*) continue ;; esac
  seen="$seen$real "
  case "$minor" in 3.8|3.9|3.10|3.11) ;; *) log "skipping $real (Python $full: no numpy 1.23.5 wheel)"; continue ;; esac

  log "trying $real (Python $full)"
  rm -rf "$VENV"
  if ! "$real" -m venv "$VENV" >&2; then
    log "  cannot create a venv with $real"; continue
  fi
  if ! "$VENV/bin/python" -m pip install --progress-bar off -q "${REQUIREMENTS[@]}" >&2; then
    log "  pip install failed with $real"; continue
  fi
  if ! "$VENV/bin/python" -c "$SMOKE" >&2; then
    log "  MXNet smoke test failed with $real"; continue
  fi
  # The stamp is written last: a venv without it is treated as incomplete and rebuilt.
  printf '%s\n%s (Python %s)\n' "$WANT_STAMP" "$real" "$full" >"$STAMP"
  log "venv ready at $VENV using interpreter $real (Python $full)"
  echo "$VENV/bin/python"
  exit 0
done

rm -rf "$VENV"
log "no usable interpreter found for ${REQUIREMENTS[*]} (tried:$seen)"
exit 1
