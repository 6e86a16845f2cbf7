#!/usr/bin/env bash
# The suites whose path depends on the CPU's instruction sets, once more as on an AVX2-only CPU (AMD
# Zen 2 and 3): every CTest suite and the Python package's (float32 on oneDNN's AVX2 kernels against
# MXNet's outputs), AMP and int8 pytest suites. Where the kernel can trap CPUID they run under
# scripts/as_avx2_cpu.sh, so that every library in their processes (oneDNN, numpy, MXNet) sees a CPU
# without AVX-512, VNNI or AMX; oneDNN is held to AVX2 in any case (ONEDNN_MAX_CPU_ISA for Quiver's
# oneDNN 3, DNNL_MAX_CPU_ISA for MXNet 1.9.1's), and this says which of the two it did. The bfloat16
# tests say "not run" there, naming the missing instructions; the int8 ones run on oneDNN's AVX2
# kernels, with Quiver's 7-bit weights (docs/precision.rst), against the same MXNet fixtures (made where
# scripts/test.sh ran). Run after scripts/test.sh (it reuses its build and fixtures; .ci/run does); on a
# CPU without AVX-512 scripts/test.sh already ran them so, and this says so.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! grep -m1 '^flags' /proc/cpuinfo | grep -qw avx512f; then
  echo "test_avx2: this CPU has no AVX-512: scripts/test.sh already ran every suite on its AVX2 path" >&2
  exit 0
fi
export ONEDNN_MAX_CPU_ISA=AVX2 DNNL_MAX_CPU_ISA=AVX2
as_avx2_cpu=()
if grep -m1 '^flags' /proc/cpuinfo | grep -qw cpuid_fault; then
  as_avx2_cpu=(bash "$PWD/scripts/as_avx2_cpu.sh")
  echo "test_avx2: CPUID shows no AVX-512, VNNI or AMX to the suites (scripts/as_avx2_cpu.sh)" >&2
else
  echo "test_avx2: this CPU cannot trap CPUID: only oneDNN is held to AVX2, by ONEDNN_MAX_CPU_ISA" >&2
fi
build_dir="$(bash scripts/build.sh)"
QUIVER_FIXTURES_DIR="$(bash scripts/make_fixtures.sh)"
QUIVER_CONFORMANCE_DIR="$(bash tests/conformance/make_fixtures.sh ci)"
QUIVER_AMP_DIR="$(bash tests/amp/make_fixtures.sh)"
QUIVER_AMP_CONFORMANCE_DIR="$(bash tests/amp/make_fixtures.sh --conformance)"
QUIVER_INT8_DIR="$(bash tests/int8/make_fixtures.sh)"
QUIVER_MXNET="$(bash scripts/setup_mxnet_venv.sh)"
QUIVER_INT8_SSD_DIR="$(bash tests/int8/make_fixtures.sh --ssd)"
# Exported apart from the assignments: `export X="$(cmd)"` would hide cmd's failure from set -e.
export QUIVER_FIXTURES_DIR QUIVER_CONFORMANCE_DIR QUIVER_AMP_DIR QUIVER_AMP_CONFORMANCE_DIR QUIVER_INT8_DIR \
  QUIVER_MXNET QUIVER_INT8_SSD_DIR
export QUIVER_REQUIRE_FIXTURES=1
python="$(bash scripts/build_python.sh)"
(cd "$build_dir" && "${as_avx2_cpu[@]}" ctest --output-on-failure -j"$(nproc)" --timeout 600)
# Of tests/int8's comparison with MXNet's calibration, the tests that run int8 (the rest compares
# float32 calibration files, as scripts/test.sh does; all of it takes 4 min). The conformance suite
# (1 min more) is left to scripts/test.sh on an AVX2-only CPU.
"${as_avx2_cpu[@]}" "$python" -m pytest -q -rs -p no:cacheprovider tests/python tests/amp tests/int8 \
  -k "not test_calibrate_mxnet or int8_error or accuracy"
# Then on an emulated Zen 3, which cannot execute AVX-512, VNNI or AMX at all (scripts/as_emulated_zen3.sh):
# an instruction of theirs reached on these paths, dispatched on CPUID or not, fails with SIGILL. The C++
# suites of the int8 kernels, the precision choice, the CPU's own loops and the fuzz corpus (without the
# thread tests, minutes when emulated), and MXNet's int8 ResNet-18 and MobileNetV2 and the digits CNN held
# to their accuracy rules (tests/int8); about 2 minutes. (Not the whole of CTest: 30 minutes and more
# emulated, and QEMU 7.2 computes oneDNN's AVX2 tanh kernel wrongly, which the masked run above checks.)
echo "test_avx2: on an emulated Zen 3 without AVX-512 (scripts/as_emulated_zen3.sh)" >&2
bash scripts/as_emulated_zen3.sh "$build_dir/tests/quiver_tests" \
  "[int8],[precision],[fuzz],[cpu]~[concurrency],[winograd]~[concurrency]"
bash scripts/as_emulated_zen3.sh "$python" -m pytest -q -rs -p no:cacheprovider tests/int8/test_int8_mxnet.py \
  -k "resnet18_v1-naive or mobilenetv2_1.0-naive or digits_cnn_keeps_its_accuracy or auto_picks"
