// The protocol's writer: every record the helper prints (docs/PROTOCOL.md) is built here, one
// method per record type, from the engine's and the readers' plain data.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.hpp"
#include "backend/collective_types.hpp"
#include "backend/run_records.hpp"
#include "backend/runtime_knobs.hpp"
#include "backend/timeline.hpp"
#include "util/json_writer.hpp"
#include "util/heartbeat.hpp"

namespace sdma {

enum class DoneStatus { Ok, Error, Cancelled };

// The protocol's records (docs/PROTOCOL.md), one method per record type. Each record is
// one line on stdout, flushed at once so a reader sees progress live and a crash loses
// at most the line being written.
class Reporter {
 public:
  // The newest Reporter is the one heartbeat() (util/heartbeat.hpp) writes to.
  explicit Reporter(std::FILE* out);
  ~Reporter();
  Reporter(const Reporter&) = delete;
  Reporter& operator=(const Reporter&) = delete;

  // `runtimeKnobs`: the variables the helper set before the backend opened (none: the field
  // is left out).
  void hello(std::optional<std::string_view> command, std::string_view backend, bool simulated,
             const std::vector<std::string>& backendsBuilt, const std::vector<RuntimeKnob>& runtimeKnobs = {});
  void topology(const Topology& topology);
  void progress(std::int64_t done, std::int64_t total, std::string_view message);
  void sample(const CopyRequest& request, const CopyMeasurement& measurement);
  // matrix: one GPU pair measured alone (counted as a sample in `done`).
  // With `concurrent`, the pair ran while every other pair of its path did (--concurrent).
  void matrixCell(const CopyRequest& request, const CopyMeasurement& measurement, bool concurrent = false);
  // matrix --concurrent: one path's pairs all at once, summed (not counted as a sample).
  struct GpuTotal {
    int gpu = 0;
    double sendGbps = 0;     // sum of the cells in its row (it is the source)
    double receiveGbps = 0;  // sum of the cells in its column (it is the destination)
  };
  // A cell's figure: size / median of the whole-ns times, as matrix-cell prints it.
  static double cellGbps(std::uint64_t sizeBytes, const std::vector<double>& timesNs);
  void matrixTotal(const CopyRequest& path, int pairs, std::int64_t iters, std::uint64_t bytes, double seconds,
                   const std::vector<GpuTotal>& gpus);
  // matrix: an `error` record that names the cell it belongs to; the run goes on.
  void cellError(const CopyRequest& request, std::string_view code, std::string_view message,
                 std::string_view hint = {}, std::string_view detail = {});
  // `src` and `dst`: the endpoints the timeline's copies ran between.
  void timelineFile(const std::string& path, std::uint64_t eventCount, std::uint64_t fileBytes, std::uint64_t sizeBytes,
                    const std::optional<TimelineClock>& clock, int src, int dst);
  void timelineInline(const TimelineEvents& events, std::uint64_t sizeBytes, const std::optional<TimelineClock>& clock,
                      int src, int dst);
  // A path that cannot exist between two endpoints, printed where its `points` samples would
  // have been (not counted as samples).
  void pathUnsupported(CopyPath path, int src, int dst, std::string_view reason, std::int64_t points);
  void warning(std::string_view code, std::string_view message);
  // A `heartbeat` record, when nothing was written for limits::heartbeatMs.
  void heartbeat();
  // `hint` says what the user can do about it (optional field).
  void error(std::string_view code, std::string_view message, std::string_view hint = {}, std::string_view detail = {});
  void done(DoneStatus status);

  // collective: a variant's library and environment, then each measured point.
  // `simulated`: the numbers come from the simulator's model.
  void collectiveVariant(const collective::VariantReport& variant, bool simulated);
  void collectivePoint(const collective::PointReport& point, bool simulated);
  // A rank process of a rank-per-process collective after its `points`-th point: the helper
  // that started the ranks passes a point on only when every rank got that far.
  void rankStep(int rank, std::int64_t points);
  // overlap: one phase of one compute (alone or beside a copy path).
  void overlap(const collective::OverlapReport& report, bool simulated);
  // collective on hardware runs each variant in a child sdma-probe; the parent passes on the
  // child's records (built by the child's Reporter, one complete line without its newline)
  // unchanged.
  void relay(std::string_view record);
  // A child's `sample` record, passed on unchanged and counted in done.samples.
  void relaySample(std::string_view record);

  // run and import (docs/PROFILE.md): the program's start and exit, its kernel dispatches,
  // copies and device spans, and the collective library's own per-call lines.
  void programStart(const std::vector<std::string>& argv, long pid);
  void programExit(const std::vector<std::string>& argv, long pid, const runmode::ProgramExit& exit);
  void dispatch(const runmode::DispatchRecord& dispatch);
  void copy(const runmode::CopyRecord& copy);
  void deviceSpan(const runmode::DeviceSpanRecord& span);
  void libraryCalls(const runmode::LibraryCalls& calls);

  std::int64_t samplesEmitted() const { return samples_; }

 private:
  // --fault garbage-after writes a record cut off mid-line, the one text not built here.
  friend class FaultInjector;

  JsonWriter& begin(std::string_view type);
  void emit();
  // Writes text as is and flushes it.
  void raw(std::string_view text);

  std::FILE* out_;
  JsonWriter json_;
  std::int64_t samples_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point lastWrite_;
};

}  // namespace sdma
