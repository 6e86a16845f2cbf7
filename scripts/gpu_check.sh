#!/usr/bin/env bash
# The GPU check: on a bare GPU machine, builds Quiver with its CUDA backend and checks everything that
# needs the GPU, in one command of at most 9 minutes. Made for the device tool (see docs/gpu.rst, "Checking
# on a GPU machine"): here `bash scripts/gpu_bundle.sh`, then a run with carry [".gpu-carry"] and
# command `bash scripts/gpu_check.sh`. On an H200 machine every stage takes about 200 s, the build 50
# of them: with 15 minutes of device time, one whole check, a fix, and a second check fit.
#
# Stages, each time-boxed within the check's budget; a stage that fails is recorded and the next one
# still runs:
#   a  the machine: nvidia-smi, nvcc, cmake, ninja, the compiler, python3's torch/numpy,
#      compute-sanitizer; once b has built, the CUDA runtime, cuDNN and cuBLASLt versions loaded
#   b  the build (CUDA toolkit: nvcc on PATH or /usr/local/cuda; cuDNN and, if the toolkit lacks it,
#      cuBLAS from python3's nvidia wheels; oneDNN, nlohmann/json and Catch2 from .gpu-carry), with
#      QUIVER_WERROR=OFF (a compiler never tried here may warn): the warnings are counted instead. On a
#      warm machine a second call rebuilds only the files whose content changed (scripts/keep_mtimes.py)
#   c  the CUDA suites: every GPU operator against the CPU (quiver_cuda_gpu_tests), the host suite,
#      the multi-GPU suite (skips itself on one GPU). Catch2's XML report is read even when a crash or
#      a timeout cut it short; the cases that never ran then run one by one (20 s each, 2 minutes in
#      all, stopping at the first timeout)
#   d  the GPU fixtures (tests/gpu/check_fixtures.py): Quiver on gpu(0) and cpu against MXNet 1.9.1's
#      recorded outputs (1e-4 of the output's scale), and gpu(0) against cpu
#   e  the GPU suite's concurrency, asynchronous-completion, CUDA-graph, freeing-in-flight, deadline
#      and cancellation cases, and the invocation pipeline's: batches gathered and scattered on their
#      stream, completing asynchronously and replaying CUDA graphs (cuda_graphs=required), the backend
#      conformance checks (a batch equals its requests alone, bit for bit); each reported
#   f  compute-sanitizer memcheck on the fixture runner (digits CNN, MobileNetV2 0.25) on gpu(0)
#   g  ResNet-50 FP32, Quiver vs PyTorch eager and with CUDA graphs (bench/gpu/compare_torch.py)
#   h  CPU dynamic batching: ResNet-18 at 16 batch-1 clients with max_batch_size=16 batch_timeout_us=2000,
#      against one client sending batches of 16 (target: >= 0.9x, the queue's cost), and without batching
#      (reported: on a CPU that 16 single-threaded runs fill, batching gains nothing)
# Writes to $OUT: gpu_check.md (the table: stage | result | key figures | seconds; then every failed
# assertion with its expression, expansion and exception text; then the benchmark's table),
# gpu_check.log (every command's output, at most 15 MiB: the device tool returns files up to 16),
# gpu_suite.xml (the GPU suite's Catch2 report), memcheck.txt and bench_gpu.json; prints the table
# last. Without $OUT (not on the device machine) they go to ./gpu-check-out.
# Python stages run with the environment the machine gives (PyTorch's own CUDA libraries must win);
# Quiver's binaries find cuDNN and cuBLAS through their run path, which stage b checks.
#
# Settings (environment):
#   QUIVER_GPU_CHECK_BUDGET_S  total seconds (default 540); stages that no longer fit are "not run"
#   QUIVER_GPU_CHECK_DRY=1     a dry run on a machine without a GPU: the same stages, GPU parts report
#                              "not run: no GPU"; the CPU parts run (oneDNN and the test frameworks
#                              still come from .gpu-carry, so the carry is exercised)
#   QUIVER_CUDA_ROOT           a CUDA toolkit root to use (here: scripts/setup_cuda_toolkit.sh's)
#   QUIVER_GPU_CHECK_WORK      scratch folder (default /tmp/quiver-gpu-check; the build lands there)
#   QUIVER_GPU_CHECK_JOBS      build jobs (default: the number of cores)
#   QUIVER_GPU_CHECK_STAGES    only these stages, e.g. "a b g" (b builds what the others need)
#   QUIVER_GPU_CHECK_PYTHON    the python with numpy (default python3; on the GPU machine it has torch)
#   QUIVER_GPU_CHECK_ASSUME_GPU=1  runs the GPU stages even without a GPU: a test of how they report
#                              failures (they all fail or say "not run")
#   QUIVER_GPU_CHECK_CASE_S    seconds for each case run one by one after a crash (default 20)
# Exit status: 0 when no stage failed, 1 otherwise.
set -uo pipefail  # no -e: a failing stage must not end the check

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
ROOT="$PWD"
OUT="${OUT:-$ROOT/gpu-check-out}"
mkdir -p "$OUT"
CARRY="$ROOT/.gpu-carry"
WORK="${QUIVER_GPU_CHECK_WORK:-/tmp/quiver-gpu-check}"
BUILD="$WORK/build"
BUDGET="${QUIVER_GPU_CHECK_BUDGET_S:-540}"
DRY="${QUIVER_GPU_CHECK_DRY:-0}"
JOBS="${QUIVER_GPU_CHECK_JOBS:-$(nproc)}"
CASE_S="${QUIVER_GPU_CHECK_CASE_S:-20}"
LOG="$OUT/gpu_check.log"
MD="$OUT/gpu_check.md"
FAILURES_MD="$WORK/failures.md"   # every failed assertion, for the table's reader
CMD_OUT="$WORK/command.out"       # the running command's output, before it joins the log
LOG_MAX=$((15 << 20))             # the log's size limit: the device tool returns files up to 16 MiB
COMMAND_LOG_MAX=$((4 << 20))      # what one command may add to it
START="$(date +%s)"
mkdir -p "$WORK"
: >"$LOG"
: >"$FAILURES_MD"
PY="${QUIVER_GPU_CHECK_PYTHON:-$(command -v python3 || true)}"
# cmake and ninja may be only in python3's venv (pip packages), nvidia-smi in the driver's folder.
[ -n "$PY" ] && PATH="$PATH:$(dirname "$PY")"
PATH="$PATH:/usr/local/nvidia/bin"
export PATH
# Quiver's notices (a plan that could not be captured as a CUDA graph, and why) go to the log.
export QUIVER_VERBOSE=1

STAGES=(a b c d e f g h)
declare -A TITLE=([a]="machine and versions" [b]="build (CUDA)" [c]="CUDA suites: GPU ops vs CPU"
  [d]="fixtures vs MXNet 1.9.1" [e]="concurrency, async, graphs, deadlines" [f]="compute-sanitizer memcheck"
  [g]="ResNet-50 vs PyTorch" [h]="CPU batching, 16 clients")
declare -A RESULT FIGURES SECS
for s in "${STAGES[@]}"; do RESULT[$s]="not run"; FIGURES[$s]=""; SECS[$s]=""; done
BENCH_MD=""
HAVE_GPU=0

say() { echo "gpu_check: $*" | tee -a "$LOG" >&2; }
left() { echo $((BUDGET - ($(date +%s) - START))); }
# Prints $1 seconds, or less: what is left of the budget, minus a margin for writing the table.
within() {
  local rest=$(($(left) - 5))
  [ "$rest" -lt 1 ] && rest=1
  echo $(($1 < rest ? $1 : rest))
}
# Appends a file to the log, cut to what the log and one command may still take: its head and its
# tail, with what was left out counted.
append_capped() {
  local size room keep
  size="$(stat -c %s "$1" 2>/dev/null || echo 0)"
  room=$((LOG_MAX - $(stat -c %s "$LOG")))
  keep=$((room < COMMAND_LOG_MAX ? room : COMMAND_LOG_MAX))
  if [ "$size" -le "$keep" ]; then
    cat "$1" >>"$LOG"
  elif [ "$keep" -lt 4096 ]; then
    echo "[$size bytes of output left out: the log is full]" >>"$LOG"
  else
    head -c $((keep / 2 - 100)) "$1" >>"$LOG"
    echo -e "\n[... $((size - keep + 200)) bytes left out ...]" >>"$LOG"
    tail -c $((keep / 2 - 100)) "$1" >>"$LOG"
  fi
}
# Runs a command under `timeout` (seconds: $1, as given) with the caller's redirections. Returns its
# status, 124 when it ran out of time (also when it had to be killed: 137 from a command that had its
# time, not from one killed by something else).
run_timed() {
  local limit="$1" t0 rc
  shift
  t0="$(date +%s)"
  timeout --kill-after=10 "$limit" "$@"
  rc=$?
  [ "$rc" = 137 ] && [ $(($(date +%s) - t0)) -ge "$limit" ] && rc=124
  return $rc
}
timed_out() { [ "$1" = 124 ]; }

# Runs a command under `timeout` (seconds: $1, cut to the budget), its output into the log; the
# output stays in $CMD_OUT until the next command. Returns the command's status (124: timed out).
logged() {
  local limit rc
  limit="$(within "$1")"
  shift
  echo "+ [timeout ${limit}s] $*" >>"$LOG"
  run_timed "$limit" "$@" >"$CMD_OUT" 2>&1
  rc=$?
  append_capped "$CMD_OUT"
  timed_out "$rc" && echo "[timed out after ${limit} s]" >>"$LOG"
  return $rc
}

write_md() {
  local s
  {
    local commit dry=""
    # The tree that travels may have no .git: then only the commit the carry was made for is known,
    # and the tree may be newer.
    commit="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null ||
              echo "unknown (no .git); carry made for $(grep -o '"made_for_commit": "[0-9a-f]\{7\}' \
                                                          "$CARRY/manifest.json" 2>/dev/null | tail -c 8)")"
    [ "$DRY" = 1 ] && dry=", DRY RUN: no GPU"
    echo "# Quiver GPU check ($(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit$dry)"
    echo
    echo "| stage | result | key figures | seconds |"
    echo "| --- | --- | --- | --- |"
    for s in "${STAGES[@]}"; do
      echo "| $s. ${TITLE[$s]} | ${RESULT[$s]} | ${FIGURES[$s]//|//} | ${SECS[$s]} |"
    done
    if [ -s "$FAILURES_MD" ]; then
      echo
      echo "## Failures"
      echo
      cat "$FAILURES_MD"
    fi
    if [ -n "$BENCH_MD" ] && [ -f "$BENCH_MD" ]; then
      echo
      echo "## g. ResNet-50 FP32: Quiver vs PyTorch (bench/gpu/compare_torch.py)"
      echo
      cat "$BENCH_MD"
    fi
  } >"$MD"
}

# stage ID MIN_SECONDS FUNCTION: runs FUNCTION if MIN_SECONDS still fit in the budget. FUNCTION sets
# RESULT[ID] (pass / fail / not run: why) and FIGURES[ID]; $LIMIT is what it may spend.
stage() {
  local id="$1" need="$2" fn="$3" t0
  if [ -n "${QUIVER_GPU_CHECK_STAGES:-}" ] && [[ " $QUIVER_GPU_CHECK_STAGES " != *" $id "* ]]; then
    RESULT[$id]="not run: not in QUIVER_GPU_CHECK_STAGES"
    write_md
    return
  fi
  if [ "$(left)" -lt "$need" ]; then
    RESULT[$id]="not run: time budget"
    say "stage $id (${TITLE[$id]}): not run, $(left) s left of $BUDGET"
    write_md
    return
  fi
  LIMIT=$(($(left) - 5))
  t0="$(date +%s)"
  say "stage $id (${TITLE[$id]}) ..."
  echo "======== stage $id: ${TITLE[$id]} ========" >>"$LOG"
  "$fn" "$id"
  SECS[$id]=$(($(date +%s) - t0))
  say "stage $id: ${RESULT[$id]} (${SECS[$id]} s) ${FIGURES[$id]}"
  write_md
}
trap 'append_capped "$CMD_OUT"; say "interrupted"; write_md; exit 130' INT TERM

# ------------------------------------------------------------------------------------------------
# a. The machine

# Sets GPU (its name, driver and memory, or empty) and HAVE_GPU; every stage that needs one reads them,
# whichever stages run.
GPU=""
detect_gpu() {
  if [ "$DRY" != 1 ] && command -v nvidia-smi >/dev/null; then
    GPU="$(timeout 30 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>>"$LOG" |
           head -1)"
  fi
  if [ "$DRY" != 1 ] && [ -z "$GPU" ] && [ -n "$PY" ]; then  # no nvidia-smi: ask PyTorch
    GPU="$(timeout 60 "$PY" -c 'import torch; print(torch.cuda.get_device_name(0) + " (seen by torch)")' 2>>"$LOG")"
  fi
  [ -n "$GPU" ] && HAVE_GPU=1
  [ "${QUIVER_GPU_CHECK_ASSUME_GPU:-0}" = 1 ] && HAVE_GPU=1
}

stage_a() {
  local v
  [ "$DRY" != 1 ] && command -v nvidia-smi >/dev/null && logged 30 nvidia-smi
  v="$("$(cuda_root)/bin/nvcc" --version 2>/dev/null | grep -o 'release [0-9.]*' | head -1)"
  {
    echo "nproc $(nproc)"; uname -a; head -2 /etc/os-release 2>/dev/null; ldd --version 2>&1 | head -1
    cmake --version 2>&1 | head -1; ninja --version 2>&1; c++ --version 2>&1 | head -1
    echo "compute-sanitizer: $(sanitizer)"
    echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
    [ -n "$PY" ] && timeout 60 "$PY" -c 'import sys, numpy; print("python", sys.version.split()[0], "numpy", numpy.__version__)'
    [ -n "$PY" ] && timeout 60 "$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda,
                                                 "available", torch.cuda.is_available())'
    [ -f "$CARRY/manifest.json" ] && echo "carry: $(du -sh "$CARRY" | cut -f1)," \
      "made for $(grep -o '"made_for_commit": "[0-9a-f]*"' "$CARRY/manifest.json")"
  } >>"$LOG" 2>&1
  v="${v#release }"
  FIGURES[$1]="${GPU:-no GPU}; nvcc ${v:-not found}; $(c++ --version 2>/dev/null | head -1);"
  FIGURES[$1]+=" $(cmake --version 2>/dev/null | head -1); $(nproc) cores"
  if [ ! -f "$CARRY/manifest.json" ]; then
    RESULT[$1]="fail: no .gpu-carry (run scripts/gpu_bundle.sh here, carry .gpu-carry)"
  elif [ "$HAVE_GPU" = 1 ]; then
    RESULT[$1]="pass"
  else
    RESULT[$1]="not run: no GPU"
  fi
}

# ------------------------------------------------------------------------------------------------
# b. The build

# Prints the CUDA toolkit root: QUIVER_CUDA_ROOT, nvcc on PATH, /usr/local/cuda.
cuda_root() {
  local nvcc
  if [ -n "${QUIVER_CUDA_ROOT:-}" ]; then echo "$QUIVER_CUDA_ROOT"; return; fi
  nvcc="$(command -v nvcc || true)"
  [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
  [ -n "$nvcc" ] && dirname "$(dirname "$(readlink -f "$nvcc")")"
}

# Prints compute-sanitizer's path: on PATH or in the toolkit.
sanitizer() {
  local root f
  command -v compute-sanitizer && return
  root="$(cuda_root)"
  [ -n "$root" ] || return 0
  for f in "$root/bin/compute-sanitizer" "$root/compute-sanitizer/compute-sanitizer"; do
    [ -x "$f" ] && { echo "$f"; return; }
  done
}

# Prints the folder of a python3 nvidia wheel (cudnn, cu13, cublas), or nothing.
nvidia_wheel() {
  [ -n "$PY" ] || return 0
  "$PY" - "$1" 2>/dev/null <<'EOF'
import importlib, os, sys
try:
    m = importlib.import_module("nvidia." + sys.argv[1])
    print(list(m.__path__)[0])
except Exception:
    pass
EOF
}

# A toolkit root whose lib has cuBLASLt: the toolkit itself, or a folder of links that adds the
# cuBLAS wheel's headers and libraries (unversioned names too) to it, as scripts/setup_cuda_toolkit.sh.
cuda_root_with_cublas() {
  local root="$1" wheel merged f name
  if ls "$root"/lib64/libcublasLt.so* "$root"/targets/x86_64-linux/lib/libcublasLt.so* >/dev/null 2>&1; then
    echo "$root"
    return
  fi
  wheel="$(nvidia_wheel cu13)"
  [ -f "$wheel/lib/libcublasLt.so.13" ] || wheel="$(nvidia_wheel cublas)"
  [ -n "$wheel" ] || { echo "$root"; return; }
  merged="$WORK/cuda-root"
  # Made once per toolkit and wheel: links made anew would date the libraries after the build and
  # relink everything on a warm machine's second call.
  if [ "$(cat "$merged/.from" 2>/dev/null)" = "$root $wheel" ]; then echo "$merged"; return; fi
  rm -rf "$merged"
  mkdir -p "$merged/bin" "$merged/targets/x86_64-linux/include" "$merged/targets/x86_64-linux/lib"
  for f in "$root"/bin/*; do ln -s "$f" "$merged/bin/"; done
  [ -e "$root/nvvm" ] && ln -s "$root/nvvm" "$merged/nvvm"
  for f in "$root"/include/* "$wheel"/include/*; do
    [ -e "$merged/targets/x86_64-linux/include/$(basename "$f")" ] || ln -s "$f" "$merged/targets/x86_64-linux/include/"
  done
  for f in "$root"/lib64/* "$wheel"/lib/*; do
    name="$(basename "$f")"
    [ -e "$merged/targets/x86_64-linux/lib/$name" ] || ln -s "$f" "$merged/targets/x86_64-linux/lib/$name"
    case "$name" in *.so.*) [ -e "$merged/targets/x86_64-linux/lib/${name%%.so.*}.so" ] ||
      ln -s "$f" "$merged/targets/x86_64-linux/lib/${name%%.so.*}.so" ;; esac
  done
  ln -s targets/x86_64-linux/include "$merged/include"
  ln -s targets/x86_64-linux/lib "$merged/lib64"
  echo "$root $wheel" >"$merged/.from"
  echo "$merged"
}

# Unpacks the carried oneDNN archive into $WORK/onednn (once per archive).
unpack_onednn() {
  local src="$CARRY/onednn" dst="$WORK/onednn" sum
  sum="$(sha256sum "$src/lib/libdnnl.a.xz" | cut -d' ' -f1)"
  if [ "$(cat "$dst/.from" 2>/dev/null)" = "$sum" ]; then return 0; fi
  rm -rf "$dst"
  mkdir -p "$dst/lib"
  cp -a "$src/include" "$src/share" "$dst/"
  cp -a "$src/lib/cmake" "$dst/lib/"
  if command -v xz >/dev/null; then
    xz -dc "$src/lib/libdnnl.a.xz" >"$dst/lib/libdnnl.a" || return 1
  else
    "$PY" -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
      "$src/lib/libdnnl.a.xz" "$dst/lib/libdnnl.a" || return 1
  fi
  echo "$sum" >"$dst/.from"
}

# Where the build's libquiver.so finds the CUDA libraries (ldd, with the environment the stages run
# in), and the versions it loads (quiver_cuda_versions), for stage a's row; false if one is not found.
check_cuda_libraries() {
  local lib="$BUILD/libquiver.so" resolved versions
  [ -f "$lib" ] || return 0
  resolved="$(ldd "$lib" 2>&1 | grep -E 'cudnn|cublas|cudart|libcuda\.' | sed 's/ (0x[0-9a-f]*)//' | tr -s ' \t' ' ')"
  echo "libquiver.so loads:$resolved" | tr '\n' ' ' >>"$LOG"
  echo >>"$LOG"
  if grep -q 'not found' <<<"$resolved"; then
    FIGURES[b]+="; NOT FOUND: $(grep 'not found' <<<"$resolved" | tr '\n' ' ')"
    return 1
  fi
  if [ -x "$BUILD/tests/gpu/quiver_cuda_versions" ]; then
    versions="$(timeout 30 "$BUILD/tests/gpu/quiver_cuda_versions" 2>&1 | grep -v '^gpu(' | paste -sd ';' | sed 's/;/; /g')"
    echo "quiver_cuda_versions: $versions" >>"$LOG"
    FIGURES[a]+="; loaded: $versions"
  fi
}

stage_b() {
  local root cudnn cublas_root cmake_args=() targets=() t avail rc warnings compiled
  FIGURES[$1]="sources: $(logged 60 "$PY" "$ROOT/scripts/keep_mtimes.py" "$WORK/tree-mtimes.json" "$ROOT" \
    --skip gpu-check-out 'build*' '.venv*' __pycache__ target dist && tail -1 "$CMD_OUT")"
  if ! unpack_onednn >>"$LOG" 2>&1; then RESULT[$1]="fail: could not unpack oneDNN from the carry"; return; fi
  local generator=Ninja
  command -v ninja >/dev/null || generator="Unix Makefiles"
  cmake_args=(-S "$ROOT" -B "$BUILD" -G "$generator" -DCMAKE_BUILD_TYPE=Release -DQUIVER_ONEDNN_ROOT="$WORK/onednn"
    -Dnlohmann_json_DIR="$CARRY/nlohmann_json/share/cmake/nlohmann_json" -DCatch2_DIR="$CARRY/catch2/lib/cmake/Catch2"
    -DQUIVER_FIXTURES_DIR="$WORK/no-fixtures" -DQUIVER_WERROR=OFF
    -DQUIVER_CCACHE=OFF)  # one build on a machine that goes back afterwards: nothing to reuse
  root="$(cuda_root)"
  if [ -n "$root" ]; then
    cublas_root="$(cuda_root_with_cublas "$root")"
    cudnn="$(nvidia_wheel cudnn)"
    cmake_args+=(-DQUIVER_CUDA=ON -DCUDAToolkit_ROOT="$cublas_root" -DCMAKE_CUDA_COMPILER="$cublas_root/bin/nvcc")
    # CMakeLists.txt looks for cuDNN's header under CUDNN_ROOT, then beside the toolkit, then in the
    # toolkit's folders, and takes the library from beside that header.
    [ -n "$cudnn" ] && cmake_args+=(-DCUDNN_ROOT="$cudnn")
    FIGURES[$1]+="; CUDA at $cublas_root, cuDNN at ${cudnn:-(toolkit)}"
  elif [ "$DRY" = 1 ]; then
    FIGURES[$1]+="; no CUDA toolkit: CPU-only configuration"
  else
    RESULT[$1]="fail: no CUDA toolkit (no nvcc on PATH, no /usr/local/cuda)"
    return
  fi
  if ! logged 120 cmake "${cmake_args[@]}"; then
    RESULT[$1]="fail: cmake configure (see log)"
    FIGURES[$1]+="; $(grep -m1 -E 'CMake Error|Could NOT|not found' "$CMD_OUT" | cut -c1-150)"
    return
  fi
  FIGURES[$1]+="; $(grep -m1 -o 'cuDNN [0-9.]*: header in .*' "$CMD_OUT" | cut -c1-200)"
  if [ "$generator" = Ninja ]; then
    avail="$(ninja -C "$BUILD" -t targets all 2>/dev/null | cut -d: -f1)"
  else
    avail="$(make -C "$BUILD" help 2>/dev/null | sed -n 's/^\.\.\. \([^ ]*\).*/\1/p')"
  fi
  for t in quiver quiver_run_fixture quiver_bench quiver_cuda_gpu_tests quiver_cuda_host_tests \
           quiver_cuda_multi_gpu_tests quiver_cuda_versions; do
    grep -qx "$t" <<<"$avail" && targets+=("$t")
  done
  logged "$LIMIT" cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}"
  rc=$?
  # Counted in the whole output, before the log's cap: gcc's "file:line:col: warning:", nvcc's "warning #N-D:".
  warnings="$(grep -cE 'warning( #[0-9A-Za-z-]+)?:' "$CMD_OUT")"
  compiled="$(grep -cE '^\[[0-9]+/[0-9]+\] Building' "$CMD_OUT")"
  if grep -q 'no work to do' "$CMD_OUT"; then
    FIGURES[$1]+="; nothing to rebuild"
  else
    FIGURES[$1]+="; $compiled files compiled, $warnings compiler warnings"
    [ "$warnings" -gt 0 ] && FIGURES[$1]+=" (first: $(grep -m1 -E 'warning( #[0-9A-Za-z-]+)?:' "$CMD_OUT" |
                                                       sed 's|.*/||' | cut -c1-160))"
  fi
  if timed_out "$rc"; then
    RESULT[$1]="fail: build timed out"
  elif [ "$rc" != 0 ]; then
    RESULT[$1]="fail: build (see log)"
    FIGURES[$1]+="; $(grep -m1 -E 'error|FAILED' "$CMD_OUT" | cut -c1-200)"
  elif ! check_cuda_libraries; then
    RESULT[$1]="fail: libquiver.so does not find a CUDA library"
  else
    RESULT[$1]="pass"
  fi
  FIGURES[$1]+="; targets: ${targets[*]}"
}

# ------------------------------------------------------------------------------------------------
# c and e. The CUDA suites (one run of the GPU suite, with Catch2's XML report)

SUITE_DIR="$BUILD/tests/engine/backends/cuda"
GPU_XML="$WORK/gpu_suite.xml"
ONE_BY_ONE="$WORK/one_by_one"  # the reports of the cases rerun one at a time
GPU_RC=""
REPORT=("$PY" "$ROOT/scripts/catch_report.py")
STDBUF=()
command -v stdbuf >/dev/null && STDBUF=(stdbuf -oL)

# Runs a Catch2 suite under `timeout` (seconds: $1, cut to the budget) with its XML report, line-buffered
# so that a crash or a kill leaves what was written, in XML ($2); its other output goes to the log.
# Returns the suite's status (77: not run, no GPU; 124: timed out).
run_suite() {  # LIMIT XML BINARY [ARGS...]
  local limit xml="$2" rc
  limit="$(within "$1")"
  shift 2
  echo "+ [timeout ${limit}s] $* -r xml --durations yes >$xml" >>"$LOG"
  run_timed "$limit" "${STDBUF[@]}" "$@" -r xml --durations yes >"$xml" 2>"$CMD_OUT"
  rc=$?
  append_capped "$CMD_OUT"
  [ "$rc" = 77 ] && cat "$xml" >>"$LOG"  # the suite's "not run: ..." line
  timed_out "$rc" && echo "[timed out after ${limit} s]" >>"$LOG"
  return $rc
}

# A Catch2 test spec matching exactly one case: a backslash escapes what would separate names or start tags.
case_spec() {
  local spec="${1//\\/\\\\}"
  spec="${spec//,/\\,}"
  spec="${spec//\[/\\[}"
  echo "${spec//]/\\]}"
}

# Runs one at a time the suite's cases that are not in DONE (a crash or a timeout ended the run before
# them): $CASE_S seconds each, 2 minutes in all, stopping at the first timeout. Prints one line; their
# failures join the failures section. True when every one of them ran and passed.
suite_rest_one_by_one() {  # BINARY DONE
  local name rc t0 passed=0 ran=0 todo=0 stop="" failed=() xml notes="$WORK/one_by_one.md"
  t0="$(date +%s)"
  : >"$notes"
  rm -rf "$ONE_BY_ONE"
  mkdir -p "$ONE_BY_ONE"
  while IFS= read -r name; do
    [ -z "$name" ] && continue
    grep -qxF -- "$name" "$2" && continue
    todo=$((todo + 1))
    [ -n "$stop" ] && continue
    if [ $(($(date +%s) - t0)) -ge 120 ] || [ "$(left)" -lt 30 ]; then
      stop="the time box (2 minutes)"
      continue
    fi
    ran=$((ran + 1))
    xml="$ONE_BY_ONE/$ran.xml"
    run_suite "$CASE_S" "$xml" "$1" "$(case_spec "$name")"
    rc=$?
    if [ "$rc" = 0 ]; then
      passed=$((passed + 1))
    else
      failed+=("${name:0:60}")
      "${REPORT[@]}" failures "$xml" --max-lines 15 >>"$notes"
      timed_out "$rc" && stop="a timeout in: ${name:0:60}"
    fi
  done < <(timeout 30 "$1" --list-test-names-only 2>/dev/null)
  if [ -s "$notes" ]; then
    { echo "### The cases that had not run, one by one"; cat "$notes"; } >>"$FAILURES_MD"
  fi
  echo -n "one by one, the $todo cases that had not run: $passed/$ran pass"
  [ "${#failed[@]}" -gt 0 ] && echo -n " (failed: ${failed[*]:0:3})"
  [ -n "$stop" ] && echo -n "; stopped at $stop"
  echo
  [ "${#failed[@]}" = 0 ] && [ "$ran" = "$todo" ]
}

# Summarises a suite's report into the figures and its failures into the failures section. Prints the
# summary; returns catch_report.py's status (0 pass, 1 failures, 2 cut short, 3 unreadable).
read_suite() {  # XML TITLE [DONE]
  local summary rc
  summary="$("${REPORT[@]}" summary "$1" ${3:+--done "$3"})"
  rc=$?
  "${REPORT[@]}" failures "$1" --title "$2" --max-lines 80 >>"$FAILURES_MD"
  echo "$summary"
  return $rc
}

stage_c() {
  local summary rc figures="" done="$WORK/gpu_suite.done"
  if [ ! -x "$SUITE_DIR/quiver_cuda_gpu_tests" ]; then
    RESULT[$1]="not run: quiver_cuda_gpu_tests was not built"
    return
  fi
  rm -rf "$ONE_BY_ONE"
  run_suite 240 "$GPU_XML" "$SUITE_DIR/quiver_cuda_gpu_tests"
  GPU_RC=$?
  if [ "$GPU_RC" = 77 ]; then
    RESULT[$1]="not run: no GPU"
    figures="GPU suite: $(head -1 "$GPU_XML" | cut -c1-120)"
  else
    head -c $((15 << 20)) "$GPU_XML" >"$OUT/gpu_suite.xml"
    summary="$(read_suite "$GPU_XML" "GPU suite (quiver_cuda_gpu_tests)" "$done")"
    rc=$?
    case $rc in
      0) RESULT[$1]="pass" ;;
      1) RESULT[$1]="fail" ;;
      *) RESULT[$1]="fail: the suite exited $GPU_RC$(timed_out "$GPU_RC" && echo ' (timed out)')"
         [ "$rc" = 3 ] && : >"$done"
         summary+="; $(suite_rest_one_by_one "$SUITE_DIR/quiver_cuda_gpu_tests" "$done")" ;;
    esac
    figures="GPU suite: $summary"
  fi
  if [ -x "$SUITE_DIR/quiver_cuda_host_tests" ]; then
    run_suite 120 "$WORK/host_suite.xml" "$SUITE_DIR/quiver_cuda_host_tests"
    rc=$?
    figures+="; host suite: $(read_suite "$WORK/host_suite.xml" "CUDA host suite (quiver_cuda_host_tests)")"
    [ "$rc" != 0 ] && RESULT[$1]="fail: the host suite failed"
  fi
  if [ -x "$SUITE_DIR/quiver_cuda_multi_gpu_tests" ]; then
    run_suite 120 "$WORK/multi_gpu_suite.xml" "$SUITE_DIR/quiver_cuda_multi_gpu_tests"
    rc=$?
    if [ "$rc" = 77 ]; then
      figures+="; multi-GPU suite: $(head -1 "$WORK/multi_gpu_suite.xml" | cut -c1-100)"
    else
      figures+="; multi-GPU suite: $(read_suite "$WORK/multi_gpu_suite.xml" "Multi-GPU suite")"
      [ "$rc" != 0 ] && RESULT[$1]="fail: the multi-GPU suite failed"
    fi
  fi
  FIGURES[$1]="$figures"
}

stage_e() {
  local summary more
  shopt -s nullglob
  more=("$ONE_BY_ONE"/*.xml)
  shopt -u nullglob
  if [ -z "$GPU_RC" ]; then RESULT[$1]="not run: it reads stage c's report"; return; fi
  if [ "$GPU_RC" = 77 ]; then RESULT[$1]="not run: no GPU"; return; fi
  if [ ! -s "$GPU_XML" ]; then RESULT[$1]="not run: no GPU suite report (stage c)"; return; fi
  # With the cases rerun one by one after a crash, if any.
  summary="$("${REPORT[@]}" summary "$GPU_XML" "${more[@]}" --filter \
    'concurren|async|thread|stream|graph|callback|parallel|OnReady|batching|clients|free|deadline|cancel|conformance|\[multi')"
  case $? in
    0) RESULT[$1]="pass" ;;
    4) RESULT[$1]="not run: the suite has no such test cases" ;;
    *) RESULT[$1]="fail" ;;
  esac
  FIGURES[$1]="$summary"
}

# ------------------------------------------------------------------------------------------------
# d. Fixtures; f. memcheck; h. CPU batching

RUNNER="$BUILD/tests/gpu/quiver_run_fixture"
FIXTURE_WORK="$WORK/fixtures"

# Puts a GPU fixture's model files into $FIXTURE_WORK (stage d does it for all; f and h may run without).
fixture_model() {  # NAME
  mkdir -p "$FIXTURE_WORK"
  [ -f "$FIXTURE_WORK/$1-0000.params" ] && return
  cp "$CARRY/fixtures/$1-symbol.json" "$FIXTURE_WORK/"
  logged 60 "$PY" "$ROOT/tests/gpu/regen_params.py" "$CARRY/fixtures/$1-recipe.json" "$FIXTURE_WORK/$1-0000.params"
}

stage_d() {
  local devices="gpu(0),cpu" summary rc
  if [ ! -x "$RUNNER" ]; then RESULT[$1]="not run: quiver_run_fixture was not built"; return; fi
  [ "$HAVE_GPU" = 1 ] || devices="cpu"
  logged 150 "$PY" "$ROOT/tests/gpu/check_fixtures.py" --fixtures "$CARRY/fixtures" --runner "$RUNNER" \
    --devices "$devices" --work "$FIXTURE_WORK" --json "$WORK/fixtures.json" --case-timeout 30
  rc=$?
  summary="$(grep -E '^(gpu\(0\)|cpu): [0-9]+/' "$CMD_OUT" | tail -2 | tr '\n' ';')"
  summary+=" $(grep -E ' (cpu|gpu\(0\)) vs (cpu|gpu\(0\)) ' "$CMD_OUT" | awk '{print $NF}' | sort -g | tail -1 |
                sed 's/^/worst cpu vs gpu: /')"
  [ -n "${summary// /}" ] || summary="$(tail -1 "$CMD_OUT" | cut -c1-200)"
  timed_out "$rc" && summary+="; timed out"
  # The first failure's reason (check_fixtures.py prints FAIL MODEL SHAPE DEVICE reason).
  [ "$rc" != 0 ] && summary+="; first failure: $(grep -m1 '^FAIL' "$CMD_OUT" | tr -s ' ' | cut -c1-220)"
  FIGURES[$1]="$summary"
  if [ "$HAVE_GPU" != 1 ]; then
    RESULT[$1]="not run: no GPU (cpu $([ "$rc" = 0 ] && echo pass || echo FAIL))"
  else
    RESULT[$1]="$([ "$rc" = 0 ] && echo pass || echo fail)"
  fi
}

# memcheck's reports go to $OUT/memcheck.txt, at most 20 errors a model (--print-limit), not to the log.
stage_f() {
  local errors rc figures="" ok=1 ran=0 model input cs report="$OUT/memcheck.txt" limit
  if [ "$HAVE_GPU" != 1 ]; then RESULT[$1]="not run: no GPU"; return; fi
  cs="$(sanitizer)"
  if [ -z "$cs" ]; then RESULT[$1]="not run: no compute-sanitizer"; return; fi
  : >"$report"
  for model in digits_cnn:digits_cnn-in-16x1x8x8.npy mobilenetv2_0.25:mobilenetv2_0.25-in-1x3x64x64.npy; do
    input="${model#*:}"
    model="${model%%:*}"
    fixture_model "$model"
    # The second model only while the benchmark (stage g, last) keeps most of what is left.
    [ "$model" = digits_cnn ] || [ "$(left)" -ge 240 ] || { figures+="$model: not run (time budget); "; break; }
    limit="$(within 90)"
    echo "======== $model (timeout ${limit}s)" >>"$report"
    echo "+ [timeout ${limit}s] $cs memcheck $model >>$report" >>"$LOG"
    run_timed "$limit" "$cs" --tool memcheck --error-exitcode 99 --print-limit 20 \
      "$RUNNER" --prefix "$FIXTURE_WORK/$model" --device "gpu(0)" --input "$CARRY/fixtures/$input" \
      --out "$WORK/memcheck-$model" --repeat 2 >>"$report" 2>&1
    rc=$?
    if timed_out "$rc"; then
      figures+="$model: not run: timeout (${limit} s); "
      continue
    fi
    ran=$((ran + 1))
    errors="$(grep -o 'ERROR SUMMARY: [0-9]* error' "$report" | tail -1 | grep -o '[0-9]*')"
    figures+="$model: exit $rc, ${errors:-?} errors; "
    [ "$rc" = 0 ] && [ "${errors:-1}" = 0 ] || ok=0
  done
  head -c $((15 << 20)) "$report" >"$report.tmp" && mv "$report.tmp" "$report"
  FIGURES[$1]="$figures"
  if [ "$ok" != 1 ]; then
    RESULT[$1]="fail (see memcheck.txt)"
  elif [ "$ran" = 0 ]; then
    RESULT[$1]="not run: timeout"
  else
    RESULT[$1]="pass"
  fi
}

# One quiver_bench run of stage h: its JSON line on stdout, everything else in the log.
bench_line() {
  logged 120 "$@" && grep '^{' "$CMD_OUT" | tail -1
}

stage_h() {
  local bench="$BUILD/bench/quiver_bench" prefix="$FIXTURE_WORK/resnet18_v1" plain batched direct ratio iters=60
  if [ ! -x "$bench" ]; then RESULT[$1]="not run: quiver_bench was not built"; return; fi
  fixture_model resnet18_v1
  [ "$(nproc)" -lt 8 ] && iters=5
  # 60 requests a client (about two seconds at 16 cores): fewer let the clients' first, out-of-step
  # requests weigh on the ratio.
  local run=("$bench" --prefix "$prefix" --device cpu --batch 1 --iters "$iters" --warmup 10)
  plain="$(bench_line "${run[@]}" --clients 16)"
  batched="$(bench_line "${run[@]}" --clients 16 --option max_batch_size=16 --option batch_timeout_us=2000)"
  direct="$(bench_line "${run[@]}" --clients 1 --batch 16)"
  # The queue is judged against the batches it forms, sent whole by one client: what batching adds is
  # its own cost. Whether batches beat 16 separate runs depends on the CPU, so that is reported only.
  ratio="$(timeout 30 "$PY" - "$plain" "$batched" "$direct" 2>>"$LOG" <<'EOF'
import json, sys
plain, batched, direct = (json.loads(s)["throughput_per_s"] for s in sys.argv[1:4])
print("batched %.1f img/s, %.2fx one client's batches of 16 (%.1f); unbatched %.1f (batched: %.2fx) %.2fx"
      % (batched, batched / direct, direct, plain, batched / plain, batched / direct))
EOF
)"
  if [ -z "$ratio" ]; then
    RESULT[$1]="fail: a run failed or timed out (see log)"
    return
  fi
  FIGURES[$1]="ResNet-18 224x224, $(nproc) cores: ${ratio% *} (target >= 0.9x at 16 cores)"
  if [ "$(nproc)" -lt 16 ]; then
    RESULT[$1]="ran, not judged: $(nproc) cores (the target is for 16)"
  elif "$PY" -c 'import sys; sys.exit(0 if float(sys.argv[1].rstrip("x")) >= 0.9 else 1)' "${ratio##* }"; then
    RESULT[$1]="pass"
  else
    RESULT[$1]="fail: below 0.9x"
  fi
}

# ------------------------------------------------------------------------------------------------
# g. The benchmark

stage_g() {
  local rc
  if [ "$HAVE_GPU" != 1 ]; then RESULT[$1]="not run: no GPU"; return; fi
  if [ ! -x "$BUILD/bench/quiver_bench" ] || [ ! -x "$RUNNER" ]; then RESULT[$1]="not run: not built"; return; fi
  BENCH_MD="$WORK/bench_gpu.md"
  rm -f "$BENCH_MD"
  rm -f "$WORK/bench_summary.txt"
  logged "$LIMIT" env PYTHONUNBUFFERED=1 "$PY" "$ROOT/bench/gpu/compare_torch.py" \
    --quiver-bench "$BUILD/bench/quiver_bench" --runner "$RUNNER" --work "$WORK/bench" --json "$OUT/bench_gpu.json" \
    --md "$BENCH_MD" --summary "$WORK/bench_summary.txt" --budget "$((LIMIT - 15))"
  rc=$?
  [ -f "$WORK/bench_summary.txt" ] && FIGURES[$1]="$(cat "$WORK/bench_summary.txt")"
  [ -n "${FIGURES[$1]}" ] || FIGURES[$1]="$(tail -1 "$CMD_OUT" | cut -c1-200)"
  case $rc in
    0) RESULT[$1]="pass: every target met" ;;
    1) RESULT[$1]="fail: targets not met (see table)" ;;
    *) RESULT[$1]="fail: exit $rc" ;;
  esac
}

# ------------------------------------------------------------------------------------------------

say "budget $BUDGET s, work $WORK, out $OUT$([ "$DRY" = 1 ] && echo ', DRY RUN')"
detect_gpu
stage a 5 stage_a
stage b 60 stage_b
stage c 20 stage_c
stage d 20 stage_d
stage e 0 stage_e
stage f 40 stage_f
stage h 30 stage_h
stage g 60 stage_g
write_md
say "total $(($(date +%s) - START)) s; $MD, $LOG"
cat "$MD"
for s in "${STAGES[@]}"; do
  case "${RESULT[$s]}" in fail*) exit 1 ;; esac
done
