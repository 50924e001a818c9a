#pragma once

// The helper's one command-line parser: every subcommand's flags are declared in a table
// (cli/commands.cpp) and read here, `--flag value` and `--flag=value` alike. The typed
// conversions below throw UsageError with a message that names the flag and the text.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sdma {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace cli {

enum class FlagKind {
  Value,   // takes a value: --flag V or --flag=V
  Switch,  // stands alone and means on; --flag=on / --flag=off also work
};

struct FlagSpec {
  std::string_view name;
  FlagKind kind = FlagKind::Value;
  // Other spellings that mean the same flag, space-separated (e.g. nccl-tests' "-b --minbytes").
  std::string_view aliases = {};
};

// What a subcommand's parse needs to know.
struct FlagRules {
  std::string_view command;                 // for messages: "--x is not a flag of sweep"
  const std::vector<FlagSpec>* flags = nullptr;
  // Every flag any subcommand knows: a flag of another subcommand is "not a flag of" this one.
  const std::vector<std::string_view>* allFlagNames = nullptr;
  std::string_view unknownHint;             // appended to "unknown flag X for C"
  // run: "--" or the first word that is not a flag ends the flags; the rest comes back.
  bool stopAtFirstWord = false;
};

// Reads args[first..] against `rules`, calling apply(name, value) with each flag's
// canonical name and its value ("on" for a switch given alone). Returns the words after the
// flags (stopAtFirstWord only; otherwise a word that is not a flag is a UsageError).
std::vector<std::string_view> parseFlags(const std::vector<std::string_view>& args, std::size_t first,
                                         const FlagRules& rules,
                                         const std::function<void(std::string_view, std::string_view)>& apply);

// Typed values.
std::string quoted(std::string_view text);
std::vector<std::string_view> splitOn(std::string_view text, char separator);
std::optional<long long> parseWholeSigned(std::string_view text);
std::optional<std::uint64_t> parseWholeUnsigned(std::string_view text);
// A whole number in min..max: "FLAG: 'TEXT' is not a whole number" / "... is out of range (MIN..MAX)".
long long parseIntInRange(std::string_view flag, std::string_view text, long long min, long long max);
// on/off (and 1/0 where allowNumbers).
bool parseOnOff(std::string_view flag, std::string_view text, bool allowNumbers = false);
// auto, sim, hip or cuda.
std::string parseBackendName(std::string_view flag, std::string_view text);

}  // namespace cli
}  // namespace sdma
