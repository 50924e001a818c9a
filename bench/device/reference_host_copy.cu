// The references the host <-> GPU and GPU-local figures of sdma-probe are held against, on
// one GPU: plain cudaMemcpyAsync loops (host -> GPU, GPU -> host with pinned host memory from
// cudaHostAlloc, and GPU-local device -> device), and a grid-stride SM copy kernel reading or
// writing mapped pinned host memory at a few SM counts. No gate, no rotation, no validation:
// a few warm-up copies, then events around `loopIters` back-to-back copies on one stream.
// GB/s is 10^9 bytes per second of copied bytes (a GPU-local copy reads and writes each one).
// Usage: reference_host_copy [loopIters] [sms,...]      prints CSV on stdout
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e = (call);                                                           \
    if (e != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

// 16-byte loads and stores, consecutive threads on consecutive addresses, the grid striding
// over the whole buffer.
__global__ void gridStrideCopy(const uint4* src, uint4* dst, size_t vectors) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += stride) dst[i] = src[i];
}

struct Timer {
  cudaEvent_t start{}, end{};
  Timer() {
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&end));
  }
};

int main(int argc, char** argv) {
  const int loopIters = argc > 1 ? std::atoi(argv[1]) : 10;
  std::vector<int> smCounts;
  for (const char* p = argc > 2 ? argv[2] : "32,132"; *p != '\0';) {
    smCounts.push_back(std::atoi(p));
    while (*p != '\0' && *p != ',') ++p;
    if (*p == ',') ++p;
  }
  const size_t sizes[] = {size_t(64) << 20, size_t(256) << 20, size_t(1) << 30};
  const size_t maxBytes = size_t(1) << 30;
  CHECK(cudaSetDevice(0));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  void *hostSrc = nullptr, *hostDst = nullptr, *devA = nullptr, *devB = nullptr;
  CHECK(cudaHostAlloc(&hostSrc, maxBytes, cudaHostAllocMapped | cudaHostAllocPortable));
  CHECK(cudaHostAlloc(&hostDst, maxBytes, cudaHostAllocMapped | cudaHostAllocPortable));
  std::memset(hostSrc, 1, maxBytes);
  std::memset(hostDst, 0, maxBytes);
  void *hostSrcDev = nullptr, *hostDstDev = nullptr;
  CHECK(cudaHostGetDevicePointer(&hostSrcDev, hostSrc, 0));
  CHECK(cudaHostGetDevicePointer(&hostDstDev, hostDst, 0));
  CHECK(cudaMalloc(&devA, maxBytes));
  CHECK(cudaMalloc(&devB, maxBytes));
  CHECK(cudaMemset(devA, 2, maxBytes));
  CHECK(cudaMemset(devB, 0, maxBytes));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  Timer t;
  std::printf("gpu,%s,sms,%d\n", prop.name, prop.multiProcessorCount);
  std::printf("reference,direction,sizeBytes,sms,loopIters,gbps\n");

  struct Copy {
    const char* direction;
    void* dst;
    const void* src;
    cudaMemcpyKind kind;
  };
  const Copy copies[] = {{"h2d", devA, hostSrc, cudaMemcpyHostToDevice},
                         {"d2h", hostDst, devA, cudaMemcpyDeviceToHost},
                         {"local", devB, devA, cudaMemcpyDeviceToDevice}};
  for (size_t bytes : sizes) {
    for (const Copy& c : copies) {
      for (int w = 0; w < 2; ++w) CHECK(cudaMemcpyAsync(c.dst, c.src, bytes, c.kind, stream));
      CHECK(cudaEventRecord(t.start, stream));
      for (int i = 0; i < loopIters; ++i) CHECK(cudaMemcpyAsync(c.dst, c.src, bytes, c.kind, stream));
      CHECK(cudaEventRecord(t.end, stream));
      CHECK(cudaEventSynchronize(t.end));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, t.start, t.end));
      std::printf("memcpy-async,%s,%zu,0,%d,%.2f\n", c.direction, bytes, loopIters,
                  double(bytes) * loopIters / (ms * 1e-3) / 1e9);
    }
    // The SM copy through the mapping: host -> GPU reads host memory, GPU -> host writes it.
    struct Kernel {
      const char* direction;
      const void* src;
      void* dst;
    };
    const Kernel kernels[] = {{"h2d", hostSrcDev, devA}, {"d2h", devA, hostDstDev}};
    for (const Kernel& k : kernels) {
      for (int sms : smCounts) {
        const size_t vectors = bytes / 16;
        auto launch = [&] {
          gridStrideCopy<<<sms, 1024, 0, stream>>>(static_cast<const uint4*>(k.src), static_cast<uint4*>(k.dst), vectors);
        };
        launch();
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(t.start, stream));
        for (int i = 0; i < loopIters; ++i) launch();
        CHECK(cudaEventRecord(t.end, stream));
        CHECK(cudaEventSynchronize(t.end));
        CHECK(cudaGetLastError());
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, t.start, t.end));
        std::printf("sm-copy-mapped,%s,%zu,%d,%d,%.2f\n", k.direction, bytes, sms, loopIters,
                    double(bytes) * loopIters / (ms * 1e-3) / 1e9);
      }
    }
  }
  // The copies really moved the bytes: one spot check per destination.
  unsigned char probe = 0;
  CHECK(cudaMemcpy(&probe, devA, 1, cudaMemcpyDeviceToHost));
  const bool ok = probe == 1 && static_cast<unsigned char*>(hostDst)[maxBytes - 1] == 1;
  CHECK(cudaMemcpy(&probe, devB, 1, cudaMemcpyDeviceToHost));
  std::printf("check,%s\n", ok && probe == 1 ? "ok" : "wrong-bytes");
  return ok && probe == 1 ? 0 : 1;
}
