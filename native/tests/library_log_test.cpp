// The one reader of NCCL's / RCCL's debug log lines (backend/library_log_line.hpp) and the
// run mode's per-call counting on top of it (profile/library_log.hpp), on the libraries' own line
// shapes:
//  - RCCL's GIN all-to-all, INFO(NCCL_COLL, "AllToAll GIN: transport=sdma bytesPerPeer=%zu threads=%d")
//    and "... transport=lsa bytesPerPeer=%zu chunks=%d ctas=%d threads=%d"
//    (ROCm/rocm-systems, projects/rccl/src/algorithms/gin/sdma/gin_alltoall_sdma.cu);
//  - NCCL's tuner line, INFO(NCCL_TUNING, "%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}"),
//    logged by rank 0 (NVIDIA/nccl, src/enqueue.cc; older releases add " comm %p");
//  - NCCL's copy-engine line, INFO(NCCL_TUNING, "%s [Copy Engine]: %ld Bytes -> cudaMemcpy%s") (2.29.2+), and
//    its symmetric-kernel line, INFO(NCCL_TUNING, "%s [Symmetric]: %ld Bytes -> Kernel %s nchannels %d nthreads %d
//    nWorks %d") (NVIDIA/nccl, src/scheduler/symmetric_sched.cc);
//  - RCCL's copy-engine launch lines, INFO(NCCL_COLL, "CE: rank %d -> Batch path without intraBatchSync
//    (hipMemcpyBatchAsync), numOps=%zu") and its No-Batch forms (ROCm/rocm-systems, projects/rccl/src/ce_coll.cc,
//    ncclCeLaunchBatchOps);
//  - the init line INFO(NCCL_INIT, "%d coll channels, %d collnet channels, %d nvls channels, %d p2p channels,
//    %d p2p channels per peer") (NVIDIA/nccl, src/init.cc);
//  - the prefix "host:pid:tid [cudaDev] NCCL INFO ", after a "[date time]" stamp where
//    NCCL_DEBUG_TIMESTAMP_FORMAT applies (NCCL user guide, Troubleshooting > Logging).
#include <cstdio>
#include <sstream>
#include <string>

#include "backend/library_log_line.hpp"
#include "profile/library_log.hpp"
#include "doctest_support.hpp"

namespace {

using sdma::librarylog::parseLogLine;
using sdma::librarylog::SizeKind;

TEST_CASE("ginLines") {
  const auto sdma =
      parseLogLine("mi350-07:48213:48290 [3] NCCL INFO AllToAll GIN: transport=sdma bytesPerPeer=8388608 threads=64");
  CHECK_MESSAGE((sdma.has_value()), ("RCCL's GIN sdma line names a path"));
  CHECK_MESSAGE((sdma && sdma->op == "AllToAll" && sdma->transport == "sdma"),
                ("GIN sdma: op AllToAll, transport sdma"));
  CHECK_MESSAGE((sdma && sdma->sizeKind == SizeKind::BytesPerPeer && sdma->sizeBytes == 8388608),
                ("GIN sdma: 8 MiB per peer"));
  CHECK_MESSAGE((sdma && sdma->pid == 48213 && sdma->device == 3), ("GIN sdma: pid and device from the prefix"));
  CHECK_MESSAGE((sdma && sdma->message == "AllToAll GIN: transport=sdma bytesPerPeer=8388608 threads=64"),
                ("GIN sdma: the message is what follows NCCL INFO"));

  const auto lsa = parseLogLine(
      "mi350-07:48214:48291 [4] NCCL INFO AllToAll GIN: transport=lsa bytesPerPeer=65536 chunks=8 ctas=64 threads=256");
  CHECK_MESSAGE((lsa && lsa->transport == "lsa" && lsa->sizeBytes == 65536 && lsa->device == 4),
                ("GIN lsa: transport lsa, 64 KiB per peer"));
}

TEST_CASE("tunerLines") {
  const auto ring = parseLogLine(
      "h200-01:90112:90112 [0] NCCL INFO AllGather: 16777216 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..31}");
  CHECK_MESSAGE((ring && ring->op == "AllGather" && ring->transport == "ring/simple"),
                ("tuner: AllGather via ring/simple"));
  CHECK_MESSAGE((ring && ring->sizeKind == SizeKind::Bytes && ring->sizeBytes == 16777216), ("tuner: 16 MiB in bytes"));
  CHECK_MESSAGE((ring && ring->pid == 90112 && ring->device == 0), ("tuner: pid and device"));

  const auto old = parseLogLine(
      "node:7:9 [1] NCCL INFO AllReduce: 4 Bytes -> Algo TREE proto LL channel{Lo..Hi}={0..0} comm 0x55a7a339db50");
  CHECK_MESSAGE((old && old->op == "AllReduce" && old->transport == "tree/ll" && old->sizeBytes == 4),
                ("tuner with comm suffix: tree/ll, 4 bytes"));

  const auto stamped = parseLogLine(
      "[2026-05-05 06:16:47] node-01:189884:189884 [2] NCCL INFO AllGather: 1048576 Bytes -> Algo NVLS proto SIMPLE "
      "channel{Lo..Hi}={0..15}");
  CHECK_MESSAGE((stamped && stamped->pid == 189884 && stamped->device == 2 && stamped->transport == "nvls/simple"),
                ("a timestamp before the prefix does not hide pid and device"));
}

TEST_CASE("channels") {
  const auto ring = parseLogLine(
      "h200-01:90112:90112 [0] NCCL INFO AllGather: 16777216 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..31}");
  CHECK_MESSAGE((ring && ring->channels == 32), ("tuner: channel{Lo..Hi}={0..31} is 32 channels"));
  const auto mid =
      parseLogLine("n:1:1 [0] NCCL INFO AllReduce: 4 Bytes -> Algo TREE proto LL channel{Lo..Hi}={4..7} comm 0x1");
  CHECK_MESSAGE((mid && mid->channels == 4), ("tuner: {4..7} is 4 channels"));
  const auto lsa = parseLogLine(
      "mi350-07:48214:48291 [4] NCCL INFO AllToAll GIN: transport=lsa bytesPerPeer=65536 chunks=8 ctas=64 threads=256");
  CHECK_MESSAGE((lsa && lsa->channels == 64), ("GIN lsa: ctas=64"));
  const auto sdma = parseLogLine("m:1:1 [0] NCCL INFO AllToAll GIN: transport=sdma bytesPerPeer=8388608 threads=64");
  CHECK_MESSAGE((sdma && !sdma->channels), ("GIN sdma: the line names no CTA count"));
  const auto sym = parseLogLine(
      "h200-01:7:7 [0] NCCL INFO AllGather [Symmetric]: 1048576 Bytes -> Kernel AllGather_ST nchannels 8 nthreads 512 "
      "nWorks 1");
  CHECK_MESSAGE((sym && sym->transport == "symmetric-kernel" && sym->channels == 8 && sym->sizeBytes == 1048576 &&
                 sym->op == "AllGather"),
                ("NCCL symmetric line: 8 channels, 1 MiB"));
  const auto ce = parseLogLine("h200-01:7:7 [0] NCCL INFO AlltoAll [Copy Engine]: 8388608 Bytes -> cudaMemcpy");
  CHECK_MESSAGE((ce && ce->transport == "ce" && ce->sizeBytes == 8388608 && !ce->channels && ce->op == "AllToAll"),
                ("NCCL copy-engine line: ce, 8 MiB, no channel count"));
  const auto rcclCe = parseLogLine(
      "mi350-07:5:5 [1] NCCL INFO CE: rank 1 -> Batch path without intraBatchSync (hipMemcpyBatchAsync), numOps=8");
  CHECK_MESSAGE((rcclCe && rcclCe->transport == "ce" && rcclCe->device == 1 && !rcclCe->channels),
                ("RCCL CE batch line: ce"));
  const auto single =
      parseLogLine("mi350-07:5:5 [1] NCCL INFO CE: rank 1 -> No-Batch Single-Stream path (cudaMemcpyAsync), numOps=8");
  CHECK_MESSAGE((single && single->transport == "ce"), ("RCCL CE single-stream line: ce"));
  // Hostile counts: reversed, huge, overflowing, cut short.
  for (const char* bad : {"AllGather: 4 Bytes -> Algo RING proto LL channel{Lo..Hi}={9..3}",
                          "AllGather: 4 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..99999999999999999999}",
                          "AllGather: 4 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..5000}",
                          "AllGather: 4 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..",
                          "AllGather: 4 Bytes -> Algo RING proto LL channel{Lo..Hi}={..7}",
                          "AllToAll GIN: transport=lsa bytesPerPeer=1 ctas=-4", "AllToAll GIN: transport=lsa ctas=1025",
                          "AllToAll GIN: transport=lsa ctas="}) {
    const auto p = parseLogLine(bad);
    CHECK_MESSAGE((p && !p->channels), (std::string("no channel count from: ") + bad));
  }
}

TEST_CASE("initChannels") {
  using sdma::librarylog::collChannelsOfInitLine;
  CHECK(collChannelsOfInitLine("h200:7:7 [0] NCCL INFO 32 coll channels, 32 collnet channels, 0 nvls channels, 32 p2p "
                               "channels, 32 p2p channels per peer") == 32);
  CHECK(collChannelsOfInitLine("m:1:1 [3] NCCL INFO 16 coll channels, 16 collnet channels, 0 nvls channels, 64 p2p "
                               "channels, 8 p2p channels per peer") == 16);
  CHECK(!collChannelsOfInitLine("NCCL INFO coll channels, p2p channels"));
  CHECK(!collChannelsOfInitLine("NCCL INFO x32 coll channels, 1 p2p channels"));
  CHECK(!collChannelsOfInitLine("NCCL INFO 99999999 coll channels, 1 p2p channels"));
  CHECK(!collChannelsOfInitLine("NCCL INFO 32 coll channels"));
  CHECK(!collChannelsOfInitLine(""));
}

TEST_CASE("otherLines") {
  CHECK_MESSAGE((!parseLogLine("node:7:9 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM").has_value()),
                ("a channel line names no path"));
  CHECK_MESSAGE(
      (!parseLogLine("node:7:9 [0] NCCL INFO comm 0x5581 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0")
            .has_value()),
      ("an init line names no path"));
  CHECK_MESSAGE((!parseLogLine("").has_value()), ("an empty line names no path"));
  CHECK_MESSAGE((!parseLogLine("AllToAll GIN: transport=").has_value()), ("a transport with no name names no path"));
  const auto bare = parseLogLine("AllToAll GIN: transport=sdma bytesPerPeer=1024");
  CHECK_MESSAGE((bare && bare->pid == -1 && bare->device == -1 && bare->sizeBytes == 1024),
                ("a line without prefix: no pid, no device"));
  CHECK_MESSAGE(
      (sdma::librarylog::libraryOfVersionLine("node:7:7 [0] NCCL INFO NCCL version 2.28.9+cuda12.9") == "nccl"),
      ("NCCL version line"));
  CHECK_MESSAGE(
      (sdma::librarylog::libraryOfVersionLine("node:7:7 [0] NCCL INFO RCCL version : 2.27.7-HEAD:abc") == "rccl"),
      ("RCCL version line"));
  CHECK_MESSAGE((sdma::librarylog::libraryOfVersionLine("NCCL INFO AllGather: 4 Bytes").empty()),
                ("other lines name no library"));
}

TEST_CASE("counting") {
  using sdma::runmode::LibraryCallCounter;
  LibraryCallCounter counter;
  // Two ranks, one process each (torchrun): each logs every AllToAll it takes part in.
  for (const char* file : {"nccl.node.100.log", "nccl.node.200.log"}) {
    const std::string pid = std::string(file).substr(10, 3);
    std::ostringstream log;
    log << "node:" << pid << ":" << pid << " [0] NCCL INFO RCCL version : 2.27.7-HEAD:abc\n";
    for (int i = 0; i < 3; ++i)
      log << "node:" << pid << ":1 [0] NCCL INFO AllToAll GIN: transport=sdma bytesPerPeer=600000 threads=64\n";
    log << "node:" << pid << ":1 [0] NCCL INFO AllToAll GIN: transport=sdma bytesPerPeer=900000 threads=64\n";
    log << "node:" << pid << ":1 [0] NCCL INFO AllToAll GIN: transport=sdma bytesPerPeer=8388608 threads=64\n";
    log << "node:" << pid
        << ":1 [0] NCCL INFO AllToAll GIN: transport=lsa bytesPerPeer=262144 chunks=8 ctas=16 threads=256\n";
    log << "node:" << pid << ":1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n";
    log << "garbage \x01\x02 line without end";
    std::istringstream in(log.str());
    counter.addText(file, in.str());
  }
  // Rank 0 of another program part logs the tuner line alone.
  std::istringstream tuner(
      "node:300:1 [0] NCCL INFO NCCL version 2.28.9+cuda12.9\n"
      "node:300:1 [0] NCCL INFO AllGather: 1048576 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..7}\n"
      "node:300:1 [0] NCCL INFO AllGather: 1048576 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..7}\n");
  counter.addText("nccl.node.300.log", tuner.str());

  const auto calls = counter.finish();
  CHECK_MESSAGE((calls.size() == 4), ("one entry per op, transport and power-of-two size range (4)"));
  if (calls.size() != 4) return;
  // Ordered by op, transport, size kind, size.
  const auto& ag = calls[0];
  CHECK_MESSAGE(
      (ag.op == "AllGather" && ag.transport == "ring/simple" && ag.calls == 2 && ag.ranks == 1 && ag.library == "nccl"),
      ("tuner lines: 2 calls, logged by rank 0 only, NCCL"));
  const auto& lsa = calls[1];
  CHECK_MESSAGE((lsa.transport == "lsa" && lsa.calls == 1 && lsa.ranks == 2 && lsa.minBytes == 262144),
                ("lsa: 1 call, 2 ranks"));
  const auto& mid = calls[2];
  CHECK_MESSAGE(
      (mid.transport == "sdma" && mid.calls == 4 && mid.ranks == 2 && mid.minBytes == 600000 && mid.maxBytes == 900000),
      ("sdma 512 KiB-1 MiB: 4 calls (not 8 lines), sizes 600000..900000"));
  CHECK_MESSAGE(
      (mid.library == "rccl" && mid.evidence == "AllToAll GIN: transport=sdma bytesPerPeer=600000 threads=64"),
      ("sdma: RCCL, the first line as evidence"));
  const auto& big = calls[3];
  CHECK_MESSAGE((big.transport == "sdma" && big.calls == 1 && big.minBytes == 8388608 && big.maxBytes == 8388608),
                ("sdma 8 MiB: 1 call"));
}

}  // namespace
