/** Helper records for tests that need no binary; shapes follow docs/PROTOCOL.md. */
import type { Sample } from '../../src/core/protocol';
import type { RunHeader } from '../../src/core/run';

export const hello = {
  type: 'hello',
  protocol: 1,
  helper: { name: 'sdma-probe', version: '0.1.0' },
  command: 'sweep',
  backend: 'sim',
  simulated: true,
  backendsBuilt: ['sim'],
  pid: 42,
};

export function sample(over: Partial<Sample> = {}): Sample {
  const sizeBytes = over.sizeBytes ?? 1 << 20;
  const meanNs = over.meanNs ?? 20_000;
  return {
    type: 'sample',
    mover: 'cu',
    initiator: 'host',
    src: 0,
    dst: 1,
    sizeBytes,
    cus: 8,
    engines: 0,
    iters: 3,
    timesNs: [meanNs * 0.98, meanNs, meanNs * 1.02],
    meanNs,
    minNs: meanNs * 0.98,
    maxNs: meanNs * 1.02,
    stdevNs: meanNs * 0.02,
    gbps: sizeBytes / meanNs,
    gbpsMax: sizeBytes / (meanNs * 0.98),
    validated: true,
    ...over,
  };
}

export const done = { type: 'done', status: 'ok', samples: 1, elapsedMs: 3 };

export function header(id = 'test-run', args: string[] = ['sweep']): RunHeader {
  return {
    type: 'run',
    format: 'sdma-lens-run',
    version: 1,
    id,
    command: 'sweep',
    createdAt: '2026-11-30T00:00:00.000Z',
    target: { kind: 'local' },
    helper: { path: 'sdma-probe', args },
  };
}

export const line = (x: unknown) => `${JSON.stringify(x)}\n`;
