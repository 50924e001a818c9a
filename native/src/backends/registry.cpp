#include "backends/registry.hpp"

#include "backends/gpu/gpu_backend.hpp"
#include "util/host_name.hpp"
#include "backends/sim/sim_backend.hpp"

namespace sdma {

const std::vector<std::string>& builtBackendNames() {
  static const std::vector<std::string> names = {
      "sim",
#if defined(SDMA_PROBE_HAVE_HIP)
      "hip",
#endif
#if defined(SDMA_PROBE_HAVE_CUDA)
      "cuda",
#endif
  };
  return names;
}

namespace {

bool isBuilt(std::string_view name) {
  for (const std::string& built : builtBackendNames()) {
    if (built == name) return true;
  }
  return false;
}

gpu::OpenedBackend openHardware(std::string_view name, const BackendSettings& settings) {
  const gpu::GpuOptions options{settings.seed};
#if defined(SDMA_PROBE_HAVE_HIP)
  if (name == "hip") return gpu::openHipBackend(options);
#endif
#if defined(SDMA_PROBE_HAVE_CUDA)
  if (name == "cuda") return gpu::openCudaBackend(options);
#endif
  (void)options;
  gpu::OpenedBackend none;
  none.error = {"backend-unavailable", "the " + std::string(name) + " backend is not built", ""};
  return none;
}

}  // namespace

BackendChoice openBackend(std::string_view requested, const BackendSettings& settings) {
  BackendChoice choice;
  if (requested == "hip" || requested == "cuda") {
    if (!isBuilt(requested)) {
      std::string built;
      for (const std::string& name : builtBackendNames()) built += (built.empty() ? "" : ", ") + name;
      choice.unavailableCode = "backend-unavailable";
      choice.unavailableReason = "this sdma-probe was built without the " + std::string(requested) +
                                 " backend (built: " + built + "); rebuild it on a machine with the " +
                                 (requested == "hip" ? std::string("ROCm") : std::string("CUDA")) + " toolkit";
      choice.unavailableHint = "cmake -S native -B native/build -DSDMA_PROBE_WITH_" +
                               std::string(requested == "hip" ? "HIP" : "CUDA") + "=ON";
      return choice;
    }
    gpu::OpenedBackend opened = openHardware(requested, settings);
    choice.backend = std::move(opened.backend);
    if (!choice.backend) {
      choice.unavailableCode = opened.error.code;
      choice.unavailableReason = opened.error.message;
      choice.unavailableHint = opened.error.hint;
    }
    return choice;
  }
  if (requested == "auto") {
    // Real hardware first, in a fixed order; the first that finds a GPU wins.
    for (const char* name : {"hip", "cuda"}) {
      if (!isBuilt(name)) continue;
      gpu::OpenedBackend opened = openHardware(name, settings);
      if (opened.backend) {
        choice.backend = std::move(opened.backend);
        choice.simGpusIgnored = settings.simGpus > 0;
        choice.simWeakIgnored = !settings.simWeak.empty();
        return choice;
      }
      choice.fallbackReasons +=
          (choice.fallbackReasons.empty() ? "" : "; ") + std::string(name) + ": " + opened.error.message;
    }
    choice.autoFellBackToSim = true;
  }
  sim::Mi350xModel model;
  if (settings.simGpus > 0) model.gpuCount = settings.simGpus;
  // --sim-weak: which node of a fleet this is decides whether its specs apply.
  const std::string host = hostName();
  model.weakness = weaknessOnHost(settings.simWeak, shortHostName(host));
  if (model.weakness.any()) choice.simWeakApplied = describeWeakness(model.weakness, shortHostName(host));
  choice.backend = std::make_unique<sim::SimBackend>(sim::SimOptions{settings.seed, settings.simDelayMs}, model);
  return choice;
}

}  // namespace sdma
