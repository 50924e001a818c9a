import { describe, expect, it } from 'vitest';
import type { HelperRecord, Initiator, Mover } from '../../src/core/protocol';
import { validateRecord } from '../../src/core/protocol';
import type { Run } from '../../src/core/run';
import { applyRecord, applySavedValue, newRun } from '../../src/core/run';
import { ROCSHMEM_UNTESTED, seriesForCus, sweepView } from '../../src/core/sweep/sweepView';
import { header as runHeader, sample as protocolSample } from '../support/records';

const header = runHeader('demo');

function hello(backend: 'sim' | 'hip', simulated: boolean): unknown {
  return {
    type: 'hello',
    protocol: 1,
    helper: { name: 'sdma-probe', version: '0.1.0' },
    command: 'sweep',
    backend,
    simulated,
    backendsBuilt: ['sim', 'hip'],
    pid: 4242,
  };
}

function topology(simulated: boolean): unknown {
  return {
    type: 'topology',
    node: { name: 'node0', vendor: 'amd', model: 'AMD Instinct MI350X', simulated },
    gpus: [],
    links: [],
    libraries: [],
  };
}

type Path = `${Mover}/${Initiator}`;

/** A helper `sample` line: timed iterations in ns, the summary fields derived as the helper does. */
function sample(path: Path, sizeBytes: number, cus: number, timesNs: number[]): unknown {
  const [mover, initiator] = path.split('/') as [Mover, Initiator];
  const meanNs = timesNs.reduce((a, b) => a + b, 0) / timesNs.length;
  const minNs = Math.min(...timesNs);
  const maxNs = Math.max(...timesNs);
  const stdevNs = Math.sqrt(timesNs.reduce((a, t) => a + (t - meanNs) ** 2, 0) / timesNs.length);
  return {
    type: 'sample',
    mover,
    initiator,
    src: 0,
    dst: 1,
    sizeBytes,
    cus,
    engines: mover === 'engine' ? 1 : 0,
    iters: timesNs.length,
    timesNs,
    meanNs,
    minNs,
    maxNs,
    stdevNs,
    gbps: sizeBytes / meanNs,
    gbpsMax: sizeBytes / minNs,
    validated: true,
  };
}

/** Feeds values through the same validation the host applies to helper output. */
function runOf(...values: unknown[]): Run {
  const run = newRun(header);
  for (const value of values) {
    const result = validateRecord(value);
    if (result.kind !== 'record') throw new Error(`fixture does not satisfy the protocol: ${JSON.stringify(result)}`);
    applyRecord(run, result.record as HelperRecord);
  }
  return run;
}

const KiB = 1024;
const MiB = 1024 * KiB;

/** One-iteration samples at 4 KiB, one a [path, CUs, ns] row. */
const at4KiB = (...rows: [Path, number, number][]) => rows.map(([path, cus, ns]) => sample(path, 4 * KiB, cus, [ns]));

describe('sweepView', () => {
  it('makes one series per path and CU count, in path order then by CUs', () => {
    const view = sweepView(
      runOf(
        hello('sim', true),
        ...at4KiB(
          ['engine/device', 1, 2000],
          ['cu/host', 64, 1000],
          ['engine/host', 0, 3000],
          ['cu/host', 8, 1500],
          ['cu/device', 64, 900],
        ),
        sample('cu/host', 1 * MiB, 64, [20000]),
      ),
    );
    expect(view.series.map((s) => `${s.path}#${s.cus}`)).toEqual([
      'cu/host#8',
      'cu/host#64',
      'cu/device#64',
      'engine/host#0',
      'engine/device#1',
    ]);
    expect(view.series.find((s) => s.path === 'cu/host' && s.cus === 64)?.points).toHaveLength(2);
  });

  it('sorts each series by message size whatever order the samples arrived in', () => {
    const view = sweepView(
      runOf(
        sample('cu/host', 1 * MiB, 64, [20000]),
        sample('cu/host', 4 * KiB, 64, [1000]),
        sample('cu/host', 64 * KiB, 64, [3000]),
      ),
    );
    expect(view.series[0]?.points.map((p) => p.sizeBytes)).toEqual([4 * KiB, 64 * KiB, 1 * MiB]);
    expect(view.sizes).toEqual([4 * KiB, 64 * KiB, 1 * MiB]);
  });

  it('spreads each point from the slowest to the fastest iteration', () => {
    const view = sweepView(runOf(sample('engine/host', 1 * MiB, 0, [10_000, 20_000, 15_000])));
    const point = view.series[0]?.points[0];
    expect(point?.gbps).toBeCloseTo(MiB / 15_000);
    expect(point?.gbpsLow).toBeCloseTo(MiB / 20_000);
    expect(point?.gbpsHigh).toBeCloseTo(MiB / 10_000);
    expect(point?.meanNs).toBe(15_000);
    expect(point!.gbpsLow).toBeLessThanOrEqual(point!.gbps);
    expect(point!.gbps).toBeLessThanOrEqual(point!.gbpsHigh);
  });

  it('lists only the CU counts swept on cu/* paths, not the CU an engine/device copy uses', () => {
    const view = sweepView(
      runOf(
        ...at4KiB(
          ['cu/host', 64, 1000],
          ['cu/device', 16, 1000],
          ['cu/host', 256, 1000],
          ['engine/device', 1, 1000],
          ['engine/host', 0, 1000],
        ),
      ),
    );
    expect(view.cuCounts).toEqual([16, 64, 256]);
  });

  it('takes the simulated flag from hello', () => {
    expect(sweepView(runOf(hello('sim', true), topology(true))).simulated).toBe(true);
    expect(sweepView(runOf(hello('hip', false), topology(false))).simulated).toBe(false);
    expect(sweepView(runOf(hello('hip', false))).backend).toBe('hip');
  });

  it('describes the node, the copy and how the run ended', () => {
    const run = runOf(
      hello('sim', true),
      topology(true),
      { type: 'progress', done: 3, total: 8 },
      sample('cu/host', 4 * KiB, 64, [1000]),
    );
    applySavedValue(run, {
      type: 'run-end',
      status: 'crashed',
      exitCode: null,
      signal: 'SIGSEGV',
      message: 'sdma-probe crashed (SIGSEGV)',
      endedAt: '2026-11-30T00:01:00Z',
    });
    const view = sweepView(run);
    expect(view).toMatchObject({
      runId: 'demo',
      nodeLabel: 'AMD Instinct MI350X',
      src: 0,
      dst: 1,
      status: 'crashed',
      statusMessage: 'sdma-probe crashed (SIGSEGV)',
      progress: { done: 3, total: 8 },
    });
  });

  it('passes warnings and host problems through', () => {
    const run = runOf({ type: 'warning', code: 'sim', message: 'simulated backend: numbers are modelled' });
    applySavedValue(run, { type: 'sample', mover: 'cu' });
    const view = sweepView(run);
    expect(view.warnings).toEqual(['simulated backend: numbers are modelled']);
    expect(view.problems).toHaveLength(1);
    expect(view.problems[0]).toMatch(/^skipped a malformed record: sample/);
  });
});

describe('seriesForCus', () => {
  const view = sweepView(
    runOf(
      ...at4KiB(
        ['cu/host', 8, 1500],
        ['cu/host', 64, 1000],
        ['cu/device', 64, 900],
        ['cu/device', 8, 1400],
        ['engine/host', 0, 3000],
        ['engine/device', 1, 2000],
      ),
    ),
  );
  const keys = (cus: number) => seriesForCus(view, cus).map((s) => `${s.path}#${s.cus}`);

  it('shows every cu/* path at the chosen CU count next to the engine paths', () => {
    expect(keys(64)).toEqual(['cu/host#64', 'cu/device#64', 'engine/host#0', 'engine/device#1']);
    expect(keys(8)).toEqual(['cu/host#8', 'cu/device#8', 'engine/host#0', 'engine/device#1']);
  });

  it('always keeps the engine paths, even for a CU count that matches their own', () => {
    expect(keys(1)).toEqual(['engine/host#0', 'engine/device#1']);
    expect(keys(32)).toEqual(['engine/host#0', 'engine/device#1']);
  });
});

describe('sweepView while a run streams', () => {
  it('reads "running" while live and unfinished, and the recorded status otherwise', () => {
    const run = newRun(header);
    applyRecord(run, protocolSample());
    expect(sweepView(run, true).status).toBe('running');
    expect(sweepView(run).status).toBe('incomplete');
    run.end = { type: 'run-end', status: 'crashed', exitCode: null, signal: 'SIGKILL', message: 'x', endedAt: '' };
    expect(sweepView(run, true).status).toBe('crashed');
  });
});

describe('where the numbers come from', () => {
  it('a sweep with rocSHMEM-carried engine/device samples says that path is built against a declarations-only API and was never run on AMD by SDMA Lens', () => {
    const run = newRun(runHeader('amd'));
    run.samples.push(
      protocolSample({ mover: 'engine', initiator: 'device', engines: 1, cus: 1, label: 'rocshmem-sdma' }),
    );
    expect(sweepView(run).warnings).toContain(ROCSHMEM_UNTESTED);
    expect(ROCSHMEM_UNTESTED).toMatch(/declarations-only rocSHMEM API and has not run it on AMD hardware/);
    const plain = newRun(runHeader('nv'));
    plain.samples.push(
      protocolSample({ mover: 'engine', initiator: 'device', engines: 1, cus: 1, label: 'proxy-initiated' }),
    );
    expect(sweepView(plain).warnings).not.toContain(ROCSHMEM_UNTESTED);
  });
});
