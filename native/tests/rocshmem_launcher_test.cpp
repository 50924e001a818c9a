// ctest: the helper's side of the AMD rocSHMEM engine/device path (rocshmem_launcher.cpp),
// without GPUs: the result-line parser, the PE environment, and the real process handling
// driven by fake PE programs (shell scripts) that print what a PE would.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "backends/gpu/rocshmem_launcher.hpp"

using namespace sdma::gpu;

namespace {
int failures = 0;
void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::cerr << "FAIL " << what << "\n";
    ++failures;
  }
}

std::string dir;
std::string script(const std::string& name, const std::string& body) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << "#!/bin/sh\n" << body;
  chmod(path.c_str(), 0755);
  return path;
}
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
bool never() { return false; }
bool always() { return true; }

PePutRequest request() {
  PePutRequest r;
  r.srcGpu = 2;
  r.dstGpu = 5;
  r.sizeBytes = 1 << 20;
  r.strideBytes = (1 << 20) + 4096;
  r.slots = 4;
  r.regionBytes = r.strideBytes * 4;
  r.timeoutNs = 20e9;
  return r;
}
const std::string kUid(256, 'a');
}  // namespace

int main() {
  char tmpl[] = "/tmp/rocshmem-launcher-test.XXXXXX";
  dir = mkdtemp(tmpl);

  // The parser.
  PePutResult ok = parsePeOutput("uid " + kUid + "\nversion 3.2.0\ntimes 1000.0 2000.5\nops 12\n"
                                 "trace 10.0 20.0 30.0 7 3\nvalidation ok\n");
  expect(ok.status == "ok", "complete output is ok");
  expect(ok.timesNs.size() == 2 && ok.timesNs[1] == 2000.5, "times parsed");
  expect(ok.opsDone == 12, "ops parsed");
  expect(ok.traced && ok.trace.issuedNs == 20.0 && ok.trace.cu == 7 && ok.trace.xcc == 3, "trace parsed");
  expect(ok.rocshmemVersion == "3.2.0", "version parsed");
  PePutResult bad = parsePeOutput("times 1\nops 1\nvalidation 3 wrong byte(s); first at byte 9\n");
  expect(bad.status == "validation" && bad.failure.find("first at byte 9") != std::string::npos, "validation failure");
  PePutResult err = parsePeOutput("uid x\nerror out-of-memory\trocshmem_malloc failed\tuse smaller --sizes\n");
  expect(err.status == "out-of-memory" && err.failure == "rocshmem_malloc failed" && err.hint == "use smaller --sizes",
         "error line");
  expect(parsePeOutput("times 1\nops 1\n").status == "runtime", "no validation line is an error");
  expect(parsePeOutput("validation ok\n").status == "runtime", "no times is an error");

  // SDMA fallback lines (rocSHMEM's own wording) and unrelated stderr.
  expect(!sdmaFallbackLine("x\nSDMA: connect failed on local rank(s) 1 of 2; all of them fall back to IPC memcpy\n").empty(),
         "connect failure is a fallback");
  expect(!sdmaFallbackLine("SDMA disabled at runtime (ROCSHMEM_SDMA_ENABLED=0)\n").empty(), "disabled is a fallback");
  expect(sdmaFallbackLine("SDMA init with threshold=0, channels=1\nsome warning\n").empty(), "init line is not");

  // Visible devices and environment.
  expect(peVisibleDevices(nullptr, 2, 5) == "2,5", "no visible list: device numbers");
  expect(peVisibleDevices("4,6,7", 0, 2) == "4,7", "mapped through the helper's list");
  expect(peVisibleDevices("GPU-a,GPU-b", 1, 0) == "GPU-b,GPU-a", "ids are kept as written");
  bool sdmaOn = false, threshold0 = false, ipc = false, heapFits = false;
  for (const auto& [k, v] : peEnvironment(request(), nullptr)) {
    sdmaOn = sdmaOn || (k == "ROCSHMEM_SDMA_ENABLED" && v == "1");
    threshold0 = threshold0 || (k == "ROCSHMEM_SDMA_THRESHOLD" && v == "0");
    ipc = ipc || (k == "ROCSHMEM_BACKEND" && v == "ipc");
    heapFits = heapFits || (k == "ROCSHMEM_HEAP_SIZE" && std::stoull(v) >= 2 * request().regionBytes);
  }
  expect(sdmaOn && threshold0 && ipc && heapFits, "PE environment");
  const auto args0 = peArguments("pe", request(), 0);
  const auto args1 = peArguments("pe", request(), 1);
  expect(args0.size() > args1.size() && args1[2] == "1", "PE arguments");

  // The real process handling, with fake PEs. PE 0 prints a result; PE 1 stores what it got
  // on stdin and the environment it saw.
  setenv("HIP_VISIBLE_DEVICES", "10,11,12,13,14,15", 1);
  const std::string good = script("good-pe", "if [ \"$2\" = 0 ]; then\n"
                                             "  echo uid " + kUid + "\n"
                                             "  sleep 0.2\n"
                                             "  echo version 9.9.9; echo times 1500 1600; echo ops 8\n"
                                             "  echo trace 1 2 3 4 5; echo validation ok\n"
                                             "else\n"
                                             "  cat > " + dir + "/pe1-stdin\n"
                                             "  echo \"$HIP_VISIBLE_DEVICES $ROCSHMEM_SDMA_ENABLED\" > " + dir + "/pe1-env\n"
                                             "fi\n");
  PePutResult r = runRocshmemPut(good, request(), never);
  expect(r.status == "ok" && r.timesNs.size() == 2 && r.rocshmemVersion == "9.9.9", "fake PEs: result " + r.status + " " + r.failure);
  expect(slurp(dir + "/pe1-stdin") == "uid " + kUid + "\n", "the unique id reached PE 1");
  expect(slurp(dir + "/pe1-env") == "12,15 1\n", "PE 1 saw the mapped devices and SDMA on: " + slurp(dir + "/pe1-env"));

  const std::string fallback = script("fallback-pe", "echo 'SDMA: connect failed on local rank(s) 0 of 2; all of them "
                                                     "fall back to IPC memcpy.' >&2\n"
                                                     "[ \"$2\" = 0 ] && echo uid " + kUid + " && echo times 1 && "
                                                     "echo ops 1 && echo validation ok\ncat > /dev/null\n");
  r = runRocshmemPut(fallback, request(), never);
  expect(r.status == "sdma-unavailable" && r.failure.find("connect failed") != std::string::npos,
         "a load/store fallback is refused, not measured: " + r.status);

  const std::string crash = script("crash-pe", "echo 'hipSetDevice: no device' >&2; exit 3\n");
  r = runRocshmemPut(crash, request(), never);
  expect(r.status == "runtime" && r.failure.find("exit status 3") != std::string::npos &&
             r.failure.find("no device") != std::string::npos,
         "a PE that dies says how: " + r.failure);

  const std::string hang = script("hang-pe", "[ \"$2\" = 0 ] && echo uid " + kUid + "\nexec sleep 30\n");
  r = runRocshmemPut(hang, request(), always);
  expect(r.status == "cancelled", "cancel stops both PEs: " + r.status);
  PePutRequest quick = request();
  quick.timeoutNs = 0.5e9;
  r = runRocshmemPut(hang, quick, never);
  expect(r.status == "timeout", "a hung PE times out: " + r.status);

  r = runRocshmemPut(dir + "/missing-pe", request(), never);
  expect(r.status == "library-not-found" && r.failure.find("missing-pe") != std::string::npos, "missing PE program");

  std::system(("rm -rf " + dir).c_str());
  if (failures == 0) std::cout << "rocshmem launcher: all checks passed\n";
  return failures == 0 ? 0 : 1;
}
