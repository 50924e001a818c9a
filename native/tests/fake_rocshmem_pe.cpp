// A stand-in for sdma-probe-rocshmem-pe (native/src/backends/gpu/rocshmem_pe.hip) for
// native/tests/rocshmem_launcher_test.cpp: it speaks the PE protocol of
// rocshmem_launcher.hpp on its stdin and stdout without rocSHMEM or a GPU, and misbehaves as
// FAKE_PE_MODE asks (comma-separated words):
//   no-log          no SDMA initialisation line          log-on-stdout   that line on stdout
//   threshold-8192  the line names threshold=8192       fallback        an SDMA fallback line
//   flood           1 MiB on stdout and 1 MiB on stderr before `ready`, both PEs
//   exit-at-start   PE 0 ends with status 3 before anything
//   hang-bootstrap  PE 0 never becomes ready             slow-join       PE 0's join fails after
//                                                                        ROCSHMEM_BOOTSTRAP_TIMEOUT s
//   crash-at-2      PE 0 ends at point 2                 hang-at-2       PE 0 never answers point 2
//   bad-check-at-1  PE 0's check of point 1 fails        pe1-dies-at-2   PE 1 ends at point 2
// FAKE_PE_DIR, when set, receives what the test checks: pe<N>-env (the environment it saw),
// pe1-stdin (the uid record), pe0-points (a line per point: id, size).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "util/ndjson_reader.hpp"

namespace {

std::string mode;
std::string dir;

bool has(const std::string& word) { return ("," + mode + ",").find("," + word + ",") != std::string::npos; }

void out(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}
void err(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fputc('\n', stderr);
  std::fflush(stderr);
}
void note(const std::string& file, const std::string& text, bool append = false) {
  if (dir.empty()) return;
  std::ofstream(dir + "/" + file, append ? std::ios::app : std::ios::trunc) << text;
}
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "unset" : v;
}
void sleepForever() {
  while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
}
void flood() {
  const std::string junk(1023, 'j');
  for (int i = 0; i < 1024; ++i) out(junk);
  for (int i = 0; i < 1024; ++i) err(junk);
}

// rocSHMEM's INFO line, coloured as rocSHMEM colours its log by default.
std::string initLine() {
  const std::string threshold = has("threshold-8192") ? "8192" : "0";
  return "\x1b[32mI0000h rocSHMEM\x1b[0m SDMA init with threshold=" + threshold +
         ", channels=1, local_size=2\t\x1b[90msdmaHostInit@sdma_policy.cpp:55\x1b[0m";
}

std::string field(const sdma::ndjson::Value& o, const char* key) {
  const auto v = sdma::ndjson::intField(o, key);
  return v ? std::to_string(*v) : "?";
}

// Points until stop or the end of input; `answer` writes a point's records, false to end.
template <typename Answer>
int serve(Answer answer) {
  std::string line;
  while (std::getline(std::cin, line)) {
    const auto o = sdma::ndjson::parseLine(line);
    if (!o) continue;
    const std::string type = sdma::ndjson::stringField(*o, "type").value_or("");
    if (type == "stop") return 0;
    if (type != "point") continue;
    const std::int64_t id = sdma::ndjson::intField(*o, "point").value_or(0);
    if (!answer(*o, id)) return 0;
    out("{\"type\":\"done\",\"point\":" + std::to_string(id) + "}");
  }
  return 0;
}

int sourcePe() {
  if (has("exit-at-start")) {
    err("hipSetDevice: no device");
    return 3;
  }
  out("{\"type\":\"uid\",\"uid\":\"" + std::string(256, 'a') + "\"}");
  if (has("hang-bootstrap")) sleepForever();
  if (has("slow-join")) {
    std::this_thread::sleep_for(std::chrono::seconds(std::atoi(env("ROCSHMEM_BOOTSTRAP_TIMEOUT").c_str())));
    out(R"({"type":"error","code":"runtime","message":"rocshmem_init_attr (unique id, 2 PEs) failed on PE 0","hint":""})");
    return 2;
  }
  if (!has("no-log")) (has("log-on-stdout") ? out : err)(initLine());
  if (has("fallback")) {
    err("E0000h rocSHMEM SDMA: connect failed on local rank(s) 0 of 2; all of them fall back to IPC memcpy.");
  }
  out(R"({"type":"version","version":"9.9.9","init":"none"})");
  if (has("flood")) flood();
  out(R"({"type":"ready"})");
  return serve([](const sdma::ndjson::Value& o, std::int64_t id) {
    note("pe0-points", field(o, "point") + " " + field(o, "size") + "\n", true);
    if (id == 2 && has("crash-at-2")) {
      err("hipMemcpy: an illegal memory access was encountered");
      std::exit(3);
    }
    if (id == 2 && has("hang-at-2")) sleepForever();
    out(R"({"type":"times","ns":[1500,1600]})");
    out(R"({"type":"ops","ops":8})");
    out(R"({"type":"trace","startNs":1,"issuedNs":2,"completeNs":3,"cu":4,"xcc":5})");
    err("I0000h rocSHMEM some other log line of point " + std::to_string(id));
    if (id == 1 && has("bad-check-at-1")) {
      out(R"({"type":"validation","ok":false,"message":"1 wrong byte(s); first at byte 7 of slot 0"})");
    } else {
      out(R"({"type":"validation","ok":true})");
    }
    return true;
  });
}

int destinationPe() {
  note("pe1-env", env("HIP_VISIBLE_DEVICES") + " " + env("ROCSHMEM_SDMA_ENABLED") + " " +
                      env("ROCSHMEM_BOOTSTRAP_TIMEOUT") + " " + env("ROCSHMEM_DEBUG_LEVEL") + " " +
                      env("ROCSHMEM_HEAP_SIZE") + " " + env("CUDA_VISIBLE_DEVICES") + "\n");
  if (has("flood")) flood();
  std::string uid;
  if (!std::getline(std::cin, uid)) return 2;
  note("pe1-stdin", uid + "\n");
  if (!has("no-log")) err(initLine());
  out(R"({"type":"ready"})");
  return serve([](const sdma::ndjson::Value&, std::int64_t id) {
    if (id == 2 && has("pe1-dies-at-2")) {
      err("PE 1 lost its device");
      std::exit(5);
    }
    return true;
  });
}

}  // namespace

int main(int argc, char** argv) {
  mode = env("FAKE_PE_MODE");
  if (const char* d = std::getenv("FAKE_PE_DIR")) dir = d;
  if (argc != 3 || std::strcmp(argv[1], "--pe") != 0) return 2;
  return std::strcmp(argv[2], "0") == 0 ? sourcePe() : destinationPe();
}
