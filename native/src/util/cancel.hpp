#pragma once

#include <chrono>

// Cooperative cancellation: SIGINT/SIGTERM only set a flag; work loops poll it at each
// work unit (and inside sleeps) and finish with a `done` record of status "cancelled".
namespace sdma::cancel {

void installSignalHandlers();
bool requested();
// 130 after SIGINT, 143 after SIGTERM (128 + signal number).
int exitCode();
// Sleeps in short slices; returns false as soon as cancellation is requested.
bool sleepFor(std::chrono::milliseconds duration);

}  // namespace sdma::cancel
