// The rocSHMEM PE records (native/src/backends/gpu/rocshmem_launcher.hpp, PeOutput): PE 0's
// stdout as the helper reads it, one NDJSON record a line, then the result. What the reader
// promises is checked: a result is "ok" only with a passed validation and times, every time
// is finite, and the uid record the helper writes to PE 1 reads back as the same uid.
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "backends/gpu/rocshmem_launcher.hpp"
#include "fuzz_input.hpp"
#include "util/ndjson_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sdma::gpu::PeOutput out;
  for (const std::string_view line : sdma::fuzz::lines(sdma::fuzz::asText(data, size))) out.addLine(line);
  const sdma::gpu::PePutResult r = out.result();
  if (r.status == "ok") assert(!r.timesNs.empty());
  for (const double t : r.timesNs) assert(std::isfinite(t));
  if (r.traced) {
    assert(std::isfinite(r.trace.startNs) && std::isfinite(r.trace.issuedNs) && std::isfinite(r.trace.completeNs));
  }
  sdma::fuzz::touch(r.status);
  sdma::fuzz::touch(r.failure);
  sdma::fuzz::touch(r.hint);
  sdma::fuzz::touch(r.rocshmemVersion);
  const std::string record = out.uidRecord();
  if (!out.uid().empty()) {
    assert(!record.empty() && record.back() == '\n');
    const auto back = sdma::ndjson::parseLine(std::string_view(record).substr(0, record.size() - 1));
    assert(back && sdma::ndjson::stringField(*back, "type") == std::string("uid"));
    assert(sdma::ndjson::stringField(*back, "uid") == out.uid());
  } else {
    assert(record.empty());
  }
  // The whole text at once reads the same.
  const sdma::gpu::PePutResult whole = sdma::gpu::parsePeOutput(std::string(sdma::fuzz::asText(data, size)));
  assert(whole.status == r.status && whole.timesNs.size() == r.timesNs.size());
  return 0;
}
