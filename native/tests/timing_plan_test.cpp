// The GPU backends' measurement arithmetic (docs/MEASUREMENT.md), checked without a GPU.
#include <cstdio>
#include <string>

#include "backend/timing_plan.hpp"
#include "doctest_support.hpp"

namespace {

using namespace sdma::gpu;

using namespace sdma::testing;
constexpr std::uint64_t kH200L2Bytes = 60 * MiB;

}  // namespace

TEST_CASE("timing plan") {
  const RotationPlan small = planRotation(4 * KiB, kH200L2Bytes);
  CHECK_MESSAGE((small.strideBytes == 8 * KiB), ("4 KiB copies sit in 8 KiB slots (copy + guard, 4 KiB aligned)"));
  CHECK_MESSAGE((small.regionBytes >= 2 * kH200L2Bytes), ("small copies rotate over at least twice the L2"));

  const RotationPlan odd = planRotation(1000, kH200L2Bytes);
  CHECK_MESSAGE((odd.strideBytes % 4096 == 0 && odd.strideBytes - 1000 >= kGuardBytes),
                ("odd sizes keep a full guard gap"));

  const RotationPlan mid = planRotation(64 * MiB, kH200L2Bytes);
  CHECK_MESSAGE((mid.slots >= 2), ("a copy just over the L2 still alternates between slots"));
  const RotationPlan large = planRotation(1 * GiB, kH200L2Bytes);
  CHECK_MESSAGE((large.slots == 1), ("a copy far over the L2 needs no second slot"));
  CHECK_MESSAGE((large.regionBytes == 1 * GiB + kGuardBytes), ("1 GiB: the region is the copy plus its guard"));

  CHECK_MESSAGE((itersForTime(1e6, 0, 20, 1000) == 20), ("no time target: exactly the iterations asked for"));
  CHECK_MESSAGE((itersForTime(1e3, 1e6, 20, 10000) == 1000), ("a 1 ms target of 1 us copies takes 1000 iterations"));
  CHECK_MESSAGE((itersForTime(1e9, 1e6, 5, 1000) == 5), ("slow copies never go under the minimum"));
  CHECK_MESSAGE((itersForTime(1, 1e9, 5, 1000) == 1000), ("and fast ones never over the maximum"));

  CHECK_MESSAGE((pipelineDepth(1 * GiB, 64 * MiB, 256) == kMinPipelineDepth),
                ("large copies still queue a few back to back"));
  CHECK_MESSAGE((pipelineDepth(1 * MiB, 64 * MiB, 256) == 64), ("1 MiB copies queue 64 to a batch"));
  CHECK_MESSAGE((pipelineDepth(4 * KiB, 64 * MiB, 256) == 256), ("the batch depth is capped"));

  const Summary s = summarize({5, 1, 9, 3});
  CHECK_MESSAGE((s.medianNs == 4 && s.minNs == 1 && s.maxNs == 9),
                ("median of an even count is the middle pair's mean"));
  CHECK_MESSAGE((summarize({7}).medianNs == 7), ("median of one"));

  const ClockAlignment a = alignClocks({{100, 160, 1130}, {200, 220, 1210}, {300, 400, 1350}});
  CHECK_MESSAGE((a.offsetNs == 1000 && a.uncertaintyNs == 10), ("alignment takes the shortest round trip"));
  CHECK_MESSAGE((alignClocks({}).rounds == 0), ("no pings, no alignment"));
}
