#pragma once

// Reading words of text as values: whole numbers, comma lists, quoted names in messages, and
// the error a value that does not read throws. The command line (cli/) reads its flags with
// these, and so do the few engine parts that read a value the user wrote (endpoints, --sim-weak).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace sdma {

// A bad argument: a Failure whose Error has code "usage" (exit 2). what() is the message.
class UsageError : public Failure {
 public:
  explicit UsageError(const std::string& message) : Failure("usage", message) {}
};

// "'TEXT'": how messages quote what the user wrote.
std::string quoted(std::string_view text);

// "a,b,,c" -> {"a", "b", "", "c"}; "" -> {""}.
std::vector<std::string_view> splitOn(std::string_view text, char separator);

// The whole text as a number in base 10, or nullopt (empty, a sign where none may be, any other character).
std::optional<long long> parseWholeSigned(std::string_view text);
std::optional<std::uint64_t> parseWholeUnsigned(std::string_view text);

// A whole number in min..max: "FLAG: 'TEXT' is not a whole number" / "... is out of range (MIN..MAX)".
long long parseIntInRange(std::string_view flag, std::string_view text, long long min, long long max);

}  // namespace sdma
