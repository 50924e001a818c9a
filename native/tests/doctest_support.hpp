#pragma once

// What the native doctest tests share: doctest itself, the words a test was started with
// after the doctest options (fixture directories, from ctest), and byte units.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace sdma::testing {

// The arguments that are not doctest's (doctest_main.cpp keeps them), in order.
const std::vector<std::string>& appArgs();

// appArgs()[index], or a failed REQUIRE naming what is missing.
std::string appArg(std::size_t index, const char* what);

inline constexpr std::uint64_t KiB = 1024, MiB = KiB * KiB, GiB = MiB * KiB;

}  // namespace sdma::testing
