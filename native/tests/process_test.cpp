// ctest: the one process starter (util/process.hpp), on both of its paths (posix_spawn, and
// fork + exec when the child must die with the helper): argument arrays reach the program as
// given, the environment is the helper's with the caller's changes, pipes and /dev/null as
// asked, the helper's ends close-on-exec, a process group of the child's own, signal
// dispositions reset or inherited, one descriptor kept across exec, exec failures as errno.

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "util/process.hpp"
#include "doctest_support.hpp"

using sdma::process::Child;
using sdma::process::Spec;
using sdma::process::Stream;

namespace {

std::string readAll(int fd) {
  std::string out;
  char buffer[4096];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
  }
  return out;
}

int waitFor(Child& child) {
  int status = 0;
  while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  sdma::process::closePipes(child);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

Spec shell(const std::string& script, bool fork) {
  Spec spec;
  spec.path = "/bin/sh";
  spec.argv = {"sh", "-c", script, "sh", "an argument; with $(no) shell", "two"};
  spec.dieWithHelper = fork;
  return spec;
}

}  // namespace

TEST_CASE("arguments, environment and pipes, on both paths") {
  setenv("SDMA_PROCESS_TEST_KEEP", "kept", 1);
  setenv("SDMA_PROCESS_TEST_DROP", "dropped", 1);
  setenv("SDMA_PROCESS_TEST_SET", "old", 1);
  for (const bool fork : {false, true}) {
    CAPTURE(fork);
    Spec spec = shell(
        "printf '%s|%s|' \"$1\" \"$2\"; printf '%s|%s|%s|' \"$SDMA_PROCESS_TEST_KEEP\" "
        "\"${SDMA_PROCESS_TEST_DROP-unset}\" \"$SDMA_PROCESS_TEST_SET\"; cat; echo oops >&2; exit 7",
        fork);
    spec.set = {{"SDMA_PROCESS_TEST_SET", "new"}};
    spec.unset = {"SDMA_PROCESS_TEST_DROP"};
    spec.in = spec.out = spec.err = Stream::Pipe;
    Child child = sdma::process::start(spec);
    REQUIRE(child.started());
    CHECK(child.error == 0);
    for (const int fd : {child.stdinFd, child.stdoutFd, child.stderrFd}) {
      REQUIRE(fd >= 0);
      CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
    }
    CHECK(write(child.stdinFd, "from stdin", 10) == 10);
    close(child.stdinFd);
    child.stdinFd = -1;
    CHECK(readAll(child.stdoutFd) == "an argument; with $(no) shell|two|kept|unset|new|from stdin");
    CHECK(readAll(child.stderrFd) == "oops\n");
    CHECK(waitFor(child) == 7);
  }
}

TEST_CASE("stdin from /dev/null") {
  for (const bool fork : {false, true}) {
    CAPTURE(fork);
    Spec spec = shell("cat; echo end", fork);
    spec.in = Stream::DevNull;
    spec.out = Stream::Pipe;
    Child child = sdma::process::start(spec);
    REQUIRE(child.started());
    CHECK(readAll(child.stdoutFd) == "end\n");
    CHECK(waitFor(child) == 0);
  }
}

TEST_CASE("exec failures come back as errno, with nothing left running") {
  char dir[] = "/tmp/sdma-process-test.XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  const std::string plain = std::string(dir) + "/not-executable";
  close(open(plain.c_str(), O_CREAT | O_WRONLY, 0644));
  for (const bool fork : {false, true}) {
    CAPTURE(fork);
    Spec spec;
    spec.path = std::string(dir) + "/missing";
    spec.argv = {spec.path};
    spec.dieWithHelper = fork;
    spec.out = Stream::Pipe;
    Child child = sdma::process::start(spec);
    CHECK(!child.started());
    CHECK(child.error == ENOENT);
    CHECK(child.stdoutFd == -1);
    spec.path = plain;
    child = sdma::process::start(spec);
    CHECK(!child.started());
    CHECK(child.error == EACCES);
  }
  CHECK(waitpid(-1, nullptr, WNOHANG) == -1);  // no child left to reap
  unlink(plain.c_str());
  rmdir(dir);
}

TEST_CASE("a process group of its own, or the helper's") {
  for (const bool fork : {false, true}) {
    for (const bool newGroup : {false, true}) {
      CAPTURE(fork);
      CAPTURE(newGroup);
      Spec spec = shell("read x", fork);
      spec.in = Stream::Pipe;
      spec.newGroup = newGroup;
      Child child = sdma::process::start(spec);
      REQUIRE(child.started());
      CHECK(getpgid(child.pid) == (newGroup ? child.pid : getpgrp()));
      close(child.stdinFd);
      child.stdinFd = -1;
      CHECK(waitFor(child) != 0);  // read at end of input fails
    }
  }
}

TEST_CASE("signal dispositions: the defaults, or the helper's") {
  signal(SIGPIPE, SIG_IGN);
  for (const bool fork : {false, true}) {
    for (const bool defaults : {false, true}) {
      CAPTURE(fork);
      CAPTURE(defaults);
      Spec spec;
      spec.path = "/bin/grep";
      spec.argv = {"grep", "^SigIgn", "/proc/self/status"};
      spec.dieWithHelper = fork;
      spec.defaultSignals = defaults;
      spec.out = Stream::Pipe;
      Child child = sdma::process::start(spec);
      REQUIRE(child.started());
      const std::string line = readAll(child.stdoutFd);
      CHECK(waitFor(child) == 0);
      const unsigned long long ignored = std::strtoull(line.c_str() + line.find(':') + 1, nullptr, 16);
      CHECK(((ignored >> (SIGPIPE - 1)) & 1) == (defaults ? 0u : 1u));
    }
  }
  signal(SIGPIPE, SIG_DFL);
}

TEST_CASE("one descriptor kept across exec") {
  for (const bool fork : {false, true}) {
    CAPTURE(fork);
    int fds[2];
    REQUIRE(pipe2(fds, O_CLOEXEC) == 0);
    Spec spec = shell("echo through >&" + std::to_string(fds[1]), fork);
    spec.keepFd = fds[1];
    Child child = sdma::process::start(spec);
    REQUIRE(child.started());
    close(fds[1]);
    CHECK(readAll(fds[0]) == "through\n");
    close(fds[0]);
    CHECK(waitFor(child) == 0);
  }
}
