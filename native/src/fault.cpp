#include "fault.hpp"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "cancel.hpp"

namespace sdma {

std::optional<FaultSpec> parseFaultSpec(std::string_view text) {
  struct Name {
    std::string_view prefix;
    FaultKind kind;
  };
  static constexpr Name kNames[] = {{"crash-after=", FaultKind::CrashAfter},
                                    {"garbage-after=", FaultKind::GarbageAfter},
                                    {"hang-after=", FaultKind::HangAfter},
                                    {"exit-after=", FaultKind::ExitAfter},
                                    {"corrupt-after=", FaultKind::CorruptAfter}};
  for (const Name& name : kNames) {
    if (text.substr(0, name.prefix.size()) != name.prefix) continue;
    const std::string_view digits = text.substr(name.prefix.size());
    FaultSpec spec{name.kind, 0};
    const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), spec.afterSamples);
    if (digits.empty() || result.ec != std::errc() || result.ptr != digits.data() + digits.size() ||
        spec.afterSamples < 0) {
      return std::nullopt;
    }
    return spec;
  }
  return std::nullopt;
}

bool FaultInjector::onSampleCount(std::int64_t samplesEmitted) {
  if (spec_.kind == FaultKind::None || fired_ || samplesEmitted < spec_.afterSamples) return true;
  fired_ = true;
  switch (spec_.kind) {
    case FaultKind::None:
    case FaultKind::CorruptAfter:
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
