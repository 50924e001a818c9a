// Compile-check only: the rocSHMEM API as documented, declarations only, so that CI (Debian,
// which ships no rocSHMEM) can compile native/src/backends/gpu/rocshmem_pe.hip. Never linked, never
// used by a real build: CMake uses the installed <rocshmem/rocshmem.hpp> when it finds one.
// Signatures from the rocSHMEM documentation (rocm.docs.amd.com/projects/rocSHMEM, "latest"
// and docs-7.14.0: api/init, api/memory_management, api/rma, api/sync) and the 128-byte
// unique id / init attribute layout of include/rocshmem/rocshmem_common.hpp.
//
// Two generations of the headers, so that both branches of the PE program compile
// (rocSHMEM's CHANGELOG.md): by default 3.3 and later (ROCm 7.13+: rocshmem_config.h defines
// ROCSHMEM_VENDOR_MAJOR_VERSION, rocshmem_vendor_get_version_info exists, rocshmem_wg_init is
// [[deprecated]] as it has been since 3.1); with -DSDMA_ROCSHMEM_SHIM_GENERATION=30, 3.0
// (ROCm 7.0: unique-id init is new, no version macros or query, rocshmem_wg_init required
// in kernels); with =31, 3.1 and 3.2 (no version macros or query, rocshmem_wg_init
// deprecated).
#pragma once
#include <hip/hip_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "rocshmem/rocshmem_config.h"

namespace rocshmem {

#define ROCSHMEM_UNIQUE_ID_BYTES 128
using rocshmem_uniqueid_t = std::array<uint8_t, ROCSHMEM_UNIQUE_ID_BYTES>;
struct rocshmem_init_attr_t {
  int32_t rank;
  int32_t nranks;
  rocshmem_uniqueid_t uid;
  void* mpi_comm;
};
constexpr unsigned int ROCSHMEM_INIT_WITH_MPI_COMM = 0;
constexpr unsigned int ROCSHMEM_INIT_WITH_UNIQUEID = 1;

// Setup, exit, query (api/init)
__host__ int rocshmem_get_uniqueid(rocshmem_uniqueid_t* uid);
__host__ int rocshmem_set_attr_uniqueid_args(int rank, int nranks, rocshmem_uniqueid_t* uid,
                                             rocshmem_init_attr_t* attr);
__host__ int rocshmem_init_attr(unsigned int flags, rocshmem_init_attr_t* attr);
__host__ void rocshmem_finalize();
__host__ int rocshmem_my_pe();
__host__ int rocshmem_n_pes();
#if defined(ROCSHMEM_VENDOR_MAJOR_VERSION)
__host__ void rocshmem_vendor_get_version_info(int* major, int* minor, int* patch);
#endif
__host__ void* rocshmem_ptr(const void* dest, int pe);

// Symmetric heap (api/memory_management): collective over all PEs
__host__ void* rocshmem_malloc(size_t size);
__host__ void rocshmem_free(void* ptr);

// Device-side set-up (api/init): required before 3.1, deprecated since
#if defined(SDMA_ROCSHMEM_SHIM_GENERATION) && SDMA_ROCSHMEM_SHIM_GENERATION == 30
__device__ void rocshmem_wg_init();
__device__ void rocshmem_wg_finalize();
#else
[[deprecated]] __device__ void rocshmem_wg_init();
[[deprecated]] __device__ void rocshmem_wg_finalize();
#endif

// RMA (api/rma): _nbi returns once the request is posted
__device__ void rocshmem_putmem_nbi(void* dest, const void* source, size_t nelems, int pe);
// The wave- and workgroup-level forms (include/rocshmem/rocshmem_RMA_X.hpp): every thread of the
// wave (workgroup) calls with the same arguments.
__device__ void rocshmem_putmem_nbi_wave(void* dest, const void* source, size_t nelems, int pe);
__device__ void rocshmem_putmem_nbi_wg(void* dest, const void* source, size_t nelems, int pe);

// Ordering and barriers (api/sync, api/coll)
__device__ void rocshmem_quiet();
__host__ void rocshmem_quiet();
__host__ void rocshmem_barrier_all();

}  // namespace rocshmem
