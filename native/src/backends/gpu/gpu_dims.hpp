#pragma once

// The arithmetic of the seed's dimensions in the GPU backends (docs/SEED-EXPERIMENTS.md), kept
// apart from the GPU calls so that it is tested on machines without a GPU
// (native/tests/gpu_dims_test.cpp): the threads per block of a --waves-per-cu copy, the pieces
// of a copy split over engines or streams or batched, and the rocSHMEM channel range.

#include <cstdint>
#include <string>
#include <vector>

namespace sdma::gpu::dims {

// The threads of one wave: an AMD wave64 wavefront, an NVIDIA warp. The backends ask the
// device (warpSize) and fall back to these.
inline constexpr int kAmdWaveSize = 64;
inline constexpr int kNvidiaWaveSize = 32;

// Every piece of a split or batched copy but the last starts on this boundary.
inline constexpr std::uint64_t kPieceAlignBytes = 64;

// ROCSHMEM_SDMA_NUM_CHANNELS takes 1 to 8 (ROCm/rocm-systems projects/rocshmem/src/envvar.cpp,
// namespace envvar::sdma, num_channels: "Number of SDMA channels per destination [1, 8]",
// default 1).
inline constexpr int kRocshmemMaxChannels = 8;

// engine/device on AMD: the PE's put kernel is one workgroup of waves x 64 threads, so at most
// this many waves (1024 threads, HIP's default block limit).
inline constexpr int kPutKernelMaxWaves = 16;

// A dimension value a backend cannot run: the message and hint of its dimension-unsupported error.
struct Refusal {
  std::string message;
  std::string hint;
};

struct WaveLayout {
  int threadsPerBlock = 0;
  std::string error;  // non-empty: the layout cannot run (message of a dimension-unsupported error)
  std::string hint;
  bool ok() const { return error.empty(); }
};

// A cu/* copy with --waves-per-cu: each CU runs wavesPerCu x waveSize threads split over
// blocksPerCu blocks, each block a whole number of waves (at least one) and no more than
// maxThreadsPerBlock threads. `unit` names a wave as the vendor does ("wave", "warp").
inline WaveLayout waveLayout(int wavesPerCu, int waveSize, int blocksPerCu, int maxThreadsPerBlock,
                             const std::string& unit) {
  WaveLayout w;
  const std::string asked =
      "--waves-per-cu " + std::to_string(wavesPerCu) + " --blocks-per-cu " + std::to_string(blocksPerCu);
  if (wavesPerCu < 1 || waveSize < 1 || blocksPerCu < 1) {
    w.error = asked + ": the waves, the wave size and the blocks per CU must each be at least 1";
    w.hint = "use --waves-per-cu 1 or more";
    return w;
  }
  if (wavesPerCu < blocksPerCu) {
    w.error = asked + ": " + std::to_string(wavesPerCu) + " " + unit + (wavesPerCu == 1 ? "" : "s") +
              " per CU cannot give each of " + std::to_string(blocksPerCu) + " blocks one whole " + unit + " of " +
              std::to_string(waveSize) + " threads";
    w.hint = "use --waves-per-cu at least --blocks-per-cu (and a multiple of it), or fewer --blocks-per-cu";
    return w;
  }
  if (wavesPerCu % blocksPerCu != 0) {
    w.error = asked + ": " + std::to_string(wavesPerCu) + " " + unit + "s do not split into " +
              std::to_string(blocksPerCu) + " blocks of whole " + unit + "s";
    w.hint = "use a --waves-per-cu that is a multiple of --blocks-per-cu";
    return w;
  }
  const long long threads = static_cast<long long>(wavesPerCu / blocksPerCu) * waveSize;
  if (maxThreadsPerBlock > 0 && threads > maxThreadsPerBlock) {
    w.error = asked + ": " + std::to_string(threads) + " threads per block, above this GPU's limit of " +
              std::to_string(maxThreadsPerBlock) + " (" + std::to_string(maxThreadsPerBlock / waveSize) + " " + unit +
              "s of " + std::to_string(waveSize) + ")";
    w.hint = "use more --blocks-per-cu (AMD) or fewer --waves-per-cu";
    return w;
  }
  w.threadsPerBlock = static_cast<int>(threads);
  return w;
}

struct Piece {
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
  bool operator==(const Piece& o) const { return offset == o.offset && bytes == o.bytes; }
};

// One copy of `bytes` as n pieces in order, covering it exactly: the first n - 1 of equal size
// (bytes / n rounded down to kPieceAlignBytes), the last the rest (equal when n divides the
// size on the boundary, as the sweep's power-of-two sizes do). Empty when the size is too small
// for n pieces of at least kPieceAlignBytes each, or n < 1.
inline std::vector<Piece> splitPieces(std::uint64_t bytes, int n) {
  std::vector<Piece> pieces;
  if (n < 1) return pieces;
  if (n == 1) {
    if (bytes > 0) pieces.push_back({0, bytes});
    return pieces;
  }
  const std::uint64_t each = bytes / static_cast<std::uint64_t>(n) / kPieceAlignBytes * kPieceAlignBytes;
  if (each == 0) return pieces;
  for (int i = 0; i < n - 1; ++i) pieces.push_back({each * static_cast<std::uint64_t>(i), each});
  const std::uint64_t used = each * static_cast<std::uint64_t>(n - 1);
  pieces.push_back({used, bytes - used});
  return pieces;
}

// The refusal of a size too small to split (empty when it can be).
inline std::string splitRefusal(std::uint64_t bytes, int n, const std::string& flag) {
  if (!splitPieces(bytes, n).empty()) return {};
  return flag + " " + std::to_string(n) + ": " + std::to_string(bytes) + " bytes do not split into " +
         std::to_string(n) + " pieces of at least " + std::to_string(kPieceAlignBytes) + " bytes";
}

// HIP's version number as hipRuntimeGetVersion gives it (HIP_VERSION: major x 10,000,000 +
// minor x 100,000 + patch) at or above major.minor.
inline bool hipVersionAtLeast(int runtimeVersion, int major, int minor) {
  return runtimeVersion >= major * 10000000 + minor * 100000;
}

inline std::string hipVersionText(int runtimeVersion) {
  return std::to_string(runtimeVersion / 10000000) + "." + std::to_string(runtimeVersion / 100000 % 100) + "." +
         std::to_string(runtimeVersion % 100000);
}

}  // namespace sdma::gpu::dims
