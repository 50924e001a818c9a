// The collective variants' decision (backend/collective_variants.hpp) on every branch: the
// names, the operations each runs, the environment each sets, and the conditions checked
// before the copy-engine path on NCCL and RCCL, below, at and above each threshold.
#include <map>
#include <optional>
#include <string>

#include "backend/collective_variants.hpp"
#include "doctest_support.hpp"

namespace {

using namespace sdma::collective;

LibraryFacts rccl(int major, int minor, int patch) {
  LibraryFacts f;
  f.library = "rccl";
  f.major = major;
  f.minor = minor;
  f.patch = patch;
  f.path = "/opt/rocm/lib/librccl.so.1";
  f.hasMemAlloc = f.hasWindowRegister = f.hasAlltoAll = f.hasCommInitRank = true;
  f.hipRuntimeVersion = 71200000;
  f.hipHasMemcpyBatchAsync = true;
  f.driverVersion = "6.16.6";
  f.ranks = 8;
  return f;
}

LibraryFacts nccl(int major, int minor, int patch) {
  LibraryFacts f = rccl(major, minor, patch);
  f.library = "nccl";
  f.path = "libnccl.so.2";
  f.hipRuntimeVersion.reset();
  f.hipHasMemcpyBatchAsync.reset();
  f.driverVersion.clear();
  f.gpuDriverVersion = 12080;
  return f;
}

GetEnv envOf(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    const auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

const GetEnv kNoEnv = envOf({});

const VariantCondition* conditionOf(const VariantReport& r, const std::string& name) {
  for (const VariantCondition& c : r.conditions) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string envValue(const VariantReport& r, const std::string& name) {
  for (const auto& [k, v] : r.env) {
    if (k == name) return v;
  }
  return "<unset>";
}

TEST_CASE("names") {
  CHECK(canonicalVariant("default") == std::optional<std::string>("default"));
  CHECK(canonicalVariant("ce") == std::optional<std::string>("ce"));
  CHECK(canonicalVariant("gin-sdma") == std::optional<std::string>("gin-sdma-lib"));
  CHECK(canonicalVariant("gin-sdma-lib") == std::optional<std::string>("gin-sdma-lib"));
  CHECK(!canonicalVariant("sdma"));
  CHECK(!canonicalVariant(""));
  CHECK(vendorVariants("rccl") == std::vector<std::string>{"default", "ce", "gin-sdma-lib"});
  CHECK(vendorVariants("nccl") == std::vector<std::string>{"default", "ce"});
  const VariantReport unknown = describeVariant(rccl(2, 31, 0), "sdma", kNoEnv);
  CHECK(!unknown.supported);
  CHECK(unknown.reason.find("not a variant") != std::string::npos);
  CHECK(unknown.hint == "--variants default,ce,gin-sdma-lib");
}

TEST_CASE("ops") {
  CHECK(variantRunsOp("rccl", "default", Op::AllGather));
  CHECK(variantRunsOp("rccl", "ce", Op::AllGather));
  CHECK(variantRunsOp("rccl", "ce", Op::AlltoAll));
  CHECK(!variantRunsOp("rccl", "gin-sdma-lib", Op::AllGather));
  CHECK(!variantRunsOp("rccl", "gin-sdma", Op::AllGather));
  CHECK(variantRunsOp("rccl", "gin-sdma-lib", Op::AlltoAll));
  CHECK(variantRunsOp("nccl", "ce", Op::AlltoAll));
  CHECK(variantOpSkipped("rccl", "gin-sdma-lib", Op::AlltoAll).empty());
  const std::string skipped = variantOpSkipped("rccl", "gin-sdma", Op::AllGather);
  CHECK(skipped.rfind("gin-sdma-lib: librccl has no in-library GIN-SDMA AllGather", 0) == 0);
  CHECK(skipped.find("so gin-sdma-lib runs AlltoAll only") != std::string::npos);
}

TEST_CASE("default") {
  const VariantReport r = describeVariant(rccl(2, 31, 0), "default", kNoEnv);
  CHECK(r.supported);
  CHECK(r.env.empty());
  CHECK(r.conditions.empty());
  CHECK(!r.symmetric);
  CHECK(r.library == "rccl");
  CHECK(r.libraryVersion == "2.31.0");
  CHECK(r.libraryPath == "/opt/rocm/lib/librccl.so.1");
}

TEST_CASE("ginSdmaLib") {
  for (const char* name : {"gin-sdma", "gin-sdma-lib"}) {
    const VariantReport r = describeVariant(rccl(2, 31, 0), name, kNoEnv);
    CHECK(r.name == "gin-sdma-lib");
    CHECK(r.supported);
    CHECK(r.symmetric);
    CHECK(envValue(r, "NCCL_GIN_TYPE") == "7");
    CHECK(r.env == ginSdmaEnv(7));
  }
  CHECK(envValue(describeVariant(rccl(2, 30, 7), "gin-sdma-lib", kNoEnv), "NCCL_GIN_TYPE") == "6");
  CHECK(envValue(describeVariant(rccl(2, 30, 4), "gin-sdma-lib", kNoEnv), "NCCL_GIN_TYPE") == "5");
  const VariantReport old = describeVariant(rccl(2, 30, 3), "gin-sdma-lib", kNoEnv);
  CHECK(!old.supported);
  CHECK(old.reason == ginSdmaUnsupportedReason("2.30.3"));
  CHECK(old.hint == ginSdmaUnsupportedHint());
  REQUIRE(conditionOf(old, "rccl version"));
  CHECK(!conditionOf(old, "rccl version")->ok);

  LibraryFacts noWin = rccl(2, 31, 0);
  noWin.hasWindowRegister = false;
  const VariantReport lacks = describeVariant(noWin, "gin-sdma-lib", kNoEnv);
  CHECK(!lacks.supported);
  CHECK(lacks.reason.find("lacks symmetric windows") != std::string::npos);

  const VariantReport onNccl = describeVariant(nccl(2, 28, 9), "gin-sdma", kNoEnv);
  CHECK(!onNccl.supported);
  CHECK(onNccl.reason.find("RCCL's") != std::string::npos);
  CHECK(!onNccl.symmetric);

  // An inherited value is reported and replaced.
  const VariantReport user =
      describeVariant(rccl(2, 31, 0), "gin-sdma-lib", envOf({{"NCCL_GIN_A2A_SDMA_MIN_BYTES", "8388608"}}));
  CHECK(user.supported);
  REQUIRE(conditionOf(user, "NCCL_GIN_A2A_SDMA_MIN_BYTES"));
  CHECK(conditionOf(user, "NCCL_GIN_A2A_SDMA_MIN_BYTES")->found.find("8388608") != std::string::npos);
  CHECK(envValue(user, "NCCL_GIN_A2A_SDMA_MIN_BYTES") == "0");
}

TEST_CASE("ceRccl") {
  const VariantReport r = describeVariant(rccl(2, 31, 0), "ce", kNoEnv);
  CHECK(r.supported);
  CHECK(r.symmetric);
  CHECK(r.env == rcclCeEnv());
  CHECK(envValue(r, "NCCL_CTA_POLICY") == "2");
  CHECK(envValue(r, "NCCL_CUMEM_ENABLE") == "1");
  CHECK(envValue(r, "NCCL_LOCAL_REGISTER") == "0");
  for (const char* name :
       {"rccl version", "ncclMemAlloc + ncclCommWindowRegister", "hipMemcpyBatchAsync", "hipDriverGetVersion",
        "amdgpu driver", "xGMI between all ranks", "NCCL_CTA_POLICY", "NCCL_CUMEM_ENABLE", "NCCL_LOCAL_REGISTER"}) {
    REQUIRE_MESSAGE(conditionOf(r, name), name);
    CHECK_MESSAGE(conditionOf(r, name)->ok, name);
  }
  CHECK(r.hint.empty());

  // Versions below, at and above 2.28.0.
  CHECK(!describeVariant(rccl(2, 27, 7), "ce", kNoEnv).supported);
  CHECK(describeVariant(rccl(2, 28, 0), "ce", kNoEnv).supported);
  CHECK(describeVariant(rccl(2, 32, 1), "ce", kNoEnv).supported);

  // The driver window: below 7.12, the 7.0.2.x backport, just past it.
  for (const auto& [version, ok] : std::vector<std::pair<int, bool>>{{71199999, false},
                                                                     {71200000, true},
                                                                     {72000000, true},
                                                                     {70051830, false},
                                                                     {70051831, true},
                                                                     {70059999, true},
                                                                     {70060000, false},
                                                                     {70100000, false}}) {
    LibraryFacts f = rccl(2, 31, 0);
    f.gpuDriverVersion = version;
    const VariantReport v = describeVariant(f, "ce", kNoEnv);
    CHECK_MESSAGE(v.supported == ok, version);
    CHECK(rcclCeDriverInWindow(version) == ok);
    if (!ok) {
      CHECK(v.reason.find("hipDriverGetVersion") != std::string::npos);
      CHECK(v.hint.find("7.12") != std::string::npos);
    }
  }
  CHECK(hipVersionText(71200000) == "7.12.0");
  CHECK(hipVersionText(70051831) == "7.0.51831");

  // The runtime version stands in for the driver's when that was not read.
  LibraryFacts rt = rccl(2, 31, 0);
  rt.hipRuntimeVersion = 70100000;
  const VariantReport byRuntime = describeVariant(rt, "ce", kNoEnv);
  CHECK(!byRuntime.supported);
  CHECK(conditionOf(byRuntime, "hipDriverGetVersion")->found == "7.1.0 (hipRuntimeGetVersion)");

  // Missing hipMemcpyBatchAsync refuses; an unreadable one is unverified, not refused.
  LibraryFacts noBatch = rccl(2, 31, 0);
  noBatch.hipHasMemcpyBatchAsync = false;
  const VariantReport nb = describeVariant(noBatch, "ce", kNoEnv);
  CHECK(!nb.supported);
  CHECK(nb.reason.find("hipMemcpyBatchAsync (needs present, found missing)") != std::string::npos);
  LibraryFacts unread = rccl(2, 31, 0);
  unread.hipHasMemcpyBatchAsync.reset();
  unread.hipRuntimeVersion.reset();
  unread.driverVersion.clear();
  const VariantReport un = describeVariant(unread, "ce", kNoEnv);
  CHECK(un.supported);
  CHECK(conditionOf(un, "hipMemcpyBatchAsync")->found == "unknown");
  CHECK(conditionOf(un, "hipDriverGetVersion")->found == "unknown");
  CHECK(conditionOf(un, "amdgpu driver")->found == "unknown");
  CHECK(un.hint.find("unverified: hipMemcpyBatchAsync, hipDriverGetVersion") != std::string::npos);
  // Unverified and failing together: both in the reason.
  unread.allPeersDirect = false;
  const VariantReport both = describeVariant(unread, "ce", kNoEnv);
  CHECK(!both.supported);
  CHECK(both.reason.find("xGMI between all ranks") != std::string::npos);
  CHECK(both.reason.find("unverified") != std::string::npos);

  // Symbols missing.
  LibraryFacts noAlloc = rccl(2, 31, 0);
  noAlloc.hasMemAlloc = false;
  CHECK(!describeVariant(noAlloc, "ce", kNoEnv).supported);

  // The inherited environment: a contradicting value is reported, the variant's wins.
  const VariantReport user =
      describeVariant(rccl(2, 31, 0), "ce", envOf({{"NCCL_LOCAL_REGISTER", "1"}, {"NCCL_CTA_POLICY", "2"}}));
  CHECK(user.supported);
  CHECK(envValue(user, "NCCL_LOCAL_REGISTER") == "0");
  CHECK(conditionOf(user, "NCCL_LOCAL_REGISTER")->found.find("inherited 1 is replaced") != std::string::npos);
  CHECK(conditionOf(user, "NCCL_CTA_POLICY")->found.find("inherited") == std::string::npos);

  // One process driving every GPU: AlltoAll is named as falling back, the variant still runs.
  LibraryFacts grouped = rccl(2, 31, 0);
  grouped.grouped = true;
  const VariantReport g = describeVariant(grouped, "ce", kNoEnv);
  CHECK(g.supported);
  REQUIRE(conditionOf(g, "AlltoAll outside ncclGroupStart/End"));
  CHECK(!conditionOf(g, "AlltoAll outside ncclGroupStart/End")->ok);
  CHECK(g.hint.find("ncclCeAlltoAllEligible") != std::string::npos);
}

TEST_CASE("ceNccl") {
  const VariantReport r = describeVariant(nccl(2, 28, 9), "ce", kNoEnv);
  CHECK(r.supported);
  CHECK(r.symmetric);
  CHECK(r.env == ceEnv());
  CHECK(r.library == "nccl");
  CHECK(!conditionOf(r, "NVLink between all ranks"));  // 2.28: one node is enough
  CHECK(!describeVariant(nccl(2, 27, 7), "ce", kNoEnv).supported);
  CHECK(describeVariant(nccl(2, 28, 0), "ce", kNoEnv).supported);
  const VariantReport old = describeVariant(nccl(2, 27, 7), "ce", kNoEnv);
  CHECK(old.reason.find("nccl version (needs >= 2.28.0, found 2.27.7)") != std::string::npos);
  CHECK(old.hint == "use nccl >= 2.28 (--nccl-lib PATH)");

  LibraryFacts pcie = nccl(2, 30, 7);
  pcie.allPeersDirect = false;
  const VariantReport p = describeVariant(pcie, "ce", kNoEnv);
  CHECK(!p.supported);
  CHECK(p.reason.find("NVLink between all ranks") != std::string::npos);
  pcie.allPeersDirect = true;
  CHECK(describeVariant(pcie, "ce", kNoEnv).supported);

  LibraryFacts oldDriver = nccl(2, 29, 2);
  oldDriver.gpuDriverVersion = 12040;
  CHECK(!describeVariant(oldDriver, "ce", kNoEnv).supported);
  oldDriver.gpuDriverVersion = 12050;
  CHECK(describeVariant(oldDriver, "ce", kNoEnv).supported);
  oldDriver.gpuDriverVersion.reset();
  const VariantReport unknownDriver = describeVariant(oldDriver, "ce", kNoEnv);
  CHECK(unknownDriver.supported);
  CHECK(unknownDriver.hint.find("unverified: CUDA driver") != std::string::npos);

  const VariantReport winOff = describeVariant(nccl(2, 28, 9), "ce", envOf({{"NCCL_WIN_ENABLE", "0"}}));
  CHECK(!winOff.supported);
  CHECK(winOff.hint.find("unset NCCL_WIN_ENABLE") != std::string::npos);
  const VariantReport policy = describeVariant(nccl(2, 28, 9), "ce", envOf({{"NCCL_CTA_POLICY", "1"}}));
  CHECK(policy.supported);
  CHECK(envValue(policy, "NCCL_CTA_POLICY") == "2");
  CHECK(conditionOf(policy, "NCCL_CTA_POLICY")->found.find("inherited 1 is replaced") != std::string::npos);

  // A null GetEnv reads as an empty environment.
  CHECK(describeVariant(nccl(2, 28, 9), "ce", GetEnv{}).supported);
}

}  // namespace
