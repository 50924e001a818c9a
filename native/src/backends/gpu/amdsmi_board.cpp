// AMD board telemetry through amd-smi: the calls, fields and units are those of <amd_smi/amdsmi.h>
// (ROCm/amdsmi include/amd_smi/amdsmi.h, now ROCm/rocm-systems projects/amdsmi; built in
// native/ci/rocm-sid.sh against Debian's libamd-smi-dev 10.1, AMDSMI_LIB_VERSION 27.1.0). ROCm 6.2
// (amd-smi 24.6) is the oldest it compiles with: 6.0 and 6.1 name the BDF bit-fields `fields.*`
// and lack AMDSMI_CLK_TYPE_GFX, and CMake leaves the reader out there (SDMA_HAVE_AMDSMI unset).
//   amdsmi_init(AMDSMI_INIT_AMD_GPUS) / amdsmi_shut_down: reference counted ("requires the same
//     number of inits as shutdowns"), so each board holds one of its own;
//   amdsmi_get_socket_handles, amdsmi_get_processor_handles, amdsmi_get_gpu_device_bdf: the GPU
//     whose BDF is HIP's PCI bus id;
//   amdsmi_get_gpu_metrics_info (amdsmi_gpu_metrics_t): clocks in MHz, socket power in W,
//     indep_throttle_status and the throttle residency counters. One table read per sample:
//     amdsmi_get_clock_info and amdsmi_get_power_info read the same table again each
//     (src/amd_smi/amd_smi.cc), so they are only the fallback where the table cannot be read;
//   amdsmi_get_power_cap_info (amdsmi_power_cap_info_t::power_cap): the cap, in uW on bare-metal
//     Linux.
// Nothing here calls an amdsmi_set_* or amdsmi_reset_* function.
#include "backends/gpu/amdsmi_board.hpp"

#include <amd_smi/amdsmi.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <set>
#include <type_traits>
#include <utility>
#include <vector>

namespace sdma::gpu {
namespace {

std::string statusText(amdsmi_status_t status) {
  const char* text = nullptr;
  if (amdsmi_status_code_to_string(status, &text) == AMDSMI_STATUS_SUCCESS && text != nullptr) return text;
  return "amd-smi status " + std::to_string(static_cast<long long>(status));
}

// A gpu metrics field this board's table does not carry holds its type's maximum (amdsmi.h,
// amdsmi_gpu_metrics_t: "Callers should check the version and treat maximum values as
// invalid/not applicable").
template <typename T>
bool present(T value) {
  return value != std::numeric_limits<T>::max();
}

// Members a current amdsmi.h has and an older one may not: detected, so that the reader builds
// against either and reads what is there.
template <typename M, typename = void>
struct HasGfxClocks : std::false_type {};
template <typename M>
struct HasGfxClocks<M, std::void_t<decltype(std::declval<M&>().current_gfxclks)>> : std::true_type {};
template <typename M, typename = void>
struct HasCurrentPower : std::false_type {};
template <typename M>
struct HasCurrentPower<M, std::void_t<decltype(std::declval<M&>().current_socket_power)>> : std::true_type {};
template <typename M, typename = void>
struct HasIndependentThrottle : std::false_type {};
template <typename M>
struct HasIndependentThrottle<M, std::void_t<decltype(std::declval<M&>().indep_throttle_status)>> : std::true_type {};
template <typename M, typename = void>
struct HasResidency : std::false_type {};
template <typename M>
struct HasResidency<
    M, std::void_t<
           decltype(std::declval<M&>().accumulation_counter), decltype(std::declval<M&>().ppt_residency_acc),
           decltype(std::declval<M&>().socket_thm_residency_acc), decltype(std::declval<M&>().vr_thm_residency_acc),
           decltype(std::declval<M&>().hbm_thm_residency_acc), decltype(std::declval<M&>().prochot_residency_acc)>>
    : std::true_type {};

// The GFX clock: from table v1.4 on (MI300 and later) one per XCD in current_gfxclks[], whose
// mean is the figure here; earlier tables have the one current_gfxclk. A zero is a clock
// the table left unfilled, not a reading.
template <typename M>
std::optional<double> gfxMHz(const M& m) {
  if constexpr (HasGfxClocks<M>::value) {
    double sum = 0;
    int count = 0;
    for (const auto clock : m.current_gfxclks) {
      if (present(clock) && clock != 0) {
        sum += clock;
        ++count;
      }
    }
    if (count > 0) return sum / count;
  }
  if (present(m.current_gfxclk) && m.current_gfxclk != 0) return static_cast<double>(m.current_gfxclk);
  return std::nullopt;
}

// Socket power in W: the instant reading (current_socket_power, table v1.4 on: MI300 and later)
// where the board has it, else the average (average_socket_power, earlier boards).
template <typename M>
std::optional<double> powerW(const M& m) {
  if constexpr (HasCurrentPower<M>::value) {
    if (present(m.current_socket_power) && m.current_socket_power != 0) {
      return static_cast<double>(m.current_socket_power);
    }
  }
  if (present(m.average_socket_power) && m.average_socket_power != 0) {
    return static_cast<double>(m.average_socket_power);
  }
  return std::nullopt;
}

// indep_throttle_status: the ASIC-independent throttler bits the amdgpu driver fills in
// (torvalds/linux drivers/gpu/drm/amd/pm/swsmu/inc/amdgpu_smu.h, SMU_THROTTLER_*_BIT), grouped
// by cause. throttle_status, the ASIC-specific word beside it, differs per board and is not read.
struct ThrottleBits {
  int first, last;
  const char* name;
};
constexpr ThrottleBits kThrottleBits[] = {
    {0, 7, "power-cap"},        // PPT0-3, SPL, FPPT, SPPT, SPPT_APU: package power limits
    {16, 23, "current-limit"},  // TDC_GFX/SOC/MEM/VDD/CVIP, EDC_CPU/GFX, APCC
    {32, 43, "thermal"},        // TEMP_GPU, _CORE, _MEM, _EDGE, _HOTSPOT, _SOC, _VR_*, _LIQUID*
    {44, 45, "vr-hot"},         // VRHOT0-1
    {46, 47, "prochot"},        // PROCHOT_CPU, PROCHOT_GFX
    {56, 56, "ppm"},            // PPM
    {57, 57, "fit"},            // FIT (reliability)
};

template <typename M>
void independentReasons(const M& m, std::set<std::string>& reasons) {
  if constexpr (HasIndependentThrottle<M>::value) {
    const std::uint64_t bits = m.indep_throttle_status;
    if (!present(bits)) return;
    for (const auto& group : kThrottleBits) {
      for (int bit = group.first; bit <= group.last; ++bit) {
        if ((bits >> bit) & 1u) reasons.insert(group.name);
      }
    }
  }
}

// MI300 and later (table v1.6 on) count throttling instead: a residency counter per cause,
// against accumulation_counter; a counter that rose between two reads was active between
// them (amdsmi.h, amdsmi_gpu_metrics_t: "PVIOL % = (PptResidencyAcc (B) - PptResidencyAcc (A))
// * 100 / (AccumulationCounter (B) - AccumulationCounter (A))", greater than 0 is a violation).
constexpr const char* kResidencyNames[] = {"power-cap", "thermal", "vr-thermal", "hbm-thermal", "prochot"};

template <typename M>
std::optional<std::array<std::uint64_t, 6>> residencyOf(const M& m) {
  if constexpr (HasResidency<M>::value) {
    if (!present(m.accumulation_counter) || m.accumulation_counter == 0) return std::nullopt;
    // Each against its own type's maximum; an absent counter is stored as UINT64_MAX.
    const auto value = [](auto field) -> std::uint64_t {
      return present(field) ? static_cast<std::uint64_t>(field) : std::numeric_limits<std::uint64_t>::max();
    };
    return std::array<std::uint64_t, 6>{value(m.accumulation_counter),     value(m.ppt_residency_acc),
                                        value(m.socket_thm_residency_acc), value(m.vr_thm_residency_acc),
                                        value(m.hbm_thm_residency_acc),    value(m.prochot_residency_acc)};
  } else {
    (void)m;
    return std::nullopt;
  }
}

// "0000:c1:00.0" (domain:bus:device.function, hex, as hipDeviceGetPCIBusId prints it) or the
// same without the domain.
bool parseBusId(const std::string& text, unsigned& domain, unsigned& bus, unsigned& device, unsigned& function) {
  char extra = 0;
  if (std::sscanf(text.c_str(), "%x:%x:%x.%x%c", &domain, &bus, &device, &function, &extra) == 4) return true;
  domain = 0;
  return std::sscanf(text.c_str(), "%x:%x.%x%c", &bus, &device, &function, &extra) == 3;
}

// amdsmi_bdf_t's bit-fields (unnamed in the union from ROCm 6.2's amdsmi.h on).
struct Bdf {
  unsigned long long domain;
  unsigned bus, device, function;
};

Bdf bdfOf(const amdsmi_bdf_t& bdf) {
  return Bdf{static_cast<unsigned long long>(bdf.domain_number), static_cast<unsigned>(bdf.bus_number),
             static_cast<unsigned>(bdf.device_number), static_cast<unsigned>(bdf.function_number)};
}

std::string bdfText(const Bdf& bdf) {
  char text[40];
  std::snprintf(text, sizeof text, "%04llx:%02x:%02x.%x", bdf.domain, bdf.bus, bdf.device, bdf.function);
  return text;
}

// A clock of amdsmi_clk_info_t, MHz; UINT32_MAX when unavailable (amdsmi.h).
std::optional<double> clockMHz(amdsmi_processor_handle processor, amdsmi_clk_type_t type) {
  amdsmi_clk_info_t info{};
  if (amdsmi_get_clock_info(processor, type, &info) != AMDSMI_STATUS_SUCCESS) return std::nullopt;
  if (!present(info.clk) || info.clk == 0) return std::nullopt;
  return static_cast<double>(info.clk);
}

}  // namespace

AmdSmiBoard::~AmdSmiBoard() {
  if (initialised_) amdsmi_shut_down();
}

bool AmdSmiBoard::open(const std::string& pciBusId, std::string& why) {
  processor_ = nullptr;
  residency_.reset();
  powerCapW_.reset();
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  if (!parseBusId(pciBusId, domain, bus, device, function)) {
    why = "the PCI bus id '" + pciBusId + "' is not domain:bus:device.function";
    return false;
  }
  if (!initialised_) {
    const amdsmi_status_t status = amdsmi_init(AMDSMI_INIT_AMD_GPUS);
    if (status != AMDSMI_STATUS_SUCCESS) {
      why = "amdsmi_init(AMDSMI_INIT_AMD_GPUS) failed: " + statusText(status);
      return false;
    }
    initialised_ = true;
  }

  std::uint32_t socketCount = 0;
  amdsmi_status_t status = amdsmi_get_socket_handles(&socketCount, nullptr);
  std::vector<amdsmi_socket_handle> sockets(socketCount);
  if (status == AMDSMI_STATUS_SUCCESS && socketCount > 0) {
    status = amdsmi_get_socket_handles(&socketCount, sockets.data());
    sockets.resize(std::min<std::size_t>(socketCount, sockets.size()));
  }
  if (status != AMDSMI_STATUS_SUCCESS) {
    why = "amdsmi_get_socket_handles failed: " + statusText(status);
    return false;
  }
  std::vector<std::string> seen;
  for (amdsmi_socket_handle socket : sockets) {
    std::uint32_t count = 0;
    if (amdsmi_get_processor_handles(socket, &count, nullptr) != AMDSMI_STATUS_SUCCESS || count == 0) continue;
    std::vector<amdsmi_processor_handle> processors(count);
    if (amdsmi_get_processor_handles(socket, &count, processors.data()) != AMDSMI_STATUS_SUCCESS) continue;
    processors.resize(std::min<std::size_t>(count, processors.size()));
    for (amdsmi_processor_handle processor : processors) {
      amdsmi_bdf_t bdf{};
      if (amdsmi_get_gpu_device_bdf(processor, &bdf) != AMDSMI_STATUS_SUCCESS) continue;
      const Bdf at = bdfOf(bdf);
      seen.push_back(bdfText(at));
      if (at.domain == domain && at.bus == bus && at.device == device && at.function == function) {
        processor_ = processor;
      }
    }
  }
  if (processor_ == nullptr) {
    std::string list;
    for (const auto& s : seen) list += (list.empty() ? "" : ", ") + s;
    why = "amd-smi has no GPU at " + pciBusId + " (" +
          (seen.empty() ? std::string("it sees no AMD GPU") : "it sees " + list) + ")";
    return false;
  }
  // The first read: the power cap, and the residency counters the next sample() compares with.
  (void)sample();
  return true;
}

void AmdSmiBoard::refreshPowerCap() {
  const auto now = std::chrono::steady_clock::now();
  // The cap changes only when someone sets it: read at most once a second, not every sample.
  if (powerCapW_ && now - powerCapRead_ < std::chrono::seconds(1)) return;
  powerCapRead_ = now;
  amdsmi_power_cap_info_t info{};
  if (amdsmi_get_power_cap_info(static_cast<amdsmi_processor_handle>(processor_), 0, &info) != AMDSMI_STATUS_SUCCESS ||
      info.power_cap == 0 || !present(info.power_cap)) {
    powerCapW_.reset();
    return;
  }
  // uW on bare-metal Linux, W on a virtualization host (amdsmi.h, amdsmi_power_cap_info_t). No
  // board's cap is under 0.1 W or over 100 kW, so the magnitude tells them apart (a guard, in
  // case a library build reports the host's unit).
  const double value = static_cast<double>(info.power_cap);
  powerCapW_ = value >= 100000.0 ? value / 1e6 : value;
}

BoardSample AmdSmiBoard::sample() {
  BoardSample s;
  if (processor_ == nullptr) return s;
  const auto processor = static_cast<amdsmi_processor_handle>(processor_);
  std::set<std::string> reasons;
  amdsmi_gpu_metrics_t metrics{};
  if (amdsmi_get_gpu_metrics_info(processor, &metrics) == AMDSMI_STATUS_SUCCESS) {
    s.gfxMHz = gfxMHz(metrics);
    if (present(metrics.current_uclk) && metrics.current_uclk != 0) {
      s.memMHz = static_cast<double>(metrics.current_uclk);
    }
    s.powerW = powerW(metrics);
    independentReasons(metrics, reasons);
    const auto now = residencyOf(metrics);
    if (now && residency_) {
      for (std::size_t i = 1; i < now->size(); ++i) {
        const std::uint64_t before = (*residency_)[i], after = (*now)[i];
        if (present(before) && present(after) && after > before) reasons.insert(kResidencyNames[i - 1]);
      }
    }
    residency_ = now;
  } else {
    // No metrics table: the per-quantity calls (each reads what the driver gives it).
    s.gfxMHz = clockMHz(processor, AMDSMI_CLK_TYPE_GFX);
    s.memMHz = clockMHz(processor, AMDSMI_CLK_TYPE_MEM);
    amdsmi_power_info_t power{};
    if (amdsmi_get_power_info(processor, &power) == AMDSMI_STATUS_SUCCESS) {
      // W; unsupported members are UINT32_MAX (amdsmi.h), 0xFFFF in older libraries.
      const std::uint64_t readings[] = {power.current_socket_power, power.average_socket_power};
      for (const std::uint64_t watts : readings) {
        if (watts != 0 && watts != 0xFFFF && watts != 0xFFFFFFFF) {
          s.powerW = static_cast<double>(watts);
          break;
        }
      }
    }
  }
  refreshPowerCap();
  s.powerLimitW = powerCapW_;
  s.throttleReasons.assign(reasons.begin(), reasons.end());
  return s;
}

}  // namespace sdma::gpu
