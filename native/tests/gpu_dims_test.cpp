// The GPU backends' arithmetic of the seed's dimensions (backends/gpu/gpu_dims.hpp), the
// choice of distinct SDMA engines for --engines (backend/amd_node.hpp, chooseEngines), and the
// rocSHMEM PE pair's environment and evidence per SDMA mode (backends/gpu/rocshmem_launcher.hpp).
#include <map>
#include <string>
#include <vector>

#include "backend/amd_node.hpp"
#include "backends/gpu/gpu_dims.hpp"
#include "backends/gpu/rocshmem_launcher.hpp"
#include "doctest_support.hpp"

namespace {

using namespace sdma;
using namespace sdma::gpu;
using dims::Piece;

TEST_CASE("--waves-per-cu: threads per block of whole waves") {
  // NVIDIA: warps of 32, one block per SM.
  for (int warps : {1, 2, 4, 8, 16, 32}) {
    const dims::WaveLayout w = dims::waveLayout(warps, 32, 1, 1024, "warp");
    REQUIRE_MESSAGE(w.ok(), w.error);
    CHECK(w.threadsPerBlock == warps * 32);
  }
  // AMD wave64 over several blocks per CU.
  CHECK(dims::waveLayout(8, 64, 4, 1024, "wave").threadsPerBlock == 128);
  CHECK(dims::waveLayout(64, 64, 4, 1024, "wave").threadsPerBlock == 1024);
  // Fewer waves than blocks: a block would hold less than one wave.
  const dims::WaveLayout few = dims::waveLayout(2, 64, 4, 1024, "wave");
  CHECK(!few.ok());
  CHECK(few.error.find("one whole wave of 64 threads") != std::string::npos);
  // Not a whole number of waves per block.
  const dims::WaveLayout uneven = dims::waveLayout(6, 64, 4, 1024, "wave");
  CHECK(!uneven.ok());
  CHECK(uneven.error.find("do not split into 4 blocks") != std::string::npos);
  // Above the block limit.
  const dims::WaveLayout big = dims::waveLayout(64, 32, 1, 1024, "warp");
  CHECK(!big.ok());
  CHECK(big.error.find("2048 threads per block") != std::string::npos);
  CHECK(big.error.find("32 warps of 32") != std::string::npos);
  CHECK(!dims::waveLayout(0, 64, 1, 1024, "wave").ok());
}

TEST_CASE("a copy split into pieces covers it exactly") {
  CHECK(dims::splitPieces(1 << 20, 1) == std::vector<Piece>{{0, 1 << 20}});
  const std::vector<Piece> four = dims::splitPieces(1 << 20, 4);
  REQUIRE(four.size() == 4);
  for (std::size_t i = 0; i < four.size(); ++i) {
    CHECK(four[i].offset == i * (1 << 18));
    CHECK(four[i].bytes == 1 << 18);
  }
  // Not divisible: equal aligned pieces, the rest in the last.
  const std::vector<Piece> three = dims::splitPieces(1000000, 3);
  REQUIRE(three.size() == 3);
  CHECK(three[0].bytes % dims::kPieceAlignBytes == 0);
  CHECK(three[0].bytes == three[1].bytes);
  CHECK(three[1].offset == three[0].bytes);
  CHECK(three[2].offset + three[2].bytes == 1000000);
  // Too small for n aligned pieces.
  CHECK(dims::splitPieces(100, 2).empty());
  CHECK(dims::splitPieces(128, 2) == std::vector<Piece>{{0, 64}, {64, 64}});
  CHECK(dims::splitPieces(1 << 20, 0).empty());
  CHECK(dims::splitRefusal(100, 2, "--engines").find("100 bytes do not split into 2 pieces") != std::string::npos);
  CHECK(dims::splitRefusal(4096, 8, "--batch").empty());
}

TEST_CASE("HIP runtime versions") {
  CHECK(dims::hipVersionAtLeast(70151234, 7, 1));
  CHECK(dims::hipVersionAtLeast(70200000, 7, 1));
  CHECK(!dims::hipVersionAtLeast(60443483, 7, 1));
  CHECK(!dims::hipVersionAtLeast(70051831, 7, 1));
  CHECK(dims::hipVersionText(60443483) == "6.4.43483");
}

TEST_CASE("--engines: distinct free SDMA engines in the kind's order") {
  const amd::EngineCounts counts{2, 14};  // MI300X: 2 PCIe, 14 xGMI
  amd::EngineStatus all;
  all.known = true;
  all.mask = 0xFFFF;
  CHECK(amd::chooseEngines(2, amd::CopyKind::HostToGpu, counts, all, "between host and GPU 0").ids ==
        std::vector<int>{0, 1});
  CHECK(amd::chooseEngines(3, amd::CopyKind::GpuToHost, counts, all, "x").ids == std::vector<int>{1, 0, 2});
  // Between GPUs of one hive: xGMI engines only.
  CHECK(amd::chooseEngines(2, amd::CopyKind::PeerXgmi, counts, all, "x").ids == std::vector<int>{2, 3});

  amd::EngineStatus two;
  two.known = true;
  two.mask = 0x3;
  const amd::EngineSet refused = amd::chooseEngines(4, amd::CopyKind::HostToGpu, counts, two, "between host and GPU 0");
  CHECK(refused.ids.empty());
  CHECK(refused.error.find("--engines 4: only 2 SDMA engines are free between host and GPU 0") != std::string::npos);
  CHECK(refused.hint.find("--engines 2") != std::string::npos);

  amd::EngineStatus unknown;
  unknown.why = "hsa_amd_memory_copy_engine_status: failed";
  const amd::EngineSet blind =
      amd::chooseEngines(2, amd::CopyKind::HostToGpu, counts, unknown, "between host and GPU 0");
  CHECK(blind.ids.empty());
  CHECK(blind.error.find("is not known") != std::string::npos);
}

}  // namespace

namespace {

TEST_CASE("engine/device on rocSHMEM: each SDMA mode and channel count its own PE pair and environment") {
  PePutRequest request;
  request.srcGpu = 0;
  request.dstGpu = 1;
  request.regionBytes = 1 << 20;
  auto envOf = [](const PePairConfig& c) {
    std::map<std::string, std::string> env;
    for (const auto& [k, v] : peEnvironment(c)) env[k] = v;
    return env;
  };
  const PePairConfig forced = pePairConfig(request, nullptr, nullptr);
  std::map<std::string, std::string> env = envOf(forced);
  CHECK(env["ROCSHMEM_SDMA_ENABLED"] == "1");
  CHECK(env["ROCSHMEM_SDMA_THRESHOLD"] == "0");
  CHECK(env["ROCSHMEM_SDMA_NUM_CHANNELS"] == "1");

  request.sdmaMode = "library";
  request.channels = 4;
  const PePairConfig library = pePairConfig(request, nullptr, nullptr);
  env = envOf(library);
  CHECK(env["ROCSHMEM_SDMA_ENABLED"] == "1");
  CHECK(env.count("ROCSHMEM_SDMA_THRESHOLD") == 0);  // the user's own, or rocSHMEM's default
  CHECK(env["ROCSHMEM_SDMA_NUM_CHANNELS"] == "4");
  CHECK(!library.samePair(forced));

  request.sdmaMode = "off";
  request.channels = 1;
  const PePairConfig off = pePairConfig(request, nullptr, nullptr);
  env = envOf(off);
  CHECK(env["ROCSHMEM_SDMA_ENABLED"] == "0");
  CHECK(env.count("ROCSHMEM_SDMA_THRESHOLD") == 0);
  CHECK(!off.samePair(forced));
  CHECK(!off.samePair(library));

  // The put kernel's waves travel on the point line.
  request.waves = 4;
  const std::string line = pointRecord(request, 3);
  CHECK(line.find("\"waves\":4") != std::string::npos);
}

TEST_CASE("engine/device on rocSHMEM: evidence with SDMA off and the channels rocSHMEM logged") {
  const MoverEvidence off = rocshmemSdmaOffEvidence("SDMA disabled at runtime (ROCSHMEM_SDMA_ENABLED=0)");
  CHECK(off.observed == ObservedMover::Cu);
  CHECK(off.detail.find("load/store") != std::string::npos);
  CHECK(rocshmemSdmaOffEvidence("").observed == ObservedMover::Unknown);
  CHECK(sdmaChannelsOf("SDMA init with threshold=0, channels=4, min_chunk=65536, local_size=2") == 4);
  CHECK(!sdmaChannelsOf("SDMA init with threshold=0").has_value());
}

}  // namespace
