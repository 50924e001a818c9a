// What run mode's records carry (docs/PROTOCOL.md: program, dispatch, copy, device-span,
// library-calls): plain data, filled by run mode's readers (profile/) and written by the
// reporter (protocol/reporter.hpp), which alone turns them into JSON.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/library_log_line.hpp"

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
  int peer = -1;      // -1: a scope
  std::string mover;  // cu, engine
  bool pull = false;  // the bytes came from `peer`
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

// Calls of one collective that took one path, with sizes in one power-of-two range
// (`run --library-log`, profile/library_log.hpp).
struct LibraryCalls {
  std::string library;  // "rccl", "nccl", or empty when no version line said
  std::string op;       // "AllToAll", "AllGather", ...
  std::string transport;
  librarylog::SizeKind sizeKind = librarylog::SizeKind::None;
  std::uint64_t minBytes = 0;
  std::uint64_t maxBytes = 0;
  // The most lines one rank (file, process, device) logged: each rank logs a call it takes
  // part in once, and NCCL's tuner line comes from rank 0 only.
  std::int64_t calls = 0;
  int ranks = 0;         // how many ranks logged such a line
  std::string evidence;  // the first such line, after "NCCL INFO "
};

}  // namespace sdma::runmode
