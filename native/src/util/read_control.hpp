#pragma once

// How a reader of outside data stops and shows it is alive: every read loop calls poll() once
// per row, line or chunk. poll() is cheap; every kPollStride calls it asks the cancel flag
// (SIGINT/SIGTERM, cancel.hpp) and calls the heartbeat hook (util/heartbeat.hpp), through
// which the reporter writes a heartbeat when the reader has been silent for heartbeatMs, so
// the extension's stall watchdog tells slow from stuck.
#include <cstdint>
#include <functional>
#include <utility>

namespace sdma::ingest {

class Control {
 public:
  Control(std::function<bool()> cancelRequested, std::function<void()> heartbeat, std::uint64_t cancelAfter = 0)
      : cancelRequested_(std::move(cancelRequested)), heartbeat_(std::move(heartbeat)), cancelAfter_(cancelAfter) {}

  // The process's own: the cancel flag and the heartbeat hook.
  static Control process();
  // No cancel and no heartbeat (tests, fuzzing); `cancelAfter` > 0 cancels at that poll.
  static Control detached(std::uint64_t cancelAfter = 0) { return Control(nullptr, nullptr, cancelAfter); }

  // false once cancellation was asked for: the reader stops where it is and says so.
  bool poll() {
    if (cancelled_) return false;
    ++polls_;
    if (cancelAfter_ != 0 && polls_ >= cancelAfter_) {
      cancelled_ = true;
      return false;
    }
    if (polls_ % kPollStride != 0) return true;
    if (cancelRequested_ && cancelRequested_()) {
      cancelled_ = true;
      return false;
    }
    if (heartbeat_) heartbeat_();
    return true;
  }
  bool cancelled() const { return cancelled_; }
  std::uint64_t polls() const { return polls_; }

 private:
  static constexpr std::uint64_t kPollStride = 256;
  std::function<bool()> cancelRequested_;
  std::function<void()> heartbeat_;
  std::uint64_t cancelAfter_ = 0;
  std::uint64_t polls_ = 0;
  bool cancelled_ = false;
};

}  // namespace sdma::ingest
