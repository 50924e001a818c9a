// The reference the engine/host path is held against: a plain cudaMemcpyPeerAsync loop,
// no gate, no rotation, no validation, timed with two events around the whole loop
// (pipelined), and single copies timed one by one (one-shot). Prints CSV on stdout.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e = (call);                                                           \
    if (e != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));                 \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

int main(int argc, char** argv) {
  const int src = 0, dst = 1;
  const int loopIters = argc > 1 ? std::atoi(argv[1]) : 20;
  CHECK(cudaSetDevice(dst));
  CHECK(cudaDeviceEnablePeerAccess(src, 0));
  CHECK(cudaSetDevice(src));
  CHECK(cudaDeviceEnablePeerAccess(dst, 0));
  const size_t sizes[] = {4096, 65536, 1 << 20, 16 << 20, 64 << 20, 256 << 20, size_t(1) << 30};
  const size_t maxBytes = size_t(1) << 30;
  void *a = nullptr, *b = nullptr;
  CHECK(cudaMalloc(&a, maxBytes));
  CHECK(cudaMemset(a, 1, maxBytes));
  CHECK(cudaSetDevice(dst));
  CHECK(cudaMalloc(&b, maxBytes));
  CHECK(cudaSetDevice(src));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  std::printf("path,sizeBytes,loopIters,pipelinedGbps,oneShotMedianUs\n");
  for (size_t bytes : sizes) {
    for (int w = 0; w < 3; ++w) CHECK(cudaMemcpyPeerAsync(b, dst, a, src, bytes, stream));
    CHECK(cudaEventRecord(e0, stream));
    for (int i = 0; i < loopIters; ++i) CHECK(cudaMemcpyPeerAsync(b, dst, a, src, bytes, stream));
    CHECK(cudaEventRecord(e1, stream));
    CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    const double gbps = double(bytes) * loopIters / (ms * 1e-3) / 1e9;
    std::vector<float> one;
    for (int i = 0; i < 21; ++i) {
      CHECK(cudaEventRecord(e0, stream));
      CHECK(cudaMemcpyPeerAsync(b, dst, a, src, bytes, stream));
      CHECK(cudaEventRecord(e1, stream));
      CHECK(cudaEventSynchronize(e1));
      float t = 0;
      CHECK(cudaEventElapsedTime(&t, e0, e1));
      one.push_back(t * 1000.f);
    }
    std::sort(one.begin(), one.end());
    std::printf("reference-memcpy-peer,%zu,%d,%.2f,%.2f\n", bytes, loopIters, gbps, one[one.size() / 2]);
  }
  return 0;
}
