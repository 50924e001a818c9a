// The launcher's environment of ranks started by srun or mpirun
// (native/src/commands/rank_bootstrap.hpp): detectExternalRank over an arbitrary environment,
// and the id file's name made from what it found, against what they promise:
//   detectExternalRank  reads only the launchers' variables; picks the first launcher whose
//                       rank is set (srun only with SLURM_STEP_ID); a rank only when the rank
//                       and the count are decimal numbers of at most 9 characters with
//                       0 <= rank < count, and then the node-local rank is one as well or the
//                       rank; the job key is the job's name (srun: job.step) cut to 64
//                       characters of [A-Za-z0-9._-], any other byte '_', "launch" when empty.
//                       No launcher: nullopt and no problem; a launcher whose numbers do not
//                       fit: nullopt and a short problem naming its variables
//   bootstrapFile       a file directly in the folder named, "sdma-lens-KEY-VARIANT.id", both
//                       parts of those characters, at most 64 each
//
// Input: an environment block as /proc/PID/environ holds one, NAME=VALUE entries separated by
// '\0' (the first of a name counts, as getenv finds it); the first entry without '=' is the
// variant name given to bootstrapFile.
#include <cassert>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands/rank_bootstrap.hpp"
#include "fuzz_input.hpp"

namespace {

using sdma::collective::Launcher;

struct Family {
  Launcher launcher;
  const char* rank;
  const char* world;
  const char* local;
  const char* job;
  const char* step;
};

// The launchers' variables, as rank_bootstrap.cpp's header and the launchers document them.
const Family kFamilies[] = {
    {Launcher::Srun, "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_JOB_ID", "SLURM_STEP_ID"},
    {Launcher::Mpirun, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "PMIX_NAMESPACE",
     nullptr},
    {Launcher::Mpirun, "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "PMI_KVSNAME", nullptr},
};

bool isLauncherVariable(std::string_view name) {
  for (const Family& f : kFamilies) {
    for (const char* n : {f.rank, f.world, f.local, f.job, f.step}) {
      if (n != nullptr && name == n) return true;
    }
  }
  return false;
}

struct Environment {
  std::vector<std::pair<std::string_view, std::string_view>> vars;
  std::optional<std::string_view> variant;

  explicit Environment(std::string_view block) {
    while (!block.empty()) {
      const std::size_t end = block.find('\0');
      const std::string_view entry = block.substr(0, end);
      block.remove_prefix(end == std::string_view::npos ? block.size() : end + 1);
      const std::size_t eq = entry.find('=');
      if (eq != std::string_view::npos) {
        vars.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
      } else if (!variant) {
        variant = entry;
      }
    }
  }

  std::optional<std::string> get(std::string_view name) const {
    for (const auto& [n, v] : vars) {
      if (n == name) return std::string(v);
    }
    return std::nullopt;
  }
};

// A count or rank as the promise reads it: at most 9 characters, an optional '-' then decimal
// digits and nothing else, not negative ("-0" is 0).
std::optional<int> number(const std::optional<std::string>& text) {
  if (!text || text->empty() || text->size() > 9) return std::nullopt;
  std::string_view digits = *text;
  const bool minus = digits.front() == '-';
  if (minus) digits.remove_prefix(1);
  if (digits.empty()) return std::nullopt;
  long value = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  if (minus && value != 0) return std::nullopt;
  return static_cast<int>(value);
}

bool isKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

std::string keyOf(std::string_view raw) {
  std::string key;
  for (const char c : raw.substr(0, 64)) key.push_back(isKeyChar(c) ? c : '_');
  return key.empty() ? "launch" : key;
}

void checkKey(std::string_view key) {
  assert(!key.empty() && key.size() <= 64);
  for (const char c : key) assert(isKeyChar(c));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Environment env(sdma::fuzz::asText(data, size));

  std::size_t reads = 0;
  const sdma::collective::EnvReader reader = [&](const char* name) {
    assert(name != nullptr && isLauncherVariable(name));
    ++reads;
    return env.get(name);
  };
  std::string problem;
  const std::optional<sdma::collective::ExternalRank> got = sdma::collective::detectExternalRank(reader, problem);
  assert(reads <= 3 * 6 + 4);

  const Family* chosen = nullptr;
  for (const Family& f : kFamilies) {
    if (!env.get(f.rank)) continue;
    if (f.step != nullptr && !env.get(f.step)) continue;
    chosen = &f;
    break;
  }
  if (chosen == nullptr) {
    assert(!got && problem.empty());
    return 0;
  }

  const std::optional<int> rank = number(env.get(chosen->rank));
  const std::optional<int> world = number(env.get(chosen->world));
  if (!rank || !world || *world < 1 || *rank >= *world) {
    assert(!got);
    assert(!problem.empty() && problem.size() <= 160);
    assert(problem.find(chosen->rank) != std::string::npos && problem.find(chosen->world) != std::string::npos);
    sdma::fuzz::touch(problem);
    return 0;
  }

  assert(got.has_value() && problem.empty());
  assert(got->launcher == chosen->launcher);
  assert(got->rank == *rank && got->world == *world);
  assert(0 <= got->rank && got->rank < got->world);
  assert(got->localRank == number(env.get(chosen->local)).value_or(*rank) && got->localRank >= 0);
  std::string job = env.get(chosen->job).value_or("");
  if (chosen->step != nullptr) job += "." + env.get(chosen->step).value_or("");
  assert(got->jobKey == keyOf(job));
  checkKey(got->jobKey);

  // The id file of a variant: directly in the folder, whatever the key and the variant hold.
  const std::string dir = "/shared/bootstrap";
  const std::string variant(env.variant.value_or("default"));
  const std::string path = sdma::collective::bootstrapFile(dir, got->jobKey, variant);
  const std::string prefix = dir + "/sdma-lens-" + got->jobKey + "-";
  assert(path.size() > prefix.size() + 3 && path.compare(0, prefix.size(), prefix) == 0);
  assert(path.compare(path.size() - 3, 3, ".id") == 0);
  const std::string variantKey = path.substr(prefix.size(), path.size() - prefix.size() - 3);
  checkKey(variantKey);
  assert(variantKey == keyOf(variant));
  assert(path.find('/', dir.size() + 1) == std::string::npos);
  return 0;
}
