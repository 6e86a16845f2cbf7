#include "common/fault_injection.h"

#include <atomic>
#include <string>

#include "common/error.h"

namespace qv::fault {
namespace {

constexpr int kSites = 2;

struct SiteState {
  std::atomic<bool> armed{false};
  std::atomic<uint64_t> hits{0};
  std::atomic<uint64_t> target{0};
  std::atomic<Status> status{Status::kInternal};
};
SiteState g_sites[kSites];

SiteState& StateOf(Site site) { return g_sites[static_cast<int>(site)]; }

const char* NameOf(Site site) { return site == Site::kAllocation ? "allocation" : "kernel"; }

}  // namespace

void Arm(Site site, uint64_t countdown, Status status) {
  SiteState& s = StateOf(site);
  s.armed = false;
  s.hits = 0;
  s.target = countdown;
  s.status = status;
  s.armed = true;
}

void Disarm() {
  for (SiteState& s : g_sites) s.armed = false;
}

uint64_t Hits(Site site) { return StateOf(site).hits.load(); }

void Hit(Site site) {
  SiteState& s = StateOf(site);
  if (!s.armed.load(std::memory_order_relaxed)) return;
  // Exactly one hit sees the target count, however many threads pass here at once.
  if (s.hits.fetch_add(1) + 1 != s.target.load()) return;
  s.armed = false;
  throw Error(s.status.load(), std::string("injected fault (test hook) at a ") + NameOf(site));
}

}  // namespace qv::fault
