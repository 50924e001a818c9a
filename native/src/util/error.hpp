#pragma once

// The helper's one error type: what an `error` record carries (docs/PROTOCOL.md). Code that
// can return returns an Error (empty code: nothing went wrong); code deep inside a measurement
// that cannot return one throws a Failure holding it, and the command that called it catches
// the Failure and reports its Error.
#include <stdexcept>
#include <string>
#include <utility>

namespace sdma {

struct Error {
  std::string code;     // the error record's code: usage, no-gpu, runtime, out-of-memory, ...
  std::string message;  // what happened, one sentence
  std::string hint;     // what the user can do about it (may be empty)

  bool failed() const { return !code.empty(); }
  explicit operator bool() const { return failed(); }
};

class Failure : public std::runtime_error {
 public:
  explicit Failure(Error error) : std::runtime_error(error.message), error_(std::move(error)) {}
  Failure(std::string code, std::string message, std::string hint = {})
      : Failure(Error{std::move(code), std::move(message), std::move(hint)}) {}
  const Error& error() const { return error_; }

 private:
  Error error_;
};

}  // namespace sdma
