/**
 * The CLI's help, one table: each command's line in the overview (`sdma-lens --help`) and its
 * own help (`sdma-lens <command> --help`, `sdma-lens help <command>`): synopsis, options and
 * exit codes. main.ts dispatches the same names.
 */
import { LIMITS } from '../core/limits';
import type { CommandName } from './commandNames';
import { COMMAND_NAMES } from './commandNames';

export type { CommandName } from './commandNames';
export { COMMAND_NAMES, isCommand } from './commandNames';

export interface CommandHelp {
  /** Its line in the overview. */
  summary: string;
  /** `sdma-lens <command> --help`. */
  text: string;
}

const SIMULATOR = `  --sim-gpus N                  simulated node's GPU count, 1..${LIMITS.simGpusMax} (sim backend; default ${LIMITS.simGpusMax})
  --sim-weak WHAT=F[@HOST]      simulator only: engine, cu, link or pcie copies at F x the model's
                                bandwidth, on host HOST only when given (docs/SIMULATOR.md)`;

/** Where the helper runs, which helper, where the run is saved: every command that runs it on a node. */
const where = (target = 'where the helper runs: this machine (default) or an SSH node,') => `Where and how:
  --target local|DEST           ${target}
                                DEST = user@host[:port] or a ~/.ssh/config alias; the helper is
                                found or built on the node (docs/REMOTE.md)
  --ssh-config FILE             ssh config file for --target (default: the ssh client's own)
  --connect-timeout SECONDS     how long an SSH node may take to answer (1..300, default 10)
  --stall-timeout SECONDS       stop the helper when it prints nothing this long (0: no
                                limit; 10..86400, default 120)
  --runs-dir DIR                where runs are saved (default .sdma-lens/runs)
  --helper PATH                 sdma-probe binary (default: $SDMA_LENS_HELPER, the bundled
                                build, or one built from source); with --target, a path on the node
  --json                        print the result as JSON instead of a table
  -h, --help                    this help`;

const runExits = (failed = 'the run failed or crashed (the partial run is kept)') => `Exit codes:
  0    the run ended ok
  1    ${failed}
  2    bad arguments, or the helper refused them (nothing is run or saved)
  130  cancelled by Ctrl+C or SIGTERM (the partial run is kept)`;

const SWEEP_MEASURE = `  --backend auto|sim|hip|cuda   helper backend (default auto: real GPUs when present, else sim)
  --sizes LIST                  message sizes (default: 13 sizes 4 KiB..1 GiB): a comma list of
                                sizes (4096, 64K, 1M, 1G; K, M, G = KiB, MiB, GiB) and ranges
                                FROM:TO (doubling) or FROM:TO:xF (times F, 2..1024), e.g.
                                4K,64K,1M or 1M:64M or 4K:1G:x4; at most ${LIMITS.listLengthMax} sizes
  --paths LIST|all              cu/host,cu/device,engine/host,engine/device (default: all)
  --cus LIST                    CU counts for cu/* paths (default: 1,2,4,...,256)
  --iters N                     timed iterations per point (default 20)
  --seed N                      simulator seed (default 1)`;

const HELP = {
  sweep: {
    summary: 'run a transfer sweep (bandwidth vs message size for each path and CU count)',
    text: `Usage: sdma-lens sweep [options]

Measures bandwidth against message size for each copy path and CU count, prints the table
and its advice (or JSON), and saves the run.

Options:
${SWEEP_MEASURE}
  --src E --dst E               one endpoint pair; E = a GPU index or host (pinned host memory);
                                --src 0 --dst 0 is a GPU-local copy
  --pairs LIST                  several pairs, e.g. host:0,0:host,0:0 (not with --src/--dst);
                                default: 0:1 with 2+ GPUs, host:0,0:host,0:0 with one GPU
${SIMULATOR}
  --timeline-size SIZE          also record a timeline at this size
  --runtime-default             also measure what a plain hipMemcpyAsync gets with your own
                                environment (AMD, simulator; docs/MEASUREMENT.md)
  --waves-per-cu LIST           wavefronts per CU of cu/* copies and of the kernel issuing
                                engine/device puts, each a series, e.g. 1,4,16 (1..${LIMITS.wavesPerCuMax};
                                AMD wave64, NVIDIA warps of 32; default: 1024 threads per CU)
  --engines LIST                one engine copy split over N engines (AMD), streams (NVIDIA)
                                or rocSHMEM channels (engine/device), each a series
                                (1..${LIMITS.splitMax}; default 1)
  --batch LIST                  engine/host as one batched call of N pieces, each a series
                                (0..${LIMITS.batchMax}; 0 = the single-copy API, the default)
  --shmem-sdma LIST             engine/device with rocSHMEM's SDMA forced, at its own
                                threshold (library) or off (default forced)
  --refine                      then measure more sizes around each crossover until it is
                                placed within --refine-tolerance or --refine-budget is spent;
                                each round is saved inside the sweep's run (docs/ADVICE.md)
  --refine-tolerance F          how closely to place a crossover, 0.01..0.5 (default 0.1: ±10%)
  --refine-budget SECONDS       the most time the rounds may take, 1..86400 (default 300)

${where()}

${runExits('the run failed or crashed (the partial run is kept), or a --refine round failed')}`,
  },
  matrix: {
    summary: 'measure a GPU x GPU bandwidth matrix per copy path (each ordered pair alone, or all at once)',
    text: `Usage: sdma-lens matrix [options]

Measures each ordered pair of endpoints for each copy path, prints the grids (or JSON) with
the weakest pair, and saves the run (docs/MATRIX.md).

Options:
  --backend auto|sim|hip|cuda   helper backend (default auto: real GPUs when present, else sim)
  --size LIST                   bytes per copy, one size or a list (64M,256M) (default 256M)
  --paths LIST|all              cu/host,cu/device,engine/host,engine/device (default: all)
  --cus N                       CUs of the cu/* paths (default 64, cut to the GPUs' CU count)
  --gpus LIST|all               endpoints to pair, e.g. 0,1,2,3 or host,0,1 (a host row and
                                column); default all GPUs, host,0 on a one-GPU node
  --concurrent                  all pairs of a path at the same time (all-to-all): each pair's
                                GB/s under that load, per-GPU send/receive sums, the path's total
  --iters N                     timed iterations per pair (default 20)
  --seed N                      simulator seed (default 1)
${SIMULATOR}

${where()}

${runExits()}`,
  },
  collective: {
    summary: "AllGather / AlltoAll sweep over sizes, the library's default path and its copy-engine variants",
    text: `Usage: sdma-lens collective [options]

Runs AllGather and AlltoAll over the node's GPUs with NCCL or RCCL, as nccl-tests does, for
the library's default path and its copy-engine variants; prints a row per point (or JSON)
and saves the run (docs/COLLECTIVES.md). The flags are nccl-tests' and are passed to the
helper, which checks their values.

Options:
  --backend auto|sim|hip|cuda   helper backend (default auto: real GPUs when present, else sim)
  -b, --min-bytes SIZE          smallest size, bytes each rank receives (default 1K)
  -e, --max-bytes SIZE          largest size (default 256M)
  -f, --step-factor F           multiply the size by F each step (default 2)
  -i, --step-bytes SIZE         add SIZE each step (with -f 1)
  -n, --iters N                 timed calls per point (default 20)
  -w, --warmup N                warm-up calls per point (default 5)
  -c, --check 0|1               check the received data (default 1)
  --ops LIST                    allgather, alltoall (default both)
  --variants LIST               default, ce (copy-engine collectives, NCCL and RCCL),
                                gin-sdma-lib (librccl's AlltoAll GIN-SDMA path, AMD), all
                                (default: default,ce,gin-sdma-lib on AMD, default,ce on NVIDIA)
  --mode rank-per-process|single-process
                                one process per GPU (default), or one process for every GPU
                                (nccl-tests -g N); runs of different modes are not compared
  --gpus LIST                   GPU indices taking part (default all)
  --in-place both|on|off        in-place calls, out-of-place or both (default both)
  --dtype float|bf16|uint8      data type (default float)
  --repeats N                   timed loops per point, 1..${LIMITS.collectiveRepeatsMax} (default 5); the median is kept
  --seed N                      data check salt; the simulator's noise
  --sim-gpus N                  simulated node's GPU count, 1..${LIMITS.simGpusMax} (sim backend)

${where()}

${runExits()}`,
  },
  overlap: {
    summary: 'compute (GEMM, FMA, STREAM triad) beside each copy path: how much compute each path leaves',
    text: `Usage: sdma-lens overlap [options]

Runs a compute kernel alone, beside each copy path, then alone again, and prints how much of
its speed each path leaves against the CU arithmetic ((total CUs - CUs the copy holds) / total
CUs), how much bandwidth the copy kept, what decided, and the engine path's gain over the CU
copy beside the arithmetic's (or JSON); saves the run (docs/COLLECTIVES.md). The flags are
passed to the helper, which checks their values.

Options:
  --backend auto|sim|hip|cuda   helper backend (default auto: real GPUs when present, else sim)
  --compute LIST                gemm (vendor BLAS, bf16), fma (an FMA-bound kernel), triad
                                (STREAM triad, memory-bound) (default all three)
  --paths LIST                  cu/host, engine/host, engine/device (default all three)
  --cus LIST                    CUs of the cu/host copy (default 8,16,32)
  --size LIST                   bytes per copy, one size or a list (64M,256M) (default 256M)
  --phase-ms N                  length of each phase in ms (default 1500)
  --gemm-n N                    GEMM M=N=K (default 8192)
  --src E --dst E               the copy's endpoints: a GPU index or host (default 0 and 1;
                                host and 0 on a one-GPU node)
  --sim-gpus N                  simulated node's GPU count, 1..${LIMITS.simGpusMax} (sim backend)

${where()}

${runExits()}`,
  },
  import: {
    summary: 'read results other tools wrote into runs (TransferBench, nvbandwidth, nccl-tests, rccl-tests, rocprofv3)',
    text: `Usage: sdma-lens import FILE... [options]

Reads each FILE, recognized by its content, into a run of its own: TransferBench text or CSV
(OUTPUT_TO_CSV=1), nvbandwidth text or JSON (-j), nccl-tests / rccl-tests text or JSON (-J), or
a rocprofv3 profile (a rocpd .db file or a CSV folder, read by the helper on this machine).
What does not map is kept as notes. Links, FIFOs and files over 64 MiB are refused
(docs/IMPORT.md).

Options:
  --buffer-size SIZE            the buffer nvbandwidth ran with (its -b, which its output does
                                not print; default nvbandwidth's own, 512M)
  --runs-dir DIR                where runs are saved (default .sdma-lens/runs)
  --helper PATH                 sdma-probe binary, for rocprofv3 profiles (default: as for sweep)
  --json                        print what was imported as JSON
  -h, --help                    this help

Exit codes:
  0    every file was imported
  1    nothing in a file maps, or its helper run failed
  2    bad arguments, or a file of no known format or refused (nothing saved for it)
  130  cancelled by Ctrl+C or SIGTERM`,
  },
  advise: {
    summary: 'suggest thresholds and NCCL_GIN_TYPE from a saved sweep or collective run',
    text: `Usage: sdma-lens advise [RUN_ID] [options]

Prints a block to source in a shell: the advice of a saved run as comments and the settings
as export lines (or JSON). RUN_ID: a run in the runs folder (default: the newest sweep with
samples). A sweep is advised for one endpoint pair; a collective run from its own crossovers
(--pair, --cus, --waves-per-cu, --sizes and the versions are for a sweep's advice) (docs/ADVICE.md).

Options:
  --pair SRC:DST                the endpoint pair to advise on, e.g. host:0 (default: the run's
                                first GPU -> GPU pair, else its first pair)
  --cus N                       CUs your library's load/store path occupies (default 64)
  --waves-per-cu N              wavefronts per CU of your load/store kernel: crossovers compare
                                the cu/* series measured at N (default 0: 1024 threads per CU)
  --sizes LIST                  your message sizes (default: the run's sizes); a comma list of
                                sizes and ranges, as sweep --sizes takes
  --rccl-version V              the node's RCCL version when the run did not detect it
  --rocshmem-version V          the node's rocSHMEM version when the run did not detect it
  --runs-dir DIR                where runs are read from (default .sdma-lens/runs)
  --json                        print the advice as JSON
  -h, --help                    this help

Exit codes:
  0    advice printed
  1    no run to advise on, a run that cannot be read, or one with nothing to advise from
       (a matrix, overlap or profile run)
  2    bad arguments`,
  },
  runs: {
    summary: 'list saved runs',
    text: `Usage: sdma-lens runs [options]

Lists the saved runs, newest first, one line each: run id, date (local time), command, node,
status, SIMULATED or where an imported run came from, and the lines it could not use.

Options:
  --runs-dir DIR                the runs folder (default .sdma-lens/runs)
  --json                        the list as JSON
  -h, --help                    this help

Exit codes:
  0    listed (also when there is no run yet)
  2    bad arguments`,
  },
  compare: {
    summary: 'compare two saved runs point by point against their noise (B against A)',
    text: `Usage: sdma-lens compare A B [--fail-below R] [--tolerance F | --baseline-runs ID,...] [options]

Compares two runs point by point against their noise; each ratio is B / A, so A is the
baseline. A, B: run ids in the runs folder, run.ndjson files or run folders (docs/COMPARE.md).

Options:
  --fail-below R                exit 1 when a regression's whole within-run interval is below R,
                                e.g. 0.95: a CI gate
  --tolerance F                 the run-to-run tolerance at every point, a fraction (default
                                0.063, measured in bench/results: docs/COMPARE.md); 0 judges
                                by the within-run spread alone
  --baseline-runs ID,...        repeats of A: the tolerance estimated from them per path and
                                size band (instead of --tolerance)
  --runs-dir DIR                where run ids are looked up (default .sdma-lens/runs)
  --json                        print the comparison as JSON
  -h, --help                    this help

Exit codes:
  0    compared (and no point below --fail-below beyond noise)
  1    a point below --fail-below beyond noise, or runs that cannot be compared
  2    bad arguments, or a run that is not there`,
  },
  fleet: {
    summary: 'the same sweep (and matrix) on every node of a Slurm allocation, the outlier nodes named',
    text: `Usage: sdma-lens fleet (--nodes N [--partition P] | --nodelist LIST | --jobid J) [options]
       sdma-lens fleet show [ID] [--thresholds FILE] [--fail-on-outliers] [--json]
       sdma-lens fleet collect [ID] [--wait] [--thresholds FILE] [--fail-on-outliers] [--json]
       sdma-lens fleet cancel [ID]

Asks Slurm for whole nodes (salloc), runs the sweep on each as one srun step, saves each
node's run and a fleet index (.sdma-lens/fleets/), compares the nodes and gives them back.
Inside an allocation, $SLURM_JOB_ID is used when no nodes are named (docs/FLEET.md).
  show [ID]                     a saved fleet again (default: the newest)
  collect [ID]                  a queued fleet's nodes into runs once its job has ended
                                (default: the newest queued fleet); --wait waits for the job
  cancel [ID]                   scancel a queued fleet's job (what ran can still be collected)

Nodes:
  --nodes N                     how many nodes to ask for
  --partition P                 the Slurm partition
  --nodelist LIST               these nodes, a Slurm node list
  --jobid J                     an allocation you hold, used as it is
  --time MIN                    passed to salloc
  --account A                   passed to salloc
  --parallel N                  nodes measured at once, 1..1024 (default 64)
  --queue                       submit one sbatch job instead and return (the sweep only); its
                                nodes write into the fleet's folder, which must be on a file
                                system the nodes share with this login node

What each node runs (the sweep's options, at the node's default pair):
${SWEEP_MEASURE}
${SIMULATOR}
                                (one node made weak on purpose, to rehearse detection)
  --matrix                      a bandwidth matrix on every node too (pairs are compared)
  --matrix-size SIZE            its bytes per copy (default 256M)

Judging the nodes:
  --thresholds FILE             pass/fail limits (JSON: minGbps, matrixMinGbps, maxBelowMedian)
  --fail-on-outliers            exit 1 when a node is an outlier (median/MAD rule)

${where('where Slurm is asked: this machine (default) or a login node over SSH,')}

Exit codes:
  0    every node ran ok (and passed the thresholds)
  1    a node failed or failed a threshold, an outlier with --fail-on-outliers, or Slurm
       refused the request
  2    bad arguments
  3    fleet collect: the job is still queued or running (without --wait)
  130  cancelled by Ctrl+C or SIGTERM (the allocation is given back)`,
  },
} as const satisfies Record<CommandName, CommandHelp>;

/** `sdma-lens <command> --help`. */
export function commandHelp(command: CommandName): string {
  return HELP[command].text;
}

/** `sdma-lens --help`: every command in a line, and where to read more. */
export function overview(): string {
  const width = Math.max(...COMMAND_NAMES.map((c) => c.length), 'help'.length) + 2;
  const line = (name: string, summary: string) => `  ${name.padEnd(width)}${summary}`;
  return `Usage: sdma-lens <command> [options]

Commands:
${[...COMMAND_NAMES.map((c) => line(c, HELP[c].summary)), line('help', "this text, or a command's help: sdma-lens help <command>")].join('\n')}

sdma-lens <command> --help (or -h) shows a command's options and exit codes.

Options:
  -h, --help      this text
  -V, --version   the version of sdma-lens

Exit codes: 0 ok, 1 a run failed (compare: a point below --fail-below), 2 bad arguments,
130 cancelled, 141 the reader of the output went away; each command's help says more.`;
}
