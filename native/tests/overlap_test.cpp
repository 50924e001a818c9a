// The overlap run on the simulated node (runSimOverlap) and its flags: every beside record
// carries the copy alone, what the copy kept, the CU arithmetic and what moved the bytes; a
// memory-bound triad loses to the copy's HBM traffic, a compute-bound GEMM about the CUs the copy
// took; --size takes a list, --compute takes triad, bad values are usage errors.
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "backend/collective_types.hpp"
#include "backends/sim/collective_model.hpp"
#include "cli/args.hpp"
#include "cli/entries.hpp"
#include "cli/flag_table.hpp"
#include "doctest_support.hpp"
#include "util/parse.hpp"

namespace {

using namespace sdma::collective;
using sdma::sim::Route;
using sdma::sim::runSimOverlap;
using sdma::testing::MiB;

constexpr int kCus = 256;

struct Captured {
  std::vector<OverlapReport> points;
  std::int64_t progressCalls = 0;
  std::int64_t lastDone = 0;
  std::int64_t lastTotal = -1;
};

Captured run(const OverlapOptions& o, Route route) {
  Captured c;
  OverlapSink sink;
  sink.point = [&](const OverlapReport& r) { c.points.push_back(r); };
  sink.warning = [](const std::string&, const std::string&) {};
  sink.progress = [&](std::int64_t done, std::int64_t total, const std::string&) {
    ++c.progressCalls;
    c.lastDone = done;
    c.lastTotal = total;
  };
  REQUIRE_FALSE(runSimOverlap(o, kCus, sink, {}, route).failed());
  return c;
}

OverlapOptions options(int src, int dst) {
  OverlapOptions o;
  o.computes = {"gemm", "fma", "triad"};
  o.paths = {"cu/host", "engine/host"};
  o.cus = {8, 32};
  o.copySizesBytes = {64 * MiB, 256 * MiB};
  o.phaseMs = 100;
  o.srcGpu = src;
  o.dstGpu = dst;
  return o;
}

const OverlapReport& beside(const Captured& c, const std::string& compute, const std::string& path, int cus,
                            std::uint64_t size = 256 * MiB) {
  for (const OverlapReport& r : c.points) {
    if (r.compute == compute && r.phase == "beside" && r.path == path && r.cus == cus && r.copySizeBytes == size) {
      return r;
    }
  }
  FAIL("no beside record for " << compute << " " << path << " " << cus);
  return c.points.front();
}

template <typename Fn>
std::string usageError(Fn fn) {
  try {
    fn();
  } catch (const sdma::UsageError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("every phase of the sim overlap, its figures consistent") {
  const OverlapOptions o = options(0, 0);
  const Captured c = run(o, Route::Local);
  // 2 sizes x (2 cu/host + engine/host) copies alone, then per compute those beside, alone before and after.
  const std::int64_t copies = 2 * 3;
  CHECK(c.lastTotal == copies + 3 * (copies + 2));
  CHECK(c.lastDone == c.lastTotal);
  CHECK(c.progressCalls == c.lastTotal);
  CHECK(c.points.size() == static_cast<std::size_t>(3 * (copies + 2)));

  std::map<std::tuple<std::string, int, std::uint64_t>, double> copyAlone;
  for (const OverlapReport& r : c.points) {
    CAPTURE(r.compute);
    CAPTURE(r.path);
    CHECK(r.bound == (r.compute == "triad" ? "memory" : "compute"));
    CHECK(r.telemetry == "model");
    CHECK(r.totalCus == kCus);
    CHECK(r.clocks.smMHz.has_value());
    CHECK(r.computeGbps.has_value() == (r.compute == "triad"));
    if (r.compute == "triad") CHECK(*r.computeGbps / r.computeTflops == doctest::Approx(6000).epsilon(1e-9));
    if (r.path == "alone") {
      CHECK(r.copySizeBytes == 0);
      CHECK_FALSE(r.keptFraction.has_value());
      CHECK_FALSE(r.copyGbps.has_value());
      CHECK_FALSE(r.copyAloneGbps.has_value());
      CHECK_FALSE(r.bandwidthKept.has_value());
      CHECK_FALSE(r.cusUsed.has_value());
      CHECK_FALSE(r.cuArithmetic.has_value());
      CHECK_FALSE(r.mechanism.has_value());
      continue;
    }
    REQUIRE(r.keptFraction.has_value());
    REQUIRE(r.copyGbps.has_value());
    REQUIRE(r.copyAloneGbps.has_value());
    REQUIRE(r.bandwidthKept.has_value());
    REQUIRE(r.cusUsed.has_value());
    REQUIRE(r.cuArithmetic.has_value());
    REQUIRE(r.mechanism.has_value());
    CHECK(*r.cusUsed == (r.path == "cu/host" ? r.cus : 0));
    CHECK(*r.cuArithmetic == doctest::Approx(static_cast<double>(r.totalCus - *r.cusUsed) / r.totalCus));
    CHECK(*r.bandwidthKept == doctest::Approx(*r.copyGbps / *r.copyAloneGbps));
    CHECK(r.copies > 0);
    // One copy alone, reused beside every compute.
    const auto key = std::make_tuple(r.path, r.cus, r.copySizeBytes);
    if (copyAlone.count(key) != 0) CHECK(copyAlone[key] == *r.copyAloneGbps);
    copyAlone[key] = *r.copyAloneGbps;
  }
  CHECK(copyAlone.size() == static_cast<std::size_t>(copies));
  CHECK(*beside(c, "gemm", "cu/host", 32).mechanism == "load/store kernel on 32 CUs (highest-priority stream)");
  CHECK(*beside(c, "gemm", "engine/host", 0).mechanism ==
        "hipMemcpyAsync device-to-device NoCU (SDMA), started by the host");
}

TEST_CASE("triad: the copy's HBM traffic decides, not its CUs") {
  const Captured local = run(options(0, 0), Route::Local);
  for (const char* path : {"cu/host", "engine/host"}) {
    for (int cus : {8, 32}) {
      if (std::string(path) == "engine/host" && cus != 8) continue;
      const OverlapReport r = beside(local, "triad", path, std::string(path) == "cu/host" ? cus : 0);
      CAPTURE(path);
      CAPTURE(cus);
      // A GPU-local copy reads and writes HBM: the triad keeps less than the CUs it was left,
      // and the copy loses bandwidth to it too (one SDMA engine's 120 GB/s of HBM traffic
      // costs it a few percent; a load/store copy's far more).
      const bool cu = std::string(path) == "cu/host";
      CHECK(*r.keptFraction < *r.cuArithmetic - (cu ? 0.02 : 0));
      CHECK(*r.bandwidthKept < (cu ? 0.95 : 1));
    }
  }
  // An HBM-heavy copy (32 CUs copying within the GPU, about 2.6 TB/s of HBM traffic).
  const OverlapReport heavy = beside(local, "triad", "cu/host", 32);
  CHECK(*heavy.keptFraction < *heavy.cuArithmetic - 0.15);
  CHECK(*heavy.bandwidthKept < 0.8);

  // Over xGMI the copy moves little HBM: the triad, which needs a third of the CUs, keeps far
  // more than the CU arithmetic.
  const Captured peer = run(options(0, 1), Route::Peer);
  const OverlapReport light = beside(peer, "triad", "cu/host", 32);
  CHECK(*light.keptFraction > *light.cuArithmetic + 0.08);
  CHECK(*light.keptFraction > 0.97);
}

TEST_CASE("gemm and fma: compute-bound, within a few percent of the CU arithmetic") {
  for (const auto& [src, dst, route] : {std::tuple{0, 1, Route::Peer}, std::tuple{0, 0, Route::Local},
                                        std::tuple{sdma::kHostEndpoint, 0, Route::HostToGpu}}) {
    const Captured c = run(options(src, dst), route);
    for (const char* compute : {"gemm", "fma"}) {
      for (int cus : {8, 32}) {
        const OverlapReport r = beside(c, compute, "cu/host", cus);
        CAPTURE(compute);
        CAPTURE(cus);
        CHECK(std::abs(*r.keptFraction - *r.cuArithmetic) < 0.06);
        CHECK(*r.bandwidthKept > 0.95);
      }
      const OverlapReport engine = beside(c, compute, "engine/host", 0);
      CHECK(*engine.cuArithmetic == 1.0);
      CHECK(*engine.keptFraction > 0.93);
    }
  }
}

TEST_CASE("engine/device holds the issuing kernel's one CU") {
  OverlapOptions o = options(0, 1);
  o.paths = {"engine/device"};
  o.computes = {"gemm"};
  const Captured c = run(o, Route::Peer);
  const OverlapReport r = beside(c, "gemm", "engine/device", 0);
  CHECK(*r.cusUsed == 1);
  CHECK(*r.cuArithmetic == doctest::Approx(255.0 / 256));
  CHECK(*r.mechanism == "rocSHMEM put from a kernel in PE processes (GPU-initiated SDMA)");
}

TEST_CASE("the overlap's flags: --size a list, --compute triad, bad values refused") {
  const auto command = [] { return sdma::collective::makeOverlapCommand({}); };
  CHECK(usageError([&] {
          auto c = command();
          c->flag("--size", "64M,256M");
          c->flag("--compute", "triad");
          c->flag("--compute", "gemm,fma,triad");
          c->finish();
        }) == "");
  CHECK(usageError([&] { command()->flag("--compute", "gemv"); }).find("--compute: 'gemv'") == 0);
  CHECK(usageError([&] { command()->flag("--size", "8"); }).find("--size") == 0);
  CHECK(usageError([&] { command()->flag("--size", "64M,x"); }).find("--size") == 0);

  const std::vector<sdma::cli::FlagSpec>& rows = sdma::cli::overlapFlags();
  const sdma::cli::FlagSpec* size = nullptr;
  for (const sdma::cli::FlagSpec& row : rows) {
    if (row.name == "--size") size = &row;
  }
  REQUIRE(size != nullptr);
  REQUIRE((size->check != nullptr));
  CHECK(usageError([&] { size->check(*size, "64M,256M"); }) == "");
  CHECK(usageError([&] { size->check(*size, "0"); }) != "");
  CHECK(usageError([&] { size->check(*size, "1M,,2M"); }) != "");
}
