// Copy endpoints as the command line names them: reading "host" or a GPU index, pair lists, the default pairs.
#include "backend/endpoints.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include "util/parse.hpp"
#include "sdma_limits.hpp"

namespace sdma {

int parseEndpoint(std::string_view flag, std::string_view text) {
  if (text == "host") return kHostEndpoint;
  long long index = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), index);
  if (text.empty() || result.ec != std::errc() || result.ptr != text.data() + text.size() || index < 0 ||
      index > limits::gpuIndexMax) {
    throw UsageError(std::string(flag) + ": '" + std::string(text) +
                     "' is not an endpoint (a GPU index such as 0, or host for pinned host memory)");
  }
  return static_cast<int>(index);
}

std::vector<EndpointPair> parsePairList(std::string_view flag, std::string_view text) {
  std::vector<EndpointPair> pairs;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(',', start);
    const std::string_view item =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    const std::size_t colon = item.find(':');
    if (colon == std::string_view::npos || item.find(':', colon + 1) != std::string_view::npos) {
      throw UsageError(std::string(flag) + ": '" + std::string(item) +
                       "' is not a pair SRC:DST (e.g. host:0, 0:host, 0:0 or 0:1)");
    }
    const EndpointPair pair{parseEndpoint(flag, item.substr(0, colon)), parseEndpoint(flag, item.substr(colon + 1))};
    if (isHost(pair.src) && isHost(pair.dst)) {
      throw UsageError(std::string(flag) + ": '" + std::string(item) +
                       "' copies host memory to host memory; one end of a copy must be a GPU");
    }
    if (std::find(pairs.begin(), pairs.end(), pair) != pairs.end()) {
      throw UsageError(std::string(flag) + ": " + pairName(pair.src, pair.dst) + " is listed twice");
    }
    pairs.push_back(pair);
    if (end == std::string_view::npos) return pairs;
    start = end + 1;
  }
}

std::vector<EndpointPair> defaultPairs(int gpuCount) {
  if (gpuCount >= 2) return {{0, 1}};
  if (gpuCount == 1) return {{kHostEndpoint, 0}, {0, kHostEndpoint}, {0, 0}};
  return {};
}

std::string endpointProblem(int endpoint, int gpuCount) {
  if (isHost(endpoint) || endpoint < gpuCount) return {};
  if (gpuCount == 0) return endpointName(endpoint) + " does not exist (this node has no GPU)";
  return endpointName(endpoint) + " is out of range (this node has " + std::to_string(gpuCount) +
         (gpuCount == 1 ? " GPU: 0)" : " GPUs: 0.." + std::to_string(gpuCount - 1) + ")");
}

}  // namespace sdma
