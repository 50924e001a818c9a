#include "util/host_name.hpp"

#include <unistd.h>

namespace sdma {

std::string hostName() {
  // POSIX leaves a truncated name unterminated: the buffer's last byte stays 0.
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return {};
  return name;
}

std::string_view shortHostName(std::string_view name) { return name.substr(0, name.find('.')); }

}  // namespace sdma
