// Cancellation and the deadline of one invocation, shared by the work that runs it and by QvCancel,
// which reaches it through the invocation's output arrays.
//
// An invocation is pending until it is cancelled, passes its deadline, or its results are claimed
// for delivery; only a pending one can be cancelled. Whoever ends it calls its finisher (if one is
// set) exactly once, outside any lock, so a request waiting in a batch queue is reported at once. A
// run takes the finisher over when it starts (TakeFinisher): its outputs are written until the run
// is over, so the run reports its end then, whenever it ended.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>

#include "common/error.h"

namespace qv {

class InvocationControl {
 public:
  using Clock = std::chrono::steady_clock;
  using Finisher = std::function<void(const Failure&)>;

  // deadline_us > 0: the invocation must finish within that many microseconds from now.
  explicit InvocationControl(int64_t deadline_us = 0);
  InvocationControl(const InvocationControl&) = delete;
  InvocationControl& operator=(const InvocationControl&) = delete;

  // Cancels a pending invocation; true if it was pending (it then reports Status::kCancelled).
  bool Cancel();
  // ok() while the invocation may go on (pending, or claimed); else why it stopped. Notices a passed
  // deadline (which ends the invocation).
  Failure Check();
  // Throws the Error that Check() reports, if any.
  void ThrowIfEnded();
  // True while the invocation may go on at `now`; changes nothing.
  bool Alive(Clock::time_point now) const;
  // Moves a pending invocation within its deadline to delivering its results: true, and from then on
  // Cancel has no effect. Else false (Check tells why).
  bool Claim();
  // Sets the function that reports the end; false (and `finish` is dropped) if it has ended already.
  bool SetFinisher(Finisher finish);
  // Takes the finisher out (an empty one if none was set), so that ending no longer calls it: true.
  // False, leaving `finish` alone, if it has ended already.
  bool TakeFinisher(Finisher* finish);
  // Ends the invocation with `failure` (ok() after a successful Claim), unless it has ended already.
  // A pending invocation past its deadline ends with Status::kDeadlineExceeded instead.
  void Finish(const Failure& failure);

  bool has_deadline() const { return has_deadline_; }
  Clock::time_point deadline() const { return deadline_; }

 private:
  enum class State { kPending, kClaimed, kEnded };

  // Ends the invocation (the caller holds mu_); returns the finisher to call once mu_ is released.
  Finisher EndLocked(const Failure& failure);
  bool ExpiredLocked(Clock::time_point now) const;
  bool ExpiredNowLocked() const;
  Failure DeadlineFailure() const;

  const int64_t deadline_us_;
  const bool has_deadline_;
  const Clock::time_point deadline_;
  mutable std::mutex mu_;
  State state_ = State::kPending;
  Failure ended_with_;  // once ended
  Finisher finisher_;
};

}  // namespace qv
