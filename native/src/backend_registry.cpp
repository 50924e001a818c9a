#include "backend_registry.hpp"

#include "sim/sim_backend.hpp"

namespace sdma {

const std::vector<std::string>& builtBackendNames() {
  static const std::vector<std::string> names = {"sim"};
  return names;
}

BackendChoice openBackend(std::string_view requested, const BackendSettings& settings) {
  BackendChoice choice;
  if (requested == "hip" || requested == "cuda") {
    choice.unavailableReason = "this sdma-probe was built without the " + std::string(requested) +
                               " backend (built: sim); rebuild it on a machine with the " +
                               (requested == "hip" ? std::string("ROCm") : std::string("CUDA")) + " toolkit";
    return choice;
  }
  // With no hardware backend built, auto can only mean the simulator.
  choice.autoFellBackToSim = requested == "auto";
  choice.backend = std::make_unique<sim::SimBackend>(sim::SimOptions{settings.seed, settings.simDelayMs});
  return choice;
}

}  // namespace sdma
