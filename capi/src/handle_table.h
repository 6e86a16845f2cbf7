// The live handles of one kind and the objects behind them.
//
// A handle's value is a token, never a pointer the runtime dereferences: tokens are drawn from one
// process-wide counter and never reused, so a freed, double-freed or made-up handle is recognised and
// refused (Status::kInvalidArgument) instead of touching freed memory, and a stale handle can never
// alias a newer object. Lookups return a strong reference, so an object stays alive for the whole call
// that looked it up even if another thread frees its handle meanwhile.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>

#include "common/error.h"

namespace qv::capi {

// The next unused token (a multiple of 16, so that handles look like the pointers they stand for).
uintptr_t NextHandleToken();

template <typename Handle, typename Object>
class HandleTable {
 public:
  // A new handle for `object`, held once (by the caller, until Free).
  Handle Add(std::shared_ptr<Object> object) {
    const Handle h = reinterpret_cast<Handle>(NextHandleToken());
    std::lock_guard<std::mutex> lock(mu_);
    entries_.emplace(h, Entry{std::move(object), 1, false});
    return h;
  }

  // The object behind a live handle; throws Status::kInvalidArgument naming `what` for NULL or a handle
  // that is not live.
  std::shared_ptr<Object> Get(Handle h, const char* what) {
    std::lock_guard<std::mutex> lock(mu_);
    return Find(h, what)->second.object;
  }

  // An extra hold (an OnReady callback's): the handle stays valid until Release, even after Free.
  void Retain(Handle h, const char* what) {
    std::lock_guard<std::mutex> lock(mu_);
    ++Find(h, what)->second.holds;
  }
  void Release(Handle h) {
    std::shared_ptr<Object> last;  // destroyed after the lock is released
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(h);
    if (it != entries_.end()) last = DropHold(it);
  }

  // The caller's release of the handle: a second Free of the same handle fails, naming `what`.
  void Free(Handle h, const char* what) {
    std::shared_ptr<Object> last;  // destroyed after the lock is released
    std::lock_guard<std::mutex> lock(mu_);
    auto it = Find(h, what);
    if (it->second.freed) throw NotLive(h, what);
    it->second.freed = true;
    last = DropHold(it);
  }

 private:
  struct Entry {
    std::shared_ptr<Object> object;
    int holds;
    bool freed;
  };
  using Map = std::unordered_map<Handle, Entry>;

  static Error NotLive(Handle h, const char* what) {
    std::ostringstream text;
    text << what << " handle " << static_cast<const void*>(h)
         << " is not live: it was already freed, or was never returned by Quiver";
    return Error(Status::kInvalidArgument, text.str());
  }

  // Drops one hold (the caller holds mu_); after the last, removes the entry and returns the object
  // so that the caller destroys it once mu_ is released: an array's release callback may call back
  // into the C API, which would take mu_ again.
  std::shared_ptr<Object> DropHold(typename Map::iterator it) {
    if (--it->second.holds > 0) return nullptr;
    std::shared_ptr<Object> last = std::move(it->second.object);
    entries_.erase(it);
    return last;
  }

  typename Map::iterator Find(Handle h, const char* what) {
    if (h == nullptr) throw Error(Status::kInvalidArgument, std::string(what) + " is NULL");
    auto it = entries_.find(h);
    if (it == entries_.end()) throw NotLive(h, what);
    return it;
  }

  std::mutex mu_;
  Map entries_;
};

}  // namespace qv::capi
