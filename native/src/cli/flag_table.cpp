// The flag table of every subcommand: each row is a flag, its other spellings, whether it
// takes a value, the bounds of that value (from native/src/limits.json where the extension
// reads the same bound) and what reads it. info, sweep and matrix rows write straight into
// Options (cli/args.hpp); run, import, collective and overlap rows hand the value to the
// subcommand's flag(), after the row's check where it has one.
#include "cli/flag_table.hpp"

#include "cli/args.hpp"
#include "sdma_limits.hpp"

namespace sdma::cli {

namespace {

// A field of Options, or of the timeline flags inside it, set by a reader.
template <auto Read, auto Member>
constexpr FlagSetter option = &setField<Read, Member>;
template <auto Read, auto Member>
constexpr FlagSetter timelineOption = &setField<Read, &Options::timelineFlags, Member>;

FlagSpec backendFlag() { return flag("--backend").sets(option<readBackend, &Options::backend>); }
FlagSpec simGpusFlag() {
  return flag("--sim-gpus").range(1, SDMA_LIMIT(simGpusMax)).sets(option<readInt, &Options::simGpus>);
}
FlagSpec simWeakFlag() {
  return flag("--sim-weak")
      .atMost(SDMA_LIMIT(listLengthMax))
      .keeping("simWeakFactorMax simWeakKinds")
      .sets(appendSimWeak);
}

void setCus(const FlagSpec& spec, std::string_view text, void* target) {
  Options& options = *static_cast<Options*>(target);
  options.cus = readCuList(spec, text);
  options.cusGiven = true;
}

// matrix --size: the one size of every cell.
void setSingleSize(const FlagSpec& spec, std::string_view text, void* target) {
  static_cast<Options*>(target)->sizesBytes = {readSize(spec, text)};
}

// The flags sweep and matrix share.
std::vector<FlagSpec> copyFlags() {
  return {
      flag("--paths").sets(option<readPathList, &Options::paths>),
      flag("--cus").atMost(SDMA_LIMIT(listLengthMax)).keeping("cusMax").sets(setCus),
      flag("--iters").range(1, SDMA_LIMIT(itersMax)).sets(option<readInt, &Options::iters>),
      flag("--warmup").range(0, SDMA_LIMIT(warmupMax)).sets(option<readInt, &Options::warmupIters>),
      flag("--seed").sets(option<readSeed, &Options::seed>),
      flag("--sim-delay-ms").range(0, SDMA_LIMIT(simDelayMsMax)).sets(option<readInt, &Options::simDelayMs>),
      flag("--fault").keeping("faultAfterMax faultKinds").sets(option<readFault, &Options::fault>),
      flag("--target-ms").range(0, SDMA_LIMIT(targetMsMax)).sets(option<readInt, &Options::targetMs>),
  };
}

std::vector<FlagSpec> joined(std::vector<FlagSpec> rows, const std::vector<FlagSpec>& more) {
  rows.insert(rows.end(), more.begin(), more.end());
  return rows;
}

}  // namespace

const std::vector<FlagSpec>& infoFlags() {
  static const std::vector<FlagSpec> rows = {backendFlag(), simGpusFlag()};
  return rows;
}

const std::vector<FlagSpec>& sweepFlags() {
  static const std::vector<FlagSpec> rows = joined(
      joined({backendFlag(), simGpusFlag(), simWeakFlag(),
              flag("--sizes")
                  .atMost(SDMA_LIMIT(listLengthMax))
                  .keeping("sizeBytesMax")
                  .sets(option<readSizeList, &Options::sizesBytes>)},
             copyFlags()),
      {
          flag("--src").keeping("gpuIndexMax").sets(option<readEndpoint, &Options::src>),
          flag("--dst").keeping("gpuIndexMax").sets(option<readEndpoint, &Options::dst>),
          flag("--pairs")
              .atMost(SDMA_LIMIT(pairsMax))
              .keeping("gpuIndexMax")
              .sets(option<readPairList, &Options::pairs>),
          flag("--timeline-size").keeping("sizeBytesMax").sets(timelineOption<readSize, &TimelineFlags::sizeBytes>),
          flag("--timeline-out").sets(timelineOption<readText, &TimelineFlags::outPath>),
          flag("--timeline-cus").range(1, SDMA_LIMIT(cusMax)).sets(timelineOption<readInt, &TimelineFlags::cus>),
          flag("--timeline-iters")
              .range(1, SDMA_LIMIT(timelineRepeatsMax))
              .sets(timelineOption<readInt, &TimelineFlags::repeats>),
          flag("--mode").sets(option<readModes, &Options::modes>),
          flag("--blocks-per-cu").range(1, SDMA_LIMIT(blocksPerCuMax)).sets(option<readInt, &Options::blocksPerCu>),
          flag("--trace").switchFlag().sets(option<readOnOff, &Options::trace>),
          // hsa_amd_sdma_engine_id_t has 16 bits.
          flag("--engine").range(0, Limit{15}).sets(option<readInt, &Options::engineId>),
          flag("--waves-per-cu")
              .atMost(SDMA_LIMIT(listLengthMax))
              .keeping("wavesPerCuMax")
              .sets(option<readWavesList, &Options::wavesPerCu>),
          flag("--engines")
              .atMost(SDMA_LIMIT(listLengthMax))
              .keeping("splitMax")
              .sets(option<readEnginesList, &Options::engines>),
          flag("--batch")
              .atMost(SDMA_LIMIT(listLengthMax))
              .keeping("batchMax")
              .sets(option<readBatchList, &Options::batch>),
          flag("--shmem-sdma").atMost(Limit{3}).sets(option<readShmemSdmaList, &Options::shmemSdma>),
          flag("--runtime-default").switchFlag().sets(option<readOnOff, &Options::runtimeDefault>),
          flag("--series").sets(option<readText, &Options::series>),
      });
  return rows;
}

const std::vector<FlagSpec>& matrixFlags() {
  static const std::vector<FlagSpec> rows =
      joined(joined({backendFlag(), simGpusFlag(), simWeakFlag()}, copyFlags()),
             {
                 flag("--size").keeping("sizeBytesMax").sets(setSingleSize),
                 flag("--gpus").keeping("gpuIndexMax").sets(option<readGpuList, &Options::gpus>),
                 flag("--concurrent").switchFlag().sets(option<readOnOff, &Options::concurrent>),
             });
  return rows;
}

const std::vector<FlagSpec>& runFlags() {
  static const std::vector<FlagSpec> rows = {flag("--backend").checks(checkValue<readBackend>),
                                             flag("--sim-dispatches"), flag("--trace-records"), flag("--span-records"),
                                             flag("--library-log").switchFlag()};
  return rows;
}

const std::vector<FlagSpec>& importFlags() {
  static const std::vector<FlagSpec> rows = {flag("--rocpd"), flag("--rocprofv3-csv")};
  return rows;
}

// nccl-tests' short flags keep their meaning: -b -e -f -i -n -w -c.
const std::vector<FlagSpec>& collectiveFlags() {
  static const std::vector<FlagSpec> rows = {
      flag("--backend").checks(checkValue<readBackend>),
      flag("--sim-gpus").range(1, SDMA_LIMIT(simGpusMax)).checks(checkValue<readInt>),
      flag("--seed").range(0, Limit{2147483647}).checks(checkValue<readInt>),
      flag("--variant-child"),
      flag("--mode"),
      flag("--bootstrap-dir"),
      flag("--rank-timeout").range(1, Limit{86400}).checks(checkValue<readInt>),
      flag("--rank-child").range(0, Limit{4095}).checks(checkValue<readInt>),
      flag("--world").range(1, Limit{4096}).checks(checkValue<readInt>),
      flag("--rank-fault"),
      flag("--launcher-of-rank"),
      flag("--ops"),
      flag("--variants"),
      flag("--gpus").range(0, SDMA_LIMIT(gpuIndexMax)).checks(checkValue<readIndexList>),
      flag("--min-bytes").alias("-b --minbytes").keeping("sizeBytesMax").checks(checkValue<readSize>),
      flag("--max-bytes").alias("-e --maxbytes").keeping("sizeBytesMax").checks(checkValue<readSize>),
      flag("--step-factor").alias("-f --stepfactor").range(1, Limit{1024}).checks(checkValue<readInt>),
      flag("--step-bytes").alias("-i --stepbytes").keeping("sizeBytesMax").checks(checkValue<readSize>),
      flag("--iters").alias("-n").range(1, SDMA_LIMIT(itersMax)).checks(checkValue<readInt>),
      flag("--warmup").alias("-w --warmup_iters").range(0, SDMA_LIMIT(warmupMax)).checks(checkValue<readInt>),
      flag("--check").alias("-c"),
      flag("--repeats").range(1, SDMA_LIMIT(collectiveRepeatsMax)).checks(checkValue<readInt>),
      flag("--in-place"),
      flag("--dtype"),
      flag("--nccl-lib"),
      flag("--transport-log"),
  };
  return rows;
}

const std::vector<FlagSpec>& overlapFlags() {
  static const std::vector<FlagSpec> rows = {
      flag("--backend").checks(checkValue<readBackend>),
      flag("--sim-gpus").range(1, SDMA_LIMIT(simGpusMax)).checks(checkValue<readInt>),
      flag("--seed").range(0, Limit{2147483647}).checks(checkValue<readInt>),
      flag("--variant-child"),
      flag("--compute"),
      flag("--paths").checks(checkValue<readPathList>),
      flag("--cus").keeping("cusMax").checks(checkValue<readCuItems>),
      flag("--size").atMost(SDMA_LIMIT(listLengthMax)).keeping("sizeBytesMax").checks(checkValue<readSizeList>),
      flag("--phase-ms").range(50, Limit{60000}).checks(checkValue<readInt>),
      flag("--gemm-n").range(256, Limit{32768}).checks(checkValue<readInt>),
      flag("--src").keeping("gpuIndexMax").checks(checkValue<readEndpoint>),
      flag("--dst").keeping("gpuIndexMax").checks(checkValue<readEndpoint>),
  };
  return rows;
}

}  // namespace sdma::cli
