// How the rank processes of a rank-per-process collective find each other. Started by the
// helper, every rank reads the bootstrap id (ncclGetUniqueId's 128 bytes, as hex) on its
// stdin. Started by srun or mpirun, the process learns its rank from the launcher's
// environment, and rank 0 writes the id to a private file (mode 0600, written whole under
// another name and renamed) in the bootstrap folder the user names, which the other ranks
// wait for and read only when it is a regular file of theirs that nobody else can read.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "backend/collective_types.hpp"

namespace sdma::collective {

inline constexpr std::size_t kBootstrapIdBytes = 128;  // sizeof(ncclUniqueId)

struct ExternalRank {
  Launcher launcher = Launcher::Srun;
  int rank = 0;
  int world = 1;
  int localRank = 0;
  std::string jobKey;  // names this launch's files: [A-Za-z0-9._-], at most 64 characters
};

using EnvReader = std::function<std::optional<std::string>(const char* name)>;

// The launcher this process runs under (Slurm's srun, Open MPI's or MPICH's mpirun), from
// its environment; nullopt when none is found. `problem` says what is inconsistent (a rank
// out of range, a count that is not a number) when the variables are there but unusable.
// (Fuzzed, with bootstrapFile: native/fuzz/fuzz_launcher_env.cpp.)
std::optional<ExternalRank> detectExternalRank(const EnvReader& env, std::string& problem);

std::string toHex(const std::string& bytes);
// Exactly kBootstrapIdBytes * 2 hex digits; nullopt otherwise.
std::optional<std::string> idFromHex(std::string_view text);
// kBootstrapIdBytes from the kernel's random source (the simulated node's bootstrap id).
std::string randomId();

// The file of one variant's id in `dir`.
std::string bootstrapFile(const std::string& dir, const std::string& jobKey, const std::string& variant);
// Rank 0: the id, written whole and private. false with `why`.
bool writeBootstrapId(const std::string& path, const std::string& id, std::string& why);
// The other ranks: waits up to `timeout` (checking cancel) for the file, then reads it.
// false with `why` (timed out, not a regular file, owned by another user, readable by others,
// not an id). (Fuzzed, with idFromHex: native/fuzz/fuzz_bootstrap_id.cpp.)
bool readBootstrapId(const std::string& path, std::chrono::milliseconds timeout, std::string& id, std::string& why);

// A rank other than 0 says it has read the id (an empty private file beside it), so rank 0
// removes the id only once nobody still waits for it.
bool acknowledgeBootstrapId(const std::string& path, int rank, std::string& why);
// Rank 0: waits up to `timeout` for ranks 1..world-1 to acknowledge, then removes the id and
// the acknowledgements. false when some rank never did (the files are removed all the same).
bool retireBootstrapId(const std::string& path, int world, std::chrono::milliseconds timeout);

}  // namespace sdma::collective
