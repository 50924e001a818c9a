#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/reporter.hpp"

namespace sdma {

// --fault: deliberate misbehaviour so the extension's handling of a broken helper can be
// tested against the real binary (docs/PROTOCOL.md lists the specs).
enum class FaultKind { None, CrashAfter, GarbageAfter, HangAfter, ExitAfter, CorruptAfter, MislabelAfter };

struct FaultSpec {
  FaultKind kind = FaultKind::None;
  std::int64_t afterSamples = 0;
};

// "KIND-after=N" for a kind of native/src/limits.json's faultKinds (crash, garbage, hang, exit,
// corrupt, mislabel) and N in 0..faultAfterMax; nullopt if malformed.
std::optional<FaultSpec> parseFaultSpec(std::string_view text);

// "crash-after=N, garbage-after=N, ...": the forms parseFaultSpec accepts.
std::string faultSpecForms();

class FaultInjector {
 public:
  FaultInjector(FaultSpec spec, Reporter& reporter) : spec_(spec), reporter_(reporter) {}

  // Call once before the first work unit and after every sample. Crash and exit faults do
  // not return; a hang returns false once cancelled (the caller then ends as cancelled).
  bool onSampleCount(std::int64_t samplesEmitted);

  // corrupt-after=N: the copy measured after N samples gets one wrong byte before its check,
  // proving the check catches it. Backends do the damage; this only says when.
  bool corruptNextCopy(std::int64_t samplesEmitted) const {
    return spec_.kind == FaultKind::CorruptAfter && samplesEmitted >= spec_.afterSamples;
  }

  // mislabel-after=N: the first engine point measured after N samples has its bytes carried
  // by a CU copy kernel under its engine label, proving the mover evidence catches it.
  bool mislabelNextCopy(std::int64_t samplesEmitted, CopyPath path) const {
    return spec_.kind == FaultKind::MislabelAfter && samplesEmitted >= spec_.afterSamples && usesEngine(path);
  }

 private:
  FaultSpec spec_;
  Reporter& reporter_;
  bool fired_ = false;
};

}  // namespace sdma
