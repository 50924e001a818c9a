#pragma once

// Copy endpoints as the command line and messages name them: a GPU index or `host`.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/backend.hpp"

namespace sdma {

struct EndpointPair {
  int src = 0;
  int dst = 1;
  bool operator==(const EndpointPair& other) const { return src == other.src && dst == other.dst; }
};

// "host" or "GPU 3": how messages name an endpoint.
inline std::string endpointName(int endpoint) {
  return isHost(endpoint) ? std::string("host") : "GPU " + std::to_string(endpoint);
}

// "host -> GPU 0".
inline std::string pairName(int src, int dst) { return endpointName(src) + " -> " + endpointName(dst); }

// The GPU whose CUs or engines carry a copy: the source GPU (copies push), or the GPU end of a
// host <-> GPU copy.
inline int workingGpu(int src, int dst) { return isHost(src) ? dst : src; }

// "host" or a GPU index (0..65535). Throws UsageError (util/parse.hpp) naming `flag`.
int parseEndpoint(std::string_view flag, std::string_view text);

// Comma list of SRC:DST pairs ("host:0,0:host,0:0"); no host:host, no repeats.
std::vector<EndpointPair> parsePairList(std::string_view flag, std::string_view text);

// The pairs a sweep runs when neither --src/--dst nor --pairs is given: 0:1 on a node with two
// or more GPUs, host:0, 0:host and 0:0 on a node with one, none on a node without a GPU.
std::vector<EndpointPair> defaultPairs(int gpuCount);

// Why `endpoint` does not exist on a node of `gpuCount` GPUs ("GPU 9 is out of range (this
// node has 1 GPU: 0)"), or empty when it does.
std::string endpointProblem(int endpoint, int gpuCount);

}  // namespace sdma
