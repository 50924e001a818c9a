// What moved a sample's bytes, as the platform saw it (docs/MEASUREMENT.md, "What moved the
// bytes"): the evidence a backend gathers around a measurement point, and the verdict of that
// evidence against the sample's label.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "backend/copy_path.hpp"

namespace sdma {

// Where the evidence came from.
enum class EvidenceSource : std::uint8_t {
  None,         // the platform gives none for this path here
  KfdSdma,      // AMD: the KFD's per-process SDMA activity counters, before and after the point
  Cupti,        // NVIDIA: an untimed CUPTI activity pass of the same point
  RocshmemLog,  // AMD engine/device: rocSHMEM's own SDMA initialisation log line
  Simulated,    // the simulator's model (never a claim about hardware)
};

// What the evidence says carried the bytes.
enum class ObservedMover : std::uint8_t {
  Unknown,  // nothing observed (no evidence, or below what the source resolves)
  Engine,   // a DMA copy engine (SDMA / copy engine)
  Cu,       // compute units (a copy kernel, a blit kernel)
};

enum class EvidenceVerdict : std::uint8_t { Matches, Contradicts, NotObserved };

struct MoverEvidence {
  EvidenceSource source = EvidenceSource::None;
  ObservedMover observed = ObservedMover::Unknown;
  std::string detail;  // one line, what was seen (cut to kMoverDetailBytes when printed)
  // Source-specific facts (unset: not printed).
  std::optional<std::string> copyKind;     // CUPTI: HtoD, DtoH, DtoD, PtoP, ...
  std::optional<std::string> channelType;  // CUPTI: async-memcpy, compute, unknown
  std::optional<std::uint32_t> channelId;  // CUPTI: the hardware channel
  std::optional<std::string> kernel;       // a kernel that carried the copy (CUPTI) or ran it
  std::optional<std::uint64_t> records;    // CUPTI: copy records seen in the pass
  std::optional<std::uint64_t> sdmaUs;     // KFD: the counters' change over the point, microseconds
  std::optional<double> engineUs;          // KFD: the point's engine time the change is held to
};

inline constexpr std::size_t kMoverDetailBytes = 256;

// The KFD counters count in microseconds (SDMA_ACTIVITY_DIVISOR in the kernel's
// drivers/gpu/drm/amd/amdkfd/kfd_priv.h: a 100 MHz counter divided by 100, shown by
// kfd_procfs_show in kfd_process.c).
inline constexpr double kKfdSdmaResolutionUs = 1.0;

std::string_view evidenceSourceName(EvidenceSource source);
std::string_view observedMoverName(ObservedMover mover);
std::string_view evidenceVerdictName(EvidenceVerdict verdict);

// The label's mover against what was observed: Unknown is NotObserved, never an error.
EvidenceVerdict judgeEvidence(ObservedMover labelled, const MoverEvidence& evidence);
inline ObservedMover labelledMover(CopyPath path) {
  return usesEngine(path) ? ObservedMover::Engine : ObservedMover::Cu;
}

// When the evidence contradicts the label: what it saw, for the `mover-mismatch` error
// ("... was labelled engine, but <detail>"); nullopt otherwise.
std::optional<std::string> moverMismatch(CopyPath labelled, const std::optional<MoverEvidence>& evidence);
inline constexpr std::string_view kMoverMismatchHint =
    "the sample's label is not what moved its bytes: no figure of it can be trusted as that path. Check the "
    "runtime's copy settings (docs/MEASUREMENT.md, \"What moved the bytes\"), or drop --fault mislabel-after";

// The KFD counters' change over one point, read as evidence (pure; kfd_sdma.hpp reads them):
// an engine point must move them and a CU point must not. A zero change where the point's
// engine time is below the counters' resolution is not observed. `engineUs`: the point's
// time on the engine (its copies' total time); `deltaUs`: the counters' change, summed over
// the GPUs the copy touched.
MoverEvidence kfdEvidence(CopyPath labelled, std::uint64_t deltaUs, double engineUs);

}  // namespace sdma
