#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace sdma::runmode {

// A flag with a value, written `--name=value` or `--name value`: splits args[i] into name and
// value and moves i past the value. False when the value is missing (name is still set).
inline bool flagValue(const std::vector<std::string_view>& args, std::size_t& i, std::string_view& name,
                      std::string_view& value) {
  const std::string_view arg = args[i];
  const std::size_t eq = arg.find('=');
  name = arg.substr(0, eq);
  if (eq != std::string_view::npos) {
    value = arg.substr(eq + 1);
    return true;
  }
  if (i + 1 >= args.size()) return false;
  value = args[++i];
  return true;
}

}  // namespace sdma::runmode
