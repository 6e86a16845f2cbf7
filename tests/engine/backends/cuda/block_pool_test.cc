// BlockPool's caching, rounding and out-of-memory behaviour over a host allocator that counts calls
// and can be made to fail.
#include "backends/cuda/runtime/block_pool.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>
#include <thread>
#include <vector>

#include "common/error.h"

namespace qv::cuda {
namespace {

struct FakeDevice {
  size_t capacity = SIZE_MAX;  // bytes it can hold at once
  size_t held = 0;
  int allocations = 0, frees = 0;
  std::map<void*, size_t> blocks;

  BlockPool::Allocator allocator() {
    return {[this](size_t bytes) -> void* {
              if (held + bytes > capacity) return nullptr;
              void* p = std::malloc(bytes);
              held += bytes;
              ++allocations;
              blocks[p] = bytes;
              return p;
            },
            [this](void* p) {
              ++frees;
              held -= blocks.at(p);
              blocks.erase(p);
              std::free(p);
            }};
  }
};

TEST_CASE("BlockPool rounds sizes so nearby requests share blocks", "[cuda][block_pool]") {
  CHECK(BlockPool::RoundedSize(1) == 512);
  CHECK(BlockPool::RoundedSize(512) == 512);
  CHECK(BlockPool::RoundedSize(513) == 1024);
  CHECK(BlockPool::RoundedSize(size_t{1} << 20) == size_t{1} << 20);
  CHECK(BlockPool::RoundedSize((size_t{1} << 20) + 1) == size_t{2} << 20);
  CHECK(BlockPool::RoundedSize((size_t{5} << 20) + 7) == size_t{6} << 20);
  CHECK_THROWS_AS(BlockPool::RoundedSize(SIZE_MAX - 3), Error);
}

TEST_CASE("BlockPool serves repeated requests from its cache", "[cuda][block_pool]") {
  FakeDevice device;
  BlockPool pool("fake memory", device.allocator());
  for (int round = 0; round < 100; ++round) {
    void* a = pool.Acquire(1000);
    void* b = pool.Acquire(3 << 20);
    void* c = pool.Acquire(900);  // same rounded size as a, a distinct block while a is held
    CHECK(a != c);
    pool.Release(a);
    pool.Release(b);
    pool.Release(c);
  }
  CHECK(device.allocations == 3);
  const BlockPool::Stats stats = pool.stats();
  CHECK(stats.allocator_calls == 3);
  CHECK(stats.reuses == 297);
  CHECK(stats.in_use_bytes == 0);
  CHECK(stats.cached_bytes == 1024 + 1024 + (size_t{4} << 20));
  pool.Trim();
  CHECK(device.frees == 3);
  CHECK(pool.stats().cached_bytes == 0);
}

TEST_CASE("BlockPool hands its cache back and retries when the allocator fails", "[cuda][block_pool]") {
  FakeDevice device;
  device.capacity = size_t{8} << 20;
  BlockPool pool("fake memory", device.allocator());
  void* big = pool.Acquire(6 << 20);
  pool.Release(big);  // cached: the device is still 6 MiB full
  void* other = pool.Acquire(4 << 20);  // fails, trims the cached block, succeeds on the retry
  CHECK(device.frees == 1);
  CHECK(pool.stats().in_use_bytes == size_t{4} << 20);
  pool.Release(other);
}

TEST_CASE("BlockPool names itself and the size when memory runs out", "[cuda][block_pool]") {
  FakeDevice device;
  device.capacity = size_t{2} << 20;
  BlockPool pool("gpu(3) memory", device.allocator());
  try {
    pool.Acquire(size_t{10} << 20);
    FAIL("expected an out-of-memory error");
  } catch (const Error& e) {
    CHECK(e.status() == qv::Status::kOutOfMemory);
    CHECK_THAT(e.what(), Catch::Contains("gpu(3) memory") && Catch::Contains("10485760"));
  }
  CHECK(pool.stats().in_use_bytes == 0);
}

TEST_CASE("BlockPool refuses blocks it did not hand out", "[cuda][block_pool]") {
  FakeDevice device;
  BlockPool pool("fake memory", device.allocator());
  int not_a_block = 0;
  CHECK_THROWS_AS(pool.Release(&not_a_block), Error);
  void* a = pool.Acquire(10);
  pool.Release(a);
  CHECK_THROWS_AS(pool.Release(a), Error);  // a double release
  CHECK_THROWS_AS(pool.Acquire(0), Error);
}

TEST_CASE("BlockPool is safe to share between threads", "[cuda][block_pool]") {
  FakeDevice device;
  BlockPool pool("fake memory", device.allocator());
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&pool, t] {
      for (int i = 0; i < 2000; ++i) {
        void* block = pool.Acquire(static_cast<size_t>(100 + (i % 4) * 600 + t));
        static_cast<char*>(block)[0] = static_cast<char>(i);
        pool.Release(block);
      }
    });
  for (auto& th : threads) th.join();
  const BlockPool::Stats stats = pool.stats();
  CHECK(stats.in_use_bytes == 0);
  CHECK(stats.allocator_calls + stats.reuses == 16000);
  CHECK(stats.allocator_calls <= 8 * 4);  // at most one block per thread and size class
}

}  // namespace
}  // namespace qv::cuda
