// Reading CUPTI's activity records without depending on which CUPTI wrote them.
//
// A record's layout is the newest struct of its kind in the CUPTI that writes it (CUDA 12.6:
// CUpti_ActivityMemcpy5, 12.8 and 13.0: CUpti_ActivityMemcpy6), and sdma-probe runs against
// whichever libcupti it finds, not the headers it was built with. So only fields whose offsets
// are the same in every version read here are read, at those offsets; cupti_layout.cpp checks
// them against the structs of the header it is built with (docs/PROFILE.md, "Loading CUPTI").
#pragma once

#include <cupti.h>

#include <cstdint>
#include <optional>

#include "cupti/cupti_record.hpp"

namespace sdma::cupti {

// The fields of a MEMCPY, MEMCPY2, KERNEL or CONCURRENT_KERNEL record; nullopt for any other
// kind. `cuptiVersion`: the loaded library's cuptiGetVersion, which says whether the memcpy
// records carry channel fields (kFirstVersionWithChannels, cupti_loader.hpp).
std::optional<ActivityRecord> decodeRecord(const CUpti_Activity* record, std::uint32_t cuptiVersion);

}  // namespace sdma::cupti
