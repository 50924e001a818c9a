/**
 * What the advice emits for each endpoint pair kind, on a run the real helper made on the
 * simulated MI350X node (host → GPU, GPU → host, GPU-local, GPU → GPU): each knob only for the
 * copies it governs, never a process-wide engine switch, never the rccl-tests names, and the run's
 * record of CLR's blit cuts honoured.
 */
import { describe, expect, it } from 'vitest';
import { adviseAllPairs } from '../../src/core/advice/advice';
import { applyRecord, newRun, runtimeKnobs } from '../../src/core/run';
import { helper, records } from './run';

function simRun() {
  const out = helper([
    'sweep',
    '--backend',
    'sim',
    '--pairs',
    'host:0,0:host,0:0,0:1',
    '--sizes',
    '4K,16K,64K,256K,1M,4M,16M,64M',
    '--paths',
    'all',
    '--cus',
    '8,64',
    '--iters',
    '10',
    '--seed',
    '3',
  ]);
  expect(out.status).toBe(0);
  const run = newRun({
    type: 'run',
    format: 'sdma-lens-run',
    version: 1,
    id: 'pairs',
    command: 'sweep',
    createdAt: '2026-12-03T00:00:00.000Z',
    target: { kind: 'local' },
    helper: { path: 'sdma-probe', args: ['sweep'] },
  });
  for (const r of records(out)) applyRecord(run, r);
  return run;
}

describe('advice by pair kind on a simulated sweep', () => {
  const run = simRun();
  const byPair = new Map(adviseAllPairs(run).map((a) => [a.pairLabel, a]));
  const knobs = (label: string) => byPair.get(label)!.recommendations.map((r) => r.knob);

  it("the run records that the helper set CLR's blit cuts to 0, so no note doubts the engine samples", () => {
    expect(runtimeKnobs(run)?.map((k) => `${k.name}=${k.value}`)).toEqual([
      'ROC_P2P_SDMA_SIZE=0',
      'GPU_FORCE_BLIT_COPY_SIZE=0',
    ]);
    for (const a of byPair.values()) expect(a.notes.join(' ')).not.toMatch(/does not record that ROC_P2P_SDMA_SIZE/);
  });

  it('no pair gets a process-wide engine switch or an rccl-tests name', () => {
    for (const a of byPair.values()) {
      expect(
        a.recommendations
          .map((r) => r.knob)
          .filter(
            (k) =>
              k === 'HSA_ENABLE_SDMA' ||
              k === 'HSA_ENABLE_PEER_SDMA' ||
              /_THRESHOLD_(ALLGATHER|ALLTOALL|BROADCAST)$/.test(k),
          ),
      ).toEqual([]);
    }
  });

  it("GPU → GPU: per-put thresholds, the AlltoAll estimate (uncertain), CLR's peer cut in KiB, NCCL_GIN_TYPE and the prerequisites", () => {
    expect(knobs('GPU 0 → GPU 1')).toEqual(
      expect.arrayContaining([
        'NCCL_GIN_ANVIL_SDMA_THRESHOLD',
        'ROCSHMEM_SDMA_THRESHOLD',
        'NCCL_GIN_A2A_SDMA_MIN_BYTES',
        'ROC_P2P_SDMA_SIZE',
        'NCCL_GIN_TYPE',
        'NCCL_GIN_ENABLE',
      ]),
    );
    expect(knobs('GPU 0 → GPU 1')).not.toContain('HSA_FORCE_SDMA_SIZE');
    const a2a = byPair.get('GPU 0 → GPU 1')!.recommendations.find((r) => r.knob === 'NCCL_GIN_A2A_SDMA_MIN_BYTES')!;
    expect(a2a.confidence).not.toBe('clear');
  });

  it('GPU-local: HSA_FORCE_SDMA_SIZE alone (SDMA below its value), no device-initiated knob', () => {
    expect(knobs('GPU 0 local')).toEqual(['HSA_FORCE_SDMA_SIZE']);
    const r = byPair.get('GPU 0 local')!.recommendations[0]!;
    expect(r.evidence).toMatch(/smaller than|SDMA for none/);
    expect(byPair.get('GPU 0 local')!.notes.join(' ')).toMatch(/does not exist for a GPU-local copy/);
  });

  it('host ↔ GPU: no threshold (none moves hipMemcpy between host and GPU), said in a note', () => {
    for (const label of ['host → GPU 0', 'GPU 0 → host']) {
      expect(knobs(label)).toEqual([]);
      expect(byPair.get(label)!.notes.join(' ')).toMatch(/no size threshold moves it/);
    }
  });
});
