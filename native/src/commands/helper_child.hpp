// A child sdma-probe whose records this one passes on: a collective's variant (NCCL reads
// its environment once per process) and sweep's runtime default series (the HIP runtime reads
// its copy thresholds once per process) each run in a helper of their own.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/ndjson_reader.hpp"

namespace sdma {

struct HelperChildSpec {
  std::vector<std::string> args;  // after the program name: the subcommand and its flags
  // The helper's environment without `unset` and the keys of `set`, then `set`.
  std::vector<std::pair<std::string, std::string>> set;
  std::vector<std::string> unset;
};

struct HelperChildResult {
  bool started = false;
  int startErrno = 0;               // why it did not start
  int exitCode = 0;                 // its exit code, or 128 + the signal that ended it
  std::uint64_t overlongLines = 0;  // lines longer than kMaxChildLineBytes, dropped
  std::uint64_t unreadLines = 0;    // lines that were not one NDJSON record
};

// The child's record lines are a few kB; a longer one is dropped and counted.
inline constexpr std::size_t kMaxChildLineBytes = 1u << 20;

// Starts this program (/proc/self/exe) with `spec`, reads its stdout as NDJSON (bounded, one
// pass; a last line without its newline is an unfinished record and is left out) and hands
// each record, with its `type` and its text, to `onRecord`, then waits for it.
HelperChildResult runHelperChild(
    const HelperChildSpec& spec,
    const std::function<void(std::string_view type, const ndjson::Value& record, const std::string& line)>& onRecord);

}  // namespace sdma
