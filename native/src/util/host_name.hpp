#pragma once

// The name of the machine the helper runs on: the topology names the node by it, and
// --sim-weak's @HOST picks the node of a fleet it applies to.
#include <string>
#include <string_view>

namespace sdma {

// gethostname() as it returns it (a short name or a full domain name); empty when it fails.
std::string hostName();

// `name` up to its first '.', as `hostname -s` prints it ("n2.cluster" -> "n2").
std::string_view shortHostName(std::string_view name);

}  // namespace sdma
