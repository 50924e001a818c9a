#include "backends/sim/collective_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <utility>

#include "backend/collective_variants.hpp"
#include "util/cancel.hpp"
#include "util/checked.hpp"

namespace sdma::sim {

using namespace sdma::collective;

namespace {

std::uint64_t elementBytesOf(const std::string& dtype) {
  if (dtype == "bf16" || dtype == "bfloat16" || dtype == "half") return 2;
  if (dtype == "uint8" || dtype == "int8") return 1;
  return 4;
}

// What librccl reads for one of its parameters: the variant's own setting (set before its
// communicator, so it wins), else the process environment, else the library's default. Text
// that is not a whole number falls back to the default, as NCCL_PARAM does.
std::int64_t libraryParam(const EnvList& variantEnv, const char* name, std::int64_t fallback) {
  const char* text = nullptr;
  for (const auto& [key, value] : variantEnv) {
    if (key == name) text = value.c_str();
  }
  if (text == nullptr) text = std::getenv(name);
  if (text == nullptr) return fallback;
  return ingest::parseInt64(text).value_or(fallback);
}

// The path librccl's ncclAlltoAll takes for one call of the gin-sdma variant, as
// ncclAllToAllGinSdmaEligible and ncclAllToAllGinSdma decide it (gin_alltoall_sdma.cu; the
// parameters are compared as size_t there, so a negative one is a huge bound).
enum class A2APath { Sdma, Lsa, NotEligible };

A2APath ginAlltoAllPath(const CollectiveModel& m, const EnvList& env, std::uint64_t bytesPerPeer) {
  const std::int64_t enable = libraryParam(env, "NCCL_GIN_A2A_ENABLE", m.a2aEnable);
  const auto minBytes = static_cast<std::uint64_t>(libraryParam(env, "NCCL_GIN_A2A_MIN_BYTES", m.a2aMinBytes));
  const auto sdmaMin = static_cast<std::uint64_t>(libraryParam(env, "NCCL_GIN_A2A_SDMA_MIN_BYTES", m.a2aSdmaMinBytes));
  if (enable == 0 || bytesPerPeer == 0 || bytesPerPeer < minBytes) return A2APath::NotEligible;
  return bytesPerPeer >= sdmaMin ? A2APath::Sdma : A2APath::Lsa;
}

enum class Path { Default, Ce, GinSdma, GinLsa };

double timeUs(const CollectiveModel& m, Op op, Path path, std::uint64_t sizeBytes, int ranks) {
  const double busBytes = static_cast<double>(sizeBytes) * busbwFactor(op, ranks);
  if (path == Path::Default || path == Path::GinLsa) {
    const double gbps = op == Op::AllGather ? m.defaultAllGatherBusGbps : m.defaultAlltoAllBusGbps;
    return m.defaultFixedUs + busBytes / (gbps * 1e3);
  }
  if (path == Path::Ce) return m.ceFixedUs + busBytes / (m.ceBusGbps * 1e3);
  const std::uint64_t perPeer = sizeBytes / static_cast<std::uint64_t>(ranks);
  const double packets = std::ceil(static_cast<double>(perPeer) / static_cast<double>(m.packetBytes));
  return m.sdmaFixedUs + m.sdmaDispatchUs + m.sdmaPerPacketUs * packets + busBytes / (m.sdmaAlltoAllBusGbps * 1e3);
}

// What the simulated node's librccl and HIP runtime are taken to be (docs/SIMULATOR.md,
// "Collectives and overlap"): RCCL 2.31.0 with symmetric windows, ROCm 7.12 (hipMemcpyBatchAsync
// present, hipDriverGetVersion 7.12.0), eight MI350X all linked by xGMI on one node.
LibraryFacts simulatedFacts(const CollectiveModel& m, int ranks, RankMode mode) {
  LibraryFacts f;
  f.library = "rccl";
  f.major = m.rcclMajor;
  f.minor = m.rcclMinor;
  f.patch = m.rcclPatch;
  f.path = "librccl.so.1 (simulated)";
  f.hasMemAlloc = f.hasWindowRegister = f.hasAlltoAll = f.hasCommInitRank = true;
  f.hipRuntimeVersion = 71200000;
  f.gpuDriverVersion = 71200000;
  f.hipHasMemcpyBatchAsync = true;
  f.driverVersion = "simulated";
  f.allPeersDirect = true;
  f.ranks = ranks;
  f.grouped = mode == RankMode::SingleProcess;
  return f;
}

CusUsed modelCus(int count, std::string evidence) {
  CusUsed c;
  c.count = count;
  c.source = "model";
  c.evidence = std::move(evidence);
  return c;
}

}  // namespace

Error runSimCollective(const CollectiveOptions& options, int gpuCount, const CollectiveSink& sink,
                       const CollectiveModel& model) {
  std::vector<std::string> variants;
  for (const std::string& given : options.variants) {
    const std::optional<std::string> name = canonicalVariant(given);
    if (!name) {
      return {"usage", "--variants: " + given + " is not a variant of this node (AMD: default, ce, gin-sdma-lib)",
              "use default, ce or gin-sdma-lib (gin-sdma is gin-sdma-lib's old name)"};
    }
    variants.push_back(*name);
  }
  if (variants.empty()) variants = vendorVariants("rccl");
  const int ranks = options.gpus.empty() ? gpuCount : static_cast<int>(options.gpus.size());
  const std::uint64_t elementBytes = elementBytesOf(options.dtype);
  const LibraryFacts facts = simulatedFacts(model, ranks, options.mode);
  const GetEnv userEnv = [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
  };
  std::vector<VariantReport> reports;
  for (const std::string& name : variants) {
    reports.push_back(describeVariant(facts, name, userEnv));
    reports.back().mode = options.mode;
  }
  const int repeats = std::max(options.repeats, 1);
  std::mt19937_64 rng(options.seed * 0x9E3779B97F4A7C15ull + 17);
  std::lognormal_distribution<double> noise(0.0, model.jitterSigma);

  // Points of one variant: the sizes that hold a whole element per rank, in each form its
  // operations define, without the operations it does not run.
  std::int64_t sizes = 0;
  for (std::uint64_t requested : options.sizesBytes) {
    if (alignedSizeBytes(requested, ranks, elementBytes) > 0) ++sizes;
  }
  const auto pointsOf = [&](const VariantReport& report) {
    if (!report.supported) return std::int64_t{0};
    std::int64_t points = 0;
    for (Op op : options.ops) {
      if (!variantRunsOp("rccl", report.name, op)) continue;
      points += sizes * ((options.outOfPlace ? 1 : 0) + (options.inPlace && op == Op::AllGather ? 1 : 0));
    }
    return points;
  };
  std::int64_t total = 0;
  for (const VariantReport& report : reports) total += pointsOf(report);
  std::int64_t done = 0;
  for (const VariantReport& report : reports) {
    const std::string& name = report.name;
    sink.variant(report);
    if (!report.supported) continue;
    for (Op op : options.ops) {
      if (!variantRunsOp("rccl", name, op)) {
        sink.warning("variant-op-unsupported", variantOpSkipped("rccl", name, op));
        continue;
      }
      for (std::uint64_t requested : options.sizesBytes) {
        const std::uint64_t size = alignedSizeBytes(requested, ranks, elementBytes);
        if (size == 0) continue;
        const std::uint64_t bytesPerPeer = size / static_cast<std::uint64_t>(ranks);
        for (int form = 0; form < 2; ++form) {
          const bool inPlace = form == 1;
          if (inPlace ? !(options.inPlace && op == Op::AllGather) : !options.outOfPlace) continue;
          if (cancel::requested()) return {};
          PointReport point;
          point.op = op;
          point.variant = name;
          point.ranks = ranks;
          point.sizeBytes = size;
          point.count = size / elementBytes;
          point.dtype = options.dtype;
          point.inPlace = inPlace;
          point.iters = options.iters;
          const int defaultChannels =
              op == Op::AllGather ? model.defaultAllGatherChannels : model.defaultAlltoAllChannels;
          const std::string defaultCusWhy = std::to_string(defaultChannels) + " channels, one CTA each (assumption)";
          Path path = Path::Default;
          if (name == "default") {
            // What the library itself would say: its tuner line for AllGather (ring, Simple
            // protocol, over the channels), and no per-call line for the p2p AlltoAll, whose
            // kernels a graph capture shows.
            if (op == Op::AllGather) {
              point.transport = "ring/simple";
              point.evidence = "AllGather: " + std::to_string(size) +
                               " Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0.." +
                               std::to_string(defaultChannels - 1) + "} (simulated)";
            } else {
              point.transport = "kernel";
              point.evidence =
                  "no algorithm line for this call (p2p path) | graph capture of one call: " + std::to_string(ranks) +
                  " kernel, 0 copy, 0 other nodes (all ranks) (simulated)";
            }
            point.cusUsed = modelCus(defaultChannels, "default " + std::string(opName(op)) + ": " + defaultCusWhy);
          } else if (name == "ce") {
            if (op == Op::AlltoAll && facts.grouped) {
              point.transport = "kernel";
              point.evidence =
                  "no CE line: inside ncclGroupStart/End RCCL's copy-engine AlltoAll is not eligible "
                  "(ncclCeAlltoAllEligible), its kernels ran (simulated)";
              point.cusUsed = modelCus(defaultChannels, "kernel fallback: " + defaultCusWhy);
            } else {
              path = Path::Ce;
              point.transport = "ce";
              point.evidence = "CE: rank 0 -> Batch path without intraBatchSync (hipMemcpyBatchAsync), numOps=" +
                               std::to_string(ranks) + " (simulated)";
              point.cusUsed = modelCus(0, "copy engines only: zero CTAs (NCCL_CTA_POLICY=2)");
            }
          } else {
            const A2APath a2a = ginAlltoAllPath(model, report.env, bytesPerPeer);
            if (a2a == A2APath::NotEligible) {
              point.transport = "kernel";
              point.evidence =
                  "no GIN line: ncclAlltoAll was not eligible for its GIN path (NCCL_GIN_A2A_ENABLE=0 or "
                  "bytesPerPeer=" +
                  std::to_string(bytesPerPeer) + " below NCCL_GIN_A2A_MIN_BYTES), its default kernels ran (simulated)";
              point.cusUsed = modelCus(defaultChannels, "default kernels: " + defaultCusWhy);
            } else {
              const bool sdma = a2a == A2APath::Sdma;
              path = sdma ? Path::GinSdma : Path::GinLsa;
              point.transport = sdma ? "sdma" : "lsa";
              const int ctas = sdma ? model.ginSdmaCtas : model.ginLsaCtas;
              point.evidence = "AllToAll GIN: transport=" + *point.transport +
                               " bytesPerPeer=" + std::to_string(bytesPerPeer) +
                               (sdma ? "" : " ctas=" + std::to_string(ctas)) + " (simulated)";
              point.cusUsed = modelCus(ctas, sdma ? "the SDMA put kernel: one block (assumption)"
                                                  : "the LSA copy kernel's ctas= (assumption)");
            }
          }
          // Each repeat is a timed loop of its own, with noise of its own. In-place AllGather
          // skips the local slice copy: a hair quicker.
          const double modelUs = timeUs(model, op, path, size, ranks) * (inPlace ? 0.995 : 1.0);
          for (int r = 0; r < repeats; ++r) point.samplesUs.push_back(modelUs * noise(rng));
          point.timeUs = medianOf(point.samplesUs);
          point.wrong = options.check ? 0 : -1;
          sink.point(point);
          sink.progress(++done, total, std::string(opName(op)) + " " + name);
        }
      }
    }
  }
  return {};
}

double copyHbmFactor(Route route) { return route == Route::Local ? 2.0 : 1.0; }

Error runSimOverlap(const OverlapOptions& options, int cusPerGpu, const OverlapSink& sink, const CollectiveModel& model,
                    Route route) {
  const Mi350xModel pairModel;
  std::mt19937_64 rng(options.seed * 0xD1B54A32D192ED03ull + 5);
  std::lognormal_distribution<double> noise(0.0, 0.01);
  const std::vector<OverlapCopy> copies = overlapCopies(options);
  const std::int64_t total = overlapPhaseCount(options);
  std::int64_t done = 0;
  const int triadBlocks = cusPerGpu * 8;

  // A copy with nothing else running: the same copy models as the sweep's (peer copies at the
  // overlap's own figures).
  const auto nominalGbps = [&](const OverlapCopy& c) {
    if (c.path == "cu/host" || c.path == "cu/device") {
      return route == Route::Peer ? std::min(c.cus * model.cuCopyGbpsPerCu, model.engineCopyGbps * 1.02)
                                  : cuCopyGbps(pairModel, c.cus, route);
    }
    return route == Route::Peer ? model.engineCopyGbps * (c.path == "engine/device" ? 0.99 : 1.0)
                                : engineCopyGbps(pairModel, pairModel.enginesPerCopy, route);
  };
  std::vector<double> aloneGbps;
  for (const OverlapCopy& c : copies) {
    if (cancel::requested()) return {};
    aloneGbps.push_back(nominalGbps(c) * noise(rng));
    sink.progress(++done, total, "copy-alone " + overlapCopyName(c));
  }

  for (const std::string& compute : options.computes) {
    const bool gemm = compute == "gemm";
    const bool triad = compute == "triad";
    const double aloneTflops = gemm ? model.gemmAloneTflops : model.fmaAloneTflops;
    const std::string label = gemm ? "GEMM bf16 " + std::to_string(options.gemmN) + "^3 (simulated)"
                              : triad
                                  ? "STREAM triad fp32, 3 x 1 GiB, " + std::to_string(triadBlocks) + "x256 (simulated)"
                                  : "FMA-bound kernel, fp32 (simulated)";
    const double basePowerW = gemm ? model.gemmPowerW : triad ? model.triadPowerW : model.fmaPowerW;
    std::vector<OverlapReport> pending;
    // One phase: the copy (none alone) beside this compute.
    const auto phase = [&](const std::string& name, const OverlapCopy* copy, double copyAlone) {
      OverlapReport r;
      r.compute = compute;
      r.bound = overlapBound(compute);
      r.computeLabel = label;
      r.phase = name;
      r.path = copy != nullptr ? copy->path : "alone";
      r.cus = copy != nullptr ? copy->cus : 0;
      r.copySizeBytes = copy != nullptr ? copy->sizeBytes : 0;
      r.durationMs = options.phaseMs;
      r.totalCus = cusPerGpu;
      r.telemetry = "model";
      double kept = 1.0;       // of the compute's alone rate, before the power model
      double copyShare = 1.0;  // of the copy's alone rate
      double extraPowerW = 0;
      double copyNominal = 0;
      if (copy != nullptr) {
        const int used = overlapCusUsed(copy->path, copy->cus);
        r.cusUsed = used;
        r.mechanism = overlapMechanism(false, copy->path, copy->cus, options.srcGpu, options.dstGpu, true);
        copyNominal = nominalGbps(*copy);
        const double arithmetic = static_cast<double>(cusPerGpu - used) / cusPerGpu;
        if (triad) {
          // HBM decides: the triad wants all it can get on the CUs it has left (it saturates HBM
          // with a third of them), the copy wants its alone rate times the HBM bytes it moves
          // per byte copied; over the capacity both get the same fraction of what they want.
          const double saturating = model.triadSaturatingCuFraction * cusPerGpu;
          const double triadWants = model.triadAloneGbps * std::min(1.0, (cusPerGpu - used) / saturating);
          const double copyWants = copyNominal * copyHbmFactor(route);
          const double scale = std::min(1.0, model.triadAloneGbps / (triadWants + copyWants));
          kept = triadWants * scale / model.triadAloneGbps;
          copyShare = scale;
        } else {
          // Compute-bound: the copy's CUs are gone from the math; the GEMM also meets the copy
          // in HBM, a little, both ways.
          kept = arithmetic - (gemm ? model.hbmContention : 0);
          copyShare = 1.0 - (gemm ? model.hbmContention : 0);
        }
        extraPowerW = copy->path == "cu/host" || copy->path == "cu/device"
                          ? model.copyPowerW * std::min(copyNominal, model.engineCopyGbps * 1.02) / model.engineCopyGbps
                          : model.copyPowerW;
      }
      const double wantW = basePowerW + extraPowerW;
      // Over the cap the firmware lowers the clock about in proportion to the excess; a
      // memory-bound kernel waits on HBM, not on the clock.
      double clockScale = 1.0;
      if (wantW > model.boardPowerLimitW) clockScale = model.boardPowerLimitW / wantW;
      if (triad) {
        const double gbps = model.triadAloneGbps * kept * noise(rng);
        r.computeGbps = gbps;
        r.computeTflops = gbps * 2.0 / 12.0 / 1e3;  // 2 flops per 12 bytes
      } else {
        r.computeTflops = aloneTflops * kept * clockScale * noise(rng);
      }
      if (copy != nullptr) {
        r.copyGbps = copyNominal * copyShare * noise(rng);
        r.copyAloneGbps = copyAlone;
        r.copies = static_cast<std::int64_t>(*r.copyGbps * 1e9 * options.phaseMs / 1e3 /
                                             static_cast<double>(std::max<std::uint64_t>(copy->sizeBytes, 1)));
      }
      r.clocks.smMHz = std::round(model.smClockMHz * clockScale);
      r.clocks.memMHz = model.memClockMHz;
      r.clocks.powerW = std::round(std::min(wantW, model.boardPowerLimitW) * 10) / 10;
      r.clocks.powerLimitW = model.boardPowerLimitW;
      if (wantW > model.boardPowerLimitW * 0.98) r.clocks.throttleReasons = {"sw-power-cap"};
      pending.push_back(r);
      sink.progress(++done, total, compute + " " + name + " " + (copy != nullptr ? overlapCopyName(*copy) : r.path));
    };
    if (cancel::requested()) return {};
    phase("alone-before", nullptr, 0);
    for (std::size_t i = 0; i < copies.size(); ++i) {
      if (cancel::requested()) return {};
      phase("beside", &copies[i], aloneGbps[i]);
    }
    if (cancel::requested()) return {};
    phase("alone-after", nullptr, 0);
    // kept is relative to the mean of the alone runs before and after, so it waits for both.
    finishOverlapReports(pending);
    for (const OverlapReport& r : pending) sink.point(r);
  }
  return {};
}

}  // namespace sdma::sim
