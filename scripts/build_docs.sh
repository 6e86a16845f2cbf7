#!/usr/bin/env bash
# Builds the reference docs (docs/: the user guide, the `quiver` command, the Python API by autodoc,
# the C API rendered from c_api.h's comments) into build/docs/html, with every Sphinx warning an error.
# Installs the Python package first (scripts/build_python.sh), since autodoc imports it.
#
#   scripts/build_docs.sh     -> prints the HTML directory on stdout
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

python="$(bash scripts/build_python.sh)"
"$python" -m sphinx -W --keep-going -q -b html docs build/docs/html >&2
echo "$PWD/build/docs/html"
