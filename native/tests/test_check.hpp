#pragma once

// The native tests' one check: prints ok/FAIL with what was checked and counts failures.
#include <cstdint>
#include <cstdio>
#include <string>

namespace sdma::testing {

inline int failures = 0;

inline void check(bool ok, const std::string& what) {
  std::printf("%s  %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

inline constexpr std::uint64_t KiB = 1024, MiB = KiB * KiB, GiB = MiB * KiB;

}  // namespace sdma::testing
