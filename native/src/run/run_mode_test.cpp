// The run mode's parts that need no GPU: trace-line parsing, CUPTI clock mapping, folding
// device-trace spans into dispatches, trace.h's own windows, and rocprofv3 CSV reading on
// the public format samples in test/fixtures/rocprofv3.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "run/mini_json.hpp"
#include "run/rocm_sources.hpp"
#include "run/trace_collector.hpp"

namespace {

int failures = 0;

#define CHECK(cond)                                                       \
  do {                                                                    \
    if (!(cond)) {                                                        \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                         \
    }                                                                     \
  } while (0)

using namespace sdma::runmode;

void jsonLines() {
  const auto o = parseFlatObject(R"({"k":"kernel","startNs":1764470000123456789,"grid":[64,1,1],"ok":true,"s":"a\"b"})");
  CHECK(o.has_value());
  CHECK(intField(*o, "startNs") == 1764470000123456789LL);  // beyond 2^53, exact
  CHECK(arrayField(*o, "grid")->size() == 3);
  CHECK(boolField(*o, "ok") == true);
  CHECK(stringField(*o, "s") == std::string("a\"b"));
  CHECK(!parseFlatObject("{\"k\":1").has_value());
  CHECK(!parseFlatObject("not json").has_value());
  CHECK(!parseFlatObject("{\"k\":1} trailing").has_value());
}

void cuptiClockAndFolding() {
  // Program started at mono 1'000'000. CUPTI's clock runs 5'000'000 ahead of mono and 0.1% fast.
  TraceCollector c(1000000);
  c.addLine(R"({"k":"clock","pid":7,"when":"start","cuptiNs":6000000,"monoNs":1000000,"uncertaintyNs":20})");
  c.addLine(R"({"k":"clock","pid":7,"when":"exit","cuptiNs":7001000,"monoNs":2000000,"uncertaintyNs":20})");
  c.addLine(R"({"k":"kernel","pid":7,"gpu":1,"name":"_Z6fusedAPf","startNs":6100100,"endNs":6200200,"grid":[64,1,1],"block":[256,1,1],"corr":9,"stream":13})");
  c.addLine(R"({"k":"memcpy","pid":7,"kind":"PtoP","gpu":1,"src":1,"dst":0,"bytes":4096,"startNs":6300300,"endNs":6400400,"corr":10})");
  // trace.h's own ping kernel, inside its setup window: left out.
  c.addLine(R"({"k":"kernel","pid":7,"gpu":1,"name":"ping","startNs":6010010,"endNs":6011011,"grid":[1,1,1],"block":[1,1,1],"corr":2})");
  c.addLine(R"({"k":"dev-window","pid":7,"monoStartNs":1005000,"monoEndNs":1020000})");
  // Two CUs of the kernel: a scope and a put to GPU 0 each.
  for (int cu : {4, 9}) {
    c.addLine(R"({"k":"dev","pid":7,"gpu":1,"label":"a2a","cu":)" + std::to_string(cu) +
              R"(,"xcc":0,"monoStartNs":1110000,"monoEndNs":1150000,"bytes":1024,"peer":0,"mover":"cu","pull":false})");
  }
  c.addLine(R"({"k":"dev-end","pid":7,"gpu":1,"records":2,"dropped":0,"alignUncertaintyNs":500})");
  c.addLine("garbage");
  std::vector<DispatchRecord> d;
  std::vector<CopyRecord> copies;
  std::vector<CollectorWarning> warnings;
  c.finish(d, copies, warnings);
  CHECK(d.size() == 1);
  CHECK(c.ownRecordsLeftOut() == 1);
  if (d.size() == 1) {
    CHECK(d[0].name == "fusedA(float*)");
    CHECK(d[0].mangled == "_Z6fusedAPf");
    CHECK(d[0].startNs == 100000);  // (6100100 - 6000000) / 1.001
    CHECK(d[0].endNs == 200000);
    CHECK(d[0].cusSeen == 2);
    CHECK(d[0].correlationId == 9);
  }
  CHECK(copies.size() == 2);
  bool sawDevice = false, sawPeer = false;
  for (const CopyRecord& x : copies) {
    if (x.source == "device-trace") {
      sawDevice = true;
      CHECK(x.bytes == 2048 && x.srcGpu == 1 && x.dstGpu == 0 && x.initiator == "device" && x.label == "a2a");
      CHECK(x.startNs == 110000 && x.endNs == 150000);
    } else {
      sawPeer = true;
      CHECK(x.mover == "engine" && x.initiator == "host" && x.srcGpu == 1 && x.dstGpu == 0 && x.label == "PtoP");
      CHECK(x.startNs == 300000);
    }
  }
  CHECK(sawDevice && sawPeer);
  CHECK(warnings.size() == 1 && warnings[0].code == "trace-line-malformed");
}

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void rocprofSamples(const std::string& fixtures) {
  const auto rows = parseCsv(readAll(fixtures + "/kernel_trace.csv"));
  CHECK(rows.size() >= 2);
  if (!rows.empty()) {
    // Quoted names keep their commas.
    CHECK(rows[0].at("Kernel_Name") == "void addition_kernel<float>(float*, float const*, float const*, int, int)");
    CHECK(rows[0].at("Agent_Id") == "2");
  }
  char dir[] = "/tmp/sdma-run-test-XXXXXX";
  if (!mkdtemp(dir)) {
    ++failures;
    return;
  }
  const std::string sub = std::string(dir) + "/node/1234";
  CHECK(std::system(("mkdir -p " + sub + " && cp " + fixtures + "/kernel_trace.csv " + sub + "/1234_kernel_trace.csv && cp " +
                     fixtures + "/memory_copy_trace.csv " + sub + "/1234_memory_copy_trace.csv")
                        .c_str()) == 0);
  TraceCollector c(0);
  std::vector<CollectorWarning> warnings;
  const std::size_t n = readRocprofDir(dir, c, warnings);
  CHECK(n == rows.size() + parseCsv(readAll(fixtures + "/memory_copy_trace.csv")).size());
  std::vector<DispatchRecord> d;
  std::vector<CopyRecord> copies;
  c.finish(d, copies, warnings);
  CHECK(!d.empty() && d[0].source == "rocprofv3" && d[0].gpu == 0 && d[0].block[0] == 64 && d[0].grid[0] == 1024);
  CHECK(!copies.empty() && copies[0].srcGpu == -1 && copies[0].dstGpu == 0 && copies[0].label == "HOST_TO_DEVICE");
  bool noBytes = false;
  for (const auto& w : warnings) noBytes = noBytes || w.code == "rocprofv3-no-bytes";
  CHECK(noBytes);  // the sample predates the Bytes column
  removeTree(dir);
  CHECK(access(dir, F_OK) != 0);
}

}  // namespace

int main(int argc, char** argv) {
  jsonLines();
  cuptiClockAndFolding();
  if (argc > 1) rocprofSamples(argv[1]);
  if (failures > 0) {
    std::fprintf(stderr, "run_mode_test: %d checks failed\n", failures);
    return 1;
  }
  std::printf("run_mode_test: ok\n");
  return 0;
}
