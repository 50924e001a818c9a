// What the HIP runtime does by default with one hipMemcpyAsync (runtime_default.hpp), and the
// mover evidence's verdicts (mover_evidence.hpp): pure rules, checked at their edges.
#include <map>
#include <string>

#include "backend/mover_evidence.hpp"
#include "backend/runtime_default.hpp"
#include "doctest_support.hpp"

namespace {

using namespace sdma;

RuntimeCopyEnv envOf(std::map<std::string, std::string> values) {
  return readRuntimeCopyEnv([&](const char* name) -> const char* {
    const auto it = values.find(name);
    return it == values.end() ? nullptr : it->second.c_str();
  });
}

constexpr std::uint64_t kKiB = 1024;

TEST_CASE("peerCopiesUpToOneMiBAreBlitKernelsByDefault") {
  const RuntimeCopyEnv env = envOf({});
  CHECK(runtimeDefaultChoice(0, 1, 4 * kKiB, env).path == CopyPath::CuHost);
  CHECK(runtimeDefaultChoice(0, 1, 1024 * kKiB, env).path == CopyPath::CuHost);  // "> threshold" goes to SDMA
  CHECK(runtimeDefaultChoice(0, 1, 1024 * kKiB + 1, env).path == CopyPath::EngineHost);
  CHECK(runtimeDefaultChoice(0, 1, 4 * kKiB, env).cus == 16);
}

TEST_CASE("theUsersThresholdsMoveTheCut") {
  CHECK(runtimeDefaultChoice(0, 1, 4 * kKiB, envOf({{"ROC_P2P_SDMA_SIZE", "0"}})).path == CopyPath::EngineHost);
  CHECK(runtimeDefaultChoice(0, 1, 64 * kKiB, envOf({{"ROC_P2P_SDMA_SIZE", "32"}})).path == CopyPath::EngineHost);
  // GPU_FORCE_BLIT_COPY_SIZE sends every copy of at most that many KiB to the blit kernel, host ones too.
  CHECK(runtimeDefaultChoice(-1, 0, 64 * kKiB, envOf({{"GPU_FORCE_BLIT_COPY_SIZE", "64"}})).path == CopyPath::CuHost);
  CHECK(runtimeDefaultChoice(-1, 0, 65 * kKiB, envOf({{"GPU_FORCE_BLIT_COPY_SIZE", "64"}})).path ==
        CopyPath::EngineHost);
}

TEST_CASE("hostCopiesAreSdmaAndLocalCopiesAreBlitKernels") {
  const RuntimeCopyEnv env = envOf({});
  CHECK(runtimeDefaultChoice(-1, 0, 4 * kKiB, env).path == CopyPath::EngineHost);
  CHECK(runtimeDefaultChoice(0, -1, 1 << 30, env).path == CopyPath::EngineHost);
  CHECK(runtimeDefaultChoice(0, 0, 1 << 30, env).path == CopyPath::CuHost);
  CHECK(runtimeDefaultChoice(0, 0, 1 << 30, envOf({{"ROC_P2P_SDMA_SIZE", "0"}})).path == CopyPath::CuHost);
}

TEST_CASE("sdmaOffMakesEveryCopyABlitKernel") {
  const RuntimeCopyEnv env = envOf({{"HSA_ENABLE_SDMA", "0"}});
  for (int src : {-1, 0}) CHECK(runtimeDefaultChoice(src, 1, 1 << 30, env).path == CopyPath::CuHost);
  CHECK(runtimeDefaultChoice(-1, 0, 1 << 30, envOf({{"HSA_ENABLE_SDMA", "1"}})).path == CopyPath::EngineHost);
}

TEST_CASE("aValueThatDoesNotReadIsSaidAndTheDefaultAssumed") {
  const RuntimeDefaultChoice c = runtimeDefaultChoice(0, 1, 4 * kKiB, envOf({{"ROC_P2P_SDMA_SIZE", "lots"}}));
  CHECK(c.path == CopyPath::CuHost);
  CHECK(c.why.find("not a whole number") != std::string::npos);
  CHECK(runtimeDefaultChoice(0, 1, 4 * kKiB, envOf({{"ROC_P2P_SDMA_SIZE", "99999999999999999999"}})).path ==
        CopyPath::CuHost);
}

TEST_CASE("evidenceVerdicts") {
  MoverEvidence e;
  e.observed = ObservedMover::Engine;
  CHECK(judgeEvidence(ObservedMover::Engine, e) == EvidenceVerdict::Matches);
  CHECK(judgeEvidence(ObservedMover::Cu, e) == EvidenceVerdict::Contradicts);
  e.observed = ObservedMover::Unknown;
  CHECK(judgeEvidence(ObservedMover::Cu, e) == EvidenceVerdict::NotObserved);
  CHECK_FALSE(moverMismatch(CopyPath::EngineHost, e).has_value());
  e.observed = ObservedMover::Cu;
  e.detail = "a copy kernel";
  const auto why = moverMismatch(CopyPath::EngineHost, e);
  REQUIRE(why.has_value());
  CHECK(why->find("a copy kernel") != std::string::npos);
}

TEST_CASE("kfdCountersAsEvidence") {
  // An engine point that ran long enough to be counted and left the counters still: not SDMA.
  CHECK(kfdEvidence(CopyPath::EngineHost, 0, 250.0).observed == ObservedMover::Cu);
  // Below the counters' 1 us resolution a still counter says nothing.
  CHECK(kfdEvidence(CopyPath::EngineHost, 0, 0.5).observed == ObservedMover::Unknown);
  CHECK(kfdEvidence(CopyPath::EngineHost, 12, 250.0).observed == ObservedMover::Engine);
  // A CU point must leave them still.
  CHECK(kfdEvidence(CopyPath::CuHost, 3, 250.0).observed == ObservedMover::Engine);
  CHECK(kfdEvidence(CopyPath::CuHost, 0, 250.0).observed == ObservedMover::Cu);
}

}  // namespace
