#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/reporter.hpp"

namespace sdma::runmode {

// Times are ns since the program started (CLOCK_MONOTONIC at fork), the run's one time line.
struct DispatchRecord {
  std::string name;     // demangled where possible
  std::string mangled;  // empty when the name was not mangled
  int gpu = 0;
  std::int64_t startNs = 0;
  std::int64_t endNs = 0;
  std::array<int, 3> grid{0, 0, 0};
  std::array<int, 3> block{0, 0, 0};
  std::string source;  // cupti, rocprofv3, device-trace, sim
  std::int64_t correlationId = -1;
  int cusSeen = -1;
};

struct CopyRecord {
  std::string mover;      // cu, engine
  std::string initiator;  // host, device
  int srcGpu = -1;        // -1: host memory
  int dstGpu = -1;
  std::uint64_t bytes = 0;
  std::int64_t startNs = 0;
  std::int64_t endNs = 0;
  std::string source;
  int engineId = -1;
  std::string label;
};

// One span a kernel recorded with <sdma_lens/trace.h>: a CU busy with a scope (peer -1, no
// bytes) or moving bytes to or from `peer`. On the program's time line, like the others.
struct DeviceSpanRecord {
  int gpu = 0;
  unsigned cu = 0;   // %smid (NVIDIA), CU id within its XCC (AMD)
  unsigned xcc = 0;  // AMD: the die; 0 on NVIDIA
  std::string label;
  std::int64_t startNs = 0;
  std::int64_t endNs = 0;
  std::uint64_t bytes = 0;
  int peer = -1;            // -1: a scope
  std::string mover;        // cu, engine
  bool pull = false;        // the bytes came from `peer`
};

struct KfdSdmaActivity {
  int gpu = -1;  // index among the node's GPUs in KFD topology order; -1 when not mapped
  std::uint32_t kfdGpuId = 0;
  std::uint64_t counter = 0;
};

struct ProgramExit {
  int exitCode = -1;       // -1: killed by a signal
  std::string signalName;  // empty when it exited
  std::vector<KfdSdmaActivity> kfdSdma;
};

void emitProgramStart(Reporter& reporter, const std::vector<std::string>& argv, long pid);
void emitProgramExit(Reporter& reporter, const std::vector<std::string>& argv, long pid, const ProgramExit& exit);
void emitDispatch(Reporter& reporter, const DispatchRecord& d);
void emitCopy(Reporter& reporter, const CopyRecord& c);
void emitDeviceSpan(Reporter& reporter, const DeviceSpanRecord& s);
// Both kinds, each already ordered by start, as one time-ordered stream.
void emitInStartOrder(Reporter& reporter, const std::vector<DispatchRecord>& dispatches,
                      const std::vector<CopyRecord>& copies);

// Itanium-mangled names through the C++ runtime's demangler; others unchanged.
std::string demangle(const std::string& name);

}  // namespace sdma::runmode
