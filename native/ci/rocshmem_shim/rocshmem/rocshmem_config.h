// Compile-check only (see rocshmem.hpp next to this file): the configuration header an
// installed rocSHMEM carries (generated from cmake/rocshmem_config.h.in), as for a build
// with the IPC backend and the SDMA transport (CMake options USE_IPC, USE_SDMA).
#pragma once
#define USE_IPC
#define USE_SDMA
