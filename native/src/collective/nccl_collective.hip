// The HIP build of nccl_collective.cu: the same source through gpu_compat.hpp.
#include "nccl_collective.cu"
