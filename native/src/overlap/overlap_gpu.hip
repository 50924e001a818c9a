// The HIP build of overlap_gpu.cu: the same source through gpu_compat.hpp.
#include "overlap_gpu.cu"
