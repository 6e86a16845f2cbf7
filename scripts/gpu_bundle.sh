#!/usr/bin/env bash
# Builds .gpu-carry/: what the GPU machine lacks to build and check Quiver (scripts/gpu_check.sh), small
# enough to travel beside the working tree (the device tool carries at most 64 MiB in all). Prints its
# size and path last; fails if the carry is over 56 MiB or the carry and the tree over 62 MiB.
#
#   bash scripts/gpu_bundle.sh       # then, with the device tool: run, carry [".gpu-carry"],
#                                    # command "bash scripts/gpu_check.sh" (see docs/gpu.rst)
#
# Contents (manifest.json lists every file with its size and SHA-256):
#   onednn/    oneDNN 3.7 as scripts/build_onednn.sh builds it (static, CPU-only, threadpool runtime):
#              include/, lib/cmake/dnnl/, the licence, and lib/libdnnl.a.xz (debug sections stripped,
#              xz: 144 MiB -> about 11 MiB; gpu_check.sh unpacks it, with python3's lzma if xz is missing)
#   nlohmann_json/, catch2/   Debian 12's nlohmann-json3-dev 3.11 and catch2 2.13 (headers, CMake
#                             configs, licences; Catch2's config insists that its libCatch2WithMain.a
#                             exists, so that comes too, unused)
#   fixtures/  tests/gpu/make_fixtures.sh's GPU fixtures (recipes, inputs, MXNet's outputs: no weights)
#
# Portability: everything here is headers, CMake files written relative to their own location, data,
# and one static archive of position-independent x86-64 objects that GCC 12 compiled against glibc 2.36
# and libstdc++ 12 (Debian 12). A newer GCC and glibc (the GPU machine's Ubuntu) link it; an older
# glibc or libstdc++ than Debian 12's may not. oneDNN picks its kernels per CPU at run time (JIT), so
# the archive is not tied to this machine's CPU. No shared library and no executable is carried.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

MAX_CARRY_MIB=56
MAX_TOTAL_MIB=62
carry=.gpu-carry
tmp="$(mktemp -d "$PWD/.gpu-carry.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
log() { echo "gpu_bundle: $*" >&2; }

onednn="$(bash scripts/build_onednn.sh)"
fixtures="$(bash tests/gpu/make_fixtures.sh)"
bash scripts/install_deps.sh >&2  # nlohmann-json3-dev and catch2, as the build uses them here

log "oneDNN from $onednn"
mkdir -p "$tmp/onednn/lib/cmake" "$tmp/onednn/share"
cp -a "$onednn/include" "$tmp/onednn/"
cp -a "$onednn/lib/cmake/dnnl" "$tmp/onednn/lib/cmake/"
cp -a "$onednn/share/doc" "$tmp/onednn/share/"
cp -a "$onednn/manifest.json" "$tmp/onednn/"
strip --strip-debug -o "$tmp/onednn/lib/libdnnl.a" "$onednn/lib/libdnnl.a"
xz -T2 -6 "$tmp/onednn/lib/libdnnl.a"

log "nlohmann/json and Catch2 from Debian's packages"
mkdir -p "$tmp/nlohmann_json/include" "$tmp/nlohmann_json/share/cmake" "$tmp/nlohmann_json/share/doc"
cp -a /usr/include/nlohmann "$tmp/nlohmann_json/include/"
cp -a /usr/share/cmake/nlohmann_json "$tmp/nlohmann_json/share/cmake/"
cp /usr/share/doc/nlohmann-json3-dev/copyright "$tmp/nlohmann_json/share/doc/copyright"
mkdir -p "$tmp/catch2/include" "$tmp/catch2/lib/cmake" "$tmp/catch2/share/doc"
cp -a /usr/include/catch2 "$tmp/catch2/include/"
cp -a /usr/lib/cmake/Catch2 "$tmp/catch2/lib/cmake/"
cp /usr/lib/libCatch2WithMain.a "$tmp/catch2/lib/"
cp /usr/share/doc/catch2/copyright "$tmp/catch2/share/doc/copyright"

log "GPU fixtures from $fixtures"
mkdir -p "$tmp/fixtures"
cp "$fixtures"/manifest.json "$fixtures"/*.npy "$fixtures"/*-symbol.json "$fixtures"/*-recipe.json "$tmp/fixtures/"

# The manifest: versions, the commit it was made for, every file.
debs="$(dpkg-query -W -f '${Package} ${Version}; ' nlohmann-json3-dev catch2)"
python3 - "$tmp" "$(git rev-parse HEAD)" "$debs" <<'EOF'
import hashlib, json, os, platform, sys
root, commit, debs = sys.argv[1], sys.argv[2], sys.argv[3]
files = {}
for d, _, names in os.walk(root):
    for n in sorted(names):
        p = os.path.join(d, n)
        with open(p, "rb") as f:
            files[os.path.relpath(p, root)] = {"bytes": os.path.getsize(p), "sha256": hashlib.sha256(f.read()).hexdigest()}
manifest = {"made_for_commit": commit, "made_on": platform.platform(), "glibc": platform.libc_ver()[1],
            "debian_packages": debs.strip("; "),
            "onednn": json.load(open(os.path.join(root, "onednn/manifest.json"))),
            "fixtures_generator_sha256": json.load(open(os.path.join(root, "fixtures/manifest.json")))["generator_sha256"],
            "files": dict(sorted(files.items()))}
json.dump(manifest, open(os.path.join(root, "manifest.json"), "w"), indent=1)
EOF

rm -rf "$carry"
mv "$tmp" "$carry"
trap - EXIT

carry_kib="$(du -sk "$carry" | cut -f1)"
# What else travels: tracked files and untracked ones git does not ignore.
tree_kib="$(git ls-files -z --cached --others --exclude-standard | xargs -0 du -skc 2>/dev/null | tail -1 | cut -f1)"
log "carry $((carry_kib / 1024)) MiB ($carry_kib KiB), working tree $((tree_kib / 1024)) MiB ($tree_kib KiB)"
if [ "$carry_kib" -gt $((MAX_CARRY_MIB * 1024)) ] || [ $((carry_kib + tree_kib)) -gt $((MAX_TOTAL_MIB * 1024)) ]; then
  log "ERROR: too big to carry (limits: carry $MAX_CARRY_MIB MiB, carry + tree $MAX_TOTAL_MIB MiB; the tool's is 64)"
  exit 1
fi
echo "$(du -sh "$carry" | cut -f1) $PWD/$carry"
