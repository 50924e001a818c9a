// The seed's qualitative results on the simulated MI350X, GPU 0 -> GPU 1 (docs/SIMULATOR.md,
// "The seed's dimensions"), from the noise-free cost model: each figure follows from the
// model's independent constants (none of them fitted to these claims).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "backends/sim/copy_model.hpp"
#include "backends/sim/sim_backend.hpp"
#include "doctest_support.hpp"

namespace {

using namespace sdma;
using namespace sdma::sim;
using namespace sdma::testing;

// Noise-free GB/s of one copy GPU 0 -> GPU 1.
double gbps(CopyPath path, std::uint64_t bytes, int cus, int wavesPerCu) {
  const Mi350xModel model;
  CopyRequest request{path, 0, 1, bytes, cus, 1, 0};
  request.wavesPerCu = wavesPerCu;
  return static_cast<double>(bytes) / copyCost(model, request).nominalNs(bytes);
}

std::string figures(const char* what, double a, double b) {
  char text[160];
  std::snprintf(text, sizeof text, "%s: %.2f vs %.2f GB/s", what, a, b);
  return text;
}

}  // namespace

TEST_CASE("seed claim (a): at 128 KiB one engine and one CU are alike, four CUs beat both") {
  const double engine = gbps(CopyPath::EngineDevice, 128 * KiB, 0, 1);
  const double oneCu = gbps(CopyPath::CuDevice, 128 * KiB, 1, 16);
  const double fourCus = gbps(CopyPath::CuDevice, 128 * KiB, 4, 16);
  MESSAGE(figures("128 KiB engine/device 1 wave vs cu/device 1 CU 16 waves", engine, oneCu));
  MESSAGE(figures("128 KiB cu/device 4 CUs vs the faster of both", fourCus, std::max(engine, oneCu)));
  CHECK(std::abs(engine - oneCu) <= 0.3 * std::max(engine, oneCu));
  CHECK(fourCus > std::max(engine, oneCu));
}

TEST_CASE("seed claim (b): from 512 KiB up the engine beats one CU") {
  for (std::uint64_t bytes = 512 * KiB; bytes <= GiB; bytes *= 2) {
    const double engine = gbps(CopyPath::EngineDevice, bytes, 0, 0);
    const double oneCu = gbps(CopyPath::CuDevice, bytes, 1, 16);
    if (bytes == 512 * KiB) MESSAGE(figures("512 KiB engine/device vs cu/device 1 CU 16 waves", engine, oneCu));
    CHECK_MESSAGE(engine > oneCu, figures(std::to_string(bytes).c_str(), engine, oneCu));
  }
}

TEST_CASE("seed claim (c): the issuing kernel's waves do not change the engine's rate") {
  for (std::uint64_t bytes = MiB; bytes <= GiB; bytes *= 2) {
    const double oneWave = gbps(CopyPath::EngineDevice, bytes, 0, 1);
    const double sixteen = gbps(CopyPath::EngineDevice, bytes, 0, 16);
    if (bytes == MiB) MESSAGE(figures("1 MiB engine/device 1 wave vs 16 waves", oneWave, sixteen));
    CHECK_MESSAGE(oneWave >= 0.95 * sixteen, figures(std::to_string(bytes).c_str(), oneWave, sixteen));
  }
}

TEST_CASE("seed claim (d): one CU does not fill the link") {
  const Mi350xModel model;
  const double oneCu = gbps(CopyPath::CuDevice, 64 * MiB, 1, 16);
  MESSAGE(figures("64 MiB cu/device 1 CU 16 waves vs 0.75 x the link", oneCu, 0.75 * model.linkGbpsPerDirection()));
  CHECK(oneCu < 0.75 * model.linkGbpsPerDirection());
}

TEST_CASE("waves per CU: a CU saturates, one wave moves a fraction") {
  const Mi350xModel model;
  CHECK(cuPerCuGbps(model, Route::Peer, 0) == doctest::Approx(cuPerCuGbps(model, Route::Peer, 16)));
  CHECK(cuPerCuGbps(model, Route::Peer, 64) <= model.cuPeerGbpsPerCu);
  CHECK(cuPerCuGbps(model, Route::Peer, 1) ==
        doctest::Approx(model.cuPeerGbpsPerCu / model.defaultWavesPerCu * model.waveSaturation).epsilon(0.001));
  CHECK(cuPerCuGbps(model, Route::Peer, 4) < cuPerCuGbps(model, Route::Peer, 16));
  CHECK(cuPerCuGbps(model, Route::HostToGpu, 16) < cuPerCuGbps(model, Route::GpuToHost, 16));
}

TEST_CASE("--engines: a split copy runs on distinct engines, up to the route's count") {
  const Mi350xModel model;
  CopyRequest split{CopyPath::EngineHost, 0, 1, 256 * MiB, 0, 1, 0};
  split.split = 2;
  const CopyCost two = copyCost(model, split);
  CHECK(two.engines == 2);
  CHECK(two.engineIds.size() == 2);
  CHECK(two.gbps == doctest::Approx(model.engineLinkEfficiency * model.linkGbpsPerDirection()));
  CHECK(two.nominalNs(256 * MiB) < copyCost(model, CopyPath::EngineHost, 256 * MiB, 0).nominalNs(256 * MiB));
  // Small copies pay one submission per piece.
  CopyRequest small = split;
  small.sizeBytes = 4 * KiB;
  CHECK(copyCost(model, small).nominalNs(4 * KiB) >
        copyCost(model, CopyPath::EngineHost, 4 * KiB, 0).nominalNs(4 * KiB));
  split.split = 14;
  CHECK(dimensionProblem(model, split).empty());
  split.split = 15;
  CHECK(dimensionProblem(model, split).find("14 xGMI SDMA engines") != std::string::npos);
  CopyRequest host{CopyPath::EngineHost, kHostEndpoint, 0, MiB, 0, 1, 0};
  host.split = 3;
  CHECK(dimensionProblem(model, host).find("2 PCIe SDMA engines") != std::string::npos);
  CopyRequest channels{CopyPath::EngineDevice, 0, 1, MiB, 0, 1, 0};
  channels.split = 9;
  CHECK(dimensionProblem(model, channels).find("ROCSHMEM_SDMA_NUM_CHANNELS") != std::string::npos);
  // 8 GPUs: channel k of a peer lands on xGMI engine 2 + p + 7k, so two distinct engines.
  channels.split = 4;
  CHECK(copyCost(model, channels).engines == 2);
}

TEST_CASE("--batch: one submission for all the pieces") {
  const Mi350xModel model;
  CopyRequest batch{CopyPath::EngineHost, 0, 1, 8 * 64 * KiB, 0, 1, 0};
  batch.batch = 8;
  const CopyCost batched = copyCost(model, batch);
  const CopyCost piece = copyCost(model, CopyPath::EngineHost, 64 * KiB, 0);
  CHECK(batched.packets == 8);
  CHECK(batched.engines == 1);
  // Eight single copies of a piece pay eight submissions; the batch pays one.
  CHECK(batched.nominalNs(8 * 64 * KiB) < 8 * piece.nominalNs(64 * KiB));
}

TEST_CASE("--shmem-sdma: library below rocSHMEM's threshold and off are load/store") {
  const Mi350xModel model;
  CopyRequest put{CopyPath::EngineDevice, 0, 1, 128, 0, 1, 0};
  put.shmemSdma = ShmemSdma::Library;
  CHECK(copyCost(model, put).loadStore);
  put.sizeBytes = model.shmemSdmaThresholdBytes;
  CHECK_FALSE(copyCost(model, put).loadStore);
  put.shmemSdma = ShmemSdma::Off;
  put.sizeBytes = 64 * MiB;
  const CopyCost off = copyCost(model, put);
  CHECK(off.loadStore);
  CHECK(off.engines == 0);
  CHECK(off.gbps == doctest::Approx(cuCopyGbps(model, 1, Route::Peer, 1)));
  put.shmemSdma = ShmemSdma::Forced;
  CHECK_FALSE(copyCost(model, put).loadStore);
}

TEST_CASE("the sample carries the dimensions as they ran") {
  SimBackend backend(SimOptions{1, 0});
  CopyRequest request{CopyPath::EngineHost, 0, 1, MiB, 0, 3, 0};
  request.split = 2;
  const CopyMeasurement split = backend.measure(request);
  CHECK(split.splitOver == "engines");
  CHECK(split.engineIds.size() == 2);
  CopyRequest waves{CopyPath::CuDevice, 0, 1, MiB, 4, 3, 0};
  waves.wavesPerCu = 8;
  const CopyMeasurement w = backend.measure(waves);
  CHECK(w.wavesPerCu == 8);
  CHECK(w.waveSize == 64);
  // The defaults leave the stream as it was: same times as a request without the fields.
  const CopyRequest plain{CopyPath::CuDevice, 0, 1, MiB, 4, 3, 0};
  CopyRequest defaults = plain;
  defaults.split = 1;
  defaults.batch = 0;
  CHECK(backend.measure(plain).timesNs == backend.measure(defaults).timesNs);
}
