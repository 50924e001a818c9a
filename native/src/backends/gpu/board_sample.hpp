#pragma once

// One read of a GPU board's clocks and power, as the vendor's management library reports them
// (NVML on NVIDIA, amd-smi on AMD). Plain C++: both readers fill it and the overlap sampler
// averages it, without either vendor's headers.

#include <optional>
#include <string>
#include <vector>

namespace sdma::gpu {

struct BoardSample {
  std::optional<double> gfxMHz, memMHz, powerW, powerLimitW;
  std::vector<std::string> throttleReasons;  // names, e.g. "power-cap", "thermal"
};

}  // namespace sdma::gpu
