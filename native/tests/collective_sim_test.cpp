// The collective pieces that do not need a GPU: the Anvil SDMA GIN type by RCCL version (the
// same table as the knob catalog's NCCL_GIN_TYPE values marked sdma; test/unit/collective.test.ts
// checks the TypeScript side), the gin-sdma environment, the median of a point's repeats, and
// the simulated node's collective engine (repeats, seeds, gin-sdma's AlltoAll-only path as
// librccl's gin_alltoall_sdma.cu decides it).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "backend/collective_types.hpp"
#include "backends/sim/collective_model.hpp"
#include "doctest_support.hpp"

namespace {

using namespace sdma::collective;
using sdma::sim::CollectiveModel;
using sdma::sim::runSimCollective;
using sdma::testing::MiB;

struct Captured {
  std::vector<VariantReport> variants;
  std::vector<PointReport> points;
  std::vector<std::string> warnings;
  std::int64_t lastDone = 0;
  std::int64_t lastTotal = -1;
};

Captured run(const CollectiveOptions& options, const CollectiveModel& model = {}) {
  Captured c;
  CollectiveSink sink;
  sink.variant = [&](const VariantReport& v) { c.variants.push_back(v); };
  sink.point = [&](const PointReport& p) { c.points.push_back(p); };
  sink.warning = [&](const std::string& code, const std::string&) { c.warnings.push_back(code); };
  sink.progress = [&](std::int64_t done, std::int64_t total, const std::string&) {
    c.lastDone = done;
    c.lastTotal = total;
  };
  CHECK_MESSAGE(!runSimCollective(options, 8, sink, model).failed(), "the simulated collective runs");
  return c;
}

std::string envValue(const EnvList& env, const std::string& name) {
  for (const auto& [key, value] : env) {
    if (key == name) return value;
  }
  return "(unset)";
}

TEST_CASE("ginTypeByVersion") {
  struct Row {
    int major, minor, patch;
    std::optional<int> type;
  };
  const Row rows[] = {{2, 28, 9, std::nullopt},
                      {2, 30, 3, std::nullopt},
                      {2, 30, 4, 5},
                      {2, 30, 6, 5},
                      {2, 30, 7, 6},
                      {2, 30, 99, 6},
                      {2, 31, 0, 7},
                      {2, 32, 1, 7}};
  for (const Row& r : rows) {
    const std::string v = std::to_string(r.major) + "." + std::to_string(r.minor) + "." + std::to_string(r.patch);
    CHECK_MESSAGE((ginSdmaTypeForRccl(r.major, r.minor, r.patch) == r.type),
                  ("RCCL " + v + ": Anvil SDMA is " + (r.type ? std::to_string(*r.type) : std::string("not there"))));
  }
}

TEST_CASE("ginEnv") {
  const EnvList env = ginSdmaEnv(7);
  const std::vector<std::string> names = {"NCCL_GIN_ENABLE",
                                          "NCCL_GIN_TYPE",
                                          "NCCL_GIN_A2A_ENABLE",
                                          "NCCL_GIN_A2A_MIN_BYTES",
                                          "NCCL_GIN_A2A_SDMA_MIN_BYTES",
                                          "NCCL_CUMEM_ENABLE",
                                          "NCCL_DMABUF_ENABLE",
                                          "HSA_NO_SCRATCH_RECLAIM"};
  std::vector<std::string> got;
  for (const auto& [name, value] : env) got.push_back(name);
  CHECK_MESSAGE((got == names),
                ("gin-sdma env: the prerequisites, the GIN type and the three AlltoAll forcing values, in order"));
  CHECK_MESSAGE((envValue(env, "NCCL_GIN_TYPE") == "7" && envValue(env, "NCCL_GIN_A2A_SDMA_MIN_BYTES") == "0" &&
                 envValue(env, "NCCL_GIN_A2A_MIN_BYTES") == "0" && envValue(env, "NCCL_GIN_A2A_ENABLE") == "1"),
                ("gin-sdma env: type 7, AlltoAll GIN path on, no minimum, SDMA from 0 bytes per peer"));
  CHECK_MESSAGE((envValue(env, "RCCL_ENABLE_INTRANET") == "(unset)"), ("gin-sdma env: no RCCL_ENABLE_INTRANET"));
}

TEST_CASE("medians") {
  CHECK_MESSAGE((medianOf({}) == 0.0), ("median of nothing: 0"));
  CHECK_MESSAGE((medianOf({3.0}) == 3.0), ("median of one"));
  CHECK_MESSAGE((medianOf({5.0, 1.0, 3.0}) == 3.0), ("median of three: the middle one"));
  CHECK_MESSAGE((medianOf({4.0, 1.0, 3.0, 2.0}) == 2.5), ("median of four: the mean of the middle two"));
}

CollectiveOptions sweep(int repeats, std::uint64_t seed) {
  CollectiveOptions o;
  o.sizesBytes = {64 * 1024, 1 * MiB, 16 * MiB, 256 * MiB};
  o.repeats = repeats;
  o.seed = seed;
  return o;
}

TEST_CASE("repeatsAndSeeds") {
  const Captured a = run(sweep(3, 7));
  bool shaped = !a.points.empty();
  for (const PointReport& p : a.points) {
    shaped = shaped && p.samplesUs.size() == 3 && p.timeUs == medianOf(p.samplesUs) && p.samplesUs[0] != p.samplesUs[1];
  }
  CHECK_MESSAGE((shaped), ("--repeats 3: three samples per point, each with noise of its own, the time their median"));
  const Captured same = run(sweep(3, 7));
  bool identical = same.points.size() == a.points.size();
  for (std::size_t i = 0; identical && i < a.points.size(); ++i)
    identical = same.points[i].samplesUs == a.points[i].samplesUs;
  CHECK_MESSAGE((identical), ("the same seed gives the same samples"));
  const Captured other = run(sweep(3, 8));
  bool differ = other.points.size() == a.points.size();
  for (std::size_t i = 0; differ && i < a.points.size(); ++i)
    differ = other.points[i].samplesUs != a.points[i].samplesUs;
  CHECK_MESSAGE((differ), ("another seed gives other samples at every point"));
}

TEST_CASE("ginSdmaAlltoAllOnly") {
  const Captured c = run(sweep(2, 1));
  std::size_t ginPoints = 0;
  bool allAlltoAllSdma = true;
  for (const PointReport& p : c.points) {
    if (p.variant != "gin-sdma-lib") continue;
    ++ginPoints;
    allAlltoAllSdma =
        allAlltoAllSdma && p.op == Op::AlltoAll && p.transport == std::optional<std::string>("sdma") &&
        p.evidence == "AllToAll GIN: transport=sdma bytesPerPeer=" + std::to_string(p.sizeBytes / 8) + " (simulated)";
  }
  CHECK_MESSAGE((ginPoints == 4 && allAlltoAllSdma),
                ("gin-sdma: AlltoAll only, SDMA at every size (64 KiB .. 256 MiB)"));
  CHECK_MESSAGE((c.warnings == std::vector<std::string>{"variant-op-unsupported"}),
                ("gin-sdma: one variant-op-unsupported warning"));
  CHECK_MESSAGE((c.lastTotal == static_cast<std::int64_t>(c.points.size()) && c.lastDone == c.lastTotal),
                ("progress: the total counts the points that ran (" + std::to_string(c.points.size()) + ")"));

  // A user's value in the process environment would send small calls to LSA; the variant's
  // own value is set before its communicator, so the library reads that one.
  setenv("NCCL_GIN_A2A_SDMA_MIN_BYTES", "1073741824", 1);
  const Captured forced = run(sweep(1, 1));
  unsetenv("NCCL_GIN_A2A_SDMA_MIN_BYTES");
  bool stillSdma = true;
  for (const PointReport& p : forced.points) {
    if (p.variant == "gin-sdma-lib") stillSdma = stillSdma && p.transport == std::optional<std::string>("sdma");
  }
  CHECK_MESSAGE((stillSdma), ("the variant's NCCL_GIN_A2A_SDMA_MIN_BYTES=0 wins over the process environment"));
}

TEST_CASE("olderRccl") {
  CollectiveModel model;
  model.rcclMinor = 30;
  model.rcclPatch = 3;
  const Captured c = run(sweep(1, 1), model);
  bool unsupported = false;
  for (const VariantReport& v : c.variants) {
    if (v.name == "gin-sdma-lib") unsupported = !v.supported && !v.reason.empty() && !v.hint.empty() && v.env.empty();
  }
  CHECK_MESSAGE((unsupported),
                ("RCCL 2.30.3: gin-sdma is reported unsupported, with a reason and a hint, and sets nothing"));
  bool noGin = !c.points.empty();
  for (const PointReport& p : c.points) noGin = noGin && p.variant != "gin-sdma-lib";
  CHECK_MESSAGE((noGin && c.lastTotal == static_cast<std::int64_t>(c.points.size())),
                ("RCCL 2.30.3: no gin-sdma-lib points, and the progress total counts only those that ran"));

  model.rcclPatch = 5;
  const Captured guess = run(sweep(1, 1), model);
  bool five = false;
  for (const VariantReport& v : guess.variants) {
    if (v.name == "gin-sdma-lib") five = v.supported && envValue(v.env, "NCCL_GIN_TYPE") == "5";
  }
  CHECK_MESSAGE((five), ("RCCL 2.30.5: gin-sdma runs with NCCL_GIN_TYPE=5"));
}

TEST_CASE("copyEngine") {
  CollectiveOptions o = sweep(1, 1);
  o.sizesBytes = {1 * MiB, 128 * MiB};
  const Captured c = run(o);
  bool ceReported = false;
  for (const VariantReport& v : c.variants) {
    if (v.name != "ce") continue;
    ceReported = v.supported && v.symmetric && envValue(v.env, "NCCL_CTA_POLICY") == "2" &&
                 envValue(v.env, "NCCL_CUMEM_ENABLE") == "1" && envValue(v.env, "NCCL_LOCAL_REGISTER") == "0" &&
                 !v.conditions.empty();
    for (const VariantCondition& cond : v.conditions) ceReported = ceReported && cond.ok;
  }
  CHECK_MESSAGE((ceReported), ("ce: supported on the simulated RCCL 2.31.0, every condition met"));
  std::size_t ceAllGather = 0, ceAlltoAll = 0;
  bool zeroCus = true;
  double busbw128 = 0;
  for (const PointReport& p : c.points) {
    if (p.variant != "ce") continue;
    (p.op == Op::AllGather ? ceAllGather : ceAlltoAll)++;
    zeroCus = zeroCus && p.transport == std::optional<std::string>("ce") && p.cusUsed.count == 0 &&
              p.cusUsed.source == "model";
    if (p.op == Op::AllGather && !p.inPlace && p.sizeBytes == 128 * MiB)
      busbw128 = busbwGbps(p.op, p.ranks, p.sizeBytes, p.timeUs);
  }
  CHECK_MESSAGE((ceAllGather == 4 && ceAlltoAll == 2), ("ce: AllGather in both forms, AlltoAll out of place"));
  CHECK_MESSAGE((zeroCus), ("ce: every point on the copy engines, 0 CUs"));
  CHECK_MESSAGE((busbw128 > 120 && busbw128 < 136),
                ("ce: ~128 GB/s busbw at 128 MiB, got " + std::to_string(busbw128)));
  bool defaultCus = true;
  for (const PointReport& p : c.points) {
    if (p.variant == "default") defaultCus = defaultCus && p.cusUsed.count == 16 && p.cusUsed.source == "model";
    if (p.variant == "gin-sdma-lib") defaultCus = defaultCus && p.cusUsed.count == 1;
  }
  CHECK_MESSAGE((defaultCus), ("default: 16 CUs (ring, 16 channels); gin-sdma-lib SDMA: 1"));

  o.mode = RankMode::SingleProcess;
  const Captured single = run(o);
  bool fallback = false;
  for (const PointReport& p : single.points) {
    if (p.variant == "ce" && p.op == Op::AlltoAll)
      fallback = p.transport == std::optional<std::string>("kernel") && p.cusUsed.count == 16;
  }
  CHECK_MESSAGE((fallback), ("single process: ce's AlltoAll runs kernels (ncclCeAlltoAllEligible refuses a group)"));

  CollectiveOptions old = sweep(1, 1);
  old.variants = {"gin-sdma"};
  const Captured renamed = run(old);
  CHECK_MESSAGE((renamed.variants.size() == 1 && renamed.variants[0].name == "gin-sdma-lib"),
                ("the old name gin-sdma runs gin-sdma-lib"));
}

}  // namespace
