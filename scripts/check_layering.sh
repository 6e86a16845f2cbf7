#!/usr/bin/env bash
# The backend seam, checked: no engine file above engine/backends/ (nor the Backend interface itself,
# nor the C API) names oneDNN, OpenMP or CUDA, or includes a backend's implementation. Comments and
# string literals (flag names) may mention them; code may not. Prints each offending line and exits 1,
# or says what it checked.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Every layer of engine/layers.txt but the backends' folder (whose interface files are added below).
layers=$(grep -E '^[a-z_]+$' engine/layers.txt | grep -vx backends | sed 's|^|engine/|')
files=$(find $layers capi -name '*.h' -o -name '*.cc' | sort)
files="$files $(ls engine/backends/*.h engine/backends/*.cc)"
pattern='\bdnnl|oneapi/|<omp\.h>|\bomp_[a-z]|#pragma +omp|\bcuda[A-Z_]|cuda_runtime|\bcudnn|\bcublas|\bCUDA::|backends/(cpu|cuda)/'
found=0
for f in $files; do
  # Drop // comments (and whole-line /* */ comment lines), and string literals outside #include lines
  # (a flag's name, "cuda_graphs", is no use of CUDA), before looking.
  if hits=$(sed -e 's|//.*$||' -e 's|^\s*/\?\*.*$||' -e '/^\s*#\s*include/!s|"[^"]*"|""|g' "$f" |
            grep -nE "$pattern"); then
    echo "$f: names a backend's library above engine/backends/:"
    echo "$hits" | sed 's/^/  /'
    found=1
  fi
done
if [ "$found" -ne 0 ]; then exit 1; fi
echo "check_layering: $(echo $files | wc -w) files above engine/backends/ name no oneDNN, OpenMP or CUDA type"
