// Process-wide counters of native memory held by the runtime (QvGetMemoryStats).
#pragma once

#include <cstdint>

namespace qv::memory_stats {

void AddBytes(int64_t bytes);
void RemoveBytes(int64_t bytes);
void ArrayCreated();
void ArrayDestroyed();
uint64_t BytesInUse();
uint64_t ArraysAlive();

}  // namespace qv::memory_stats
