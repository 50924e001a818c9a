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
  double cuPcieGbpsPerCu = 2.0;    // one CU's rate over PCIe: longer round trips than xGMI

  // --- HBM3E: GPU-local copies (AMD Instinct MI350X data sheet: 8 TB/s) ---
  double hbmGbps = 8000;
  double localCopyEfficiency = 0.8;  // of the HBM/2 a copy (one read + one write per byte) can have
  double cuLocalGbpsPerCu = 20;      // one CU streaming its own GPU's HBM

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
  // Libraries split puts into 128 MiB packets; COPY_LINEAR's 30-bit count allows 1 GiB.
  std::uint64_t packetChunkBytes = std::uint64_t{128} << 20;
  std::uint64_t copyLinearMaxBytes = std::uint64_t{1} << 30;
  double packetIssueNs = 200;  // the issuer (CPU or CU) writing one packet into the ring
  double doorbellNs = 1000;    // doorbell write until the engine sees it

  // --- CU load/store over xGMI ---
  double cuGbpsPerCu = 4.0;        // one CU's remote store rate
  double cuLinkEfficiency = 0.75;  // load/store reaches a smaller share of the link than DMA
  // Sharpness p of the smooth minimum 1/(1/a^p + 1/b^p)^(1/p) of (cus x rate) and the CU cap;
  // p = 8 puts 16 CUs at 55 GB/s, TransferBench's MI350X all-to-all figure per pair.
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
