#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "reporter.hpp"

namespace sdma {

// --fault: deliberate misbehaviour so the extension's handling of a broken helper can be
// tested against the real binary (docs/PROTOCOL.md lists the specs).
enum class FaultKind { None, CrashAfter, GarbageAfter, HangAfter, ExitAfter };

struct FaultSpec {
  FaultKind kind = FaultKind::None;
  std::int64_t afterSamples = 0;
};

// "crash-after=N", "garbage-after=N", "hang-after=N" or "exit-after=N"; nullopt if malformed.
std::optional<FaultSpec> parseFaultSpec(std::string_view text);

class FaultInjector {
 public:
  FaultInjector(FaultSpec spec, Reporter& reporter) : spec_(spec), reporter_(reporter) {}

  // Call once before the first work unit and after every sample. Crash and exit faults do
  // not return; a hang returns false once cancelled (the caller then ends as cancelled).
  bool onSampleCount(std::int64_t samplesEmitted);

 private:
  FaultSpec spec_;
  Reporter& reporter_;
  bool fired_ = false;
};

}  // namespace sdma
