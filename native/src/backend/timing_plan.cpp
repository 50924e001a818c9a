#include "backend/timing_plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sdma::gpu {

namespace {

constexpr std::uint64_t kSlotAlignBytes = 4096;

std::uint64_t roundUp(std::uint64_t value, std::uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

RotationPlan planRotation(std::uint64_t sizeBytes, std::uint64_t llcBytes) {
  RotationPlan plan;
  plan.strideBytes = roundUp(sizeBytes + kGuardBytes, kSlotAlignBytes);
  const std::uint64_t coverBytes = 2 * llcBytes;
  plan.slots = std::max<std::uint64_t>(1, (coverBytes + plan.strideBytes - 1) / plan.strideBytes);
  // A region over the cache needs one more slot, or the same slot is copied every time.
  if (plan.slots == 1 && llcBytes > 0) plan.slots = sizeBytes > coverBytes ? 1 : 2;
  plan.regionBytes = plan.slots * plan.strideBytes;
  return plan;
}

int itersForTime(double estimatedNsPerIter, double targetNs, int minIters, int maxIters) {
  if (targetNs <= 0 || estimatedNsPerIter <= 0) return std::min(minIters, maxIters);
  const double wanted = std::ceil(targetNs / estimatedNsPerIter);
  const double clamped = std::clamp(wanted, static_cast<double>(minIters), static_cast<double>(maxIters));
  return static_cast<int>(clamped);
}

int pipelineDepth(std::uint64_t sizeBytes, std::uint64_t batchTargetBytes, int maxDepth) {
  const std::uint64_t most = static_cast<std::uint64_t>(std::max(kMinPipelineDepth, maxDepth));
  const std::uint64_t wanted = sizeBytes == 0 ? most : (batchTargetBytes + sizeBytes - 1) / sizeBytes;
  return static_cast<int>(std::clamp<std::uint64_t>(wanted, kMinPipelineDepth, most));
}

Summary summarize(std::vector<double> timesNs) {
  Summary s;
  if (timesNs.empty()) return s;
  std::sort(timesNs.begin(), timesNs.end());
  const std::size_t n = timesNs.size();
  s.medianNs = n % 2 ? timesNs[n / 2] : (timesNs[n / 2 - 1] + timesNs[n / 2]) / 2;
  s.minNs = timesNs.front();
  s.maxNs = timesNs.back();
  return s;
}

ClockAlignment alignClocks(const std::vector<ClockPing>& pings) {
  ClockAlignment best;
  double bestRoundTripNs = std::numeric_limits<double>::infinity();
  for (const ClockPing& ping : pings) {
    const double roundTripNs = ping.hostReceiveNs - ping.hostSendNs;
    if (roundTripNs < 0 || roundTripNs >= bestRoundTripNs) continue;
    bestRoundTripNs = roundTripNs;
    best.offsetNs = ping.deviceNs - (ping.hostSendNs + ping.hostReceiveNs) / 2;
    best.uncertaintyNs = roundTripNs / 2;
  }
  best.rounds = static_cast<int>(pings.size());
  return best;
}

}  // namespace sdma::gpu
