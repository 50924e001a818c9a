#include "commands/rank_bootstrap.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <thread>

#include "util/cancel.hpp"

namespace sdma::collective {

namespace {

std::optional<int> intOf(const std::optional<std::string>& text) {
  if (!text || text->empty() || text->size() > 9) return std::nullopt;
  int value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || value < 0) return std::nullopt;
  return value;
}

std::string keyOf(const std::string& raw) {
  std::string key;
  for (char c : raw) {
    if (key.size() >= 64) break;
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
    key.push_back(ok ? c : '_');
  }
  return key.empty() ? "launch" : key;
}

}  // namespace

std::optional<ExternalRank> detectExternalRank(const EnvReader& env, std::string& problem) {
  struct Names {
    Launcher launcher;
    const char* rank;
    const char* world;
    const char* local;
    const char* job;
    const char* step;
  };
  // Slurm's srun sets SLURM_STEP_ID in each task of a step; a batch script alone does not
  // start ranks. Open MPI and MPICH (Hydra) name the rank, the count and the node-local rank.
  const Names launchers[] = {
      {Launcher::Srun, "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_JOB_ID", "SLURM_STEP_ID"},
      {Launcher::Mpirun, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "PMIX_NAMESPACE",
       nullptr},
      {Launcher::Mpirun, "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "PMI_KVSNAME", nullptr},
  };
  for (const Names& n : launchers) {
    const std::optional<std::string> rankText = env(n.rank);
    if (!rankText) continue;
    if (n.step != nullptr && !env(n.step)) continue;
    const std::optional<int> rank = intOf(rankText);
    const std::optional<int> world = intOf(env(n.world));
    const std::optional<int> local = intOf(env(n.local));
    if (!rank || !world || *world < 1 || *rank >= *world) {
      problem = std::string(n.rank) + "/" + n.world + " do not name a rank of the launch (" + rankText->substr(0, 16) +
                " of " + env(n.world).value_or("unset").substr(0, 16) + ")";
      return std::nullopt;
    }
    ExternalRank r;
    r.launcher = n.launcher;
    r.rank = *rank;
    r.world = *world;
    r.localRank = local.value_or(*rank);
    std::string job = env(n.job).value_or("");
    if (n.step != nullptr) job += "." + env(n.step).value_or("");
    r.jobKey = keyOf(job);
    return r;
  }
  return std::nullopt;
}

std::string toHex(const std::string& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    hex.push_back(digits[c >> 4]);
    hex.push_back(digits[c & 15]);
  }
  return hex;
}

std::optional<std::string> idFromHex(std::string_view text) {
  if (text.size() != kBootstrapIdBytes * 2) return std::nullopt;
  const auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string id(kBootstrapIdBytes, '\0');
  for (std::size_t i = 0; i < kBootstrapIdBytes; ++i) {
    const int hi = nibble(text[2 * i]);
    const int lo = nibble(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    id[i] = static_cast<char>(hi << 4 | lo);
  }
  return id;
}

std::string randomId() {
  std::string id(kBootstrapIdBytes, '\0');
  std::ifstream in("/dev/urandom", std::ios::binary);
  in.read(id.data(), static_cast<std::streamsize>(id.size()));
  return id;
}

std::string bootstrapFile(const std::string& dir, const std::string& jobKey, const std::string& variant) {
  return dir + "/sdma-lens-" + jobKey + "-" + keyOf(variant) + ".id";
}

bool writeBootstrapId(const std::string& path, const std::string& id, std::string& why) {
  const std::string temp = path + ".tmp." + std::to_string(getpid());
  const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    why = "cannot create " + temp + ": " + std::strerror(errno);
    return false;
  }
  const std::string text = toHex(id) + "\n";
  const bool whole = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && fsync(fd) == 0;
  const int err = errno;
  close(fd);
  if (!whole || rename(temp.c_str(), path.c_str()) != 0) {
    why = "cannot write " + path + ": " + std::strerror(whole ? errno : err);
    unlink(temp.c_str());
    return false;
  }
  return true;
}

bool readBootstrapId(const std::string& path, std::chrono::milliseconds timeout, std::string& id, std::string& why) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
      struct stat st{};
      if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        why = path + " is not a regular file";
        return false;
      }
      if (st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
        close(fd);
        why = path + " is not private to this user (owner " + std::to_string(st.st_uid) + ", mode " +
              std::to_string(st.st_mode & 0777) + "): the id is written 0600 by rank 0 of the same user";
        return false;
      }
      char buffer[kBootstrapIdBytes * 2 + 2];
      const ssize_t n = read(fd, buffer, sizeof buffer);
      close(fd);
      std::string_view text(buffer, n > 0 ? static_cast<std::size_t>(n) : 0);
      if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
      if (const std::optional<std::string> parsed = idFromHex(text)) {
        id = *parsed;
        return true;
      }
      why = path + " does not hold a bootstrap id";
      return false;
    }
    if (errno != ENOENT) {
      why = "cannot open " + path + ": " + std::strerror(errno);
      return false;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      why = "rank 0 wrote no bootstrap id to " + path + " within " +
            std::to_string(std::chrono::duration_cast<std::chrono::seconds>(timeout).count()) + " s";
      return false;
    }
    if (!cancel::sleepFor(std::chrono::milliseconds(100))) {
      why = "cancelled";
      return false;
    }
  }
}

bool acknowledgeBootstrapId(const std::string& path, int rank, std::string& why) {
  const std::string ack = path + ".rank" + std::to_string(rank);
  const int fd = open(ack.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    why = "cannot create " + ack + ": " + std::strerror(errno);
    return false;
  }
  close(fd);
  return true;
}

bool retireBootstrapId(const std::string& path, int world, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool all = false;
  while (!all) {
    all = true;
    for (int r = 1; r < world && all; ++r) {
      struct stat st{};
      all = lstat((path + ".rank" + std::to_string(r)).c_str(), &st) == 0;
    }
    if (all || std::chrono::steady_clock::now() >= deadline || !cancel::sleepFor(std::chrono::milliseconds(50))) break;
  }
  unlink(path.c_str());
  for (int r = 1; r < world; ++r) unlink((path + ".rank" + std::to_string(r)).c_str());
  return all;
}

}  // namespace sdma::collective
