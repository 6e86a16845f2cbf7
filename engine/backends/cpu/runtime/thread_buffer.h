// A buffer owned by one thread and grown to the largest size asked of it on that thread: a kernel's
// temporary memory, reused by every kernel that thread runs (counted in the memory statistics).
#pragma once

#include <cstddef>

namespace qv::cpu {

class ThreadBuffer {
 public:
  ThreadBuffer() = default;
  ~ThreadBuffer() { Reset(0); }
  ThreadBuffer(const ThreadBuffer&) = delete;
  ThreadBuffer& operator=(const ThreadBuffer&) = delete;

  // At least `bytes`, 64-byte aligned; valid until the next Get on this buffer. Throws kOutOfMemory.
  void* Get(size_t bytes) {
    if (bytes > size_) Reset(bytes);
    return data_;
  }

 private:
  void Reset(size_t bytes);
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace qv::cpu
