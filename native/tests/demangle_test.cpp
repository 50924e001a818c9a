// Kernel names through profile/records.hpp's demangle (the C++ runtime's abi::__cxa_demangle), on
// names profilers really printed:
//  - CUPTI on an H200 (test/fixtures/runmode/h200x1/runmode-fused-a2a.ndjson, `mangled`): kernels
//    in an anonymous namespace, as nvcc mangles them (_GLOBAL__N_ plus the file's hash);
//  - the rocpd fixture's kernel symbols (test/fixtures/rocpd/make-fixture.sql, kernel_name);
//  - rocprofv3's CSV (test/fixtures/rocprofv3/kernel_trace.csv), whose names are already demangled;
// plus templates, namespaces and a lambda as g++ / clang mangle them (Itanium ABI), names that
// are not mangled (C kernels, OpenMP offload regions) and names that only look mangled.
#include <cstdio>
#include <string>

#include "profile/records.hpp"
#include "doctest_support.hpp"

namespace {

using sdma::runmode::demangle;

void same(const std::string& in, const std::string& want, const std::string& what) {
  const std::string got = demangle(in);
  CHECK_MESSAGE((got == want), (what + ": " + in + " -> " + got));
}

TEST_CASE("cuptiOnH200") {
  same("_ZN41_GLOBAL__N__1870e908_12_fused_a2a_cu_main15fusedComputeA2aEPKfPKPfiim",
       "(anonymous namespace)::fusedComputeA2a(float const*, float* const*, int, int, unsigned long)",
       "CUPTI (H200): kernel in an anonymous namespace");
  same("_ZN41_GLOBAL__N__1870e908_12_fused_a2a_cu_main13computeKernelEPfm",
       "(anonymous namespace)::computeKernel(float*, unsigned long)", "CUPTI (H200): second kernel of that file");
}

TEST_CASE("rocpdSymbols") {
  same("_Z15fusedComputeA2aPKfPKPfiim", "fusedComputeA2a(float const*, float* const*, int, int, unsigned long)",
       "rocpd kernel symbol: const pointers, pointer to const pointer");
  same("_Z13computeKernelPfi", "computeKernel(float*, int)", "rocpd kernel symbol: plain parameters");
}

TEST_CASE("templatesNamespacesLambdas") {
  same("_Z15addition_kernelIfEvPT_PKS0_S3_ii",
       "void addition_kernel<float>(float*, float const*, float const*, int, int)",
       "template: the return type comes first, as rocprofv3 prints it");
  same("_Z14templated_copyIfLi4EEvPKT_PS0_m", "void templated_copy<float, 4>(float const*, float*, unsigned long)",
       "template with a type and a value argument");
  same("_ZN4sdma6detail12in_namespaceEPii", "sdma::detail::in_namespace(int*, int)", "nested namespaces");
  same("_Z5applyIZ4mainEUlfE_EvT_i", "void apply<main::{lambda(float)#1}>(main::{lambda(float)#1}, int)",
       "template kernel instantiated with a lambda");
}

TEST_CASE("notMangled") {
  same("subtract_kernel(float*, float const*, float const*, int, int)",
       "subtract_kernel(float*, float const*, float const*, int, int)", "rocprofv3's already demangled name");
  same("vector_add", "vector_add", "extern \"C\" kernel");
  same("__omp_offloading_10302_2a1c3f_main_l12", "__omp_offloading_10302_2a1c3f_main_l12", "OpenMP offload region");
  same("", "", "empty name");
}

TEST_CASE("failuresKeepTheRawName") {
  same("_Z", "_Z", "the prefix alone");
  same("_Z15fusedComputeA2", "_Z15fusedComputeA2", "a name cut short (length past its end)");
  same("_Zebra_kernel", "_Zebra_kernel", "a C name that starts with _Z");
}

}  // namespace
