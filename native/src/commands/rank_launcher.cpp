#include "commands/rank_launcher.hpp"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "util/cancel.hpp"
#include "util/process.hpp"
#include "util/safe_file.hpp"

namespace sdma::collective {

namespace {

using Clock = std::chrono::steady_clock;

struct Rank {
  process::Child child;
  ingest::LineSplitter out{kRankLineBytes};
  std::string errTail;
  std::string errPartial;
  bool outOpen = false;
  bool errOpen = false;
  bool reaped = false;
  int exitCode = -1;
  Clock::time_point lastHeard;
};

void closeFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// A rank that already died must not take the helper with it through SIGPIPE.
void writeLine(int fd, const std::string& text) {
  sigset_t pipeOnly, previous;
  sigemptyset(&pipeOnly);
  sigaddset(&pipeOnly, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipeOnly, &previous);
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  if (written < text.size()) {
    const timespec none{0, 0};
    while (sigtimedwait(&pipeOnly, nullptr, &none) == SIGPIPE) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

void keepTail(std::string& tail, std::string_view more) {
  tail.append(more);
  if (tail.size() > kStderrTailBytes) tail.erase(0, tail.size() - kStderrTailBytes);
}

bool reap(Rank& r, bool block) {
  if (r.reaped || !r.child.started()) return r.reaped;
  int status = 0;
  pid_t got;
  do {
    got = waitpid(r.child.pid, &status, block ? 0 : WNOHANG);
  } while (got < 0 && errno == EINTR);
  if (got == r.child.pid) {
    r.reaped = true;
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  } else if (got < 0) {
    r.reaped = true;  // not ours any more (ECHILD): nothing to wait for
  }
  return r.reaped;
}

// SIGTERM to every rank still running (each ends its work at the next point it checks),
// SIGKILL to what is left after the grace period, and every one reaped.
void stopAll(std::vector<Rank>& ranks, std::chrono::milliseconds grace) {
  for (Rank& r : ranks) {
    if (!reap(r, false) && r.child.started()) kill(r.child.pid, SIGTERM);
  }
  const Clock::time_point deadline = Clock::now() + grace;
  while (Clock::now() < deadline) {
    bool running = false;
    for (Rank& r : ranks) running |= !reap(r, false);
    if (!running) break;
    usleep(20000);
  }
  for (Rank& r : ranks) {
    if (!reap(r, false) && r.child.started()) {
      kill(r.child.pid, SIGKILL);
      reap(r, true);
    }
  }
}

}  // namespace

std::string describeRankExit(int rank, int exitCode) {
  const std::string who = "rank " + std::to_string(rank);
  if (exitCode > 128 && exitCode < 128 + 65) {
    const int sig = exitCode - 128;
    const char* name = strsignal(sig);
    return who + " was killed by signal " + std::to_string(sig) +
           (name != nullptr ? std::string(" (") + name + ")" : "");
  }
  return who + " exited with code " + std::to_string(exitCode);
}

RankLaunchResult runRanks(const RankLaunchSpec& spec, const RankRecord& onRecord) {
  RankLaunchResult result;
  std::vector<Rank> ranks(static_cast<std::size_t>(std::max(spec.ranks, 0)));
  const auto finish = [&](RankEnd end, int rank) {
    for (Rank& r : ranks) {
      closeFd(r.child.stdoutFd);
      closeFd(r.child.stderrFd);
      closeFd(r.child.stdinFd);
    }
    stopAll(ranks, spec.stopGrace);
    result.end = end;
    result.rank = rank;
    if (rank >= 0 && static_cast<std::size_t>(rank) < ranks.size()) {
      result.exitCode = ranks[static_cast<std::size_t>(rank)].exitCode;
      result.stderrTail =
          ranks[static_cast<std::size_t>(rank)].errTail + ranks[static_cast<std::size_t>(rank)].errPartial;
    }
    for (const Rank& r : ranks) result.exitCodes.push_back(r.exitCode);
    return result;
  };

  char selfPath[4096];
  const ssize_t selfLength = readlink("/proc/self/exe", selfPath, sizeof selfPath - 1);
  const std::string self = selfLength > 0 ? std::string(selfPath, static_cast<std::size_t>(selfLength)) : "sdma-probe";
  for (int i = 0; i < spec.ranks; ++i) {
    Rank& r = ranks[static_cast<std::size_t>(i)];
    process::Spec p;
    p.path = "/proc/self/exe";
    p.argv = {self};  // ps shows the helper's own path, not /proc/self/exe
    const std::vector<std::string> args = spec.args(i);
    p.argv.insert(p.argv.end(), args.begin(), args.end());
    p.set = spec.set;
    p.in = process::Stream::Pipe;
    p.out = process::Stream::Pipe;
    p.err = process::Stream::Pipe;
    p.defaultSignals = true;
    r.child = process::start(p);
    if (!r.child.started()) {
      result.startErrno = r.child.error;
      return finish(RankEnd::StartFailed, i);
    }
    r.outOpen = r.errOpen = true;
    r.lastHeard = Clock::now();
    writeLine(r.child.stdinFd, spec.stdinLine);
    closeFd(r.child.stdinFd);
  }

  const auto isAnswer = [&](int code) {
    return code == 0 || std::find(spec.answerCodes.begin(), spec.answerCodes.end(), code) != spec.answerCodes.end();
  };
  std::vector<pollfd> fds;
  std::vector<std::pair<int, bool>> owners;  // rank, is stdout
  char chunk[65536];
  const auto collect = [&] {
    fds.clear();
    owners.clear();
    for (int i = 0; i < spec.ranks; ++i) {
      Rank& r = ranks[static_cast<std::size_t>(i)];
      if (r.outOpen) {
        fds.push_back({r.child.stdoutFd, POLLIN, 0});
        owners.emplace_back(i, true);
      }
      if (r.errOpen) {
        fds.push_back({r.child.stderrFd, POLLIN, 0});
        owners.emplace_back(i, false);
      }
    }
  };
  // Reads what the ready streams hold; a stream at its end is closed.
  const auto readReady = [&](int ready, Clock::time_point now) {
    for (std::size_t k = 0; ready > 0 && k < fds.size(); ++k) {
      if ((fds[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const auto [i, isOut] = owners[k];
      Rank& r = ranks[static_cast<std::size_t>(i)];
      const ssize_t n = read(fds[k].fd, chunk, sizeof chunk);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        if (isOut) {
          r.outOpen = false;
          closeFd(r.child.stdoutFd);
        } else {
          r.errOpen = false;
          closeFd(r.child.stderrFd);
        }
        continue;
      }
      r.lastHeard = now;
      const std::string_view text(chunk, static_cast<std::size_t>(n));
      if (!isOut) {
        keepTail(r.errTail, text);
        continue;
      }
      r.out.feed(text, [&](std::string_view line, bool overlong) {
        if (overlong) {
          ++result.droppedLines;
          return;
        }
        const std::string copy(line);
        ndjson::Limits limits;
        limits.maxLineBytes = kRankLineBytes;
        limits.maxDepth = 32;
        limits.maxMembers = 4096;
        const std::optional<ndjson::Value> record = ndjson::parseLine(copy, limits);
        const std::optional<std::string> type = record ? ndjson::stringField(*record, "type") : std::nullopt;
        if (!type) {
          ++result.droppedLines;
          return;
        }
        onRecord(i, *type, *record, copy);
      });
    }
  };
  // Before a failed rank ends the run, what the others already wrote is read (up to a short
  // deadline), so a point every rank finished is not lost with them.
  const auto drainThenFail = [&](RankEnd end, int rank) {
    const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(200);
    while (Clock::now() < deadline) {
      collect();
      if (fds.empty()) break;
      const int ready = poll(fds.data(), fds.size(), 20);
      if (ready <= 0) break;
      readReady(ready, Clock::now());
    }
    return finish(end, rank);
  };
  while (true) {
    if (cancel::requested()) return finish(RankEnd::Cancelled, -1);
    collect();
    // A rank whose streams closed is reaped here; its exit decides the run.
    bool allDone = true;
    for (int i = 0; i < spec.ranks; ++i) {
      Rank& r = ranks[static_cast<std::size_t>(i)];
      if (!r.outOpen && !r.errOpen) {
        reap(r, true);
        if (!isAnswer(r.exitCode)) return drainThenFail(RankEnd::RankFailed, i);
      } else {
        allDone = false;
      }
    }
    if (allDone) break;
    const int ready = poll(fds.data(), fds.size(), 200);
    if (ready < 0 && errno != EINTR) return finish(RankEnd::RankFailed, -1);
    const Clock::time_point now = Clock::now();
    readReady(ready, now);
    for (int i = 0; i < spec.ranks; ++i) {
      const Rank& r = ranks[static_cast<std::size_t>(i)];
      if ((r.outOpen || r.errOpen) && now - r.lastHeard > spec.silenceTimeout) {
        return drainThenFail(RankEnd::RankStalled, i);
      }
    }
  }
  for (int i = 0; i < spec.ranks; ++i) {
    if (!isAnswer(ranks[static_cast<std::size_t>(i)].exitCode)) return finish(RankEnd::RankFailed, i);
  }
  return finish(RankEnd::Finished, -1);
}

}  // namespace sdma::collective
