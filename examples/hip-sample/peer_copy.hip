// A small HIP program to open with SDMA Lens: a load/store peer copy kernel, the `cu/host`
// path of a transfer sweep. Build: hipcc -O3 peer_copy.hip -o peer_copy
#include <hip/hip_runtime.h>
#include <cstdio>

// Each thread moves 16-byte vectors; a grid-stride loop keeps every launched CU busy.
__global__ void __launch_bounds__(256) peer_copy(const uint4* __restrict__ src, uint4* __restrict__ dst, size_t count) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    dst[i] = src[i];
  }
}

int main() {
  const size_t bytes = size_t(64) << 20;
  const size_t count = bytes / sizeof(uint4);
  uint4 *src = nullptr, *dst = nullptr;
  hipSetDevice(0);
  hipMalloc(&src, bytes);
  hipDeviceEnablePeerAccess(1, 0);
  hipSetDevice(1);
  hipMalloc(&dst, bytes);
  hipSetDevice(0);
  hipEvent_t start, stop;
  hipEventCreate(&start);
  hipEventCreate(&stop);
  hipEventRecord(start);
  peer_copy<<<64, 256>>>(src, dst, count);
  hipEventRecord(stop);
  hipEventSynchronize(stop);
  float ms = 0;
  hipEventElapsedTime(&ms, start, stop);
  std::printf("%.1f GB/s\n", bytes / 1e6 / ms);
  return 0;
}
