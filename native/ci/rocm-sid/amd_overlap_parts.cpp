// Overlap's AMD parts linked against the real libamd_smi and libhipblaslt and run on a machine
// without a GPU (native/ci/rocm-sid.sh): the amd-smi reader must refuse a board it cannot find
// and sample nothing, the hipBLASLt GEMM must refuse with an sdma::Failure; neither may crash.
// Prints one line per part; exit 0 when both refused as they should.
#include <cstdio>
#include <string>

#include "backends/gpu/amdsmi_board.hpp"
#include "backends/gpu/hipblaslt_gemm.hpp"
#include "util/error.hpp"

int main() {
  int failures = 0;
  {
    sdma::gpu::AmdSmiBoard board;
    std::string why;
    const std::string bus = "0000:ff:1f.7";  // no GPU sits there, on this machine or any
    if (board.open(bus, why)) {
      std::printf("AmdSmiBoard::open(%s): opened, but there is no GPU here\n", bus.c_str());
      ++failures;
    } else {
      std::printf("AmdSmiBoard::open(%s): refused: %s\n", bus.c_str(), why.c_str());
    }
    const sdma::gpu::BoardSample s = board.sample();
    if (s.gfxMHz || s.memMHz || s.powerW || s.powerLimitW || !s.throttleReasons.empty()) {
      std::printf("AmdSmiBoard::sample(): a reading from no board\n");
      ++failures;
    } else {
      std::printf("AmdSmiBoard::sample(): empty\n");
    }
  }
  try {
    sdma::gpu::HipblasltGemm gemm(256, nullptr);
    gemm.launch();
    std::printf("HipblasltGemm(256): %s ran, but there is no GPU here\n", gemm.label().c_str());
    ++failures;
  } catch (const sdma::Failure& f) {
    std::printf("HipblasltGemm(256): refused: %s: %s\n", f.error().code.c_str(), f.error().message.c_str());
  }
  return failures == 0 ? 0 : 1;
}
