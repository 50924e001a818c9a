#include "backend/mover_evidence.hpp"

namespace sdma {

std::string_view evidenceSourceName(EvidenceSource source) {
  switch (source) {
    case EvidenceSource::None:
      return "none";
    case EvidenceSource::KfdSdma:
      return "kfd-sdma";
    case EvidenceSource::Cupti:
      return "cupti";
    case EvidenceSource::RocshmemLog:
      return "rocshmem-log";
    case EvidenceSource::Simulated:
      return "simulated";
  }
  return "none";
}

std::string_view observedMoverName(ObservedMover mover) {
  switch (mover) {
    case ObservedMover::Unknown:
      return "unknown";
    case ObservedMover::Engine:
      return "engine";
    case ObservedMover::Cu:
      return "cu";
  }
  return "unknown";
}

std::string_view evidenceVerdictName(EvidenceVerdict verdict) {
  switch (verdict) {
    case EvidenceVerdict::Matches:
      return "matches";
    case EvidenceVerdict::Contradicts:
      return "contradicts";
    case EvidenceVerdict::NotObserved:
      return "not-observed";
  }
  return "not-observed";
}

EvidenceVerdict judgeEvidence(ObservedMover labelled, const MoverEvidence& evidence) {
  if (evidence.observed == ObservedMover::Unknown || labelled == ObservedMover::Unknown) {
    return EvidenceVerdict::NotObserved;
  }
  return evidence.observed == labelled ? EvidenceVerdict::Matches : EvidenceVerdict::Contradicts;
}

std::optional<std::string> moverMismatch(CopyPath labelled, const std::optional<MoverEvidence>& evidence) {
  if (!evidence || judgeEvidence(labelledMover(labelled), *evidence) != EvidenceVerdict::Contradicts) {
    return std::nullopt;
  }
  return "labelled " + std::string(moverName(labelled)) + ", but its evidence (" +
         std::string(evidenceSourceName(evidence->source)) + ") says " +
         std::string(observedMoverName(evidence->observed)) + " carried the bytes: " + evidence->detail;
}

MoverEvidence kfdEvidence(CopyPath labelled, std::uint64_t deltaUs, double engineUs) {
  MoverEvidence e;
  e.source = EvidenceSource::KfdSdma;
  e.sdmaUs = deltaUs;
  e.engineUs = engineUs;
  if (deltaUs > 0) {
    e.observed = ObservedMover::Engine;
    e.detail = "the KFD's SDMA activity counters moved by " + std::to_string(deltaUs) + " us";
    return e;
  }
  if (usesEngine(labelled) && !(engineUs >= kKfdSdmaResolutionUs)) {
    e.observed = ObservedMover::Unknown;
    e.detail =
        "the KFD's SDMA activity counters did not move, and the point's engine time is below their 1 us "
        "resolution";
    return e;
  }
  // A CU point leaves them still; an engine point that ran long enough to be counted and left
  // them still was not carried by SDMA.
  e.observed = ObservedMover::Cu;
  e.detail = "the KFD's SDMA activity counters did not move over the point";
  return e;
}

}  // namespace sdma
