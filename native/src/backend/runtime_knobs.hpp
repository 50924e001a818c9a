#pragma once

// The HIP runtime settings the helper puts into its own environment before a backend opens,
// so that what `sweep`, `matrix` and `overlap` measure as an engine copy on AMD is an SDMA
// copy at every size; hello names them (docs/PROTOCOL.md, docs/MEASUREMENT.md "Engine copies
// are SDMA at every size").
#include <optional>
#include <string>
#include <vector>

namespace sdma {

// One variable the helper set: its name, the value it set, and what the environment held
// before (nullopt: it was not set).
struct RuntimeKnob {
  std::string name;
  std::string value;
  std::optional<std::string> previous;
};

// Sets ROC_P2P_SDMA_SIZE=0 and GPU_FORCE_BLIT_COPY_SIZE=0, overriding what the environment
// held, and returns what it set. Call it before anything can start the HIP runtime: the
// runtime reads them once, when it initialises. Processes started later (rocSHMEM PEs)
// inherit them.
std::vector<RuntimeKnob> setEngineKnobs();

// Puts the environment back as it was before setEngineKnobs set `knobs`.
void restoreKnobs(const std::vector<RuntimeKnob>& knobs);

}  // namespace sdma
