// rocprofv3's rocpd database (native/src/profile/rocpd_reader.hpp) as a file: the input is the
// whole file, written to a temporary file and read as import does (no clock move, program
// start 0). Seeds are real databases: random bytes seldom make an SQLite file, so
// fuzz_rocpd_rows builds databases from the input as well.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_input.hpp"
#include "util/read_control.hpp"
#include "profile/rocpd_reader.hpp"
#include "profile/trace_collector.hpp"
#include "temp_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sdma::runmode;
  sdma::fuzz::TempFile file;
  file.write(sdma::fuzz::asText(data, size));

  TraceCollector collector(0, CollectorLimits{64, 64, 128, 1 << 20});
  std::vector<CollectorWarning> warnings;
  sdma::ingest::Control control = sdma::ingest::Control::detached();
  readRocpdDatabase(file.path(), 0, collector, warnings, control);

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
