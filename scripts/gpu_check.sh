#!/usr/bin/env bash
# The GPU check: on a bare GPU machine, builds Quiver with its CUDA backend and checks everything that
# needs the GPU, in one command of at most 9 minutes. Made for the device tool (see README, "Checking
# on a GPU machine"): here `bash scripts/gpu_bundle.sh`, then a run with carry [".gpu-carry"] and
# command `bash scripts/gpu_check.sh`.
#
# Stages, each time-boxed; a stage that fails is recorded and the next one still runs:
#   a  the machine: nvidia-smi, nvcc, cmake, ninja, python3's torch/numpy, compute-sanitizer
#   b  the build (CUDA toolkit: nvcc on PATH or /usr/local/cuda; cuDNN and, if the toolkit lacks it,
#      cuBLAS from python3's nvidia wheels; oneDNN, nlohmann/json and Catch2 from .gpu-carry)
#   c  the CUDA suites: every GPU operator against the CPU (quiver_cuda_gpu_tests), the host suite,
#      the multi-GPU suite (skips itself on one GPU)
#   d  the GPU fixtures (tests/gpu/check_fixtures.py): Quiver on gpu(0) and cpu against MXNet 1.9.1's
#      recorded outputs (1e-4 of the output's scale), and gpu(0) against cpu
#   e  the GPU suite's concurrency, asynchronous-completion and CUDA-graph test cases, each reported
#   f  compute-sanitizer memcheck on the fixture runner (digits CNN, MobileNetV2 0.25) on gpu(0)
#   g  ResNet-50 FP32, Quiver vs PyTorch eager and with CUDA graphs (bench/gpu/compare_torch.py)
#   h  CPU dynamic batching: ResNet-18 at 16 batch-1 clients without and with max_batch_size=16
#      batch_timeout_us=2000 (target: >= 1.3x)
# Writes $OUT/gpu_check.md (the table: stage | result | key figures | seconds, then the benchmark's
# table), $OUT/gpu_check.log (every command's output) and $OUT/bench_gpu.json; prints the table last.
# Without $OUT (not on the device machine) they go to ./gpu-check-out.
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
LOG="$OUT/gpu_check.log"
MD="$OUT/gpu_check.md"
START="$(date +%s)"
mkdir -p "$WORK"
: >"$LOG"
PY="${QUIVER_GPU_CHECK_PYTHON:-$(command -v python3 || true)}"
# cmake and ninja may be only in python3's venv (pip packages), nvidia-smi in the driver's folder.
[ -n "$PY" ] && PATH="$PATH:$(dirname "$PY")"
PATH="$PATH:/usr/local/nvidia/bin"
export PATH

STAGES=(a b c d e f g h)
declare -A TITLE=([a]="machine and versions" [b]="build (CUDA)" [c]="CUDA suites: GPU ops vs CPU"
  [d]="fixtures vs MXNet 1.9.1" [e]="concurrency, async, CUDA graphs" [f]="compute-sanitizer memcheck"
  [g]="ResNet-50 vs PyTorch" [h]="CPU batching, 16 clients")
declare -A RESULT FIGURES SECS
for s in "${STAGES[@]}"; do RESULT[$s]="not run"; FIGURES[$s]=""; SECS[$s]=""; done
BENCH_MD=""
HAVE_GPU=0

say() { echo "gpu_check: $*" | tee -a "$LOG" >&2; }
left() { echo $((BUDGET - ($(date +%s) - START))); }
# Runs a command with output to the log, under `timeout` (seconds: $1).
logged() {
  local limit="$1"
  shift
  echo "+ [timeout ${limit}s] $*" >>"$LOG"
  timeout --kill-after=10 "$limit" "$@" >>"$LOG" 2>&1
}

write_md() {
  local s
  {
    local commit dry=""
    # The tree that travels may have no .git: then the commit the carry was made for.
    commit="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null ||
              grep -o '"made_for_commit": "[0-9a-f]\{7\}' "$CARRY/manifest.json" 2>/dev/null | tail -c 8 ||
              echo '?')"
    [ "$DRY" = 1 ] && dry=", DRY RUN: no GPU"
    echo "# Quiver GPU check ($(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit$dry)"
    echo
    echo "| stage | result | key figures | seconds |"
    echo "| --- | --- | --- | --- |"
    for s in "${STAGES[@]}"; do
      echo "| $s. ${TITLE[$s]} | ${RESULT[$s]} | ${FIGURES[$s]//|//} | ${SECS[$s]} |"
    done
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
trap 'say "interrupted"; write_md; exit 130' INT TERM

# ------------------------------------------------------------------------------------------------
# a. The machine

stage_a() {
  local gpu="" v
  if [ "$DRY" != 1 ] && command -v nvidia-smi >/dev/null; then
    logged 30 nvidia-smi
    gpu="$(timeout 30 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>>"$LOG" |
           head -1)"
  fi
  if [ "$DRY" != 1 ] && [ -z "$gpu" ] && [ -n "$PY" ]; then  # no nvidia-smi: ask PyTorch
    gpu="$(timeout 60 "$PY" -c 'import torch; print(torch.cuda.get_device_name(0) + " (seen by torch)")' 2>>"$LOG")"
  fi
  [ -n "$gpu" ] && HAVE_GPU=1
  [ "${QUIVER_GPU_CHECK_ASSUME_GPU:-0}" = 1 ] && HAVE_GPU=1
  v="$("$(cuda_root)/bin/nvcc" --version 2>/dev/null | grep -o 'release [0-9.]*' | head -1)"
  {
    echo "nproc $(nproc)"; uname -a; head -2 /etc/os-release 2>/dev/null; ldd --version 2>&1 | head -1
    cmake --version 2>&1 | head -1; ninja --version 2>&1; c++ --version 2>&1 | head -1
    echo "compute-sanitizer: $(sanitizer)"
    [ -n "$PY" ] && "$PY" -c 'import sys, numpy; print("python", sys.version.split()[0], "numpy", numpy.__version__)'
    [ -n "$PY" ] && "$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda,
                                                 "available", torch.cuda.is_available())'
    [ -f "$CARRY/manifest.json" ] && echo "carry: $(du -sh "$CARRY" | cut -f1)," \
      "made for $(grep -o '"made_for_commit": "[0-9a-f]*"' "$CARRY/manifest.json")"
  } >>"$LOG" 2>&1
  v="${v#release }"
  FIGURES[$1]="${gpu:-no GPU}; nvcc ${v:-not found}; $(nproc) cores; $(cmake --version 2>/dev/null | head -1)"
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

BUILT_TARGETS=""
stage_b() {
  local root cudnn cublas_root cmake_args=() targets=() t avail
  if ! unpack_onednn >>"$LOG" 2>&1; then RESULT[$1]="fail: could not unpack oneDNN from the carry"; return; fi
  local generator=Ninja
  command -v ninja >/dev/null || generator="Unix Makefiles"
  cmake_args=(-S "$ROOT" -B "$BUILD" -G "$generator" -DCMAKE_BUILD_TYPE=Release -DQUIVER_ONEDNN_ROOT="$WORK/onednn"
    -Dnlohmann_json_DIR="$CARRY/nlohmann_json/share/cmake/nlohmann_json" -DCatch2_DIR="$CARRY/catch2/lib/cmake/Catch2"
    -DQUIVER_FIXTURES_DIR="$WORK/no-fixtures")
  root="$(cuda_root)"
  if [ -n "$root" ]; then
    cublas_root="$(cuda_root_with_cublas "$root")"
    cudnn="$(nvidia_wheel cudnn)"
    cmake_args+=(-DQUIVER_CUDA=ON -DCUDAToolkit_ROOT="$cublas_root" -DCMAKE_CUDA_COMPILER="$cublas_root/bin/nvcc")
    # CMakeLists.txt looks for cuDNN under CUDNN_ROOT, then beside the toolkit, then the toolkit's folders.
    [ -n "$cudnn" ] && cmake_args+=(-DCUDNN_ROOT="$cudnn")
    [ -n "$cudnn" ] && export LD_LIBRARY_PATH="$cudnn/lib:$cublas_root/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    FIGURES[$1]="CUDA at $cublas_root, cuDNN at ${cudnn:-(toolkit)}"
  elif [ "$DRY" = 1 ]; then
    FIGURES[$1]="no CUDA toolkit: CPU-only configuration"
  else
    RESULT[$1]="fail: no CUDA toolkit (no nvcc on PATH, no /usr/local/cuda)"
    return
  fi
  if ! logged "$((LIMIT < 120 ? LIMIT : 120))" cmake "${cmake_args[@]}"; then
    RESULT[$1]="fail: cmake configure (see log)"
    FIGURES[$1]+="; $(grep -m1 -E 'CMake Error|Could NOT|not found' "$LOG" | cut -c1-150)"
    return
  fi
  if [ "$generator" = Ninja ]; then
    avail="$(ninja -C "$BUILD" -t targets all 2>/dev/null | cut -d: -f1)"
  else
    avail="$(make -C "$BUILD" help 2>/dev/null | sed -n 's/^\.\.\. \([^ ]*\).*/\1/p')"
  fi
  for t in quiver quiver_run_fixture quiver_bench quiver_cuda_gpu_tests quiver_cuda_host_tests \
           quiver_cuda_multi_gpu_tests; do
    grep -qx "$t" <<<"$avail" && targets+=("$t")
  done
  if logged "$LIMIT" cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}"; then
    RESULT[$1]="pass"
  else
    RESULT[$1]="fail: build (see log)"
    FIGURES[$1]+="; $(grep -m1 -E 'error|FAILED' "$LOG" | cut -c1-150)"
  fi
  BUILT_TARGETS="${targets[*]}"
  FIGURES[$1]+="; targets: ${BUILT_TARGETS}"
}

# ------------------------------------------------------------------------------------------------
# c and e. The CUDA suites (one run of the GPU suite, with Catch2's XML report)

SUITE_DIR="$BUILD/tests/engine/backends/cuda"
GPU_XML="$WORK/gpu_suite.xml"
GPU_RC=""

# Summarises a Catch2 XML report: all cases, or (with a filter regex) those whose name or tags match.
suite_summary() {  # XML [REGEX]
  "$PY" - "$1" "${2:-}" <<'EOF'
import re, sys
import xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except Exception as e:
    print("unreadable report (%s)" % type(e).__name__); sys.exit(3)
pattern = re.compile(sys.argv[2], re.I) if sys.argv[2] else None
cases = [c for c in root.iter("TestCase")
         if not pattern or pattern.search(c.get("name", "") + " " + c.get("tags", ""))]
if not cases:
    print("no matching test cases"); sys.exit(4)
def result(c):
    r = c.find("OverallResult")
    return r is not None and r.get("success") == "true", float(r.get("durationInSeconds", 0) if r is not None else 0)
failed = [c for c in cases if not result(c)[0]]
line = "%d/%d test cases pass" % (len(cases) - len(failed), len(cases))
if pattern:
    line += ": " + "; ".join("%s %s (%.2f s)" % ("ok" if c not in failed else "FAIL", c.get("name")[:70], result(c)[1])
                             for c in cases)
else:
    totals = root.find("OverallResults")  # assertions are counted for the whole run only
    if totals is not None:
        line += ", %s/%d assertions" % (totals.get("successes"),
                                        int(totals.get("successes", 0)) + int(totals.get("failures", 0)))
if failed and not pattern:
    line += "; failed: " + "; ".join(c.get("name")[:70] for c in failed[:4])
print(line)
sys.exit(1 if failed else 0)
EOF
}

# Runs the suite binary one test case at a time (after a crash took the whole report with it).
suite_case_by_case() {  # BINARY
  local name spec rc passed=0 failed=() n=0
  while IFS= read -r name; do
    [ -z "$name" ] && continue
    [ "$(left)" -lt 20 ] && break
    n=$((n + 1))
    # A Catch2 test spec: backslash escapes the characters that would separate names or start tags.
    spec="${name//\\/\\\\}"
    spec="${spec//,/\\,}"
    spec="${spec//\[/\\[}"
    spec="${spec//]/\\]}"
    logged 60 "$1" "$spec"
    rc=$?
    if [ "$rc" = 0 ]; then passed=$((passed + 1)); else failed+=("$name (exit $rc)"); fi
  done < <("$1" --list-test-names-only 2>/dev/null)
  echo "one by one: $passed/$n test cases pass${failed[0]:+; failed: ${failed[*]:0:3}}"
  [ "${#failed[@]}" = 0 ]
}

stage_c() {
  local summary host_rc multi_rc figures=""
  if [ ! -x "$SUITE_DIR/quiver_cuda_gpu_tests" ]; then
    RESULT[$1]="not run: quiver_cuda_gpu_tests was not built"
    return
  fi
  logged "$((LIMIT < 180 ? LIMIT : 180))" "$SUITE_DIR/quiver_cuda_gpu_tests" -r xml -o "$GPU_XML" --durations yes
  GPU_RC=$?
  if [ "$GPU_RC" = 77 ]; then
    RESULT[$1]="not run: no GPU"
    figures="GPU suite exit 77"
  else
    summary="$(suite_summary "$GPU_XML")"
    case $? in
      0) RESULT[$1]="pass" ;;
      1) RESULT[$1]="fail" ;;
      *) RESULT[$1]="fail: the suite exited $GPU_RC"
         summary="$summary; $(suite_case_by_case "$SUITE_DIR/quiver_cuda_gpu_tests")" ;;
    esac
    figures="GPU suite: $summary"
  fi
  if [ -x "$SUITE_DIR/quiver_cuda_host_tests" ]; then
    logged 120 "$SUITE_DIR/quiver_cuda_host_tests"
    host_rc=$?
    figures+="; host suite exit $host_rc"
    [ "$host_rc" != 0 ] && RESULT[$1]="fail: the host suite failed"
  fi
  if [ -x "$SUITE_DIR/quiver_cuda_multi_gpu_tests" ]; then
    logged 120 "$SUITE_DIR/quiver_cuda_multi_gpu_tests"
    multi_rc=$?
    figures+="; multi-GPU suite $([ "$multi_rc" = 77 ] && echo 'not run (one GPU)' || echo "exit $multi_rc")"
    [ "$multi_rc" != 0 ] && [ "$multi_rc" != 77 ] && RESULT[$1]="fail: the multi-GPU suite failed"
  fi
  FIGURES[$1]="$figures"
}

stage_e() {
  local summary
  if [ "$GPU_RC" = 77 ]; then RESULT[$1]="not run: no GPU"; return; fi
  if [ ! -s "$GPU_XML" ]; then RESULT[$1]="not run: no GPU suite report (stage c)"; return; fi
  summary="$(suite_summary "$GPU_XML" \
    'concurren|async|thread|stream|graph|callback|parallel|OnReady|batching|clients|\[multi')"
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
  "$PY" "$ROOT/tests/gpu/regen_params.py" "$CARRY/fixtures/$1-recipe.json" "$FIXTURE_WORK/$1-0000.params" >>"$LOG" 2>&1
}

stage_d() {
  local devices="gpu(0),cpu" summary
  if [ ! -x "$RUNNER" ]; then RESULT[$1]="not run: quiver_run_fixture was not built"; return; fi
  [ "$HAVE_GPU" = 1 ] || devices="cpu"
  logged "$((LIMIT < 150 ? LIMIT : 150))" "$PY" "$ROOT/tests/gpu/check_fixtures.py" --fixtures "$CARRY/fixtures" \
    --runner "$RUNNER" --devices "$devices" --work "$FIXTURE_WORK" --json "$WORK/fixtures.json"
  local rc=$?
  summary="$(grep -E '^(gpu\(0\)|cpu): [0-9]+/' "$LOG" | tail -2 | tr '\n' ';')"
  summary+=" $(grep -E ' (cpu|gpu\(0\)) vs (cpu|gpu\(0\)) ' "$LOG" | awk '{print $NF}' | sort -g | tail -1 |
                sed 's/^/worst cpu vs gpu: /')"
  [ -n "${summary// /}" ] || summary="$(tail -1 "$LOG" | cut -c1-200)"
  # The first failure's reason (check_fixtures.py prints FAIL MODEL SHAPE DEVICE reason).
  [ "$rc" != 0 ] && summary+="; first failure: $(grep -m1 '^FAIL' "$LOG" | tr -s ' ' | cut -c1-220)"
  FIGURES[$1]="$summary"
  if [ "$HAVE_GPU" != 1 ]; then
    RESULT[$1]="not run: no GPU (cpu $([ "$rc" = 0 ] && echo pass || echo FAIL))"
  else
    RESULT[$1]="$([ "$rc" = 0 ] && echo pass || echo fail)"
  fi
}

stage_f() {
  local errors rc figures="" ok=1 model input
  if [ "$HAVE_GPU" != 1 ]; then RESULT[$1]="not run: no GPU"; return; fi
  local cs
  cs="$(sanitizer)"
  if [ -z "$cs" ]; then RESULT[$1]="not run: no compute-sanitizer"; return; fi
  for model in digits_cnn:digits_cnn-in-16x1x8x8.npy mobilenetv2_0.25:mobilenetv2_0.25-in-1x3x64x64.npy; do
    input="${model#*:}"
    model="${model%%:*}"
    fixture_model "$model"
    # The second model only while the benchmark (stage g, last) keeps most of what is left.
    [ "$model" = digits_cnn ] || [ "$(left)" -ge 240 ] || { figures+="$model: not run (time budget); "; break; }
    logged 90 "$cs" --tool memcheck --error-exitcode 99 \
      "$RUNNER" --prefix "$FIXTURE_WORK/$model" --device "gpu(0)" --input "$CARRY/fixtures/$input" \
      --out "$WORK/memcheck-$model" --repeat 2
    rc=$?
    errors="$(grep -o 'ERROR SUMMARY: [0-9]* error' "$LOG" | tail -1 | grep -o '[0-9]*')"
    figures+="$model: exit $rc, ${errors:-?} errors; "
    [ "$rc" = 0 ] && [ "${errors:-1}" = 0 ] || ok=0
  done
  FIGURES[$1]="$figures"
  RESULT[$1]="$([ "$ok" = 1 ] && echo pass || echo fail)"
}

stage_h() {
  local bench="$BUILD/bench/quiver_bench" prefix="$FIXTURE_WORK/resnet18_v1" plain batched ratio iters=20
  if [ ! -x "$bench" ]; then RESULT[$1]="not run: quiver_bench was not built"; return; fi
  fixture_model resnet18_v1
  [ "$(nproc)" -lt 8 ] && iters=5
  local run=("$bench" --prefix "$prefix" --device cpu --clients 16 --batch 1 --iters "$iters" --warmup 3)
  plain="$(timeout 120 "${run[@]}" 2>>"$LOG")"
  echo "$plain" >>"$LOG"
  batched="$(timeout 120 "${run[@]}" --option max_batch_size=16 --option batch_timeout_us=2000 2>>"$LOG")"
  echo "$batched" >>"$LOG"
  ratio="$("$PY" - "$plain" "$batched" 2>>"$LOG" <<'EOF'
import json, sys
a, b = (json.loads(s)["throughput_per_s"] for s in sys.argv[1:3])
print("%.1f -> %.1f img/s, %.2fx" % (a, b, b / a))
EOF
)"
  if [ -z "$ratio" ]; then
    RESULT[$1]="fail: a run failed (see log)"
    return
  fi
  FIGURES[$1]="ResNet-18 224x224, $(nproc) cores: $ratio (target >= 1.3x at 16 cores)"
  if "$PY" -c 'import sys; sys.exit(0 if float(sys.argv[1].rstrip("x")) >= 1.3 else 1)' "${ratio##* }"; then
    RESULT[$1]="pass"
  else
    RESULT[$1]="fail: below 1.3x"
  fi
  [ "$(nproc)" -lt 16 ] && RESULT[$1]+=" ($(nproc) cores: not the target machine)"
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
  [ -n "${FIGURES[$1]}" ] || FIGURES[$1]="$(grep -v '^+ ' "$LOG" | tail -1 | cut -c1-200)"
  case $rc in
    0) RESULT[$1]="pass: every target met" ;;
    1) RESULT[$1]="fail: targets not met (see table)" ;;
    *) RESULT[$1]="fail: exit $rc" ;;
  esac
}

# ------------------------------------------------------------------------------------------------

say "budget $BUDGET s, work $WORK, out $OUT$([ "$DRY" = 1 ] && echo ', DRY RUN')"
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
