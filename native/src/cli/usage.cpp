// The usage text of sdma-probe and of info, sweep and matrix (`sdma-probe --help`).
#include "cli/args.hpp"

namespace sdma {

std::string usageText() {
  return R"(usage:
  sdma-probe info  [--backend B] [--sim-gpus N]
  sdma-probe sweep [--backend B] [--sizes LIST] [--paths LIST] [--cus LIST] [--iters N]
                   [--warmup N] [--seed N] [--src E --dst E | --pairs LIST] [--sim-gpus N]
                   [--timeline-size SIZE] [--timeline-out FILE] [--timeline-cus N]
                   [--timeline-iters N] [--sim-delay-ms N] [--sim-weak SPEC] [--fault SPEC]
                   [--mode M] [--target-ms N] [--blocks-per-cu N] [--trace] [--engine ID]
                   [--waves-per-cu LIST] [--engines LIST] [--batch LIST] [--shmem-sdma LIST]
                   [--runtime-default | --series runtime-default]
  sdma-probe matrix [--backend B] [--paths LIST] [--size SIZE] [--cus N] [--gpus LIST] [--sim-gpus N]
                    [--iters N] [--warmup N] [--seed N] [--target-ms N]
                    [--sim-delay-ms N] [--sim-weak SPEC] [--fault SPEC] [--concurrent]
  sdma-probe run    [--backend B] ... -- PROGRAM [ARGS...]   (sdma-probe run --help)
  sdma-probe import --rocpd FILE.db | --rocprofv3-csv DIR    (sdma-probe import --help)
  sdma-probe collective [--backend B] ... [--repeats N]      (sdma-probe collective --help)
  sdma-probe overlap    [--backend B] ...                    (sdma-probe overlap --help)
  sdma-probe --version | --help

Writes NDJSON records (protocol 1) to stdout; diagnostics go to stderr.

  --backend B          auto (default: hardware when present, else sim), sim, hip, cuda
  --sizes LIST         comma list of sizes (suffix K, M, G = KiB, MiB, GiB) or ranges
                       FROM:TO (doubling) or FROM:TO:xF (multiply by F)
                       default 4K,16K,64K,128K,256K,512K,1M,2M,4M,16M,64M,256M,1G
  --paths LIST         cu/host, cu/device, engine/host, engine/device or all (default all)
  --cus LIST           CU counts for the cu/* paths (default 1,2,4,8,16,32,64,128,256)
  --iters N            timed iterations per sample (default 20)
  --warmup N           untimed iterations before them (default 3)
  --seed N             simulator seed: same seed, same numbers (default 1)
  --src E, --dst E     copy from endpoint E to endpoint E: a GPU index, or host (pinned
                       host memory); --src 0 --dst 0 is a GPU-local copy
  --pairs LIST         comma list of SRC:DST pairs, one pass each (e.g. host:0,0:host,0:0)
                       default: 0:1 with two or more GPUs, host:0,0:host,0:0 with one
  --sim-gpus N         GPUs of the simulated MI350X node, 1..8 (default 8; sim only)
  --timeline-size SIZE record one iteration per path at SIZE as a timeline
  --timeline-out FILE  write the timeline to FILE (sdmatl v2) instead of inline
  --timeline-cus N     CUs of the cu/* paths in the timeline (default 64)
  --timeline-iters N   repeat the timeline's per-path layout N times (default 1)
  --sim-delay-ms N     the simulator sleeps N ms per work unit (demos, cancel tests)
  --sim-weak SPEC      sim only: make this simulated node weak, WHAT=FACTOR[@HOST]
                       (comma list or repeated): the bandwidth of WHAT's copies times
                       FACTOR (0 < FACTOR <= 4); WHAT engine (engine/*), cu (cu/*),
                       link (GPU <-> GPU), pcie (host <-> GPU); @HOST: only where the
                       short host name is HOST (e.g. engine=0.6@n2,link=0.5@n3)
  --fault SPEC         testing only: crash-after=N, garbage-after=N, hang-after=N,
                       exit-after=N (N = samples printed first), corrupt-after=N
                       (damage one destination byte of the copy after N samples),
                       mislabel-after=N (carry the next engine point's bytes by a
                       CU copy kernel under its engine label)
  --mode M             pipelined (default: copies back to back, bandwidth), one-shot
                       (one copy per timed iteration, latency) or both
  --target-ms N        GPU: size each sample's iterations to about N ms (at least --iters)
  --blocks-per-cu N    GPU: workgroups (blocks) per CU of the cu/* paths (default 1)
  --trace              GPU: per-block device-clock spans during timed iterations
  --engine ID          AMD: run engine/host on SDMA engine ID (0..15) through
                       hsa_amd_memory_async_copy_on_engine
  --waves-per-cu LIST  wavefronts per CU, 1..64 (AMD wave64, NVIDIA warps): cu/* copies
                       run that many on each CU (times each --cus value); engine/device:
                       the waves of the kernel issuing the puts (1: wave-level put, more:
                       workgroup put). Default: the backend's (cu/*: 1024 threads per CU)
  --engines LIST       one copy split over N engines, 1..64 (default 1): engine/host on
                       N distinct SDMA engines (AMD) or N streams (NVIDIA), engine/device
                       over N rocSHMEM SDMA channels; a value the backend cannot run is
                       skipped with a dimension-unsupported warning
  --batch LIST         engine/host as one batched call (hipMemcpyBatchAsync /
                       cudaMemcpyBatchAsync) of N equal pieces, 0..1024; 0 (default) is
                       the single-copy API. A batched point is never split: the units are
                       each --engines value with batch 0, then each batch > 0 on 1 engine
  --shmem-sdma LIST    engine/device on rocSHMEM: forced (default: every put on SDMA),
                       library (rocSHMEM's own ROCSHMEM_SDMA_THRESHOLD), off
                       (ROCSHMEM_SDMA_ENABLED=0: load/store)
  --runtime-default    AMD: after the sweep, the runtime default series: each pair
                       and size as a plain hipMemcpyAsync in the user's environment
                       (a child sdma-probe), labelled with the mover CLR picks
  --series S           runtime-default: measure only that series (--paths engine/host)

matrix: every ordered pair of distinct endpoints, one at a time, for each path (docs/MATRIX.md)
  --size SIZE          bytes per copy (default 256M)
  --cus N              CUs of the cu/* paths (default 64, cut to the GPUs' CU count)
  --gpus LIST          comma list of GPU indices and host, or all (default all GPUs;
                       host,0 on a one-GPU node)
  --concurrent         all pairs of a path at the same time (all-to-all), each pair's
                       GB/s under that load, plus the path's total and per-GPU sums

exit codes: 0 ok, 1 runtime failure, 2 bad arguments, 3 backend unavailable,
            4 data validation failed, 130/143 interrupted by SIGINT/SIGTERM
)";
}

}  // namespace sdma
