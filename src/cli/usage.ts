/** The `sdma-lens --help` text. */
export const USAGE = `Usage: sdma-lens <command> [options]

Commands:
  sweep     run a transfer sweep (bandwidth vs message size for each path and CU count)
  matrix    measure a GPU x GPU bandwidth matrix per copy path (each ordered pair alone, or all at once)
  collective  AllGather / AlltoAll sweep over sizes, the library's default path and its copy-engine variants
  overlap   compute (GEMM, FMA) beside each copy path: how much compute each path leaves
  import    read results other tools wrote into runs: TransferBench, nvbandwidth, nccl-tests /
            rccl-tests outputs, or a rocprofv3 profile (rocpd .db file or CSV folder)
  advise    suggest thresholds and NCCL_GIN_TYPE from a saved sweep or collective run
            (default: the newest sweep)
  runs      list saved runs
  compare   compare two saved runs point by point against their noise (B against A)
  fleet     the same sweep (and matrix) on every node of a Slurm allocation, the outlier nodes named

Sweep options:
  --backend auto|sim|hip|cuda   helper backend (default auto: real GPUs when present, else sim)
  --sizes LIST                  message sizes, e.g. 4K,64K,1M,1G (default: 13 sizes 4 KiB..1 GiB)
  --paths LIST|all              cu/host,cu/device,engine/host,engine/device (default: all)
  --cus LIST                    CU counts for cu/* paths (default: 1,2,4,...,256)
  --iters N                     timed iterations per point (default 20)
  --seed N                      simulator seed (default 1)
  --src E --dst E               one endpoint pair; E = a GPU index or host (pinned host memory);
                                --src 0 --dst 0 is a GPU-local copy
  --pairs LIST                  several pairs, e.g. host:0,0:host,0:0 (not with --src/--dst);
                                default: 0:1 with 2+ GPUs, host:0,0:host,0:0 with one GPU
  --sim-gpus N                  simulated node's GPU count, 1..8 (sim backend; default 8)
  --sim-weak WHAT=F[@HOST]      simulator only: engine, cu, link or pcie copies at F x the model's
                                bandwidth, on host HOST only when given (docs/SIMULATOR.md)
  --timeline-size SIZE          also record a timeline at this size
  --refine                      then measure more sizes around each crossover until it is
                                placed within --refine-tolerance (default 0.1: ±10%) or
                                --refine-budget seconds (default 300) are spent; each round is
                                saved inside the sweep's run (docs/ADVICE.md)
  --json                        print the result as JSON instead of a table
  --target local|DEST           where the helper runs: this machine (default) or an SSH node,
                                DEST = user@host[:port] or a ~/.ssh/config alias; the helper is
                                found or built on the node (see docs/REMOTE.md)
  --ssh-config FILE             ssh config file for --target (default: the ssh client's own)
  --connect-timeout SECONDS     how long an SSH node may take to answer (1..300, default 10)
  --stall-timeout SECONDS       stop the helper when it prints nothing this long (0: no
                                limit; 10..86400, default 120)

Matrix options (docs/MATRIX.md):
  --backend, --paths, --iters, --seed, --json, --target, --ssh-config, --connect-timeout, --stall-timeout as for sweep
  --size SIZE                   bytes per copy (default 256M)
  --cus N                       CUs of the cu/* paths (default 64, cut to the GPUs' CU count)
  --gpus LIST|all               endpoints to pair, e.g. 0,1,2,3 or host,0,1 (a host row and
                                column); default all GPUs, host,0 on a one-GPU node
  --sim-gpus N, --sim-weak      as for sweep
  --concurrent                  all pairs of a path at the same time (all-to-all): each pair's
                                GB/s under that load, per-GPU send/receive sums, the path's total

Collective options (docs/COLLECTIVES.md; passed to the helper, which checks them):
  --backend, --json, --target, --ssh-config, --connect-timeout, --stall-timeout as for sweep
  -b, --min-bytes SIZE  -e, --max-bytes SIZE  -f, --step-factor F  -i, --step-bytes SIZE
  -n, --iters N  -w, --warmup N  -c, --check 0|1  --ops LIST  --variants LIST  --gpus LIST
  --in-place both|on|off  --dtype float|bf16|uint8  --repeats N (timed loops per point, default 5)
  --seed N  --sim-gpus N

Overlap options (docs/COLLECTIVES.md):
  --backend, --json, --target, --ssh-config, --connect-timeout, --stall-timeout as for sweep
  --compute LIST (gemm,fma)  --paths LIST  --cus LIST  --size SIZE  --phase-ms N  --gemm-n N
  --src E --dst E  --sim-gpus N

Import options (docs/IMPORT.md):
  import FILE... [--json] [--runs-dir DIR] [--buffer-size SIZE]
                                each FILE is recognized by its content and saved as its own run:
                                TransferBench text or CSV (OUTPUT_TO_CSV=1), nvbandwidth text or
                                JSON (-j), nccl-tests / rccl-tests text or JSON (-J), or a
                                rocprofv3 profile (rocpd .db file or CSV folder, read by the
                                helper on this machine); what does not map is kept as notes.
                                Links, FIFOs and files over 64 MiB are refused.
  --buffer-size SIZE            the buffer nvbandwidth ran with (its -b, which its output does
                                not print; default nvbandwidth's own, 512M)
  exit 2 when a file is of no known format or refused (nothing saved for it), 1 when nothing
  in a file maps or its helper run failed

Advise options:
  advise [RUN_ID] [--pair SRC:DST] [--cus N] [--sizes LIST] [--rccl-version V] [--rocshmem-version V] [--json]
  --pair SRC:DST                the endpoint pair to advise on, e.g. host:0 (default: the run's
                                first GPU -> GPU pair, else its first pair)
  --cus N                       CUs your library's load/store path occupies (default 64)
  --sizes LIST                  your message sizes (default: the run's sizes)
  --rccl-version V              the node's RCCL version when the run did not detect it
  --rocshmem-version V           the node's rocSHMEM version when the run did not detect it
  A collective run is advised from its own crossovers (--pair, --cus, --sizes and the versions
  are for a sweep's advice); a matrix, overlap or profile run has nothing to advise from (exit 1).

Compare options (docs/COMPARE.md):
  compare A B [--fail-below R] [--tolerance F] [--json]
                                A, B: run ids in the runs folder, run.ndjson files or run
                                folders; A is the baseline and each ratio is B / A
  --fail-below R                exit 1 when a point's ratio is below R beyond noise (its whole
                                interval below R), e.g. 0.95: a CI gate
  --tolerance F                 a regression or improvement must also clear 1 by F (0.01 = 1 %)

Fleet options (docs/FLEET.md):
  fleet (--nodes N [--partition P] | --nodelist LIST | --jobid J) [sweep options] [--matrix]
                                asks Slurm for whole nodes (salloc), runs the helper on each as
                                one srun step, saves each node's run and a fleet index
                                (.sdma-lens/fleets/), compares the nodes and gives the nodes back;
                                with --target, Slurm is asked on that login node. Inside an
                                allocation, $SLURM_JOB_ID is used when no nodes are named
  --time MIN  --account A       passed to salloc
  --parallel N                  nodes measured at once (default 64)
  --matrix [--matrix-size SIZE] a bandwidth matrix on every node too (pairs are compared)
  --thresholds FILE             pass/fail limits (JSON: minGbps, matrixMinGbps, maxBelowMedian)
  --fail-on-outliers            exit 1 when a node is an outlier (median/MAD rule)
  --sim-weak WHAT=F@HOST        as for sweep: one node made weak on purpose, to rehearse detection
  fleet show [ID] [--thresholds FILE] [--json]
                                a saved fleet again (default: the newest)
  --queue                       submit one sbatch job instead and return (the sweep only); its
                                nodes write into the fleet's folder, which must be on a file
                                system the nodes share with this login node
  fleet collect [ID] [--wait]   a queued fleet's nodes into runs once its job has ended
                                (default: the newest queued fleet; exit 3 while it is queued
                                or running, unless --wait)
  fleet cancel [ID]             scancel a queued fleet's job (what ran can still be collected)

Common options:
  --runs-dir DIR                where runs are saved (default .sdma-lens/runs)
  --helper PATH                 sdma-probe binary (default: $SDMA_LENS_HELPER, the bundled build, or build from source);
                                with --target, a path on the node
  -h, --help                    this text

Exit codes: 0 ok, 1 the run failed or crashed (the partial run is kept; compare: a point below
--fail-below beyond noise, or runs that cannot be compared), 2 bad arguments, 130 cancelled.`;
