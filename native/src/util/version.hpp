#pragma once

#ifndef SDMA_PROBE_VERSION
#error "SDMA_PROBE_VERSION comes from CMakeLists.txt (project VERSION)"
#endif

namespace sdma {

inline constexpr int kProtocolVersion = 1;
inline constexpr const char* kHelperName = "sdma-probe";
inline constexpr const char* kHelperVersion = SDMA_PROBE_VERSION;

}  // namespace sdma
