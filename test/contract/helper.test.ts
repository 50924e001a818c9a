/**
 * The contract between the real sdma-probe binary and src/core/protocol.ts: every line it
 * prints validates, records come in the documented order, and failures follow the
 * documented exit codes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { HelperRecord, Sample } from '../../src/core/protocol';
import { PATHS, parseLine, pathName } from '../../src/core/protocol';
import { LIMITS } from '../../src/core/limits';
import { readTimelineFile } from '../../src/core/timeline/timelineFile';
import { helper, records } from './run';

const small = ['--sizes', '4K,1M', '--cus', '8,64', '--iters', '5'];

function expectFraming(rs: HelperRecord[]) {
  expect(rs[0]?.type).toBe('hello');
  expect(rs.at(-1)?.type).toBe('done');
  expect(rs.filter((r) => r.type === 'hello')).toHaveLength(1);
  expect(rs.filter((r) => r.type === 'done')).toHaveLength(1);
}

describe('sdma-probe contract', () => {
  it('--version answers the handshake the extension checks', () => {
    const r = helper(['--version']);
    expect(r.status).toBe(0);
    expect(r.lines[0]).toMatch(/^sdma-probe \d+\.\d+\.\d+ \(protocol 1; backends: sim/);
  });

  it('info prints hello, the simulated MI350X topology and done', () => {
    const r = helper(['info', '--backend', 'sim']);
    expect(r.status).toBe(0);
    const rs = records(r);
    expectFraming(rs);
    const hello = rs[0]!;
    expect(hello).toMatchObject({ type: 'hello', protocol: 1, command: 'info', backend: 'sim', simulated: true });
    const topo = rs.find((x) => x.type === 'topology');
    if (topo?.type !== 'topology') throw new Error('no topology');
    expect(topo.node).toMatchObject({ vendor: 'amd', simulated: true });
    expect(topo.gpus).toHaveLength(8);
    for (const g of topo.gpus) {
      expect(g.cus).toBe(256);
      expect(g.engines.filter((e) => e.kind === 'xgmi')).toHaveLength(14);
      expect(g.engines.filter((e) => e.kind === 'pcie')).toHaveLength(2);
    }
    // Fully connected: each GPU has 7 xGMI peers.
    for (let i = 0; i < 8; i++) expect(topo.links.filter((l) => l.src === i && l.kind === 'xgmi')).toHaveLength(7);
  });

  it('sweep prints valid samples for every path, size and CU count, with progress up to the total', () => {
    const r = helper(['sweep', '--backend', 'sim', ...small]);
    expect(r.status).toBe(0);
    const rs = records(r);
    expectFraming(rs);
    const samples = rs.filter((x): x is Sample => x.type === 'sample');
    // cu/* paths: 2 sizes x 2 CU counts each; engine/* paths: 2 sizes each.
    expect(samples).toHaveLength(2 * 2 * 2 + 2 * 2);
    expect(new Set(samples.map((s) => pathName(s.mover, s.initiator)))).toEqual(new Set(PATHS));
    for (const s of samples) {
      expect(s.timesNs).toHaveLength(5);
      expect(s.validated).toBe(true);
      expect(s.minNs).toBeLessThanOrEqual(s.meanNs);
      expect(s.maxNs).toBeGreaterThanOrEqual(s.meanNs);
      expect(s.gbps).toBeCloseTo(s.sizeBytes / s.meanNs, 1);
      if (s.mover === 'engine') expect(s.cus).toBe(s.initiator === 'device' ? 1 : 0);
    }
    const progress = rs.filter((x) => x.type === 'progress');
    expect(progress.at(-1)).toMatchObject({ done: samples.length, total: samples.length });
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'ok', samples: samples.length });
  });

  it('is deterministic for a seed and varies across seeds', () => {
    const times = (seed: string) =>
      records(helper(['sweep', '--backend', 'sim', ...small, '--seed', seed]))
        .filter((x) => x.type === 'sample')
        .map((x) => (x as Sample).timesNs);
    expect(times('7')).toEqual(times('7'));
    expect(times('7')).not.toEqual(times('8'));
  });

  it('announces a timeline file it wrote, and the file reads back with the announced event count', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdma-contract-'));
    try {
      const file = join(dir, 'timeline.sdmatl');
      const rs = records(
        helper(['sweep', '--backend', 'sim', ...small, '--timeline-size', '1M', '--timeline-out', file]),
      );
      const tl = rs.find((x) => x.type === 'timeline');
      if (tl?.type !== 'timeline' || !('path' in tl)) throw new Error('no timeline reference');
      const data = readTimelineFile(readFileSync(tl.path));
      expect(data.count).toBe(tl.eventCount);
      expect(readFileSync(tl.path).byteLength).toBe(tl.fileBytes);
      expect(data.count).toBeGreaterThan(10);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints a small timeline inline when no file is given', () => {
    const rs = records(
      helper(['sweep', '--backend', 'sim', '--sizes', '64K', '--cus', '4', '--iters', '2', '--timeline-size', '64K']),
    );
    const tl = rs.find((x) => x.type === 'timeline');
    if (tl?.type !== 'timeline' || !('events' in tl)) throw new Error('no inline timeline');
    const kinds = new Set(tl.events.map((e) => e.kind));
    for (const k of ['kernel', 'cu', 'packet', 'doorbell']) expect(kinds.has(k as never)).toBe(true);
    const packets = new Map(tl.events.filter((e) => e.kind === 'packet').map((e) => [e.id, e]));
    for (const d of tl.events.filter((e) => e.kind === 'doorbell')) {
      const p = packets.get(d.ref);
      expect(p, `doorbell ${d.id} points at a packet`).toBeDefined();
      expect(p!.queuedNs).toBeGreaterThanOrEqual(d.startNs);
      expect(p!.startNs).toBeGreaterThanOrEqual(p!.queuedNs);
    }
  });

  it.each([
    [['sweep', '--sizes', '12Q']],
    [['sweep', '--cus', '0']],
    [['sweep', '--cus', '257']],
    [['sweep', '--src', 'host', '--dst', 'host']],
    [['sweep', '--pairs', 'host:host']],
    [['sweep', '--src', 'cpu']],
    [['sweep', '--dst', '8']],
    [['sweep', '--paths', 'sdma/host']],
    [['sweep', '--iters']],
    [['sweep', '--bogus']],
    [['frobnicate']],
    [[]],
  ])('bad arguments %j: an error record with code usage, usage on stderr, exit 2', (args) => {
    const r = helper(args);
    expect(r.status).toBe(2);
    const rs = records(r);
    expectFraming(rs);
    expect(rs.find((x) => x.type === 'error')).toMatchObject({ code: 'usage' });
    expect(rs.at(-1)).toMatchObject({ status: 'error' });
    expect(r.stderr).toMatch(/usage/i);
  });

  it('a timeline file that cannot be written: error io, exit 1', () => {
    const r = helper([
      'sweep',
      '--backend',
      'sim',
      ...small,
      '--timeline-size',
      '1M',
      '--timeline-out',
      '/nonexistent-dir/t.sdmatl',
    ]);
    expect(r.status).toBe(1);
    expect(records(r).find((x) => x.type === 'error')).toMatchObject({ code: 'io' });
  });

  it('a backend that is not built: error backend-unavailable, exit 3', () => {
    const r = helper(['sweep', '--backend', 'hip']);
    if (JSON.parse(r.lines[0]!).backendsBuilt.includes('hip')) return; // a HIP build answers differently
    expect(r.status).toBe(3);
    expect(records(r).find((x) => x.type === 'error')).toMatchObject({ code: 'backend-unavailable' });
  });

  it('auto says plainly that it fell back to the simulator', () => {
    const rs = records(helper(['sweep', ...small]));
    if (rs[0]?.type === 'hello' && !rs[0].simulated) return; // real GPUs present
    expect(rs.find((x) => x.type === 'warning')).toMatchObject({ code: 'simulated' });
  });

  it('fault crash-after: dies by SIGABRT after N samples, with no done record', () => {
    const r = helper(['sweep', '--backend', 'sim', ...small, '--fault', 'crash-after=3']);
    expect(r.signal).toBe('SIGABRT');
    const rs = records(r);
    expect(rs.filter((x) => x.type === 'sample')).toHaveLength(3);
    expect(rs.some((x) => x.type === 'done')).toBe(false);
  });

  /** The helper's stdout lines with the time each arrived, until it exits or `stopAfterMs`. */
  async function timedLines(args: string[], stopAfterMs: number) {
    const child = spawn(inject('helperPath'), args);
    const lines: { at: number; type: string }[] = [];
    let pending = '';
    child.stdout.on('data', (d: Buffer) => {
      pending += d.toString();
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const r = parseLine(pending.slice(0, nl));
        lines.push({ at: performance.now(), type: r.kind === 'record' ? r.record.type : r.kind });
        pending = pending.slice(nl + 1);
      }
    });
    const stop = setTimeout(() => child.kill('SIGKILL'), stopAfterMs);
    await new Promise((resolve) => child.on('close', resolve));
    clearTimeout(stop);
    return lines;
  }

  it('a long unit of work prints a heartbeat at least every heartbeatMs; a hang prints nothing', async () => {
    const slow = await timedLines(
      [
        'sweep',
        '--backend',
        'sim',
        '--sizes',
        '4K',
        '--paths',
        'engine/host',
        '--iters',
        '3',
        '--sim-delay-ms',
        String(3 * LIMITS.heartbeatMs),
      ],
      20_000,
    );
    expect(slow.at(-1)?.type).toBe('done');
    expect(slow.filter((l) => l.type === 'heartbeat').length).toBeGreaterThanOrEqual(2);
    const gaps = slow.slice(1).map((l, i) => l.at - slow[i]!.at);
    // A slice of the delay is 250 ms: a beat is due at most that late.
    expect(Math.max(...gaps)).toBeLessThan(LIMITS.heartbeatMs + 500);

    const hung = await timedLines(
      ['sweep', '--backend', 'sim', ...small, '--fault', 'hang-after=1'],
      3 * LIMITS.heartbeatMs,
    );
    expect(hung.some((l) => l.type === 'sample')).toBe(true);
    expect(hung.some((l) => l.type === 'heartbeat')).toBe(false);
  }, 30_000);

  it('fault garbage-after: one malformed line, and the run carries on to done', () => {
    const r = helper(['sweep', '--backend', 'sim', ...small, '--fault', 'garbage-after=2']);
    expect(r.status).toBe(0);
    expect(r.results.filter((x) => x.kind === 'malformed')).toHaveLength(1);
    expect(r.results.at(-1)).toMatchObject({ kind: 'record', record: { type: 'done', status: 'ok' } });
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s during a sweep: done with status cancelled, exit %i', async (signal, exitCode) => {
    const child = spawn(inject('helperPath'), ['sweep', '--backend', 'sim', ...small, '--sim-delay-ms', '200']);
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"type":"sample"')) child.kill(signal);
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(exitCode);
    const last = parseLine(out.trim().split('\n').at(-1)!);
    expect(last).toMatchObject({ kind: 'record', record: { type: 'done', status: 'cancelled' } });
  });
});
