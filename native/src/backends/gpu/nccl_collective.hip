// The HIP (AMD) build of the collective runner: the shared source through gpu_compat.hpp.
#include "backends/gpu/nccl_collective.inc"
