#pragma once

#include "backend/collective_types.hpp"
#include "backends/sim/copy_model.hpp"

// The simulated node's collectives and compute interference (docs/SIMULATOR.md,
// "Collectives and overlap"). Every figure is either cited from a public source named there or marked as
// an assumption in collective_model.cpp; the output is labelled simulated.
namespace sdma::sim {

struct CollectiveModel {
  // --- library the simulated node reports ---
  int rcclMajor = 2;
  int rcclMinor = 31;
  int rcclPatch = 0;

  // --- default (load/store kernels) ---
  // Assumption: "GIN-SDMA matches or slightly beats the default path at large sizes"
  // (AMD, RCCL GIN), so the default's bus rate sits a little under GIN-SDMA's.
  double defaultAllGatherBusGbps = 360;
  double defaultAlltoAllBusGbps = 380;
  double defaultFixedUs = 12;  // assumption: one kernel launch plus a ring step

  // --- ce: RCCL's host copy-engine path (hipMemcpyBatchAsync, zero CTAs). A reported RCCL figure
  // for host CE/SDMA AllGather on 8x MI355X is ~128 GB/s busbw at 128 MiB (docs/SIMULATOR.md);
  // with the fixed cost below the asymptote sits a little above it so 128 MiB lands there.
  double ceBusGbps = 131;
  // Assumption: two cross-rank barriers (hipStreamBatchMemOp waits before and after the copies,
  // ncclMemOpSync) plus submitting one batch of n copies.
  double ceFixedUs = 20;

  // --- CUs each call's kernels hold (one CTA per channel) ---
  int defaultAllGatherChannels = 16;  // assumption: ring AllGather on 16 channels on 8x MI300-class nodes
  int defaultAlltoAllChannels = 16;   // assumption
  int ginLsaCtas = 16;                // assumption: the LSA line's ctas= at these sizes
  int ginSdmaCtas = 1;                // assumption: one block (threads=64) writes the packets and waits

  // --- gin-sdma-lib: librccl's AlltoAll GIN path (RCCL GIN design note: AlltoAll ~423 GB/s busbw
  // at 2 GiB on 8x MI355X). librccl has no in-library GIN-SDMA AllGather, so there is no
  // AllGather figure here (collective_types.hpp). ---
  double sdmaAlltoAllBusGbps = 425;
  // mori: ~6 us fixed dispatch and ~2 us per packet (ROCm/mori); packets per peer at 128 MiB.
  double sdmaDispatchUs = 6;
  double sdmaPerPacketUs = 2;
  double sdmaFixedUs = 14;  // assumption: the kernel that writes packets and waits for signals
  std::uint64_t packetBytes = std::uint64_t{128} << 20;
  // What librccl reads when neither the variant nor the process environment sets them
  // (NCCL_PARAM defaults in gin_alltoall_sdma.cu).
  std::int64_t a2aEnable = collective::kGinA2AEnableDefault;              // NCCL_GIN_A2A_ENABLE
  std::int64_t a2aMinBytes = collective::kGinA2AMinBytesDefault;          // NCCL_GIN_A2A_MIN_BYTES, per peer
  std::int64_t a2aSdmaMinBytes = collective::kGinA2ASdmaMinBytesDefault;  // NCCL_GIN_A2A_SDMA_MIN_BYTES, per peer

  double jitterSigma = 0.02;

  // --- overlap (all assumptions: no published MI350X interference figures) ---
  double gemmAloneTflops = 1300;  // bf16 8192^3 through hipBLASLt, well under the 2.3 PF peak
  double fmaAloneTflops = 140;    // fp32 vector FMA, near the 157 TF peak
  double boardPowerLimitW = 1000;
  double gemmPowerW = 990;  // the GEMM runs at the cap
  double fmaPowerW = 760;
  double smClockMHz = 2400;
  double memClockMHz = 2000;
  double copyPowerW = 45;        // extra board power of a copy at link speed (drives the clock down)
  double cuCopyGbpsPerCu = 4.0;  // the pair model's per-CU rate before its H200 recalibration (assumption, kept)
  double engineCopyGbps = 56;    // one xGMI engine at link efficiency (Mi350xModel)
  double hbmContention = 0.015;  // the copy's reads compete with the GEMM's for HBM

  // --- overlap: STREAM triad, memory-bound (assumptions but the HBM peak) ---
  double hbmPeakGbps = 8000;  // HBM3E, AMD Instinct MI350X data sheet
  // STREAM triad alone: about 70% of the peak, as STREAM reaches on HBM GPUs. The triad alone is
  // HBM-bound, so this is also what HBM delivers to streaming traffic: the capacity the triad
  // and a copy share on the compute GPU.
  double triadAloneGbps = 5600;
  double triadSaturatingCuFraction = 1.0 / 3;  // a third of the CUs keep HBM saturated
  double triadPowerW = 700;                    // memory-bound: well under the cap
};

// HBM bytes a copy moves on the compute GPU per byte copied: a GPU-local copy reads and writes
// there, a peer or host copy only one of the two.
double copyHbmFactor(Route route);

// `variants` empty: default, ce and gin-sdma-lib ("gin-sdma" is its old name). gin-sdma-lib runs AlltoAll only (a
// `variant-op-unsupported` warning stands for its AllGather points); each point is timed options.repeats times, each
// repeat with noise of its own from options.seed.
// An empty Error: it ran to the end or stopped for a cancel.
Error runSimCollective(const collective::CollectiveOptions& options, int gpuCount,
                       const collective::CollectiveSink& sink, const CollectiveModel& model = {});

// `route`: what the copy crosses (routeOf(src, dst)); to or from host and GPU-local copies
// move at the pair model's rates for that route (Mi350xModel), peer copies at the figures here.
Error runSimOverlap(const collective::OverlapOptions& options, int cusPerGpu, const collective::OverlapSink& sink,
                    const CollectiveModel& model = {}, Route route = Route::Peer);

}  // namespace sdma::sim
