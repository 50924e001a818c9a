/**
 * The seed's dimensions end to end (docs/SEED-EXPERIMENTS.md): the real helper's samples for
 * --waves-per-cu, --engines, --batch and --shmem-sdma pass the protocol's checks, become one
 * series per value in the sweep view, and come back from a run the CLI saved.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Sample } from '../../src/core/protocol';
import { applyRecord, newRun, runHeader } from '../../src/core/run';
import { RunStore } from '../../src/core/runs/runStore';
import { seriesKey } from '../../src/core/seriesKey';
import { sweepView } from '../../src/core/sweep/sweepView';
import { runCli } from '../support/cli';
import { helper, records } from './run';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-seed-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const samplesOf = (args: string[]) =>
  records(helper(['sweep', '--backend', 'sim', '--pairs', '0:1', '--iters', '3', ...args])).filter(
    (r): r is Sample => r.type === 'sample',
  );

describe('the seed dimensions through the real helper', () => {
  it('prints each dimension only where it is not the default, one series per value', () => {
    const s = samplesOf(['--paths', 'cu/device', '--cus', '1', '--waves-per-cu', '1,16', '--sizes', '1M']);
    expect(s.map((x) => [x.wavesPerCu, x.waveSize])).toEqual([
      [1, 64],
      [16, 64],
    ]);
    // 16 wave64 is the 1024 threads every run before had: the same series as a run without waves.
    const old = samplesOf(['--paths', 'cu/device', '--cus', '1', '--sizes', '1M']);
    expect(old[0]!.wavesPerCu).toBeUndefined();
    expect(seriesKey(s[1]!)).toBe(seriesKey(old[0]!));
    expect(seriesKey(s[0]!)).not.toBe(seriesKey(old[0]!));
    // One wave moves a fraction of a full CU.
    expect(s[0]!.gbps).toBeLessThan(0.6 * s[1]!.gbps);
  });

  it('splits and batches engine/host copies, labelled with what they counted', () => {
    const s = samplesOf(['--paths', 'engine/host', '--engines', '1,2', '--batch', '0,4', '--sizes', '64M']);
    expect(s.map((x) => [x.split, x.splitOver, x.batch])).toEqual([
      [undefined, undefined, undefined],
      [2, 'engines', undefined],
      [undefined, undefined, 4],
    ]);
    expect(new Set(s.map(seriesKey)).size).toBe(3);
  });

  it("labels rocSHMEM's puts with the mover it uses at each size, one engine/device curve per mode", () => {
    const s = samplesOf(['--paths', 'engine/device', '--shmem-sdma', 'forced,library,off', '--sizes', '128,1M']);
    const at = (size: number, mode: string | undefined) => s.find((x) => x.sizeBytes === size && x.shmemSdma === mode)!;
    expect(at(128, undefined).mover).toBe('engine');
    expect(at(128, 'library').mover).toBe('cu'); // below rocSHMEM's 256-byte default
    expect(at(1 << 20, 'library').mover).toBe('engine');
    expect(at(1 << 20, 'off').mover).toBe('cu');
    const run = newRun(runHeader('seed', 'sweep', inject('helperPath'), []));
    for (const r of records(
      helper([
        'sweep',
        '--backend',
        'sim',
        '--pairs',
        '0:1',
        '--iters',
        '3',
        '--paths',
        'engine/device',
        '--shmem-sdma',
        'forced,library,off',
        '--sizes',
        '128,1M',
      ]),
    ))
      applyRecord(run, r);
    const names = sweepView(run).series.map((x) => `${x.path}|${x.shmemSdma ?? ''}`);
    expect(names.filter((n) => n.startsWith('engine/device')).length).toBe(3);
    expect(names.some((n) => n.startsWith('cu/device'))).toBe(false);
  });

  it('refuses values out of range with a message naming the flag', () => {
    const r = helper(['sweep', '--backend', 'sim', '--waves-per-cu', '65']);
    expect(r.status).toBe(2);
    expect(r.lines.join('\n')).toMatch(/--waves-per-cu/);
  });

  it('the CLI passes the flags and its saved run opens with every series', async () => {
    const { code, out } = await runCli([
      'sweep',
      '--backend',
      'sim',
      '--paths',
      'cu/host,engine/host',
      '--cus',
      '8',
      '--sizes',
      '1M',
      '--iters',
      '3',
      '--waves-per-cu',
      '1,4',
      '--engines',
      '1,2',
      '--runs-dir',
      dir,
      '--helper',
      inject('helperPath'),
    ]);
    expect(code, out).toBe(0);
    const [id] = readdirSync(dir);
    const run = await new RunStore(dir).open(id!);
    expect(run.samples.map((x) => x.wavesPerCu ?? x.split ?? 0).sort()).toEqual([0, 1, 2, 4]);
    expect(new Set(run.samples.map(seriesKey)).size).toBe(4);
  });
});
