#include "util/cancel.hpp"

#include <algorithm>
#include <csignal>
#include <thread>

namespace sdma::cancel {

namespace {

volatile std::sig_atomic_t gSignal = 0;

extern "C" void onSignal(int signalNumber) { gSignal = signalNumber; }

// Short enough that a cancelled run answers within a blink; long enough to cost nothing.
constexpr std::chrono::milliseconds kSleepSlice{10};

}  // namespace

void installSignalHandlers() {
  struct sigaction action{};
  action.sa_handler = onSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // a write interrupted by the signal resumes, lines stay whole
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // A reader that goes away must not kill us silently mid-line; writes fail instead.
  std::signal(SIGPIPE, SIG_IGN);
}

bool requested() { return gSignal != 0; }

int exitCode() { return 128 + (gSignal != 0 ? static_cast<int>(gSignal) : SIGINT); }

bool sleepFor(std::chrono::milliseconds duration) {
  const auto deadline = std::chrono::steady_clock::now() + duration;
  while (!requested()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return true;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(deadline - now, kSleepSlice));
  }
  return false;
}

}  // namespace sdma::cancel
