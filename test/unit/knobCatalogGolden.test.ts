/**
 * The knob catalog against a golden table of what each library's source does, checked by hand
 * in the public sources each entry cites (docs/ADVICE.md, "The knob catalog"): which binary
 * reads it, which copies or calls it governs, when the ENGINE path is taken (size against value),
 * the value's unit and what the size counts, the default, and whether that is documented or only
 * in the source. A catalog edit that changes any of these must change this table too, on purpose.
 */
import { describe, expect, it } from 'vitest';
import { allKnobs } from '../../src/core/advice/knobs';

type Row = [
  name: string,
  library: string,
  scope: string,
  comparison: string | null,
  scale: string | null,
  per: string | null,
  defaultValue: string | null,
  confidence: string,
];

const GOLDEN: Row[] = [
  // ROCr (libhsa-runtime64): flag.h, amd_gpu_agent.cpp
  ['HSA_ENABLE_SDMA', 'rocr', 'process', null, null, null, null, 'documented'],
  ['HSA_ENABLE_PEER_SDMA', 'rocr', 'process', null, null, null, null, 'documented'],
  ['HSA_ENABLE_SDMA_GANG', 'rocr', 'process', null, null, null, null, 'source'],
  // GetBlitObject: a copy within one GPU SMALLER than the value goes to SDMA.
  ['HSA_FORCE_SDMA_SIZE', 'rocr', 'gpu-local-copy', 'lt', 'bytes', 'copy', '1048576', 'source'],
  ['HSA_NO_SCRATCH_RECLAIM', 'rocr', 'process', null, null, null, '0', 'documented'],
  // CLR (libamdhip64): rocsettings.cpp, rocblit.cpp copyBuffer; KiB, engine only above.
  ['ROC_P2P_SDMA_SIZE', 'clr', 'peer-copy-host', 'gt', 'KiB', 'copy', '1024', 'source'],
  ['GPU_FORCE_BLIT_COPY_SIZE', 'clr', 'all-host-copies', 'gt', 'KiB', 'copy', '0', 'source'],
  // librccl
  ['NCCL_GIN_ENABLE', 'rccl', 'communicator', null, null, null, '1', 'source'],
  ['NCCL_GIN_TYPE', 'rccl', 'communicator', null, null, null, '-1', 'documented'],
  ['NCCL_GIN_ANVIL_SDMA_THRESHOLD', 'rccl', 'device-put', 'gt', 'bytes', 'put', '128', 'source'],
  ['NCCL_GIN_A2A_ENABLE', 'rccl', 'library-alltoall', null, null, null, '1', 'source'],
  ['NCCL_GIN_A2A_MIN_BYTES', 'rccl', 'library-alltoall', 'ge', 'bytes', 'peer', '0', 'source'],
  ['NCCL_GIN_A2A_SDMA_MIN_BYTES', 'rccl', 'library-alltoall', 'ge', 'bytes', 'peer', '8388608', 'source'],
  ['NCCL_GIN_ANVIL_SDMA_NUM_CHANNELS', 'rccl', 'communicator', null, null, null, '1', 'source'],
  ['NCCL_GIN_ANVIL_SDMA_FUSED_SIGNAL', 'rccl', 'communicator', null, null, null, '1', 'source'],
  ['RCCL_GIN_ALLREDUCE_FORCE_ENABLE', 'rccl', 'library-allreduce', null, null, null, '0', 'source'],
  ['NCCL_CUMEM_ENABLE', 'rccl', 'process', null, null, null, '-2', 'documented'],
  ['NCCL_DMABUF_ENABLE', 'rccl', 'process', null, null, null, '1', 'documented'],
  ['RCCL_ENABLE_INTRANET', 'rccl', 'communicator', null, null, null, '-2', 'source'],
  // rccl-tests only (common.h testResolveSdmaThreshold): never librccl.
  [
    'NCCL_GIN_ANVIL_SDMA_THRESHOLD_ALLGATHER',
    'rccl-tests',
    'rccl-tests-kernels',
    'gt',
    'bytes',
    'rank',
    '262144',
    'source',
  ],
  [
    'NCCL_GIN_ANVIL_SDMA_THRESHOLD_ALLTOALL',
    'rccl-tests',
    'rccl-tests-kernels',
    'gt',
    'bytes',
    'peer',
    '2097152',
    'source',
  ],
  [
    'NCCL_GIN_ANVIL_SDMA_THRESHOLD_BROADCAST',
    'rccl-tests',
    'rccl-tests-kernels',
    'gt',
    'bytes',
    'message',
    '262144',
    'source',
  ],
  // rocSHMEM: envvar.cpp, ipc_policy.hpp
  ['ROCSHMEM_SDMA_ENABLED', 'rocshmem', 'device-put', null, null, null, '1', 'documented'],
  ['ROCSHMEM_SDMA_THRESHOLD', 'rocshmem', 'device-put', 'ge', 'bytes', 'put', '256', 'documented'],
  ['ROCSHMEM_SDMA_NUM_CHANNELS', 'rocshmem', 'device-put', null, null, null, '1', 'documented'],
  ['ROCSHMEM_SDMA_SPREAD_CHANNELS', 'rocshmem', 'device-put', null, null, null, '0', 'documented'],
  ['MORI_ENABLE_SDMA', 'mori', 'device-put', null, null, null, '0', 'source'],
  ['MORI_SDMA_NUM_CHANNELS', 'mori', 'device-put', null, null, null, '2', 'source'],
  // NVIDIA NCCL: init.cc, enqueue.cc; SYM_CE counts ELEMENTS and compares with >.
  ['NCCL_CTA_POLICY', 'nccl', 'communicator', null, null, null, '0', 'documented'],
  // RCCL's CE test helpers (isCeDispatchConfigured): the copy-engine path wants it at 0.
  ['NCCL_LOCAL_REGISTER', 'rccl', 'communicator', null, null, null, '1', 'source'],
  ['NCCL_SYM_CE_THRESHOLD', 'nccl', 'allgather-ce', 'gt', 'elements', 'rank', '8388608', 'source'],
];

describe('knob catalog against the golden table', () => {
  it('has exactly the golden knobs', () => {
    expect(
      allKnobs()
        .map((k) => k.name)
        .sort(),
    ).toEqual(GOLDEN.map((r) => r[0]).sort());
  });

  it.each(GOLDEN)(
    '%s: library, scope, comparison, unit, per, default, confidence',
    (name, library, scope, comparison, scale, per, defaultValue, confidence) => {
      const k = allKnobs().find((x) => x.name === name)!;
      expect([
        k.library,
        k.scope,
        k.comparison ?? null,
        k.scale ?? null,
        k.per ?? null,
        k.default,
        k.confidence,
      ]).toEqual([library, scope, comparison, scale, per, defaultValue, confidence]);
    },
  );

  it('every size knob says its comparison, unit and what it counts; every entry says its reader and where to read it', () => {
    for (const k of allKnobs()) {
      expect(k.reader.length, k.name).toBeGreaterThan(5);
      expect(k.addresses.length, k.name).toBeGreaterThan(0);
      if (k.kind === 'bytes')
        expect(
          [k.comparison, k.scale, k.per].every((x) => x !== undefined),
          k.name,
        ).toBe(true);
      // A documented entry cites a published page.
      if (k.confidence === 'documented')
        expect(
          k.addresses.some((a) => /docs\.|rocm\.docs\.amd\.com/.test(a)),
          k.name,
        ).toBe(true);
    }
  });

  it('process-wide engine switches are marked, and are never size thresholds', () => {
    const wide = allKnobs()
      .filter((k) => k.processWide)
      .map((k) => k.name)
      .sort();
    expect(wide).toEqual(['HSA_ENABLE_PEER_SDMA', 'HSA_ENABLE_SDMA']);
    for (const k of allKnobs().filter((x) => x.processWide)) expect(k.comparison).toBeUndefined();
  });
});
