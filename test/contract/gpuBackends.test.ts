/**
 * The GPU backends' side of the contract that can be checked without a GPU: how a build
 * with (or without) the cuda/hip backend answers on a machine that has no such GPU, the
 * validation fault, the timing-mode and tracing flags, and that the records a real 2x H200
 * run printed (bench/results) validate against src/core/protocol.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { ErrorRecord, HelperRecord, Hello, Sample } from '../../src/core/protocol';
import { parseLine } from '../../src/core/protocol';
import { helper, records } from './run';

const small = ['--sizes', '4K,1M', '--cus', '8', '--iters', '3'];

function hello(rs: HelperRecord[]): Hello {
  const first = rs[0];
  if (first?.type !== 'hello') throw new Error('no hello first');
  return first;
}

function errorOf(rs: HelperRecord[]): ErrorRecord {
  const e = rs.find((r): r is ErrorRecord => r.type === 'error');
  if (!e) throw new Error('no error record');
  return e;
}

describe('GPU backends on a machine without that GPU', () => {
  for (const backend of ['cuda', 'hip'] as const) {
    it(`--backend ${backend}: an error record with a hint and exit 3, or real hardware answering`, () => {
      const r = helper(['info', '--backend', backend]);
      const rs = records(r);
      const h = hello(rs);
      expect(h.backend).toBe(backend);
      if (r.status === 0) {
        // This machine has the GPU: then it must describe real hardware.
        expect(h.simulated).toBe(false);
        const topo = rs.find((x) => x.type === 'topology');
        expect(topo).toMatchObject({ node: { simulated: false } });
        return;
      }
      expect(r.status).toBe(3);
      const e = errorOf(rs);
      if (h.backendsBuilt.includes(backend)) {
        expect(['no-gpu', 'driver-too-old']).toContain(e.code);
      } else {
        expect(e.code).toBe('backend-unavailable');
      }
      expect(e.hint).toBeTruthy();
      expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'error' });
    });
  }

  it('auto falls back to the simulator, labelled, and names why when a GPU backend is built', () => {
    const r = helper(['sweep', ...small]);
    const rs = records(r);
    if (!hello(rs).simulated) return; // real GPUs present
    expect(r.status).toBe(0);
    const warning = rs.find((x) => x.type === 'warning');
    expect(warning).toMatchObject({ code: 'simulated' });
    const built = hello(rs).backendsBuilt.filter((b) => b !== 'sim');
    for (const b of built) expect(warning?.type === 'warning' && warning.message).toContain(`${b}:`);
  });
});

describe('validation fault', () => {
  it('corrupt-after=N: N samples, then error validation with the wrong byte, exit 4', () => {
    const r = helper(['sweep', '--backend', 'sim', ...small, '--fault', 'corrupt-after=2']);
    expect(r.status).toBe(4);
    const rs = records(r);
    expect(rs.filter((x) => x.type === 'sample')).toHaveLength(2);
    const e = errorOf(rs);
    expect(e.code).toBe('validation');
    expect(e.detail).toMatch(/byte \d+ is \d+, expected \d+/);
    expect(e.hint).toBeTruthy();
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'error', samples: 2 });
  });

  it('a malformed corrupt-after is a usage error', () => {
    const r = helper(['sweep', '--backend', 'sim', '--fault', 'corrupt-after=x']);
    expect(r.status).toBe(2);
    expect(errorOf(records(r)).code).toBe('usage');
  });
});

describe('timing modes and tracing flags', () => {
  it('--mode both gives a one-shot and a pipelined sample per work unit, each labelled', () => {
    const r = helper([
      'sweep',
      '--backend',
      'sim',
      '--paths',
      'engine/host',
      '--sizes',
      '4K',
      '--iters',
      '3',
      '--mode',
      'both',
    ]);
    expect(r.status).toBe(0);
    const samples = records(r).filter((x): x is Sample => x.type === 'sample');
    expect(samples.map((s) => s.mode)).toEqual(['one-shot', 'pipelined']);
    for (const s of samples) expect(s.medianNs).toBeGreaterThan(0);
  });

  it('--trace is a switch, --trace=off is accepted, --mode with a wrong value is a usage error', () => {
    expect(helper(['sweep', '--backend', 'sim', ...small, '--trace']).status).toBe(0);
    expect(helper(['sweep', '--backend', 'sim', ...small, '--trace=off']).status).toBe(0);
    const bad = helper(['sweep', '--backend', 'sim', '--mode', 'sometimes']);
    expect(bad.status).toBe(2);
    expect(errorOf(records(bad)).message).toMatch(/--mode/);
  });
});

describe('records from a real 2x H200 run', () => {
  const resultsRoot = join(inject('repoRoot'), 'bench', 'results');
  const runs = existsSync(resultsRoot)
    ? readdirSync(resultsRoot).filter((d) => existsSync(join(resultsRoot, d, 'raw')))
    : [];

  it('there is at least one committed run to check', () => {
    expect(runs.length).toBeGreaterThan(0);
  });

  for (const run of runs) {
    it(`${run}: every NDJSON line validates against the protocol`, () => {
      const dir = join(resultsRoot, run, 'raw');
      const files = readdirSync(dir).filter((f) => f.endsWith('.ndjson'));
      expect(files.length).toBeGreaterThan(0);
      let sampleCount = 0;
      for (const file of files) {
        const lines = readFileSync(join(dir, file), 'utf8')
          .split('\n')
          .filter((l) => l.length > 0);
        for (const [i, line] of lines.entries()) {
          const parsed = parseLine(line);
          if (parsed.kind !== 'record')
            throw new Error(`${file}:${i + 1}: ${parsed.kind === 'malformed' ? parsed.reason : parsed.type}`);
          if (parsed.record.type === 'sample') {
            sampleCount++;
            // A bandwidth number only ever comes from a checked copy.
            expect(parsed.record.validated).toBe(true);
          }
        }
      }
      expect(sampleCount).toBeGreaterThan(0);
    });
  }
});

describe('engine/device through rocSHMEM (AMD) leaves the simulator as it was', () => {
  it('simulated engine/device samples stay simulated, validated and carry no rocSHMEM label', () => {
    const r = helper([
      'sweep',
      '--backend',
      'sim',
      '--paths',
      'engine/device',
      '--sizes',
      '4K,64M',
      '--mode',
      'both',
      '--iters',
      '3',
    ]);
    expect(r.status).toBe(0);
    const rs = records(r);
    expect(hello(rs).simulated).toBe(true);
    const samples = rs.filter((x): x is Sample => x.type === 'sample');
    expect(samples).toHaveLength(4);
    for (const s of samples) {
      expect(s).toMatchObject({ mover: 'engine', initiator: 'device', validated: true });
      expect(s.label).not.toBe('rocshmem-sdma');
    }
  });

  it('the simulator still fails its check under --fault corrupt-after on engine/device (exit 4)', () => {
    const r = helper([
      'sweep',
      '--backend',
      'sim',
      '--paths',
      'engine/device',
      '--sizes',
      '4K,1M',
      '--iters',
      '3',
      '--fault',
      'corrupt-after=1',
    ]);
    expect(r.status).toBe(4);
    expect(errorOf(records(r)).code).toBe('validation');
  });
});
