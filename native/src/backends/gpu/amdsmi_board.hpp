#pragma once

// The board telemetry of one AMD GPU through amd-smi (libamd_smi, <amd_smi/amdsmi.h>): GFX and
// memory clocks, socket power, its cap and the throttle reasons, beside overlap's phases.
// Compiled where CMake finds amd-smi (SDMA_HAVE_AMDSMI, src/backends/gpu/CMakeLists.txt).
// Read-only: nothing here sets a clock, a power cap or anything else.
// Plain C++: the amd-smi header stays in amdsmi_board.cpp, so its users need only this one.
#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "backends/gpu/board_sample.hpp"

namespace sdma::gpu {

class AmdSmiBoard {
 public:
  AmdSmiBoard() = default;
  ~AmdSmiBoard();  // amdsmi_shut_down if it initialised
  AmdSmiBoard(const AmdSmiBoard&) = delete;
  AmdSmiBoard& operator=(const AmdSmiBoard&) = delete;

  // The board at this PCI bus id ("0000:c1:00.0", as hipDeviceGetPCIBusId prints it);
  // false with `why` set when amd-smi cannot read it.
  bool open(const std::string& pciBusId, std::string& why);

  // One read of the GFX and memory clocks, socket power, its cap and the throttle reasons
  // active now; a field that could not be read stays empty. Read-only: never sets anything.
  // One thread at a time: MI300-class boards report throttling as residency counters, and the
  // reasons are the counters that moved since the previous call (or since open()).
  BoardSample sample();

 private:
  void refreshPowerCap();

  bool initialised_ = false;
  void* processor_ = nullptr;  // amdsmi_processor_handle (a void* in amdsmi.h)
  // The previous read's throttle residency counters (gpu metrics v1.6 and later): the
  // accumulation counter, then PPT, socket thermal, VR thermal, HBM thermal and PROCHOT.
  std::optional<std::array<std::uint64_t, 6>> residency_;
  std::optional<double> powerCapW_;
  std::chrono::steady_clock::time_point powerCapRead_{};
};

}  // namespace sdma::gpu
