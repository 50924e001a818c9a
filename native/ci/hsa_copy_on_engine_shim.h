// Compile-check only: Debian's HSA headers (interface 1.0) predate the per-engine copy API,
// so CI declares it here, with the signatures of ROCm's hsa_ext_amd.h (interface 1.2+), to
// compile the code behind SDMA_HAVE_COPY_ON_ENGINE. Never used for a real build.
#pragma once
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#define SDMA_HAVE_COPY_ON_ENGINE 1
extern "C" {
typedef enum hsa_amd_sdma_engine_id { HSA_AMD_SDMA_ENGINE_0 = 0x1 } hsa_amd_sdma_engine_id_t;
hsa_status_t hsa_amd_memory_async_copy_on_engine(void* dst, hsa_agent_t dst_agent, const void* src,
                                                 hsa_agent_t src_agent, size_t size, uint32_t num_dep_signals,
                                                 const hsa_signal_t* dep_signals, hsa_signal_t completion_signal,
                                                 hsa_amd_sdma_engine_id_t engine_id, bool force_copy_on_sdma);
hsa_status_t hsa_amd_memory_copy_engine_status(hsa_agent_t dst_agent, hsa_agent_t src_agent, uint32_t* engine_ids_mask);
}
