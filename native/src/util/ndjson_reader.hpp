#pragma once

// The helper's one reader of NDJSON written by other processes: the trace lines of a profiled
// program (docs/PROFILE.md, "Trace lines"), the records of a collective's variant child and
// the result lines of the rocSHMEM PE program (docs/MEASUREMENT.md). One line holds one JSON
// object. The reader is bounded (line length, nesting depth, keys per object, values per
// array), linear in the line's length whatever the line holds, and keeps numbers range-checked
// (util/checked.hpp): integers exact in int64, doubles read with their whole text, and no
// getter hands out NaN, an infinity or an integer that does not fit.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdma::ndjson {

struct Limits {
  std::size_t maxLineBytes = 1u << 20;  // a longer line is refused unread
  std::size_t maxDepth = 8;             // objects and arrays nested (the line's object is 1)
  std::size_t maxMembers = 256;         // distinct keys of one object
  std::size_t maxItems = 100000;        // values of one array
};

struct Member;

struct Value {
  enum class Kind { Null, Bool, Int, Double, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  std::int64_t integer = 0;     // Int: exact (timestamps exceed 2^53)
  double number = 0;            // Int and Double as a double; a Double beyond double's range is +-inf
  bool integral = false;        // a Double written as a whole number (no fraction, no exponent): too big for int64
  std::string text;             // String, as UTF-8 (\u escapes decoded; a lone surrogate becomes U+FFFD)
  std::vector<Value> items;     // Array
  std::vector<Member> members;  // Object: keys unique in first-seen order, a repeated key keeps its last value

  // The member `key` of an object, or null (absent, or this is not an object).
  const Value* find(std::string_view key) const;
  bool isNull() const { return kind == Kind::Null; }
};

struct Member {
  std::string key;
  Value value;
};

// One line (a trailing '\r' or '\n' and surrounding white space are allowed) holding one JSON
// object; nullopt when it is not one or breaks a limit, with `problem` (when given) saying
// which in words.
std::optional<Value> parseLine(std::string_view line, const Limits& limits = {}, std::string* problem = nullptr);

// Getters of an object's members: nullopt when the member is absent or of another kind.
// An integer: an Int as written, or a finite Double with a fraction or exponent truncated
// toward zero when inside int64 (1.5 reads as 1); never 1e300, 1e999, -1e19, nor a whole number
// written with too many digits for int64.
std::optional<std::int64_t> intField(const Value& object, std::string_view key);
// A number (Int or Double) that is finite.
std::optional<double> numberField(const Value& object, std::string_view key);
std::optional<std::string> stringField(const Value& object, std::string_view key);
std::optional<bool> boolField(const Value& object, std::string_view key);
// An array of numbers as doubles: nullopt when any item is not a finite number. A caller
// narrows each with ingest::toInt (checked.hpp), never with a cast.
std::optional<std::vector<double>> numbersField(const Value& object, std::string_view key);
// True when the member is present and not null.
bool present(const Value& object, std::string_view key);
// An object whose members are all scalars or arrays of numbers (the trace lines' shape).
bool isFlat(const Value& object);

}  // namespace sdma::ndjson
