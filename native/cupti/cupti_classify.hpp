// What the CUPTI records of one point's untimed evidence pass say moved its bytes
// (docs/MEASUREMENT.md, "What moved the bytes"). Pure: it reads a list of records, so it is
// tested on machines without CUDA (native/tests/cupti_classify_test.cpp).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "backend/mover_evidence.hpp"
#include "cupti/cupti_record.hpp"

namespace sdma::cupti {

struct EvidencePass {
  std::uint64_t sizeBytes = 0;  // the point's size: one copy's bytes
  int src = 0, dst = 1;         // endpoints (kHostEndpoint: pinned host memory)
  // The pass's window on CUPTI's clock (cuptiGetTimestamp around its batch of copies): only
  // records that start and end inside it count. The pattern fill, the check and the readbacks
  // around the batch fall outside.
  std::uint64_t windowBeginNs = 0, windowEndNs = 0;
  std::uint64_t dropped = 0;  // records CUPTI reported dropped during the pass
  // --engines / --batch: the copy ran as pieces of these sizes, each a memcpy record of its own
  // (a record of the whole size counts too, should a batched call be recorded as one; empty:
  // one copy of sizeBytes). The detail then counts the distinct async-memcpy channels
  // the pieces ran on: how many copy engines worked on the copy as CUPTI saw it.
  std::vector<std::uint64_t> pieceBytes;
};

// The copy kinds CUPTI gives an engine copy between these endpoints: HtoD, DtoH, DtoD on one
// GPU, and PtoP between two (or DtoD, as a copy between two GPUs' unified addresses may be
// recorded).
std::vector<std::uint8_t> engineCopyKinds(int src, int dst);

// A kernel CUPTI names (mangled or not) is one of the helper's copy kernels (copyKernel,
// deviceCopyKernel in backends/gpu/gpu_kernels.hpp): the CU paths' copies, and what
// --fault mislabel-after runs under an engine label. The identifier is matched whole.
bool isHelperCopyKernel(std::string_view name);
// Its short name ("copyKernel"), or empty when it is none.
std::string_view helperCopyKernelName(std::string_view name);

// Engine: memcpy record(s) of the point's size and an expected kind on an async-memcpy
// channel (or, from a CUPTI whose records carry no channel, the copy record alone), and no
// helper copy kernel. CU: the helper's copy kernel and no memcpy of the point's size.
// Anything else (a copy on a compute channel, another kind, both, neither) is Unknown,
// with what was seen in the detail. Never an error.
MoverEvidence classifyPass(const EvidencePass& pass, const std::vector<ActivityRecord>& records);

}  // namespace sdma::cupti
