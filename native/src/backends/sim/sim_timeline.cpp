#include "backends/sim/sim_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "util/cancel.hpp"
#include "util/rng.hpp"
#include "backend/endpoints.hpp"
#include "backends/sim/copy_model.hpp"

namespace sdma::sim {

namespace {

// Distinguishes the timeline's random stream from the sweep's, so adding a timeline to a
// sweep leaves the sweep's numbers unchanged.
constexpr std::uint64_t kTimelineStream = 0x74696d656c696e65ull;  // "timeline"

// A copy smaller than the CU count leaves some CUs without a byte to move: they get no span.
int cusCarryingBytes(const TimelineRequest& request) {
  return static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(request.cus), request.sizeBytes));
}

struct Span {
  double startNs;
  double endNs;
};

class Layout {
 public:
  Layout(const Mi350xModel& model, const TimelineRequest& request, std::uint64_t seed, TimelineEvents& out)
      : model_(model), request_(request), rng_(mixSeed(seed, kTimelineStream)), out_(out) {}

  // Lays out `path` from startNs and returns when its iteration ends.
  double addPath(CopyPath path, double startNs) {
    switch (path) {
      case CopyPath::CuHost: {
        const double kernelStartNs = startNs + model_.hostLaunchNs;
        return addCuKernel(path, kernelStartNs, kernelStartNs, 0) + model_.hostSyncNs;
      }
      case CopyPath::CuDevice: {
        // A persistent kernel already runs: half the sync cost is waiting for the go flag,
        // half the completion barrier after the last store.
        const double halfSyncNs = model_.deviceSyncNs / 2;
        return addCuKernel(path, startNs, startNs + halfSyncNs, halfSyncNs);
      }
      case CopyPath::EngineHost: {
        const int packets = packetCount(model_, request_.sizeBytes, path);
        const double doorbellNs = startNs + model_.engineHostSubmitNs + packets * model_.packetIssueNs;
        return addPackets(path, doorbellNs, true) + model_.engineHostCompletionNs;
      }
      case CopyPath::EngineDevice: {
        // Drawn as a real AMD GPU draws it (GpuBackend::appendEvents): rocSHMEM writes the
        // packets and rings the doorbell inside the put call, so all a run observes is the
        // kernel, its issuing CU, the put returning and the completion. The doorbell and one
        // packet spanning the copy are placed from those, inferred, on the unknown-engine
        // lane; the modelled engines and packets only decide when the copy ends.
        const int packets = packetCount(model_, request_.sizeBytes, path);
        const double issuedNs = startNs + packets * model_.packetIssueNs;
        const double endNs = addPackets(path, issuedNs, false);
        add(EventKind::Kernel, PacketOp::None, path, 0, -1, startNs, endNs, -1,
            static_cast<double>(request_.sizeBytes));
        add(EventKind::Cu, PacketOp::None, path, 0, -1, startNs, issuedNs, -1, 0);
        add(EventKind::Doorbell, PacketOp::None, path, kEngineUnknown, out_.nextId() + 1, issuedNs, issuedNs, -1, 0,
            kEventInferred);
        add(EventKind::Packet, PacketOp::CopySignal, path, kEngineUnknown, -1, issuedNs, endNs, issuedNs,
            static_cast<double>(request_.sizeBytes), kEventInferred);
        return endNs;
      }
    }
    return startNs;
  }

 private:
  std::int32_t add(EventKind kind, PacketOp op, CopyPath path, std::uint32_t lane, std::int32_t ref, double startNs,
                   double endNs, double queuedNs, double bytes, std::uint8_t flags = 0) {
    TimelineEvent e;
    e.kind = kind;
    e.op = op;
    e.path = path;
    // Push copies: all activity is on src; a host <-> GPU copy's is on its GPU.
    e.gpu = static_cast<std::uint16_t>(workingGpu(request_.srcGpu, request_.dstGpu));
    e.lane = lane;
    e.ref = ref;
    // Whole nanoseconds, as the sweep reports them.
    e.startNs = std::round(startNs);
    e.endNs = std::round(endNs);
    e.queuedNs = queuedNs < 0 ? -1 : std::round(queuedNs);
    e.bytes = bytes;
    e.flags = flags;
    return out_.add(e);
  }

  // The kernel span plus one span per CU; returns the kernel's end.
  double addCuKernel(CopyPath path, double kernelStartNs, double copyStartNs, double tailNs) {
    const int cus = cusCarryingBytes(request_);
    const double gbpsPerCu = cuCopyGbps(model_, cus, route()) / cus;
    const std::uint64_t share = request_.sizeBytes / cus;
    const std::uint64_t remainder = request_.sizeBytes % cus;
    cuSpans_.clear();
    double lastEndNs = copyStartNs;
    for (int i = 0; i < cus; ++i) {
      const double bytes = static_cast<double>(share + (static_cast<std::uint64_t>(i) < remainder ? 1 : 0));
      const double startNs = copyStartNs + rng_.uniform(0, model_.cuStartSkewMaxNs);
      const double endNs = startNs + bytes / gbpsPerCu * (1 + rng_.uniform(-model_.cuEndJitter, model_.cuEndJitter));
      cuSpans_.push_back({startNs, endNs});
      lastEndNs = std::max(lastEndNs, endNs);
    }
    const double kernelEndNs = lastEndNs + tailNs;
    add(EventKind::Kernel, PacketOp::None, path, 0, -1, kernelStartNs, kernelEndNs, -1,
        static_cast<double>(request_.sizeBytes));
    const int cusPerXcd = model_.cusPerGpu / model_.xcdsPerGpu;
    for (int i = 0; i < cus; ++i) {
      // Workgroup i lands on XCD i % xcds, so the lanes show the copy spread over the dies.
      const int lane = (i % model_.xcdsPerGpu) * cusPerXcd + (i / model_.xcdsPerGpu) % cusPerXcd;
      const std::uint64_t bytes = share + (static_cast<std::uint64_t>(i) < remainder ? 1 : 0);
      add(EventKind::Cu, PacketOp::None, path, static_cast<std::uint32_t>(lane), -1, cuSpans_[i].startNs,
          cuSpans_[i].endNs, -1, static_cast<double>(bytes));
    }
    return kernelEndNs;
  }

  // One doorbell per engine, then that engine's packets back to back; returns the last end.
  // With `draw` false only the end is worked out: nothing is added.
  double addPackets(CopyPath path, double doorbellNs, bool draw) {
    const int packets = packetCount(model_, request_.sizeBytes, path);
    const int engines = std::min(model_.enginesPerCopy, packets);
    const double gbpsPerEngine = engineCopyGbps(model_, model_.enginesPerCopy, route()) / model_.enginesPerCopy;
    const std::uint64_t chunk = packetChunkFor(model_, path);
    const double queuedNs = doorbellNs + model_.doorbellNs;
    double lastEndNs = queuedNs;
    for (int engine = 0; engine < engines; ++engine) {
      // To or from host, the lane is the PCIe engine of the copy's direction.
      const auto lane = static_cast<std::uint32_t>(engineIdFor(model_, request_.srcGpu, request_.dstGpu, engine));
      // The doorbell goes first; its ref is the id its first packet is about to get.
      if (draw) add(EventKind::Doorbell, PacketOp::None, path, lane, out_.nextId() + 1, doorbellNs, doorbellNs, -1, 0);
      double startNs = queuedNs + model_.engineFixedNs;
      for (int packet = engine; packet < packets; packet += engines) {
        const std::uint64_t offset = static_cast<std::uint64_t>(packet) * chunk;
        const double bytes = static_cast<double>(std::min(chunk, request_.sizeBytes - offset));
        const double endNs = startNs + bytes / gbpsPerEngine;
        // gfx950 fuses copy + wait + signal: the last packet also signals completion.
        const PacketOp op = packet == packets - 1 ? PacketOp::CopySignal : PacketOp::Copy;
        if (draw) add(EventKind::Packet, op, path, lane, -1, startNs, endNs, queuedNs, bytes);
        lastEndNs = std::max(lastEndNs, endNs);
        startNs = endNs;
      }
    }
    return lastEndNs;
  }

  Route route() const { return routeOf(request_.srcGpu, request_.dstGpu); }

  const Mi350xModel& model_;
  const TimelineRequest& request_;
  Rng rng_;
  TimelineEvents& out_;
  std::vector<Span> cuSpans_;
};

std::uint64_t eventsPerIteration(const Mi350xModel& model, CopyPath path, const TimelineRequest& request) {
  const auto cuKernel = static_cast<std::uint64_t>(cusCarryingBytes(request)) + 1;
  const auto packets = static_cast<std::uint64_t>(packetCount(model, request.sizeBytes, path));
  const auto doorbells = std::min<std::uint64_t>(static_cast<std::uint64_t>(model.enginesPerCopy), packets);
  switch (path) {
    case CopyPath::CuHost:
    case CopyPath::CuDevice:
      return cuKernel;
    case CopyPath::EngineHost:
      return packets + doorbells;
    case CopyPath::EngineDevice:
      return 4;  // kernel, issuing CU, doorbell, packet
  }
  return 0;
}

}  // namespace

std::uint64_t simTimelineEventCount(const Mi350xModel& model, const TimelineRequest& request) {
  std::uint64_t perRepeat = 0;
  for (CopyPath path : request.paths) perRepeat += eventsPerIteration(model, path, request);
  return perRepeat * static_cast<std::uint64_t>(request.repeats);
}

RunStatus appendSimTimeline(const Mi350xModel& model, const TimelineRequest& request, std::uint64_t seed,
                            TimelineEvents& out) {
  out.reserve(out.size() + simTimelineEventCount(model, request));
  Layout layout(model, request, seed, out);
  double nowNs = 0;
  for (int repeat = 0; repeat < request.repeats; ++repeat) {
    if (cancel::requested()) return RunStatus::Cancelled;
    for (CopyPath path : request.paths) nowNs = layout.addPath(path, nowNs) + model.timelinePathGapNs;
  }
  return RunStatus::Ok;
}

}  // namespace sdma::sim
