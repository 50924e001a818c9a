// Compile-check only (see rocshmem.hpp next to this file): the configuration header an
// installed rocSHMEM carries (generated from cmake/rocshmem_config.h.in), as for a build
// with the IPC backend and the SDMA transport (CMake options USE_IPC, USE_SDMA).
#pragma once
#define USE_IPC
#define USE_SDMA
// The vendor version, defined from rocSHMEM 3.3 on (cmake/rocshmem_config.h.in); left out
// for the older generations the shim models (rocshmem.hpp next to this file).
#if !defined(SDMA_ROCSHMEM_SHIM_GENERATION) || SDMA_ROCSHMEM_SHIM_GENERATION >= 33
#define ROCSHMEM_VENDOR_MAJOR_VERSION 3
#define ROCSHMEM_VENDOR_MINOR_VERSION 4
#define ROCSHMEM_VENDOR_PATCH_VERSION 0
#define ROCSHMEM_VERSION "3.4.0"
#endif
