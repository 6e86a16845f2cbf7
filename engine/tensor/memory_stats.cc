#include "tensor/memory_stats.h"

#include <atomic>

namespace qv::memory_stats {
namespace {
std::atomic<int64_t> g_bytes{0};
std::atomic<int64_t> g_arrays{0};
}  // namespace

void AddBytes(int64_t bytes) { g_bytes.fetch_add(bytes, std::memory_order_relaxed); }
void RemoveBytes(int64_t bytes) { g_bytes.fetch_sub(bytes, std::memory_order_relaxed); }
void ArrayCreated() { g_arrays.fetch_add(1, std::memory_order_relaxed); }
void ArrayDestroyed() { g_arrays.fetch_sub(1, std::memory_order_relaxed); }
uint64_t BytesInUse() { return static_cast<uint64_t>(g_bytes.load(std::memory_order_relaxed)); }
uint64_t ArraysAlive() { return static_cast<uint64_t>(g_arrays.load(std::memory_order_relaxed)); }

}  // namespace qv::memory_stats
