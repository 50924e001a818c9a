#pragma once

// The helper's one command-line parser. Every subcommand's flags are rows of a table
// (cli/flag_table.cpp): the flag, its other spellings, whether it takes a value, the bounds
// of that value and the limits.json key they come from, and the reader that turns the text
// into the option it sets. parseFlags walks that table for `--flag value` and `--flag=value`
// alike; what the options mean together (defaults, one flag against another, the node) is
// not its business (cli/options.cpp, each subcommand's finish()).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "util/parse.hpp"

namespace sdma::cli {

// The typed readers of util/parse.hpp, by the names subcommands use (cli::splitOn, ...).
using sdma::parseIntInRange;
using sdma::parseWholeSigned;
using sdma::parseWholeUnsigned;
using sdma::quoted;
using sdma::splitOn;

enum class FlagKind {
  Value,   // takes a value: --flag V or --flag=V
  Switch,  // stands alone and means on; --flag=on / --flag=off also work
};

// A bound a flag's value must keep, and the limits.json key it comes from (empty: a bound of
// the flag's own, not shared with the extension).
struct Limit {
  long long value = 0;
  std::string_view key = {};
};

struct FlagSpec;

// Reads a flag's value against its row and writes what it means into the subcommand's option
// object (CommandRun::flagTarget); throws UsageError naming the flag.
using FlagSetter = void (*)(const FlagSpec& spec, std::string_view text, void* target);
// Reads a flag's value against its row only (the subcommand's flag() then takes the text).
using FlagCheck = void (*)(const FlagSpec& spec, std::string_view text);

struct FlagSpec {
  std::string_view name;
  FlagKind kind = FlagKind::Value;
  // Other spellings that mean the same flag, space-separated (e.g. nccl-tests' "-b --minbytes").
  std::string_view aliases = {};
  // The value's bounds: a number in min..max, or a list of at most max items (see the reader).
  long long min = 0;
  Limit max = {};
  // Other limits.json keys the row's reader keeps, space-separated (--sizes: sizeBytesMax).
  std::string_view keeps = {};
  // One of the two, or neither (the subcommand's flag() reads the text as it is).
  FlagSetter set = nullptr;
  FlagCheck check = nullptr;

  FlagSpec& switchFlag() {
    kind = FlagKind::Switch;
    return *this;
  }
  FlagSpec& alias(std::string_view spellings) {
    aliases = spellings;
    return *this;
  }
  FlagSpec& range(long long lowest, Limit highest) {
    min = lowest;
    max = highest;
    return *this;
  }
  FlagSpec& atMost(Limit highest) {
    max = highest;
    return *this;
  }
  FlagSpec& keeping(std::string_view keys) {
    keeps = keys;
    return *this;
  }
  FlagSpec& sets(FlagSetter setter) {
    set = setter;
    return *this;
  }
  FlagSpec& checks(FlagCheck checker) {
    check = checker;
    return *this;
  }
};

// A bound from native/src/limits.json (the generated sdma_limits.hpp), with its key.
#define SDMA_LIMIT(key) \
  ::sdma::cli::Limit { ::sdma::limits::key, #key }

// A row for `name`; the table chains the rest (flag("--iters").range(1, ...).sets(...)).
inline FlagSpec flag(std::string_view name) {
  FlagSpec spec;
  spec.name = name;
  return spec;
}

// What a subcommand's parse needs to know.
struct FlagRules {
  std::string_view command;  // for messages: "--x is not a flag of sweep"
  const std::vector<FlagSpec>* flags = nullptr;
  // Every flag any subcommand knows: a flag of another subcommand is "not a flag of" this one.
  const std::vector<std::string_view>* allFlagNames = nullptr;
  std::string_view unknownHint;  // appended to "unknown flag X for C"
  // run: "--" or the first word that is not a flag ends the flags; the rest comes back.
  bool stopAtFirstWord = false;
};

// Reads args[first..] against `rules`. A row with a setter writes into `target`; any other
// row is checked (where it has a check) and handed to apply(name, value) with the flag's
// canonical name and its value ("on" for a switch given alone). Returns the words after the
// flags (stopAtFirstWord only; otherwise a word that is not a flag is a UsageError).
std::vector<std::string_view> parseFlags(const std::vector<std::string_view>& args, std::size_t first,
                                         const FlagRules& rules, void* target,
                                         const std::function<void(std::string_view, std::string_view)>& apply);

// The generic readers a row names.
// on/off (and 1/0 where allowNumbers).
bool parseOnOff(std::string_view flag, std::string_view text, bool allowNumbers = false);
// auto, sim, hip or cuda.
std::string parseBackendName(std::string_view flag, std::string_view text);
// A whole number in the row's min..max.
int readInt(const FlagSpec& spec, std::string_view text);
bool readOnOff(const FlagSpec& spec, std::string_view text);
std::string readBackend(const FlagSpec& spec, std::string_view text);
std::string readText(const FlagSpec& spec, std::string_view text);

// Setters and checks from a reader: the reader's result goes into the option object's field
// (`Member`, or `Inner` of the object at `Member`), or is only read.
namespace detail {
template <typename Owner, typename Field>
Owner ownerOf(Field Owner::*);
}  // namespace detail

template <auto Read, auto Member, auto... Inner>
void setField(const FlagSpec& spec, std::string_view text, void* target) {
  using Owner = decltype(detail::ownerOf(Member));
  auto& object = static_cast<Owner*>(target)->*Member;
  if constexpr (sizeof...(Inner) == 0) {
    object = Read(spec, text);
  } else {
    ((object.*Inner = Read(spec, text)), ...);
  }
}

template <auto Read>
void checkValue(const FlagSpec& spec, std::string_view text) {
  (void)Read(spec, text);
}

}  // namespace sdma::cli
