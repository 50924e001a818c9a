#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/sim/weakness.hpp"

// Every number the simulated MI350X node is made of. docs/SIMULATOR.md lists each field
// with its unit and source (a named public document, or an assumption and why); change both
// together.
namespace sdma::sim {

struct Mi350xModel {
  // --- node and GPU ---
  int gpuCount = 8;     // --sim-gpus: 1..8
  int cusPerGpu = 256;  // 8 XCDs x 32 CUs
  int xcdsPerGpu = 8;   // workgroups are dealt round-robin over XCDs (timeline CU lanes)
  std::uint64_t memoryBytes = std::uint64_t{288} << 30;  // 288 GB HBM3E, binary-sized stacks
  const char* arch = "gfx950";
  const char* gpuName = "AMD Instinct MI350X (simulated)";

  // --- host: two NUMA nodes, GPUs 0-3 on node 0 and 4-7 on node 1 (assumption, as on an
  //     8-GPU OAM node with two CPU sockets) ---
  int hostNumaNodes = 2;
  int gpusPerNumaNode = 4;

  // --- PCIe Gen5 x16 between host and each GPU ---
  double pcieGbpsPerDirection = 64;  // PCI-SIG: 32 GT/s x 16 lanes, per direction (theoretical)
  // Copy engines reach ~50-56 GB/s host <-> GPU (nvbandwidth, TransferBench host-device tests).
  double pcieEngineEfficiency = 0.83;  // -> 53.1 GB/s
  // CUs loading/storing host memory reach somewhat less than the engines.
  double pcieCuEfficiency = 0.75;  // -> 48 GB/s cap

  // --- HBM3E: GPU-local copies (AMD Instinct MI350X data sheet: 8 TB/s) ---
  double hbmGbps = 8000;
  double localCopyEfficiency = 0.8;  // of the HBM/2 a copy (one read + one write per byte) can have

  // --- xGMI: fully connected, one link per peer (not confirmed by a datasheet) ---
  int xgmiLinksPerPeer = 1;
  double linkGbpsBidirectional = 153.6;
  double linkGbpsPerDirection() const { return linkGbpsBidirectional / 2; }  // 76.8

  // --- SDMA engines (KFD capture on MI350X) ---
  int pcieEnginesPerGpu = 2;   // host<->GPU; ids 0..1: host -> GPU on 0, GPU -> host on 1
  int xgmiEnginesPerGpu = 14;  // peer copies; ids 2..15, peer p uses 2 + p (+7 per extra channel)
  int enginesPerCopy = 1;      // ROCr's default: one engine per GPU pair
  // t = engineFixedNs + bytes / engineMaxGbps fits mori's one-peer MI355X figures.
  double engineMaxGbps = 61.0;
  double engineFixedNs = 3100;
  // DMA keeps a link busier than load/store does; below 1 so an engine never reaches the wire.
  double engineLinkEfficiency = 0.92;
  // engine/host: ROCr splits one copy into COPY_LINEAR packets of at most 0x3fffff bytes on
  // gfx9 other than gfx90a, gfx950 included (ROCR-Runtime core/runtime/amd_gpu_agent.cpp,
  // GpuAgent::CreateBlitSdma: copy_size_overrides[0] = 0x3fffff for major version 9 unless
  // 9.0.10; used by amd_blit_sdma.cpp BlitSdma::SubmitLinearCopyCommand / BuildCopyCommand).
  std::uint64_t rocrSdmaCopyMaxBytes = 0x3fffff;
  // engine/device: puts chunked at 128 MiB (RCCL GIN; rocSHMEM's own chunking not verified).
  std::uint64_t packetChunkBytes = std::uint64_t{128} << 20;
  std::uint64_t copyLinearMaxBytes = std::uint64_t{1} << 30;  // COPY_LINEAR's 30-bit count
  double packetIssueNs = 200;                                 // the issuer (CPU or CU) writing one packet into the ring
  double doorbellNs = 1000;                                   // doorbell write until the engine sees it
  // rocSHMEM (rocm-systems projects/rocshmem/src/envvar.cpp, namespace sdma): channels per
  // destination 1..8 (ROCSHMEM_SDMA_NUM_CHANNELS), and a put of at least 256 bytes goes to
  // SDMA (ROCSHMEM_SDMA_THRESHOLD, compared in ipc_policy.hpp IpcSdmaImpl::ipcCopy).
  int shmemSdmaChannelsMax = 8;
  std::uint64_t shmemSdmaThresholdBytes = 256;
  // engine/device with more than one wave: the workgroup put waits at a barrier of the issuing
  // workgroup; assumption: ~20 ns (about 50 cycles at 2.4 GHz) per extra wave.
  double putBarrierNsPerWave = 20;

  // --- CU load/store (cu/* paths, and rocSHMEM puts that do not take SDMA) ---
  // One CU's rate at its full default occupancy of 16 wave64 (1024 threads), per route. From
  // this repository's H200 measurements at one SM (1024 threads = 32 warps), taken as one
  // MI350X CU with 16 wave64: an assumption (same threads in flight per CU/SM).
  double cuPeerGbpsPerCu = 39;         // bench/results/h200x2-2026-11-30: 1 SM, 64-256 MiB, 38.3-39.4
  double cuLocalGbpsPerCu = 41;        // bench/results/h200x1-2026-12-03: 0 -> 0 at 1 SM, 41.4-42.2
  double cuHostToGpuGbpsPerCu = 14.3;  // same file, -1 -> 0 at 1 SM
  double cuGpuToHostGbpsPerCu = 39;    // same file, 0 -> -1 at 1 SM
  int defaultWavesPerCu = 16;          // wavesPerCu 0: 1024 threads per CU = 16 wave64
  int waveSize = 64;                   // gfx950 wave64
  // One wave moves perCu / 16 x waveSaturation. Measured on an H200 (bench/results/
  // h200x1-2026-12-04-dims): one SM with 2 warps (one wave64's 64 threads) moves 0.35-0.37 of
  // what the full SM does (GPU-local 14.5 of 41.5 GB/s, host->GPU 5.3 of 14.5), taken as one
  // MI350X wave of a 16-wave CU (the same assumption as perCu: equal bytes in flight per thread).
  double waveSaturation = 5.8;
  // Fitted: the load/store share of the link, 0.718 x 76.8 = 55.14 GB/s, is TransferBench's
  // MI350X all-to-all (~386 GB/s per GPU over 7 peers, 16 CUs per pair): 16 CUs at 39 GB/s ask
  // for far more than the link, so that figure is the cap itself.
  double cuLinkEfficiency = 0.718;
  // Sharpness p of the smooth minimum 1/(1/a^p + 1/b^p)^(1/p), used for waves x per-wave rate
  // against the CU's rate and for CUs x per-CU rate against the route's cap (assumption).
  double cuCapSharpness = 8;

  // --- copies at the same time (matrix --concurrent) ---
  // Bytes per second one GPU can send (and, separately, receive) over all its xGMI links
  // together. Assumption: below the 7 x 76.8 GB/s of its links; set between TransferBench's
  // load/store all-to-all (~386 GB/s per MI350X) and GIN-SDMA's AlltoAll busbw on MI355X
  // (~423 GB/s). Only copies running at the same time share it.
  double fabricGbpsPerGpu = 400;

  // --- fixed costs per copy, by initiator ---
  double hostLaunchNs = 4500;            // cu/host: hipLaunchKernel until the kernel runs
  double hostSyncNs = 1000;              // cu/host: kernel end until the host sees it
  double deviceSyncNs = 1500;            // cu/device: flag wait + completion barrier in-kernel
  double engineHostSubmitNs = 6000;      // engine/host: ROCr API + packet build until doorbell
  double engineHostCompletionNs = 3000;  // engine/host: completion signal until the host wakes

  // --- run-to-run noise (multiplicative, lognormal) ---
  double fixedJitterSigma = 0.05;     // on the fixed costs: launches and doorbells vary both ways
  double transferJitterSigma = 0.02;  // on the transfer, one-sided: nothing beats the rate cap
  double outlierProbability = 0.01;
  double outlierMinExtra = 0.15;  // an outlier takes 15..40 % longer
  double outlierMaxExtra = 0.40;

  // --- timeline detail ---
  double cuStartSkewMaxNs = 300;    // workgroups do not start in the same cycle
  double cuEndJitter = 0.03;        // +-3 % per-CU duration spread
  double timelinePathGapNs = 2000;  // idle gap between consecutive paths on the time axis

  // --- validation ---
  std::size_t validationMaxBytes = std::size_t{64} << 10;  // host-side check per sample

  // --- this node's shortfall (--sim-weak): not MI350X figures; 1 everywhere by default ---
  SimWeakness weakness;
};

}  // namespace sdma::sim
