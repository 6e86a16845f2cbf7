#!/usr/bin/env bash
# Builds everything, makes (or reuses) the MXNet fixtures, and runs every test suite: the Catch2
# engine and C API suites and the C programs (CTest), the Python package's suite, the CI set of the
# conformance suite (pytest; tests/conformance/run.sh full runs the whole model zoo), MXNet's
# bfloat16 AMP models and int8 quantized models (classifiers and an SSD) against MXNet's outputs,
# precision bfloat16 on the conformance models against MXNet's own bfloat16 error (tests/amp,
# tests/int8), the GPU check's fixtures on the CPU (tests/gpu), the wheel and the sdist installed into fresh venvs (tests/packaging/test_wheel.sh)
# and the Python suites again on the wheel's natives, then the JVM suites (Maven: JUnit 5, ScalaTest, Spark in local
# mode; scripts/test_jvm.sh), and last the wheel and the jars in an older Linux userland
# (tests/packaging/test_old_glibc.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir="$(bash scripts/build.sh)"
QUIVER_FIXTURES_DIR="$(bash scripts/make_fixtures.sh)"
QUIVER_CONFORMANCE_DIR="$(bash tests/conformance/make_fixtures.sh ci)"
QUIVER_AMP_DIR="$(bash tests/amp/make_fixtures.sh)"
QUIVER_AMP_CONFORMANCE_DIR="$(bash tests/amp/make_fixtures.sh --conformance)"  # MXNet's bf16 error, ~5 s once
QUIVER_INT8_DIR="$(bash tests/int8/make_fixtures.sh)"
QUIVER_MXNET="$(bash scripts/setup_mxnet_venv.sh)"  # tests/int8 runs files Quiver writes in MXNet
QUIVER_INT8_SSD_DIR="$(bash tests/int8/make_fixtures.sh --ssd)"  # ~30 s once, then cached
QUIVER_GPU_FIXTURES="$(bash tests/gpu/make_fixtures.sh)"  # the GPU check's fixtures, ~15 s once
# Exported apart from the assignments: `export X="$(cmd)"` would hide cmd's failure from set -e.
export QUIVER_FIXTURES_DIR QUIVER_CONFORMANCE_DIR QUIVER_AMP_DIR QUIVER_AMP_CONFORMANCE_DIR QUIVER_INT8_DIR \
  QUIVER_MXNET QUIVER_INT8_SSD_DIR QUIVER_GPU_FIXTURES
export QUIVER_REQUIRE_FIXTURES=1  # the real-model oracle tests fail instead of skipping
python="$(bash scripts/build_python.sh)"
(cd "$build_dir" && ctest --output-on-failure -j"$(nproc)" --timeout 600)
"$python" -m pytest -q -rs -p no:cacheprovider tests/python tests/conformance tests/amp tests/int8 tests/gpu tests/packaging  # -rs: say why anything skipped
# The GPU check's fixtures and runner, held to MXNet on the CPU (scripts/gpu_check.sh does it on a GPU).
"$python" tests/gpu/check_fixtures.py --fixtures "$QUIVER_GPU_FIXTURES" --runner "$build_dir/tests/gpu/quiver_run_fixture" --devices cpu
# The package's type hints (py.typed) and the examples that use them, under mypy --strict.
mypy_cache="${QUIVER_CACHE:-$HOME/.cache/quiver}/mypy-cache"
(cd python && "$python" -m mypy --strict --cache-dir "$mypy_cache" -p quiver)
"$python" -m mypy --strict --cache-dir "$mypy_cache" examples/python docs/guide
bash scripts/build_docs.sh >/dev/null  # the reference docs, Sphinx warnings as errors
bash tests/packaging/test_wheel.sh
# The Python suites again on the wheel's natives (zig's clang for glibc 2.28, oneDNN built with it): what
# ships passes what the test build passes.
shipped="$(mktemp -d)"
trap 'rm -rf "$shipped"' EXIT
"$python" -m zipfile -e "$(ls dist/quiver-*manylinux_2_28_x86_64.whl)" "$shipped"
PYTHONPATH="$shipped" "$python" -m pytest -q -rs -p no:cacheprovider tests/python tests/conformance tests/amp tests/int8
bash scripts/test_jvm.sh
bash tests/packaging/test_old_glibc.sh  # the wheel and the jars on glibc 2.31 (Ubuntu 20.04), symbols <= 2.28
