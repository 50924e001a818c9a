#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.hpp"
#include "backends/sim/sim_weak.hpp"

namespace sdma {

// Names of the backends compiled into this binary, for hello.backendsBuilt and --version.
const std::vector<std::string>& builtBackendNames();

struct BackendSettings {
  std::uint64_t seed = 1;
  int simDelayMs = 0;
  int simGpus = 0;                   // --sim-gpus: GPUs of the simulated node; 0: its default
  std::vector<SimWeakSpec> simWeak;  // --sim-weak: the simulator's node weakened where a spec applies
};

struct BackendChoice {
  std::unique_ptr<Backend> backend;  // null when the request cannot be met
  std::string unavailableCode;       // the error record's code: backend-unavailable, no-gpu, ...
  std::string unavailableReason;
  std::string unavailableHint;
  bool autoFellBackToSim = false;  // `auto` found no hardware backend and chose sim
  std::string fallbackReasons;     // why each built hardware backend was passed over
  bool simGpusIgnored = false;     // --sim-gpus was given but `auto` found real hardware
  bool simWeakIgnored = false;     // --sim-weak was given but `auto` found real hardware
  std::string simWeakApplied;      // the sim-weak warning's message when --sim-weak weakens this node
};

// `requested` is auto, sim, hip or cuda (already validated by the argument parser).
BackendChoice openBackend(std::string_view requested, const BackendSettings& settings);

}  // namespace sdma
