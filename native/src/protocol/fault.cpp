#include "protocol/fault.hpp"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "util/cancel.hpp"
#include "sdma_limits.hpp"

namespace sdma {

namespace {

std::optional<FaultKind> faultKind(std::string_view name) {
  if (name == "crash") return FaultKind::CrashAfter;
  if (name == "garbage") return FaultKind::GarbageAfter;
  if (name == "hang") return FaultKind::HangAfter;
  if (name == "exit") return FaultKind::ExitAfter;
  if (name == "corrupt") return FaultKind::CorruptAfter;
  if (name == "mislabel") return FaultKind::MislabelAfter;
  return std::nullopt;
}

}  // namespace

std::optional<FaultSpec> parseFaultSpec(std::string_view text) {
  for (std::string_view name : limits::faultKinds) {
    const std::string prefix = std::string(name) + "-after=";
    const std::optional<FaultKind> kind = faultKind(name);
    if (!kind || text.substr(0, prefix.size()) != prefix) continue;
    const std::string_view digits = text.substr(prefix.size());
    FaultSpec spec{*kind, 0};
    const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), spec.afterSamples);
    if (digits.empty() || result.ec != std::errc() || result.ptr != digits.data() + digits.size() ||
        spec.afterSamples < 0 || spec.afterSamples > limits::faultAfterMax) {
      return std::nullopt;
    }
    return spec;
  }
  return std::nullopt;
}

std::string faultSpecForms() {
  std::string forms;
  for (std::string_view name : limits::faultKinds)
    forms += (forms.empty() ? "" : ", ") + std::string(name) + "-after=N";
  return forms;
}

bool FaultInjector::onSampleCount(std::int64_t samplesEmitted) {
  if (spec_.kind == FaultKind::None || fired_ || samplesEmitted < spec_.afterSamples) return true;
  fired_ = true;
  switch (spec_.kind) {
    case FaultKind::None:
    case FaultKind::CorruptAfter:
    case FaultKind::MislabelAfter:
      return true;
    case FaultKind::CrashAfter:
      std::fflush(stdout);
      std::abort();
    case FaultKind::GarbageAfter:
      // A record cut off mid-line, as a crashing writer would leave it.
      reporter_.raw("{\"type\":\"sample\",\"mover\":\n");
      return true;
    case FaultKind::HangAfter:
      std::fputs("sdma-probe: --fault hang-after: hanging until killed\n", stderr);
      while (cancel::sleepFor(std::chrono::hours(1))) {
      }
      return false;
    case FaultKind::ExitAfter:
      std::fflush(stdout);
      std::exit(1);
  }
  return true;
}

}  // namespace sdma
