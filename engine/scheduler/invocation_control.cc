#include "scheduler/invocation_control.h"

#include <algorithm>
#include <string>

namespace qv {

namespace {

// Deadlines are capped at 100 years: later ones would overflow the clock's nanosecond count.
constexpr int64_t kLongestDeadlineUs = int64_t{100} * 366 * 24 * 3600 * 1000000;

}  // namespace

InvocationControl::InvocationControl(int64_t deadline_us)
    : deadline_us_(deadline_us),
      has_deadline_(deadline_us > 0),
      deadline_(Clock::now() + std::chrono::microseconds(std::clamp<int64_t>(deadline_us, 0, kLongestDeadlineUs))) {}

bool InvocationControl::Cancel() {
  Finisher finish;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_ != State::kPending) return false;
    finish = EndLocked({Status::kCancelled, "the invocation was cancelled (QvCancel)"});
  }
  if (finish) finish(ended_with_);
  return true;
}

Failure InvocationControl::Check() {
  Finisher finish;
  Failure failure;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_ == State::kPending && ExpiredNowLocked()) finish = EndLocked(DeadlineFailure());
    if (state_ == State::kEnded) failure = ended_with_;
  }
  if (finish) finish(failure);
  return failure;
}

void InvocationControl::ThrowIfEnded() {
  ThrowIfFailed(Check());
}

bool InvocationControl::Alive(Clock::time_point now) const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_ == State::kClaimed || (state_ == State::kPending && !ExpiredLocked(now));
}

bool InvocationControl::Claim() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_ == State::kPending && !ExpiredNowLocked()) {
      state_ = State::kClaimed;
      return true;
    }
  }
  Check();  // ends an expired invocation
  return false;
}

bool InvocationControl::SetFinisher(Finisher finish) {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ == State::kEnded) return false;
  finisher_ = std::move(finish);
  return true;
}

bool InvocationControl::TakeFinisher(Finisher* finish) {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ == State::kEnded) return false;
  *finish = std::move(finisher_);
  finisher_ = nullptr;
  return true;
}

void InvocationControl::Finish(const Failure& failure) {
  Finisher finish;
  Failure reported;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_ == State::kEnded) return;
    const bool late = state_ == State::kPending && ExpiredNowLocked();
    finish = EndLocked(late ? DeadlineFailure() : failure);
    reported = ended_with_;
  }
  if (finish) finish(reported);
}

InvocationControl::Finisher InvocationControl::EndLocked(const Failure& failure) {
  state_ = State::kEnded;
  ended_with_ = failure;
  Finisher finish = std::move(finisher_);
  finisher_ = nullptr;
  return finish;
}

bool InvocationControl::ExpiredLocked(Clock::time_point now) const { return has_deadline_ && now >= deadline_; }

// Reads the clock only when there is a deadline: Check runs before every operator.
bool InvocationControl::ExpiredNowLocked() const { return has_deadline_ && ExpiredLocked(Clock::now()); }

Failure InvocationControl::DeadlineFailure() const {
  return {Status::kDeadlineExceeded,
          "the invocation's deadline (" + std::to_string(deadline_us_) + " us after submission) passed before it finished"};
}

}  // namespace qv
