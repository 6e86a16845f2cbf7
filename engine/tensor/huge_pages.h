// Host buffers (arrays, plan workspaces, scratchpads, a model's packed parameters) aligned for SIMD, and
// the large ones backed by 2 MiB transparent huge pages where the kernel offers them to memory that asks
// (THP "madvise" or "always").
//
// Why: at batch 1 the wide layers of a CNN read megabytes of weights that no cache kept since the last
// run (ResNet-18's 512-channel convolutions: 9.4 MB each), and with 4 KiB pages every 4 KiB of them costs
// a TLB miss and a page walk. That convolution read cold weights from 2 MiB pages about 20% faster; whole
// models ran up to 10% faster on a loaded host, 0-4% on a quiet one (docs/performance.rst, "Huge pages").
#pragma once

#include <cstddef>

namespace qv {

// Buffers smaller than this come from the heap: a huge page would not fit inside them.
constexpr size_t kHugePageBytes = size_t{2} << 20;

// At least `bytes` (> 0) bytes aligned to 64, or nullptr when the system has no memory for them; freed
// with std::free. Buffers of kHugePageBytes or more start on a huge-page boundary and the whole huge
// pages inside them are advised MADV_HUGEPAGE.
void* AllocateLarge(size_t bytes);

}  // namespace qv
