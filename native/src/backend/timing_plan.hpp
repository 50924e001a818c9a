#pragma once

#include <cstdint>
#include <vector>

namespace sdma::gpu {

// Host-side arithmetic of the GPU backends' measurement method (docs/MEASUREMENT.md), kept
// in plain C++ so it is unit-tested on machines without a GPU.

// Every copy lands in its own slot of a destination region; a slot is followed by a guard
// gap that must still hold poison after the copy, and consecutive iterations move to the
// next slot so a copy never reads a source the previous one left in the last-level cache.
struct RotationPlan {
  std::uint64_t strideBytes = 0;  // slot start to slot start, 4 KiB aligned, >= size + guard
  std::uint64_t slots = 1;
  std::uint64_t regionBytes = 0;  // slots * stride: what each side allocates
};

inline constexpr std::uint64_t kGuardBytes = 4096;

// Rotation covers at least twice the last-level cache, so a slot is evicted before reuse.
// `llcBytes` is the backend's: NVIDIA the L2; AMD the MALL (Infinity Cache) where the GPU has
// one, at least the L2 of every XCC (amd::lastLevelCache in backend/amd_node.hpp).
RotationPlan planRotation(std::uint64_t sizeBytes, std::uint64_t llcBytes);

// Timed iterations for a sample: at least `minIters`, more while the estimated total stays
// under `targetNs` (0: exactly minIters), never more than `maxIters`.
int itersForTime(double estimatedNsPerIter, double targetNs, int minIters, int maxIters);

// Operations queued back to back inside one timed iteration of the pipelined mode: enough
// to move `batchTargetBytes`, so launch and doorbell costs overlap with the transfer, and
// never fewer than kMinPipelineDepth, so even the largest copy has a successor queued
// behind it (with one, a device-initiated copy pays its whole round trip every time).
inline constexpr int kMinPipelineDepth = 4;
int pipelineDepth(std::uint64_t sizeBytes, std::uint64_t batchTargetBytes, int maxDepth);

struct Summary {
  double medianNs = 0;
  double minNs = 0;
  double maxNs = 0;
};
Summary summarize(std::vector<double> timesNs);

// One host<->device clock ping: host clock before the ping and after the pong, and the
// device clock read between them.
struct ClockPing {
  double hostSendNs = 0;
  double hostReceiveNs = 0;
  double deviceNs = 0;
};

// deviceNs = hostNs + offsetNs, within +-uncertaintyNs (half the shortest round trip:
// the device read happened somewhere inside it).
struct ClockAlignment {
  double offsetNs = 0;
  double uncertaintyNs = 0;
  int rounds = 0;
};
ClockAlignment alignClocks(const std::vector<ClockPing>& pings);

}  // namespace sdma::gpu
