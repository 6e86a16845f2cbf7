#include "batching/request_queue.h"

#include <catch2/catch.hpp>

using namespace qv;
using namespace std::chrono_literals;
using Clock = Request::Clock;

namespace {

RequestPtr MakeRequest(int64_t rows, Shape trailing, int priority = 0, int64_t deadline_us = 0) {
  auto r = std::make_shared<Request>();
  r->rows = rows;
  r->group = {trailing};
  r->priority = priority;
  r->control = std::make_shared<InvocationControl>(deadline_us);
  return r;
}

BatchingOptions Options(int max_batch_size, int64_t timeout_us) {
  BatchingOptions o;
  o.enabled = true;
  o.max_batch_size = max_batch_size;
  o.batch_timeout_us = timeout_us;
  return o;
}

}  // namespace

TEST_CASE("a batch runs when full, or when its oldest request has waited the timeout", "[batching]") {
  RequestQueue q(Options(4, 1000));
  const auto t0 = Clock::now();
  for (int i = 0; i < 3; ++i) q.Add(MakeRequest(1, {3}), t0);
  REQUIRE(q.TakeBatch(t0, false).empty());  // 3 of 4 rows, no time passed
  Clock::time_point when;
  REQUIRE(q.NextEvent(true, &when));
  REQUIRE(when == t0 + 1000us);
  REQUIRE_FALSE(q.NextEvent(false, &when));  // no free run and no deadline: nothing to wake for
  REQUIRE(q.TakeBatch(t0 + 999us, false).empty());
  REQUIRE(q.TakeBatch(t0 + 1000us, false).size() == 3);
  REQUIRE(q.empty());

  for (int i = 0; i < 5; ++i) q.Add(MakeRequest(1, {3}), t0);
  REQUIRE(q.TakeBatch(t0, false).size() == 4);  // full: at once, never above max_batch_size
  REQUIRE(q.size() == 1);
  REQUIRE(q.TakeBatch(t0, true).size() == 1);  // flush: whatever is there
}

TEST_CASE("a batch that is not full waits while a run of its shapes goes, then the timeout from its end",
          "[batching]") {
  RequestQueue q(Options(4, 1000));
  const auto t0 = Clock::now();
  q.Add(MakeRequest(1, {3}), t0);
  q.Add(MakeRequest(1, {3}), t0);
  const auto first = q.TakeBatch(t0 + 1000us, false);
  REQUIRE(first.size() == 2);  // timed out, nothing running
  REQUIRE(q.empty());
  q.Add(MakeRequest(1, {3}), t0 + 1100us);  // missed that batch
  q.Add(MakeRequest(1, {5}), t0 + 1100us);  // other shapes: not held back by the {3} run
  REQUIRE(q.TakeBatch(t0 + 5000us, false).size() == 1);  // the {5} one
  REQUIRE(q.TakeBatch(t0 + 5000us, false).empty());       // {3} waits for its run, long past its timeout
  Clock::time_point when;
  REQUIRE_FALSE(q.NextEvent(true, &when));  // the run's end wakes the dispatcher, not a timer
  REQUIRE(q.TakeBatch(t0 + 5000us, true).size() == 1);  // flush: no waiting
  q.Add(MakeRequest(1, {3}), t0 + 5100us);
  q.RunEnded({{3}}, t0 + 5500us);  // the flushed run
  REQUIRE(q.TakeBatch(t0 + 5900us, false).empty());  // the first run still goes
  q.RunEnded({{3}}, t0 + 6000us);
  REQUIRE(q.TakeBatch(t0 + 6500us, false).empty());  // the timeout counts from the run's end
  REQUIRE(q.NextEvent(true, &when));
  REQUIRE(when == t0 + 7000us);
  for (int i = 0; i < 3; ++i) q.Add(MakeRequest(1, {3}), t0 + 6200us);  // the first batch's clients are back
  REQUIRE(q.TakeBatch(t0 + 6200us, false).size() == 4);  // full: at once, even with runs going
  q.RunEnded({{3}}, t0 + 7000us);
  q.RunEnded({{5}}, t0 + 7000us);
  REQUIRE(q.empty());
  REQUIRE_FALSE(q.NextEvent(true, &when));
}

TEST_CASE("requests with other shapes beyond axis 0 never share a batch", "[batching]") {
  RequestQueue q(Options(8, 0));
  const auto t0 = Clock::now();
  q.Add(MakeRequest(1, {3, 16}), t0);
  q.Add(MakeRequest(2, {3, 8}), t0);
  q.Add(MakeRequest(3, {3, 16}), t0);
  auto first = q.TakeBatch(t0, false);
  auto second = q.TakeBatch(t0, false);
  REQUIRE(first.size() + second.size() == 3);
  for (const auto* batch : {&first, &second})
    for (const auto& r : *batch) REQUIRE(r->group == batch->front()->group);
  REQUIRE(q.empty());
}

TEST_CASE("rows add up to max_batch_size; a larger request runs alone", "[batching]") {
  RequestQueue q(Options(4, 0));
  const auto t0 = Clock::now();
  q.Add(MakeRequest(3, {2}), t0);
  q.Add(MakeRequest(2, {2}), t0);
  q.Add(MakeRequest(6, {2}), t0);
  auto a = q.TakeBatch(t0, false);
  REQUIRE(a.size() == 1);  // 3 + 2 > 4
  REQUIRE(a[0]->rows == 3);
  auto b = q.TakeBatch(t0, false);
  REQUIRE(b.size() == 1);
  REQUIRE(b[0]->rows == 2);  // 2 + 6 > 4
  auto c = q.TakeBatch(t0, false);
  REQUIRE(c.size() == 1);
  REQUIRE(c[0]->rows == 6);
}

TEST_CASE("higher priority goes first, then arrival order", "[batching]") {
  RequestQueue q(Options(2, 0));
  const auto t0 = Clock::now();
  auto low = MakeRequest(1, {1}, 0), mid = MakeRequest(1, {1}, 5), high = MakeRequest(1, {1}, 9),
       mid2 = MakeRequest(1, {1}, 5);
  q.Add(low, t0);
  q.Add(mid, t0);
  q.Add(high, t0);
  q.Add(mid2, t0);
  auto first = q.TakeBatch(t0, false);
  auto second = q.TakeBatch(t0, false);
  REQUIRE(first == std::vector<RequestPtr>{high, mid});
  REQUIRE(second == std::vector<RequestPtr>{mid2, low});
}

TEST_CASE("cancelled and expired requests leave the queue; deadlines wake the dispatcher", "[batching]") {
  RequestQueue q(Options(8, 1000000));
  const auto t0 = Clock::now();
  auto keep = MakeRequest(1, {1}), cancel = MakeRequest(1, {1}), expire = MakeRequest(1, {1}, 0, 50000);
  q.Add(keep, t0);
  q.Add(cancel, t0);
  q.Add(expire, t0);
  Clock::time_point when;
  REQUIRE(q.NextEvent(false, &when));
  REQUIRE(when == expire->control->deadline());
  REQUIRE(cancel->control->Cancel());
  REQUIRE(q.TakeEnded(t0) == std::vector<RequestPtr>{cancel});
  REQUIRE(q.TakeEnded(expire->control->deadline()) == std::vector<RequestPtr>{expire});
  REQUIRE(q.size() == 1);
}
