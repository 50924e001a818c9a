// The HIP (AMD) build of the overlap runner: the shared source through gpu_compat.hpp.
#include "backends/gpu/overlap_gpu.inc"
