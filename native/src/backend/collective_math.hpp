#pragma once

// The collective figures, defined as nccl-tests and rccl-tests define them so that numbers
// can be set side by side with theirs (docs/COLLECTIVES.md):
//   size   bytes each rank receives (AllGather: the gathered buffer; AlltoAll: n blocks)
//   algbw  size / time
//   busbw  algbw x (n-1)/n for AllGather and AlltoAll: the share of the buffer that crossed
//          a link, so one figure compares across rank counts.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace sdma::collective {

enum class Op { AllGather, AlltoAll };

inline std::string_view opName(Op op) { return op == Op::AllGather ? "allgather" : "alltoall"; }

inline std::optional<Op> parseOp(std::string_view name) {
  if (name == "allgather" || name == "all_gather") return Op::AllGather;
  if (name == "alltoall" || name == "all_to_all") return Op::AlltoAll;
  return std::nullopt;
}

inline double busbwFactor(Op op, int ranks) {
  (void)op;  // both operations move (n-1)/n of the buffer over links
  return ranks > 0 ? static_cast<double>(ranks - 1) / ranks : 0.0;
}

// 1e9 bytes per second, as nccl-tests prints GB/s.
inline double algbwGbps(std::uint64_t sizeBytes, double timeUs) {
  return timeUs > 0 ? static_cast<double>(sizeBytes) / (timeUs * 1e3) : 0.0;
}

inline double busbwGbps(Op op, int ranks, std::uint64_t sizeBytes, double timeUs) {
  return algbwGbps(sizeBytes, timeUs) * busbwFactor(op, ranks);
}

// The median of a point's repeats (the middle one; the mean of the two middle ones when their
// number is even). 0 for none.
inline double medianOf(std::vector<double> samples) {
  if (samples.empty()) return 0.0;
  std::sort(samples.begin(), samples.end());
  const std::size_t mid = samples.size() / 2;
  return samples.size() % 2 == 1 ? samples[mid] : (samples[mid - 1] + samples[mid]) / 2;
}

// nccl-tests rounds each size down to whole elements per rank: count/nranks elements each.
inline std::uint64_t alignedSizeBytes(std::uint64_t sizeBytes, int ranks, std::uint64_t elementBytes) {
  const std::uint64_t unit = static_cast<std::uint64_t>(ranks) * elementBytes;
  return unit == 0 ? 0 : sizeBytes / unit * unit;
}

// Bytes each rank sends: AllGather contributes 1/n of the result, AlltoAll sends a whole buffer.
inline std::uint64_t sendBytesPerRank(Op op, std::uint64_t sizeBytes, int ranks) {
  return op == Op::AllGather ? sizeBytes / static_cast<std::uint64_t>(ranks) : sizeBytes;
}

// -b/-e/-f/-i as in nccl-tests: multiply by the factor when it is above 1, else add the step.
inline std::vector<std::uint64_t> sweepSizes(std::uint64_t minBytes, std::uint64_t maxBytes, std::uint64_t factor,
                                             std::uint64_t stepBytes) {
  std::vector<std::uint64_t> sizes;
  if (minBytes == 0 || minBytes > maxBytes) return sizes;
  for (std::uint64_t size = minBytes; size <= maxBytes;) {
    sizes.push_back(size);
    if (factor > 1) {
      if (size > maxBytes / factor) break;
      size *= factor;
    } else {
      if (stepBytes == 0 || size > maxBytes - stepBytes) break;
      size += stepBytes;
    }
  }
  return sizes;
}

}  // namespace sdma::collective
