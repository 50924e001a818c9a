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
struct JsonValue {
  enum class Kind { Null, Bool, Int, Double, String, NumberArray } kind = Kind::Null;
  bool boolean = false;
  std::int64_t integer = 0;
  double number = 0;
  std::string text;
  std::vector<double> numbers;
};

using JsonObject = std::map<std::string, JsonValue, std::less<>>;

// nullopt when the line is not such an object.
std::optional<JsonObject> parseFlatObject(std::string_view line);

std::optional<std::int64_t> intField(const JsonObject& object, std::string_view key);
std::optional<std::string> stringField(const JsonObject& object, std::string_view key);
std::optional<bool> boolField(const JsonObject& object, std::string_view key);
std::optional<std::vector<double>> arrayField(const JsonObject& object, std::string_view key);

}  // namespace sdma::runmode
