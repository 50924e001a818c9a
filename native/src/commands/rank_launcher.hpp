// The rank processes of a rank-per-process collective, started by the helper itself: one
// child sdma-probe per rank, each handed the same bootstrap line on stdin, their record
// streams read side by side, and all of them stopped together when one exits badly, falls
// silent past its timeout, or the run is cancelled. Nothing is left running when it returns.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/ndjson_reader.hpp"

namespace sdma::collective {

struct RankLaunchSpec {
  int ranks = 0;
  // The arguments after the program name of rank r.
  std::function<std::vector<std::string>(int rank)> args;
  std::vector<std::pair<std::string, std::string>> set;  // on top of the helper's environment
  std::string stdinLine;                                 // written to every rank, then its stdin closes
  std::chrono::milliseconds silenceTimeout{std::chrono::seconds(300)};
  std::chrono::milliseconds stopGrace{std::chrono::seconds(3)};  // SIGTERM, then SIGKILL after this
  // Exit codes that are a rank's answer, not its failure (e.g. wrong data found, exit 4).
  std::vector<int> answerCodes;
};

enum class RankEnd { Finished, RankFailed, RankStalled, Cancelled, StartFailed };

struct RankLaunchResult {
  RankEnd end = RankEnd::Finished;
  int rank = -1;                   // the rank that failed, stalled or did not start
  int exitCode = 0;                // its exit code, or 128 + the signal that ended it
  int startErrno = 0;              // StartFailed: why
  std::string stderrTail;          // the last lines that rank wrote to stderr (at most kStderrTailBytes)
  std::vector<int> exitCodes;      // every rank's, in rank order (-1: never reaped before the end)
  std::uint64_t droppedLines = 0;  // record lines over the length cap or not one record
};

inline constexpr std::size_t kRankLineBytes = 1u << 20;
inline constexpr std::size_t kStderrTailBytes = 2048;

// Called with each record line a rank prints, in the order each rank printed them (ranks
// interleave). Runs on the calling thread.
using RankRecord =
    std::function<void(int rank, std::string_view type, const ndjson::Value& record, const std::string& line)>;

RankLaunchResult runRanks(const RankLaunchSpec& spec, const RankRecord& onRecord);

// "rank 1 exited with code 3", "rank 1 was killed by signal 9 (Killed)".
std::string describeRankExit(int rank, int exitCode);

}  // namespace sdma::collective
