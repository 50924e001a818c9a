#include "cupti/cupti_classify.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include "backend/backend.hpp"

namespace sdma::cupti {
namespace {

constexpr std::string_view kHelperCopyKernels[] = {"deviceCopyKernel", "copyKernel"};

bool identifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// `name` holds `id` as a whole identifier: preceded by its length (mangled,
// "_ZN4sdma3gpu10copyKernelE...", where the length fixes where it ends), or bounded by
// non-identifier characters (demangled, "sdma::gpu::copyKernel(...)").
bool holdsIdentifier(std::string_view name, std::string_view id) {
  const std::string length = std::to_string(id.size());
  for (std::size_t pos = name.find(id); pos != std::string_view::npos; pos = name.find(id, pos + 1)) {
    const std::size_t end = pos + id.size();
    if (pos >= length.size() && name.substr(pos - length.size(), length.size()) == length) return true;
    const bool bounded =
        (pos == 0 || !identifierChar(name[pos - 1])) && (end == name.size() || !identifierChar(name[end]));
    if (bounded) return true;
  }
  return false;
}

bool inside(const ActivityRecord& r, const EvidencePass& pass) {
  if (r.startNs == 0 && r.endNs == 0) return false;  // no timestamps: cannot be placed
  return r.startNs >= pass.windowBeginNs && r.endNs <= pass.windowEndNs && r.startNs <= r.endNs;
}

std::string plural(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "DtoD", or "DtoD+PtoP" where the records differ.
std::string kindsOf(const std::vector<const ActivityRecord*>& copies) {
  std::set<std::string_view> names;
  for (const ActivityRecord* r : copies) names.insert(copyKindName(r->copyKind));
  std::string out;
  for (std::string_view n : names) out += (out.empty() ? "" : "+") + std::string(n);
  return out;
}

}  // namespace

std::vector<std::uint8_t> engineCopyKinds(int src, int dst) {
  if (isHost(src) && isHost(dst)) return {copy_kind::kHtoH};
  if (isHost(src)) return {copy_kind::kHtoD};
  if (isHost(dst)) return {copy_kind::kDtoH};
  if (src == dst) return {copy_kind::kDtoD};
  return {copy_kind::kPtoP, copy_kind::kDtoD};
}

std::string_view helperCopyKernelName(std::string_view name) {
  for (std::string_view id : kHelperCopyKernels) {
    if (holdsIdentifier(name, id)) return id;
  }
  return {};
}

bool isHelperCopyKernel(std::string_view name) { return !helperCopyKernelName(name).empty(); }

MoverEvidence classifyPass(const EvidencePass& pass, const std::vector<ActivityRecord>& records) {
  MoverEvidence e;
  e.source = EvidenceSource::Cupti;
  e.observed = ObservedMover::Unknown;

  std::vector<const ActivityRecord*> copies, kernels;
  std::uint64_t inWindow = 0, outside = 0;
  for (const ActivityRecord& r : records) {
    if (!inside(r, pass)) {
      ++outside;
      continue;
    }
    ++inWindow;
    const bool ofPoint = r.bytes == pass.sizeBytes ||
                         std::find(pass.pieceBytes.begin(), pass.pieceBytes.end(), r.bytes) != pass.pieceBytes.end();
    if (r.type == RecordType::Memcpy && ofPoint) copies.push_back(&r);
    if (r.type == RecordType::Kernel && isHelperCopyKernel(r.name)) kernels.push_back(&r);
  }
  const std::string sizeText = pass.pieceBytes.empty() ? std::to_string(pass.sizeBytes) + " bytes"
                                                       : "the " + std::to_string(pass.pieceBytes.size()) +
                                                             " pieces of " + std::to_string(pass.sizeBytes) + " bytes";
  e.records = copies.size() + kernels.size();

  if (!kernels.empty()) {
    e.kernel = kernels.front()->name;
    const std::string launches = "the copy kernel " + std::string(helperCopyKernelName(kernels.front()->name)) + " (" +
                                 plural(kernels.size(), "launch", "launches") + ")";
    if (copies.empty()) {
      e.observed = ObservedMover::Cu;
      e.detail = "CUPTI: " + launches + " and no memcpy of " + sizeText + " inside the pass";
      return e;
    }
    e.copyKind = kindsOf(copies);
    e.detail = "CUPTI: both " + plural(copies.size(), "memcpy record ", "memcpy records ") + *e.copyKind + " and " +
               launches + " inside the pass: not one mover";
    return e;
  }

  if (copies.empty()) {
    e.detail = "CUPTI: no memcpy of " + sizeText + " and no copy kernel inside the pass (" +
               plural(inWindow, "record", "records") + " in its window, " + std::to_string(outside) + " outside";
    if (pass.dropped > 0) e.detail += ", " + std::to_string(pass.dropped) + " dropped";
    e.detail += ")";
    return e;
  }

  const std::string kinds = kindsOf(copies);
  e.copyKind = kinds;
  const std::string counted = "CUPTI: " + plural(copies.size(), "memcpy record ", "memcpy records ") + kinds;
  const std::vector<std::uint8_t> expected = engineCopyKinds(pass.src, pass.dst);
  const bool kindOk = std::all_of(copies.begin(), copies.end(), [&](const ActivityRecord* r) {
    return std::find(expected.begin(), expected.end(), r->copyKind) != expected.end();
  });
  if (!kindOk) {
    std::string want;
    for (std::uint8_t k : expected) want += (want.empty() ? "" : " or ") + std::string(copyKindName(k));
    e.detail = counted + " where " + want + " was expected: not this point's copy";
    return e;
  }

  // The channels the copies ran on. A CUPTI without channel fields, or one that reports an
  // invalid or unknown channel type, leaves only the copy record to go by.
  std::set<std::uint32_t> types, ids;
  bool unreported = false;
  for (const ActivityRecord* r : copies) {
    const bool known =
        r->channelType && (*r->channelType == channel_type::kCompute || *r->channelType == channel_type::kAsyncMemcpy);
    if (!known) {
      unreported = true;
      continue;
    }
    types.insert(*r->channelType);
    if (r->channelId) ids.insert(*r->channelId);
  }
  if (types.empty()) {
    e.observed = ObservedMover::Engine;
    e.detail = counted + " (this CUPTI reports no channel: seen by the copy record only)";
    return e;
  }
  std::string idText;
  for (std::uint32_t id : ids) idText += (idText.empty() ? " " : ", ") + std::to_string(id);
  if (types.size() == 1 && *types.begin() == channel_type::kAsyncMemcpy && !unreported) {
    e.observed = ObservedMover::Engine;
    e.channelType = std::string(channelTypeName(channel_type::kAsyncMemcpy));
    if (!ids.empty()) e.channelId = *ids.begin();
    e.detail = counted + ", channel" + (ids.size() > 1 ? "s " : " ") + "async-memcpy" + idText;
    if (!pass.pieceBytes.empty() && !ids.empty()) {
      e.detail += "; " + plural(ids.size(), "distinct async-memcpy channel", "distinct async-memcpy channels") +
                  " carried the " + std::to_string(pass.pieceBytes.size()) + " pieces";
    }
    return e;
  }
  // On the compute channel (or a mix): the driver queued the copy where kernels run, and
  // CUPTI does not say whether SMs or an engine carried it.
  e.channelType = types.size() == 1 && !unreported ? std::string(channelTypeName(*types.begin())) : "mixed";
  if (!ids.empty()) e.channelId = *ids.begin();
  e.detail = counted + ", channel" + (ids.size() > 1 ? "s " : " ") + *e.channelType + idText +
             ": not an async copy engine's channel, and CUPTI does not say whether SMs or an engine carried it";
  return e;
}

}  // namespace sdma::cupti
