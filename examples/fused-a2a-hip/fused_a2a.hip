// A fused compute + all-to-all step across the GPUs of one node: every GPU transforms its
// input and each workgroup stores its result straight into a peer GPU's receive buffer
// over XGMI (the CUs move the bytes, started by the kernel: cu/device). A host-started peer
// copy (engine/host: an SDMA engine) and the usual host<->device copies run around it, so
// `sdma-probe run` shows all three kinds. The kernels mark their work with
// <sdma_lens/trace.h>. The CUDA twin is examples/fused-a2a-cuda.
//
//   hipcc -O2 --offload-arch=gfx942 -I../../native/include fused_a2a.hip -o fused_a2a
//   sdma-probe run -- ./fused_a2a [MiB per peer, default 8] [steps, default 5]
//
// With one GPU the all-to-all is a loopback (the GPU sends to itself).
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include <sdma_lens/trace.h>

namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerPeer = 32;
constexpr unsigned kLabelCompute = 0;
constexpr unsigned kLabelA2a = 1;

#define CHECK(call)                                                                             \
  do {                                                                                          \
    const hipError_t e_ = (call);                                                              \
    if (e_ != hipSuccess) {                                                                    \
      std::fprintf(stderr, "fused_a2a: %s failed: %s\n", #call, hipGetErrorString(e_));       \
      std::exit(2);                                                                             \
    }                                                                                           \
  } while (0)

__host__ __device__ inline float transform(float x) {
  // Enough arithmetic per element that the step is not purely a copy. The products are
  // exact (powers of two), so the device's fused multiply-add rounds like the host's check.
  float y = x;
  for (int i = 0; i < 16; ++i) y = y * 0.5f + 1.0f;
  return y;
}

// Local work only: scales the input in place.
__global__ void computeKernel(float* data, size_t n) {
  SDMA_LENS_SCOPE_BEGIN(span);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    data[i] = data[i] * 0.5f;
  }
  __syncthreads();
  if (threadIdx.x == 0) SDMA_LENS_SCOPE_END(span, kLabelCompute);
}

// Block b serves peer b / kBlocksPerPeer: transforms its slice of that peer's chunk and
// stores it into the peer's receive buffer at this GPU's slot.
__global__ void fusedComputeA2a(const float* input, float* const* peerRecv, int gpus, int self, size_t chunk) {
  const int peer = blockIdx.x / kBlocksPerPeer;
  const int part = blockIdx.x % kBlocksPerPeer;
  const size_t per = (chunk + kBlocksPerPeer - 1) / kBlocksPerPeer;
  const size_t begin = part * per;
  const size_t end = begin + per < chunk ? begin + per : chunk;
  SDMA_LENS_SCOPE_BEGIN(span);
  const float* src = input + size_t(peer) * chunk;
  float* dst = peerRecv[peer] + size_t(self) * chunk;
  for (size_t i = begin + threadIdx.x; i < end; i += blockDim.x) dst[i] = transform(src[i]);
  __syncthreads();
  if (threadIdx.x == 0 && end > begin) {
    SDMA_LENS_TRANSFER_END(span, kLabelA2a, (end - begin) * sizeof(float), peer);
  }
  (void)gpus;
}

float inputValue(int gpu, int peer, size_t i) { return float((gpu * 131 + peer * 17 + int(i % 1000)) % 997); }

}  // namespace

int main(int argc, char** argv) {
  const size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 8;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 5;
  int gpus = 0;
  CHECK(hipGetDeviceCount(&gpus));
  if (gpus > 8) gpus = 8;
  const size_t chunk = mib * 1024 * 1024 / sizeof(float);  // elements sent to each peer
  const size_t total = chunk * gpus;
  std::printf("fused_a2a: %d GPU(s), %zu MiB per peer, %d steps\n", gpus, mib, steps);
  std::fflush(stdout);

  sdma_lens::traceSetup({"compute", "a2a"});

  std::vector<float*> input(gpus), recv(gpus), gathered(gpus);
  std::vector<float**> peerTables(gpus);
  std::vector<hipStream_t> streams(gpus);
  for (int g = 0; g < gpus; ++g) {
    CHECK(hipSetDevice(g));
    for (int p = 0; p < gpus; ++p) {
      if (p == g) continue;
      int can = 0;
      CHECK(hipDeviceCanAccessPeer(&can, g, p));
      if (!can) {
        std::fprintf(stderr, "fused_a2a: GPU %d cannot access GPU %d\n", g, p);
        return 2;
      }
      const hipError_t e = hipDeviceEnablePeerAccess(p, 0);
      if (e != hipSuccess && e != hipErrorPeerAccessAlreadyEnabled) CHECK(e);
      (void)hipGetLastError();
    }
    CHECK(hipStreamCreateWithFlags(&streams[g], hipStreamNonBlocking));
    CHECK(hipMalloc(&input[g], total * sizeof(float)));
    CHECK(hipMalloc(&recv[g], total * sizeof(float)));
    CHECK(hipMalloc(&gathered[g], total * sizeof(float)));
    CHECK(hipMalloc(&peerTables[g], gpus * sizeof(float*)));
  }
  // host -> device: the inputs (engine/host copies in the trace).
  std::vector<float> host(total);
  for (int g = 0; g < gpus; ++g) {
    for (int p = 0; p < gpus; ++p)
      for (size_t i = 0; i < chunk; ++i) host[p * chunk + i] = inputValue(g, p, i);
    CHECK(hipSetDevice(g));
    CHECK(hipMemcpy(input[g], host.data(), total * sizeof(float), hipMemcpyHostToDevice));
    CHECK(hipMemcpy(peerTables[g], recv.data(), gpus * sizeof(float*), hipMemcpyHostToDevice));
  }

  for (int s = 0; s < steps; ++s) {
    for (int g = 0; g < gpus; ++g) {
      CHECK(hipSetDevice(g));
      fusedComputeA2a<<<kBlocksPerPeer * gpus, kThreads, 0, streams[g]>>>(input[g], peerTables[g], gpus, g, chunk);
      CHECK(hipGetLastError());
    }
    for (int g = 0; g < gpus; ++g) CHECK(hipStreamSynchronize(streams[g]));
  }
  // A host-started peer copy: GPU g gathers what its neighbour received (engine/host).
  for (int g = 0; g < gpus; ++g) {
    CHECK(hipSetDevice(g));
    const int from = (g + 1) % gpus;
    CHECK(hipMemcpyPeerAsync(gathered[g], g, recv[from], from, total * sizeof(float), streams[g]));
    computeKernel<<<304, kThreads, 0, streams[g]>>>(gathered[g], total);
    CHECK(hipGetLastError());
  }
  for (int g = 0; g < gpus; ++g) CHECK(hipStreamSynchronize(streams[g]));
  sdma_lens::traceFlush();

  // device -> host: check every received slot.
  size_t wrong = 0;
  for (int g = 0; g < gpus; ++g) {
    CHECK(hipSetDevice(g));
    CHECK(hipMemcpy(host.data(), recv[g], total * sizeof(float), hipMemcpyDeviceToHost));
    for (int from = 0; from < gpus; ++from)
      for (size_t i = 0; i < chunk; ++i)
        if (host[from * chunk + i] != transform(inputValue(from, g, i))) ++wrong;
  }
  for (int g = 0; g < gpus; ++g) {
    CHECK(hipSetDevice(g));
    CHECK(hipFree(input[g]));
    CHECK(hipFree(recv[g]));
    CHECK(hipFree(gathered[g]));
    CHECK(hipFree(peerTables[g]));
    CHECK(hipStreamDestroy(streams[g]));
  }
  std::printf("fused_a2a: %s (%zu wrong values)\n", wrong == 0 ? "OK" : "FAILED", wrong);
  return wrong == 0 ? 0 : 1;
}
