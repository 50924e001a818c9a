// rocprofv3's CSV traces (native/src/profile/rocm_sources.hpp, readRocprofCsvTexts): the texts of
// agent_info.csv, kernel_trace.csv and memory_copy_trace.csv, read into a trace collector.
//
// Input: a header line "BOOT_TO_MONO START CAP" (the clock move added to every time, the
// collector's program start, any int64: "min", "max" or decimal; CAP picks record caps of
// 1..64; names held are capped at 1 MiB), then the three texts (agent info, kernel trace,
// memory copy trace) separated by lines "%%"; missing ones are empty.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "fuzz_input.hpp"
#include "util/read_control.hpp"
#include "profile/rocm_sources.hpp"
#include "profile/trace_collector.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sdma::runmode;
  std::string_view text = sdma::fuzz::asText(data, size);
  sdma::fuzz::Header header(sdma::fuzz::takeLine(text));
  const std::int64_t bootToMono = header.next();
  const std::int64_t start = header.next();
  const std::size_t cap = sdma::fuzz::smallCap(header.next(63), 64);
  const std::vector<std::string_view> files = sdma::fuzz::splitAtMarkerLines(text, "%%", 3);

  TraceCollector collector(start, CollectorLimits{cap, cap, 2 * cap, 1 << 20});
  std::vector<CollectorWarning> warnings;
  sdma::ingest::Control control = sdma::ingest::Control::detached();
  readRocprofCsvTexts(files[0], files[1], files[2], bootToMono, collector, warnings, control);

  std::vector<DispatchRecord> dispatches;
  std::vector<CopyRecord> copies;
  collector.finish(dispatches, copies, warnings);
  for (const DispatchRecord& d : dispatches) {
    sdma::fuzz::touch(d.name);
    sdma::fuzz::touch(d.mangled);
  }
  for (const CopyRecord& c : copies) sdma::fuzz::touch(c.label);
  for (const CollectorWarning& w : warnings) sdma::fuzz::touch(w.message);
  return 0;
}
