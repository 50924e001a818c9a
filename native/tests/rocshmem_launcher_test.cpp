// ctest: the helper's side of the AMD rocSHMEM engine/device path (rocshmem_launcher.cpp),
// without GPUs: the NDJSON result records, the PE environment, and the real process handling
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
#include "doctest_support.hpp"

using namespace sdma::gpu;

namespace {
void expect(bool ok, const std::string& what) { CHECK_MESSAGE(ok, what); }

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
const std::string kUidRecord = R"({"type":"uid","uid":")" + kUid + R"("})";
// The shell's way of writing one record line.
std::string say(const std::string& json) { return "printf '%s\\n' '" + json + "'"; }
}  // namespace

TEST_CASE("result records") {
  PePutResult ok = parsePeOutput(kUidRecord + "\n" +
                                 R"({"type":"version","version":"3.2.0"})"
                                 "\n"
                                 R"({"type":"times","ns":[1000.0,2000.5]})"
                                 "\n"
                                 R"({"type":"ops","ops":12})"
                                 "\n"
                                 R"({"type":"trace","startNs":10,"issuedNs":20.0,"completeNs":30,"cu":7,"xcc":3})"
                                 "\n"
                                 R"({"type":"validation","ok":true})"
                                 "\n");
  expect(ok.status == "ok", "complete output is ok");
  expect(ok.timesNs.size() == 2 && ok.timesNs[1] == 2000.5, "times parsed");
  expect(ok.opsDone == 12, "ops parsed");
  expect(ok.traced && ok.trace.issuedNs == 20.0 && ok.trace.cu == 7 && ok.trace.xcc == 3, "trace parsed");
  expect(ok.rocshmemVersion == "3.2.0", "version parsed");
  PePutResult bad = parsePeOutput(R"({"type":"times","ns":[1]})"
                                  "\n"
                                  R"({"type":"ops","ops":1})"
                                  "\n"
                                  R"({"type":"validation","ok":false,"message":"3 wrong byte(s); first at byte 9"})"
                                  "\n"
                                  R"({"type":"validation","ok":true})"
                                  "\n");
  expect(bad.status == "validation" && bad.failure.find("first at byte 9") != std::string::npos, "validation failure");
  PePutResult err = parsePeOutput(R"({"type":"uid","uid":"x"})"
                                  "\n"
                                  R"({"type":"error","code":"out-of-memory","message":"rocshmem_malloc failed",)"
                                  R"("hint":"use smaller --sizes"})"
                                  "\n");
  expect(err.status == "out-of-memory" && err.failure == "rocshmem_malloc failed" && err.hint == "use smaller --sizes",
         "error line");
  PePutResult bare = parsePeOutput(R"({"type":"error"})");
  expect(bare.status == "runtime" && bare.failure == "the rocSHMEM PE reported an error without a message",
         "an error record without code or message");
  const std::string times = R"({"type":"times","ns":[1]})"
                            "\n";
  expect(parsePeOutput(times + R"({"type":"ops","ops":1})"
                               "\n")
                 .status == "runtime",
         "no validation line is an error");
  expect(parsePeOutput(R"({"type":"validation","ok":true})"
                       "\n")
                 .status == "runtime",
         "no times is an error");

  // Lines that are not records, or records with fields out of range, are left out.
  PePutResult hostile = parsePeOutput("uid " + kUid + "\nerror runtime\tnot a record\n" +
                                      R"({"type":"times","ns":[1,1e999]})"
                                      "\n"
                                      R"({"type":"times","ns":[5]})"
                                      "\n"
                                      R"({"type":"ops","ops":-1})"
                                      "\n"
                                      R"({"type":"ops","ops":1e300})"
                                      "\n"
                                      R"({"type":"trace","startNs":1,"issuedNs":2,"completeNs":3,"cu":-1,"xcc":0})"
                                      "\n"
                                      "{\"type\":\"validation\",\"ok\":true"
                                      "\n" +
                                      std::string(kMaxPeLineBytes + 1, ' ') +
                                      "\n"
                                      R"({"type":"validation","ok":"yes"})"
                                      "\n"
                                      R"({"type":"validation","ok":true})");
  expect(hostile.status == "ok", "hostile lines are left out: " + hostile.status + " " + hostile.failure);
  expect(hostile.timesNs.size() == 1 && hostile.timesNs[0] == 5, "only the finite times record counts");
  expect(hostile.opsDone == 0 && !hostile.traced, "ops and trace out of range are left out");

  PeOutput stream;
  expect(stream.uid().empty() && stream.uidRecord().empty(), "no uid before its record");
  stream.addLine(R"({"type":"uid","uid":"ABC"})");
  stream.addLine(R"({"type":"uid","uid":"abc"})");
  expect(stream.uid().empty(), "a uid that is not lower-case hex of whole bytes is refused");
  stream.addLine(kUidRecord);
  expect(stream.uid() == kUid && stream.uidRecord() == kUidRecord + "\n", "the uid record PE 1 reads");
}

TEST_CASE("SDMA fallback, environment, arguments") {
  // SDMA fallback lines (rocSHMEM's own wording) and unrelated stderr.
  expect(!sdmaFallbackLine("x\nSDMA: connect failed on local rank(s) 1 of 2; all of them fall back to IPC memcpy\n")
              .empty(),
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
}

TEST_CASE("the real process handling, with fake PEs") {
  char tmpl[] = "/tmp/rocshmem-launcher-test.XXXXXX";
  dir = mkdtemp(tmpl);
  // PE 0 prints a result; PE 1 stores what it got on stdin and the environment it saw.
  setenv("HIP_VISIBLE_DEVICES", "10,11,12,13,14,15", 1);
  setenv("CUDA_VISIBLE_DEVICES", "3", 1);
  const std::string good =
      script("good-pe",
             "if [ \"$2\" = 0 ]; then\n"
             "  " +
                 say(kUidRecord) +
                 "\n"
                 "  sleep 0.2\n"
                 "  " +
                 say(R"({"type":"version","version":"9.9.9"})") +
                 "\n"
                 "  " +
                 say(R"({"type":"times","ns":[1500,1600]})") +
                 "\n"
                 "  " +
                 say(R"({"type":"ops","ops":8})") +
                 "\n"
                 "  " +
                 say(R"({"type":"trace","startNs":1,"issuedNs":2,"completeNs":3,"cu":4,"xcc":5})") +
                 "\n"
                 "  " +
                 say(R"({"type":"validation","ok":true})") +
                 "\n"
                 "else\n"
                 "  cat > " +
                 dir +
                 "/pe1-stdin\n"
                 "  echo \"$HIP_VISIBLE_DEVICES $ROCSHMEM_SDMA_ENABLED ${CUDA_VISIBLE_DEVICES-unset}\" > " +
                 dir +
                 "/pe1-env\n"
                 "fi\n");
  PePutResult r = runRocshmemPut(good, request(), never);
  expect(r.status == "ok" && r.timesNs.size() == 2 && r.rocshmemVersion == "9.9.9",
         "fake PEs: result " + r.status + " " + r.failure);
  expect(r.traced && r.trace.cu == 4 && r.opsDone == 8, "fake PEs: trace and ops");
  expect(slurp(dir + "/pe1-stdin") == kUidRecord + "\n", "the unique id reached PE 1");
  expect(slurp(dir + "/pe1-env") == "12,15 1 unset\n",
         "PE 1 saw the mapped devices, SDMA on, no CUDA_VISIBLE_DEVICES: " + slurp(dir + "/pe1-env"));
  unsetenv("CUDA_VISIBLE_DEVICES");

  const std::string fallback = script("fallback-pe",
                                      "echo 'SDMA: connect failed on local rank(s) 0 of 2; all of them "
                                      "fall back to IPC memcpy.' >&2\n"
                                      "[ \"$2\" = 0 ] && " +
                                          say(kUidRecord) + " && " + say(R"({"type":"times","ns":[1]})") + " && " +
                                          say(R"({"type":"validation","ok":true})") + "\ncat > /dev/null\n");
  r = runRocshmemPut(fallback, request(), never);
  expect(r.status == "sdma-unavailable" && r.failure.find("connect failed") != std::string::npos,
         "a load/store fallback is refused, not measured: " + r.status);

  const std::string crash = script("crash-pe", "echo 'hipSetDevice: no device' >&2; exit 3\n");
  r = runRocshmemPut(crash, request(), never);
  expect(r.status == "runtime" && r.failure.find("exit status 3") != std::string::npos &&
             r.failure.find("no device") != std::string::npos,
         "a PE that dies says how: " + r.failure);

  const std::string hang = script("hang-pe", "[ \"$2\" = 0 ] && " + say(kUidRecord) + "\nexec sleep 30\n");
  r = runRocshmemPut(hang, request(), always);
  expect(r.status == "cancelled", "cancel stops both PEs: " + r.status);
  PePutRequest quick = request();
  quick.timeoutNs = 0.5e9;
  r = runRocshmemPut(hang, quick, never);
  expect(r.status == "timeout", "a hung PE times out: " + r.status);

  r = runRocshmemPut(dir + "/missing-pe", request(), never);
  expect(r.status == "library-not-found" && r.failure.find("missing-pe") != std::string::npos, "missing PE program");

  // A PE that writes a flood without newlines: the line is dropped at the cap, the run still
  // ends with PE 0's exit.
  const std::string flood = script("flood-pe",
                                   "if [ \"$2\" = 0 ]; then head -c 3000000 /dev/zero | tr '\\0' x; "
                                   "echo; head -c 3000000 /dev/zero | tr '\\0' y >&2; exit 4; fi\n"
                                   "cat > /dev/null\n");
  r = runRocshmemPut(flood, request(), never);
  expect(r.status == "runtime" && r.failure.find("exit status 4") != std::string::npos &&
             r.failure.find("yyy") == std::string::npos,
         "a flood is not kept: " + r.status + " " + r.failure.substr(0, 200));

  std::system(("rm -rf " + dir).c_str());
}
