// ctest: the helper's side of the AMD rocSHMEM engine/device path (rocshmem_launcher.cpp),
// without GPUs: the NDJSON records, rocSHMEM's SDMA log lines and the evidence made of them,
// the PE environment, and the real process handling driven by a fake PE program
// (fake_rocshmem_pe.cpp, which speaks the PE protocol): a pair kept across points, every
// pipe of both PEs drained, the bootstrap and point timeouts, cancel, failed PEs, restarts.

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "backends/gpu/rocshmem_launcher.hpp"
#include "doctest_support.hpp"
#include "util/ndjson_reader.hpp"

using namespace sdma;
using namespace sdma::gpu;

namespace {

const std::string kUid(256, 'a');
const std::string kUidRecord = R"({"type":"uid","uid":")" + kUid + R"("})";

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
bool never() { return false; }
bool always() { return true; }

PePutRequest request(std::uint64_t size = 1 << 20) {
  PePutRequest r;
  r.srcGpu = 2;
  r.dstGpu = 5;
  r.sizeBytes = size;
  r.strideBytes = size + 4096;
  r.slots = 4;
  r.regionBytes = r.strideBytes * 4;
  r.seed = 0xfedcba9876543210ull;  // above int64: travels as a string
  r.timeoutNs = 20e9;
  r.bootstrapTimeoutS = 7;
  r.startGraceS = 20;
  return r;
}

// A temp folder for the fake PEs' notes, and the fake's mode, for the life of a test.
class Fake {
 public:
  explicit Fake(const std::string& mode) {
    char tmpl[] = "/tmp/rocshmem-launcher-test.XXXXXX";
    dir_ = mkdtemp(tmpl);
    setenv("FAKE_PE_DIR", dir_.c_str(), 1);
    setenv("FAKE_PE_MODE", mode.c_str(), 1);
  }
  ~Fake() {
    unsetenv("FAKE_PE_MODE");
    std::system(("rm -rf '" + dir_ + "'").c_str());
  }
  std::string file(const std::string& name) const { return slurp(dir_ + "/" + name); }

 private:
  std::string dir_;
};

bool gone(pid_t pid) { return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH; }

int cancelPolls = 0;
bool cancelAfterAWhile() { return ++cancelPolls > 25; }

}  // namespace

TEST_CASE("result records") {
  PePutResult ok = parsePeOutput(kUidRecord + "\n" +
                                 R"({"type":"version","version":"3.4.0","init":"none"})"
                                 "\n"
                                 R"({"type":"ready"})"
                                 "\n"
                                 R"({"type":"times","ns":[1000.0,2000.5]})"
                                 "\n"
                                 R"({"type":"ops","ops":12})"
                                 "\n"
                                 R"({"type":"trace","startNs":10,"issuedNs":20.0,"completeNs":30,"cu":7,"xcc":3})"
                                 "\n"
                                 R"({"type":"validation","ok":true})"
                                 "\n"
                                 R"({"type":"done","point":1})"
                                 "\n");
  CHECK(ok.status == "ok");
  CHECK(ok.timesNs.size() == 2);
  CHECK(ok.timesNs[1] == 2000.5);
  CHECK(ok.opsDone == 12);
  CHECK((ok.traced && ok.trace.issuedNs == 20.0 && ok.trace.cu == 7 && ok.trace.xcc == 3));
  CHECK(ok.rocshmemVersion == "3.4.0");
  CHECK(ok.deviceInit == "none");
  PePutResult bad = parsePeOutput(R"({"type":"times","ns":[1]})"
                                  "\n"
                                  R"({"type":"ops","ops":1})"
                                  "\n"
                                  R"({"type":"validation","ok":false,"message":"3 wrong byte(s); first at byte 9"})"
                                  "\n"
                                  R"({"type":"validation","ok":true})"
                                  "\n");
  CHECK(bad.status == "validation");
  CHECK(bad.failure.find("first at byte 9") != std::string::npos);
  PePutResult err = parsePeOutput(R"({"type":"uid","uid":"x"})"
                                  "\n"
                                  R"({"type":"error","code":"out-of-memory","message":"rocshmem_malloc failed",)"
                                  R"("hint":"use smaller --sizes"})"
                                  "\n");
  CHECK(err.status == "out-of-memory");
  CHECK(err.failure == "rocshmem_malloc failed");
  CHECK(err.hint == "use smaller --sizes");
  PePutResult bare = parsePeOutput(R"({"type":"error"})");
  CHECK(bare.status == "runtime");
  CHECK(bare.failure == "the rocSHMEM PE reported an error without a message");
  const std::string times = R"({"type":"times","ns":[1]})"
                            "\n";
  CHECK(parsePeOutput(times + R"({"type":"ops","ops":1})"
                              "\n")
            .status == "runtime");
  CHECK(parsePeOutput(R"({"type":"validation","ok":true})"
                      "\n")
            .status == "runtime");

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
                                      R"({"type":"version","version":"1","init":"sometimes"})"
                                      "\n"
                                      "{\"type\":\"validation\",\"ok\":true"
                                      "\n" +
                                      std::string(kMaxPeLineBytes + 1, ' ') +
                                      "\n"
                                      R"({"type":"validation","ok":"yes"})"
                                      "\n"
                                      R"({"type":"validation","ok":true})");
  CHECK(hostile.status == "ok");
  CHECK(hostile.timesNs == std::vector<double>{5});
  CHECK(hostile.opsDone == 0);
  CHECK(!hostile.traced);
  CHECK(hostile.deviceInit.empty());

  PeOutput stream;
  CHECK(stream.uid().empty());
  CHECK(stream.uidRecord().empty());
  stream.addLine(R"({"type":"uid","uid":"ABC"})");
  stream.addLine(R"({"type":"uid","uid":"abc"})");
  CHECK(stream.uid().empty());  // not lower-case hex of whole bytes
  stream.addLine(kUidRecord);
  CHECK(stream.uid() == kUid);
  CHECK(stream.uidRecord() == kUidRecord + "\n");

  // Points: each begins afresh and keeps the pair's records; done names its point.
  CHECK(!stream.ready());
  stream.addLine(R"({"type":"version","version":"3.4.0","init":"wg-init"})");
  stream.addLine(R"({"type":"ready"})");
  CHECK(stream.ready());
  stream.addLine(R"({"type":"validation","ok":false,"message":"bad"})");
  stream.addLine(R"({"type":"done","point":1})");
  CHECK(stream.result().status == "validation");
  CHECK(stream.donePoint() == std::int64_t{1});
  stream.beginPoint();
  CHECK(!stream.donePoint());
  stream.addLine(R"({"type":"times","ns":[7]})");
  stream.addLine(R"({"type":"validation","ok":true})");
  stream.addLine(R"({"type":"done","point":0})");  // not a point
  stream.addLine(R"({"type":"done","point":2})");
  const PePutResult second = stream.result();
  CHECK(second.status == "ok");
  CHECK(second.timesNs == std::vector<double>{7});
  CHECK(second.rocshmemVersion == "3.4.0");
  CHECK(second.deviceInit == "wg-init");
  CHECK(stream.donePoint() == std::int64_t{2});
  CHECK(!stream.failed());
  stream.addLine(R"({"type":"error","code":"runtime","message":"x"})");
  CHECK(stream.failed());

  // The point line both PEs read.
  const std::string point = pointRecord(request(), 42);
  REQUIRE(point.back() == '\n');
  const auto o = ndjson::parseLine(point.substr(0, point.size() - 1));
  REQUIRE(o.has_value());
  CHECK(ndjson::stringField(*o, "type") == std::string("point"));
  CHECK(ndjson::intField(*o, "point") == std::int64_t{42});
  CHECK(ndjson::intField(*o, "size") == std::int64_t{1 << 20});
  CHECK(ndjson::stringField(*o, "seed") == std::string("18364758544493064720"));
  CHECK(ndjson::boolField(*o, "trace") == false);
}

TEST_CASE("rocSHMEM's SDMA log lines and the evidence made of them") {
  const std::string coloured =
      "\x1b[32mI0000h rocSHMEM\x1b[0m SDMA init with threshold=0, channels=1, local_size=2\t"
      "\x1b[90msdmaHostInit@sdma_policy.cpp:55\x1b[0m";
  CHECK(classifyRocshmemSdmaLine(coloured) == RocshmemSdmaLine::Init);
  CHECK(classifyRocshmemSdmaLine("PE 0: SDMA init with threshold=8192, channels=2, min_chunk=0, local_size=8") ==
        RocshmemSdmaLine::Init);
  CHECK(classifyRocshmemSdmaLine("E0000h rocSHMEM SDMA: connect failed on local rank(s) 1 of 2; all of them fall "
                                 "back to IPC memcpy") == RocshmemSdmaLine::Fallback);
  CHECK(classifyRocshmemSdmaLine("SDMA: connect failed from device 0 to 1 with 1 channel(s); disabling SDMA") ==
        RocshmemSdmaLine::Fallback);
  CHECK(classifyRocshmemSdmaLine("SDMA disabled at runtime (ROCSHMEM_SDMA_ENABLED=0)") == RocshmemSdmaLine::Fallback);
  CHECK(classifyRocshmemSdmaLine("I0000h rocSHMEM heap size 1073741824") == RocshmemSdmaLine::None);
  CHECK(classifyRocshmemSdmaLine("T0000h rocSHMEM SDMA stop") == RocshmemSdmaLine::None);
  CHECK(!sdmaFallbackLine("x\nSDMA: connect failed on local rank(s) 1 of 2; all of them fall back to IPC memcpy\n")
             .empty());
  CHECK(sdmaFallbackLine("SDMA init with threshold=0, channels=1\nsome warning\n").empty());
  CHECK(isSdmaFallbackLine("SDMA disabled at runtime (ROCSHMEM_SDMA_ENABLED=0)"));

  const std::string plain = plainLogLine(coloured);
  CHECK(plain ==
        "I0000h rocSHMEM SDMA init with threshold=0, channels=1, local_size=2\tsdmaHostInit@sdma_policy.cpp:55");
  CHECK(plainLogLine("a\x01"
                     "b\x7f\r") == "a?b?");
  CHECK(plainLogLine(std::string(5000, 'x')).size() == kMaxKeptLogLineBytes + 3);

  CHECK(sdmaThresholdOf(plain) == std::uint64_t{0});
  CHECK(sdmaThresholdOf("SDMA init with threshold=8192, channels=1") == std::uint64_t{8192});
  CHECK(!sdmaThresholdOf("SDMA init with threshold=, channels=1"));
  CHECK(!sdmaThresholdOf("SDMA init with threshold=-1"));
  CHECK(!sdmaThresholdOf("SDMA init with threshold=123456789012345678901234"));
  CHECK(!sdmaThresholdOf("SDMA init"));

  const MoverEvidence engine = rocshmemSdmaEvidence(plain, 1 << 20);
  CHECK(engine.source == EvidenceSource::RocshmemLog);
  CHECK(engine.observed == ObservedMover::Engine);
  CHECK(engine.detail.find(plain) != std::string::npos);
  CHECK(judgeEvidence(labelledMover(CopyPath::EngineDevice), engine) == EvidenceVerdict::Matches);
  const std::string line8k = "I0000h rocSHMEM SDMA init with threshold=8192, channels=1, local_size=2";
  const MoverEvidence below = rocshmemSdmaEvidence(line8k, 4096);
  CHECK(below.observed == ObservedMover::Cu);
  CHECK(judgeEvidence(labelledMover(CopyPath::EngineDevice), below) == EvidenceVerdict::Contradicts);
  CHECK(moverMismatch(CopyPath::EngineDevice, below).has_value());
  CHECK(rocshmemSdmaEvidence(line8k, 8192).observed == ObservedMover::Unknown);
  CHECK(rocshmemSdmaEvidence(line8k, 8193).observed == ObservedMover::Engine);
  CHECK(rocshmemSdmaEvidence("SDMA init with threshold=?", 1).observed == ObservedMover::Engine);
  const MoverEvidence none = rocshmemSdmaEvidence("", 1 << 20);
  CHECK(none.source == EvidenceSource::RocshmemLog);
  CHECK(none.observed == ObservedMover::Unknown);
  CHECK(judgeEvidence(labelledMover(CopyPath::EngineDevice), none) == EvidenceVerdict::NotObserved);
}

TEST_CASE("environment, arguments, heap") {
  CHECK(peVisibleDevices(nullptr, 2, 5) == "2,5");
  CHECK(peVisibleDevices("4,6,7", 0, 2) == "4,7");
  CHECK(peVisibleDevices("GPU-a,GPU-b", 1, 0) == "GPU-b,GPU-a");
  CHECK(peDebugLevel(nullptr) == "INFO");
  CHECK(peDebugLevel("WARN") == "INFO");
  CHECK(peDebugLevel("none") == "INFO");
  CHECK(peDebugLevel("trace:noversion:nocolor") == "trace:noversion:nocolor");
  CHECK(peDebugLevel("INFO") == "INFO");
  CHECK(peHeapBytes(0) == kPeMinHeapBytes);
  CHECK(peHeapBytes(100 << 20) == kPeMinHeapBytes);
  CHECK(peHeapBytes(std::uint64_t{1} << 30) == std::uint64_t{4} << 30);
  CHECK(peHeapBytes(~std::uint64_t{0}) == std::uint64_t{1} << 62);

  const PePairConfig config = pePairConfig(request(), "0,1,2,3,4,5,6,7", "WARN");
  bool sdmaOn = false, threshold0 = false, ipc = false, heap = false, bootstrap = false, debug = false;
  for (const auto& [k, v] : peEnvironment(config)) {
    sdmaOn = sdmaOn || (k == "ROCSHMEM_SDMA_ENABLED" && v == "1");
    threshold0 = threshold0 || (k == "ROCSHMEM_SDMA_THRESHOLD" && v == "0");
    ipc = ipc || (k == "ROCSHMEM_BACKEND" && v == "ipc");
    heap = heap || (k == "ROCSHMEM_HEAP_SIZE" && std::stoull(v) >= 2 * request().regionBytes);
    bootstrap = bootstrap || (k == "ROCSHMEM_BOOTSTRAP_TIMEOUT" && v == "7");
    debug = debug || (k == "ROCSHMEM_DEBUG_LEVEL" && v == "INFO");
  }
  CHECK((sdmaOn && threshold0 && ipc && heap && bootstrap && debug));
  CHECK(peArguments("pe", 1) == std::vector<std::string>{"pe", "--pe", "1"});
}

TEST_CASE("a PE pair kept across points, drained, restarted when it must be") {
  Fake fake("flood");  // both PEs write 1 MiB to stdout and stderr before `ready`
  setenv("HIP_VISIBLE_DEVICES", "10,11,12,13,14,15", 1);
  setenv("CUDA_VISIBLE_DEVICES", "3", 1);
  unsetenv("ROCSHMEM_DEBUG_LEVEL");
  pid_t first0 = -1, first1 = -1;
  {
    RocshmemPeSession session(FAKE_PE_PATH);
    const PePutResult a = session.put(request(1 << 20), never);
    REQUIRE_MESSAGE(a.status == "ok", a.failure);
    CHECK(!a.pairReused);
    CHECK(a.timesNs.size() == 2);
    CHECK(a.rocshmemVersion == "9.9.9");
    CHECK((a.traced && a.trace.cu == 4 && a.opsDone == 8));
    CHECK(a.evidence.source == EvidenceSource::RocshmemLog);
    CHECK(a.evidence.observed == ObservedMover::Engine);
    CHECK(a.sdmaLogLine.find("SDMA init with threshold=0") != std::string::npos);
    CHECK(a.sdmaLogLine.find('\x1b') == std::string::npos);
    first0 = session.pid(0);
    first1 = session.pid(1);
    CHECK(first0 > 0);
    CHECK(first1 > 0);

    // More sizes: the same processes answer.
    for (const std::uint64_t size : {2u << 20, 4u << 20}) {
      const PePutResult r = session.put(request(size), never);
      CHECK_MESSAGE(r.status == "ok", r.failure);
      CHECK(r.pairReused);
    }
    CHECK(session.pairsStarted() == 1);
    CHECK(session.pid(0) == first0);
    CHECK(fake.file("pe0-points") == "1 1048576\n2 2097152\n3 4194304\n");
    CHECK(fake.file("pe1-stdin") == kUidRecord + "\n");
    CHECK(fake.file("pe1-env") == "12,15 1 7 INFO 1073741824 unset\n");

    // A bigger region than the heap holds: a new pair with a bigger heap, kept for smaller ones.
    PePutRequest big = request(1 << 20);
    big.regionBytes = std::uint64_t{1} << 30;
    CHECK(session.put(big, never).status == "ok");
    CHECK(session.pairsStarted() == 2);
    CHECK(gone(first0));
    CHECK(gone(first1));
    CHECK(fake.file("pe1-env") == "12,15 1 7 INFO 4294967296 unset\n");
    const PePutResult small = session.put(request(1 << 20), never);
    CHECK(small.status == "ok");
    CHECK(small.pairReused);
    CHECK(session.pairsStarted() == 2);

    // Another GPU pair: another PE pair.
    PePutRequest other = request(1 << 20);
    other.srcGpu = 0;
    other.dstGpu = 1;
    CHECK(session.put(other, never).status == "ok");
    CHECK(session.pairsStarted() == 3);
    CHECK(fake.file("pe1-env").rfind("10,11 ", 0) == 0);
    first0 = session.pid(0);
    first1 = session.pid(1);
  }
  // The session's end stops its pair.
  CHECK(gone(first0));
  CHECK(gone(first1));
  unsetenv("CUDA_VISIBLE_DEVICES");
  unsetenv("HIP_VISIBLE_DEVICES");
}

TEST_CASE("the SDMA log line as evidence, from either stream") {
  SUBCASE("on stdout (a PE that did not move its stdout)") {
    Fake fake("log-on-stdout");
    const PePutResult r = runRocshmemPut(FAKE_PE_PATH, request(), never);
    REQUIRE_MESSAGE(r.status == "ok", r.failure);
    CHECK(r.evidence.observed == ObservedMover::Engine);
  }
  SUBCASE("nothing logged") {
    Fake fake("no-log");
    const PePutResult r = runRocshmemPut(FAKE_PE_PATH, request(), never);
    REQUIRE_MESSAGE(r.status == "ok", r.failure);
    CHECK(r.evidence.source == EvidenceSource::RocshmemLog);
    CHECK(r.evidence.observed == ObservedMover::Unknown);
    CHECK(r.sdmaLogLine.empty());
  }
  SUBCASE("a threshold above the point's size") {
    Fake fake("threshold-8192");
    const PePutResult r = runRocshmemPut(FAKE_PE_PATH, request(4096), never);
    REQUIRE_MESSAGE(r.status == "ok", r.failure);
    CHECK(r.evidence.observed == ObservedMover::Cu);
    CHECK(judgeEvidence(labelledMover(CopyPath::EngineDevice), r.evidence) == EvidenceVerdict::Contradicts);
  }
  SUBCASE("a fallback line: refused, and answered at once after") {
    Fake fake("fallback");
    RocshmemPeSession session(FAKE_PE_PATH);
    PePutResult r = session.put(request(), never);
    CHECK(r.status == "sdma-unavailable");
    CHECK(r.failure.find("fall back to IPC memcpy") != std::string::npos);
    CHECK(!session.running());
    r = session.put(request(2 << 20), never);
    CHECK(r.status == "sdma-unavailable");
    CHECK(session.pairsStarted() == 1);
  }
}

TEST_CASE("failures: timeouts, cancel, PEs that end") {
  SUBCASE("the bootstrap does not finish: the helper's deadline, said clearly") {
    Fake fake("hang-bootstrap");
    PePutRequest quick = request();
    quick.bootstrapTimeoutS = 1;
    quick.startGraceS = 0;
    RocshmemPeSession session(FAKE_PE_PATH);
    const PePutResult r = session.put(quick, never);
    CHECK(r.status == "timeout");
    CHECK(r.failure.find("ROCSHMEM_BOOTSTRAP_TIMEOUT=1 s") != std::string::npos);
    CHECK(!session.running());
  }
  SUBCASE("rocSHMEM's own bootstrap gives up after its timeout") {
    Fake fake("slow-join");
    PePutRequest quick = request();
    quick.bootstrapTimeoutS = 1;
    const PePutResult r = runRocshmemPut(FAKE_PE_PATH, quick, never);
    CHECK(r.status == "timeout");
    CHECK(r.failure.find("bootstrap between the two PEs did not complete within 1 s") != std::string::npos);
    CHECK(r.failure.find("rocshmem_init_attr") != std::string::npos);
  }
  SUBCASE("a point that is never answered") {
    Fake fake("hang-at-2");
    RocshmemPeSession session(FAKE_PE_PATH);
    PePutRequest quick = request();
    quick.timeoutNs = 0.5e9;
    CHECK(session.put(quick, never).status == "ok");
    const pid_t hung = session.pid(0);
    const PePutResult r = session.put(quick, never);
    CHECK(r.status == "timeout");
    CHECK(r.failure.find("did not answer a point") != std::string::npos);
    CHECK(gone(hung));
    // The next point starts a new pair.
    CHECK(session.put(quick, never).status == "ok");
    CHECK(session.pairsStarted() == 2);
  }
  SUBCASE("cancel, while the pair starts and while a point runs") {
    Fake fake("hang-bootstrap");
    CHECK(runRocshmemPut(FAKE_PE_PATH, request(), always).status == "cancelled");
    cancelPolls = 0;
    CHECK(runRocshmemPut(FAKE_PE_PATH, request(), cancelAfterAWhile).status == "cancelled");
  }
  SUBCASE("PE 0 dies in a point, saying how; the pair is started anew") {
    Fake fake("crash-at-2");
    RocshmemPeSession session(FAKE_PE_PATH);
    CHECK(session.put(request(), never).status == "ok");
    const PePutResult r = session.put(request(), never);
    CHECK(r.status == "runtime");
    CHECK(r.failure.find("PE 0 (source GPU) ended (exit status 3)") != std::string::npos);
    CHECK(r.failure.find("illegal memory access") != std::string::npos);
    CHECK(session.put(request(), never).status == "ok");
    CHECK(session.pairsStarted() == 2);
  }
  SUBCASE("PE 1 dies in a point") {
    Fake fake("pe1-dies-at-2");
    RocshmemPeSession session(FAKE_PE_PATH);
    CHECK(session.put(request(), never).status == "ok");
    const PePutResult r = session.put(request(), never);
    CHECK(r.status == "runtime");
    CHECK(r.failure.find("PE 1 (destination GPU) ended (exit status 5)") != std::string::npos);
    CHECK(r.failure.find("lost its device") != std::string::npos);
  }
  SUBCASE("a failed check keeps the pair") {
    Fake fake("bad-check-at-1");
    RocshmemPeSession session(FAKE_PE_PATH);
    const PePutResult bad = session.put(request(), never);
    CHECK(bad.status == "validation");
    CHECK(bad.failure.find("first at byte 7") != std::string::npos);
    CHECK(session.running());
    CHECK(session.put(request(), never).status == "ok");
    CHECK(session.pairsStarted() == 1);
  }
  SUBCASE("a PE that ends at once") {
    Fake fake("exit-at-start");
    const PePutResult r = runRocshmemPut(FAKE_PE_PATH, request(), never);
    CHECK(r.status == "runtime");
    CHECK(r.failure.find("exit status 3") != std::string::npos);
    CHECK(r.failure.find("no device") != std::string::npos);
  }
  SUBCASE("no PE program") {
    const PePutResult r = runRocshmemPut("/nonexistent/sdma-probe-rocshmem-pe", request(), never);
    CHECK(r.status == "library-not-found");
    CHECK(r.failure.find("/nonexistent/sdma-probe-rocshmem-pe") != std::string::npos);
  }
}
