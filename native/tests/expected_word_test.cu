// The copy check's word rule (gpu_kernels.hpp expectedWord, used by the device check and the
// host check of host-memory destinations) against the byte rule it folds (expectedByte), on
// the host: every word of three slots for slot sizes and strides where words fall inside a
// slot, inside its guard gap, and across the border between them.
#include <cstdio>

#include "backends/gpu/gpu_compat.hpp"
#include "backends/gpu/gpu_kernels.hpp"

int main() {
  using sdma::gpu::expectedByte;
  using sdma::gpu::expectedWord;
  long words = 0, differ = 0;
  for (std::uint64_t size : {8ull, 12ull, 4096ull, 4100ull, 65541ull}) {
    for (std::uint64_t gap : {0ull, 8ull, 13ull, 4096ull}) {
      const std::uint64_t stride = size + gap;
      for (std::uint64_t w = 0; w < (3 * stride) / 8; ++w) {
        std::uint64_t want = 0;
        for (int b = 0; b < 8; ++b)
          want |= static_cast<std::uint64_t>(expectedByte(7, w * 8 + b, stride, size)) << (8 * b);
        if (want != expectedWord(7, w, stride, size)) ++differ;
        ++words;
      }
    }
  }
  std::printf("%ld words, %ld differ\n", words, differ);
  return differ == 0 && words > 0 ? 0 : 1;
}
