#pragma once

// How one simulated node falls short of the model (--sim-weak; docs/SIMULATOR.md, "A weak
// node"): the rate of the copies a field covers is multiplied by it, on top of the model,
// the fixed costs and the noise unchanged. 1 everywhere is the model itself.
namespace sdma::sim {

struct SimWeakness {
  double engine = 1;  // copies by the SDMA engines: engine/host, engine/device
  double cu = 1;      // CU load/store copies: cu/host, cu/device
  double link = 1;    // GPU <-> GPU copies (xGMI), whatever the path
  double pcie = 1;    // host <-> GPU copies, whatever the path

  bool any() const { return engine != 1 || cu != 1 || link != 1 || pcie != 1; }
};

}  // namespace sdma::sim
