#include "backend/runtime_knobs.hpp"

#include <cstdlib>
#include <string_view>
#include <utility>

namespace sdma {

namespace {

// CLR, the HIP runtime (libamdhip64), sends a copy between two GPUs (hipMemcpy*,
// hipMemcpyPeer*) of at most ROC_P2P_SDMA_SIZE KiB (default 1024: 1 MiB) to a blit kernel on
// the CUs, and only larger ones to SDMA; GPU_FORCE_BLIT_COPY_SIZE (KiB, default 0) sends any
// copy at or below it to the blit kernel. 0 for both: SDMA at every size. Both are read once,
// when the runtime initialises.
//   https://github.com/ROCm/clr/blob/develop/rocclr/utils/flags.hpp (both flags, their defaults)
//   https://github.com/ROCm/clr/blob/develop/rocclr/device/rocm/rocsettings.cpp
//     (sdma_p2p_threshold_ = ROC_P2P_SDMA_SIZE * Ki)
//   https://github.com/ROCm/clr/blob/develop/rocclr/device/rocm/rocblit.cpp
//     (KernelBlitManager::copyBuffer: the size against those thresholds)
//   https://rocm.docs.amd.com/en/latest/reference/env-variables.html
constexpr std::pair<std::string_view, std::string_view> kEngineKnobs[] = {
    {"ROC_P2P_SDMA_SIZE", "0"},
    {"GPU_FORCE_BLIT_COPY_SIZE", "0"},
};

}  // namespace

std::vector<RuntimeKnob> setEngineKnobs() {
  std::vector<RuntimeKnob> knobs;
  for (const auto& [name, value] : kEngineKnobs) {
    RuntimeKnob knob{std::string(name), std::string(value), std::nullopt};
    if (const char* old = std::getenv(knob.name.c_str())) knob.previous = old;
    setenv(knob.name.c_str(), knob.value.c_str(), 1);
    knobs.push_back(std::move(knob));
  }
  return knobs;
}

void restoreKnobs(const std::vector<RuntimeKnob>& knobs) {
  for (const RuntimeKnob& knob : knobs) {
    if (knob.previous) {
      setenv(knob.name.c_str(), knob.previous->c_str(), 1);
    } else {
      unsetenv(knob.name.c_str());
    }
  }
}

}  // namespace sdma
