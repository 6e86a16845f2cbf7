#include "scheduler/invocation_control.h"

#include <catch2/catch.hpp>
#include <limits>
#include <thread>
#include <vector>

using namespace qv;
using namespace std::chrono_literals;

TEST_CASE("a pending invocation can be cancelled once; the finisher hears of it once", "[scheduler][control]") {
  InvocationControl c;
  std::vector<Status> heard;
  REQUIRE(c.SetFinisher([&](const Failure& f) { heard.push_back(f.status); }));
  REQUIRE(c.Check().ok());
  REQUIRE(c.Cancel());
  REQUIRE_FALSE(c.Cancel());
  REQUIRE(c.Check().status == Status::kCancelled);
  REQUIRE_FALSE(c.Claim());
  c.Finish({});  // too late: it ended
  REQUIRE(heard == std::vector<Status>{Status::kCancelled});
  REQUIRE_FALSE(c.SetFinisher([](const Failure&) {}));
}

TEST_CASE("a claimed invocation can no longer be cancelled and delivers its result", "[scheduler][control]") {
  InvocationControl c;
  std::vector<Status> heard;
  REQUIRE(c.SetFinisher([&](const Failure& f) { heard.push_back(f.status); }));
  REQUIRE(c.Claim());
  REQUIRE_FALSE(c.Cancel());
  REQUIRE(c.Check().ok());
  c.Finish({});
  REQUIRE(heard == std::vector<Status>{Status::kOk});
}

TEST_CASE("a passed deadline ends the invocation with Status::kDeadlineExceeded", "[scheduler][control]") {
  // Alive is asked about the moment before creation, not "now": a thread descheduled for 2 ms (a loaded
  // machine) would otherwise find the deadline passed already.
  const auto before_creation = InvocationControl::Clock::now();
  InvocationControl c(2000);  // 2 ms
  std::vector<Failure> heard;
  REQUIRE(c.SetFinisher([&](const Failure& f) { heard.push_back(f); }));
  REQUIRE(c.has_deadline());
  REQUIRE(c.Alive(before_creation));
  std::this_thread::sleep_for(5ms);
  REQUIRE_FALSE(c.Alive(InvocationControl::Clock::now()));
  REQUIRE(heard.empty());  // Alive changes nothing
  REQUIRE_FALSE(c.Claim());
  REQUIRE(heard.size() == 1);
  REQUIRE(heard[0].status == Status::kDeadlineExceeded);
  REQUIRE(heard[0].message.find("2000 us") != std::string::npos);
  REQUIRE_FALSE(c.Cancel());
}

TEST_CASE("finishing a pending invocation past its deadline reports the deadline, not the result", "[scheduler][control]") {
  InvocationControl c(1000);
  Failure heard;
  REQUIRE(c.SetFinisher([&](const Failure& f) { heard = f; }));
  std::this_thread::sleep_for(3ms);
  c.Finish({Status::kInternal, "the batch failed"});
  REQUIRE(heard.status == Status::kDeadlineExceeded);
}

TEST_CASE("a deadline too far away to count in the clock's units is far away, not passed", "[scheduler][control]") {
  for (int64_t us : {std::numeric_limits<int64_t>::max(), int64_t{1} << 62, int64_t{9'300'000'000'000'000}}) {
    InvocationControl c(us);
    REQUIRE(c.has_deadline());
    REQUIRE(c.Alive(InvocationControl::Clock::now()));
    REQUIRE(c.Claim());
  }
}

TEST_CASE("ThrowIfEnded throws the ending as an Error; no deadline never expires", "[scheduler][control]") {
  InvocationControl c;
  REQUIRE_FALSE(c.has_deadline());
  REQUIRE_NOTHROW(c.ThrowIfEnded());
  c.Cancel();
  try {
    c.ThrowIfEnded();
    FAIL("no throw");
  } catch (const Error& e) {
    REQUIRE(e.status() == Status::kCancelled);
  }
}

TEST_CASE("Cancel and Claim racing from two threads: exactly one wins", "[scheduler][control]") {
  for (int i = 0; i < 200; ++i) {
    InvocationControl c;
    bool cancelled = false, claimed = false;
    std::thread a([&] { cancelled = c.Cancel(); });
    std::thread b([&] { claimed = c.Claim(); });
    a.join();
    b.join();
    REQUIRE(cancelled != claimed);
  }
}

TEST_CASE("a taken finisher is no longer called when the invocation ends", "[scheduler][control]") {
  InvocationControl c;
  int heard = 0;
  REQUIRE(c.SetFinisher([&](const Failure&) { ++heard; }));
  InvocationControl::Finisher taken;
  REQUIRE(c.TakeFinisher(&taken));
  REQUIRE(taken);
  REQUIRE(c.Cancel());  // still cancels
  REQUIRE(heard == 0);  // but reports nothing: the taker does
  taken(c.Check());
  REQUIRE(heard == 1);
  InvocationControl::Finisher again;
  REQUIRE_FALSE(c.TakeFinisher(&again));  // ended
  REQUIRE_FALSE(again);
}
