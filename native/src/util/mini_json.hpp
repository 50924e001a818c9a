#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdma::runmode {

// Just enough JSON for trace lines: one flat object whose values are strings, numbers,
// booleans, null or arrays of numbers. Integers are kept exact (timestamps exceed 2^53).
// The parser is linear in the line's length whatever the line holds (a key repeated many
// times keeps its last value; a number of thousands of digits costs one pass of strtod).
struct JsonValue {
  enum class Kind { Null, Bool, Int, Double, String, NumberArray } kind = Kind::Null;
  bool boolean = false;
  std::int64_t integer = 0;
  double number = 0;
  // A Double written as a whole number (no fraction, no exponent): one too big for int64.
  bool integral = false;
  std::string text;
  std::vector<double> numbers;
};

using JsonObject = std::map<std::string, JsonValue, std::less<>>;

// nullopt when the line is not such an object.
std::optional<JsonObject> parseFlatObject(std::string_view line);

// An integer field: an Int as written, a Double truncated toward zero when it is finite and
// inside int64's range; nullopt otherwise (absent, another kind, inf, 1e300, -1e19, or a whole
// number too big for int64), never an out-of-range cast.
std::optional<std::int64_t> intField(const JsonObject& object, std::string_view key);
std::optional<std::string> stringField(const JsonObject& object, std::string_view key);
std::optional<bool> boolField(const JsonObject& object, std::string_view key);
// The numbers as doubles, any of them possibly inf or out of every integer type's range: a
// caller narrows each with ingest::toInt (checked.hpp), never with a cast.
std::optional<std::vector<double>> arrayField(const JsonObject& object, std::string_view key);

}  // namespace sdma::runmode
