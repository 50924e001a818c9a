// The trace collector (native/src/profile/trace_collector.hpp) on the lines a program's side
// writes (CUPTI library, <sdma_lens/trace.h>).
//
// Input: a header line "START CAP TEXT", then trace lines. START is the program's start on
// CLOCK_MONOTONIC (any int64: "min", "max" or decimal), CAP picks the record caps (1..64
// dispatches and copies, twice that many spans) and TEXT the bytes of names and labels held
// (1..65536, 4096 when left out), so memory stays low.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "fuzz_input.hpp"
#include "profile/trace_collector.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sdma::runmode;
  std::string_view text = sdma::fuzz::asText(data, size);
  sdma::fuzz::Header header(sdma::fuzz::takeLine(text));
  const std::int64_t start = header.next();
  const std::size_t cap = sdma::fuzz::smallCap(header.next(63), 64);
  const std::size_t textBytes = sdma::fuzz::smallCap(header.next(4095), 65536);

  TraceCollector collector(start, CollectorLimits{cap, cap, 2 * cap, textBytes});
  for (const std::string_view line : sdma::fuzz::lines(text)) collector.addLine(line);

  std::vector<DispatchRecord> dispatches;
  std::vector<CopyRecord> copies;
  std::vector<CollectorWarning> warnings;
  std::vector<DeviceSpanRecord> spans;
  collector.finish(dispatches, copies, warnings, &spans);
  for (const DispatchRecord& d : dispatches) {
    sdma::fuzz::touch(d.name);
    sdma::fuzz::touch(d.mangled);
  }
  for (const CopyRecord& c : copies) sdma::fuzz::touch(c.label);
  for (const CollectorWarning& w : warnings) sdma::fuzz::touch(w.message);
  for (const DeviceSpanRecord& s : spans) sdma::fuzz::touch(s.label);
  return 0;
}
